//! The inliner's knobs and profiles.

use super::replay::ReplayFile;

/// The two settings of the inliner's knobs (`--profile`).
///
/// `Llvm` is the default: `ilkit cgscc` reads LLVM's pipeline text and its answers are
/// checked against `opt-14` run with the same text, which uses LLVM's knobs; `Cicc`
/// reproduces NVIDIA's settings (seed 003) on the same decision procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Profile {
    /// Stock LLVM 14: threshold 225 (325 for `inlinehint` callees, 45 at cold call sites,
    /// lowered for `optsize` / `minsize` callers), intra-SCC multiplier 2.
    #[default]
    Llvm,
    /// NVIDIA's: the inline budget (20,000; 40,000 with `aggressive-inline`) is the
    /// threshold, given explicitly as `opt -inline-threshold=20000` gives it (so the
    /// `optsize` caps do not apply), intra-SCC multiplier 2.
    Cicc,
}

impl Profile {
    /// The profile's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Llvm => "llvm",
            Profile::Cicc => "cicc",
        }
    }
}

/// Inliner knobs (seed 003's table) for both decision procedures.
#[derive(Clone, Debug)]
pub struct InlineParams {
    /// The profile the defaults come from.
    pub profile: Profile,
    /// `inline-budget`: NVIDIA's budget (20,000): under [`Profile::Cicc`] the threshold
    /// of LLVM 14's model, and the per-caller budget the summary estimate charges.
    pub inline_budget: i64,
    /// `inline-threshold`, when given: the threshold under either profile, explicit as
    /// LLVM's command-line knob is (the `optsize` / `minsize` caps do not apply).
    pub inline_threshold: Option<i64>,
    /// `nv-inline-all`: inline every viable defined callee that is not `noinline`,
    /// without a cost analysis (`cost=always`).
    pub nv_inline_all: bool,
    /// `aggressive-inline`: the budget (and threshold) is 40,000.
    pub aggressive_inline: bool,
    /// `intra-scc-cost-multiplier`: a call exposed by inlining a callee of another SCC
    /// whose own callee is in that SCC costs this many times its inlined call site
    /// (LLVM 14.0.6's rule, default 2).
    pub intra_scc_cost_multiplier: i64,
    /// `function-inline-cost-multiplier`: the cost multiplier of a call to a recursive
    /// callee (one in a cycle of calls) before any inlining; 1 leaves costs alone.
    pub function_inline_cost_multiplier: i64,
    /// `cgscc-inline-replay`: decisions replayed from LLVM remark text, keyed by debug
    /// locations (LLVM 14's model only).
    pub replay: Option<ReplayFile>,
    /// Remove local callees left without uses.
    pub delete_dead: bool,
    /// Format each remark's call-site location (off in scans, which only count remarks).
    pub remark_locations: bool,
    /// Keep every remark in [`CgsccModule::remarks`](crate::cgscc::CgsccModule::remarks);
    /// when off they are only counted per kind
    /// ([`CgsccModule::remark_counts`](crate::cgscc::CgsccModule::remark_counts)), which is
    /// all a scan needs (a large module makes millions of remarks).
    pub keep_remarks: bool,
    /// Cap on inlines per run (ilkit's guard against inlining that multiplies without
    /// end through cycles of calls; `--inline-max-total`). When reached, the inliner
    /// stops for the rest of the run and says so.
    pub max_total_inlines: usize,
    /// Cap on a caller's size in instructions after inlining (`--inline-max-caller-size`),
    /// summary estimate only: a call whose inlining would grow the caller past it is not
    /// inlined.
    pub max_caller_size: u32,
    /// Cap on the call-graph churn inlining may cause in a run, in SCCs created by splits
    /// and merged away (`--inline-max-scc-churn`); `None`: 64 per function plus 4096.
    /// Each inline rewrites the caller's edges the way LLVM does (dead edges removed,
    /// then new calls added), which on one long cycle of calls splits the whole SCC and
    /// merges it back: O(cycle) work and SCC slots per inline. When reached, the inliner
    /// stops for the rest of the run and says so.
    pub max_scc_churn: Option<usize>,
    /// The decision procedure (`--inline-model`).
    pub model: InlineModel,
}

impl Default for InlineParams {
    fn default() -> Self {
        InlineParams::for_profile(Profile::Llvm)
    }
}

impl InlineParams {
    /// The knobs of `profile` with LLVM 14's decision procedure.
    pub fn for_profile(profile: Profile) -> InlineParams {
        InlineParams {
            profile,
            inline_budget: 20_000,
            inline_threshold: None,
            nv_inline_all: false,
            aggressive_inline: false,
            intra_scc_cost_multiplier: 2,
            function_inline_cost_multiplier: 1,
            replay: None,
            delete_dead: true,
            remark_locations: true,
            keep_remarks: true,
            max_total_inlines: 1_000_000,
            max_caller_size: 1_000_000,
            max_scc_churn: None,
            model: InlineModel::Llvm14,
        }
    }

    /// LLVM 14's model: the base threshold and whether it is explicit (given as
    /// `-inline-threshold` is: the `optsize` / `minsize` caps do not apply).
    pub fn threshold(&self) -> (i64, bool) {
        if self.aggressive_inline {
            return (40_000, true);
        }
        if let Some(t) = self.inline_threshold {
            return (t, true);
        }
        match self.profile {
            Profile::Llvm => (225, false),
            Profile::Cicc => (self.inline_budget, true),
        }
    }

    /// The summary estimate's per-caller budget (`None` under [`Profile::Llvm`]: the
    /// threshold rules instead).
    pub fn budget(&self) -> Option<i64> {
        match self.profile {
            _ if self.aggressive_inline => Some(40_000),
            Profile::Cicc => Some(self.inline_budget),
            Profile::Llvm => None,
        }
    }
}

/// Which decision procedure the inliner uses (`--inline-model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InlineModel {
    /// LLVM 14's decision procedure and `InlineCost` model over the instruction view
    /// ([`crate::llvm::ir`]), with the profile's knobs: the inliner.
    #[default]
    Llvm14,
    /// A size estimate over call summaries, for modules read without their instruction
    /// view: what `ilkit scan` runs (PERF.md, "The summary estimate", measures why).
    Summary,
}
