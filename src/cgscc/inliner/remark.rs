//! The inliner's remarks and their two printers: LLVM 14's text (what
//! `opt -pass-remarks=inline -pass-remarks-missed=inline` prints, the [`Display`] of a
//! [`Remark`]) and the old CGSCC inliner's text (seed 003's strings, [`Remark::legacy`]).
//! A remark records the decision; how it is printed is the printer's choice.
//!
//! [`Display`]: std::fmt::Display

use std::sync::Arc;

/// Remark kinds (the old inliner's names). The discriminant indexes
/// [`PipelineSummary::remarks_by_kind`](crate::cgscc::PipelineSummary).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RemarkKind {
    /// Inlined by the cost model, replay or `nv-inline-all`.
    Inlined = 0,
    /// Not inlined for a reason other than cost.
    NotInlined = 1,
    /// Inlined without a cost (`alwaysinline`, replay, `nv-inline-all`).
    AlwaysInline = 2,
    /// Not inlined: the callee must never be inlined here.
    NeverInline = 3,
    /// Not inlined: cost above threshold.
    TooBig = 4,
    /// Not inlined: no definition.
    NoDefinition = 5,
}

impl RemarkKind {
    /// The remark name.
    pub fn as_str(self) -> &'static str {
        match self {
            RemarkKind::Inlined => "Inlined",
            RemarkKind::NotInlined => "NotInlined",
            RemarkKind::AlwaysInline => "AlwaysInline",
            RemarkKind::NeverInline => "NeverInline",
            RemarkKind::TooBig => "TooBig",
            RemarkKind::NoDefinition => "NoDefinition",
        }
    }
}

/// One inliner remark. Names are shared with the module's name table (no allocation per
/// remark); the location is formatted only when
/// [`InlineParams::remark_locations`](super::InlineParams::remark_locations) is on (a
/// location chain grows with inlining depth, and most runs never print them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    /// Kind.
    pub kind: RemarkKind,
    /// Pass that emitted it.
    pub pass: Arc<str>,
    /// Caller name.
    pub caller: Arc<str>,
    /// Callee name.
    pub callee: Arc<str>,
    /// `cost=`: `None` prints `always` (or `never` for `NeverInline`).
    pub cost: Option<i64>,
    /// `threshold=`.
    pub threshold: Option<i64>,
    /// Call-site location (LLVM's `at callsite` text); empty when the module has no
    /// debug locations or locations are not formatted.
    pub loc: String,
    /// The call's source location, `file:line:column` (LLVM's remark prefix); empty
    /// prints LLVM's `<unknown>:0:0`.
    pub src: String,
    /// Why: LLVM's reason text (`always inline attribute`, `noinline function
    /// attribute`, ...).
    pub reason: &'static str,
}

/// LLVM 14's remark text, as `opt -pass-remarks=inline -pass-remarks-missed=inline`
/// prints it (`remark: file:line:col: `, `remark: <unknown>:0:0: ` without debug
/// information), so
/// `scripts/inline_remarks.py` reads ilkit's remarks and opt's alike.
impl std::fmt::Display for Remark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (callee, caller) = (&self.callee, &self.caller);
        if self.src.is_empty() {
            f.write_str("remark: <unknown>:0:0: ")?;
        } else {
            write!(f, "remark: {}: ", self.src)?;
        }
        match (self.kind, self.cost, self.threshold) {
            (RemarkKind::Inlined, Some(c), Some(t)) => {
                write!(f, "'{callee}' inlined into '{caller}' with (cost={c}, threshold={t})")?
            }
            (RemarkKind::Inlined | RemarkKind::AlwaysInline, _, _) => write!(
                f,
                "'{callee}' inlined into '{caller}' with (cost=always): {}",
                self.reason
            )?,
            (RemarkKind::TooBig, Some(c), Some(t)) => write!(
                f,
                "'{callee}' not inlined into '{caller}' because too costly to inline (cost={c}, threshold={t})"
            )?,
            (RemarkKind::NeverInline | RemarkKind::TooBig, _, _) => write!(
                f,
                "'{callee}' not inlined into '{caller}' because it should never be inlined (cost=never): {}",
                self.reason
            )?,
            (RemarkKind::NotInlined, _, _) => {
                write!(f, "'{callee}' is not inlined into '{caller}': {}", self.reason)?
            }
            (RemarkKind::NoDefinition, _, _) => write!(
                f,
                "{callee} will not be inlined into {caller} because its definition is unavailable"
            )?,
        }
        if !self.loc.is_empty() {
            write!(f, " at callsite {};", self.loc)?;
        }
        Ok(())
    }
}

impl Remark {
    /// The old CGSCC inliner's text (seed 003's strings: `Inlined`, `NotInlined`,
    /// `cost=always`, ...), which the summary estimate prints.
    pub fn legacy(&self) -> Legacy<'_> {
        Legacy(self)
    }
}

/// [`Remark::legacy`]'s printer.
#[derive(Debug)]
pub struct Legacy<'a>(&'a Remark);

impl std::fmt::Display for Legacy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.0;
        let cost = match (r.cost, r.kind) {
            (Some(c), _) => format!("cost={c}"),
            (None, RemarkKind::NeverInline) => "cost=never".into(),
            (None, _) => "cost=always".into(),
        };
        let with = match r.threshold {
            Some(t) => format!("({cost}, threshold={t})"),
            None => format!("({cost})"),
        };
        let (callee, caller) = (&r.callee, &r.caller);
        write!(f, "remark: {}: {}: ", r.pass, r.kind.as_str())?;
        match r.kind {
            RemarkKind::Inlined | RemarkKind::AlwaysInline => {
                write!(f, "'{callee}' inlined into '{caller}' with {with}")?
            }
            RemarkKind::NotInlined if r.cost.is_none() => write!(
                f,
                "'{callee}' not inlined into '{caller}' because {}",
                r.reason
            )?,
            RemarkKind::NeverInline | RemarkKind::TooBig | RemarkKind::NotInlined => write!(
                f,
                "'{callee}' not inlined into '{caller}' because {} {with}",
                r.reason
            )?,
            RemarkKind::NoDefinition => write!(
                f,
                "'{callee}' will not be inlined into '{caller}' because its definition is unavailable"
            )?,
        }
        write!(f, " at callsite {};", r.loc)
    }
}
