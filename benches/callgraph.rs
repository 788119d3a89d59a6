//! callgraph benches (divan).

fn main() {
    divan::main();
}
