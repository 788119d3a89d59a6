//! Pipeline text: `cgscc(devirt<5>(inline,function-attrs))`,
//! `cgscc(nv-early-inliner,argpromotion)`, `cgscc(inline,function(print-size))`.
//!
//! Grammar (LLVM's `PassBuilder::parsePipelineText`):
//! ```text
//! list    := element (',' element)*
//! element := name ['<' params '>'] ['(' list ')']
//! ```
//! The outermost element may be `cgscc(...)`; a bare list is taken as CGSCC passes.
//! Errors carry the 1-based column of the offending character. Parsing is iterative
//! (an explicit stack), so deep nesting cannot overflow the native stack.
//!
//! A pass LLVM registers that ilkit does not implement (`argpromotion`,
//! `attributor-cgscc`, `openmp-opt-cgscc`, `coro-split`, ...: [`NOT_IMPLEMENTED`]) is an
//! error naming it, unless the caller allows it to do nothing on purpose
//! ([`parse_pipeline_allowing`], the CLI's `--allow-noop NAME`).
//!
//! [`preset`] builds the CGSCC invocations of an optimization level the way the seed's
//! pipeline factory does, from the passes ilkit implements.

use super::inliner::InlinerPass;
use super::{
    attrs::FunctionAttrs, CgsccPass, DevirtRepeated, FunctionAdaptor, FunctionPass, NoOpFunction,
    NoOpPass, PrintSize,
};

/// A pipeline text error at a 1-based column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    /// 1-based column (in characters).
    pub column: usize,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for PipelineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pipeline:{}: {}", self.column, self.message)
    }
}

impl std::error::Error for PipelineError {}

impl PipelineError {
    /// The error with the text and a caret under the column.
    pub fn render(&self, text: &str) -> String {
        format!(
            "{self}\n  {text}\n  {}^",
            " ".repeat(self.column.saturating_sub(1))
        )
    }
}

/// CGSCC passes ilkit implements (besides `devirt<N>(...)` and `function(...)`); the
/// parser also knows [`NOT_IMPLEMENTED`].
pub const CGSCC_PASSES: &[&str] = &[
    "inline",
    "nv-early-inliner",
    "inliner-wrapper",
    "function-attrs",
    "no-op-cgscc",
];

/// Registered CGSCC passes ilkit does not implement: naming one is an error unless it is
/// allowed to do nothing ([`parse_pipeline_allowing`]).
pub const NOT_IMPLEMENTED: &[&str] = &[
    "argpromotion",
    "attributor-cgscc",
    "attributor-light-cgscc",
    "openmp-opt-cgscc",
    "coro-annotation-elide",
    "coro-split",
];

/// The optimization levels [`preset`] knows.
pub const PRESETS: &[&str] = &["O1", "O2", "O3", "tier3"];

/// The CGSCC invocations of optimization level `level` (`O1`, `O2`, `O3`, `tier3`) as the
/// seed's pipeline factory makes them, each a pipeline text over the passes ilkit
/// implements (the inliner and `function-attrs`): at O1 to O3 the CGSCC pass manager runs
/// four times (pipeline IDs 1: early, after DSE/GVN/MemCpyOpt, after ADCE/JumpThreading,
/// and late after Sink), each with one devirtualization iteration; tier 3 adds the
/// five-iteration invocation at the vectorizer-start extension point (pipeline ID 5).
/// `None` for another level.
pub fn preset(level: &str) -> Option<Vec<String>> {
    let one = "cgscc(devirt<1>(inline,function-attrs))".to_string();
    match level {
        "O1" | "O2" | "O3" => Some(vec![one; 4]),
        "tier3" => {
            let mut v = vec![one; 4];
            v.push("cgscc(devirt<5>(inline,function-attrs))".to_string());
            Some(v)
        }
        _ => None,
    }
}

/// Function passes the adaptor knows.
pub const FUNCTION_PASSES: &[&str] = &["no-op-function", "print-size"];

/// A parsed element: name, parameter text, nested elements, columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// Pass name.
    pub name: String,
    /// Text between `<` and `>` (if any).
    pub params: Option<String>,
    /// Nested list (if any).
    pub inner: Option<Vec<Element>>,
    /// Column of the name.
    pub column: usize,
    /// Column of the parameters (after `<`).
    pub params_column: usize,
}

fn err(column: usize, message: impl Into<String>) -> PipelineError {
    PipelineError {
        column,
        message: message.into(),
    }
}

/// Parses the element tree (no name checking).
pub fn parse_elements(text: &str) -> Result<Vec<Element>, PipelineError> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    // stack of (open paren column, list so far); the current element list is on top
    let mut stack: Vec<(usize, Vec<Element>)> = vec![(0, Vec::new())];
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        // an element
        let start = i;
        while i < chars.len() && !"<>(),".contains(chars[i]) && !chars[i].is_whitespace() {
            i += 1;
        }
        if i == start {
            return Err(match chars.get(i) {
                None => err(i + 1, "expected a pass name, found end of text"),
                Some(c) => err(i + 1, format!("expected a pass name, found '{c}'")),
            });
        }
        let name: String = chars[start..i].iter().collect();
        skip_ws(&mut i);
        let mut params = None;
        let mut params_column = 0;
        if chars.get(i) == Some(&'<') {
            let open = i;
            i += 1;
            params_column = i + 1;
            let ps = i;
            let mut depth = 1;
            while i < chars.len() {
                match chars[i] {
                    '<' => depth += 1,
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err(err(open + 1, "unbalanced '<': missing '>'"));
            }
            params = Some(chars[ps..i].iter().collect());
            i += 1;
            skip_ws(&mut i);
        }
        let el = Element {
            name,
            params,
            inner: None,
            column: start + 1,
            params_column,
        };
        if chars.get(i) == Some(&'(') {
            stack.last_mut().unwrap().1.push(el);
            stack.push((i + 1, Vec::new()));
            i += 1;
            continue;
        }
        stack.last_mut().unwrap().1.push(el);
        // after an element: ',' ')' or end
        loop {
            skip_ws(&mut i);
            match chars.get(i) {
                Some(',') => {
                    i += 1;
                    break;
                }
                Some(')') => {
                    if stack.len() == 1 {
                        return Err(err(i + 1, "unbalanced ')': no matching '('"));
                    }
                    let (_, list) = stack.pop().unwrap();
                    let parent = stack.last_mut().unwrap();
                    parent.1.last_mut().unwrap().inner = Some(list);
                    i += 1;
                }
                None => {
                    if stack.len() > 1 {
                        let (open, _) = stack.last().unwrap();
                        return Err(err(*open, "unbalanced '(': missing ')'"));
                    }
                    return Ok(stack.pop().unwrap().1);
                }
                Some(c) => return Err(err(i + 1, format!("expected ',' or ')', found '{c}'"))),
            }
        }
    }
}

/// Parses pipeline text into CGSCC passes; a pass ilkit does not implement is an error.
pub fn parse_pipeline(text: &str) -> Result<Vec<Box<dyn CgsccPass>>, PipelineError> {
    parse_pipeline_allowing(text, &[])
}

/// Parses pipeline text into CGSCC passes; the passes of [`NOT_IMPLEMENTED`] named in
/// `allow_noop` do nothing, the others are errors.
pub fn parse_pipeline_allowing(
    text: &str,
    allow_noop: &[String],
) -> Result<Vec<Box<dyn CgsccPass>>, PipelineError> {
    let mut els = parse_elements(text)?;
    if els.len() == 1 && els[0].name == "cgscc" {
        let e = els.pop().unwrap();
        if e.params.is_some() {
            return Err(err(e.params_column, "'cgscc' takes no parameters"));
        }
        els = e
            .inner
            .ok_or_else(|| err(e.column, "'cgscc' needs a pass list: cgscc(...)"))?;
    }
    build_cgscc(&els, allow_noop)
}

fn build_cgscc(
    els: &[Element],
    allow_noop: &[String],
) -> Result<Vec<Box<dyn CgsccPass>>, PipelineError> {
    let mut out: Vec<Box<dyn CgsccPass>> = Vec::new();
    for e in els {
        let no_params = |e: &Element| match e.params {
            Some(_) => Err(err(
                e.params_column,
                format!("pass '{}' takes no parameters", e.name),
            )),
            None => Ok(()),
        };
        let no_inner = |e: &Element| match e.inner {
            Some(_) => Err(err(
                e.column,
                format!("pass '{}' takes no nested pipeline", e.name),
            )),
            None => Ok(()),
        };
        match e.name.as_str() {
            "devirt" => {
                let p = e
                    .params
                    .as_deref()
                    .ok_or_else(|| err(e.column, "'devirt' needs a count: devirt<N>(...)"))?;
                let max: u32 = p.trim().parse().map_err(|_| {
                    err(
                        e.params_column,
                        format!("invalid devirt count '{p}': expected a number"),
                    )
                })?;
                let inner = e
                    .inner
                    .as_deref()
                    .ok_or_else(|| err(e.column, "'devirt' needs a pass list: devirt<N>(...)"))?;
                out.push(Box::new(DevirtRepeated {
                    max,
                    passes: build_cgscc(inner, allow_noop)?,
                }));
            }
            "function" => {
                no_params(e)?;
                let inner = e
                    .inner
                    .as_deref()
                    .ok_or_else(|| err(e.column, "'function' needs a pass list: function(...)"))?;
                let mut passes: Vec<Box<dyn FunctionPass>> = Vec::new();
                for f in inner {
                    no_params(f)?;
                    no_inner(f)?;
                    passes.push(match f.name.as_str() {
                        "no-op-function" => Box::new(NoOpFunction),
                        "print-size" => Box::new(PrintSize),
                        other => {
                            return Err(err(f.column, format!("unknown function pass '{other}'")))
                        }
                    });
                }
                out.push(Box::new(FunctionAdaptor { passes }));
            }
            "inline" | "nv-early-inliner" | "inliner-wrapper" => {
                no_inner(e)?;
                let only_mandatory = match e.params.as_deref() {
                    None => false,
                    Some("only-mandatory") => true,
                    Some(p) => {
                        return Err(err(
                            e.params_column,
                            format!("invalid inline parameter '{p}': expected 'only-mandatory'"),
                        ))
                    }
                };
                out.push(Box::new(InlinerPass {
                    name: e.name.clone(),
                    only_mandatory,
                }));
            }
            "function-attrs" => {
                no_params(e)?;
                no_inner(e)?;
                out.push(Box::new(FunctionAttrs));
            }
            name if NOT_IMPLEMENTED.contains(&name) && !allow_noop.iter().any(|a| a == name) => {
                return Err(err(
                    e.column,
                    format!(
                        "pass '{name}' is known but ilkit does not implement it \
                         (--allow-noop {name} runs it as a no-op)"
                    ),
                ));
            }
            name if name == "no-op-cgscc" || NOT_IMPLEMENTED.contains(&name) => {
                // LLVM's no-op pass, and an allowed pass ilkit does not implement
                no_params(e)?;
                no_inner(e)?;
                out.push(Box::new(NoOpPass(name.to_string())));
            }
            "cgscc" => return Err(err(e.column, "'cgscc' may only be the outermost element")),
            other => return Err(err(e.column, format!("unknown cgscc pass '{other}'"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(t: &str) -> Vec<String> {
        parse_pipeline(t)
            .unwrap()
            .iter()
            .map(|p| p.name())
            .collect()
    }

    #[test]
    fn parses_nested() {
        assert_eq!(
            names("cgscc(devirt<5>(inline,function-attrs))"),
            ["devirt<5>"]
        );
        let allowed = parse_pipeline_allowing(
            "cgscc(nv-early-inliner, argpromotion)",
            &["argpromotion".to_string()],
        )
        .unwrap();
        let allowed: Vec<String> = allowed.iter().map(|p| p.name()).collect();
        assert_eq!(allowed, ["nv-early-inliner", "argpromotion"]);
        let e = parse_pipeline("cgscc(nv-early-inliner, argpromotion)")
            .err()
            .unwrap();
        assert_eq!(e.column, 25);
        assert!(e.message.contains("--allow-noop argpromotion"), "{e}");
        assert_eq!(names("cgscc(no-op-cgscc)"), ["no-op-cgscc"]);
        assert_eq!(
            names("inline,function(print-size)"),
            ["inline", "function(print-size)"]
        );
    }

    #[test]
    fn presets_parse_and_nest_their_devirt_counts() {
        for level in PRESETS {
            let p = preset(level).unwrap();
            assert!(p.len() >= 4, "{level}");
            for t in &p {
                assert!(parse_pipeline(t).is_ok(), "{t}");
            }
        }
        assert_eq!(
            preset("O2").unwrap()[0],
            "cgscc(devirt<1>(inline,function-attrs))"
        );
        assert!(preset("tier3")
            .unwrap()
            .last()
            .unwrap()
            .contains("devirt<5>"));
        assert!(preset("O4").is_none());
    }

    #[test]
    fn errors_point_at_column() {
        let e = parse_pipeline("cgscc(inline,bogus)").err().unwrap();
        assert_eq!(
            (e.column, e.message.as_str()),
            (14, "unknown cgscc pass 'bogus'")
        );
        let e = parse_pipeline("cgscc(devirt<5>(inline)").err().unwrap();
        assert_eq!(e.column, 6); // the outer `cgscc(` is the one left open
        assert!(e.message.contains("missing ')'"));
        let e = parse_pipeline("cgscc(inline))").err().unwrap();
        assert_eq!(e.column, 14);
        let e = parse_pipeline("cgscc(devirt<x>(inline))").err().unwrap();
        assert_eq!(e.column, 14);
    }
}
