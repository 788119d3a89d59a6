//! Attaching the children when a node closes: its kids were collected in order as they
//! closed; each node class sorts them into its entry's fields (records, expressions and
//! statements in their own modules). Then the name-resolution state the node pushed when
//! it opened is popped and the node is handed to its parent. A node reused from an earlier
//! declaration does not get its lists filled twice (inherited attributes, template
//! parameters, enumerators).

use super::{rf, Builder, Kid, FL_INHERITED, FL_PACK};
use crate::il::kinds as K;
use crate::il::{
    fields as F, AttrKind, ConstantKind, Eix, EntryKind, ExprKind, IlError, RegionIdx,
};
use crate::import::clang_json::json::parse_int;
use crate::import::clang_json::kinds::{Class, ExprClass};

/// What a closing node hands its parent besides its class, kind and flags.
pub(super) struct Closed {
    /// The entry it stands for: its own, a child's (pass-through nodes), a template
    /// made over it, or none.
    pub(super) e: Eix,
    /// Its constant value, where one flows through it (enumerator initializers).
    pub(super) val: Option<i64>,
    /// Children handed on to the parent ahead of it (those of a transparent node,
    /// instantiations under a template).
    pub(super) bubble: Vec<Kid>,
}

impl Builder<'_> {
    /// Closes frame `t`: attaches its children to its entry by node class, then hands it
    /// to its parent (`close_frame`).
    pub(super) fn finalize(&mut self, t: usize) -> Result<(), IlError> {
        let class = match self.frames[t].class {
            Some(c) => c,
            None => {
                // `{}`: an absent positional child.
                let k = Kid {
                    e: Eix::NONE,
                    class: Class::Other,
                    kind: u16::MAX,
                    val: None,
                    reused: false,
                    flags: 0,
                };
                self.deliver(t, k);
                return Ok(());
            }
        };
        if self.frames[t].stub {
            let f = &self.frames[t];
            let k = Kid {
                e: f.entry,
                class,
                kind: f.kind,
                val: None,
                reused: true,
                flags: 0,
            };
            self.deliver(t, k);
            return Ok(());
        }
        let kids = std::mem::take(&mut self.frames[t].kids);
        let e = self.frames[t].entry;
        let mut out = Closed {
            e,
            val: None,
            bubble: Vec::new(),
        };
        match class {
            Class::Tu | Class::Namespace => self.finish_scope_node(t, class, e, &kids)?,
            Class::Transparent => {
                out.bubble.extend(kids.iter().copied());
            }
            Class::Function(_) => self.finish_function(t, e, &kids)?,
            Class::Var => self.finish_var(t, e, &kids)?,
            Class::Parm => self.finish_parm(e, &kids)?,
            Class::Field | Class::Typedef => {}
            Class::Record(rk) => self.finish_record_node(t, rk, e, &kids, &mut out)?,
            Class::Enum => self.finish_enum(t, e, &kids)?,
            Class::EnumConst => self.finish_enum_const(e, &kids, &mut out)?,
            Class::Template(_) => self.finish_template(t, e, &kids, &mut out)?,
            Class::TemplateParm(_) => {
                if let Some(k) = kids.iter().find(|k| !k.e.is_none()) {
                    self.set_child(e, F::TEMPLATE_PARAM_DEFAULT_ARG, k.e)?;
                }
            }
            Class::TemplateArg => return self.finish_template_arg(t, &kids),
            Class::Using => {}
            Class::StaticAssert => {
                if let Some(k) = kids
                    .iter()
                    .find(|k| !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode)
                {
                    self.set_child(e, F::STATIC_ASSERT_COND, k.e)?;
                }
            }
            Class::CtorInit => {
                if let Some(k) = kids
                    .iter()
                    .find(|k| !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode)
                {
                    self.set_child(e, F::CONSTRUCTOR_INIT_INIT, k.e)?;
                }
            }
            Class::Stmt(sk) => self.finish_stmt(t, e, sk, &kids)?,
            Class::StmtPass => self.finish_stmt_pass(&kids, &mut out),
            Class::ExprPass | Class::Expr(ExprClass::OpaqueValue) => {
                self.finish_expr_pass(t, class, &kids, &mut out)
            }
            Class::Expr(ExprClass::Pseudo) => self.finish_pseudo(t, &kids, &mut out),
            Class::Expr(ec) => self.finish_expr(t, e, ec, &kids, &mut out)?,
            Class::Attr => self.finish_attr(e, &kids)?,
            Class::TypeNode | Class::Comment => {}
            Class::Other => self.finish_opaque(e, &kids)?,
        }
        self.close_frame(t, class, kids, out);
        Ok(())
    }

    /// Pops what the node pushed on the name-resolution state (qualifier, template
    /// parameters, pattern depth), returns its children vector to the frame for reuse
    /// and hands the parent the bubbled children, then the node itself.
    fn close_frame(&mut self, t: usize, class: Class, kids: Vec<Kid>, out: Closed) {
        // Scope bookkeeping.
        if self.frames[t].qual_pushed {
            self.types.qual.pop();
        }
        if self.frames[t].body_qual {
            self.types.qual.pop();
        }
        if self.frames[t].tparams_pushed {
            self.types.tparam_scopes.pop();
            let level = self.types.tparam_scopes.len();
            self.types.value_params.retain(|p| p.level <= level);
        }
        if self.frames[t].pattern {
            self.pattern_depth = self.pattern_depth.saturating_sub(1);
        }
        let flags = self.frames[t].flags;
        let reused = self.frames[t].reused;
        let kind = self.frames[t].kind;
        let mut kids = kids;
        kids.clear();
        self.frames[t].kids = kids;
        for b in out.bubble {
            self.deliver(t, b);
        }
        if !matches!(class, Class::Transparent) {
            self.deliver(
                t,
                Kid {
                    e: out.e,
                    class,
                    kind,
                    val: out.val,
                    reused,
                    flags,
                },
            );
        }
    }

    /// The translation unit or a namespace: its members join its scope.
    fn finish_scope_node(
        &mut self,
        t: usize,
        class: Class,
        e: Eix,
        kids: &[Kid],
    ) -> Result<(), IlError> {
        let scope = if class == Class::Tu {
            e
        } else {
            self.il
                .child_eix(e, F::NAMESPACE_SCOPE)
                .unwrap_or(Eix::NONE)
        };
        self.attach_to_scope(scope, kids)?;
        if class == Class::Namespace && self.frames[t].name.is_empty() {
            self.anon_depth = self.anon_depth.saturating_sub(1);
        }
        Ok(())
    }

    /// A variable: initializer, attributes and the CUDA memory space they give.
    fn finish_var(&mut self, t: usize, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        let mut space = 0u8;
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::ExprNode if self.il.child_eix(e, F::VARIABLE_INITIALIZER).is_none() => {
                    self.set_child(e, F::VARIABLE_INITIALIZER, k.e)?;
                }
                EntryKind::Attribute => {
                    let ak = self.il.attribute(k.e).attr_kind();
                    space = match ak {
                        AttrKind::Device => space.max(1),
                        AttrKind::Shared => 2,
                        AttrKind::Constant => 3,
                        AttrKind::Managed => 4,
                        _ => space,
                    };
                    if !(self.frames[t].reused && k.flags & FL_INHERITED != 0) {
                        self.push(e, F::VARIABLE_ATTRIBUTES, k.e)?;
                    }
                }
                _ => {}
            }
        }
        if space != 0 {
            self.il.variable_mut(e).set_cuda_space(space);
        }
        if !kids.is_empty() && self.frames[t].storage != "extern" {
            self.il.variable_mut(e).set_is_defined(true);
        }
        Ok(())
    }

    /// A parameter: default argument and attributes.
    fn finish_parm(&mut self, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        for k in kids {
            if !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode {
                self.set_child(e, F::PARAM_TYPE_DEFAULT_ARG, k.e)?;
                break;
            }
        }
        for k in kids {
            if !k.e.is_none() && self.il.kind(k.e) == EntryKind::Attribute {
                self.push(e, F::PARAM_TYPE_ATTRIBUTES, k.e)?;
            }
        }
        Ok(())
    }

    /// An enum: enumerator values (implicit ones count on from the last) and its constants.
    fn finish_enum(&mut self, t: usize, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        let mut next = 0i64;
        for k in kids {
            if k.e.is_none() || self.il.kind(k.e) != EntryKind::Constant {
                continue;
            }
            let v = k.val.unwrap_or(next);
            self.il.constant_mut(k.e).set_value(v);
            next = v.wrapping_add(1);
        }
        let ce = e;
        for k in kids {
            if !k.e.is_none() && self.il.kind(k.e) == EntryKind::Constant {
                self.set_child(k.e, F::CONSTANT_TYPE, ce)?;
                if !self.frames[t].reused {
                    self.push(ce, F::TYPE_ENUM_CONSTANTS, k.e)?;
                }
            }
        }
        Ok(())
    }

    /// An enumerator: its value (handed on to the enum) and initializer.
    fn finish_enum_const(&mut self, e: Eix, kids: &[Kid], out: &mut Closed) -> Result<(), IlError> {
        out.val = kids.iter().find_map(|k| k.val);
        if let Some(v) = out.val {
            self.il.constant_mut(e).set_value(v);
        }
        // The initializer expression stays reachable through the constant.
        if let Some(k) = kids
            .iter()
            .find(|k| !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode)
        {
            self.set_child(e, F::CONSTANT_EXPR, k.e)?;
        }
        Ok(())
    }

    /// A template: parameters, the first templated declaration as pattern; later ones
    /// are instantiations, linked to it and bubbled to the enclosing scope.
    fn finish_template(
        &mut self,
        t: usize,
        e: Eix,
        kids: &[Kid],
        out: &mut Closed,
    ) -> Result<(), IlError> {
        let mut pattern_done = false;
        let tid = self.il.id_of(e);
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::TemplateParam if !self.frames[t].reused => {
                    self.push(e, F::TEMPLATE_PARAMS, k.e)?;
                }
                EntryKind::Routine | EntryKind::Type | EntryKind::Variable
                    if !pattern_done && !k.reused && !self.is_instance(k.e) =>
                {
                    pattern_done = true;
                    if self.il.child_eix(e, F::TEMPLATE_PATTERN).is_none() {
                        self.set_child(e, F::TEMPLATE_PATTERN, k.e)?;
                    }
                }
                EntryKind::Routine => {
                    self.link_instance(k.e, e)?;
                    if !k.reused {
                        out.bubble.push(*k);
                    }
                }
                EntryKind::Type | EntryKind::Variable => {
                    if let Some(info) = self.instance_info(k.e) {
                        self.set_ref(info, F::TEMPLATE_INFO_TEMPLATE, e)?;
                    }
                    if !k.reused {
                        out.bubble.push(*k);
                    }
                }
                _ => {}
            }
        }
        let _ = tid;
        if self.frames[t].reused {
            out.e = Eix::NONE;
        }
        Ok(())
    }

    /// An instantiation or specialization, never a template's pattern: a routine with a
    /// mangled name (clang mangles no templated declaration), a class with template
    /// arguments. A dump that leaves a template's pattern out (a filtered one) starts
    /// the template with one.
    fn is_instance(&self, e: Eix) -> bool {
        match self.il.kind(e) {
            EntryKind::Routine => !self.il.routine(e).mangled_name().is_empty(),
            EntryKind::Type => self.il.child_eix(e, F::TYPE_TEMPLATE_INFO).is_some(),
            _ => false,
        }
    }

    /// A template argument: its spelling and entry join the owner's argument list (the
    /// node itself is not delivered).
    fn finish_template_arg(&mut self, t: usize, kids: &[Kid]) -> Result<(), IlError> {
        if self.frames[t].flags & FL_PACK != 0 {
            // A pack argument (`"isPack": true`): its elements, which the nested
            // arguments gave this frame, in a template info of their own.
            let info = self.template_info(t)?;
            let spelling = std::mem::take(&mut self.frames[t].targs);
            self.join_owner_args(t, &spelling, info);
            return Ok(());
        }
        let f = &self.frames[t];
        let spelling = if !f.qual_type.is_empty() {
            f.qual_type.clone()
        } else if f.has_value {
            f.value.clone()
        } else if !f.targs.is_empty() {
            f.targs.clone()
        } else if f.ref_id != 0 {
            f.ref_name.clone()
        } else {
            "?".to_string()
        };
        let ent = if !f.qual_type.is_empty() {
            self.type_of(t)?
        } else if f.has_value {
            let c = self.alloc(EntryKind::Constant)?;
            K::set_constant_kind(self.il, self.il.id_of(c), ConstantKind::Integer)?;
            let v = self.frames[t].value.clone();
            self.il.constant_mut(c).set_value(match v.as_str() {
                "true" => 1,
                _ => parse_int(v.as_bytes()),
            });
            c
        } else if let Some(k) = kids.iter().find(|k| !k.e.is_none()) {
            k.e
        } else if f.ref_id != 0 {
            // A declaration argument (`decl`: a function or variable whose address is
            // the value): an expression naming it, as an `isExpr` argument has.
            self.decl_arg(t)?
        } else {
            Eix::NONE
        };
        self.join_owner_args(t, &spelling, ent);
        Ok(())
    }

    /// Adds argument `ent`, spelled `spelling`, to the argument list of frame `t`'s owner.
    fn join_owner_args(&mut self, t: usize, spelling: &str, ent: Eix) {
        if t > 0 {
            let p = &mut self.frames[t - 1];
            if !p.targs.is_empty() {
                p.targs.push_str(", ");
            }
            p.targs.push_str(spelling);
            p.targ_entries.push(ent);
        }
    }

    /// The expression a declaration template argument stands for: a routine or variable
    /// reference to the declaration (not an owned edge to it).
    fn decl_arg(&mut self, t: usize) -> Result<Eix, IlError> {
        let target = self.frame_ref(t)?;
        if target.is_none() {
            return Ok(Eix::NONE);
        }
        let ek = match self.il.kind(target) {
            EntryKind::Routine => ExprKind::Routine,
            EntryKind::Variable | EntryKind::Field | EntryKind::ParamType => ExprKind::Variable,
            _ => return Ok(Eix::NONE),
        };
        let x = self.il.alloc_expr_node(ek)?;
        let e = self.il.eix(x)?;
        self.set_ref(e, F::EXPR_NODE_ENTITY, target)?;
        Ok(e)
    }

    /// An attribute: its argument expressions.
    fn finish_attr(&mut self, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        for k in kids {
            if !k.e.is_none() && self.il.kind(k.e) == EntryKind::ExprNode {
                let a = self.alloc(EntryKind::AttributeArgument)?;
                self.set_child(a, F::ATTRIBUTE_ARGUMENT_EXPR, k.e)?;
                self.push(e, F::ATTRIBUTE_ARGS, a)?;
            }
        }
        Ok(())
    }

    /// An unmapped node: its children, in order.
    fn finish_opaque(&mut self, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        for k in kids {
            if !k.e.is_none() {
                self.push(e, F::NAME_REFERENCE_CHILDREN, k.e)?;
            }
        }
        Ok(())
    }

    fn instance_info(&mut self, e: Eix) -> Option<Eix> {
        match self.il.kind(e) {
            EntryKind::Routine => self.il.child_eix(e, F::ROUTINE_TEMPLATE_INFO),
            EntryKind::Type => self.il.child_eix(e, F::TYPE_TEMPLATE_INFO),
            _ => None,
        }
    }

    fn link_instance(&mut self, r: Eix, tmpl: Eix) -> Result<(), IlError> {
        if self.il.ref_eix(r, F::ROUTINE_PRIMARY_TEMPLATE).is_none() {
            self.set_ref(r, F::ROUTINE_PRIMARY_TEMPLATE, tmpl)?;
        }
        if let Some(info) = self.instance_info(r) {
            self.set_ref(info, F::TEMPLATE_INFO_TEMPLATE, tmpl)?;
        }
        self.rflag(r, rf::INSTANCE);
        Ok(())
    }

    pub(super) fn template_info(&mut self, t: usize) -> Result<Eix, IlError> {
        let ents = std::mem::take(&mut self.frames[t].targ_entries);
        let info = self.alloc(EntryKind::TemplateInfo)?;
        for &a in &ents {
            if !a.is_none() {
                let (pi, ai) = (self.il.id_of(info), self.il.id_of(a));
                self.il.push_list(pi, F::TEMPLATE_INFO_ARGS, ai)?;
            }
        }
        self.frames[t].targ_entries = ents;
        Ok(info)
    }

    pub(super) fn attach_to_scope(&mut self, scope: Eix, kids: &[Kid]) -> Result<(), IlError> {
        if scope.is_none() {
            return Ok(());
        }
        // One list at a time, so the scope's edge block moves at most once per list.
        let lists: [(EntryKind, crate::il::ListField); 6] = [
            (EntryKind::Variable, F::SCOPE_VARIABLES),
            (EntryKind::Routine, F::SCOPE_ROUTINES),
            (EntryKind::Type, F::SCOPE_TYPES),
            (EntryKind::Namespace, F::SCOPE_NAMESPACES),
            (EntryKind::UsingDeclaration, F::SCOPE_USING_DECLS),
            (EntryKind::Template, F::SCOPE_TEMPLATES),
        ];
        for (k, f) in lists {
            for kid in kids {
                if !kid.e.is_none() && !kid.reused && self.il.kind(kid.e) == k {
                    self.push(scope, f, kid.e)?;
                }
            }
        }
        Ok(())
    }

    fn finish_function(&mut self, t: usize, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        let reused = self.frames[t].reused;
        let has_params = !self.il.list_eix(e, F::ROUTINE_PARAMS).is_empty();
        let mut body = Eix::NONE;
        let mut bits = 0u16;
        let mut info = Eix::NONE;
        if !self.frames[t].targ_entries.is_empty() {
            info = self.template_info(t)?;
            bits |= rf::INSTANCE;
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::Statement => body = k.e,
                EntryKind::Attribute => {
                    bits |= match self.il.attribute(k.e).attr_kind() {
                        AttrKind::Global => rf::GLOBAL,
                        AttrKind::Device => rf::DEVICE,
                        AttrKind::Host => rf::HOST,
                        AttrKind::ImplicitDevice | AttrKind::ImplicitHost => rf::IMPLICIT_HD,
                        AttrKind::AlwaysInline => rf::ALWAYS_INLINE,
                        _ => 0,
                    };
                }
                _ => {}
            }
        }
        let has_body = !body.is_none();
        let replace_params = has_body && has_params && reused;
        // The definition's parameters replace an earlier declaration's, which go to the
        // param_type free list once the definition is done (as a redeclaration's
        // redundant parameter list is freed) when the import runs the allocator's
        // lifecycle (`Bodies::Device`, where freed indices are held until the end, so a
        // recycled parameter never takes the dense index of the one it replaces).
        let mut replaced: Vec<Eix> = Vec::new();
        if replace_params {
            if self.close_host_bodies {
                replaced.extend_from_slice(self.il.list_eix(e, F::ROUTINE_PARAMS));
                replaced.retain(|p| !kids.iter().any(|k| k.e == *p));
            }
            self.il.retain_list(e, F::ROUTINE_PARAMS, |_| false);
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            if self.il.kind(k.e) == EntryKind::ParamType && (!has_params || replace_params) {
                self.push(e, F::ROUTINE_PARAMS, k.e)?;
            }
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::Attribute if !(reused && k.flags & FL_INHERITED != 0) => {
                    self.push(e, F::ROUTINE_ATTRIBUTES, k.e)?
                }
                EntryKind::ConstructorInit => self.push(e, F::ROUTINE_CTOR_INITS, k.e)?,
                _ => {}
            }
        }
        if !info.is_none() && self.il.child_eix(e, F::ROUTINE_TEMPLATE_INFO).is_none() {
            self.set_child(e, F::ROUTINE_TEMPLATE_INFO, info)?;
        }
        let scope = self.frames[t].body_scope;
        if has_body {
            if !scope.is_none() {
                self.set_child(scope, F::SCOPE_BLOCK, body)?;
                if self.il.child_eix(e, F::ROUTINE_BODY_SCOPE).is_none() {
                    self.set_child(e, F::ROUTINE_BODY_SCOPE, scope)?;
                }
            }
            self.il.routine_mut(e).set_is_defined(true);
            bits |= rf::BODY;
            if self.frames[t].name == "main"
                && !matches!(self.parent_class(t), Some(Class::Record(_)))
            {
                // The IL header's main routine.
                self.il.main_routine = Some(self.il.id_of(e));
            }
        }
        if !scope.is_none() {
            let locals = std::mem::take(&mut self.frames[t].locals);
            for (k, f) in [
                (EntryKind::Variable, F::SCOPE_VARIABLES),
                (EntryKind::Type, F::SCOPE_TYPES),
            ] {
                for &l in &locals {
                    if !l.is_none() && self.il.kind(l) == k {
                        self.push(scope, f, l)?;
                    }
                }
            }
            self.frames[t].locals = locals;
        }
        self.rflag(e, bits);
        if let Some((saved, region)) = self.frames[t].saved_region.take() {
            self.il.switch_region(saved)?;
            if self.fn_stack.last() == Some(&t) {
                self.fn_stack.pop();
            }
            if self.close_host_bodies && !self.device_capable(e) {
                self.close_body(t, region)?;
            }
        }
        if !replaced.is_empty() {
            let ids: Vec<_> = replaced.iter().map(|&p| self.il.id_of(p)).collect();
            self.il.free_param_type_list(&ids)?;
        }
        Ok(())
    }

    /// Whether device compilation may need `e`'s body: `__global__`, `__device__`, or
    /// clang's implicit host-device attributes (constexpr functions, lambdas, inferred
    /// special members), on this declaration or inherited by it.
    fn device_capable(&self, e: Eix) -> bool {
        self.il.routine(e).decl_flags() & (rf::GLOBAL | rf::DEVICE | rf::IMPLICIT_HD) != 0
    }

    /// Closes the region of the body frame `t` read (a host-only routine's,
    /// [`crate::import::clang_json::Bodies::Device`]): its entries are freed, and the edges
    /// other regions hold into it (the routine's body scope, a static local's
    /// initializer) are cleared as it closes.
    fn close_body(&mut self, t: usize, region: RegionIdx) -> Result<(), IlError> {
        self.frames[t].locals.clear();
        self.frames[t].body_scope = Eix::NONE;
        self.il.close_function_region(region)?;
        self.bodies_closed += 1;
        Ok(())
    }
}
