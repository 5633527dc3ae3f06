//! The table of writers: every program the engine knows to write files by
//! itself (not through a redirection), each as one row of data saying where
//! its targets are and how it writes them. One table feeds both consumers of
//! a command's writes: the protected-path rules outside a run
//! ([`crate::paths`], Hard rule 16) and the run's scope during one
//! (the helper's `scan/run_scope.rs`, Hard rule 2).
//!
//! Where a row's targets are ([`Place`]):
//! - operands (or, for some, the directory the command stands in when it
//!   is given none);
//! - the values of specific options (`sort -o F`, `curl -D F`);
//! - a tree under a destination-directory option, or under the directory
//!   the command stands in (`tar -x -C DIR`, `unzip -d DIR`);
//! - a reading of its own for the programs whose targets follow a grammar
//!   (the file a copy into a directory writes is the directory plus the
//!   source's base name; `gzip f` writes `f.gz` and removes `f`; `sed`
//!   scripts' `w FILE`; the subcommands of git);
//! - somewhere the text does not say ([`Place::Unknown`]).
//!
//! The readings of what git writes outside its work tree are in
//! [`git_dir`]; those of the programs told where to write by an option
//! (`script`, `ssh-keygen`, `gcc -o`, `chmod`, …) in [`outputs`].
//!
//! How they are written ([`Kind`]): most as in [`Write`]; a **tree** write
//! (an extraction, a formatter run on a directory, a checkout of
//! pathspecs) is recorded as the directory with [`Write::Remove`], so that
//! the run's scope reads it as touching everything under it (the step's
//! Files must cover the whole directory, and a Never-touch entry or the run
//! marker inside it refuses it); a **link** records the link's own path,
//! with what it points to kept beside it
//! ([`crate::write_target::Link`]).
//!
//! A writer whose targets the text cannot give (`git checkout BRANCH`,
//! `git stash`, `git apply`, `patch < p`, `cargo fmt`) records an unknown
//! target: a word the engine does not know exactly, so its `path` is
//! `None`. The run's scope refuses such a write during a run, and outside
//! a run it matches no protected path (what it writes is not a path the
//! text names), so ordinary use stays free.

use crate::arg::{Arg, Taint};
use crate::getopt::{self, Parsed, Spec};
use crate::paths::Write;
use crate::word::is_pattern;
use crate::write_target::Link;

mod git_dir;
mod outputs;

use outputs::{
    attributes, binutils, capture_file, cargo_target_dir, compiler_output, dependency_manifests,
    dos2unix, emitted, esbuild, go_outputs, last_word, markup, npm_config, pip_config, pip_into,
    pytest_outputs, renames, rsync, script, ssh_keygen, tags_file,
};

/// One path a program writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub target: Arg,
    pub write: Write,
    /// For a link: what it points to.
    pub link: Option<Link>,
    /// The target is `DIR/.git`: the git directory of the repository DIR
    /// is in ([`crate::write_target::WriteTarget::git_dir`]).
    pub git_dir: bool,
}

/// How a row's targets are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Replace,
    Append,
    Modify,
    Remove,
    Create,
    /// Anything under the path may be created, changed or removed.
    Tree,
    /// Mode, owner or attributes changed ([`Write::Attributes`]).
    Attributes,
}

impl Kind {
    fn write(self) -> Write {
        match self {
            Self::Replace => Write::Replace,
            Self::Append => Write::Append,
            Self::Modify => Write::Modify,
            Self::Remove | Self::Tree => Write::Remove,
            Self::Create => Write::Create,
            Self::Attributes => Write::Attributes { tree: false },
        }
    }
}

/// A set of options: short letters and long names.
#[derive(Debug, Clone, Copy)]
struct Flags {
    short: &'static str,
    long: &'static [&'static str],
}

const NONE: Flags = Flags {
    short: "",
    long: &[],
};

const fn flags(short: &'static str, long: &'static [&'static str]) -> Flags {
    Flags { short, long }
}

impl Flags {
    fn is_empty(self) -> bool {
        self.short.is_empty() && self.long.is_empty()
    }

    fn given(self, p: &Parsed<'_>) -> bool {
        p.has(self.short, self.long)
    }
}

/// What a row's reader is handed.
struct Call<'a> {
    /// The program's name.
    name: &'a str,
    /// The words after the program name and its subcommand.
    args: &'a [Arg],
    p: Parsed<'a>,
    kind: Kind,
}

/// Where a row's targets are.
#[derive(Clone, Copy)]
enum Place {
    /// Every operand.
    Operands,
    /// The operands, or the directory the command stands in when none is
    /// given (`ruff format`, `eslint --fix`, `terraform fmt`).
    OperandsOrHere,
    /// The values of an option (short letter, long name).
    Value(Option<char>, Option<&'static str>),
    /// The value of a directory option, or where the command stands.
    DirOrHere(Option<char>, Option<&'static str>),
    /// Where the command stands.
    Here,
    /// Somewhere the text does not say; the words name what is written.
    Unknown(&'static str),
    /// A reading of the row's own.
    Read(fn(&Call<'_>) -> Vec<Found>),
}

/// One row of the table.
struct Writer {
    /// The programs' names.
    programs: &'static [&'static str],
    /// The subcommand that must come first (`git checkout`, `ruff format`).
    sub: Option<&'static str>,
    spec: Spec,
    /// The row applies only with one of these options (empty: always).
    when: Flags,
    /// The row does not apply with any of these.
    unless: Flags,
    place: Place,
    kind: Kind,
}

impl Writer {
    const fn new(programs: &'static [&'static str], spec: Spec, place: Place, kind: Kind) -> Self {
        Self {
            programs,
            sub: None,
            spec,
            when: NONE,
            unless: NONE,
            place,
            kind,
        }
    }

    const fn sub(mut self, sub: &'static str) -> Self {
        self.sub = Some(sub);
        self
    }

    const fn when(mut self, when: Flags) -> Self {
        self.when = when;
        self
    }

    const fn unless(mut self, unless: Flags) -> Self {
        self.unless = unless;
        self
    }
}

const NO_OPTIONS: Spec = Spec::new("", &[]);
const UNIQ: Spec = Spec::new(
    "fsw",
    &[
        ("skip-fields", true),
        ("skip-chars", true),
        ("check-chars", true),
    ],
);
const XXD: Spec = Spec::new("cglosn", &[]);
const ICONV: Spec = Spec::new(
    "fto",
    &[("from-code", true), ("to-code", true), ("output", true)],
);
const GPG: Spec = Spec::new(
    "oruR",
    &[
        ("output", true),
        ("recipient", true),
        ("local-user", true),
        ("homedir", true),
    ],
);
const MKFIFO: Spec = Spec::new("mZ", &[("mode", true), ("context", true)]);
const MKTEMP: Spec = Spec::new("p", &[("tmpdir", false), ("suffix", true)]);
const CARGO_NEW: Spec = Spec::new(
    "",
    &[
        ("name", true),
        ("vcs", true),
        ("edition", true),
        ("registry", true),
        ("manifest-path", true),
        ("config", true),
        ("color", true),
    ],
);

// --- Options of the programs in the table -------------------------------

const CP: Spec = Spec::new(
    "StZ",
    &[
        ("target-directory", true),
        ("suffix", true),
        ("backup", false),
        ("no-target-directory", false),
        ("recursive", false),
        ("force", false),
        ("archive", false),
        ("context", false),
        ("symbolic-link", false),
        ("link", false),
        ("reflink", false),
        ("sparse", true),
    ],
);
const LN: Spec = Spec::new(
    "St",
    &[
        ("target-directory", true),
        ("suffix", true),
        ("backup", false),
        ("no-target-directory", false),
        ("force", false),
        ("interactive", false),
        ("logical", false),
        ("physical", false),
        ("no-dereference", false),
        ("relative", false),
        ("symbolic", false),
        ("verbose", false),
        ("directory", false),
    ],
);
const INSTALL: Spec = Spec::new(
    "StgmoCZ",
    &[
        ("target-directory", true),
        ("group", true),
        ("mode", true),
        ("owner", true),
        ("suffix", true),
        ("directory", false),
        ("no-target-directory", false),
    ],
);
const TEE: Spec = Spec::new("", &[("append", false), ("output-error", false)]);
const TRUNCATE: Spec = Spec::new("sr", &[("size", true), ("reference", true)]);
const SHRED: Spec = Spec::new(
    "ns",
    &[
        ("iterations", true),
        ("size", true),
        ("random-source", true),
    ],
);
const SED: Spec = Spec::new(
    "efl",
    &[
        ("expression", true),
        ("file", true),
        ("in-place", false),
        ("line-length", true),
        ("sandbox", false),
    ],
);
pub(super) const CURL: Spec = Spec::new(
    "odDHAeEuUXrwxyYzbcKQmTtF",
    &[
        ("output", true),
        ("data", true),
        ("header", true),
        ("user-agent", true),
        ("request", true),
        ("url", true),
        ("user", true),
        ("config", true),
        ("max-time", true),
        ("output-dir", true),
        ("remote-name", false),
        ("remote-name-all", false),
        ("remote-header-name", false),
        ("dump-header", true),
        ("cookie-jar", true),
        ("cookie", true),
        ("trace", true),
        ("trace-ascii", true),
        ("stderr", true),
        ("libcurl", true),
        ("etag-save", true),
        ("hsts", true),
        ("alt-svc", true),
        ("upload-file", true),
        ("write-out", true),
        ("form", true),
        ("data-binary", true),
        ("data-raw", true),
        ("data-urlencode", true),
        ("proxy", true),
        ("retry", true),
        ("connect-timeout", true),
    ],
);
pub(super) const WGET: Spec = Spec::new(
    "OoaPUetTwiDlARIXQB",
    &[
        ("output-document", true),
        ("output-file", true),
        ("append-output", true),
        ("directory-prefix", true),
        ("user-agent", true),
        ("header", true),
        ("input-file", true),
        ("recursive", false),
        ("mirror", false),
        ("page-requisites", false),
        ("content-disposition", false),
        ("level", true),
        ("tries", true),
        ("timeout", true),
        ("wait", true),
        ("accept", true),
        ("reject", true),
        ("domains", true),
    ],
);
const ARIA2C: Spec = Spec::new(
    "doisxkjUtmlTM",
    &[
        ("dir", true),
        ("out", true),
        ("input-file", true),
        ("log", true),
        ("split", true),
        ("max-connection-per-server", true),
        ("min-split-size", true),
        ("max-concurrent-downloads", true),
        ("user-agent", true),
        ("timeout", true),
        ("max-tries", true),
        ("torrent-file", true),
        ("metalink-file", true),
    ],
);
const TAR: Spec = Spec::new(
    "fCTXbgHKLNVIF",
    &[
        ("file", true),
        ("directory", true),
        ("files-from", true),
        ("exclude-from", true),
        ("exclude", true),
        ("blocking-factor", true),
        ("listed-incremental", true),
        ("format", true),
        ("starting-file", true),
        ("tape-length", true),
        ("newer", true),
        ("newer-mtime", true),
        ("label", true),
        ("use-compress-program", true),
        ("transform", true),
        ("xform", true),
        ("strip-components", true),
        ("owner", true),
        ("group", true),
        ("mode", true),
        ("mtime", true),
        ("to-command", true),
        ("checkpoint-action", true),
        ("index-file", true),
        ("volno-file", true),
        ("suffix", true),
        ("extract", false),
        ("get", false),
        ("create", false),
        ("append", false),
        ("update", false),
        ("catenate", false),
        ("concatenate", false),
        ("delete", false),
        ("list", false),
        ("to-stdout", false),
        ("remove-files", false),
    ],
);
const UNZIP: Spec = Spec::new("dPx", &[]);
const ZIP: Spec = Spec::new(
    "bntPOZs",
    &[("move", false), ("output-file", true), ("password", true)],
);
const CPIO: Spec = Spec::new(
    "DFOHEIMRs",
    &[
        ("directory", true),
        ("file", true),
        ("format", true),
        ("pattern-file", true),
        ("extract", false),
        ("create", false),
        ("pass-through", false),
        ("only-verify-crc", false),
        ("list", false),
    ],
);
const COMPRESS: Spec = Spec::new(
    "SToMF",
    &[
        ("suffix", true),
        ("threads", true),
        ("stdout", false),
        ("to-stdout", false),
        ("decompress", false),
        ("uncompress", false),
        ("keep", false),
        ("test", false),
        ("list", false),
        ("recursive", false),
        ("rm", false),
        ("memory", true),
        ("format", true),
    ],
);
const PATCH: Spec = Spec::new(
    "oidpBDrFgYzVF",
    &[
        ("output", true),
        ("input", true),
        ("directory", true),
        ("strip", true),
        ("prefix", true),
        ("ifdef", true),
        ("reject-file", true),
        ("fuzz", true),
        ("get", true),
        ("basename-prefix", true),
        ("suffix", true),
        ("version-control", true),
        ("quoting-style", true),
        ("dry-run", false),
        ("backup", false),
    ],
);
const SORT: Spec = Spec::new(
    "ktoST",
    &[
        ("key", true),
        ("field-separator", true),
        ("output", true),
        ("buffer-size", true),
        ("temporary-directory", true),
        ("parallel", true),
        ("files0-from", true),
        ("compress-program", true),
        ("random-source", true),
        ("sort", true),
    ],
);
const SPLIT: Spec = Spec::new(
    "abClnt",
    &[
        ("suffix-length", true),
        ("bytes", true),
        ("line-bytes", true),
        ("lines", true),
        ("number", true),
        ("separator", true),
        ("additional-suffix", true),
        ("filter", true),
        ("numeric-suffixes", false),
        ("hex-suffixes", false),
    ],
);
const CSPLIT: Spec = Spec::new(
    "fbn",
    &[("prefix", true), ("suffix-format", true), ("digits", true)],
);
const YQ: Spec = Spec::new(
    "IopPsf",
    &[
        ("inplace", false),
        ("indent", true),
        ("output-format", true),
        ("input-format", true),
        ("from-file", true),
        ("split-exp", true),
    ],
);
const GAWK: Spec = Spec::new(
    "fvFiEle",
    &[
        ("file", true),
        ("assign", true),
        ("field-separator", true),
        ("include", true),
        ("exec", true),
        ("load", true),
        ("source", true),
    ],
);
const ED: Spec = Spec::new("p", &[("prompt", true)]);
const VIM: Spec = Spec::new(
    "cSuUiWwTt",
    &[("cmd", true), ("startuptime", true), ("clean", false)],
);
const SPONGE: Spec = NO_OPTIONS;
const PRETTIER: Spec = Spec::new(
    "",
    &[
        ("write", false),
        ("check", false),
        ("list-different", false),
        ("config", true),
        ("ignore-path", true),
        ("parser", true),
        ("plugin", true),
        ("plugin-search-dir", true),
        ("log-level", true),
        ("loglevel", true),
        ("cache-location", true),
        ("cache-strategy", true),
        ("stdin-filepath", true),
        ("print-width", true),
        ("tab-width", true),
        ("trailing-comma", true),
        ("end-of-line", true),
        ("arrow-parens", true),
        ("prose-wrap", true),
        ("quote-props", true),
        ("html-whitespace-sensitivity", true),
        ("embedded-language-formatting", true),
        ("config-precedence", true),
        ("cursor-offset", true),
        ("range-start", true),
        ("range-end", true),
        ("object-wrap", true),
        ("experimental-operator-position", true),
    ],
);
const BLACK: Spec = Spec::new(
    "ltcW",
    &[
        ("line-length", true),
        ("target-version", true),
        ("code", true),
        ("workers", true),
        ("include", true),
        ("exclude", true),
        ("extend-exclude", true),
        ("force-exclude", true),
        ("stdin-filename", true),
        ("config", true),
        ("required-version", true),
        ("python-cell-magics", true),
        ("enable-unstable-feature", true),
        ("check", false),
        ("diff", false),
    ],
);
const RUFF: Spec = Spec::new(
    "o",
    &[
        ("config", true),
        ("target-version", true),
        ("line-length", true),
        ("select", true),
        ("ignore", true),
        ("extend-select", true),
        ("extend-ignore", true),
        ("exclude", true),
        ("extend-exclude", true),
        ("per-file-ignores", true),
        ("extend-per-file-ignores", true),
        ("fixable", true),
        ("unfixable", true),
        ("extend-fixable", true),
        ("output-format", true),
        ("output-file", true),
        ("cache-dir", true),
        ("stdin-filename", true),
        ("range", true),
        ("fix", false),
        ("no-fix", false),
        ("check", false),
        ("diff", false),
    ],
);
const ISORT: Spec = Spec::new(
    "lpoasbmwj",
    &[
        ("settings-path", true),
        ("settings-file", true),
        ("sp", true),
        ("profile", true),
        ("line-length", true),
        ("line-width", true),
        ("skip", true),
        ("skip-glob", true),
        ("src", true),
        ("add-import", true),
        ("known-third-party", true),
        ("known-first-party", true),
        ("virtual-env", true),
        ("conda-env", true),
        ("python-version", true),
        ("jobs", true),
        ("check-only", false),
        ("check", false),
        ("diff", false),
        ("show-files", false),
        ("stdout", false),
    ],
);
const AUTOPEP8: Spec = Spec::new(
    "j",
    &[
        ("in-place", false),
        ("select", true),
        ("ignore", true),
        ("max-line-length", true),
        ("exclude", true),
        ("jobs", true),
        ("global-config", true),
        ("line-range", true),
        ("range", true),
        ("indent-size", true),
    ],
);
const YAPF: Spec = Spec::new(
    "el",
    &[
        ("in-place", false),
        ("style", true),
        ("exclude", true),
        ("lines", true),
    ],
);
const RUSTFMT: Spec = Spec::new(
    "",
    &[
        ("edition", true),
        ("config", true),
        ("config-path", true),
        ("emit", true),
        ("color", true),
        ("style-edition", true),
        ("check", false),
    ],
);
const ESLINT: Spec = Spec::new(
    "cfo",
    &[
        ("config", true),
        ("ext", true),
        ("parser", true),
        ("parser-options", true),
        ("rulesdir", true),
        ("plugin", true),
        ("rule", true),
        ("env", true),
        ("global", true),
        ("ignore-path", true),
        ("ignore-pattern", true),
        ("format", true),
        ("output-file", true),
        ("max-warnings", true),
        ("cache-location", true),
        ("cache-strategy", true),
        ("resolve-plugins-relative-to", true),
        ("stdin-filename", true),
        ("report-unused-disable-directives-severity", true),
        ("flag", true),
        ("concurrency", true),
        ("fix", false),
        ("fix-dry-run", false),
    ],
);
const RUBOCOP: Spec = Spec::new(
    "cforP",
    &[
        ("config", true),
        ("format", true),
        ("out", true),
        ("require", true),
        ("only", true),
        ("except", true),
        ("autocorrect", false),
        ("autocorrect-all", false),
        ("auto-correct", false),
        ("auto-correct-all", false),
        ("fix-layout", false),
    ],
);
const BIOME: Spec = Spec::new(
    "",
    &[
        ("write", false),
        ("fix", false),
        ("apply", false),
        ("apply-unsafe", false),
        ("config-path", true),
        ("max-diagnostics", true),
        ("stdin-file-path", true),
        ("reporter", true),
        ("log-level", true),
        ("log-kind", true),
        ("indent-style", true),
        ("indent-width", true),
        ("line-width", true),
    ],
);
const CHECK_ONLY: Spec = Spec::new("", &[("check", false)]);
/// util-linux `script`: `-t` takes its file only attached (`-tFILE`,
/// `--timing=FILE`), so it is read apart ([`script`]).
pub(crate) const SCRIPT: Spec = Spec::new(
    "cEIOBTmo",
    &[
        ("command", true),
        ("echo", true),
        ("log-in", true),
        ("log-out", true),
        ("log-io", true),
        ("log-timing", true),
        ("logging-format", true),
        ("output-limit", true),
        ("timing", false),
        ("append", false),
        ("flush", false),
        ("force", false),
        ("quiet", false),
        ("return", false),
    ],
);
/// OpenSSH's `scp`: the options that take a value.
const SCP: Spec = Spec::new("cDFiJloPSX", &[]);
/// OpenSSH's `ssh-keygen`: the options that take a value.
const SSH_KEYGEN: Spec = Spec::new("CDEFIMNOPRVYZabfgmnrstwz", &[]);
const STRACE_OUT: Spec =
    Spec::new("abeEIOoPpSsUuXA", &[("output", true), ("signal", true)]).posix();

// --- The table --------------------------------------------------------

/// Every writer the engine knows, one row per way it writes.
const TABLE: &[Writer] = &[
    // Plain file writers.
    Writer::new(&["tee"], TEE, Place::Operands, Kind::Replace).unless(flags("a", &["append"])),
    Writer::new(&["tee"], TEE, Place::Operands, Kind::Append).when(flags("a", &["append"])),
    Writer::new(&["dd"], NO_OPTIONS, Place::Read(dd), Kind::Replace),
    Writer::new(&["sponge"], SPONGE, Place::Operands, Kind::Replace).unless(flags("a", &[])),
    Writer::new(&["sponge"], SPONGE, Place::Operands, Kind::Append).when(flags("a", &[])),
    Writer::new(&["truncate"], TRUNCATE, Place::Operands, Kind::Replace),
    Writer::new(&["shred"], SHRED, Place::Operands, Kind::Remove),
    Writer::new(
        &["rm", "unlink", "rmdir"],
        NO_OPTIONS,
        Place::Operands,
        Kind::Remove,
    ),
    Writer::new(
        &["touch"],
        Spec::new("dtr", &[("date", true), ("reference", true)]),
        Place::Operands,
        Kind::Modify,
    ),
    Writer::new(
        &["mkdir"],
        Spec::new("m", &[("mode", true), ("context", true)]),
        Place::Operands,
        Kind::Create,
    ),
    Writer::new(
        &["sudoedit"],
        Spec::new("ugCDhpRT", &[]),
        Place::Operands,
        Kind::Modify,
    ),
    Writer::new(
        &["sort"],
        SORT,
        Place::Value(Some('o'), Some("output")),
        Kind::Replace,
    ),
    Writer::new(&["split"], SPLIT, Place::Read(split), Kind::Replace),
    // `uniq IN OUT`, `xxd [-r] IN OUT`: the second operand is the output.
    Writer::new(&["uniq"], UNIQ, Place::Read(second_operand), Kind::Replace),
    Writer::new(&["xxd"], XXD, Place::Read(second_operand), Kind::Replace),
    Writer::new(
        &["iconv"],
        ICONV,
        Place::Value(Some('o'), Some("output")),
        Kind::Replace,
    ),
    Writer::new(
        &["gpg", "gpg2"],
        GPG,
        Place::Value(Some('o'), Some("output")),
        Kind::Replace,
    ),
    Writer::new(
        &["openssl"],
        NO_OPTIONS,
        Place::Read(openssl),
        Kind::Replace,
    ),
    Writer::new(
        &["sqlite3", "sqlite"],
        NO_OPTIONS,
        Place::Read(sqlite),
        Kind::Modify,
    ),
    // `script [FILE]`: the session's log (`typescript` by default) and
    // the logs its options name.
    Writer::new(&["script"], SCRIPT, Place::Read(script), Kind::Replace),
    Writer::new(
        &["ssh-keygen"],
        SSH_KEYGEN,
        Place::Read(ssh_keygen),
        Kind::Replace,
    ),
    // Tracers: the trace goes to `-o FILE` (the traced command is judged
    // as a command of its own).
    Writer::new(
        &["strace", "ltrace"],
        STRACE_OUT,
        Place::Value(Some('o'), Some("output")),
        Kind::Replace,
    ),
    // Outputs named by a flag: compilers and linkers (`-o FILE`), packet
    // captures (`-w FILE`), converters.
    Writer::new(
        &[
            "gcc", "cc", "g++", "c++", "clang", "clang++", "tcc", "gfortran", "nvcc", "ld",
            "ld.lld", "ld.gold", "as", "rustc",
        ],
        NO_OPTIONS,
        Place::Read(compiler_output),
        Kind::Replace,
    ),
    Writer::new(
        &["tcpdump", "tshark", "dumpcap"],
        NO_OPTIONS,
        Place::Read(capture_file),
        Kind::Replace,
    ),
    Writer::new(
        &["shuf"],
        Spec::new(
            "inoe",
            &[
                ("output", true),
                ("head-count", true),
                ("input-range", true),
                ("random-source", true),
            ],
        ),
        Place::Value(Some('o'), Some("output")),
        Kind::Replace,
    ),
    Writer::new(
        &["pandoc"],
        Spec::new(
            "oftrwMVAHBcd",
            &[
                ("output", true),
                ("from", true),
                ("to", true),
                ("read", true),
                ("write", true),
                ("metadata", true),
                ("variable", true),
                ("template", true),
                ("css", true),
                ("lua-filter", true),
                ("filter", true),
                ("defaults", true),
                ("resource-path", true),
                ("extract-media", true),
            ],
        ),
        Place::Value(Some('o'), Some("output")),
        Kind::Replace,
    ),
    Writer::new(
        &["convert", "magick", "ffmpeg"],
        NO_OPTIONS,
        Place::Read(last_word),
        Kind::Replace,
    ),
    Writer::new(
        &["dos2unix", "unix2dos", "mac2unix", "unix2mac"],
        NO_OPTIONS,
        Place::Read(dos2unix),
        Kind::Modify,
    ),
    Writer::new(
        &["fallocate"],
        Spec::new("loz", &[("length", true), ("offset", true)]),
        Place::Operands,
        Kind::Modify,
    ),
    Writer::new(
        &["ctags", "etags", "uctags"],
        NO_OPTIONS,
        Place::Read(tags_file),
        Kind::Replace,
    ),
    Writer::new(
        &["npm", "pnpm"],
        NO_OPTIONS,
        Place::Read(npm_config),
        Kind::Modify,
    ),
    Writer::new(
        &["pip", "pip3"],
        NO_OPTIONS,
        Place::Read(pip_config),
        Kind::Modify,
    ),
    Writer::new(&["go"], NO_OPTIONS, Place::Read(go_outputs), Kind::Replace),
    // A dependency added or removed: the manifest and its lock file.
    Writer::new(
        &[
            "npm", "cnpm", "pnpm", "yarn", "bun", "cargo", "go", "poetry", "uv", "bundle",
            "composer",
        ],
        NO_OPTIONS,
        Place::Read(dependency_manifests),
        Kind::Modify,
    ),
    Writer::new(
        &["strip", "objcopy"],
        NO_OPTIONS,
        Place::Read(binutils),
        Kind::Modify,
    ),
    Writer::new(
        &["javac", "tsc"],
        NO_OPTIONS,
        Place::Read(emitted),
        Kind::Replace,
    ),
    Writer::new(
        &["xmllint", "tidy"],
        NO_OPTIONS,
        Place::Read(markup),
        Kind::Replace,
    ),
    Writer::new(
        &["pip", "pip3"],
        NO_OPTIONS,
        Place::Read(pip_into),
        Kind::Tree,
    ),
    Writer::new(
        &["cargo"],
        NO_OPTIONS,
        Place::Read(cargo_target_dir),
        Kind::Tree,
    ),
    Writer::new(
        &["rename", "prename", "file-rename"],
        NO_OPTIONS,
        Place::Read(renames),
        Kind::Tree,
    ),
    Writer::new(
        &["pytest", "py.test"],
        NO_OPTIONS,
        Place::Read(pytest_outputs),
        Kind::Replace,
    ),
    Writer::new(
        &["esbuild"],
        NO_OPTIONS,
        Place::Read(esbuild),
        Kind::Replace,
    ),
    // Mode, owner and attributes (which the kernel fence cannot hold).
    Writer::new(
        &["chmod", "chown", "chgrp"],
        Spec::new("", &[("reference", true), ("from", true)]),
        Place::Read(attributes),
        Kind::Attributes,
    ),
    Writer::new(
        &["chattr", "setfacl"],
        Spec::new(
            "mMxXpv",
            &[
                ("modify", true),
                ("remove", true),
                ("set", true),
                ("modify-file", true),
                ("remove-file", true),
                ("set-file", true),
            ],
        ),
        Place::Read(attributes),
        Kind::Attributes,
    ),
    Writer::new(&["mkfifo"], MKFIFO, Place::Operands, Kind::Create),
    Writer::new(&["mknod"], MKFIFO, Place::Read(first_operand), Kind::Create),
    Writer::new(&["mktemp"], MKTEMP, Place::Read(mktemp), Kind::Create)
        .unless(flags("u", &["dry-run"])),
    // Project generators: the files of a new project.
    Writer::new(&["cargo"], CARGO_NEW, Place::Operands, Kind::Tree).sub("new"),
    Writer::new(&["cargo"], CARGO_NEW, Place::OperandsOrHere, Kind::Tree).sub("init"),
    Writer::new(
        &["npm", "pnpm", "yarn"],
        NO_OPTIONS,
        Place::Read(package_json),
        Kind::Replace,
    )
    .sub("init"),
    Writer::new(
        &["npm", "pnpm", "yarn"],
        NO_OPTIONS,
        Place::Unknown("the package archive it packs"),
        Kind::Create,
    )
    .sub("pack"),
    Writer::new(&["go"], NO_OPTIONS, Place::Read(go_mod_init), Kind::Replace).sub("mod"),
    Writer::new(&["csplit"], CSPLIT, Place::Read(csplit), Kind::Replace),
    Writer::new(
        &["find"],
        NO_OPTIONS,
        Place::Read(find_outputs),
        Kind::Replace,
    ),
    // Copies, moves and links: into a directory, the file written is the
    // directory plus the source's base name.
    Writer::new(&["cp"], CP, Place::Read(copies), Kind::Replace).unless(flags(
        "rRasl",
        &["recursive", "archive", "symbolic-link", "link"],
    )),
    Writer::new(&["cp"], CP, Place::Read(copies), Kind::Tree)
        .when(flags("rRa", &["recursive", "archive"]))
        .unless(flags("sl", &["symbolic-link", "link"])),
    Writer::new(&["cp"], CP, Place::Read(links), Kind::Remove)
        .when(flags("sl", &["symbolic-link", "link"])),
    Writer::new(&["install"], INSTALL, Place::Read(copies), Kind::Replace)
        .unless(flags("d", &["directory"])),
    Writer::new(&["install"], INSTALL, Place::Operands, Kind::Replace)
        .when(flags("d", &["directory"])),
    Writer::new(&["mv"], CP, Place::Read(moves), Kind::Tree),
    Writer::new(&["ln", "link"], LN, Place::Read(links), Kind::Remove),
    // rsync and scp: the destination, whatever lands under it.
    Writer::new(
        &["rsync"],
        super::rsync::SPEC,
        Place::Read(rsync),
        Kind::Replace,
    )
    .unless(flags("n", &["dry-run", "list-only"])),
    Writer::new(&["scp"], SCP, Place::Read(last_of_two), Kind::Replace),
    // In-place editors.
    Writer::new(&["sed", "gsed"], SED, Place::Read(sed), Kind::Modify),
    Writer::new(
        &["perl", "ruby"],
        NO_OPTIONS,
        Place::Read(in_place_script),
        Kind::Modify,
    ),
    Writer::new(crate::call::AWKS, GAWK, Place::Read(gawk), Kind::Modify),
    Writer::new(&["yq"], YQ, Place::Read(yq), Kind::Modify).when(flags("i", &["inplace"])),
    Writer::new(&["ed", "red"], ED, Place::Operands, Kind::Modify),
    Writer::new(
        &["vim", "vi", "nvim", "ex", "vim.basic", "vim.tiny", "gvim"],
        VIM,
        Place::Read(vim),
        Kind::Modify,
    )
    .unless(flags("RM", &[])),
    // Patchers.
    Writer::new(&["patch"], PATCH, Place::Read(patch), Kind::Modify)
        .unless(flags("", &["dry-run"])),
    // Archivers and extractors.
    Writer::new(
        &["tar", "gtar", "bsdtar"],
        TAR,
        Place::Read(tar),
        Kind::Tree,
    ),
    Writer::new(
        &["unzip"],
        UNZIP,
        Place::DirOrHere(Some('d'), None),
        Kind::Tree,
    )
    .unless(flags("lvtpzZ", &[])),
    Writer::new(&["zip"], ZIP, Place::Read(zip), Kind::Modify),
    Writer::new(
        &["7z", "7za", "7zr", "7zz"],
        NO_OPTIONS,
        Place::Read(seven_zip),
        Kind::Tree,
    ),
    Writer::new(&["cpio"], CPIO, Place::Read(cpio), Kind::Tree),
    Writer::new(&["ar"], NO_OPTIONS, Place::Read(ar), Kind::Modify),
    Writer::new(&["jar"], NO_OPTIONS, Place::Read(jar), Kind::Tree),
    Writer::new(
        &[
            "gzip",
            "gunzip",
            "pigz",
            "unpigz",
            "bzip2",
            "bunzip2",
            "xz",
            "unxz",
            "lzma",
            "unlzma",
            "zstd",
            "unzstd",
            "compress",
            "uncompress",
            "lz4",
            "unlz4",
            "lzip",
            "lzop",
            "brotli",
        ],
        COMPRESS,
        Place::Read(compressed),
        Kind::Replace,
    )
    .unless(flags("ctl", &["stdout", "to-stdout", "test", "list"])),
    // Downloaders.
    Writer::new(&["curl"], CURL, Place::Read(curl), Kind::Replace),
    Writer::new(&["wget"], WGET, Place::Read(wget), Kind::Replace),
    Writer::new(&["aria2c"], ARIA2C, Place::Read(aria2c), Kind::Replace),
    // Formatters and fixers: what they are run on, as a tree (a directory
    // operand is walked); the tools glob their own patterns.
    Writer::new(&["prettier"], PRETTIER, Place::Operands, Kind::Tree).when(flags("w", &["write"])),
    Writer::new(&["black", "blue"], BLACK, Place::Operands, Kind::Tree)
        .unless(flags("c", &["check", "diff", "code"])),
    Writer::new(&["ruff"], RUFF, Place::OperandsOrHere, Kind::Tree)
        .sub("format")
        .unless(flags("", &["check", "diff"])),
    Writer::new(&["ruff"], RUFF, Place::OperandsOrHere, Kind::Tree)
        .sub("check")
        .when(flags("", &["fix"]))
        .unless(flags("", &["no-fix", "diff"])),
    Writer::new(
        &["ruff"],
        RUFF,
        Place::Value(Some('o'), Some("output-file")),
        Kind::Replace,
    ),
    Writer::new(&["isort"], ISORT, Place::Operands, Kind::Tree).unless(flags(
        "c",
        &["check-only", "check", "diff", "show-files", "stdout"],
    )),
    Writer::new(&["autopep8"], AUTOPEP8, Place::Operands, Kind::Tree)
        .when(flags("i", &["in-place"])),
    Writer::new(&["yapf"], YAPF, Place::Operands, Kind::Tree).when(flags("i", &["in-place"])),
    Writer::new(&["rustfmt"], RUSTFMT, Place::Read(rustfmt), Kind::Modify)
        .unless(flags("", &["check"])),
    Writer::new(&["cargo"], NO_OPTIONS, Place::Read(cargo), Kind::Tree),
    Writer::new(
        &["gofmt", "goimports"],
        NO_OPTIONS,
        Place::Read(go_style),
        Kind::Tree,
    ),
    Writer::new(&["go"], NO_OPTIONS, Place::Read(go_fmt), Kind::Tree),
    Writer::new(&["shfmt"], NO_OPTIONS, Place::Read(go_style), Kind::Tree),
    Writer::new(
        &["terraform", "tofu"],
        NO_OPTIONS,
        Place::Read(terraform),
        Kind::Tree,
    ),
    Writer::new(&["eslint"], ESLINT, Place::OperandsOrHere, Kind::Tree)
        .when(flags("", &["fix"]))
        .unless(flags("", &["fix-dry-run"])),
    Writer::new(
        &["eslint"],
        ESLINT,
        Place::Value(Some('o'), Some("output-file")),
        Kind::Replace,
    ),
    Writer::new(
        &["clang-format"],
        NO_OPTIONS,
        Place::Read(clang_format),
        Kind::Tree,
    ),
    Writer::new(&["rubocop"], RUBOCOP, Place::OperandsOrHere, Kind::Tree).when(flags(
        "aAx",
        &[
            "autocorrect",
            "autocorrect-all",
            "auto-correct",
            "auto-correct-all",
            "fix-layout",
        ],
    )),
    Writer::new(
        &["rubocop"],
        RUBOCOP,
        Place::Value(Some('o'), Some("out")),
        Kind::Replace,
    ),
    Writer::new(&["biome"], BIOME, Place::OperandsOrHere, Kind::Tree)
        .sub("format")
        .when(flags("", &["write", "fix", "apply", "apply-unsafe"])),
    Writer::new(&["biome"], BIOME, Place::OperandsOrHere, Kind::Tree)
        .sub("check")
        .when(flags("", &["write", "fix", "apply", "apply-unsafe"])),
    Writer::new(&["biome"], BIOME, Place::OperandsOrHere, Kind::Tree)
        .sub("lint")
        .when(flags("", &["write", "fix", "apply", "apply-unsafe"])),
    Writer::new(&["deno"], CHECK_ONLY, Place::OperandsOrHere, Kind::Tree)
        .sub("fmt")
        .unless(flags("", &["check"])),
    Writer::new(&["stylua"], CHECK_ONLY, Place::Operands, Kind::Tree)
        .unless(flags("c", &["check"])),
    Writer::new(
        &["php-cs-fixer"],
        NO_OPTIONS,
        Place::OperandsOrHere,
        Kind::Tree,
    )
    .sub("fix"),
    Writer::new(&["dprint"], NO_OPTIONS, Place::Here, Kind::Tree).sub("fmt"),
    Writer::new(
        &["dotnet"],
        NO_OPTIONS,
        Place::Unknown("the project's files"),
        Kind::Tree,
    )
    .sub("format"),
    // git: the subcommands that rewrite the work tree.
    Writer::new(&["git"], NO_OPTIONS, Place::Read(git), Kind::Tree),
];

/// Every path `name` writes with `args` (the words after its name), and how.
pub(crate) fn find(name: &str, args: &[Arg]) -> Vec<Found> {
    let name = program_name(name);
    let mut found = Vec::new();
    for row in TABLE.iter().filter(|row| row.programs.contains(&name)) {
        let args = match row.sub {
            None => args,
            Some(sub) => match sub_args(args, sub) {
                Some(rest) => rest,
                None => continue,
            },
        };
        let p = getopt::parse(args, &row.spec);
        if (!row.when.is_empty() && !row.when.given(&p)) || row.unless.given(&p) {
            continue;
        }
        let call = Call {
            name,
            args,
            p,
            kind: row.kind,
        };
        found.extend(place(&call, row.place));
    }
    found
}

/// The name a row is filed under: interpreters' versions taken off
/// (`perl5.36`, `python3.12`), and `clang-format-17` as `clang-format`.
fn program_name(name: &str) -> &str {
    if name.starts_with("clang-format") {
        return "clang-format";
    }
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match base {
        "perl" | "ruby" | "gawk" => base,
        // `gcc-13`, `clang++-17`.
        _ => match base.strip_suffix('-') {
            Some(compiler @ ("gcc" | "g++" | "clang" | "clang++")) => compiler,
            _ => name,
        },
    }
}

/// The words after `sub`, the first word that is not an option.
fn sub_args<'a>(args: &'a [Arg], sub: &str) -> Option<&'a [Arg]> {
    let at = args.iter().position(|a| !a.text.starts_with('-'))?;
    args.get(at).filter(|a| a.is(sub))?;
    args.get(at + 1..)
}

fn place(call: &Call<'_>, place: Place) -> Vec<Found> {
    let kind = call.kind;
    match place {
        Place::Operands => operands(call, 0),
        Place::OperandsOrHere if call.p.operands.is_empty() => vec![here(kind)],
        Place::OperandsOrHere => operands(call, 0),
        Place::Value(short, long) => call
            .p
            .values(short, long)
            .into_iter()
            .map(|v| found(value_arg(call.args, v), kind))
            .collect(),
        Place::DirOrHere(short, long) => {
            let dirs = call.p.values(short, long);
            if dirs.is_empty() {
                vec![here(kind)]
            } else {
                dirs.into_iter()
                    .map(|v| found(value_arg(call.args, v), kind))
                    .collect()
            }
        }
        Place::Here => vec![here(kind)],
        Place::Unknown(what) => vec![unknown(call.name, what, kind)],
        Place::Read(read) => read(call),
    }
}

/// The operands after the first `skip`, empty words left out (no file
/// has an empty name).
fn operands(call: &Call<'_>, skip: usize) -> Vec<Found> {
    call.p
        .operands
        .iter()
        .skip(skip)
        .filter(|a| !(a.exact && a.text.is_empty()))
        .map(|a| found(tree_arg(a, call.kind), call.kind))
        .collect()
}

/// A tree writer's operand: a pattern in it is the tool's own (`prettier
/// --write 'src/**/*.ts'`), so it is read as one even when quoted.
fn tree_arg(arg: &Arg, kind: Kind) -> Arg {
    let mut arg = arg.clone();
    if kind == Kind::Tree && arg.exact && is_pattern(&arg.text) {
        arg.glob = true;
    }
    arg
}

fn found(target: Arg, kind: Kind) -> Found {
    Found {
        target,
        write: kind.write(),
        link: None,
        git_dir: false,
    }
}

/// The directory the command stands in, as a tree.
fn here(kind: Kind) -> Found {
    found(Arg::literal("."), kind)
}

/// A target the text does not give: `path` is `None` when recorded.
fn unknown(name: &str, what: &str, kind: Kind) -> Found {
    found(
        Arg::unknown(&format!("{name}: {what}"), Taint::default()),
        kind,
    )
}

/// The word an option's value came from: the whole word when it was given
/// apart (`-o "$X"` keeps what the engine knows of `$X`), else the attached
/// text of a known word (`-oFILE`, `--output=FILE`).
fn value_arg(args: &[Arg], value: &str) -> Arg {
    args.iter()
        .find(|a| a.text.as_ptr() == value.as_ptr() && a.text.len() == value.len())
        .cloned()
        .unwrap_or_else(|| Arg::derived(value))
}

/// `name` under `dir` (as the programs that take a destination directory
/// place it), or `name` itself when it is absolute or under the home.
pub(super) fn under(dir: &Arg, name: &Arg) -> Arg {
    if name.text.starts_with('/') || name.text == "~" || name.text.starts_with("~/") {
        return name.clone();
    }
    if dir.exact && dir.text == "." {
        return name.clone();
    }
    let text = format!("{}/{}", dir.text.trim_end_matches('/'), name.text);
    let exact = dir.exact && name.exact;
    // The result is known where the name is, after a directory known as
    // far as it was (`$HOME/` reads as `~/`, known from 1).
    let known_from = if exact {
        0
    } else if name.exact {
        dir.known_at()
    } else {
        (text.len() - name.text.len()) + name.known_at()
    };
    Arg {
        text: text.into(),
        exact,
        glob: dir.glob || name.glob,
        known_from: crate::arg::offset(known_from),
        taint: dir.taint.union(name.taint),
        content: None,
    }
}

/// The last part of a path (`a/b/` is `b`), as an argument: known when
/// the text after the last `/` is.
fn base_name(path: &Arg) -> Arg {
    let text = path.text.trim_end_matches('/');
    let cut = text.rfind('/').map_or(0, |i| i + 1);
    let base = text.get(cut..).unwrap_or_default();
    if path.exact || cut >= path.known_at() {
        Arg {
            glob: path.glob && is_pattern(base),
            ..Arg::literal(base)
        }
    } else {
        Arg::unknown(base, path.taint)
    }
}

/// A directory the command names as one: written with a trailing `/`, or
/// `.`, `..`, `~`.
fn looks_like_dir(path: &Arg) -> bool {
    let t = path.text.as_str();
    t.ends_with('/') || matches!(t, "." | ".." | "~") || t.ends_with("/.") || t.ends_with("/..")
}

// --- The rows' own readings ---------------------------------------------

/// `dd of=FILE`.
fn dd(call: &Call<'_>) -> Vec<Found> {
    call.args
        .iter()
        .filter_map(|a| a.text.strip_prefix("of=").map(|path| (a, path)))
        .map(|(a, path)| {
            let target = if a.exact {
                Arg::derived(path)
            } else {
                Arg::unknown(path, a.taint)
            };
            found(target, call.kind)
        })
        .collect()
}

/// Where a copy's sources land: `(source, destination)` pairs, the
/// destination being the directory plus the source's base name when the
/// command copies into a directory (`-t DIR`, more than one source, or a
/// destination written as a directory), else the last operand.
fn destinations<'a>(call: &Call<'a>) -> Vec<(&'a Arg, Arg)> {
    let p = &call.p;
    let ops = &p.operands;
    if let Some(dir) = p.values(Some('t'), Some("target-directory")).last() {
        let dir = value_arg(call.args, dir);
        return ops
            .iter()
            .map(|s| (*s, under(&dir, &base_name(s))))
            .collect();
    }
    let Some((last, sources)) = ops.split_last() else {
        return Vec::new();
    };
    if sources.is_empty() {
        return Vec::new();
    }
    let no_dir = p.has("T", &["no-target-directory"]);
    if !no_dir && (sources.len() > 1 || looks_like_dir(last)) {
        return sources
            .iter()
            .map(|s| (*s, under(last, &base_name(s))))
            .collect();
    }
    sources.iter().map(|s| (*s, (*last).clone())).collect()
}

/// `cp`, `install`: each file written.
fn copies(call: &Call<'_>) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for (_, dest) in destinations(call) {
        let f = found(dest, call.kind);
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// `mv`: each source goes away, each destination is written.
fn moves(call: &Call<'_>) -> Vec<Found> {
    let mut out = Vec::new();
    for (source, dest) in destinations(call) {
        out.push(found(source.clone(), Kind::Remove));
        out.push(found(dest, call.kind));
    }
    out
}

/// `ln`, `link`, `cp -s`, `cp -l`: each link made, with what it points
/// to. One operand (`ln -s ../x`) makes a link of the same base name here.
fn links(call: &Call<'_>) -> Vec<Found> {
    let symbolic = call.p.has("s", &["symbolic", "symbolic-link"]);
    // `ln -r` reads the target from here and makes it relative itself.
    let from_here = !symbolic || (call.name == "ln" && call.p.has("r", &["relative"]));
    let target_dir = call.p.values(Some('t'), Some("target-directory"));
    let pairs = match call.p.operands.as_slice() {
        [only] if call.name == "ln" && target_dir.is_empty() => {
            vec![(*only, base_name(only))]
        }
        _ => destinations(call),
    };
    pairs
        .into_iter()
        .map(|(source, link)| Found {
            target: link,
            write: call.kind.write(),
            link: Some(Link {
                to: crate::cwd::known_path(source).map(str::to_owned),
                symbolic,
                from_here,
            }),
            git_dir: false,
        })
        .collect()
}

/// `rsync SRC… DEST`, `scp SRC… DEST`: the destination (or `-t DIR`).
fn last_of_two(call: &Call<'_>) -> Vec<Found> {
    let dirs = call.p.values(Some('t'), Some("target-directory"));
    if let Some(dir) = dirs.last() {
        return vec![found(value_arg(call.args, dir), call.kind)];
    }
    match call.p.operands.as_slice() {
        [_, .., last] => vec![found((*last).clone(), call.kind)],
        _ => Vec::new(),
    }
}

/// The second operand (`uniq IN OUT`, `xxd IN OUT`).
fn second_operand(call: &Call<'_>) -> Vec<Found> {
    operands(call, 1).into_iter().take(1).collect()
}

/// The first operand (`mknod NAME TYPE …`).
fn first_operand(call: &Call<'_>) -> Vec<Found> {
    operands(call, 0).into_iter().take(1).collect()
}

/// `openssl CMD … -out FILE` (and `-keyout`): openssl's options are one
/// dash and take their value as the next word.
fn openssl(call: &Call<'_>) -> Vec<Found> {
    let mut out = Vec::new();
    let mut words = call.args.iter();
    while let Some(word) = words.next() {
        if (word.is("-out") || word.is("-keyout"))
            && let Some(value) = words.next()
        {
            out.push(found(value.clone(), call.kind));
        }
    }
    out
}

/// `sqlite3 [OPTIONS] DB [SQL]`: the database file, which any statement
/// may change (its options are one dash; some take the next word).
fn sqlite(call: &Call<'_>) -> Vec<Found> {
    const VALUED: &[&str] = &[
        "-cmd",
        "-init",
        "-separator",
        "-newline",
        "-nullvalue",
        "-maxsize",
        "-mmap",
        "-pagecache",
        "-lookaside",
        "-heap",
        "-vfs",
        "-A",
    ];
    let mut words = call.args.iter();
    while let Some(word) = words.next() {
        if VALUED.iter().any(|v| word.is(v)) {
            words.next();
        } else if !(word.exact && word.text.starts_with('-')) {
            if word.is(":memory:") || word.is("") {
                return Vec::new();
            }
            return vec![found(word.clone(), call.kind)];
        }
    }
    Vec::new()
}

/// `mktemp [-d] [-p DIR | --tmpdir[=DIR]] [TEMPLATE]`: a new name under
/// DIR, or the template's own directory, or `/tmp`. The name
/// is made up at run time, so the file is the directory's.
fn mktemp(call: &Call<'_>) -> Vec<Found> {
    let template = call.p.operands.first();
    let dir = call
        .p
        .values(Some('p'), None)
        .last()
        .map(|d| value_arg(call.args, d))
        .or_else(|| {
            call.args
                .iter()
                .find_map(|a| a.text.strip_prefix("--tmpdir="))
                .map(Arg::derived)
        });
    let name = |template: Option<&&Arg>| {
        template.map_or_else(|| Arg::derived("tmp.XXXXXXXXXX"), |t| (*t).clone())
    };
    let target = match dir {
        Some(dir) => under(&dir, &name(template)),
        None if template.is_some_and(|t| t.text.contains('/')) && !call.p.has("t", &["tmpdir"]) => {
            name(template)
        }
        // `$TMPDIR` is the calling shell's, which the judge does not see.
        None => under(&Arg::derived("/tmp"), &name(template)),
    };
    vec![found(target, call.kind)]
}

/// `npm init`: the `package.json` where it stands (or under `-w DIR`).
fn package_json(call: &Call<'_>) -> Vec<Found> {
    vec![found(Arg::literal("package.json"), call.kind)]
}

/// `go mod init`: `go.mod` where it stands.
fn go_mod_init(call: &Call<'_>) -> Vec<Found> {
    match call.p.operands.first() {
        Some(first) if first.is("init") => vec![found(Arg::literal("go.mod"), call.kind)],
        _ => Vec::new(),
    }
}

/// `ar KEY ARCHIVE [MEMBER…]`: `x` extracts the members where it stands;
/// `r`, `q`, `d`, `m` and `s` change the archive.
fn ar(call: &Call<'_>) -> Vec<Found> {
    let Some((key, rest)) = call.args.split_first() else {
        return Vec::new();
    };
    let Some(key) = key.exact_text() else {
        return vec![unknown("ar", "what its operation writes", Kind::Tree)];
    };
    let key = key.trim_start_matches('-');
    if key.contains('x') {
        return vec![here(Kind::Tree)];
    }
    if key.contains(['r', 'q', 'd', 'm', 's'])
        && let Some(archive) = rest.iter().find(|a| !a.text.starts_with('-'))
    {
        return vec![found(archive.clone(), call.kind)];
    }
    Vec::new()
}

/// `jar xf A` extracts where it stands; `jar cf A …`, `jar uf A …` write
/// the archive named after the `f` (the first operand).
fn jar(call: &Call<'_>) -> Vec<Found> {
    let Some((key, rest)) = call.args.split_first() else {
        return Vec::new();
    };
    let Some(key) = key.exact_text() else {
        return vec![unknown("jar", "what its operation writes", Kind::Tree)];
    };
    let key = key.trim_start_matches('-');
    if key.contains('x') {
        return vec![here(Kind::Tree)];
    }
    if key.contains(['c', 'u'])
        && key.contains('f')
        && let Some(archive) = rest.first()
    {
        return vec![found(archive.clone(), Kind::Replace)];
    }
    Vec::new()
}

/// `split [INPUT [PREFIX]]`: files named PREFIX (default `x`) and a
/// suffix; with `--filter`, what the filter command writes, unknown.
fn split(call: &Call<'_>) -> Vec<Found> {
    if !call.p.values(None, Some("filter")).is_empty() {
        return vec![unknown("split", "what --filter writes", call.kind)];
    }
    let prefix = call
        .p
        .operands
        .get(1)
        .map_or_else(|| Arg::literal("x"), |a| (*a).clone());
    let suffix = call
        .p
        .values(None, Some("additional-suffix"))
        .last()
        .map_or("", |s| s);
    vec![found(numbered(&prefix, suffix), call.kind)]
}

/// `csplit -f PREFIX` (default `xx`).
fn csplit(call: &Call<'_>) -> Vec<Found> {
    let prefix = call
        .p
        .values(Some('f'), Some("prefix"))
        .last()
        .map_or_else(|| Arg::literal("xx"), |v| value_arg(call.args, v));
    vec![found(numbered(&prefix, ""), call.kind)]
}

/// The pattern of the numbered files a splitter writes: `PREFIX*SUFFIX`.
fn numbered(prefix: &Arg, suffix: &str) -> Arg {
    Arg {
        text: format!("{}*{suffix}", prefix.text).into(),
        glob: true,
        content: None,
        ..prefix.clone()
    }
}

/// `find … -fprint F`, `-fprint0 F`, `-fprintf F FMT`, `-fls F`, and
/// `-delete` (the start points, as trees).
fn find_outputs(call: &Call<'_>) -> Vec<Found> {
    let mut out = Vec::new();
    let mut words = call.args.iter();
    while let Some(word) = words.next() {
        match word.exact_text() {
            Some("-fprint" | "-fprint0" | "-fprintf" | "-fls") => {
                if let Some(file) = words.next() {
                    out.push(found(file.clone(), Kind::Replace));
                }
            }
            Some("-delete") => {
                let starts = crate::call::find_starts(call.args);
                if starts.is_empty() {
                    out.push(here(Kind::Tree));
                }
                out.extend(starts.into_iter().map(|s| found(s, Kind::Tree)));
            }
            _ => {}
        }
    }
    out
}

/// `sed -i[SUFFIX]` on its file operands (and the backups a suffix
/// names), and the files its scripts' `w` commands and `s///w` flags write.
fn sed(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let mut in_place = p.has_long("in-place");
    let mut suffix = String::new();
    for (opt, value) in &p.opts {
        if let getopt::Opt::Long(name) = opt
            && name == "in-place"
        {
            suffix = value.unwrap_or_default().to_owned();
        }
    }
    // `-i`, `-i.bak`, `-ni`: GNU sed's `-i` takes the rest of its cluster
    // as the backup suffix.
    for a in call.args {
        if a.exact && a.text.starts_with('-') && !a.text.starts_with("--") {
            let cluster = a.text.get(1..).unwrap_or_default();
            let before_value = cluster.find(['e', 'f', 'l']).unwrap_or(cluster.len());
            if let Some(at) = cluster.find('i').filter(|at| *at < before_value) {
                in_place = true;
                suffix = cluster.get(at + 1..).unwrap_or_default().to_owned();
            }
        }
    }
    let scripted = p.has("ef", &["expression", "file"]);
    let mut scripts: Vec<&str> = p.values(Some('e'), Some("expression"));
    if !scripted && let Some(first) = p.operands.first().and_then(|a| a.exact_text()) {
        scripts.push(first);
    }
    let mut out = Vec::new();
    if !p.has_long("sandbox") {
        for script in scripts {
            for file in sed_script_writes(script) {
                out.push(found(Arg::derived(&file), Kind::Replace));
            }
        }
    }
    if in_place {
        for file in p
            .operands
            .iter()
            .skip(usize::from(!scripted))
            .filter(|a| !(a.exact && a.text.is_empty()))
        {
            out.push(found((*file).clone(), call.kind));
            if let Some(backup) = backup_name(file, &suffix) {
                out.push(found(backup, Kind::Replace));
            }
        }
    }
    out
}

/// The backup `-i SUFFIX` makes of `file`: the suffix added, or with `*`
/// in it, the suffix with each `*` the file's base name (GNU sed, perl).
fn backup_name(file: &Arg, suffix: &str) -> Option<Arg> {
    if suffix.is_empty() {
        return None;
    }
    if suffix.contains('*') {
        let base = base_name(file);
        let dir = file
            .text
            .strip_suffix(base.text.as_str())
            .unwrap_or_default();
        let name = suffix.replace('*', &base.text);
        if name.contains('/') {
            return Some(Arg::derived(&name));
        }
        return Some(Arg {
            text: format!("{dir}{name}").into(),
            content: None,
            ..file.clone()
        });
    }
    Some(Arg {
        text: format!("{}{suffix}", file.text).into(),
        content: None,
        ..file.clone()
    })
}

/// The files a sed script writes: the `w FILE` and `W FILE` commands and
/// the `w FILE` flag of `s`.
pub(super) fn sed_script_writes(script: &str) -> Vec<String> {
    sed_script(script).writes
}

/// What a sed script does besides editing text.
#[derive(Debug, Default)]
pub(super) struct SedEffects {
    /// Files it writes (`w FILE`, `W FILE`, the `w FILE` flag of `s`).
    pub writes: Vec<String>,
    /// Commands it runs (GNU sed's `e` and the `e` flag of `s`).
    pub runs: Vec<SedRun>,
}

/// A command a sed script runs.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SedRun {
    /// `e COMMAND`: the text after `e`.
    Command(String),
    /// `e` alone, or `s///e`: the line sed holds, run as a command; for
    /// `s`, its replacement (part of that line).
    Line(Option<String>),
}

/// What a sed script writes and runs, read as GNU sed reads it
/// (addresses, blocks, the commands whose argument runs to the end of the
/// line); reading stops at what it does not know.
pub(super) fn sed_script(script: &str) -> SedEffects {
    let mut out = SedEffects::default();
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let to_eol = |i: &mut usize| -> String {
        let mut s = String::new();
        while let Some(&c) = chars.get(*i) {
            *i += 1;
            if c == '\n' {
                break;
            }
            s.push(c);
        }
        s
    };
    let skip_blank = |i: &mut usize| {
        while chars.get(*i).is_some_and(|c| *c == ' ' || *c == '\t') {
            *i += 1;
        }
    };
    // Past a delimited part (`/re/`, `s` parts), escapes included.
    let past = |i: &mut usize, delim: char| -> bool {
        while let Some(&c) = chars.get(*i) {
            *i += 1;
            if c == '\\' {
                *i += 1;
            } else if c == delim {
                return true;
            }
        }
        false
    };
    // Most commands read, so that a long script costs linear time only.
    for _ in 0..chars.len() + 1 {
        // Separators and blanks between commands.
        while chars
            .get(i)
            .is_some_and(|c| c.is_whitespace() || *c == ';' || *c == '}')
        {
            i += 1;
        }
        // Addresses: `N`, `$`, `/re/`, `\cREc`, `first~step`, `a,b`, `!`.
        for _ in 0..2 {
            match chars.get(i) {
                Some(c) if c.is_ascii_digit() => {
                    while chars
                        .get(i)
                        .is_some_and(|c| c.is_ascii_digit() || *c == '~')
                    {
                        i += 1;
                    }
                }
                Some('$') => i += 1,
                Some('/') => {
                    i += 1;
                    if !past(&mut i, '/') {
                        return out;
                    }
                    while chars.get(i).is_some_and(|c| *c == 'I' || *c == 'M') {
                        i += 1;
                    }
                }
                Some('\\') => {
                    let Some(&delim) = chars.get(i + 1) else {
                        return out;
                    };
                    i += 2;
                    if !past(&mut i, delim) {
                        return out;
                    }
                }
                Some('+' | '~') if chars.get(i.wrapping_sub(1)) == Some(&',') => {
                    i += 1;
                    while chars.get(i).is_some_and(char::is_ascii_digit) {
                        i += 1;
                    }
                }
                _ => {}
            }
            skip_blank(&mut i);
            if chars.get(i) == Some(&',') {
                i += 1;
                skip_blank(&mut i);
            } else {
                break;
            }
        }
        skip_blank(&mut i);
        while chars.get(i) == Some(&'!') {
            i += 1;
            skip_blank(&mut i);
        }
        let Some(&command) = chars.get(i) else {
            return out;
        };
        i += 1;
        match command {
            '{' => {}
            // A label ends at `;` or the line's end (GNU sed).
            ':' | 'b' | 't' | 'T' | 'v' => {
                while chars.get(i).is_some_and(|c| *c != ';' && *c != '\n') {
                    i += 1;
                }
            }
            // Their argument runs to the end of the line.
            '#' | 'a' | 'i' | 'c' | 'r' | 'R' => {
                to_eol(&mut i);
            }
            'e' => {
                skip_blank(&mut i);
                let command = to_eol(&mut i);
                out.runs.push(if command.trim().is_empty() {
                    SedRun::Line(None)
                } else {
                    SedRun::Command(command)
                });
            }
            'w' | 'W' => {
                skip_blank(&mut i);
                let file = to_eol(&mut i);
                if !file.is_empty() {
                    out.writes.push(file);
                }
            }
            's' | 'y' => {
                let Some(&delim) = chars.get(i) else {
                    return out;
                };
                if delim == '\n' || delim == '\\' {
                    return out;
                }
                i += 1;
                if !past(&mut i, delim) {
                    return out;
                }
                let start = i;
                if !past(&mut i, delim) {
                    return out;
                }
                if command == 's' {
                    let replacement: String = chars
                        .get(start..i.saturating_sub(1))
                        .unwrap_or_default()
                        .iter()
                        .collect();
                    while let Some(&flag) = chars.get(i) {
                        if flag == 'e' {
                            out.runs.push(SedRun::Line(Some(replacement.clone())));
                        }
                        if flag == 'w' {
                            i += 1;
                            skip_blank(&mut i);
                            let file = to_eol(&mut i);
                            if !file.is_empty() {
                                out.writes.push(file);
                            }
                            break;
                        }
                        if flag.is_ascii_alphanumeric() {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            'l' | 'L' | 'q' | 'Q' => {
                skip_blank(&mut i);
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
            }
            'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | '=' | 'F' => {}
            _ => return out,
        }
    }
    out
}

/// `perl -i[EXT]` and `ruby -i[EXT]`: the files after the program (the
/// `-e` code, or else the first operand, the script), and their backups.
fn in_place_script(call: &Call<'_>) -> Vec<Found> {
    // Switches whose value is the rest of the word or, for some, the next.
    let (attached, separate): (&str, &str) = if call.name == "perl" {
        ("eEiIMmxl0CdDF", "eE")
    } else {
        ("eEiIrCxFKW0l", "eIrCE")
    };
    let mut in_place = None;
    let mut code_given = false;
    let mut rest = call.args;
    while let Some((word, after)) = rest.split_first() {
        let text = word.text.as_str();
        if !word.exact || !text.starts_with('-') || text == "-" {
            break;
        }
        rest = after;
        if text == "--" {
            break;
        }
        if text.starts_with("--") {
            continue;
        }
        let cluster = text.get(1..).unwrap_or_default();
        for (at, c) in cluster.char_indices() {
            if !attached.contains(c) {
                continue;
            }
            let value = cluster.get(at + c.len_utf8()..).unwrap_or_default();
            if c == 'e' || (c == 'E' && call.name == "perl") {
                code_given = true;
            }
            if c == 'i' {
                in_place = Some(value.to_owned());
            }
            if value.is_empty() && separate.contains(c) {
                rest = rest.get(1..).unwrap_or_default();
            }
            break;
        }
    }
    let Some(suffix) = in_place else {
        return Vec::new();
    };
    let files = rest.iter().skip(usize::from(!code_given));
    let mut out = Vec::new();
    for file in files.filter(|a| !(a.exact && a.text.is_empty())) {
        out.push(found(file.clone(), call.kind));
        if let Some(backup) = backup_name(file, &suffix) {
            out.push(found(backup, Kind::Replace));
        }
    }
    out
}

/// awk: the files its program's `print > FILE` and `printf >> FILE`
/// write, and with `gawk -i inplace` the files after the program text
/// (assignments `var=value` are no files).
fn gawk(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let program_given = p.has("fEe", &["file", "exec", "source"]);
    let mut programs: Vec<&str> = p.values(Some('e'), Some("source"));
    if !program_given && let Some(first) = p.operands.first() {
        match first.exact_text() {
            Some(text) => programs.push(text),
            None => {
                return vec![unknown(
                    call.name,
                    "a program only known at run time",
                    Kind::Replace,
                )];
            }
        }
    }
    let mut out: Vec<Found> = programs
        .into_iter()
        .flat_map(crate::checks::awk::output_files)
        .map(|output| {
            let kind = if output.append {
                Kind::Append
            } else {
                Kind::Replace
            };
            match output.file {
                Some(file) => found(Arg::derived(&file), kind),
                None => unknown(call.name, "a file its program names at run time", kind),
            }
        })
        .collect();
    let in_place = p
        .values(Some('i'), Some("include"))
        .iter()
        .any(|lib| matches!(*lib, "inplace" | "inplace.awk"));
    if in_place {
        out.extend(
            p.operands
                .iter()
                .skip(usize::from(!program_given))
                .filter(|a| !is_assignment(a))
                .map(|a| found((*a).clone(), call.kind)),
        );
    }
    out
}

/// An awk operand `var=value`.
fn is_assignment(arg: &Arg) -> bool {
    arg.text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// `yq -i EXPR FILE…` (and `yq eval -i …`): the files after the
/// expression (all operands with `--from-file`).
fn yq(call: &Call<'_>) -> Vec<Found> {
    let mut ops = call.p.operands.as_slice();
    if let Some((first, rest)) = ops.split_first()
        && ["e", "eval", "ea", "eval-all"].iter().any(|s| first.is(s))
    {
        ops = rest;
    }
    let skip = usize::from(!call.p.has("", &["from-file"]));
    ops.iter()
        .skip(skip)
        .map(|a| found((*a).clone(), call.kind))
        .collect()
}

/// `vim`, `vi -c …`, `ex`: the files it is given (`+cmd` words are
/// commands), each of which its script may write.
fn vim(call: &Call<'_>) -> Vec<Found> {
    call.p
        .operands
        .iter()
        .filter(|a| !a.text.starts_with('+'))
        .map(|a| found((*a).clone(), call.kind))
        .collect()
}

/// `patch`: the file named (`patch FILE PATCH`, `patch FILE < PATCH`),
/// or `-o OUT`; otherwise the files named inside the patch, unknown.
fn patch(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let outputs = p.values(Some('o'), Some("output"));
    if !outputs.is_empty() {
        return outputs
            .into_iter()
            .map(|v| found(value_arg(call.args, v), Kind::Replace))
            .collect();
    }
    let mut out: Vec<Found> = match p.operands.first() {
        Some(file) => vec![found((*file).clone(), call.kind)],
        None => vec![unknown("patch", "the files named in the patch", Kind::Tree)],
    };
    for reject in p.values(Some('r'), Some("reject-file")) {
        out.push(found(value_arg(call.args, reject), Kind::Replace));
    }
    out
}

/// `tar`: an extraction writes a tree under each `-C DIR` (or here); a
/// create, append or update writes the archive (`-f`, `-g`), and
/// `--remove-files` removes what was archived.
fn tar(call: &Call<'_>) -> Vec<Found> {
    // `tar xzf a.tgz`: a first word of letters is a cluster of options.
    let mut words: Vec<Arg> = call.args.to_vec();
    if let Some(first) = words.first_mut()
        && first.exact
        && !first.text.is_empty()
        && first.text.chars().all(|c| c.is_ascii_alphabetic())
    {
        first.text.insert(0, '-');
    }
    let p = getopt::parse(&words, &TAR);
    let arg_of = |v: &str| value_arg(&words, v);
    let mut out = Vec::new();
    let extract = p.has("x", &["extract", "get"]);
    if extract && !p.has("O", &["to-stdout"]) && p.values(None, Some("to-command")).is_empty() {
        let dirs = p.values(Some('C'), Some("directory"));
        if dirs.is_empty() {
            out.push(here(Kind::Tree));
        }
        out.extend(dirs.into_iter().map(|d| found(arg_of(d), Kind::Tree)));
    }
    let create = p.has("c", &["create"]);
    let change = p.has(
        "ruA",
        &["append", "update", "catenate", "concatenate", "delete"],
    );
    if create || change {
        let kind = if create { Kind::Replace } else { Kind::Modify };
        for file in p.values(Some('f'), Some("file")) {
            out.push(found(arg_of(file), kind));
        }
        if create && p.has_long("remove-files") {
            out.extend(p.operands.iter().map(|a| found((*a).clone(), Kind::Tree)));
        }
    }
    if create || change || extract {
        for snapshot in p.values(Some('g'), Some("listed-incremental")) {
            out.push(found(arg_of(snapshot), Kind::Modify));
        }
    }
    out
}

/// `zip ARCHIVE FILE…`: the archive (`.zip` added to a name without an
/// extension), or `-O OUT`; with `-m`, the files put in it go away.
fn zip(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let Some((archive, files)) = p.operands.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let outputs = p.values(Some('O'), Some("output-file"));
    if outputs.is_empty() {
        let base = base_name(archive);
        let named = if archive.exact && archive.text != "-" && !base.text.contains('.') {
            Arg::derived(&format!("{}.zip", archive.text))
        } else {
            (*archive).clone()
        };
        out.push(found(named, call.kind));
    } else {
        out.extend(
            outputs
                .into_iter()
                .map(|v| found(value_arg(call.args, v), Kind::Replace)),
        );
    }
    if p.has("m", &["move"]) {
        out.extend(files.iter().map(|f| found((*f).clone(), Kind::Tree)));
    }
    out
}

/// `7z x|e ARCHIVE -oDIR` extracts a tree (here without `-o`); `7z a|u|d
/// ARCHIVE …` writes the archive.
fn seven_zip(call: &Call<'_>) -> Vec<Found> {
    let mut words = call.args.iter().filter(|a| !a.text.starts_with('-'));
    let Some(command) = words.next().and_then(Arg::exact_text) else {
        return Vec::new();
    };
    match command {
        "x" | "e" => {
            if call.args.iter().any(|a| a.is("-so")) {
                return Vec::new();
            }
            let dir = call.args.iter().rev().find_map(|a| {
                let dir = a.text.strip_prefix("-o").filter(|_| a.exact)?;
                Some(Arg::derived(dir))
            });
            vec![dir.map_or_else(|| here(Kind::Tree), |d| found(d, Kind::Tree))]
        }
        "a" | "u" | "d" | "rn" => words
            .next()
            .map(|archive| found(archive.clone(), Kind::Modify))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// `cpio -i` extracts a tree (under `-D DIR`), `cpio -p DIR` copies one
/// into DIR, `cpio -o -F FILE` writes the archive.
fn cpio(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    if p.has("i", &["extract"]) && !p.has("t", &["list", "only-verify-crc"]) {
        return place(call, Place::DirOrHere(Some('D'), Some("directory")));
    }
    if p.has("p", &["pass-through"]) {
        return p
            .operands
            .iter()
            .map(|d| found((*d).clone(), Kind::Tree))
            .collect();
    }
    if p.has("o", &["create"]) {
        let mut files = p.values(Some('F'), Some("file"));
        files.extend(p.values(Some('O'), None));
        return files
            .into_iter()
            .map(|f| found(value_arg(call.args, f), Kind::Replace))
            .collect();
    }
    Vec::new()
}

/// The compressors: `gzip f` writes `f.gz` and removes `f`, `gunzip f.gz`
/// the reverse; `-k` keeps the source (zstd keeps it unless `--rm`), `-c`
/// writes to standard output, `-r` walks a directory.
fn compressed(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let name = call.name;
    let decompress = p.has("d", &["decompress", "uncompress"])
        || name.starts_with("un")
        || name == "gunzip"
        || name == "bunzip2";
    let (suffix, keeps) = match name {
        "bzip2" | "bunzip2" => (".bz2", false),
        "xz" | "unxz" => (".xz", false),
        "lzma" | "unlzma" => (".lzma", false),
        "zstd" | "unzstd" => (".zst", true),
        "lz4" | "unlz4" => (".lz4", true),
        "lzop" => (".lzo", true),
        "brotli" => (".br", true),
        "lzip" => (".lz", false),
        "compress" | "uncompress" => (".Z", false),
        _ => (".gz", false),
    };
    let custom = p.values(Some('S'), Some("suffix")).last().copied();
    let suffix = custom.unwrap_or(suffix);
    let keep = p.has("k", &["keep"]) || (keeps && !p.has_long("rm"));
    let outputs = if keeps {
        p.values(Some('o'), None)
    } else {
        Vec::new()
    };
    let recursive = p.has("r", &["recursive"]);
    let mut out = Vec::new();
    for file in p.operands.iter().filter(|a| !a.is("-")) {
        if recursive {
            out.push(found((*file).clone(), Kind::Tree));
            continue;
        }
        let written = if decompress {
            decompressed_name(file, suffix)
        } else {
            Some(Arg {
                text: format!("{}{suffix}", file.text).into(),
                content: None,
                ..(*file).clone()
            })
        };
        let Some(written) = written else {
            continue;
        };
        if outputs.is_empty() {
            out.push(found(written, Kind::Replace));
        }
        if !keep {
            out.push(found((*file).clone(), Kind::Remove));
        }
    }
    out.extend(
        outputs
            .into_iter()
            .map(|v| found(value_arg(call.args, v), Kind::Replace)),
    );
    out
}

/// What decompressing `file` writes: the name without its suffix
/// (`a.tgz` gives `a.tar`); `None` for a name without a known suffix,
/// which the programs leave alone.
fn decompressed_name(file: &Arg, suffix: &str) -> Option<Arg> {
    let text = file.text.as_str();
    let pairs: [(&str, &str); 8] = [
        (suffix, ""),
        (".gz", ""),
        (".tgz", ".tar"),
        (".taz", ".tar"),
        (".bz2", ""),
        (".tbz2", ".tar"),
        (".tbz", ".tar"),
        (".txz", ".tar"),
    ];
    let stem = pairs
        .iter()
        .chain(&[(".xz", ""), (".lzma", ""), (".zst", ""), (".Z", "")])
        .find_map(|(from, to)| {
            let stem = text.strip_suffix(from)?;
            (!stem.is_empty() && !stem.ends_with('/')).then(|| format!("{stem}{to}"))
        })?;
    Some(Arg {
        text: stem.into(),
        content: None,
        ..file.clone()
    })
}

/// `curl -o FILE`, `-O` (the URL's file name) and their `--output-dir`,
/// `-J` (a name the server gives), and the files of `-D`, `-c`,
/// `--trace`, `--stderr` and kin.
fn curl(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let dir = p
        .values(None, Some("output-dir"))
        .last()
        .map(|d| value_arg(call.args, d));
    let placed = |file: Arg| match &dir {
        Some(dir) if file.text != "-" => under(dir, &file),
        _ => file,
    };
    let mut out: Vec<Found> = p
        .values(Some('o'), Some("output"))
        .into_iter()
        .map(|v| found(placed(value_arg(call.args, v)), call.kind))
        .collect();
    out.extend(
        super::writes::remote_names("curl", call.args)
            .into_iter()
            .map(|name| found(placed(Arg::derived(&name)), call.kind)),
    );
    if p.has("J", &["remote-header-name"]) && p.has("O", &["remote-name", "remote-name-all"]) {
        let name = unknown("curl", "the file name the server gives", call.kind);
        out.push(match &dir {
            Some(dir) => found(under(dir, &name.target), call.kind),
            None => name,
        });
    }
    for (short, long) in [
        (Some('D'), "dump-header"),
        (Some('c'), "cookie-jar"),
        (None, "trace"),
        (None, "trace-ascii"),
        (None, "stderr"),
        (None, "libcurl"),
        (None, "etag-save"),
        (None, "hsts"),
        (None, "alt-svc"),
    ] {
        out.extend(
            p.values(short, Some(long))
                .into_iter()
                .map(|v| found(value_arg(call.args, v), Kind::Replace)),
        );
    }
    out
}

/// `wget -O FILE`; else the URLs' file names under `-P DIR` (a recursive
/// or listed fetch, or a server-given name: the whole directory); and the
/// log of `-o`/`-a`.
fn wget(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let dir = p
        .values(Some('P'), Some("directory-prefix"))
        .last()
        .map(|d| value_arg(call.args, d));
    let placed = |file: Arg| match &dir {
        Some(dir) => under(dir, &file),
        None => file,
    };
    let mut out: Vec<Found> = p
        .values(Some('O'), Some("output-document"))
        .into_iter()
        .map(|v| found(value_arg(call.args, v), call.kind))
        .collect();
    let whole_dir = p.has(
        "rmpi",
        &[
            "recursive",
            "mirror",
            "page-requisites",
            "input-file",
            "content-disposition",
        ],
    );
    if out.is_empty() {
        if whole_dir {
            out.push(match &dir {
                Some(dir) => found(dir.clone(), Kind::Tree),
                None => here(Kind::Tree),
            });
        } else {
            out.extend(
                super::writes::remote_names("wget", call.args)
                    .into_iter()
                    .map(|name| found(placed(Arg::derived(&name)), call.kind)),
            );
        }
    }
    out.extend(
        p.values(Some('o'), Some("output-file"))
            .into_iter()
            .map(|v| found(value_arg(call.args, v), Kind::Replace)),
    );
    out.extend(
        p.values(Some('a'), Some("append-output"))
            .into_iter()
            .map(|v| found(value_arg(call.args, v), Kind::Append)),
    );
    out
}

/// `aria2c URL -d DIR -o NAME`: the name (or the URL's file name) under
/// the directory; a list, torrent or metalink: the whole directory.
fn aria2c(call: &Call<'_>) -> Vec<Found> {
    let p = &call.p;
    let dir = p
        .values(Some('d'), Some("dir"))
        .last()
        .map(|d| value_arg(call.args, d));
    let placed = |file: Arg| match &dir {
        Some(dir) => under(dir, &file),
        None => file,
    };
    let mut out: Vec<Found> = p
        .values(Some('o'), Some("out"))
        .into_iter()
        .map(|v| found(placed(value_arg(call.args, v)), call.kind))
        .collect();
    let listed = p.has("iTM", &["input-file", "torrent-file", "metalink-file"]);
    if listed || p.operands.iter().any(|a| !a.text.contains("://")) {
        out.push(match &dir {
            Some(dir) => found(dir.clone(), Kind::Tree),
            None => here(Kind::Tree),
        });
    } else if out.is_empty() {
        // aria2c names a download as wget does.
        out.extend(
            super::writes::remote_names("wget", call.args)
                .into_iter()
                .map(|name| found(placed(Arg::derived(&name)), call.kind)),
        );
    }
    for log in p.values(Some('l'), Some("log")) {
        out.push(found(value_arg(call.args, log), Kind::Replace));
    }
    out
}

/// `rustfmt FILE…` (unless it only checks or prints).
fn rustfmt(call: &Call<'_>) -> Vec<Found> {
    let emit = call.p.values(None, Some("emit"));
    if emit.contains(&"stdout") {
        return Vec::new();
    }
    operands(call, 0)
}

/// `cargo fmt` (unless `--check`), `cargo fix`, `cargo clippy --fix`:
/// the package's files, which the text does not name.
fn cargo(call: &Call<'_>) -> Vec<Found> {
    // `cargo +nightly fmt`, `cargo -Z x fmt`, `cargo --locked fix`.
    const GLOBAL: Spec = Spec::new(
        "ZC",
        &[("config", true), ("color", true), ("explain", true)],
    )
    .posix();
    let mut args = call.args;
    while args.first().is_some_and(|a| a.text.starts_with('+')) {
        args = args.get(1..).unwrap_or_default();
    }
    let global = getopt::parse(args, &GLOBAL);
    let rest = args.get(global.rest..).unwrap_or_default();
    let Some((sub, sub_args)) = rest.split_first() else {
        return Vec::new();
    };
    let has = |word: &str| sub_args.iter().any(|a| a.is(word));
    let writes = match sub.exact_text() {
        Some("fmt") => !has("--check"),
        Some("fix") => true,
        Some("clippy") => has("--fix"),
        _ => false,
    };
    if !writes {
        return Vec::new();
    }
    vec![unknown(
        &format!("cargo {}", sub.text),
        "the package's source files",
        call.kind,
    )]
}

/// A Go-style command line (`-name`, `-name=value`, `-name value`; one
/// dash or two): the options given, and the operands.
fn go_flags<'a>(args: &'a [Arg], with_value: &[&str]) -> (Vec<&'a str>, Vec<&'a Arg>) {
    let mut names = Vec::new();
    let mut ops = Vec::new();
    let mut words = args.iter();
    let mut over = false;
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if over || !word.exact || !text.starts_with('-') || text == "-" {
            ops.push(word);
            continue;
        }
        if text == "--" {
            over = true;
            continue;
        }
        let flag = text.trim_start_matches('-');
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag, None),
        };
        if inline.is_some_and(|v| v == "false") {
            continue;
        }
        if inline.is_none() && with_value.contains(&name) {
            words.next();
        }
        names.push(name);
    }
    (names, ops)
}

/// `gofmt -w`, `goimports -w`, `shfmt -w`: the files and directories
/// given (directories are walked).
fn go_style(call: &Call<'_>) -> Vec<Found> {
    let with_value: &[&str] = match call.name {
        "shfmt" => &["i", "indent", "ln", "language-dialect", "filename"],
        "goimports" => &["local", "srcdir", "cpuprofile"],
        _ => &["r", "cpuprofile"],
    };
    let (names, ops) = go_flags(call.args, with_value);
    if !names.iter().any(|n| *n == "w" || *n == "write") {
        return Vec::new();
    }
    ops.into_iter()
        .map(|a| found(tree_arg(a, Kind::Tree), Kind::Tree))
        .collect()
}

/// `go fmt PACKAGES`: `./...` is the tree here, `./pkg/...` that
/// directory's; no package is the directory here.
fn go_fmt(call: &Call<'_>) -> Vec<Found> {
    let Some(rest) = sub_args(call.args, "fmt") else {
        return Vec::new();
    };
    let (_, ops) = go_flags(rest, &["mod", "modfile", "C"]);
    if ops.is_empty() {
        return vec![here(Kind::Tree)];
    }
    ops.into_iter()
        .map(|pkg| {
            let dir = pkg.text.trim_end_matches("...").trim_end_matches('/');
            if !pkg.exact {
                found(pkg.clone(), Kind::Tree)
            } else if dir.is_empty() || dir == "." {
                here(Kind::Tree)
            } else if dir.starts_with('.') || dir.starts_with('/') {
                found(Arg::derived(dir), Kind::Tree)
            } else {
                // An import path: wherever the module cache or the
                // workspace keeps it.
                unknown("go fmt", &pkg.text, Kind::Tree)
            }
        })
        .collect()
}

/// `terraform fmt [DIR]` (unless `-check` or `-write=false`).
fn terraform(call: &Call<'_>) -> Vec<Found> {
    let Some(rest) = sub_args(call.args, "fmt") else {
        return Vec::new();
    };
    let (names, ops) = go_flags(rest, &["var", "var-file"]);
    if names.contains(&"check") || rest.iter().any(|a| a.is("-write=false")) {
        return Vec::new();
    }
    if ops.is_empty() {
        return vec![here(Kind::Tree)];
    }
    ops.into_iter()
        .map(|a| found(a.clone(), Kind::Tree))
        .collect()
}

/// `clang-format -i FILE…` (LLVM options: one dash or two, `=VALUE` or
/// the next word).
fn clang_format(call: &Call<'_>) -> Vec<Found> {
    const WITH_VALUE: &[&str] = &[
        "style",
        "assume-filename",
        "lines",
        "offset",
        "length",
        "cursor",
        "fallback-style",
        "files",
        "qualifier-alignment",
    ];
    let (names, ops) = go_flags(call.args, WITH_VALUE);
    if !names.contains(&"i") {
        return Vec::new();
    }
    ops.into_iter()
        .map(|a| found(tree_arg(a, Kind::Tree), Kind::Tree))
        .collect()
}

// --- git ----------------------------------------------------------------

const GIT_CHECKOUT: Spec = Spec::new(
    "bB",
    &[
        ("orphan", true),
        ("conflict", true),
        ("pathspec-from-file", true),
    ],
);
const GIT_RESTORE: Spec = Spec::new(
    "s",
    &[
        ("source", true),
        ("pathspec-from-file", true),
        ("staged", false),
        ("worktree", false),
    ],
);
const GIT_SWITCH: Spec = Spec::new(
    "cC",
    &[
        ("create", true),
        ("force-create", true),
        ("orphan", true),
        ("conflict", true),
    ],
);
const GIT_STASH: Spec = Spec::new("m", &[("message", true), ("pathspec-from-file", true)]);
const GIT_RM: Spec = Spec::new(
    "",
    &[
        ("cached", false),
        ("dry-run", false),
        ("pathspec-from-file", true),
    ],
);
const GIT_CLONE: Spec = Spec::new(
    "obucj",
    &[
        ("origin", true),
        ("branch", true),
        ("upload-pack", true),
        ("reference", true),
        ("reference-if-able", true),
        ("separate-git-dir", true),
        ("depth", true),
        ("config", true),
        ("template", true),
        ("jobs", true),
        ("filter", true),
        ("shallow-since", true),
        ("shallow-exclude", true),
        ("bundle-uri", true),
        ("server-option", true),
        ("ref-format", true),
        ("bare", false),
        ("mirror", false),
    ],
);
const GIT_WORKTREE: Spec = Spec::new("bB", &[("reason", true), ("orphan", false)]);
const GIT_CLEAN: Spec = Spec::new("e", &[("exclude", true), ("dry-run", false)]);
const GIT_INIT: Spec = Spec::new(
    "b",
    &[
        ("template", true),
        ("separate-git-dir", true),
        ("object-format", true),
        ("ref-format", true),
        ("initial-branch", true),
    ],
);
const GIT_OUTPUT: Spec = Spec::new(
    "o",
    &[
        ("output", true),
        ("output-directory", true),
        ("format", true),
        ("prefix", true),
        ("remote", true),
        ("stdout", false),
    ],
);

/// What a git command writes: the work tree's paths its subcommand names
/// where the text names them (`checkout -- f`, `restore f`, `rm`, `mv`,
/// `worktree add PATH`, `clone SRC DEST`), else the work tree as an unknown
/// target (`checkout BRANCH`, `switch`, `stash`, `reset --hard`, `apply`,
/// `am`, `merge`, `pull`, `rebase`, `clean` without pathspecs); and what
/// it writes outside the work tree ([`git_dir`]): the repository's git
/// directory (`add`, `commit`, `tag v1`, …) and the files `git config`
/// names. Paths are placed under `-C DIR`. With `--work-tree=TREE`, a
/// pathspec is read from where git runs when that is inside TREE, else
/// from TREE: a subdirectory TREE is the second, `.` or `..` the first,
/// and an absolute TREE may be either (both are recorded); an unknown
/// TREE leaves the paths unknown. The git directory is `--git-dir`'s, else
/// the one of the repository git runs in.
fn git(call: &Call<'_>) -> Vec<Found> {
    let global = getopt::parse(call.args, &super::git::GLOBAL);
    let rest = call.args.get(global.rest..).unwrap_or_default();
    let Some((sub, args)) = rest.split_first() else {
        return Vec::new();
    };
    let Some(name) = sub.exact_text() else {
        return vec![unknown(
            "git",
            "a subcommand known only at run time",
            Kind::Tree,
        )];
    };
    let trees: Vec<Arg> = global
        .values(None, Some("work-tree"))
        .last()
        .map(|t| value_arg(call.args, t))
        .into_iter()
        .collect();
    let mut out: Vec<Found> = Vec::new();
    for f in git_sub(name, args) {
        let known = f.target.exact_text().is_some() || crate::cwd::known_path(&f.target).is_some();
        match trees.first() {
            Some(tree) if known => out.extend(in_work_tree(name, tree, f)),
            _ => out.push(f),
        }
    }
    let outside = git_dir::outside(name, args);
    out.extend(outside.files.into_iter().map(|f| found(f, Kind::Modify)));
    if outside.git_dir {
        out.push(match global.values(None, Some("git-dir")).last() {
            Some(dir) => found(value_arg(call.args, dir), Kind::Modify),
            None => Found {
                git_dir: true,
                ..found(Arg::literal(".git"), Kind::Modify)
            },
        });
    }
    let dirs: Vec<Arg> = global
        .values(Some('C'), None)
        .into_iter()
        .map(|d| value_arg(call.args, d))
        .collect();
    for f in &mut out {
        if f.target.exact_text().is_some() || crate::cwd::known_path(&f.target).is_some() {
            for dir in dirs.iter().rev() {
                f.target = under(dir, &f.target);
            }
        }
    }
    out
}

/// `f`, a path `git NAME` writes, placed in the work tree `tree`: see
/// [`git`].
fn in_work_tree(name: &str, tree: &Arg, f: Found) -> Vec<Found> {
    let Some(text) = crate::cwd::known_path(tree) else {
        return vec![Found {
            target: Arg::unknown(
                &format!("git {name}: {} (in another work tree)", f.target.text),
                Taint::default(),
            ),
            ..f
        }];
    };
    let norm = crate::paths::normalize(text, None);
    let above = norm == "."
        || norm
            .strip_prefix("./")
            .is_some_and(|up| up.split('/').all(|p| p == ".."));
    if above {
        return vec![f];
    }
    let placed = Found {
        target: under(tree, &f.target),
        ..f.clone()
    };
    if text.starts_with('/') || text.starts_with('~') {
        vec![f, placed]
    } else {
        vec![placed]
    }
}

/// A git subcommand's own writes, relative to where it runs.
fn git_sub(name: &str, args: &[Arg]) -> Vec<Found> {
    let whole = |what: &str| vec![unknown(&format!("git {name}"), what, Kind::Tree)];
    // Pathspecs: the words after `--`, or the operands.
    let (before, after) = match args.iter().position(|a| a.is("--")) {
        Some(at) => (
            args.get(..at).unwrap_or_default(),
            Some(args.get(at + 1..).unwrap_or_default()),
        ),
        None => (args, None),
    };
    let specs = |list: &[&Arg]| -> Vec<Found> {
        list.iter()
            .map(|a| found(tree_arg(a, Kind::Tree), Kind::Tree))
            .collect()
    };
    let after: Option<Vec<&Arg>> = after.map(|a| a.iter().collect());
    match name {
        "checkout" => {
            let p = getopt::parse(before, &GIT_CHECKOUT);
            if p.has("", &["pathspec-from-file"]) {
                return whole("the paths listed in a file");
            }
            if let Some(paths) = after {
                return specs(&paths);
            }
            let ops = &p.operands;
            if ops.is_empty() {
                // `git checkout -b new`: the files stay as they are.
                return Vec::new();
            }
            if ops.iter().all(|a| a.exact && cannot_be_a_ref(&a.text)) {
                return specs(ops);
            }
            whole("the work tree, for the branch or commit it checks out")
        }
        "restore" => {
            let p = getopt::parse(before, &GIT_RESTORE);
            if p.has("S", &["staged"]) && !p.has("W", &["worktree"]) {
                return Vec::new();
            }
            if p.has("", &["pathspec-from-file"]) {
                return whole("the paths listed in a file");
            }
            let mut paths = p.operands.clone();
            paths.extend(after.unwrap_or_default());
            specs(&paths)
        }
        "switch" => {
            let p = getopt::parse(before, &GIT_SWITCH);
            if p.operands.is_empty() && !p.has("", &["orphan"]) {
                return Vec::new();
            }
            whole("the work tree, for the branch it switches to")
        }
        "stash" => {
            let p = getopt::parse(before, &GIT_STASH);
            let action = p.operands.first().and_then(|a| a.exact_text());
            match action {
                None | Some("push") => {
                    let mut paths: Vec<&Arg> = p.operands.iter().skip(1).copied().collect();
                    paths.extend(after.unwrap_or_default());
                    if paths.is_empty() || p.has("", &["pathspec-from-file"]) {
                        whole("the work tree's changes")
                    } else {
                        specs(&paths)
                    }
                }
                Some("list" | "show" | "drop" | "clear" | "create" | "store") => Vec::new(),
                Some(_) => whole("the work tree's changes"),
            }
        }
        "reset" => {
            let hard = args
                .iter()
                .any(|a| a.is("--hard") || a.is("--merge") || a.is("--keep"));
            if hard {
                whole("the work tree")
            } else {
                Vec::new()
            }
        }
        "mv" => {
            let p = getopt::parse(args, &CP);
            if p.has("n", &["dry-run"]) {
                return Vec::new();
            }
            moves(&Call {
                name: "mv",
                args,
                p,
                kind: Kind::Tree,
            })
        }
        "rm" => {
            let p = getopt::parse(before, &GIT_RM);
            if p.has("n", &["cached", "dry-run"]) {
                return Vec::new();
            }
            if p.has("", &["pathspec-from-file"]) {
                return whole("the paths listed in a file");
            }
            let mut paths = p.operands.clone();
            paths.extend(after.unwrap_or_default());
            specs(&paths)
        }
        "apply" => {
            let has = |w: &str| args.iter().any(|a| a.is(w));
            let report_only = ["--check", "--stat", "--numstat", "--summary"]
                .iter()
                .any(|w| has(w))
                && !has("--apply");
            if report_only || has("--cached") {
                Vec::new()
            } else {
                whole("the files named in the patch")
            }
        }
        "am" | "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "checkout-index"
        | "sparse-checkout" | "filter-branch" | "filter-repo" => whole("the work tree"),
        "bisect"
            if !args.first().is_some_and(|a| {
                a.is("log") || a.is("view") || a.is("visualize") || a.is("help") || a.is("terms")
            }) =>
        {
            whole("the work tree")
        }
        "read-tree" if args.iter().any(|a| a.is("-u") || a.is("--reset")) => whole("the work tree"),
        "lfs"
            if args
                .first()
                .is_some_and(|a| a.is("pull") || a.is("checkout")) =>
        {
            whole("the work tree's large files")
        }
        // `git lfs track '*.bin'`: the patterns go to `.gitattributes`
        // (alone, it lists them).
        "lfs"
            if args
                .first()
                .is_some_and(|a| a.is("track") || a.is("untrack"))
                && args.iter().skip(1).any(|a| !a.text.starts_with('-')) =>
        {
            vec![found(Arg::literal(".gitattributes"), Kind::Modify)]
        }
        "submodule" => match args.iter().find(|a| !a.text.starts_with('-')) {
            Some(a) if a.is("status") || a.is("summary") || a.is("init") => Vec::new(),
            None => Vec::new(),
            Some(_) => whole("the submodules' work trees"),
        },
        "worktree" => {
            let Some((action, rest)) = args.split_first() else {
                return Vec::new();
            };
            let p = getopt::parse(rest, &GIT_WORKTREE);
            let first = p.operands.first().map(|a| (*a).clone());
            match action.exact_text() {
                Some("add") => first.map(|a| found(a, Kind::Tree)).into_iter().collect(),
                Some("remove") => first.map(|a| found(a, Kind::Remove)).into_iter().collect(),
                Some("move") => {
                    let mut out: Vec<Found> =
                        first.map(|a| found(a, Kind::Remove)).into_iter().collect();
                    if let Some(to) = p.operands.get(1) {
                        out.push(found((*to).clone(), Kind::Tree));
                    }
                    out
                }
                _ => Vec::new(),
            }
        }
        "clone" => {
            let p = getopt::parse(args, &GIT_CLONE);
            let mut out = Vec::new();
            for dir in p.values(None, Some("separate-git-dir")) {
                out.push(found(value_arg(args, dir), Kind::Tree));
            }
            let bare = p.has("", &["bare", "mirror"]);
            match p.operands.as_slice() {
                [_, dir, ..] => out.push(found((*dir).clone(), Kind::Tree)),
                [source] => out.push(match clone_dir(source, bare) {
                    Some(dir) => found(Arg::derived(&dir), Kind::Tree),
                    None => unknown(
                        "git clone",
                        "the directory it names after the source",
                        Kind::Tree,
                    ),
                }),
                [] => {}
            }
            out
        }
        "clean" => {
            let p = getopt::parse(before, &GIT_CLEAN);
            if p.has("n", &["dry-run"]) {
                return Vec::new();
            }
            let mut paths = p.operands.clone();
            paths.extend(after.unwrap_or_default());
            if paths.is_empty() {
                return whole("the untracked files");
            }
            specs(&paths)
        }
        "init" => {
            let ops = getopt::parse(args, &GIT_INIT).operands;
            let dir = ops
                .first()
                .map_or_else(|| Arg::literal("."), |a| (*a).clone());
            vec![found(under(&dir, &Arg::literal(".git")), Kind::Create)]
        }
        "archive" | "bundle" | "format-patch" | "diff" | "log" | "show" => {
            let p = getopt::parse(args, &GIT_OUTPUT);
            let mut out: Vec<Found> = p
                .values(Some('o'), Some("output"))
                .into_iter()
                .map(|v| {
                    let kind = if name == "format-patch" {
                        Kind::Tree
                    } else {
                        Kind::Replace
                    };
                    found(value_arg(args, v), kind)
                })
                .collect();
            out.extend(
                p.values(None, Some("output-directory"))
                    .into_iter()
                    .map(|v| found(value_arg(args, v), Kind::Tree)),
            );
            if name == "format-patch" && out.is_empty() && !p.has("", &["stdout"]) {
                out.push(found(
                    Arg {
                        glob: true,
                        ..Arg::literal("*.patch")
                    },
                    Kind::Replace,
                ));
            }
            if name == "bundle"
                && p.operands.first().is_some_and(|a| a.is("create"))
                && let Some(file) = p.operands.get(1)
            {
                out.push(found((*file).clone(), Kind::Replace));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// A word that names no branch or commit, so `git checkout WORD` checks
/// out paths: `.`, and words git's ref rules forbid (a part starting with
/// `.`, a trailing `/`).
fn cannot_be_a_ref(word: &str) -> bool {
    word == "." || word.ends_with('/') || word.split('/').any(|part| part.starts_with('.'))
}

/// The directory `git clone SOURCE` makes: the source's last part without
/// `.git` (`.git` added for a bare clone).
fn clone_dir(source: &Arg, bare: bool) -> Option<String> {
    let text = source.exact_text()?;
    let text = text.trim_end_matches('/');
    let text = text.strip_suffix("/.git").unwrap_or(text);
    let last = text.rsplit(['/', ':']).next()?;
    let last = last.strip_suffix(".git").unwrap_or(last);
    if last.is_empty() || last == "." || last == ".." {
        return None;
    }
    Some(if bare {
        format!("{last}.git")
    } else {
        last.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use crate::write_target::{WriteDir, WriteKind};
    use crate::{Context, judge_command};

    /// The targets the engine records for `line`, each as `KIND PATH`:
    /// `w` written, `r` removed (or a tree), `c` created, `g` the git
    /// directory of the repository `PATH` (`DIR/.git`) is in; `@A|B` when a
    /// `cd` before it may have failed (`.` where the call runs); an unknown
    /// target as `? SPELLING`; `@DIR` after a `cd`; `-> TO` for a link.
    fn writes(line: &str) -> Vec<String> {
        let ctx = Context {
            home: Some("/home/u".into()),
        };
        judge_command(line, &ctx)
            .writes
            .iter()
            .map(|w| {
                let kind = match w.kind {
                    WriteKind::Write => "w",
                    WriteKind::Remove => "r",
                    WriteKind::Create => "c",
                };
                let kind = if w.git_dir { "g" } else { kind };
                let mut s = match &w.path {
                    Some(path) => format!("{kind} {path}"),
                    None => format!("? {}", w.spelled),
                };
                let at = |dir: &WriteDir| match dir {
                    WriteDir::Moved(dir) => dir.clone(),
                    WriteDir::Call => ".".to_owned(),
                    WriteDir::Unknown | WriteDir::InDoubt(_) => "?".to_owned(),
                };
                match &w.dir {
                    WriteDir::Moved(dir) => s.push_str(&format!(" @{dir}")),
                    WriteDir::InDoubt(dirs) => {
                        let dirs: Vec<String> = dirs.iter().map(at).collect();
                        s.push_str(&format!(" @{}", dirs.join("|")));
                    }
                    WriteDir::Call | WriteDir::Unknown => {}
                }
                if let Some(link) = &w.link {
                    let arrow = match (link.symbolic, link.from_here) {
                        (true, false) => "->",
                        (true, true) => "-r>",
                        (false, _) => "=>",
                    };
                    s.push_str(&format!(" {arrow} {}", link.to.as_deref().unwrap_or("?")));
                }
                s
            })
            .collect()
    }

    /// Each line's recorded targets, as [`writes`] spells them.
    fn check(table: &[(&str, &[&str])]) {
        for (line, expected) in table {
            assert_eq!(writes(line), *expected, "{line}");
        }
    }

    const WORK_TREE: &str = "? git checkout: the work tree, for the branch or commit it checks out";
    /// The git directory of the repository the command runs in.
    const GIT_DIR: &str = "g .git";

    #[test]
    fn git_subcommands_that_rewrite_the_work_tree() {
        check(&[
            ("git checkout -- a.txt b/", &["r a.txt", "r b/", GIT_DIR]),
            ("git checkout main -- src/a.rs", &["r src/a.rs", GIT_DIR]),
            ("git checkout main", &[WORK_TREE, GIT_DIR]),
            ("git checkout src/a.rs", &[WORK_TREE, GIT_DIR]),
            ("git checkout .", &["r .", GIT_DIR]),
            ("git checkout ./src", &["r ./src", GIT_DIR]),
            ("git checkout -b new", &[GIT_DIR]),
            ("git checkout -b new origin/main", &[WORK_TREE, GIT_DIR]),
            ("git -C sub restore x.rs", &["r sub/x.rs", "g sub/.git"]),
            ("git restore --staged x", &[GIT_DIR]),
            ("git restore --staged --worktree x", &["r x", GIT_DIR]),
            (
                "git restore -s HEAD~1 -- 'src/*.rs'",
                &["r src/*.rs", GIT_DIR],
            ),
            (
                "git stash",
                &["? git stash: the work tree's changes", GIT_DIR],
            ),
            (
                "git stash -u",
                &["? git stash: the work tree's changes", GIT_DIR],
            ),
            (
                "git stash pop",
                &["? git stash: the work tree's changes", GIT_DIR],
            ),
            ("git stash list", &[]),
            ("git stash show -p", &[]),
            ("git stash drop", &[GIT_DIR]),
            ("git stash clear", &[GIT_DIR]),
            (
                "git lfs pull",
                &["? git lfs: the work tree's large files", GIT_DIR],
            ),
            ("git lfs track '*.bin'", &["w .gitattributes", GIT_DIR]),
            ("git lfs track", &[GIT_DIR]),
            ("git lfs ls-files", &[]),
            ("git stash push -- src/a.rs", &["r src/a.rs", GIT_DIR]),
            (
                "git reset --hard HEAD~1",
                &["? git reset: the work tree", GIT_DIR],
            ),
            ("git reset HEAD~1", &[GIT_DIR]),
            ("git mv a.rs b.rs", &["r a.rs", "r b.rs", GIT_DIR]),
            ("git mv -n a.rs b.rs", &[]),
            (
                "git mv a.rs b.rs dir/",
                &["r a.rs", "r dir/a.rs", "r b.rs", "r dir/b.rs", GIT_DIR],
            ),
            ("git rm -r old/", &["r old/", GIT_DIR]),
            ("git rm --cached x", &[GIT_DIR]),
            ("git rm -n x", &[]),
            (
                "git apply fix.patch",
                &["? git apply: the files named in the patch"],
            ),
            ("git apply --check fix.patch", &[]),
            ("git apply --cached fix.patch", &[GIT_DIR]),
            (
                "git apply --index fix.patch",
                &["? git apply: the files named in the patch", GIT_DIR],
            ),
            ("git am x.mbox", &["? git am: the work tree", GIT_DIR]),
            ("git merge main", &["? git merge: the work tree", GIT_DIR]),
            ("git pull --rebase", &["? git pull: the work tree", GIT_DIR]),
            ("git worktree add ../wt", &["r ../wt", GIT_DIR]),
            (
                "git worktree add -b topic ../wt main",
                &["r ../wt", GIT_DIR],
            ),
            ("git worktree list", &[]),
            ("git clone . OUT", &["r OUT"]),
            ("git clone https://x.invalid/y/repo.git", &["r repo"]),
            ("git clone --bare git@x.invalid:y/repo", &["r repo.git"]),
            (
                "git switch main",
                &[
                    "? git switch: the work tree, for the branch it switches to",
                    GIT_DIR,
                ],
            ),
            ("git switch -c new", &[GIT_DIR]),
            ("git clean -fd", &["? git clean: the untracked files"]),
            ("git clean -n", &[]),
            ("git clean -f build/", &["r build/"]),
            ("git init nested2", &["c nested2/.git"]),
            ("git archive -o out.tgz HEAD", &["w out.tgz"]),
            (
                "git --work-tree=/tmp/o checkout -- a",
                &["r a", "r /tmp/o/a", GIT_DIR],
            ),
            ("git --work-tree=out checkout -- a", &["r out/a", GIT_DIR]),
            ("git --work-tree=.. checkout -- a", &["r a", GIT_DIR]),
            (
                "git --work-tree \"$T\" checkout -- a",
                &["? git checkout: a (in another work tree)", GIT_DIR],
            ),
            (
                "git --git-dir=/tmp/g.git checkout -- a",
                &["r a", "w /tmp/g.git"],
            ),
            ("GIT_DIR=other.git git add a", &["w other.git"]),
            (
                "GIT_DIR=other.git git add a; git add b",
                &["w other.git", GIT_DIR, "w other.git"],
            ),
            ("GIT_WORK_TREE=/srv/w git add a", &[GIT_DIR]),
        ]);
    }

    #[test]
    fn git_writes_its_own_directory_only_when_it_changes_something() {
        check(&[
            ("git add -A", &[GIT_DIR]),
            ("git add -n .", &[]),
            ("git commit -qm x", &[GIT_DIR]),
            ("git commit --dry-run", &[]),
            ("cd src && git add a.rs", &["g .git @./src"]),
            ("git -C sub -C deeper commit", &["g sub/deeper/.git"]),
            ("git tag v1", &[GIT_DIR]),
            ("git tag -d v1", &[GIT_DIR]),
            ("git tag -a v1 -m note", &[GIT_DIR]),
            ("git tag", &[]),
            ("git tag -l 'v*'", &[]),
            ("git branch topic", &[GIT_DIR]),
            ("git branch -D topic", &[GIT_DIR]),
            ("git branch -m old new", &[GIT_DIR]),
            ("git branch -u origin/main", &[GIT_DIR]),
            ("git branch", &[]),
            ("git branch -a", &[]),
            ("git branch --list 'x*'", &[]),
            ("git branch --show-current", &[]),
            ("git update-index --refresh", &[GIT_DIR]),
            ("git update-ref refs/heads/x HEAD", &[GIT_DIR]),
            ("git symbolic-ref HEAD", &[]),
            ("git symbolic-ref HEAD refs/heads/x", &[GIT_DIR]),
            ("git notes add -m x", &[GIT_DIR]),
            ("git notes", &[]),
            ("git notes show", &[]),
            ("git gc --prune=now", &[GIT_DIR]),
            ("git fetch origin", &[GIT_DIR]),
            ("git fetch --dry-run", &[]),
            ("git remote add up https://x.invalid/r", &[GIT_DIR]),
            ("git remote -v", &[]),
            ("git remote show origin", &[]),
            ("git reflog", &[]),
            ("git reflog expire --all", &[GIT_DIR]),
            (
                "git submodule update --init",
                &["? git submodule: the submodules' work trees", GIT_DIR],
            ),
            ("git submodule status", &[]),
            ("git hash-object -w a", &[GIT_DIR]),
            ("git hash-object a", &[]),
            (
                "git bisect start",
                &["? git bisect: the work tree", GIT_DIR],
            ),
            ("git bisect log", &[]),
            ("git worktree prune", &[GIT_DIR]),
            ("git status", &[]),
            ("git -c core.fsmonitor=false status --short", &[]),
            ("git diff HEAD", &[]),
            ("git log --oneline", &[]),
            ("git show HEAD", &[]),
            ("git grep x", &[]),
            ("git ls-files", &[]),
            ("git rev-parse HEAD", &[]),
            ("git blame a", &[]),
            ("git describe --always", &[]),
            ("git cat-file -p HEAD", &[]),
            ("git push origin main", &[]),
        ]);
    }

    #[test]
    fn git_config_writes_the_file_it_names() {
        check(&[
            ("git config user.name x", &[GIT_DIR]),
            ("git config --add user.name x", &[GIT_DIR]),
            ("git config --unset user.name", &[GIT_DIR]),
            ("git config --unset-all user.name", &[GIT_DIR]),
            ("git config --replace-all user.name x", &[GIT_DIR]),
            ("git config --rename-section user person", &[GIT_DIR]),
            ("git config --remove-section user", &[GIT_DIR]),
            ("git config -e", &[GIT_DIR]),
            ("git config --local a.b c", &[GIT_DIR]),
            ("git config --worktree a.b c", &[GIT_DIR]),
            ("git config set user.name x", &[GIT_DIR]),
            ("git config unset user.name", &[GIT_DIR]),
            ("git config rename-section user person", &[GIT_DIR]),
            ("git config remove-section user", &[GIT_DIR]),
            ("git config edit", &[GIT_DIR]),
            ("git config --file lib/x.cfg a.b c", &["w lib/x.cfg"]),
            ("git config -f lib/x.cfg --unset a.b", &["w lib/x.cfg"]),
            ("git config --file=x.cfg a.b c", &["w x.cfg"]),
            ("git -C sub config -f x.cfg a.b c", &["w sub/x.cfg"]),
            ("git config --global user.name x", &["w ~/.gitconfig"]),
            ("git config set --global user.name x", &["w ~/.gitconfig"]),
            ("git config --system core.editor vi", &["w /etc/gitconfig"]),
            ("git --git-dir=g.git config a.b c", &["w g.git"]),
            ("git -C sub config a.b c", &["g sub/.git"]),
            ("git config user.name", &[]),
            ("git config --get user.name", &[]),
            ("git config --get-all user.name", &[]),
            ("git config --get-regexp user", &[]),
            ("git config -l", &[]),
            ("git config --list --show-origin", &[]),
            ("git config --global --list", &[]),
            ("git config get user.name", &[]),
            ("git config list", &[]),
            ("git config --blob HEAD:.gitmodules a.b c", &[]),
        ]);
    }

    #[test]
    fn patchers_and_in_place_editors() {
        check(&[
            (
                "patch -p1 < x.patch",
                &["? patch: the files named in the patch"],
            ),
            (
                "patch -d sub -p1 -i x.patch",
                &["? patch: the files named in the patch"],
            ),
            ("patch -o out.c a.c x.patch", &["w out.c"]),
            ("patch a.c x.patch", &["w a.c"]),
            ("patch --dry-run -p1 < x.patch", &[]),
            ("perl -i -pe 's/a/b/' f1 f2", &["w f1", "w f2"]),
            ("perl -pi -e 's/a/b/' f1", &["w f1"]),
            ("perl -i.bak -pe 's/a/b/' f1", &["w f1", "w f1.bak"]),
            ("perl -pe 's/a/b/' f1", &[]),
            ("perl -i -p script.pl f1", &["w f1"]),
            ("ruby -i -pe 'x' f", &["w f"]),
            ("gawk -i inplace '{print}' f v=1", &["w f"]),
            ("gawk -i inplace -f prog.awk f g", &["w f", "w g"]),
            ("awk '{print}' f", &[]),
            ("awk '{print > \"README.md\"}' f", &["w README.md"]),
            ("awk 'NR==1 {printf \"%s\", $0 >> \"log\"}' f", &["w log"]),
            (
                "mawk '{ if ($1) print $2 > \"out/\" \"x\" }' f",
                &["w out/x"],
            ),
            (
                "awk '{print $1 > $2}' f",
                &["? awk: a file its program names at run time"],
            ),
            ("awk -e 'BEGIN{print 1 > \"o\"}'", &["w o"]),
            ("awk '{print (a > b)}' f", &[]),
            (
                "awk '{x = sprintf(\"%d\", 1); print x > \"/dev/stderr\"}' f",
                &["w /dev/stderr"],
            ),
            (
                "awk \"$PROG\" f",
                &["? awk: a program only known at run time"],
            ),
            ("awk -f prog.awk f", &[]),
            ("sed -n 'w out.txt' in.txt", &["w out.txt"]),
            ("sed 's/a/b/w changed.txt' in", &["w changed.txt"]),
            (
                "sed -e '/x/w hits' -e 's|a|b|gw subs' in",
                &["w hits", "w subs"],
            ),
            ("sed -n '1,5{p;w part\n}' in", &["w part"]),
            ("sed 's/w x/y/' in", &[]),
            ("sed --sandbox 'w out' in", &[]),
            ("sed -i s/a/b/ f1 f2", &["w f1", "w f2"]),
            ("sed -i.orig s/a/b/ f", &["w f", "w f.orig"]),
            ("sed -i'bak/*' s/a/b/ d/f", &["w d/f", "w bak/f"]),
            ("sed -n -e s/a/b/ -i f1", &["w f1"]),
            ("ed -s f.txt", &["w f.txt"]),
            ("ex -s +'%s/a/b/' +wq f.txt", &["w f.txt"]),
            ("vim -es f.txt", &["w f.txt"]),
            ("vi -c 'wq' +5 f.txt", &["w f.txt"]),
            ("vim -R f.txt", &[]),
            ("sponge f.txt", &["w f.txt"]),
            ("yq -i '.a=1' f.yaml", &["w f.yaml"]),
            ("yq eval -i '.a=1' f.yaml g.yaml", &["w f.yaml", "w g.yaml"]),
            ("yq '.a' f.yaml", &[]),
            ("jq . f.json", &[]),
        ]);
    }

    #[test]
    fn archivers_and_extractors() {
        check(&[
            ("tar -xf x.tar", &["r ."]),
            ("tar xzf x.tgz -C out", &["r out"]),
            ("tar -xf x.tar --directory=/tmp/o", &["r /tmp/o"]),
            ("tar -xOf x.tar a", &[]),
            ("tar -tf x.tar", &[]),
            ("tar -czf out.tgz src", &["w out.tgz"]),
            ("tar cf out.tar src", &["w out.tar"]),
            ("tar -cf - src", &["w -"]),
            ("tar -rf old.tar new", &["w old.tar"]),
            ("tar -cf a.tar --remove-files src", &["w a.tar", "r src"]),
            ("unzip x.zip", &["r ."]),
            ("unzip -q x.zip -d out", &["r out"]),
            ("unzip -l x.zip", &[]),
            ("unzip -p x.zip a", &[]),
            ("zip out src/a", &["w out.zip"]),
            ("zip -r out.zip src", &["w out.zip"]),
            ("zip -m out.zip a", &["w out.zip", "r a"]),
            ("gzip f", &["w f.gz", "r f"]),
            ("gunzip f.gz", &["w f", "r f.gz"]),
            ("gzip -d a.tgz", &["w a.tar", "r a.tgz"]),
            ("gzip -k f", &["w f.gz"]),
            ("gzip -c f", &[]),
            ("gzip -r logs", &["r logs"]),
            ("bzip2 f", &["w f.bz2", "r f"]),
            ("xz -d f.xz", &["w f", "r f.xz"]),
            ("zstd f", &["w f.zst"]),
            ("zstd --rm f -o g.zst", &["r f", "w g.zst"]),
            ("7z x a.7z -oout", &["r out"]),
            ("7z x a.7z", &["r ."]),
            ("7z a out.7z src", &["w out.7z"]),
            ("cpio -idv", &["r ."]),
            ("cpio -id -D out", &["r out"]),
            ("cpio -o -F out.cpio", &["w out.cpio"]),
        ]);
    }

    #[test]
    fn downloaders() {
        check(&[
            ("curl -O https://x.invalid/a.sh", &["w a.sh"]),
            ("curl -o out.sh https://x.invalid", &["w out.sh"]),
            (
                "curl --output-dir dl -O https://x.invalid/a.sh",
                &["w dl/a.sh"],
            ),
            ("curl --output-dir dl -o a https://x.invalid", &["w dl/a"]),
            (
                "curl -OJ https://x.invalid/a",
                &["w a", "? curl: the file name the server gives"],
            ),
            (
                "curl -D h.txt -c jar https://x.invalid",
                &["w h.txt", "w jar"],
            ),
            ("curl -fsSL https://x.invalid", &[]),
            ("wget -P dl https://x.invalid/a.sh", &["w dl/a.sh"]),
            (
                "wget --directory-prefix=dl https://x.invalid/a.sh",
                &["w dl/a.sh"],
            ),
            ("wget -O f https://x.invalid", &["w f"]),
            ("wget https://x.invalid/a.sh", &["w a.sh"]),
            ("wget -r https://x.invalid/", &["r ."]),
            ("wget -q -o log https://x.invalid/a", &["w a", "w log"]),
            ("aria2c -d dl https://x.invalid/a.iso", &["w dl/a.iso"]),
            (
                "aria2c -d dl -o b.iso https://x.invalid/a.iso",
                &["w dl/b.iso"],
            ),
            ("aria2c -i list.txt", &["r ."]),
        ]);
    }

    #[test]
    fn formatters_and_fixers() {
        check(&[
            (
                "prettier --write src/ 'lib/**/*.ts'",
                &["r src/", "r lib/**/*.ts"],
            ),
            ("prettier --check .", &[]),
            ("prettier --parser babel -w a.js", &["r a.js"]),
            ("black src/", &["r src/"]),
            ("black .", &["r ."]),
            ("black --check .", &[]),
            ("ruff format", &["r ."]),
            ("ruff format --diff", &[]),
            ("ruff check --fix src", &["r src"]),
            ("ruff check src", &[]),
            ("isort .", &["r ."]),
            ("isort --check-only .", &[]),
            ("autopep8 -i a.py", &["r a.py"]),
            ("autopep8 a.py", &[]),
            ("cargo fmt", &["? cargo fmt: the package's source files"]),
            (
                "cargo +nightly fmt --all",
                &["? cargo fmt: the package's source files"],
            ),
            ("cargo fmt -- --check", &[]),
            (
                "cargo clippy --fix",
                &["? cargo clippy: the package's source files"],
            ),
            ("cargo test", &[]),
            ("rustfmt src/main.rs", &["w src/main.rs"]),
            ("rustfmt --check src/main.rs", &[]),
            ("gofmt -w .", &["r ."]),
            ("gofmt -l .", &[]),
            ("goimports -w a.go", &["r a.go"]),
            ("go fmt ./...", &["r ."]),
            ("go fmt ./pkg/...", &["r ./pkg"]),
            ("eslint --fix", &["r ."]),
            ("eslint --fix src", &["r src"]),
            ("eslint --fix-dry-run src", &[]),
            ("eslint src", &[]),
            ("clang-format -i a.c b.h", &["r a.c", "r b.h"]),
            ("clang-format-17 -style=llvm -i a.c", &["r a.c"]),
            ("clang-format a.c", &[]),
            ("shfmt -i 2 -w s.sh", &["r s.sh"]),
            ("shfmt -d s.sh", &[]),
            ("terraform fmt", &["r ."]),
            ("terraform fmt -recursive infra", &["r infra"]),
            ("terraform fmt -check", &[]),
            ("rubocop -a lib", &["r lib"]),
            ("biome format --write src", &["r src"]),
            ("cd src && black .", &["r . @./src"]),
        ]);
    }

    #[test]
    fn copies_into_a_directory_and_links() {
        check(&[
            ("cp a.txt dir/", &["w dir/a.txt"]),
            ("cp src/a.txt ~/", &["w ~/a.txt"]),
            ("cp a b", &["w b"]),
            ("cp a b c dir", &["w dir/a", "w dir/b", "w dir/c"]),
            ("cp -t dir a b", &["w dir/a", "w dir/b"]),
            ("cp -r src/ out/", &["r out/src"]),
            ("cp -T a dir/", &["w dir/"]),
            ("install -t bin a", &["w bin/a"]),
            ("install -m 755 a /usr/local/bin/", &["w /usr/local/bin/a"]),
            ("mv a dir/", &["r a", "r dir/a"]),
            ("mv a b", &["r a", "r b"]),
            (
                "ln -s ../README.md src/a.sh",
                &["r src/a.sh -> ../README.md"],
            ),
            ("ln -sf /etc/passwd", &["r passwd -> /etc/passwd"]),
            (
                "ln -s ../a ../b dir/",
                &["r dir/a -> ../a", "r dir/b -> ../b"],
            ),
            ("cp -s a dir/", &["r dir/a -> a"]),
            ("ln a b", &["r b => a"]),
            ("cp -l a b", &["r b => a"]),
            ("ln -s \"$X\" l", &["r l -> ?"]),
            ("link a b", &["r b => a"]),
            (
                "ln --symbolic --target-directory=src ../README.md",
                &["r src/README.md -> ../README.md"],
            ),
            ("ln -sr src/b.sh src/new.sh", &["r src/new.sh -r> src/b.sh"]),
            ("ln --sym --rel a dir/", &["r dir/a -r> a"]),
        ]);
    }

    #[test]
    fn other_writers() {
        check(&[
            ("sort -o ~/.bashrc x", &["w ~/.bashrc"]),
            ("sort -u x", &[]),
            ("split -l 10 big.txt part_", &["w part_*"]),
            (
                "split --additional-suffix=.txt big out/p",
                &["w out/p*.txt"],
            ),
            ("split big", &["w x*"]),
            ("csplit -f sec f '/^#/' '{*}'", &["w sec*"]),
            ("find . -name '*.o' -delete", &["r ."]),
            ("find build tmp -delete", &["r build", "r tmp"]),
            ("find . -fprint out.txt", &["w out.txt"]),
            ("find . -name x -fprintf out.txt '%p'", &["w out.txt"]),
            ("tee -a log", &["w log"]),
            ("dd if=/dev/zero of=disk.img", &["w disk.img"]),
            ("curl -o \"$OUT\" https://x.invalid", &["? $OUT"]),
            ("uniq in.txt out.txt", &["w out.txt"]),
            ("uniq -c in.txt", &[]),
            ("xxd -r dump out.bin", &["w out.bin"]),
            ("xxd f", &[]),
            ("iconv -f utf8 -t ascii -o out.txt in.txt", &["w out.txt"]),
            ("gpg -o out.txt -d x.gpg", &["w out.txt"]),
            ("gpg --output=o.asc --armor --export k", &["w o.asc"]),
            ("openssl enc -in a -out b.enc", &["w b.enc"]),
            (
                "openssl req -new -keyout k.pem -out r.csr",
                &["w k.pem", "w r.csr"],
            ),
            ("openssl version", &[]),
            ("sqlite3 app.db 'create table t(x)'", &["w app.db"]),
            (
                "sqlite3 -cmd '.mode csv' data/app.db .tables",
                &["w data/app.db"],
            ),
            ("sqlite3 :memory: 'select 1'", &[]),
            ("mkfifo p1 p2", &["c p1", "c p2"]),
            ("mknod dev c 1 3", &["c dev"]),
            ("mktemp", &["c /tmp/tmp.XXXXXXXXXX"]),
            ("mktemp -d -p . work.XXXX", &["c work.XXXX"]),
            ("mktemp build/tmp.XXXX", &["c build/tmp.XXXX"]),
            ("mktemp -u", &[]),
            ("cargo new tool", &["r tool"]),
            ("cargo init", &["r ."]),
            ("npm init -y", &["w package.json"]),
            ("go mod init example.com/x", &["w go.mod"]),
            ("go mod tidy", &[]),
            ("npm pack", &["? npm: the package archive it packs"]),
        ]);
    }

    #[test]
    fn script_keys_history_and_rsync() {
        check(&[
            ("script out.log", &["w out.log"]),
            ("script -q", &["w typescript"]),
            ("script -q -c 'echo hi'", &["w typescript"]),
            ("script -q log.txt -c true", &["w log.txt"]),
            ("script -a log.txt -c true", &["w log.txt"]),
            ("script -O out.log -c true", &["w out.log"]),
            ("script --log-out=out.log -q -c true", &["w out.log"]),
            ("script -I in.log -q -c true", &["w in.log"]),
            ("script -B io.log -c true", &["w io.log"]),
            ("script -T tim.log -c true", &["w tim.log", "w typescript"]),
            ("script -qttim.log -c true", &["w tim.log", "w typescript"]),
            (
                "script --timing=tim.log -c true",
                &["w tim.log", "w typescript"],
            ),
            ("script -q log -c 'touch x'", &["w log", "w x"]),
            ("ssh-keygen -q -N '' -f k", &["w k", "w k.pub"]),
            (
                "ssh-keygen -t ed25519 -f ~/.ssh/id_x",
                &["w ~/.ssh/id_x", "w ~/.ssh/id_x.pub"],
            ),
            (
                "ssh-keygen -t ed25519",
                &["w ~/.ssh/id_*", "w ~/.ssh/id_*.pub"],
            ),
            ("ssh-keygen -R host -f kh", &["w kh", "w kh.old"]),
            (
                "ssh-keygen -R host",
                &["w ~/.ssh/known_hosts", "w ~/.ssh/known_hosts.old"],
            ),
            ("ssh-keygen -H -f kh", &["w kh"]),
            ("ssh-keygen -p -N a -P b -f k", &["w k"]),
            ("ssh-keygen -c -C note -f k", &["w k", "w k.pub"]),
            ("ssh-keygen -s ca -I id k.pub", &["w k-cert.pub"]),
            ("ssh-keygen -Y sign -f k -n file doc", &["w doc.sig"]),
            (
                "ssh-keygen -Y verify -f allowed -I x -n file -s doc.sig",
                &[],
            ),
            ("ssh-keygen -l -f k", &[]),
            ("ssh-keygen -y -f k", &[]),
            ("ssh-keygen -F host -f kh", &[]),
            ("ssh-keygen -B -f k.pub", &[]),
            ("history -w h.txt", &["w h.txt"]),
            ("history -a h.txt", &["w h.txt"]),
            ("history -w", &["w ~/.bash_history", "w ~/.history"]),
            ("HISTFILE=h.txt bash -c 'history -w'", &["w h.txt"]),
            ("export HISTFILE=h.txt; history -a", &["w h.txt"]),
            ("history -c", &[]),
            ("history -r h.txt", &[]),
            ("history -d 3", &[]),
            ("history", &[]),
            ("rsync -a src/ out/", &["w out/"]),
            ("rsync -avt a b", &["w b"]),
            (
                "rsync --remove-source-files a b dest/",
                &["r a", "r b", "w dest/"],
            ),
            ("rsync --remove-source-files host:a dest/", &["w dest/"]),
            ("rsync -a src/ host:/srv/", &[]),
            (
                "rsync -a --remove-source-files src/ host:/srv/",
                &["r src/"],
            ),
            ("rsync --log-file=sync.log a b", &["w sync.log", "w b"]),
            ("rsync --write-batch=bt a b", &["w bt", "w bt.sh", "w b"]),
            ("rsync -b a b", &["w b", "w b~"]),
            ("rsync -b --suffix=.old a b", &["w b", "w b.old"]),
            (
                "rsync -ab --backup-dir=old src/ dst/",
                &["w dst/", "r dst/old"],
            ),
            ("rsync -n --remove-source-files a b", &[]),
            ("scp -P 22 a host:b", &["w host:b"]),
        ]);
    }

    #[test]
    fn outputs_named_by_a_flag_and_attributes() {
        check(&[
            ("gcc -o app main.c", &["w app"]),
            ("gcc main.c -o app", &["w app"]),
            ("gcc -oapp main.c", &["w app"]),
            ("gcc-13 -O2 -o app main.c", &["w app"]),
            ("clang++ -o app a.cc", &["w app"]),
            ("gcc -c main.c", &[]),
            ("rustc -o app main.rs", &["w app"]),
            ("rustc --out-dir out main.rs", &["r out"]),
            ("ld -o app a.o", &["w app"]),
            ("strace -o trace.txt true", &["w trace.txt"]),
            ("strace -f -o t.txt sh -c 'touch x'", &["w t.txt", "w x"]),
            ("tcpdump -i any -w cap.pcap", &["w cap.pcap"]),
            ("tshark -w cap.pcapng", &["w cap.pcapng"]),
            ("shuf -o out.txt in.txt", &["w out.txt"]),
            ("pandoc -o out.html in.md", &["w out.html"]),
            ("convert in.png -resize 50% out.jpg", &["w out.jpg"]),
            ("convert in.png png:out.png", &["w out.png"]),
            ("convert in.png info:", &[]),
            ("ffmpeg -i in.mp4 -c copy out.mkv", &["w out.mkv"]),
            ("ffmpeg -i in.mp4", &[]),
            ("dos2unix a.txt b.txt", &["w a.txt", "w b.txt"]),
            ("dos2unix -n in.txt out.txt", &["w out.txt"]),
            ("dos2unix -i a.txt", &[]),
            ("fallocate -l 1M big.img", &["w big.img"]),
            ("ctags -R .", &["w tags"]),
            ("ctags -f out.tags a.c", &["w out.tags"]),
            ("ctags -x a.c", &[]),
            ("ctags --version", &[]),
            ("etags a.c", &["w TAGS"]),
            ("npm config set registry https://x.invalid", &["w ~/.npmrc"]),
            ("npm set registry https://x.invalid", &["w ~/.npmrc"]),
            ("npm config set a b --location=project", &["w .npmrc"]),
            ("npm config get registry", &[]),
            ("npm test", &[]),
            (
                "pip config set global.timeout 5",
                &["w ~/.config/pip/pip.conf"],
            ),
            ("pip config list", &[]),
            ("pip install -r req.txt", &[]),
            ("pip install --target vendor x", &["r vendor"]),
            ("pip download -d dl x", &["r dl"]),
            ("go build -o bin/app .", &["w bin/app"]),
            ("go test -coverprofile=c.out ./...", &["w c.out"]),
            ("go test -run TestX ./...", &[]),
            ("pytest --junitxml=report.xml", &["w report.xml"]),
            ("pytest --cov-report=xml:cov.xml", &["w cov.xml"]),
            ("pytest --basetemp=tmp", &["r tmp"]),
            ("pytest -q tests/", &[]),
            ("esbuild a.js --bundle --outfile=out.js", &["w out.js"]),
            ("javac -d classes A.java", &["r classes"]),
            ("tsc --outDir dist", &["r dist"]),
            ("tsc", &[]),
            ("xmllint --format --output out.xml in.xml", &["w out.xml"]),
            ("tidy -m page.html", &["w page.html"]),
            ("strip app", &["w app"]),
            ("strip -o small app", &["w small"]),
            ("objcopy app app.bin", &["w app.bin"]),
            ("cargo build --target-dir out", &["r out"]),
            ("cargo build", &[]),
            (
                "rename 's/a/b/' a.txt",
                &["r a.txt", "? rename: the new names"],
            ),
            (
                "rename .htm .html x.htm",
                &["r x.htm", "? rename: the new names"],
            ),
            (
                "npm install lodash",
                &["w package.json", "w package-lock.json"],
            ),
            (
                "npm --prefix web i -D jest",
                &["w web/package.json", "w web/package-lock.json"],
            ),
            ("npm install", &[]),
            ("npm ci", &[]),
            ("npm install --no-save x", &[]),
            ("yarn add zod", &["w package.json", "w yarn.lock"]),
            ("cargo add serde", &["w Cargo.toml", "w Cargo.lock"]),
            (
                "cargo --manifest-path x/Cargo.toml add serde",
                &["w x/Cargo.toml", "w x/Cargo.lock"],
            ),
            ("go get example.com/x", &["w go.mod", "w go.sum"]),
            (
                "poetry add requests",
                &["w pyproject.toml", "w poetry.lock"],
            ),
            ("uv pip install x", &[]),
            ("pip install requests", &[]),
            ("chmod +x run.sh", &["w run.sh"]),
            ("chmod -w run.sh", &["w run.sh"]),
            ("chmod -R 755 bin", &["r bin"]),
            ("chmod --reference=a b", &["w b"]),
            ("chown user:group f", &["w f"]),
            ("chgrp -R staff dir", &["r dir"]),
            ("chattr +i f", &["w f"]),
            ("setfacl -m u:x:rw f", &["w f"]),
        ]);
    }

    #[test]
    fn descriptors_reopened_through_dev_fd() {
        check(&[
            ("exec 3<README.md; echo x > /dev/fd/3", &["w README.md"]),
            (
                "exec 3<README.md; echo x > /proc/self/fd/3",
                &["w README.md"],
            ),
            ("{ echo x > /dev/fd/3; } 3<README.md", &["w README.md"]),
            ("echo x > /dev/fd/3 3<README.md", &["w README.md"]),
            ("exec 4<>f; echo x > /dev/fd/4", &["w f", "w f"]),
            ("exec 3<a; exec 5<&3; echo x > /dev/fd/5", &["w a"]),
            (
                "exec 3<a; exec 3<&-; echo x > /dev/fd/3",
                &["? /dev/fd/3 (a descriptor the command does not open)"],
            ),
            ("exec 3<README.md; echo x | tee /dev/fd/3", &["w README.md"]),
            ("exec 3<README.md; sort -o /dev/fd/3 a", &["w README.md"]),
            (
                "exec 3<README.md; cd src; echo x > /dev/fd/3",
                &["w README.md"],
            ),
            (
                "( exec 3<a ); echo x > /dev/fd/3",
                &["? /dev/fd/3 (a descriptor the command does not open)"],
            ),
            ("{ echo x > /dev/stdout; } 1<README.md", &["w README.md"]),
            ("cat a 0<README.md > /dev/stdin", &["w README.md"]),
            (
                "f() { echo x > /dev/fd/3; }; f 3<README.md",
                &[
                    "? /dev/fd/3 (a descriptor the command does not open)",
                    "w README.md",
                ],
            ),
            ("echo x > /dev/fd/1", &["w /dev/fd/1"]),
            ("echo x > /dev/stderr", &["w /dev/stderr"]),
            ("echo x 2>&1 > /dev/null", &["w /dev/null"]),
            // A here-string is a pipe or a temporary file bash has
            // already unlinked: nothing on disk to write.
            ("exec 3<<< hi; echo x > /dev/fd/3", &[]),
            (
                "echo x > /dev/fd/7",
                &["? /dev/fd/7 (a descriptor the command does not open)"],
            ),
        ]);
    }

    #[test]
    fn physical_cd_and_a_cd_that_may_fail() {
        check(&[
            ("cd src && echo x > f", &["w f @./src"]),
            ("cd src; echo x > f", &["w f @./src|."]),
            ("cd a && cd b; echo x > f", &["w f @./a/b|./a|."]),
            ("cd /tmp || exit; echo x > f", &["w f @/tmp|."]),
            ("cd \"$D\"; echo x > f", &["w f"]),
            ("cd -P src/.. && echo x > f", &["w f @./src/.."]),
            ("set -P; cd src/..; echo x > f", &["w f @./src/..|."]),
            (
                "set -o physical; cd src/.. && echo x > f",
                &["w f @./src/.."],
            ),
            ("set -eP; cd lib/.. && rm f", &["r f @./lib/.."]),
            ("set -P; cd src && cd .. && echo x > f", &["w f @./src/.."]),
            ("set -P; set +P; cd src/.. && echo x > f", &["w f @."]),
            ("cd -P src && cd .. && echo x > f", &["w f"]),
            ("(set -P); cd src/.. && echo x > f", &["w f @."]),
            ("x='$(touch made)'; echo ${x@P}", &["w made"]),
            ("x='`echo y > f`'; y=\"${x@P}\"", &["w f"]),
        ]);
    }

    /// Every file under `dir`, with its content (a directory as `None`).
    fn snapshot(dir: &std::path::Path) -> std::collections::BTreeMap<String, Option<Vec<u8>>> {
        let mut out = std::collections::BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(at) = stack.pop() {
            for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
                let path = entry.path();
                let rel = path
                    .strip_prefix(dir)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                let meta = std::fs::symlink_metadata(&path).ok();
                if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
                    out.insert(rel, None);
                    stack.push(path);
                } else {
                    let mut content = std::fs::read_link(&path)
                        .map(|t| t.display().to_string().into_bytes())
                        .or_else(|_| std::fs::read(&path))
                        .unwrap_or_default();
                    // A changed mode is a change (`chmod`).
                    let mode = meta.map_or(0, |m| {
                        std::os::unix::fs::PermissionsExt::mode(&m.permissions())
                    });
                    content.extend(format!("\0mode {mode:o}").into_bytes());
                    out.insert(rel, Some(content));
                }
            }
        }
        out
    }

    /// Where the engine's `target` (as [`writes`] spells it) lands in
    /// `root`, relative to it: its path, read from the directory the
    /// command stood in (the first of `@A|B`, a `cd` that succeeded),
    /// whose links the file system resolves (`cd -P`).
    fn landed(target: &str, root: &std::path::Path) -> (String, String) {
        let (kind, rest) = target.split_once(' ').unwrap_or_default();
        let (path, dir) = match rest.split_once(" @") {
            Some((path, dirs)) => (path, dirs.split('|').next().unwrap_or(".")),
            None => (rest, "."),
        };
        let path = [" -> ", " -r> ", " => "]
            .iter()
            .fold(path, |p, arrow| p.split(arrow).next().unwrap_or_default());
        let base = std::fs::canonicalize(root).unwrap();
        let dir = std::fs::canonicalize(root.join(dir)).unwrap_or_else(|_| root.join(dir));
        let prefix = dir
            .strip_prefix(&base)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let joined = if prefix.is_empty() || path.starts_with('/') {
            path.to_owned()
        } else {
            format!("{prefix}/{path}")
        };
        let norm = crate::paths::normalize(&joined, None);
        let norm = norm.trim_start_matches("./").trim_end_matches('/');
        (
            kind.to_owned(),
            if norm == "." {
                String::new()
            } else {
                norm.to_owned()
            },
        )
    }

    /// Whether the engine's `target` (as [`writes`] spells it) covers the
    /// changed path `rel`: the same path, a tree or directory holding it,
    /// or a pattern matching it; a git directory target, everything in
    /// `.git`; a target the engine says it cannot know, anything.
    fn covers(target: &str, rel: &str, root: &std::path::Path) -> bool {
        let (kind, path) = landed(target, root);
        // A target the engine says it cannot know (`git stash`'s work tree).
        if kind == "?" {
            return true;
        }
        if kind == "g" {
            return rel == ".git" || rel.starts_with(".git/");
        }
        let path = path.as_str();
        if path.is_empty() || path == rel {
            return true;
        }
        if rel.starts_with(&format!("{path}/")) {
            return true;
        }
        glob(path.as_bytes(), rel.as_bytes())
    }

    /// `pattern` (with `*` and `?`, as the targets of split and csplit
    /// spell the files they write) matches all of `text`.
    fn glob(pattern: &[u8], text: &[u8]) -> bool {
        match pattern.split_first() {
            None => text.is_empty(),
            Some((b'*', rest)) => (0..=text.len()).any(|i| glob(rest, &text[i..])),
            Some((b'?', rest)) => !text.is_empty() && glob(rest, &text[1..]),
            Some((c, rest)) => text.first() == Some(c) && glob(rest, &text[1..]),
        }
    }

    /// The differential check: each command run by the real program in a
    /// throwaway directory, and every file it created, changed or removed
    /// named by a target the engine records; every exact file target the
    /// engine names is one the program wrote. A program not installed here
    /// is skipped (and said so).
    #[test]
    fn targets_match_what_the_real_programs_write() {
        let cases: &[(&str, &str)] = &[
            ("tar", "tar -xf a.tar"),
            ("tar", "mkdir -p out && tar -xf a.tar -C out"),
            ("tar", "tar -cf new.tar src"),
            ("tar", "tar czf new.tgz src"),
            ("unzip", "unzip -q a.zip -d out"),
            ("unzip", "unzip -q a.zip"),
            ("zip", "zip -q new src/a.txt"),
            ("zip", "zip -q -m new.zip src/a.txt"),
            ("gzip", "gzip src/a.txt"),
            ("gzip", "gzip -k src/a.txt"),
            ("gzip", "gzip -d b.gz"),
            ("bzip2", "bzip2 src/a.txt"),
            ("xz", "xz src/a.txt"),
            ("zstd", "zstd -q src/a.txt"),
            ("cp", "mkdir dir && cp src/a.txt dir/"),
            ("cp", "mkdir dir && cp -t dir src/a.txt src/b.txt"),
            ("cp", "cp -r src copy"),
            ("mv", "mkdir dir && mv src/a.txt dir/"),
            ("ln", "ln -s src/a.txt link"),
            ("ln", "ln -s ../src/a.txt"),
            ("ln", "ln -sr src/a.txt rel"),
            ("ln", "ln -s --target-directory=src ../lines.txt"),
            ("link", "link src/a.txt hard.txt"),
            ("install", "mkdir bin && install -t bin src/a.txt"),
            ("sort", "sort -o sorted.txt src/a.txt"),
            ("split", "split -l 1 lines.txt part_"),
            ("split", "split -l 1 --additional-suffix=.txt lines.txt p"),
            ("csplit", "csplit -s -f sec lines.txt 2"),
            ("sed", "sed -n 'w hits.txt' src/a.txt"),
            ("sed", "sed 's/a/b/w subs.txt' src/a.txt >/dev/null"),
            ("sed", "sed -i.orig s/a/b/ src/a.txt"),
            ("awk", "awk '{print > \"out.txt\"}' src/a.txt"),
            (
                "awk",
                "awk 'NR==1 {printf \"%s\", $0 >> \"log.txt\"}' src/a.txt",
            ),
            ("uniq", "uniq lines.txt uniq.txt"),
            ("iconv", "iconv -f utf-8 -t ascii -o conv.txt src/a.txt"),
            ("ar", "ar rc lib.a src/a.txt"),
            ("openssl", "openssl enc -base64 -in src/a.txt -out enc.txt"),
            ("perl", "perl -i.bak -pe 's/a/b/' src/a.txt"),
            ("perl", "perl -pi -e 's/$/!/' src/a.txt src/b.txt"),
            ("patch", "patch -s -o out.txt src/a.txt fix.patch"),
            ("patch", "patch -s src/a.txt fix.patch"),
            ("find", "find src -fprint list.txt"),
            ("find", "find src -name b.txt -delete"),
            ("tee", "echo x | tee t1 t2 >/dev/null"),
            ("dd", "dd if=src/a.txt of=copy.txt status=none"),
            (
                "python3",
                "python3 -c \"import shutil; shutil.copy('src/a.txt', 'py.txt')\"",
            ),
            (
                "python3",
                "python3 -c \"import os; os.rename('src/a.txt', 'moved.txt')\"",
            ),
            (
                "node",
                "node -e \"require('fs').copyFileSync('src/a.txt', 'n.txt')\"",
            ),
            ("git", "git checkout -- src/a.txt"),
            ("git", "git mv src/a.txt src/c.txt"),
            ("git", "git rm -q src/b.txt"),
            ("git", "git clone -q . cloned"),
            ("git", "git worktree add -q wt"),
            ("git", "git restore src/a.txt"),
            ("git", "git add -A"),
            ("git", "git -C src add a.txt"),
            ("git", "git -c user.name=t -c user.email=t@t commit -qam x"),
            ("git", "git -c user.name=t -c user.email=t@t stash -q"),
            ("git", "git tag v1"),
            ("git", "git branch topic"),
            ("git", "git checkout -q -b topic"),
            ("git", "git reset -q"),
            ("git", "git rm -q --cached src/b.txt"),
            ("git", "git update-ref refs/heads/x HEAD"),
            ("git", "git gc -q"),
            ("git", "git config user.name x"),
            ("git", "git config set user.email x@x"),
            ("git", "git config --file cfg.ini a.b c"),
            ("git", "git config core.bare"),
            ("git", "git diff --stat"),
            ("git", "git log --oneline"),
            ("script", "script -q -c true"),
            ("script", "script -q log.txt -c true"),
            ("script", "script -q -O out.log -I in.log -c true"),
            ("script", "script -q -T tim.log -c true"),
            ("script", "script -q --timing=t.log -c 'touch made.txt'"),
            ("ssh-keygen", "ssh-keygen -q -N '' -t ed25519 -f newkey"),
            ("ssh-keygen", "ssh-keygen -q -R host1 -f kh"),
            ("ssh-keygen", "ssh-keygen -q -c -C note -f sk"),
            ("ssh-keygen", "ssh-keygen -q -s sk -I id sk.pub"),
            (
                "ssh-keygen",
                "ssh-keygen -q -Y sign -f sk -n file lines.txt",
            ),
            ("ssh-keygen", "ssh-keygen -l -f sk"),
            ("bash", "history -w hist.txt"),
            ("bash", "export HISTFILE=h2.txt; history -w"),
            (
                "rsync",
                "rsync -q --remove-source-files src/a.txt lines.txt dest",
            ),
            ("rsync", "rsync -q --log-file=sync.log src/a.txt copy.txt"),
            ("bash", "exec 3<lines.txt; echo x > /dev/fd/3"),
            ("bash", "{ echo x > /dev/fd/4; } 4<src/b.txt"),
            ("tee", "tee /dev/fd/5 < src/a.txt 5<lines.txt > /dev/null"),
            ("bash", "set -P; cd lnk/..; echo x > phys.txt"),
            ("bash", "cd lnk/..; echo x > logi.txt"),
            ("bash", "x='$(touch made.txt)'; echo \"${x@P}\" > /dev/null"),
            ("strace", "strace -o trace.txt true"),
            ("gcc", "gcc -o prog m.c"),
            ("chmod", "chmod +x lines.txt"),
            ("fallocate", "fallocate -l 4096 big.img"),
            ("shuf", "shuf -o shuffled.txt lines.txt"),
            ("ctags", "ctags m.c"),
        ];
        let on_path = |tool: &str| {
            std::process::Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let setup = "mkdir src && printf 'a\\n' > src/a.txt && printf 'b\\n' > src/b.txt \
            && printf '1\\n2\\n3\\n' > lines.txt \
            && printf -- '--- a\\n+++ b\\n@@ -1 +1 @@\\n-changed\\n+z\\n' > fix.patch \
            && printf 'gz\\n' > b && gzip b \
            && mkdir z && printf 'z\\n' > z/z.txt \
            && { command -v tar >/dev/null && tar -cf a.tar z || true; } \
            && { command -v zip >/dev/null && zip -q a.zip z/z.txt || true; } \
            && rm -r z \
            && printf 'int main(void) { return 0; }\\n' > m.c \
            && mkdir -p deep/inner && ln -s deep/inner lnk \
            && { command -v ssh-keygen >/dev/null \
                 && ssh-keygen -q -N '' -t ed25519 -f sk \
                 && printf 'host1 %s\\n' \"$(cut -d' ' -f1,2 sk.pub)\" > kh || true; } \
            && git init -q . && git -c user.name=t -c user.email=t@t add -A \
            && git -c user.name=t -c user.email=t@t commit -qm start \
            && printf 'changed\\n' > src/a.txt";
        for (tool, command) in cases {
            if !on_path(tool) {
                eprintln!("skipped (no {tool} here): {command}");
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let run = |script: &str| {
                std::process::Command::new("bash")
                    .args(["-c", script])
                    .current_dir(dir.path())
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .output()
                    .unwrap()
            };
            assert!(run(setup).status.success(), "setup for {command}");
            let before = snapshot(dir.path());
            let ran = run(command);
            assert!(
                ran.status.success(),
                "{command}: {}",
                String::from_utf8_lossy(&ran.stderr)
            );
            let after = snapshot(dir.path());
            let changed: Vec<&String> = before
                .keys()
                .chain(after.keys())
                .filter(|k| before.get(*k) != after.get(*k))
                .collect();
            // The setup's `mkdir DIR &&` is no part of what is judged.
            let judged = command.rsplit("&& ").next().unwrap_or(command);
            let targets = writes(judged);
            for rel in &changed {
                // A directory a tree write or the setup made.
                if after.get(*rel) == Some(&None) && !before.contains_key(*rel) {
                    let inner = changed.iter().any(|c| c.starts_with(&format!("{rel}/")));
                    if inner || command.contains(&format!("mkdir {rel}")) {
                        continue;
                    }
                }
                assert!(
                    targets.iter().any(|t| covers(t, rel, dir.path())),
                    "{command}: {rel} changed, targets {targets:?}"
                );
            }
            for target in &targets {
                let (kind, path) = landed(target, dir.path());
                let outside = target.contains(" /") || target.contains(" ~");
                if kind == "g" {
                    assert!(
                        changed.iter().any(|c| c.starts_with(".git/")),
                        "{command}: the engine names the git directory, which did not change"
                    );
                }
                if kind != "w" || path.contains('*') || path == "-" || outside {
                    continue;
                }
                assert!(
                    changed.iter().any(|c| **c == path),
                    "{command}: the engine names {path}, which did not change ({changed:?})"
                );
            }
        }
    }
}
