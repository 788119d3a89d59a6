//! Cost per entry / edge / block as inputs grow 10^4 → 10^7 (PERF.md, "Scaling").
//! `cargo run --release --example profile_scaling` (the 10^7 IL row needs ~3 GB and ~30 s).

use ilkit::cfg::{BlockIdx, Cfg, Term};
use ilkit::graph::dom::DomTree;
use ilkit::graph::rpo::Rpo;
use ilkit::graph::tarjan::Tarjan;
use ilkit::graph::Csr;
use ilkit::il::synth::{generate, Rng};
use ilkit::il::{Eix, Flag};
use ilkit::walk::keep::{device_roots, mark_from};
use std::time::Instant;

fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    println!(
        "| IL entries | generate ns/entry | mark ns/edge | walk ns/entry | write+read ns/entry |"
    );
    println!("|---|---|---|---|---|");
    for scale in [0.1, 1.0, 10.0, 100.0] {
        let t = Instant::now();
        let mut il = generate(1, scale);
        let gen = t.elapsed().as_secs_f64();
        let n = il.len() as f64;
        let roots = device_roots(&il);
        let mut edges = 0usize;
        let mark = best(3, || {
            il.flag_column_mut(Flag::KeepInIl).clear();
            il.flag_column_mut(Flag::KeepDefinition).clear();
            mark_from(&mut il, roots.clone())
        });
        for e in il.flag_column(Flag::KeepInIl).iter() {
            edges += il.children(Eix::new(e)).len() + il.refs(Eix::new(e)).len();
        }
        struct Count(usize);
        impl ilkit::walk::Callbacks for Count {
            const HAS_ENTRY: bool = true;
            fn entry(
                &mut self,
                _: &mut ilkit::il::Il,
                _: Eix,
                _: ilkit::il::EntryKind,
            ) -> Option<Eix> {
                self.0 += 1;
                None
            }
        }
        let mut w = ilkit::walk::Walker::new();
        let walk = best(3, || {
            let mut c = Count(0);
            w.walk_file_scope_il(&mut il, &mut c, 0).unwrap();
            c.0
        });
        let io = best(1, || {
            let b = ilkit::import::binary_il::write_il(&mut il, false).unwrap();
            ilkit::import::binary_il::read_il(&b).unwrap().len()
        });
        println!(
            "| {} | {:.0} | {:.1} | {:.0} | {:.0} |",
            il.len(),
            gen * 1e9 / n,
            mark * 1e9 / edges as f64,
            walk * 1e9 / n,
            io * 1e9 / n
        );
    }

    println!();
    println!("| nodes | Tarjan ns/(node+edge), random graph with 4 edges per node |");
    println!("|---|---|");
    for n in [10_000usize, 100_000, 1_000_000] {
        let mut rng = Rng::new(n as u64);
        let edges: Vec<(u32, u32)> = (0..4 * n)
            .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32))
            .collect();
        let g = Csr::from_edges(n, &edges).unwrap();
        let mut t = Tarjan::default();
        let s = best(3, || {
            t.compute(&g);
            t.num_sccs()
        });
        println!("| {n} | {:.1} |", s * 1e9 / (5 * n) as f64);
    }

    println!();
    println!("| blocks | RPO + idom (auto) ns/block, loop-nest CFG |");
    println!("|---|---|");
    for n in [10_000usize, 100_000, 1_000_000] {
        // A chain with forward branches and nested back edges, like compiled loops.
        let succs: Vec<Vec<BlockIdx>> = (0..n)
            .map(|i| {
                let mut s = vec![];
                if i + 1 < n {
                    s.push(BlockIdx::new(i + 1));
                }
                if i % 8 == 7 {
                    s.push(BlockIdx::new(i - 7));
                }
                if i % 64 == 63 {
                    s.push(BlockIdx::new(i - 63));
                }
                if i % 5 == 0 && i + 3 < n {
                    s.push(BlockIdx::new(i + 3));
                }
                s
            })
            .collect();
        let cfg = Cfg::from_parts(
            "f".into(),
            (0..n).map(|i| format!("b{i}")).collect(),
            vec![u32::MAX; n],
            vec![Term::Fallthrough; n],
            vec![vec![]; n],
            &succs,
        )
        .unwrap();
        let mut rpo = Rpo::new();
        let mut dom = DomTree::new();
        let s = best(3, || {
            rpo.compute(&cfg);
            dom.compute_auto(&cfg, &rpo);
        });
        println!("| {n} | {:.1} |", s * 1e9 / n as f64);
    }
}
