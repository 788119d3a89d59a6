//! cfg benches (divan).

fn main() {
    divan::main();
}
