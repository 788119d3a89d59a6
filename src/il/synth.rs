//! Synthetic translation units: a deterministic generator `(seed, scale)` of IL with a
//! realistic shape — nested namespaces and scopes, classes with fields, bases and member
//! functions, routines with statement and expression trees in their own function regions,
//! many repeated constants, string literals (some with embedded NULs), templates with
//! instantiations, and a share of device routines (`__global__` / `__device__` attributes).
//!
//! Scale 1 is about 10^5 entries; entries grow linearly with scale.

use super::kinds;
use super::{
    fields as F, AttrKind, ConstantKind, EntryId, EntryKind, ExprKind, Il, IlError, Op, RegionIdx,
    ScopeKind, StmtKind, StorageClass, TypeKind,
};

/// A small deterministic PRNG (splitmix64), so generated IL is identical run to run.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 >= 1.0 - p
    }
}

/// What the generator made, for tests and reports.
#[derive(Clone, Debug, Default)]
pub struct Synth {
    /// Routines generated (members and free functions, instantiations included).
    pub routines: Vec<EntryId>,
    /// Routines carrying `__global__` or `__device__`.
    pub device_routines: Vec<EntryId>,
    /// Templates generated.
    pub templates: Vec<EntryId>,
    /// Classes generated.
    pub classes: Vec<EntryId>,
}

struct Gen<'a> {
    il: &'a mut Il,
    rng: Rng,
    out: Synth,
    builtin: Vec<EntryId>,
    globals: Vec<EntryId>,
    int_consts: Vec<EntryId>,
    line: u32,
}

/// Generates a translation unit at `scale` (1.0 ≈ 10^5 entries) from `seed`.
pub fn generate(seed: u64, scale: f64) -> Il {
    let mut il = Il::new();
    generate_into(&mut il, seed, scale).expect("the generator builds well-formed IL");
    il
}

/// Generates into an existing world; returns what was made.
pub fn generate_into(il: &mut Il, seed: u64, scale: f64) -> Result<Synth, IlError> {
    let mut g = Gen {
        il,
        rng: Rng::new(seed),
        out: Synth::default(),
        builtin: vec![],
        globals: vec![],
        int_consts: vec![],
        line: 1,
    };
    g.run(scale)?;
    g.il.compact_edges();
    g.il.debug_verify("generate");
    Ok(g.out)
}

impl Gen<'_> {
    fn pos(&mut self) {
        self.line += 1 + self.rng.below(3) as u32;
        let col = 1 + self.rng.below(60) as u32;
        self.il.set_position(0, self.line, col);
    }

    fn named(&mut self, kind: EntryKind, name: &str) -> Result<EntryId, IlError> {
        let id = self.il.alloc(kind)?;
        self.il.set_string(id, 0, name.as_bytes())?;
        Ok(id)
    }

    fn run(&mut self, scale: f64) -> Result<(), IlError> {
        let il = &mut *self.il;
        il.compiler_version = Some(b"ilkit synthetic 6.6".to_vec());
        il.time_of_compilation = Some(b"Sat Nov 21 00:00:00 2026".to_vec());
        let main_file = il.alloc(EntryKind::SourceFileEntry)?;
        il.set_string(main_file, 0, b"synth.cu")?;
        il.set_string(main_file, 1, b"/src/synth.cu")?;
        for h in ["cuda_runtime.h", "vector_types.h"] {
            let f = il.alloc(EntryKind::SourceFileEntry)?;
            il.set_string(f, 0, h.as_bytes())?;
            il.push_list(main_file, F::SOURCE_FILE_ENTRY_CHILD_FILES, f)?;
        }
        let file_scope = kinds::alloc_scope(il, ScopeKind::File, None)?;
        il.primary_scope = Some(file_scope);

        // Builtin types, shared by everything.
        for (name, size) in [
            ("int", 4u64),
            ("float", 4),
            ("double", 8),
            ("char", 1),
            ("void", 0),
            ("long", 8),
        ] {
            let t = self.named(EntryKind::Type, name)?;
            kinds::set_type_kind(
                self.il,
                t,
                if name == "void" {
                    TypeKind::Void
                } else if size == 4 && name == "float" || name == "double" {
                    TypeKind::Float
                } else {
                    TypeKind::Integer
                },
            )?;
            let te = self.il.eix(t)?;
            self.il.ty_mut(te).set_size(size);
            self.il.push_list(file_scope, F::SCOPE_TYPES, t)?;
            self.builtin.push(t);
        }
        for i in 0..16 {
            let c = self.int_constant(i)?;
            self.int_consts.push(c);
        }

        let units = ((scale * 15.0).round() as usize).max(1);
        for u in 0..units {
            self.pos();
            let ns = self.named(EntryKind::Namespace, &format!("ns{u}"))?;
            let ns_scope = kinds::alloc_scope(self.il, ScopeKind::Namespace, None)?;
            self.il.set_child(ns, F::NAMESPACE_SCOPE, Some(ns_scope))?;
            self.il.push_list(file_scope, F::SCOPE_NAMESPACES, ns)?;
            self.il
                .set_ref(ns_scope, F::SCOPE_PARENT, Some(file_scope))?;
            let inner = self.named(EntryKind::Namespace, "detail")?;
            let inner_scope = kinds::alloc_scope(self.il, ScopeKind::Namespace, None)?;
            self.il
                .set_child(inner, F::NAMESPACE_SCOPE, Some(inner_scope))?;
            self.il.push_list(ns_scope, F::SCOPE_NAMESPACES, inner)?;
            // Globals, some in device memory.
            for g in 0..4 {
                let v = self.il.alloc_variable(StorageClass::Global)?;
                self.il.set_string(v, 0, format!("g{u}_{g}").as_bytes())?;
                let ty = self.builtin[self.rng.below(3) as usize];
                self.il.set_child(v, F::VARIABLE_TYPE, Some(ty))?;
                if g == 0 {
                    self.attribute(v, AttrKind::Device, "__device__", F::VARIABLE_ATTRIBUTES)?;
                    let ve = self.il.eix(v)?;
                    self.il.variable_mut(ve).set_cuda_space(1);
                }
                self.il.push_list(ns_scope, F::SCOPE_VARIABLES, v)?;
                self.globals.push(v);
            }
            let mut unit_classes = vec![];
            for c in 0..3 {
                let cls =
                    self.class(ns_scope, &format!("C{u}_{c}"), unit_classes.last().copied())?;
                unit_classes.push(cls);
            }
            let mut unit_routines = vec![];
            for r in 0..14 {
                let device = self.rng.chance(0.25);
                let ret = if self.rng.chance(0.7) {
                    self.builtin[0]
                } else {
                    unit_classes[self.rng.below(3) as usize]
                };
                let scope = if r % 3 == 0 { inner_scope } else { ns_scope };
                let rt = self.routine(scope, &format!("f{u}_{r}"), ret, device, &unit_routines)?;
                unit_routines.push(rt);
            }
            // A template with instantiations.
            let pattern = unit_routines[0];
            let t = self.named(EntryKind::Template, &format!("tmpl{u}"))?;
            let tp = self.named(EntryKind::TemplateParam, "T")?;
            let tpt = self.named(EntryKind::Type, "T")?;
            kinds::set_type_kind(self.il, tpt, TypeKind::TemplateParam)?;
            self.il.set_child(tp, F::TEMPLATE_PARAM_TYPE, Some(tpt))?;
            self.il.push_list(t, F::TEMPLATE_PARAMS, tp)?;
            self.il.set_child(t, F::TEMPLATE_PATTERN, Some(pattern))?;
            self.uses_of_t(pattern, tpt)?;
            // The declaration owns the template (templates are not on a walk list).
            let decl = self.il.alloc(EntryKind::TemplateDecl)?;
            self.il
                .set_child(decl, F::TEMPLATE_DECL_TEMPLATE, Some(t))?;
            self.out.templates.push(t);
            for (i, arg) in [self.builtin[0], self.builtin[1], self.builtin[2]]
                .into_iter()
                .enumerate()
            {
                let inst = self.routine(
                    ns_scope,
                    &format!("tmpl{u}<{i}>"),
                    arg,
                    i == 0,
                    &unit_routines,
                )?;
                let info = self.il.alloc(EntryKind::TemplateInfo)?;
                self.il.set_ref(info, F::TEMPLATE_INFO_TEMPLATE, Some(t))?;
                self.il.push_list(info, F::TEMPLATE_INFO_ARGS, arg)?;
                self.il
                    .set_child(inst, F::ROUTINE_TEMPLATE_INFO, Some(info))?;
                self.il
                    .set_ref(inst, F::ROUTINE_PRIMARY_TEMPLATE, Some(t))?;
            }
        }
        Ok(())
    }

    /// Appends to the body of template pattern `rt` what depends on its type parameter
    /// `tpt`: `T t;`, `return sizeof(T) * 2;` and `t + 1;` (instantiation folds the first
    /// and converts `1` to `T`). No random draws, so the rest of the unit is unchanged.
    fn uses_of_t(&mut self, rt: EntryId, tpt: EntryId) -> Result<(), IlError> {
        let Some(scope) = self.il.child(rt, F::ROUTINE_BODY_SCOPE)? else {
            return Ok(());
        };
        let Some(block) = self.il.child(scope, F::SCOPE_BLOCK)? else {
            return Ok(());
        };
        let saved = self.il.current_region();
        let body = self.il.region_of(self.il.eix(block)?);
        self.il.switch_region(body)?;
        let int_leaf = |g: &mut Self, v: usize| {
            let x = g.il.alloc_expr_node(ExprKind::Constant)?;
            g.il.set_child(x, F::EXPR_NODE_TYPE, Some(g.builtin[0]))?;
            g.il.set_child(x, F::EXPR_NODE_CONSTANT, Some(g.int_consts[v]))?;
            Ok::<_, IlError>(x)
        };
        // T t;
        let decl = self.il.alloc(EntryKind::Statement)?;
        kinds::set_statement_kind(self.il, decl, StmtKind::Decl)?;
        let v = self.il.alloc_variable(StorageClass::Auto)?;
        self.il.set_string(v, 0, b"t")?;
        self.il.set_child(v, F::VARIABLE_TYPE, Some(tpt))?;
        self.il.push_list(scope, F::SCOPE_VARIABLES, v)?;
        self.il.set_ref(decl, F::STATEMENT_DECL, Some(v))?;
        // return sizeof(T) * 2;
        let ret = self.il.alloc(EntryKind::Statement)?;
        kinds::set_statement_kind(self.il, ret, StmtKind::Return)?;
        let operand = self.il.alloc_expr_node(ExprKind::TypeOperand)?;
        self.il.set_child(operand, F::EXPR_NODE_TYPE, Some(tpt))?;
        let size = kinds::alloc_operation(self.il, Op::Sizeof, None, &[operand])?;
        let two = int_leaf(self, 2)?;
        let product = kinds::alloc_operation(self.il, Op::Mul, None, &[size, two])?;
        self.il.set_child(ret, F::STATEMENT_EXPR, Some(product))?;
        // t + 1;
        let stmt = self.il.alloc(EntryKind::Statement)?;
        kinds::set_statement_kind(self.il, stmt, StmtKind::Expr)?;
        let t = self.il.alloc_expr_node(ExprKind::Variable)?;
        self.il.set_child(t, F::EXPR_NODE_TYPE, Some(tpt))?;
        self.il.set_ref(t, F::EXPR_NODE_ENTITY, Some(v))?;
        let one = int_leaf(self, 1)?;
        let sum = kinds::alloc_operation(self.il, Op::Add, None, &[t, one])?;
        self.il.set_child(stmt, F::STATEMENT_EXPR, Some(sum))?;
        for s in [decl, stmt, ret] {
            self.il.push_list(block, F::STATEMENT_STMTS, s)?;
        }
        self.il.switch_region(saved)
    }

    fn int_constant(&mut self, v: i64) -> Result<EntryId, IlError> {
        let c = self.il.alloc(EntryKind::Constant)?;
        kinds::set_constant_kind(self.il, c, ConstantKind::Integer)?;
        let ce = self.il.eix(c)?;
        self.il.constant_mut(ce).set_value(v);
        self.il
            .set_child(c, F::CONSTANT_TYPE, Some(self.builtin[0]))?;
        Ok(c)
    }

    fn attribute(
        &mut self,
        on: EntryId,
        kind: AttrKind,
        name: &str,
        field: super::ListField,
    ) -> Result<(), IlError> {
        let a = self.named(EntryKind::Attribute, name)?;
        let ae = self.il.eix(a)?;
        self.il.attribute_mut(ae).set_attr_kind(kind);
        self.il.push_list(on, field, a)
    }

    fn class(
        &mut self,
        scope: EntryId,
        name: &str,
        base: Option<EntryId>,
    ) -> Result<EntryId, IlError> {
        self.pos();
        let t = self.named(EntryKind::Type, name)?;
        kinds::set_type_kind(self.il, t, TypeKind::Struct)?;
        let cscope = kinds::alloc_scope(self.il, ScopeKind::Class, None)?;
        self.il.set_child(t, F::TYPE_SCOPE, Some(cscope))?;
        self.il.set_ref(cscope, F::SCOPE_PARENT, Some(scope))?;
        let nfields = 2 + self.rng.below(5);
        for i in 0..nfields {
            let f = self.named(EntryKind::Field, &format!("m{i}"))?;
            let ty = self.builtin[self.rng.below(4) as usize];
            self.il.set_child(f, F::FIELD_TYPE, Some(ty))?;
            self.il.push_list(t, F::TYPE_FIELDS, f)?;
        }
        if let Some(b) = base {
            let bc = self.il.alloc(EntryKind::BaseClass)?;
            self.il.set_child(bc, F::BASE_CLASS_TYPE, Some(b))?;
            self.il.set_ref(bc, F::BASE_CLASS_DERIVED_CLASS, Some(t))?;
            self.il.push_list(t, F::TYPE_BASES, bc)?;
        }
        let te = self.il.eix(t)?;
        self.il
            .ty_mut(te)
            .set_is_defined(true)
            .set_size(4 * nfields);
        self.il.push_list(scope, F::SCOPE_TYPES, t)?;
        self.out.classes.push(t);
        // Member functions.
        let mut members = vec![];
        for i in 0..2 {
            let m = self.routine(
                cscope,
                &format!("{name}::method{i}"),
                self.builtin[0],
                false,
                &members,
            )?;
            members.push(m);
        }
        Ok(t)
    }

    fn routine(
        &mut self,
        scope: EntryId,
        name: &str,
        ret: EntryId,
        device: bool,
        callees: &[EntryId],
    ) -> Result<EntryId, IlError> {
        self.pos();
        let rt = self.named(EntryKind::Routine, name)?;
        self.il
            .set_string(rt, 1, format!("_Z{}{}v", name.len(), name).as_bytes())?;
        let fty = self.il.alloc(EntryKind::Type)?;
        kinds::set_type_kind(self.il, fty, TypeKind::Routine)?;
        self.il.set_child(fty, F::TYPE_BASE_TYPE, Some(ret))?;
        self.il.set_child(rt, F::ROUTINE_TYPE, Some(fty))?;
        self.il.set_child(rt, F::ROUTINE_RETURN_TYPE, Some(ret))?;
        let nparams = self.rng.below(4);
        let mut params = vec![];
        for i in 0..nparams {
            let p = self.il.alloc_param_type()?;
            self.il.set_string(p, 0, format!("p{i}").as_bytes())?;
            let ty = self.builtin[self.rng.below(3) as usize];
            self.il.set_child(p, F::PARAM_TYPE_TYPE, Some(ty))?;
            self.il.push_list(rt, F::ROUTINE_PARAMS, p)?;
            params.push(p);
        }
        if device {
            let (k, n) = if self.rng.chance(0.5) {
                (AttrKind::Global, "__global__")
            } else {
                (AttrKind::Device, "__device__")
            };
            self.attribute(rt, k, n, F::ROUTINE_ATTRIBUTES)?;
            self.out.device_routines.push(rt);
        }
        self.il.push_list(scope, F::SCOPE_ROUTINES, rt)?;
        let re = self.il.eix(rt)?;
        self.il.routine_mut(re).set_is_defined(true);

        // The body lives in its own function region.
        self.il.open_function_region(None);
        let body_scope = kinds::alloc_scope(self.il, ScopeKind::Function, Some(rt))?;
        self.il
            .set_child(rt, F::ROUTINE_BODY_SCOPE, Some(body_scope))?;
        let block = self.il.alloc(EntryKind::Statement)?;
        kinds::set_statement_kind(self.il, block, StmtKind::Block)?;
        self.il.set_child(body_scope, F::SCOPE_BLOCK, Some(block))?;
        let mut locals: Vec<EntryId> = vec![];
        let nstmts = 3 + self.rng.below(8);
        for _ in 0..nstmts {
            let s = self.statement(body_scope, &mut locals, callees, 0)?;
            self.il.push_list(block, F::STATEMENT_STMTS, s)?;
        }
        self.il.switch_region(RegionIdx::FILE_SCOPE)?;
        self.out.routines.push(rt);
        Ok(rt)
    }

    fn statement(
        &mut self,
        scope: EntryId,
        locals: &mut Vec<EntryId>,
        callees: &[EntryId],
        depth: u32,
    ) -> Result<EntryId, IlError> {
        self.pos();
        let s = self.il.alloc(EntryKind::Statement)?;
        let pick = if depth > 2 {
            self.rng.below(3)
        } else {
            self.rng.below(6)
        };
        match pick {
            0 => {
                // int x = expr;
                kinds::set_statement_kind(self.il, s, StmtKind::Decl)?;
                let v = self.il.alloc_variable(StorageClass::Auto)?;
                self.il
                    .set_string(v, 0, format!("x{}", locals.len()).as_bytes())?;
                self.il
                    .set_child(v, F::VARIABLE_TYPE, Some(self.builtin[0]))?;
                let init = self.expr(locals, callees, 0)?;
                self.il.set_child(v, F::VARIABLE_INITIALIZER, Some(init))?;
                self.il.push_list(scope, F::SCOPE_VARIABLES, v)?;
                self.il.set_ref(s, F::STATEMENT_DECL, Some(v))?;
                locals.push(v);
            }
            1 => {
                kinds::set_statement_kind(self.il, s, StmtKind::Expr)?;
                let e = self.call(locals, callees, 1)?;
                self.il.set_child(s, F::STATEMENT_EXPR, Some(e))?;
            }
            2 => {
                kinds::set_statement_kind(self.il, s, StmtKind::Return)?;
                let e = self.expr(locals, callees, 0)?;
                self.il.set_child(s, F::STATEMENT_EXPR, Some(e))?;
            }
            k => {
                let sk = [StmtKind::If, StmtKind::While, StmtKind::For][(k - 3) as usize];
                kinds::set_statement_kind(self.il, s, sk)?;
                let cond = self.expr(locals, callees, 0)?;
                self.il.set_child(s, F::STATEMENT_EXPR, Some(cond))?;
                let n = 1 + self.rng.below(3);
                for _ in 0..n {
                    let inner = self.statement(scope, locals, callees, depth + 1)?;
                    self.il.push_list(s, F::STATEMENT_STMTS, inner)?;
                }
            }
        }
        Ok(s)
    }

    fn call(
        &mut self,
        locals: &[EntryId],
        callees: &[EntryId],
        depth: u32,
    ) -> Result<EntryId, IlError> {
        let call = self.il.alloc_expr_node(ExprKind::Operation)?;
        self.il
            .set_child(call, F::EXPR_NODE_TYPE, Some(self.builtin[0]))?;
        let target = self.il.alloc_expr_node(ExprKind::Routine)?;
        let callee = if callees.is_empty() {
            None
        } else {
            Some(callees[self.rng.below(callees.len() as u64) as usize])
        };
        self.il.set_ref(target, F::EXPR_NODE_ENTITY, callee)?;
        self.il.push_list(call, F::EXPR_NODE_OPERANDS, target)?;
        for _ in 0..self.rng.below(3) {
            let a = self.expr(locals, callees, depth + 1)?;
            self.il.push_list(call, F::EXPR_NODE_OPERANDS, a)?;
        }
        Ok(call)
    }

    fn expr(
        &mut self,
        locals: &[EntryId],
        callees: &[EntryId],
        depth: u32,
    ) -> Result<EntryId, IlError> {
        let leaf = depth >= 4 || self.rng.chance(0.35);
        if !leaf {
            let e = self.il.alloc_expr_node(ExprKind::Operation)?;
            // An operator soup: any of the vocabulary's operators numbered below 40.
            let op = Op::from_raw(self.rng.below(40) as u8).unwrap_or(Op::Other);
            let ee = self.il.eix(e)?;
            self.il.expr_mut(ee).set_op(op);
            self.il
                .set_child(e, F::EXPR_NODE_TYPE, Some(self.builtin[0]))?;
            for _ in 0..2 {
                let o = self.expr(locals, callees, depth + 1)?;
                self.il.push_list(e, F::EXPR_NODE_OPERANDS, o)?;
            }
            return Ok(e);
        }
        match self.rng.below(10) {
            0..=4 => {
                let e = self.il.alloc_expr_node(ExprKind::Constant)?;
                // Mostly repeated small constants; some fresh ones, some string literals.
                let c = match self.rng.below(20) {
                    0 => {
                        let c = self.il.alloc(EntryKind::Constant)?;
                        kinds::set_constant_kind(self.il, c, ConstantKind::String)?;
                        let text: &[u8] = if self.rng.chance(0.3) {
                            b"ab\0cd"
                        } else {
                            b"hello"
                        };
                        self.il.set_string(c, 0, text)?;
                        let ce = self.il.eix(c)?;
                        self.il.constant_mut(ce).set_text_len(text.len() as u32);
                        c
                    }
                    1..=3 => {
                        let v = self.rng.below(1000) as i64;
                        self.int_constant(v)?
                    }
                    _ => self.int_consts[self.rng.below(16) as usize],
                };
                self.il.set_child(e, F::EXPR_NODE_CONSTANT, Some(c))?;
                self.il
                    .set_child(e, F::EXPR_NODE_TYPE, Some(self.builtin[0]))?;
                Ok(e)
            }
            5..=7 if !locals.is_empty() => {
                let e = self.il.alloc_expr_node(ExprKind::Variable)?;
                let v = locals[self.rng.below(locals.len() as u64) as usize];
                self.il.set_ref(e, F::EXPR_NODE_ENTITY, Some(v))?;
                self.il
                    .set_child(e, F::EXPR_NODE_TYPE, Some(self.builtin[0]))?;
                Ok(e)
            }
            8 if !self.globals.is_empty() => {
                let e = self.il.alloc_expr_node(ExprKind::Variable)?;
                let v = self.globals[self.rng.below(self.globals.len() as u64) as usize];
                self.il.set_ref(e, F::EXPR_NODE_ENTITY, Some(v))?;
                Ok(e)
            }
            _ if depth < 4 => self.call(locals, callees, depth + 1),
            _ => {
                let e = self.il.alloc_expr_node(ExprKind::Constant)?;
                let c = self.int_consts[self.rng.below(16) as usize];
                self.il.set_child(e, F::EXPR_NODE_CONSTANT, Some(c))?;
                Ok(e)
            }
        }
    }
}
