//! Parsing one large module on several threads.
//!
//! The text is cut into stretches at lines that begin with `define ` (after the first
//! stretch, which holds the module header), each stretch is parsed on rayon's pool by its
//! own parser, and the pieces are merged in text order. Symbols, constants and function
//! types are interned on first appearance, so merging each piece's own tables in text
//! order, keeping what is new, numbers everything as one pass over the whole text would:
//! the module is the same as [`super::parse_sequential`]'s (tested on the corpus). When
//! any piece fails (or a symbol is defined in two pieces) the text is parsed again in one
//! pass, so errors are exactly the sequential parser's.
//!
//! Cost: the pieces' parses in parallel, plus a merge linear in the symbols, constants
//! and operand events of the module (hash lookups per symbol, constant and type), made
//! by the calling thread as the pieces are parsed, in order, between pieces it parses
//! itself: only the last pieces' merge follows the parsing.

use super::{finish_module, parse_sequential_spans, ParseError, Parser, Spans};
use crate::idx::IndexVec;
use crate::llvm::{
    AliasIdx, Callee, ConstIdx, ConstKind, FuncIdx, GlobalIdx, Module, OperandRef, SigIdx,
    SymbolDef, SymbolIdx,
};
use ahash::AHashMap;
use rayon::prelude::*;

/// Texts smaller than this are parsed in one pass (the split and merge would not pay).
pub const MIN_PARALLEL_BYTES: usize = 1 << 20;

/// Smallest stretch worth a parser of its own.
const MIN_PIECE_BYTES: usize = 256 << 10;

/// Pieces per thread. Many small pieces keep both the parsers and the in-order merge
/// busy to the end: with four per thread a 10 MB module's last piece left the other
/// thread idle for about a piece's parse (1.5–2 ms of 11); with sixteen the pass is
/// about 1.5 ms shorter on two threads, and the merge (symbols a piece names again)
/// grows by a few per cent.
const PIECES_PER_THREAD: usize = 16;

/// Parses `text` by pieces on rayon's pool; the result equals
/// [`super::parse_sequential`]'s.
pub fn parse(file: &str, text: &str) -> Result<Module, ParseError> {
    parse_spans(file, text, false).map(|(m, _)| m)
}

/// [`parse`], also returning where the items begin; with `skip_bodies` the function
/// bodies are stepped over.
pub(super) fn parse_spans(
    file: &str,
    text: &str,
    skip_bodies: bool,
) -> Result<(Module, Spans), ParseError> {
    let starts = split(text, rayon::current_num_threads());
    if starts.len() < 2 {
        return parse_sequential_spans(file, text, skip_bodies);
    }
    // The line each piece starts on: newlines per piece, counted in parallel.
    let mut ends: Vec<usize> = starts[1..].to_vec();
    ends.push(text.len());
    let newlines: Vec<u32> = starts
        .par_iter()
        .zip(&ends)
        .map(|(&a, &b)| memchr::memchr_iter(b'\n', &text.as_bytes()[a..b]).count() as u32)
        .collect();
    let mut line = 1u32;
    let lines: Vec<u32> = newlines
        .iter()
        .map(|&n| {
            let l = line;
            line += n;
            l
        })
        .collect();
    // the pieces merged in text order as they are parsed; a piece that fails, or a
    // symbol defined in two pieces, sends the text to the one-pass parser
    let mut g = Merger::default();
    let mut merged = true;
    super::in_order(
        starts.len(),
        |k| {
            let mut p = Parser::at(file, &text[..ends[k]], starts[k], lines[k]);
            p.skip_bodies = skip_bodies;
            p.module().ok().map(|()| p)
        },
        |piece| {
            merged = merged && piece.and_then(|p| g.add(p)).is_some();
        },
    );
    if !merged {
        return parse_sequential_spans(file, text, skip_bodies);
    }
    Ok((finish_module(g.m, g.sym_map, g.annotated), g.spans))
}

/// Where the pieces of `text` start: 0, then lines beginning `define ` chosen so that
/// the pieces come out about equal, [`PIECES_PER_THREAD`] per thread and none under
/// [`MIN_PIECE_BYTES`].
fn split(text: &str, threads: usize) -> Vec<usize> {
    let pieces = (threads * PIECES_PER_THREAD).max(2);
    let target = (text.len() / pieces).max(MIN_PIECE_BYTES);
    let finder = memchr::memmem::Finder::new(b"\ndefine ");
    let mut starts = vec![0usize];
    // each piece starts at the first `define` line at least `target` bytes into the
    // one before: a search from there, not a scan of the whole text
    let mut from = target;
    while from < text.len() {
        let Some(at) = finder.find(&text.as_bytes()[from - 1..]) else {
            break;
        };
        let start = from + at;
        if text.len() - start < target / 2 {
            break;
        }
        starts.push(start);
        from = start + target;
    }
    starts
}

/// The merged module, built piece by piece in text order.
#[derive(Default)]
struct Merger<'a> {
    m: Module,
    sym_map: AHashMap<String, SymbolIdx>,
    sym_const: IndexVec<SymbolIdx, ConstIdx>,
    const_map: AHashMap<(&'a str, &'a str), ConstIdx>,
    sig_map: AHashMap<String, SigIdx>,
    annotated: Vec<String>,
    spans: Spans,
}

impl<'a> Merger<'a> {
    /// The merged symbol of a piece's symbol `name` (the piece's string kept when new).
    fn sym(&mut self, name: String) -> SymbolIdx {
        if let Some(&s) = self.sym_map.get(&name) {
            return s;
        }
        let s = self.m.symbols.push(name.clone());
        self.m.symbol_defs.push(SymbolDef::Undefined);
        self.sym_const.push(ConstIdx::NONE);
        self.sym_map.insert(name, s);
        s
    }

    fn sig(&mut self, text: String) -> SigIdx {
        if let Some(&s) = self.sig_map.get(&text) {
            return s;
        }
        let s = self.m.signatures.push(text.clone());
        self.sig_map.insert(text, s);
        s
    }

    /// Adds one piece; `None` when it defines a symbol an earlier piece defined.
    fn add(&mut self, p: Parser<'a>) -> Option<()> {
        let Parser {
            m: mut piece,
            const_keys,
            annotated_kernels,
            spans,
            ..
        } = p;
        self.spans.extend(spans);
        let Module {
            symbols,
            signatures,
            ..
        } = &mut piece;
        let syms: IndexVec<SymbolIdx, SymbolIdx> = std::mem::take(symbols)
            .into_iter()
            .map(|name| self.sym(name))
            .collect();
        let sigs: IndexVec<SigIdx, SigIdx> = std::mem::take(signatures)
            .into_iter()
            .map(|t| self.sig(t))
            .collect();
        let (f0, g0) = (self.m.functions.len(), self.m.globals.len());
        let (a0, i0) = (self.m.aliases.len(), self.m.ifuncs.len());
        for (s, &def) in piece.symbol_defs.iter_enumerated() {
            let g = syms[s];
            let def = match def {
                SymbolDef::Undefined => continue,
                SymbolDef::Function(f) => SymbolDef::Function(FuncIdx::new(f.idx() + f0)),
                SymbolDef::Global(v) => SymbolDef::Global(GlobalIdx::new(v.idx() + g0)),
                SymbolDef::Alias(a) => SymbolDef::Alias(AliasIdx::new(a.idx() + a0)),
                SymbolDef::IFunc(a) => SymbolDef::IFunc(AliasIdx::new(a.idx() + i0)),
            };
            if self.m.symbol_defs[g] != SymbolDef::Undefined {
                return None;
            }
            self.m.symbol_defs[g] = def;
        }
        // Constants in the piece's creation order: symbols by symbol, the rest by key.
        let mut consts: IndexVec<ConstIdx, ConstIdx> = IndexVec::with_capacity(piece.consts.len());
        let mut ops = Vec::new();
        for c in (0..piece.consts.len()).map(ConstIdx::new) {
            let g = match piece.consts.kind(c) {
                ConstKind::Symbol(s) => {
                    let gs = syms[s];
                    if self.sym_const[gs].is_none() {
                        self.sym_const[gs] = self.m.consts.push(ConstKind::Symbol(gs), &[]);
                    }
                    self.sym_const[gs]
                }
                ConstKind::Expr => {
                    let key = const_keys[c.idx()];
                    match self.const_map.get(&key) {
                        Some(&g) => g,
                        None => {
                            ops.clear();
                            ops.extend(piece.consts.operands_of(c).iter().map(|&o| consts[o]));
                            let g = self.m.consts.push(ConstKind::Expr, &ops);
                            self.const_map.insert(key, g);
                            g
                        }
                    }
                }
            };
            consts.push(g);
        }
        let Module {
            source_filename,
            target_triple,
            functions,
            globals,
            aliases,
            ifuncs,
            attr_groups,
            ..
        } = piece;
        if self.m.source_filename.is_none() {
            self.m.source_filename = source_filename;
        }
        if self.m.target_triple.is_none() {
            self.m.target_triple = target_triple;
        }
        for mut f in functions {
            f.sym = syms[f.sym];
            f.signature = sigs[f.signature];
            for c in &mut f.call_sites {
                c.fn_type = sigs[c.fn_type];
                c.callee = match c.callee {
                    Callee::Direct(s) => Callee::Direct(syms[s]),
                    Callee::Const(k) => Callee::Const(consts[k]),
                    other => other,
                };
            }
            for r in &mut f.operand_refs {
                *r = match *r {
                    OperandRef::DirectCall(s, t) => OperandRef::DirectCall(syms[s], sigs[t]),
                    OperandRef::Const(k) => OperandRef::Const(consts[k]),
                };
            }
            self.m.functions.push(f);
        }
        for mut g in globals {
            g.sym = syms[g.sym];
            g.initializer = g.initializer.map(|k| consts[k]);
            self.m.globals.push(g);
        }
        for (list, out) in [(aliases, &mut self.m.aliases), (ifuncs, &mut self.m.ifuncs)] {
            for mut a in list {
                a.sym = syms[a.sym];
                a.target = a.target.map(|k| consts[k]);
                out.push(a);
            }
        }
        self.m.attr_groups.extend(attr_groups);
        self.annotated.extend(annotated_kernels);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module big enough to split, with cross-piece symbols, constants, aliases and a
    /// kernel annotation at the end.
    fn big_module() -> String {
        let mut t = String::from(
            "source_filename = \"big.c\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n\
             @tab = internal constant [2 x ptr] [ptr @f0, ptr @f1], align 8\n",
        );
        for i in 0..4000 {
            t.push_str(&format!(
                "define internal i32 @f{i}(i32 %x) {{\n  %a = call i32 @f{}(i32 %x)\n  \
                 %p = getelementptr inbounds [2 x ptr], ptr @tab, i64 0, i64 1\n  \
                 br label %next\nnext:\n  ret i32 %a\n}}\n",
                (i * 7 + 3) % 4000
            ));
        }
        t.push_str("@al = alias i32 (i32), ptr @f5\n!nvvm.annotations = !{!0}\n!0 = !{ptr @f9, !\"kernel\", i32 1}\n");
        t
    }

    #[test]
    fn pieces_merge_to_the_sequential_module() {
        let text = big_module();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let starts = split(&text, 4);
        assert!(starts.len() > 2, "{starts:?}");
        let par = pool.install(|| parse("big.ll", &text)).unwrap();
        let seq = super::super::parse_sequential("big.ll", &text).unwrap();
        assert!(
            par == seq,
            "the parallel parse differs from the sequential one"
        );
        assert!(
            par.function(par.function_by_name("f9").unwrap())
                .nvvm_kernel
        );
    }

    /// The pieces start where a scan of every `define` line would start them: at the
    /// first one at least the target size into the piece before, leaving at least half
    /// of it for the last piece.
    #[test]
    fn pieces_start_at_the_first_define_line_far_enough() {
        let text = big_module();
        for threads in [1, 2, 3, 4, 8] {
            let target = (text.len() / (threads * PIECES_PER_THREAD).max(2)).max(MIN_PIECE_BYTES);
            let mut want = vec![0usize];
            for at in memchr::memmem::find_iter(text.as_bytes(), b"\ndefine ") {
                let start = at + 1;
                if start - want[want.len() - 1] >= target && text.len() - start >= target / 2 {
                    want.push(start);
                }
            }
            assert_eq!(split(&text, threads), want, "{threads} threads");
        }
    }

    #[test]
    fn errors_are_the_sequential_ones() {
        let mut text = big_module();
        // A redefinition in a later piece, and separately a syntax error.
        let redef = format!("{text}define void @f3() {{\n  ret void\n}}\n");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let a = pool.install(|| parse("big.ll", &redef)).unwrap_err();
        assert_eq!(
            a,
            super::super::parse_sequential("big.ll", &redef).unwrap_err()
        );
        text.push_str("define void @g() {\n  frob\n}\n");
        let b = pool.install(|| parse("big.ll", &text)).unwrap_err();
        assert_eq!(
            b,
            super::super::parse_sequential("big.ll", &text).unwrap_err()
        );
        assert!(b.message.contains("opcode"), "{b}");
    }
}
