use ilkit::il::{fields as F, Il};
#[inline(never)]
fn run() -> usize {
    let mut il = Il::new();
    il.open_function_region(None);
    let mut prev = None;
    for _ in 0..1_000_000 {
        let e = il.alloc_expr_node(1).unwrap();
        if let Some(p) = prev {
            il.push_list(e, F::EXPR_NODE_OPERANDS, p).unwrap();
        }
        prev = Some(e);
    }
    il.len()
}
fn main() {
    let t = std::time::Instant::now();
    let n = run();
    println!("{n} {:?}", t.elapsed());
}
