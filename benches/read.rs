//! Checking a large file's bytes are UTF-8 (`ilkit::import::text_of`): in pieces on two
//! threads against one and against the standard library's one pass, in the same run.

use divan::{black_box, counter::BytesCount, Bencher};

fn main() {
    divan::main();
}

/// About 10 MB of LLVM IR-like text with some multi-byte characters (the size of the
/// largest prepared module of the corpus).
fn text() -> Vec<u8> {
    let line = "  %call.i = call i32 @\"f\u{e9}\u{2124}\"(i32 %x) ; \u{1d538}\n";
    line.repeat(10_000_000 / line.len()).into_bytes()
}

fn run(b: Bencher, jobs: usize) {
    let bytes = text();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .unwrap();
    b.counter(BytesCount::new(bytes.len()))
        .with_inputs(|| bytes.clone())
        .bench_local_values(|v| pool.install(|| black_box(ilkit::import::text_of(v).is_ok())));
}

#[divan::bench(sample_count = 20)]
fn text_of_1_job(b: Bencher) {
    run(b, 1);
}

#[divan::bench(sample_count = 20)]
fn text_of_2_jobs(b: Bencher) {
    run(b, 2);
}

/// The baseline: the standard library's check, one pass.
#[divan::bench(sample_count = 20)]
fn std_string_from_utf8(b: Bencher) {
    let bytes = text();
    b.counter(BytesCount::new(bytes.len()))
        .with_inputs(|| bytes.clone())
        .bench_local_values(|v| black_box(String::from_utf8(v).is_ok()));
}
