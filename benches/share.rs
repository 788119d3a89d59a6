//! Constant sharing lookups on a stream of 10^6 constants with realistic duplication
//! (mostly a few small integers, some fresh integers, strings, floats, two integer
//! types), against a `HashMap<OwnedConstant, u32>` with ahash and the `hashconsing` crate
//! (its default `HConsign`), in the same run. `ilkit_sharing` uses every core (the memo is
//! read on rayon's threads); `ilkit_sharing_one_thread` is the same call on one thread. `main` first checks that all three produce
//! the same dedup partition.

use divan::{black_box, counter::ItemsCount, Bencher};
use hashconsing::{HConsign, HashConsign};
use ilkit::il::synth::Rng;
use ilkit::il::{fields as F, kinds, ConstantKind, Eix, EntryId, EntryKind, Il, TypeKind};
use ilkit::share::ConstantSharing;
use std::collections::HashMap;

const N: usize = 1_000_000;

/// The baseline's owned constant: every field sharing compares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct OwnedConstant {
    kind: ConstantKind,
    ty: u32,
    value: i64,
    value2: i64,
    flags: u8,
    sub: u8,
    /// `None` for non-strings: comparing empty boxed slices calls memcmp on a dangling
    /// pointer, which is pathologically slow on the AVX-512 memcmp of this machine.
    text: Option<Box<[u8]>>,
}

struct Stream {
    il: Il,
    locals: Vec<Eix>,
    owned: Vec<OwnedConstant>,
}

/// The stream: `n` constants in file scope, and the same values as owned keys.
fn file_scope_stream(n: usize) -> Stream {
    let mut il = Il::new();
    let mut types: Vec<EntryId> = Vec::new();
    for (name, size) in [("int", 4u64), ("long", 8), ("double", 8)] {
        let t = il.alloc(EntryKind::Type).unwrap();
        il.set_string(t, 0, name.as_bytes()).unwrap();
        let k = if name == "double" {
            TypeKind::Float
        } else {
            TypeKind::Integer
        };
        kinds::set_type_kind(&mut il, t, k).unwrap();
        let e = il.eix(t).unwrap();
        il.ty_mut(e).set_size(size);
        types.push(t);
    }
    let mut rng = Rng::new(7);
    let mut locals = Vec::with_capacity(n);
    let mut owned = Vec::with_capacity(n);
    let strings: [&[u8]; 4] = [b"hello", b"ab\0cd", b"%d\n", b"cuda"];
    for _ in 0..n {
        let roll = rng.below(100);
        use ConstantKind as C;
        let (kind, ty, value, text): (C, usize, i64, &[u8]) = match roll {
            0..=69 => (C::Integer, 0, rng.below(16) as i64, b""),
            70..=84 => (C::Integer, 0, rng.below(1000) as i64, b""),
            85..=89 => (C::Integer, 1, rng.below(64) as i64, b""),
            90..=94 => (C::String, 0, 0, strings[rng.below(4) as usize]),
            _ => (
                C::Float,
                2,
                (rng.below(32) as f64 * 0.5).to_bits() as i64,
                b"",
            ),
        };
        let c = il.alloc(EntryKind::Constant).unwrap();
        kinds::set_constant_kind(&mut il, c, kind).unwrap();
        let e = il.eix(c).unwrap();
        il.constant_mut(e).set_value(value);
        if kind == C::String {
            il.set_string(c, 0, text).unwrap();
            il.constant_mut(e).set_text_len(text.len() as u32);
        }
        il.set_child(c, F::CONSTANT_TYPE, Some(types[ty])).unwrap();
        locals.push(e);
        owned.push(OwnedConstant {
            kind,
            ty: ty as u32,
            value,
            value2: 0,
            flags: 0,
            sub: 0,
            text: (kind == C::String).then(|| text.into()),
        });
    }
    Stream { il, locals, owned }
}

/// One `share_eix` call per constant.
fn ilkit_share_one_by_one(il: &mut Il, locals: &[Eix]) -> Vec<Eix> {
    let mut s = ConstantSharing::new();
    locals
        .iter()
        .map(|&e| s.share_eix(il, e, false).unwrap())
        .collect()
}

/// `share_many` over the stream.
fn ilkit_share(il: &mut Il, locals: &[Eix]) -> (Vec<Eix>, ConstantSharing) {
    let mut s = ConstantSharing::new();
    let mut out = Vec::with_capacity(locals.len());
    s.share_many(il, locals, false, &mut out).unwrap();
    (out, s)
}

fn hashmap_share(owned: &[OwnedConstant]) -> Vec<u32> {
    let mut map: HashMap<OwnedConstant, u32, ahash::RandomState> = HashMap::default();
    let mut out = Vec::with_capacity(owned.len());
    for k in owned {
        let id = match map.get(k) {
            Some(&id) => id,
            None => {
                let id = map.len() as u32;
                map.insert(k.clone(), id);
                id
            }
        };
        out.push(id);
    }
    out
}

/// The baseline's key for entry `e`, read from the IL's columns (what a
/// `HashMap`-based sharing table has to build per lookup).
fn owned_key(il: &Il, e: Eix) -> OwnedConstant {
    let t = il.constant(e);
    let kind = t.constant_kind();
    OwnedConstant {
        kind,
        ty: il
            .child_eix(e, F::CONSTANT_TYPE)
            .map_or(u32::MAX, |t| t.raw()),
        value: t.value(),
        value2: t.value2(),
        flags: t.ptm_flags(),
        sub: t.sub_kind(),
        text: (kind == ConstantKind::String).then(|| t.text().into()),
    }
}

fn hashmap_share_from_il(il: &Il, locals: &[Eix]) -> Vec<u32> {
    let mut map: HashMap<OwnedConstant, u32, ahash::RandomState> = HashMap::default();
    let mut out = Vec::with_capacity(locals.len());
    for &e in locals {
        let k = owned_key(il, e);
        let id = match map.get(&k) {
            Some(&id) => id,
            None => {
                let id = map.len() as u32;
                map.insert(k, id);
                id
            }
        };
        out.push(id);
    }
    out
}

fn hashconsing_share(owned: &[OwnedConstant]) -> Vec<hashconsing::HConsed<OwnedConstant>> {
    let mut f: HConsign<OwnedConstant> = HConsign::empty();
    let mut out = Vec::with_capacity(owned.len());
    for k in owned {
        out.push((&mut f).mk(k.clone()));
    }
    out
}

/// Canonical partition labels: the index of the first element with the same id.
fn labels<T: std::hash::Hash + Eq>(ids: impl Iterator<Item = T>) -> Vec<usize> {
    let mut first = HashMap::new();
    ids.enumerate()
        .map(|(i, id)| *first.entry(id).or_insert(i))
        .collect()
}

fn main() {
    let mut s = file_scope_stream(N);
    let mut one_il = s.il.clone();
    let (ours, table) = ilkit_share(&mut s.il, &s.locals);
    let base = hashmap_share(&s.owned);
    let hc = hashconsing_share(&s.owned);
    let fi = hashmap_share_from_il(&s.il, &s.locals);
    assert_eq!(labels(fi.iter().copied()), labels(base.iter().copied()));
    let a = labels(ours.iter().copied());
    assert_eq!(ilkit_share_one_by_one(&mut one_il, &s.locals), ours);
    let b = labels(base.iter().copied());
    let c = labels(hc.iter().map(|h| h.uid()));
    assert_eq!(a, b, "ilkit and HashMap dedup differ");
    assert_eq!(b, c, "HashMap and hashconsing dedup differ");
    println!(
        "stream of {N}: {} distinct constants; ilkit counters {:?}; identical dedup in all three",
        table.len(),
        table.counters
    );
    if std::env::var_os("ILKIT_SHARE_TIMING").is_some() {
        let reps: usize = std::env::var("ILKIT_SHARE_REPS").map_or(1, |v| v.parse().unwrap());
        let mut il = s.il.clone();
        let small = &s.locals[..N / reps];
        let t = std::time::Instant::now();
        for _ in 0..reps {
            black_box(ilkit_share(&mut il, small).0.len());
        }
        let t2 = std::time::Instant::now();
        for _ in 0..reps {
            black_box(hashmap_share(&s.owned[..N / reps]).len());
        }
        println!(
            "{reps} reps of {}: ilkit {:?} hashmap {:?}",
            N / reps,
            t2 - t,
            t2.elapsed()
        );
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let n = ilkit_share(&mut il, &s.locals).0.len();
            let a = t.elapsed();
            let t = std::time::Instant::now();
            let m = hashmap_share_from_il(&s.il, &s.locals).len();
            println!("ilkit {a:?} ({n}), hashmap from il {:?} ({m})", t.elapsed());
        }
        return;
    }
    divan::main();
}

fn inputs() -> Stream {
    file_scope_stream(N)
}

/// ilkit: `ConstantSharing::share_many` over the stream (misses copy into file scope), on
/// rayon's pool (all cores).
#[divan::bench(sample_count = 10)]
fn ilkit_sharing(b: Bencher) {
    // One live world for all samples: each sample starts an empty table, so every sample
    // re-adds the ~1100 canonical constants (a few KB). Cloning per sample would hand the
    // loop exact-capacity columns whose first growth reallocates 10^6-row columns.
    let s = inputs();
    let mut il = s.il.clone();
    b.counter(ItemsCount::new(N))
        .bench_local(|| black_box(ilkit_share(&mut il, &s.locals).0.len()));
}

/// ilkit: `share_many` on a one-thread pool (the memo runs on the calling thread only).
#[divan::bench(sample_count = 10)]
fn ilkit_sharing_one_thread(b: Bencher) {
    let s = inputs();
    let mut il = s.il.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    b.counter(ItemsCount::new(N))
        .bench_local(|| pool.install(|| black_box(ilkit_share(&mut il, &s.locals).0.len())));
}

/// ilkit, one `share_eix` call per constant.
#[divan::bench(sample_count = 10)]
fn ilkit_sharing_one_by_one(b: Bencher) {
    let s = inputs();
    let mut il = s.il.clone();
    b.counter(ItemsCount::new(N))
        .bench_local(|| black_box(ilkit_share_one_by_one(&mut il, &s.locals).len()));
}

/// Baseline: `HashMap<OwnedConstant, u32>` with ahash over prebuilt owned keys (get,
/// insert a clone on a miss).
#[divan::bench(sample_count = 10)]
fn hashmap_ahash(b: Bencher) {
    let s = inputs();
    b.counter(ItemsCount::new(N))
        .bench_local(|| black_box(hashmap_share(&s.owned).len()));
}

/// Baseline: `HashMap<OwnedConstant, u32>` with ahash, building each key from the IL
/// entry's columns (the same input ilkit reads).
#[divan::bench(sample_count = 10)]
fn hashmap_ahash_from_il(b: Bencher) {
    let s = inputs();
    b.counter(ItemsCount::new(N))
        .bench_local(|| black_box(hashmap_share_from_il(&s.il, &s.locals).len()));
}

/// Baseline: the `hashconsing` crate's `HConsign` (`mk` per element).
#[divan::bench(sample_count = 10)]
fn hashconsing_crate(b: Bencher) {
    let s = inputs();
    b.counter(ItemsCount::new(N))
        .bench_local(|| black_box(hashconsing_share(&s.owned).len()));
}
