//! Inline replay files (`-cgscc-inline-replay=FILE`), read and answered as LLVM 14's
//! `ReplayInlineAdvisor` reads and answers them.
//!
//! A replay file is the text of earlier inline remarks, e.g. what `opt -pass-remarks=inline`
//! printed:
//!
//! ```text
//! remark: m.c:8:74: 'leaf' inlined into 'twice' with (cost=-25, threshold=337) at callsite twice:0:74.1;
//! ```
//!
//! # How a file is read (LLVM 14's constructor)
//! Lines are split at `\n` (a `\r` before it belongs to the line end); empty lines are
//! skipped, a line of blanks is not; a NUL byte ends the file (LLVM's `line_iterator` on
//! a NUL-terminated buffer). For each line:
//! 1. split at the first `" at callsite "`; the line is *negative* when the part before
//!    contains `"' will not be inlined into '"`, otherwise *positive*;
//! 2. split the part before at the first `"' inlined into '"` (positive) or
//!    `"' will not be inlined into '"` (negative);
//! 3. the **callee** is what follows the last `": '"` before that marker (empty when
//!    there is none), the **caller** what precedes the last `"'"` after it (all of it
//!    when there is no `'`), the **callsite** the part after `" at callsite "` up to the
//!    first `";"`;
//! 4. an empty callee, caller or callsite is an error, `Invalid remark format: <line>`
//!    ([`ReplayError`], with the 1-based line number), and nothing of the file is used.
//!
//! Each line maps the string *callee followed directly by callsite* to its sign (a later
//! line for the same string wins) and adds its caller to the callers.
//!
//! Note what this means for LLVM's own output: `-pass-remarks-missed=inline` remarks
//! (`'f' not inlined into 'g' because too costly ...`) have no `at callsite`, so a file
//! holding them is rejected at the first one; and LLVM 14 prints no remark with
//! `' will not be inlined into '` (its `NoDefinition` remark has no quotes), so negative
//! lines come from hand-written or other tools' files.
//!
//! # How a call site is answered (LLVM 14's `getAdviceImpl`)
//! [`ReplayFile::advice`]`(caller, callee, callsite)`, where `caller` is the function
//! holding the call now, `callee` the called function's name and `callsite` the call's
//! location printed by [`crate::llvm::ir::debugloc::DebugLocs::format_callsite`] in
//! [`ReplayFile::format`] (the whole inlined-at chain; `""` without a location):
//! 1. with [`Scope::Function`], a caller the file does not name gets `None` (the
//!    original advisor decides);
//! 2. the file's sign for `callee + callsite`, if it has one: `Some(true)` inline (LLVM
//!    inlines as if the cost were "always"), `Some(false)` do not;
//! 3. otherwise the [`Fallback`]: `Original` → `None`, `AlwaysInline` → `Some(true)`,
//!    `NeverInline` → `Some(false)`.
//!
//! Since keys are concatenations, callee `a` at `bc:1` and callee `ab` at `c:1` are the
//! same site, as in LLVM.
//!
//! Cost: parsing is linear in the text; [`ReplayFile::advice`] is one or two hash lookups
//! and one allocation for the key.

use crate::hash::{FixedMap, FixedSet};
use crate::llvm::ir::debugloc::CallSiteFormat;

/// What replay covers (`-cgscc-inline-replay-scope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scope {
    /// `Function` (LLVM's default): replay only in the functions the file names as
    /// callers; elsewhere the original advisor decides.
    #[default]
    Function,
    /// `Module`: replay in every function.
    Module,
}

impl Scope {
    /// The scope of an option value (`Function`, `Module`).
    pub fn from_name(s: &str) -> Option<Scope> {
        match s {
            "Function" => Some(Scope::Function),
            "Module" => Some(Scope::Module),
            _ => None,
        }
    }

    /// The option value naming this scope.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Function => "Function",
            Scope::Module => "Module",
        }
    }
}

/// What replay answers for a call site the file does not list, in a function it covers
/// (`-cgscc-inline-replay-fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Fallback {
    /// `Original` (LLVM's default): the original advisor (the cost model) decides.
    #[default]
    Original,
    /// `AlwaysInline`: inline every site not in the file.
    AlwaysInline,
    /// `NeverInline`: inline no site not in the file.
    NeverInline,
}

impl Fallback {
    /// The fallback of an option value (`Original`, `AlwaysInline`, `NeverInline`).
    pub fn from_name(s: &str) -> Option<Fallback> {
        match s {
            "Original" => Some(Fallback::Original),
            "AlwaysInline" => Some(Fallback::AlwaysInline),
            "NeverInline" => Some(Fallback::NeverInline),
            _ => None,
        }
    }

    /// The option value naming this fallback.
    pub fn name(self) -> &'static str {
        match self {
            Fallback::Original => "Original",
            Fallback::AlwaysInline => "AlwaysInline",
            Fallback::NeverInline => "NeverInline",
        }
    }
}

/// A line LLVM 14 rejects: its callee, caller or callsite is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based line number in the file (blank lines counted).
    pub line: usize,
    /// The line as read (without its line end).
    pub text: String,
}

impl ReplayError {
    /// The message LLVM 14 reports: `Invalid remark format: <line>`.
    pub fn llvm_message(&self) -> String {
        format!("Invalid remark format: {}", self.text)
    }
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: Invalid remark format: {}",
            self.line, self.text
        )
    }
}

impl std::error::Error for ReplayError {}

/// One line's parts as LLVM 14 cuts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parts<'t> {
    positive: bool,
    callee: &'t str,
    caller: &'t str,
    callsite: &'t str,
}

const AT_CALLSITE: &str = " at callsite ";
const POSITIVE: &str = "' inlined into '";
const NEGATIVE: &str = "' will not be inlined into '";

/// `StringRef::split`: around the first `sep`, or `(s, "")` without one.
fn split<'t>(s: &'t str, sep: &str) -> (&'t str, &'t str) {
    s.split_once(sep).unwrap_or((s, ""))
}

/// `StringRef::rsplit`: around the last `sep`, or `(s, "")` without one.
fn rsplit<'t>(s: &'t str, sep: &str) -> (&'t str, &'t str) {
    s.rsplit_once(sep).unwrap_or((s, ""))
}

/// Cuts one line; `None` when LLVM rejects it.
fn cut(line: &str) -> Option<Parts<'_>> {
    let (head, tail) = split(line, AT_CALLSITE);
    let positive = !head.contains(NEGATIVE);
    let (callee_part, caller_part) = split(head, if positive { POSITIVE } else { NEGATIVE });
    let callee = rsplit(callee_part, ": '").1;
    let caller = rsplit(caller_part, "'").0;
    let callsite = split(tail, ";").0;
    (!callee.is_empty() && !caller.is_empty() && !callsite.is_empty()).then_some(Parts {
        positive,
        callee,
        caller,
        callsite,
    })
}

/// The lines `line_iterator` (blanks skipped) yields, with their 1-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.split('\0').next().unwrap_or("");
    let mut rest = Some(text);
    let mut number = 0usize;
    std::iter::from_fn(move || loop {
        let r = rest?;
        number += 1;
        let line = match r.find('\n') {
            Some(k) => {
                rest = Some(&r[k + 1..]);
                r[..k].strip_suffix('\r').unwrap_or(&r[..k])
            }
            None => {
                rest = None;
                r
            }
        };
        if !line.is_empty() {
            return Some((number, line));
        }
    })
}

/// A parsed replay file with its settings (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayFile {
    /// `callee + callsite` → inline (`true`) or not.
    sites: FixedMap<String, bool>,
    /// Callers named by the lines.
    callers: FixedSet<String>,
    /// Lines read, positive and negative.
    positive_lines: usize,
    negative_lines: usize,
    /// `-cgscc-inline-replay-scope`.
    pub scope: Scope,
    /// `-cgscc-inline-replay-fallback`.
    pub fallback: Fallback,
    /// `-cgscc-inline-replay-format`: how call sites are printed to be looked up.
    pub format: CallSiteFormat,
}

impl ReplayFile {
    /// Parses replay text with LLVM's default settings (scope `Function`, fallback
    /// `Original`, format `LineColumnDiscriminator`).
    ///
    /// # Errors
    /// The first line whose callee, caller or callsite is empty.
    pub fn parse(text: &str) -> Result<ReplayFile, ReplayError> {
        let mut r = ReplayFile::default();
        for (number, line) in lines(text) {
            let Some(p) = cut(line) else {
                return Err(ReplayError {
                    line: number,
                    text: line.to_string(),
                });
            };
            let mut key = String::with_capacity(p.callee.len() + p.callsite.len());
            key.push_str(p.callee);
            key.push_str(p.callsite);
            r.sites.insert(key, p.positive);
            if !r.callers.contains(p.caller) {
                r.callers.insert(p.caller.to_string());
            }
            if p.positive {
                r.positive_lines += 1;
            } else {
                r.negative_lines += 1;
            }
        }
        Ok(r)
    }

    /// Sets the scope.
    pub fn with_scope(mut self, scope: Scope) -> ReplayFile {
        self.scope = scope;
        self
    }

    /// Sets the fallback.
    pub fn with_fallback(mut self, fallback: Fallback) -> ReplayFile {
        self.fallback = fallback;
        self
    }

    /// Sets the call-site format.
    pub fn with_format(mut self, format: CallSiteFormat) -> ReplayFile {
        self.format = format;
        self
    }

    /// The replay decision for a call of `callee` at `callsite` in `caller` (see the
    /// module docs): `Some(true)` inline, `Some(false)` do not, `None` the original
    /// advisor decides.
    pub fn advice(&self, caller: &str, callee: &str, callsite: &str) -> Option<bool> {
        if self.scope == Scope::Function && !self.callers.contains(caller) {
            return None;
        }
        let mut key = String::with_capacity(callee.len() + callsite.len());
        key.push_str(callee);
        key.push_str(callsite);
        if let Some(&sign) = self.sites.get(&key) {
            return Some(sign);
        }
        match self.fallback {
            Fallback::Original => None,
            Fallback::AlwaysInline => Some(true),
            Fallback::NeverInline => Some(false),
        }
    }

    /// Whether replay covers calls in `caller` (LLVM's `hasInlineAdvice`).
    pub fn covers(&self, caller: &str) -> bool {
        self.scope == Scope::Module || self.callers.contains(caller)
    }

    /// The sign the file gives `callee + callsite`, whatever the scope.
    pub fn site(&self, callee: &str, callsite: &str) -> Option<bool> {
        let mut key = String::with_capacity(callee.len() + callsite.len());
        key.push_str(callee);
        key.push_str(callsite);
        self.sites.get(&key).copied()
    }

    /// Distinct `callee + callsite` keys.
    pub fn num_sites(&self) -> usize {
        self.sites.len()
    }

    /// The callers the lines name.
    pub fn callers(&self) -> impl Iterator<Item = &str> + '_ {
        self.callers.iter().map(String::as_str)
    }

    /// Positive lines read (duplicates counted).
    pub fn positive_lines(&self) -> usize {
        self.positive_lines
    }

    /// Negative lines read (duplicates counted).
    pub fn negative_lines(&self) -> usize {
        self.negative_lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `opt-14 -passes='cgscc(inline)' -pass-remarks=inline
    /// -pass-remarks-missed=inline` printed for `tests/fixtures/debugloc/nested.ll`.
    const REMARKS: &str = include_str!("../../../tests/fixtures/debugloc/remarks.txt");
    /// What `opt-14 -cgscc-inline-replay=remarks.txt` answered.
    const LLVM_ERROR: &str = include_str!("../../../tests/fixtures/debugloc/replay_error.txt");

    #[test]
    fn opt_remarks_with_missed_lines_are_rejected_where_llvm_rejects_them() {
        let e = ReplayFile::parse(REMARKS).unwrap_err();
        let first_missed = REMARKS
            .lines()
            .position(|l| !l.contains(" at callsite "))
            .unwrap();
        assert_eq!(e.line, first_missed + 1);
        assert_eq!(
            format!("error: {}", e.llvm_message()),
            LLVM_ERROR.trim_end(),
            "LLVM's own message"
        );
        assert!(e.to_string().starts_with(&format!("line {}: ", e.line)));
    }

    #[test]
    fn opt_positive_remarks_parse() {
        let kept: String = REMARKS
            .lines()
            .filter(|l| l.contains(" at callsite "))
            .map(|l| format!("{l}\n"))
            .collect();
        let n = kept.lines().count();
        let r = ReplayFile::parse(&kept).unwrap();
        assert_eq!((r.positive_lines(), r.negative_lines()), (n, 0));
        assert_eq!(r.num_sites(), n);
        // every remark's own site answers "inline" in its caller
        for l in kept.lines() {
            let p = cut(l).unwrap();
            assert_eq!(r.advice(p.caller, p.callee, p.callsite), Some(true), "{l}");
        }
        let mut callers: Vec<&str> = r.callers().collect();
        callers.sort_unstable();
        assert_eq!(callers, ["_ZL5twicei", "above", "loop", "main", "mid"]);
        assert_eq!(
            r.site("big", "mid:5:12 @ main:1:11"),
            Some(true),
            "a chained call site"
        );
    }

    #[test]
    fn lines_are_cut_as_llvm_cuts_them() {
        let p = cut("remark: m.c:8:74: 'leaf' inlined into 'twice' with (cost=-25, threshold=337) at callsite twice:0:74.1;").unwrap();
        assert_eq!(
            (p.positive, p.callee, p.caller, p.callsite),
            (true, "leaf", "twice", "twice:0:74.1")
        );
        let p = cut("x: 'g' will not be inlined into 'f' at callsite f:2:3; more").unwrap();
        assert_eq!(
            (p.positive, p.callee, p.caller, p.callsite),
            (false, "g", "f", "f:2:3")
        );
        // no quote after the marker: the caller is everything after it
        let p = cut("x: 'g' inlined into 'f at callsite f:1").unwrap();
        assert_eq!((p.caller, p.callsite), ("f", "f:1"));
        // the callee follows the *last* ": '"
        let p = cut("a: 'b: 'g' inlined into 'f' at callsite f:1;").unwrap();
        assert_eq!(p.callee, "g");
        // the caller precedes the *last* quote
        let p = cut("x: 'g' inlined into 'f' with 'x' at callsite f:1;").unwrap();
        assert_eq!(p.caller, "f' with 'x");
        // no ';': the rest of the line; spaces are kept
        let p = cut("x: 'g' inlined into 'f' at callsite  f:1 @ h:2").unwrap();
        assert_eq!(p.callsite, " f:1 @ h:2");
        for bad in [
            "x: 'g' inlined into 'f'",                      // no callsite
            "x: 'g' inlined into 'f' at callsite ;",        // empty callsite
            "'g' inlined into 'f' at callsite f:1;",        // no ": '"
            "x: 'g' inlined into '' at callsite f:1;",      // empty caller
            "x: '' inlined into 'f' at callsite f:1;",      // empty callee
            "x: 'g' not inlined into 'f' at callsite f:1;", // no marker
            "   ",
        ] {
            assert_eq!(cut(bad), None, "{bad}");
        }
    }

    #[test]
    fn line_numbers_blank_lines_crlf_and_nul() {
        let ok = "x: 'g' inlined into 'f' at callsite f:1;";
        let text = format!("\n{ok}\r\n\r\n\n{ok}\nbroken\n{ok}\n");
        let e = ReplayFile::parse(&text).unwrap_err();
        assert_eq!((e.line, e.text.as_str()), (6, "broken"));
        // a line of blanks is not blank
        let e = ReplayFile::parse(&format!("{ok}\n  \n")).unwrap_err();
        assert_eq!((e.line, e.text.as_str()), (2, "  "));
        // a NUL ends the file
        let r = ReplayFile::parse(&format!("{ok}\n\0broken\n")).unwrap();
        assert_eq!(r.positive_lines(), 1);
        // a '\r' not before '\n' stays in the line (here: in the callsite)
        let r = ReplayFile::parse("x: 'g' inlined into 'f' at callsite f:1\r").unwrap();
        assert_eq!(r.site("g", "f:1\r"), Some(true));
        assert_eq!(ReplayFile::parse("").unwrap(), ReplayFile::default());
    }

    #[test]
    fn advice_follows_scope_then_sites_then_fallback() {
        let text = "r: 'g' inlined into 'f' at callsite f:1:3;\n\
                    r: 'h' will not be inlined into 'f' at callsite f:2:3;\n\
                    r: 'h' inlined into 'f' at callsite f:4:3;\n\
                    r: 'h' will not be inlined into 'f' at callsite f:4:3;\n";
        let r = ReplayFile::parse(text).unwrap();
        assert_eq!((r.positive_lines(), r.negative_lines()), (2, 2));
        assert_eq!(r.num_sites(), 3);
        assert_eq!(r.advice("f", "g", "f:1:3"), Some(true));
        assert_eq!(r.advice("f", "h", "f:2:3"), Some(false));
        assert_eq!(
            r.advice("f", "h", "f:4:3"),
            Some(false),
            "the later line wins"
        );
        assert_eq!(r.advice("f", "g", "f:9:9"), None, "Original fallback");
        assert_eq!(
            r.advice("main", "g", "f:1:3"),
            None,
            "caller not in the file"
        );
        let m = r.clone().with_scope(Scope::Module);
        assert_eq!(m.advice("main", "g", "f:1:3"), Some(true));
        assert_eq!(m.advice("main", "g", "f:9:9"), None);
        let a = r.clone().with_fallback(Fallback::AlwaysInline);
        assert_eq!(a.advice("f", "g", "f:9:9"), Some(true));
        assert_eq!(a.advice("main", "g", "f:9:9"), None);
        let n = r.clone().with_fallback(Fallback::NeverInline);
        assert_eq!(
            n.advice("f", "g", ""),
            Some(false),
            "a call without location"
        );
        // keys are concatenations
        assert_eq!(r.advice("f", "gf", ":1:3"), Some(true));
        assert!(r.covers("f") && !r.covers("main") && m.covers("main"));
    }

    #[test]
    fn option_names_round_trip() {
        for s in [Scope::Function, Scope::Module] {
            assert_eq!(Scope::from_name(s.name()), Some(s));
        }
        for f in [
            Fallback::Original,
            Fallback::AlwaysInline,
            Fallback::NeverInline,
        ] {
            assert_eq!(Fallback::from_name(f.name()), Some(f));
        }
        assert_eq!(Scope::from_name("function"), None);
        assert_eq!(
            ReplayFile::parse("").unwrap().format,
            CallSiteFormat::LineColumnDiscriminator
        );
        let r = ReplayFile::default().with_format(CallSiteFormat::Line);
        assert_eq!(r.format, CallSiteFormat::Line);
    }
}
