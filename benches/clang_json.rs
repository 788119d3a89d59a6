//! The clang JSON importer on the checked-in fixture (decompressed into memory first, so
//! the numbers are tokenizing + building, no I/O), against the same bytes through
//! `serde_json::from_slice::<Value>` (a whole-document DOM, the approach the importer
//! avoids) in the same run.

use divan::{black_box, counter::BytesCount, Bencher};

fn fixture() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/clang/kernels.json.gz"
    );
    ilkit::import::format::gunzip_if_gzip(std::fs::read(path).expect("fixture")).expect("gzip")
}

fn main() {
    divan::main();
}

/// ilkit: stream the dump into a fresh IL.
#[divan::bench(sample_count = 20)]
fn import_fixture(b: Bencher) {
    let json = fixture();
    b.counter(BytesCount::new(json.len())).bench_local(|| {
        let mut il = ilkit::il::Il::new();
        black_box(ilkit::import::clang_json::import_reader(&mut il, &json[..]).expect("import"));
        il
    });
}

/// Baseline: parse the same bytes into a serde_json DOM (no IL built).
#[divan::bench(sample_count = 20)]
fn serde_json_dom_baseline(b: Bencher) {
    let json = fixture();
    b.counter(BytesCount::new(json.len())).bench_local(|| {
        black_box(serde_json::from_slice::<serde_json::Value>(&json).expect("json"))
    });
}
