//! Building a [`LazyCallGraph`] by hand, by function name (see
//! [`LazyCallGraph::builder`]).

use super::{Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx};

/// One function of a [`CallGraphBuilder`].
#[derive(Clone, Debug)]
struct FnSpec {
    name: String,
    defined: bool,
    root: bool,
    lib: bool,
    calls: Vec<String>,
    refs: Vec<String>,
}

/// A call graph by function name: [`function`](Self::function) starts a function (a
/// defined, externally visible one, so a root), [`calls`](Self::calls) and
/// [`refs`](Self::refs) add edges to the function started last. Nodes are numbered in
/// the order functions are started; a function's edges are its calls and then its
/// refs, each in the order given (LLVM's populate also lists calls first). Edges may
/// name functions started later.
#[derive(Clone, Debug, Default)]
pub struct CallGraphBuilder {
    module_id: String,
    funcs: Vec<FnSpec>,
    /// `calls`/`refs` before any `function`.
    orphan_edge: Option<String>,
}

impl CallGraphBuilder {
    /// An empty builder (also [`LazyCallGraph::builder`]).
    pub fn new() -> Self {
        CallGraphBuilder {
            module_id: "builder".to_string(),
            ..Default::default()
        }
    }

    /// Sets the module identifier the printers show.
    pub fn module_id(mut self, id: impl Into<String>) -> Self {
        self.module_id = id.into();
        self
    }

    fn start(mut self, name: impl Into<String>, defined: bool) -> Self {
        self.funcs.push(FnSpec {
            name: name.into(),
            defined,
            root: defined,
            lib: false,
            calls: Vec::new(),
            refs: Vec::new(),
        });
        self
    }

    /// Starts a defined function that is a root (an entry edge, like a function
    /// without local linkage).
    pub fn function(self, name: impl Into<String>) -> Self {
        self.start(name, true)
    }

    /// Adds a declaration (no body: a node, but no edge may target it).
    pub fn declaration(self, name: impl Into<String>) -> Self {
        self.start(name, false)
    }

    fn edges<I, S>(mut self, names: I, kind: EdgeKind) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names = names.into_iter().map(Into::into);
        match self.funcs.last_mut() {
            Some(f) => match kind {
                EdgeKind::Call => f.calls.extend(names),
                EdgeKind::Ref => f.refs.extend(names),
            },
            None => {
                let mut names = names;
                if let Some(n) = names.next() {
                    self.orphan_edge.get_or_insert(n);
                }
            }
        }
        self
    }

    /// Adds call edges from the current function to `names`.
    pub fn calls<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.edges(names, EdgeKind::Call)
    }

    /// Adds ref edges from the current function to `names`.
    pub fn refs<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.edges(names, EdgeKind::Ref)
    }

    /// Makes the current function internal: not a root (local linkage). It is in the
    /// SCCs only if a root reaches it.
    pub fn internal(mut self) -> Self {
        if let Some(f) = self.funcs.last_mut() {
            f.root = false;
        }
        self
    }

    /// Makes the current function a library function: as LLVM's populate does, every
    /// defined function (itself included) gets an implicit ref edge to it, after its
    /// own edges, unless it has an edge to it already.
    pub fn library(mut self) -> Self {
        if let Some(f) = self.funcs.last_mut() {
            f.lib = true;
        }
        self
    }

    /// Checks the functions and edges, makes the graph and builds its SCCs.
    ///
    /// # Errors
    /// `DuplicateName`, `UnknownName` (an edge to a function never started, or edges
    /// before the first function), `EdgeToDeclaration` (also a declaration marked as a
    /// library function or given edges), `RepeatedEdge` (two edges to one target).
    pub fn build(self) -> Result<LazyCallGraph, LcgError> {
        if let Some(n) = self.orphan_edge {
            return Err(LcgError::UnknownName(n));
        }
        let n = self.funcs.len();
        let mut index: crate::hash::FixedMap<&str, NodeIdx> =
            crate::hash::FixedMap::with_capacity_and_hasher(n, Default::default());
        for (i, f) in self.funcs.iter().enumerate() {
            if index.insert(f.name.as_str(), NodeIdx::new(i)).is_some() {
                return Err(LcgError::DuplicateName(f.name.clone()));
            }
        }
        let libs: Vec<NodeIdx> = (0..n)
            .filter(|&i| self.funcs[i].lib)
            .map(NodeIdx::new)
            .collect();
        let mut lists: Vec<Vec<Edge>> = Vec::with_capacity(n);
        let mut has = vec![false; n];
        for (i, f) in self.funcs.iter().enumerate() {
            let src = NodeIdx::new(i);
            if f.lib && !f.defined {
                return Err(LcgError::EdgeToDeclaration { src, tgt: src });
            }
            let mut list = Vec::with_capacity(f.calls.len() + f.refs.len());
            let named = f
                .calls
                .iter()
                .map(|t| (t, EdgeKind::Call))
                .chain(f.refs.iter().map(|t| (t, EdgeKind::Ref)));
            for (t, kind) in named {
                let &tgt = index
                    .get(t.as_str())
                    .ok_or_else(|| LcgError::UnknownName(t.clone()))?;
                if !f.defined || !self.funcs[tgt.idx()].defined {
                    return Err(LcgError::EdgeToDeclaration { src, tgt });
                }
                if has[tgt.idx()] {
                    return Err(LcgError::RepeatedEdge { src, tgt });
                }
                has[tgt.idx()] = true;
                list.push(Edge { target: tgt, kind });
            }
            if f.defined {
                for &l in &libs {
                    if !has[l.idx()] {
                        list.push(Edge {
                            target: l,
                            kind: EdgeKind::Ref,
                        });
                    }
                }
            }
            for e in &list {
                has[e.target.idx()] = false;
            }
            lists.push(list);
        }
        let names: Vec<String> = self.funcs.iter().map(|f| f.name.clone()).collect();
        let defined: Vec<bool> = self.funcs.iter().map(|f| f.defined).collect();
        let entry: Vec<NodeIdx> = (0..n)
            .filter(|&i| self.funcs[i].root)
            .map(NodeIdx::new)
            .collect();
        let mut g = LazyCallGraph::with_lists(&self.module_id, names, defined, entry, libs, lists)?;
        g.build_ref_sccs();
        Ok(g)
    }
}
