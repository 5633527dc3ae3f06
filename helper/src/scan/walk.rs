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
    SubshellCommand,
};

use super::arg::{Arg, Taint};
use super::checks::{fork_bomb, history};
use super::flow::Flow;
use super::paths::Write;
use super::scanner::Scanner;

/// A redirection of one simple command, read.
enum Redirect {
    /// Output into a path.
    Write(Arg, Write),
    /// stdin from somewhere.
    Input(Flow),
    /// Output into a process: `>(cmd)`, walked once the command's output is
    /// known.
    IntoProcess(SubshellCommand),
    /// stdin from a network socket (`< /dev/tcp/HOST/PORT`).
    Socket,
}

/// bash's network pseudo-files.
fn is_socket(path: &str) -> bool {
    path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/")
}

impl Scanner<'_> {
    pub(super) fn program(&mut self, program: &Program, stdin: &Flow) -> Flow {
        let mut out = Flow::empty();
        for list in &program.complete_commands {
            out = out.then(self.list(list, stdin));
        }
        out
    }

    fn list(&mut self, list: &CompoundList, stdin: &Flow) -> Flow {
        let mut out = Flow::empty();
        for CompoundListItem(and_or, separator) in &list.0 {
            let background = match separator {
                SeparatorOperator::Async => true,
                SeparatorOperator::Sequence => false,
            };
            out = out.then(self.and_or(and_or, stdin, background));
        }
        out
    }

    fn and_or(&mut self, list: &AndOrList, stdin: &Flow, background: bool) -> Flow {
        let mut out = self.pipeline(&list.first, stdin, background);
        for next in &list.additional {
            let pipeline = match next {
                AndOr::And(p) | AndOr::Or(p) => p,
            };
            out = out.then(self.pipeline(pipeline, stdin, background));
        }
        out
    }

    fn pipeline(&mut self, pipeline: &Pipeline, stdin: &Flow, background: bool) -> Flow {
        // `timed` and `bang` change nothing about what runs.
        let Pipeline {
            timed: _,
            bang: _,
            seq,
        } = pipeline;
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
            flow = self.command(command, &input);
        }
        self.fanned_out = outer;
        flow
    }

    fn command(&mut self, command: &Command, stdin: &Flow) -> Flow {
        match command {
            Command::Simple(simple) => self.simple(simple, stdin),
            Command::Compound(compound, redirects) => {
                let stdin = self.redirect_list(redirects.as_ref(), "", stdin);
                self.compound(compound, &stdin)
            }
            Command::Function(definition) => {
                let name = self.expand(&definition.fname.value);
                let FunctionBody(body, redirects) = &definition.body;
                let name = name.first().map(|a| a.text.clone()).unwrap_or_default();
                self.functions.push(name);
                let outer = std::mem::replace(&mut self.fanned_out, false);
                let stdin = self.redirect_list(redirects.as_ref(), "", &Flow::inherited());
                self.compound(body, &stdin);
                self.fanned_out = outer;
                self.functions.pop();
                Flow::empty()
            }
            Command::ExtendedTest(test, redirects) => {
                self.test_expr(&test.expr);
                self.redirect_list(redirects.as_ref(), "[[", stdin);
                Flow::empty()
            }
        }
    }

    fn test_expr(&mut self, expr: &ExtendedTestExpr) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.test_expr(a);
                self.test_expr(b);
            }
            ExtendedTestExpr::Not(a) | ExtendedTestExpr::Parenthesized(a) => self.test_expr(a),
            ExtendedTestExpr::UnaryTest(_, word) => {
                self.expand(&word.value);
            }
            ExtendedTestExpr::BinaryTest(_, left, right) => {
                self.expand(&left.value);
                self.expand(&right.value);
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, stdin: &Flow) -> Flow {
        match compound {
            CompoundCommand::Arithmetic(arithmetic) => {
                self.embedded(&arithmetic.expr.value);
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
                    self.embedded(&expr.value);
                }
                self.list(&clause.body.list, stdin)
            }
            CompoundCommand::BraceGroup(group) => self.list(&group.list, stdin),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list, stdin),
            CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.expand(&value.value);
                }
                self.list(&clause.body.list, stdin)
            }
            CompoundCommand::CaseClause(clause) => {
                self.expand(&clause.value.value);
                let mut out = Flow::empty();
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
                out
            }
            CompoundCommand::IfClause(clause) => {
                let mut out = self.list(&clause.condition, stdin);
                out = out.then(self.list(&clause.then, stdin));
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        out = out.then(self.list(condition, stdin));
                    }
                    out = out.then(self.list(&branch.body, stdin));
                }
                out
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                let out = self.list(&clause.0, stdin);
                out.then(self.list(&clause.1.list, stdin))
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

    /// Judges the redirections of a compound command or test; returns its
    /// stdin.
    fn redirect_list(&mut self, list: Option<&RedirectList>, what: &str, stdin: &Flow) -> Flow {
        let mut stdin = stdin.clone();
        let mut words = vec![Arg::literal(what)];
        words.retain(|w| !w.text.is_empty());
        for redirect in list.iter().flat_map(|l| l.0.iter()) {
            match self.redirect(redirect) {
                Some(Redirect::Write(target, write)) => self.write_target(&words, &target, write),
                Some(Redirect::Input(flow)) => stdin = flow,
                Some(Redirect::IntoProcess(subshell)) => {
                    self.inside(">(...)", |s| s.list(&subshell.list, &Flow::unknown()));
                }
                Some(Redirect::Socket) | None => {}
            }
        }
        stdin
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
                        let arg = self
                            .expand(&word.value)
                            .into_iter()
                            .next()
                            .unwrap_or_default();
                        if is_socket(&arg.text)
                            && let Some(fd) = fd.filter(|fd| *fd > 2)
                            && !self.sockets.contains(&fd)
                        {
                            self.sockets.push(fd);
                        }
                        match write {
                            Some(write) => Some(Redirect::Write(arg, write)),
                            None if is_socket(&arg.text) => Some(Redirect::Socket),
                            None if reads_stdin(fd) => Some(Redirect::Input(self.file_flow(&arg))),
                            None => None,
                        }
                    }
                    IoFileRedirectTarget::Fd(_) => None,
                    IoFileRedirectTarget::Duplicate(word) => {
                        let target = self.expand(&word.value);
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
                    IoFileRedirectTarget::ProcessSubstitution(kind, subshell) => match kind {
                        ProcessSubstitutionKind::Read => {
                            let flow = self
                                .inside("<(...)", |s| s.list(&subshell.list, &Flow::inherited()));
                            reads_stdin(fd).then_some(Redirect::Input(flow))
                        }
                        ProcessSubstitutionKind::Write => {
                            Some(Redirect::IntoProcess(subshell.clone()))
                        }
                    },
                }
            }
            IoRedirect::HereDocument(fd, doc) => {
                let body = self.expand_heredoc(&doc.doc.value, doc.requires_expansion);
                let flow = if body.exact {
                    Flow::literal(body.text)
                } else {
                    Flow::tainted(body.taint)
                };
                reads_stdin(fd).then_some(Redirect::Input(flow))
            }
            IoRedirect::HereString(fd, word) => {
                let words = self.expand(&word.value);
                let exact = words.iter().all(|w| w.exact);
                let taint = words.iter().fold(Taint::default(), |t, w| t.union(w.taint));
                let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
                let flow = if exact {
                    Flow::literal(format!("{}\n", text.join(" ")))
                } else {
                    Flow::tainted(taint)
                };
                reads_stdin(fd).then_some(Redirect::Input(flow))
            }
            IoRedirect::OutputAndError(word, append) => {
                let arg = self
                    .expand(&word.value)
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                let write = if *append {
                    Write::Append
                } else {
                    Write::Replace
                };
                Some(Redirect::Write(arg, write))
            }
        }
    }

    fn assignment(&mut self, assignment: &Assignment) {
        let name = match &assignment.name {
            AssignmentName::VariableName(name) => name.as_str(),
            AssignmentName::ArrayElementName(name, index) => {
                self.embedded(index);
                name.as_str()
            }
        };
        match &assignment.value {
            AssignmentValue::Scalar(word) => {
                let value = self.expand(&word.value);
                let text = value.first().map_or("", |v| v.text.as_str());
                if let Some(hit) = history::check_variable(name, Some(text)) {
                    let words = [Arg::literal(&format!("{name}={text}"))];
                    self.report(hit.rule, &words, hit.detail);
                }
            }
            AssignmentValue::Array(items) => {
                for (key, value) in items {
                    if let Some(key) = key {
                        self.expand(&key.value);
                    }
                    self.expand(&value.value);
                }
            }
        }
    }

    /// One simple command: its words expanded, its redirections judged, then
    /// the command itself ([`Scanner::call`]). Returns what it prints.
    fn simple(&mut self, command: &SimpleCommand, stdin: &Flow) -> Flow {
        let mut argv: Vec<Arg> = Vec::new();
        let mut redirects = Vec::new();
        let prefix = command.prefix.iter().flat_map(|p| p.0.iter());
        for item in prefix {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(assignment, _) => {
                    self.assignment(assignment);
                }
                other => self.item(other, &mut argv, &mut redirects),
            }
        }
        if let Some(word) = &command.word_or_name {
            argv.extend(self.expand(&word.value));
        }
        for item in command.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, &mut argv, &mut redirects);
        }

        let mut input = stdin.clone();
        let mut into_process = Vec::new();
        let mut socket = false;
        let mut writes = Vec::new();
        for redirect in redirects {
            match redirect {
                Redirect::Write(target, write) => {
                    socket |= is_socket(&target.text);
                    writes.push(target.clone());
                    self.write_target(&argv, &target, write);
                }
                Redirect::Input(flow) => input = flow,
                Redirect::Socket => socket = true,
                Redirect::IntoProcess(subshell) => into_process.push(subshell),
            }
        }
        if let Some(name) = argv.first().and_then(Arg::exact_text)
            && self.functions.iter().any(|f| f == name)
            && self.fanned_out
        {
            self.report(&super::rule::FORK_BOMB, &argv, fork_bomb::detail(name));
        }
        if socket {
            // bash's /dev/tcp/HOST/PORT: a shell wired to it takes orders
            // from the network.
            input = Flow::tainted(Taint {
                download: true,
                ..Taint::default()
            });
        }
        let out = self.call(&argv, &input);
        // `curl URL > f`, `curl URL | cat > f`: the file holds a download.
        if out.taint.download {
            for target in writes.iter().filter_map(Arg::exact_text) {
                self.note_download(target);
            }
        }
        for subshell in into_process {
            self.inside(">(...)", |s| s.list(&subshell.list, &out));
        }
        out
    }

    fn item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        argv: &mut Vec<Arg>,
        redirects: &mut Vec<Redirect>,
    ) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                redirects.extend(self.redirect(redirect));
            }
            CommandPrefixOrSuffixItem::Word(word) => argv.extend(self.expand(&word.value)),
            CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                // After the command name (`export X=…`, `env X=…`): judged as
                // an assignment, passed on as the word it is.
                self.assignment(assignment);
                argv.extend(self.expand(&word.value));
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                let (via, stdin) = match kind {
                    ProcessSubstitutionKind::Read => ("<(...)", Flow::inherited()),
                    ProcessSubstitutionKind::Write => (">(...)", Flow::unknown()),
                };
                let flow = self.inside(via, |s| s.list(&subshell.list, &stdin));
                let read = matches!(kind, ProcessSubstitutionKind::Read);
                argv.push(Arg {
                    text: format!("{}(...)", if read { '<' } else { '>' }),
                    exact: false,
                    glob: false,
                    known_from: 0,
                    taint: if read {
                        flow.taint.union(Taint::OPAQUE)
                    } else {
                        Taint::default()
                    },
                    content: flow.literal_text().filter(|_| read).map(str::to_owned),
                });
            }
        }
    }
}
