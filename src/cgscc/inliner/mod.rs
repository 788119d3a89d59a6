//! The inliner (`inline`, `nv-early-inliner`, `inliner-wrapper`): LLVM 14's decision
//! procedure and `InlineCost` model (`llvm14`) with NVIDIA's knobs as parameters
//! ([`InlineParams`], [`Profile`]).
//!
//! - [`params`]: the knobs and the two profiles (`llvm`, the default, and `cicc`);
//! - [`replay`]: replay files (`-cgscc-inline-replay`) read and answered as LLVM 14 does;
//! - [`remark`]: what the inliner reports and its two printers;
//! - `llvm14`: the inliner over the instruction view — its worklist, decisions, cost
//!   analysis, body cloning and block frequencies;
//! - `estimate`: the summary estimate for modules read without their instruction view
//!   (what `ilkit scan` runs on whole corpora; PERF.md measures why it stays).
//!
//! ```
//! use ilkit::cgscc::{CgsccModule, InlineParams, NoInstrumentation, Options, PassManager, Profile};
//! use ilkit::import::llvm_ir::ParseOptions;
//! let text = "define internal i32 @leaf(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n\
//!             define i32 @root(i32 %a) {\n  %r = call i32 @leaf(i32 %a)\n  ret i32 %r\n}\n";
//! let m = ilkit::llvm::Module::from_ll_str_with("m.ll", text, ParseOptions { instructions: true })
//!     .unwrap();
//! let mut cm = CgsccModule::new(&m, "m.ll");
//! let opts = Options { inline: InlineParams::for_profile(Profile::Cicc), ..Options::default() };
//! let mut pm = PassManager::from_text("cgscc(inline)", opts).unwrap();
//! pm.run(&mut cm, &mut NoInstrumentation).unwrap();
//! assert_eq!(cm.remarks[0].to_string(),
//!            "remark: <unknown>:0:0: 'leaf' inlined into 'root' with (cost=-15030, threshold=30000)");
//! // opt-14 -passes='cgscc(inline)' -inline-threshold=20000 prints the same line
//! ```

mod estimate;
pub(crate) mod llvm14;
pub mod params;
pub mod remark;
pub mod replay;

pub use params::{InlineModel, InlineParams, Profile};
pub use remark::{Remark, RemarkKind};
pub use replay::{Fallback as ReplayFallback, ReplayError, ReplayFile, Scope as ReplayScope};

use super::{Abort, CgsccPass, PassContext, PassResult};
use crate::callgraph::SccIdx;

/// The `inline` / `nv-early-inliner` / `inliner-wrapper` pass.
#[derive(Debug)]
pub struct InlinerPass {
    /// Pipeline name.
    pub name: String,
    /// `inline<only-mandatory>`: only `alwaysinline` callees.
    pub only_mandatory: bool,
}

impl CgsccPass for InlinerPass {
    fn inlines(&self) -> bool {
        true
    }

    fn first_inliner(&self) -> Option<(String, bool)> {
        Some((self.name.clone(), self.only_mandatory))
    }

    fn name(&self) -> String {
        if self.only_mandatory {
            format!("{}<only-mandatory>", self.name)
        } else {
            self.name.clone()
        }
    }

    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        match cx.opts.inline.model {
            InlineModel::Llvm14 => llvm14::run(&self.name, self.only_mandatory, scc, cx),
            InlineModel::Summary => estimate::run(&self.name, self.only_mandatory, scc, cx),
        }
    }
}
