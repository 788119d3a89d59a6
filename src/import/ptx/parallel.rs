//! Parsing a large PTX module in pieces on rayon's pool: cut at top-level declarations,
//! parsed independently, merged in text order — the same module and the same errors as
//! one pass.

use super::{parse, parse_piece, Module, ParseError};

/// Text below this size is parsed in one piece.
const PARALLEL_MIN_BYTES: usize = 256 << 10;

/// Offsets where a top-level declaration starts on a line of its own (bracket depth 0,
/// outside comments and strings), the places a module can be cut into independent
/// pieces. O(text).
fn top_level_line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut depth) = (0usize, 0u32);
    let mut at_line_start = true;
    while i < b.len() {
        let c = b[i];
        if at_line_start && depth == 0 && c == b'.' && i > 0 {
            out.push(i);
        }
        at_line_start = false;
        match c {
            b'\n' => at_line_start = true,
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// [`parse`] for large modules: the text is cut at top-level declarations into pieces
/// parsed on rayon's pool and merged in text order (functions and globals concatenated,
/// the last `.version` / `.target` / `.address_size` winning, as one pass reads them).
/// Any error in any piece reparses the whole text in one pass, so errors are exactly
/// the sequential reader's. Same result as [`parse`] (tested).
pub fn parse_parallel(file: &str, text: &str) -> Result<Module, ParseError> {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads();
    if text.len() < PARALLEL_MIN_BYTES || threads < 2 {
        return parse(file, text);
    }
    let starts = top_level_line_starts(text);
    let want = (threads * 4).max(2);
    let step = text.len() / want;
    let mut cuts = vec![0usize];
    for &s in &starts {
        if s >= cuts[cuts.len() - 1] + step {
            cuts.push(s);
        }
    }
    if cuts.len() < 2 {
        return parse(file, text);
    }
    cuts.push(text.len());
    // Line number of each cut (1-based).
    let mut lines = Vec::with_capacity(cuts.len());
    let (mut line, mut from) = (1u32, 0usize);
    for &c in &cuts {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[from..c]).count() as u32;
        lines.push(line);
        from = c;
    }
    let pieces: Vec<Result<Module, ParseError>> = (0..cuts.len() - 1)
        .into_par_iter()
        .map(|k| parse_piece(file, &text[..cuts[k + 1]], cuts[k], lines[k]))
        .collect();
    let mut m = Module::default();
    for p in pieces {
        let Ok(p) = p else {
            return parse(file, text);
        };
        m.version = p.version.or(m.version);
        m.target = p.target.or(m.target);
        m.address_size = p.address_size.or(m.address_size);
        m.functions.extend(p.functions);
        m.globals.extend(p.globals);
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Cfg;
    use crate::import::ptx::build_cfg;

    /// A module over the parallel threshold: the default corpus's PTX, its functions
    /// repeated under new names, with a multi-line global and a comment between them.
    fn big_module() -> String {
        let base = include_str!("../../../data/default/adler32.ptx");
        let body_at = base.find(".visible").unwrap();
        let (head, body) = base.split_at(body_at);
        let mut text = head.to_string();
        let mut k = 0;
        while text.len() < 2 * PARALLEL_MIN_BYTES {
            text.push_str(&format!(
                ".global .align 4 .b8 tbl{k}[4] = {{1,\n2, 3, 4}};\n/* piece {k} */\n"
            ));
            text.push_str(&body.replace("adler32", &format!("adler32_{k}")));
            k += 1;
        }
        text
    }

    #[test]
    fn pieces_merge_to_the_one_pass_module() {
        let text = big_module();
        let one = parse("big.ptx", &text).unwrap();
        let par = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| parse_parallel("big.ptx", &text).unwrap());
        assert!(one.functions.len() > 20);
        assert_eq!(format!("{one:?}"), format!("{par:?}"));
        let cfgs = Cfg::from_ptx_str("big.ptx", &text).unwrap();
        let seq: Vec<Cfg> = one
            .functions
            .iter()
            .filter(|f| f.has_body)
            .map(build_cfg)
            .collect();
        assert_eq!(format!("{cfgs:?}"), format!("{seq:?}"));
    }

    #[test]
    fn errors_are_the_one_pass_errors() {
        let mut text = big_module();
        let at = text.len() * 3 / 4;
        let at = text[at..].find("\tbra").unwrap() + at;
        text.insert_str(at, "\t@@ bogus;\n");
        let one = parse("big.ptx", &text).unwrap_err();
        let par = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| parse_parallel("big.ptx", &text).unwrap_err());
        assert_eq!(one, par);
        assert!(one.line > 1000, "{one}");
    }

    #[test]
    fn cuts_skip_brackets_comments_and_strings() {
        let t = ".a\n.b (\n.c\n)\n/* x\n.d */\n\".e\n\"\n.f {\n.g\n}\n.h\n";
        let cut: Vec<&str> = top_level_line_starts(t)
            .iter()
            .map(|&i| &t[i..i + 2])
            .collect();
        assert_eq!(cut, [".b", ".f", ".h"]);
    }
}
