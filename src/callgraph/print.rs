//! Printers in LLVM's shapes: `opt -passes=print-lcg` text, `dot-lcg` GraphViz, and a
//! compact JSON of the post-order.

use super::LazyCallGraph;
use std::fmt::Write;

impl LazyCallGraph {
    /// Exactly what `opt -passes=print-lcg` prints: every node's edges (populating all
    /// nodes), then the RefSCCs in post-order (building them).
    pub fn print_text(&mut self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "Printing the call graph for module: {}\n\n",
            self.module_id
        );
        for n in self.nodes() {
            if self.is_removed(n) {
                continue;
            }
            let _ = writeln!(out, "  Edges in function: {}", self.name_in_range(n));
            self.populate(n);
            for e in self.cached_edges(n) {
                let kind = if e.is_call() { "call" } else { "ref " };
                let _ = writeln!(out, "    {kind} -> {}", self.name_in_range(e.target));
            }
            out.push('\n');
        }
        self.build_ref_sccs();
        let order: Vec<_> = self.postorder_refsccs();
        for r in order {
            let sccs = self.refscc_sccs(r);
            let _ = writeln!(out, "  RefSCC with {} call SCCs:", sccs.len());
            for &s in sccs {
                let nodes = self.scc_nodes(s);
                let _ = writeln!(out, "    SCC with {} functions:", nodes.len());
                for &n in nodes {
                    let _ = writeln!(out, "      {}", self.name_in_range(n));
                }
            }
            out.push('\n');
        }
        out
    }

    /// GraphViz text in the shape of LLVM's `dot-lcg` printer (ref edges dashed).
    pub fn print_dot(&mut self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&self.module_id));
        self.dot_edges(" [style=dashed,label=\"ref\"]", "\n", &mut out);
        out.push_str("}\n");
        out
    }

    /// Every live node's edges as DOT lines, ref edges with `ref_attrs`, `after_node`
    /// after each node's lines (populates every node).
    fn dot_edges(&mut self, ref_attrs: &str, after_node: &str, out: &mut String) {
        for n in self.nodes() {
            if self.is_removed(n) {
                continue;
            }
            self.populate(n);
            let name = format!("\"{}\"", dot_escape(self.name_in_range(n)));
            for e in self.cached_edges(n) {
                let _ = write!(
                    out,
                    "  {name} -> \"{}\"",
                    dot_escape(self.name_in_range(e.target))
                );
                if !e.is_call() {
                    out.push_str(ref_attrs);
                }
                out.push_str(";\n");
            }
            out.push_str(after_node);
        }
    }

    /// GraphViz with the structure drawn: one cluster per RefSCC (post-order, labelled
    /// `RefSCC k`), one nested cluster per call SCC inside it, one node per function,
    /// call edges solid and ref edges dashed (populates every node, builds the RefSCCs).
    pub fn print_dot_clusters(&mut self) -> String {
        self.build_ref_sccs();
        let mut out = String::new();
        let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&self.module_id));
        out.push_str("  compound=true;\n  node [shape=box,fontname=\"Courier\",fontsize=10];\n");
        let order: Vec<_> = self.postorder_refsccs();
        for (k, r) in order.into_iter().enumerate() {
            let sccs = self.refscc_sccs(r).to_vec();
            let _ = writeln!(out, "  subgraph cluster_refscc{k} {{");
            let _ = writeln!(
                out,
                "    label=\"RefSCC {k} ({} SCCs)\"; style=dashed; color=\"#808080\";",
                sccs.len()
            );
            for s in sccs {
                let nodes = self.scc_nodes(s);
                let _ = writeln!(out, "    subgraph cluster_scc{} {{", s.0);
                let _ = writeln!(
                    out,
                    "      label=\"SCC {} ({} functions)\"; style=solid; color=\"#2060c0\";",
                    s.0,
                    nodes.len()
                );
                for &n in nodes {
                    let _ = writeln!(out, "      \"{}\";", dot_escape(self.name_in_range(n)));
                }
                out.push_str("    }\n");
            }
            out.push_str("  }\n");
        }
        self.dot_edges(" [style=dashed]", "", &mut out);
        out.push_str("}\n");
        out
    }

    /// `{"refsccs": [{"sccs": [["f", "g"], ["h"]]}, ...]}`: RefSCCs in post-order, SCCs
    /// in post-order inside each, names without `@` or quotes (builds the RefSCCs).
    pub fn print_json(&mut self) -> String {
        self.build_ref_sccs();
        let refsccs: Vec<serde_json::Value> = self
            .postorder_names()
            .into_iter()
            .map(|sccs| serde_json::json!({ "sccs": sccs }))
            .collect();
        let mut s = serde_json::json!({ "refsccs": refsccs }).to_string();
        s.push('\n');
        s
    }
}

/// LLVM's `DOT::EscapeString`: `\n` for newlines, two spaces for tabs, a backslash
/// before `{ } < > | "` and before a lone backslash; `\l` is kept, and a backslash
/// before `| { }` is dropped (that character then stays unescaped).
fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("  "),
            '\\' => match chars.peek() {
                Some('l') => out.push('\\'),
                Some(&n @ ('|' | '{' | '}')) => {
                    out.push(n);
                    chars.next();
                }
                _ => out.push_str("\\\\"),
            },
            '{' | '}' | '<' | '>' | '|' | '"' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn dot_escape_like_llvm() {
        assert_eq!(super::dot_escape("a{b}<c>|\"d"), "a\\{b\\}\\<c\\>\\|\\\"d");
        assert_eq!(super::dot_escape("x\\ly\\|z\\q\tw\n"), "x\\ly|z\\\\q  w\\n");
    }
}
