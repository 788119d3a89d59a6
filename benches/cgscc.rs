//! CGSCC pipeline benches (divan) on a generated module, with baselines in the same run.
//!
//! `cargo bench --bench cgscc`. The module has `n` functions: function `i` calls 0..3
//! functions in (i, i + 64], one in 500 also calls back to an earlier neighbour (small
//! cycles), one in 50 takes the address of a function ahead of it (no reference
//! cycles: a RefSCC spanning the module would make every internal edge removal re-run
//! Tarjan over it, O(RefSCC) as in LLVM); one in 8 is external (a root),
//! the rest internal; bodies are 4..40 instructions. Baselines: building the call graph
//! and summaries (`build`), and a pipeline that does not mutate the graph
//! (`cgscc(function-attrs)`), against the inliner pipeline
//! `cgscc(devirt<5>(inline,function-attrs))` under the 20,000 budget.

use divan::Bencher;
use ilkit::cgscc::{CgsccModule, NoInstrumentation, Options, PassManager};
use ilkit::llvm::Module;

fn main() {
    divan::main();
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// LLVM IR text of the generated module.
fn module_text(n: usize) -> String {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = String::from("@g = global ptr null\n");
    for i in 0..n {
        let linkage = if i % 8 == 0 { "" } else { "internal " };
        s.push_str(&format!("define {linkage}i32 @f{i}(i32 %x) {{\n"));
        let mut cur = "%x".to_string();
        for k in 0..4 + r.next(37) {
            s.push_str(&format!("  %a{k} = add i32 {cur}, {k}\n"));
            cur = format!("%a{k}");
        }
        let mut callees = Vec::new();
        for _ in 0..r.next(4) {
            let j = i + 1 + r.next(64);
            if j < n && !callees.contains(&j) {
                callees.push(j);
            }
        }
        if r.next(500) == 0 && i > 10 {
            callees.push(i - 1 - r.next(8));
        }
        for (k, j) in callees.into_iter().enumerate() {
            s.push_str(&format!("  %c{k} = call i32 @f{j}(i32 {cur})\n"));
            cur = format!("%c{k}");
        }
        let j = i + 1 + r.next(64);
        if r.next(50) == 0 && j < n {
            s.push_str(&format!("  store ptr @f{j}, ptr @g\n"));
        }
        s.push_str(&format!("  ret i32 {cur}\n}}\n"));
    }
    s
}

fn module(n: usize) -> (Module, String) {
    let text = module_text(n);
    (Module::from_ll_str("gen.ll", &text).unwrap(), text)
}

fn opts() -> Options {
    Options {
        verify_each: false,
        ..Options::default()
    }
}

#[divan::bench(args = [1_000, 100_000], sample_count = 10)]
fn build(bencher: Bencher, n: usize) {
    let (m, _) = module(n);
    bencher.bench_local(|| CgsccModule::new(&m, "gen.ll"));
}

fn pipeline(bencher: Bencher, n: usize, text: &str) {
    let (m, _) = module(n);
    let base = CgsccModule::new(&m, "gen.ll");
    bencher
        .with_inputs(|| base.clone())
        .bench_local_values(|mut cm| {
            let mut pm = PassManager::from_text(text, opts()).unwrap();
            pm.run(&mut cm, &mut NoInstrumentation).unwrap();
            cm
        });
}

#[divan::bench(args = [1_000, 100_000], sample_count = 10)]
fn function_attrs_only(bencher: Bencher, n: usize) {
    pipeline(bencher, n, "cgscc(function-attrs)");
}

#[divan::bench(args = [1_000, 100_000], sample_count = 10)]
fn devirt5_inline_function_attrs(bencher: Bencher, n: usize) {
    pipeline(bencher, n, "cgscc(devirt<5>(inline,function-attrs))");
}
