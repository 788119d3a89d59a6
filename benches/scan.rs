//! The whole scan: the embedded default corpus with one worker and with two, in the same
//! run (the parallel speedup on this machine's two cores).

use divan::{black_box, counter::ItemsCount, Bencher};
use ilkit::scan::{default_inputs, scan, NoProgress, ScanOptions};

fn main() {
    divan::main();
}

fn run(b: Bencher, jobs: usize) {
    let inputs = default_inputs();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .unwrap();
    b.counter(ItemsCount::new(inputs.len())).bench_local(|| {
        pool.install(|| black_box(scan(&inputs, &ScanOptions::default(), &NoProgress).len()))
    });
}

#[divan::bench(sample_count = 10)]
fn scan_default_1_job(b: Bencher) {
    run(b, 1);
}

#[divan::bench(sample_count = 10)]
fn scan_default_2_jobs(b: Bencher) {
    run(b, 2);
}
