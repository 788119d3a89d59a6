//! Times the parts of binary IL write and read on a scale-10 translation unit (best and
//! median of five, or `--runs N`). A profiling program, not a usage example:
//! `cargo run --release --example profile_binary_il [--scale S] [--runs N] [--callgrind]`

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scale = args
        .iter()
        .position(|a| a == "--scale")
        .and_then(|i| args.get(i + 1))
        .map_or(10.0, |s| s.parse().expect("--scale takes a number"));
    let mut il = ilkit::il::synth::generate(7, scale);
    if args.iter().any(|a| a == "--callgrind") {
        // One call of each variant and nothing else, for instruction counts:
        // `valgrind --tool=callgrind --separate-threads=yes ... --callgrind`, then the
        // inclusive costs of `write_il_on` / `read_il_on` (and the worker threads).
        use ilkit::import::binary_il as b;
        let bytes = std::hint::black_box(b::write_il(&mut il, false).unwrap());
        std::hint::black_box(b::read_il(&bytes).unwrap().len());
        let one = std::hint::black_box(b::write_il_single_threaded(&mut il, false).unwrap());
        std::hint::black_box(b::read_il_single_threaded(&one).unwrap().len());
        return;
    }
    struct Count(usize);
    impl ilkit::walk::Callbacks for Count {
        const HAS_ENTRY: bool = true;
        fn entry(
            &mut self,
            _: &mut ilkit::il::Il,
            _: ilkit::il::Eix,
            _: ilkit::il::EntryKind,
        ) -> Option<ilkit::il::Eix> {
            self.0 += 1;
            None
        }
    }
    let mut best = std::time::Duration::MAX;
    let mut c = Count(0);
    for _ in 0..5 {
        let t = Instant::now();
        c = Count(0);
        ilkit::walk::Walker::new()
            .walk_file_scope_il(&mut il, &mut c, 0)
            .unwrap();
        best = best.min(t.elapsed());
    }
    println!("walk: {best:?} for {} entries (best of five)", c.0);
    // Best and median of `--runs N` (five unless given; the machine may be shared).
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .map_or(5, |s| s.parse().expect("--runs takes a count"))
        .max(1);
    let (mut ws, mut rs) = (Vec::new(), Vec::new());
    let mut bytes = Vec::new();
    let mut back = ilkit::il::Il::new();
    for _ in 0..runs {
        let t = Instant::now();
        bytes = ilkit::import::binary_il::write_il(&mut il, false).unwrap();
        ws.push(t.elapsed());
        let t = Instant::now();
        back = ilkit::import::binary_il::read_il(&bytes).unwrap();
        rs.push(t.elapsed());
    }
    ws.sort();
    rs.sort();
    let (w, r) = (ws[0], rs[0]);
    println!(
        "write {w:?}, read {r:?} (best of {runs}; medians {:?}, {:?}), {} bytes, {} entries; \
         {:.0} MB/s write+read",
        ws[runs / 2],
        rs[runs / 2],
        bytes.len(),
        back.len(),
        bytes.len() as f64 / 1e6 / (w + r).as_secs_f64()
    );
    let t = Instant::now();
    let sum = ilkit::import::binary_il::checksum(&bytes);
    println!("checksum alone: {:?} ({sum:x})", t.elapsed());
    if std::env::args().any(|a| a == "--read-loop") {
        for _ in 0..5 {
            std::hint::black_box(ilkit::import::binary_il::read_il(&bytes).unwrap().len());
        }
        return;
    }
    if std::env::args().any(|a| a == "--write-loop") {
        for _ in 0..5 {
            std::hint::black_box(
                ilkit::import::binary_il::write_il(&mut il, false)
                    .unwrap()
                    .len(),
            );
        }
        return;
    }
    let t = Instant::now();
    let mut fresh = ilkit::il::Il::new();
    for _ in 0..back.len() {
        let _ = fresh.alloc(ilkit::il::EntryKind::Type);
    }
    println!("1M bare allocs: {:?}", t.elapsed());
}
