//! Allocating a node's entry when it opens (its `inner` array starts, or it closes without
//! one): by node class, one function per declaration kind; expressions, statements and
//! records have their own modules. An entry of an earlier declaration or placeholder with
//! the same id (or `previousDecl`) is reused and filled, not duplicated. Opening a node
//! may push name-resolution state (qualifiers, template-parameter scopes, pattern depth,
//! the semantic parent's scopes) that `finalize` pops when it closes; the first statement
//! or constructor initializer under a routine opens its function region.

use super::entries::text;
use super::{
    ie, rf, strip_fn_type, Builder, Fail, FL_CONSTEXPR, FL_IMPLICIT, FL_INHERITED, FL_INLINE,
    FL_PACK,
};
use crate::il::kinds as K;
use crate::il::kinds::vf;
use crate::il::{
    fields as F, ConstantKind, Eix, EntryKind, IlError, RoutineSpecialKind, ScopeKind,
    StorageClass, TemplateKind, TemplateParamKind, TypeKind,
};
use crate::import::clang_json::kinds::{attr_kind, is_decl, Class, ExprClass, RecordKind};
use crate::import::clang_json::types::{Types, ValueParam};

impl Builder<'_> {
    /// Makes frame `t`'s entry (once; `off` is the byte offset for errors).
    pub(super) fn materialize(&mut self, off: u64, t: usize) -> Result<(), Fail> {
        self.frames[t].materialized = true;
        self.offset_err_ctx = off;
        let class = match self.frames[t].class {
            Some(c) => c,
            None => return Ok(()), // `{}`: an absent positional child
        };
        self.set_pos(t);
        let r = self.materialize_inner(t, class);
        r.map_err(|e| ie(off, e))
    }

    /// The entry of frame `t` by its node class, after the stub check; opens the
    /// enclosing routine's body region when its first statement opens.
    fn materialize_inner(&mut self, t: usize, class: Class) -> Result<(), IlError> {
        let pclass = self.parent_class(t);
        self.enter_semantic_parent(t);
        if self.materialize_stub(t, class)? {
            return Ok(());
        }
        let in_body_of_parent = matches!(pclass, Some(Class::Function(_)))
            && matches!(class, Class::Stmt(_) | Class::CtorInit);
        if in_body_of_parent {
            self.open_body(t - 1)?;
        }
        match class {
            Class::Tu => {
                let s = K::alloc_scope(self.il, ScopeKind::File, None)?;
                self.il.primary_scope = Some(s);
                self.frames[t].entry = self.il.eix(s)?;
            }
            Class::Namespace => self.materialize_namespace(t)?,
            Class::Transparent => {
                let e = self.alloc(EntryKind::LinkageSpec)?;
                self.frames[t].entry = e;
            }
            Class::Function(sub) => self.materialize_function(t, sub, pclass)?,
            Class::Var => self.materialize_var(t, pclass)?,
            Class::Parm => self.materialize_parm(t)?,
            Class::Field => self.materialize_field(t, pclass)?,
            Class::Record(rk) => self.materialize_record(t, rk, pclass)?,
            Class::Typedef => self.materialize_typedef(t, pclass)?,
            Class::Enum => self.materialize_enum(t)?,
            Class::EnumConst => self.materialize_enum_const(t)?,
            Class::Template(tk) => self.materialize_template(t, tk)?,
            Class::TemplateParm(pk) => self.materialize_template_parm(t, pk)?,
            Class::TemplateArg | Class::ExprPass | Class::StmtPass => {}
            Class::Expr(ExprClass::Pseudo) | Class::Expr(ExprClass::OpaqueValue) => {}
            Class::Using => {
                let e = self.alloc(EntryKind::UsingDeclaration)?;
                let r = self.frame_ref(t)?;
                self.set_ref(e, F::USING_DECLARATION_TARGET, r)?;
                self.frames[t].entry = e;
                self.register(t, e);
            }
            Class::StaticAssert => {
                let e = self.alloc(EntryKind::StaticAssert)?;
                self.frames[t].entry = e;
            }
            Class::CtorInit => {
                let e = self.alloc(EntryKind::ConstructorInit)?;
                let r = self.frame_ref(t)?;
                self.set_ref(e, F::CONSTRUCTOR_INIT_MEMBER, r)?;
                self.frames[t].entry = e;
            }
            Class::Stmt(sk) => self.materialize_stmt(t, sk)?,
            Class::Expr(ec) => self.materialize_expr(t, ec)?,
            Class::Attr => self.materialize_attr(t)?,
            Class::TypeNode | Class::Comment => {}
            Class::Other => {
                let e = self.opaque(t)?;
                self.frames[t].entry = e;
                if is_decl(class) {
                    self.register(t, e);
                }
            }
        }
        Ok(())
    }

    /// A reference-only stub `{id, kind, name}` (explicit specializations listed under
    /// their template, dumped in full elsewhere): a placeholder the full node fills. True
    /// when frame `t` is one (its entry is then set).
    fn materialize_stub(&mut self, t: usize, class: Class) -> Result<bool, IlError> {
        let f = &self.frames[t];
        if f.id != 0
            && !f.has_pos
            && f.mangled.is_empty()
            && !f.in_inner
            && f.nkids == 0
            && f.flags == 0
            && matches!(
                class,
                Class::Function(_) | Class::Record(_) | Class::Var | Class::Template(_)
            )
        {
            let (id, kind, name) = (f.id, f.kind, f.name.clone());
            let e = if matches!(class, Class::Record(_)) {
                // Records are found by name when their full node comes.
                self.lookup(id).map(|x| x.0).unwrap_or(Eix::NONE)
            } else {
                self.resolve_ref(id, kind, &name)?
            };
            let f = &mut self.frames[t];
            f.entry = e;
            f.reused = true;
            f.stub = true;
            return Ok(true);
        }
        Ok(false)
    }

    /// Opens the function region of the routine frame `p` (its body starts).
    fn open_body(&mut self, p: usize) -> Result<(), IlError> {
        if self.frames[p].saved_region.is_some() {
            return Ok(());
        }
        let routine = self.frames[p].entry;
        if routine.is_none() {
            return Ok(());
        }
        let saved = self.il.current_region();
        let rid = self.il.id_of(routine);
        let body = self.il.open_function_region(None);
        self.frames[p].saved_region = Some((saved, body));
        let scope = K::alloc_scope(self.il, ScopeKind::Function, Some(rid))?;
        let se = self.il.eix(scope)?;
        self.frames[p].body_scope = se;
        self.fn_stack.push(p);
        Ok(())
    }

    /// A namespace: its entry and scope; its name joins the qualifier stack.
    fn materialize_namespace(&mut self, t: usize) -> Result<(), IlError> {
        let e = self.alloc(EntryKind::Namespace)?;
        let name = self.frames[t].name.clone();
        if let Some(b) = text(e, &name) {
            self.il.namespace_mut(e).set_name(b);
        }
        let s = K::alloc_scope(self.il, ScopeKind::Namespace, None)?;
        let se = self.il.eix(s)?;
        self.set_child(e, F::NAMESPACE_SCOPE, se)?;
        if self.frames[t].flags & FL_INLINE != 0 {
            self.il.namespace_mut(e).set_is_inline(true);
        }
        self.frames[t].entry = e;
        let comp = if name.is_empty() {
            self.anon_depth += 1;
            "(anonymous namespace)".to_string()
        } else if self.frames[t].flags & FL_INLINE != 0 {
            // clang's printer omits inline namespaces (`std::__cxx11`).
            String::new()
        } else {
            name
        };
        self.types.qual.push(comp);
        self.frames[t].qual_pushed = true;
        self.register(t, e);
        Ok(())
    }

    /// A routine (`sub`: the special kind), or the entry of an earlier declaration of it:
    /// names, type, storage class, [`rf`] bits; constructors are indexed by signature.
    fn materialize_function(
        &mut self,
        t: usize,
        sub: RoutineSpecialKind,
        pclass: Option<Class>,
    ) -> Result<(), IlError> {
        let reused = self.reuse(t, EntryKind::Routine);
        let e = match reused {
            Some(e) => e,
            None => self.alloc(EntryKind::Routine)?,
        };
        let known_full = self
            .ids
            .get(self.frames[t].previous)
            .map(|x| x.1)
            .unwrap_or(false);
        self.frames[t].reused = reused.is_some() && known_full;
        self.frames[t].entry = e;
        let (name, mangled) = (self.frames[t].name.clone(), self.frames[t].mangled.clone());
        if self.il.name(e).is_empty() {
            if let Some(b) = text(e, &name) {
                self.il.routine_mut(e).set_name(b);
            }
        }
        if !mangled.is_empty() && self.il.string(e, 1).is_empty() {
            if let Some(b) = text(e, &mangled) {
                self.il.routine_mut(e).set_mangled_name(b);
            }
        }
        // A template's pattern: its own type is read as a pattern's (template-ids over
        // its parameters stay dependent).
        self.enter_pattern(t, pclass);
        let ty = self.type_of(t)?;
        if !ty.is_none() && self.il.child_eix(e, F::ROUTINE_TYPE).is_none() {
            self.set_child(e, F::ROUTINE_TYPE, ty)?;
            let base = Types::strip(self.il, ty);
            if let Some(ret) = self.il.child_eix(base, F::TYPE_BASE_TYPE) {
                self.set_child(e, F::ROUTINE_RETURN_TYPE, ret)?;
            }
        }
        let sc = match self.frames[t].storage.as_str() {
            "static" => StorageClass::Static,
            "extern" => StorageClass::Extern,
            _ => StorageClass::Global,
        };
        self.il
            .routine_mut(e)
            .set_storage_class(sc)
            .set_special_kind(sub);
        let f = self.frames[t].flags;
        if f & (FL_INLINE | FL_CONSTEXPR) != 0 {
            self.il.routine_mut(e).set_is_inline(true);
        }
        let mut bits = 0;
        if f & (FL_INLINE | FL_CONSTEXPR) != 0 {
            bits |= rf::INLINE;
        }
        if sc == StorageClass::Static {
            bits |= rf::STATIC;
        }
        if f & FL_IMPLICIT != 0 {
            bits |= rf::IMPLICIT;
        }
        if matches!(pclass, Some(Class::Record(_))) {
            bits |= rf::MEMBER;
            if sub == RoutineSpecialKind::Constructor {
                let rec = self.frames[t - 1].entry;
                let key = strip_fn_type(&self.frames[t].qual_type);
                self.ctors.entry((rec.raw(), key)).or_insert(e);
            }
        }
        if self.pattern_depth > 0 {
            bits |= rf::PATTERN;
        }
        if self.anon_depth > 0 || !self.fn_stack.is_empty() {
            bits |= rf::INTERNAL;
        }
        self.rflag(e, bits);
        self.register(t, e);
        Ok(())
    }

    /// A variable, or the entry of an earlier declaration of it: storage class, names,
    /// type, and its `decl_flags`.
    fn materialize_var(&mut self, t: usize, pclass: Option<Class>) -> Result<(), IlError> {
        let in_fn = !self.fn_stack.is_empty()
            && !matches!(
                pclass,
                Some(Class::Record(_)) | Some(Class::Tu) | Some(Class::Namespace)
            );
        let sc = match self.frames[t].storage.as_str() {
            "extern" => StorageClass::Extern,
            "static" => StorageClass::Static,
            _ if matches!(pclass, Some(Class::Record(_))) => StorageClass::Static,
            _ if in_fn => StorageClass::Auto,
            _ => StorageClass::Global,
        };
        let e = match self.reuse(t, EntryKind::Variable) {
            Some(e) => {
                self.frames[t].reused = self
                    .ids
                    .get(self.frames[t].previous)
                    .map(|x| x.1)
                    .unwrap_or(false);
                if sc != StorageClass::Extern {
                    self.il.variable_mut(e).set_storage_class(sc);
                }
                e
            }
            None => {
                let v = self.il.alloc_variable(sc)?;
                self.il.eix(v)?
            }
        };
        self.frames[t].entry = e;
        let (name, mangled) = (self.frames[t].name.clone(), self.frames[t].mangled.clone());
        if self.il.name(e).is_empty() {
            if let Some(b) = text(e, &name) {
                self.il.variable_mut(e).set_name(b);
            }
        }
        if !mangled.is_empty() && self.il.string(e, 1).is_empty() {
            if let Some(b) = text(e, &mangled) {
                self.il.variable_mut(e).set_mangled_name(b);
            }
        }
        let ty = self.type_of(t)?;
        if self.il.child_eix(e, F::VARIABLE_TYPE).is_none() {
            self.set_child(e, F::VARIABLE_TYPE, ty)?;
        }
        self.enter_pattern(t, pclass);
        let member = matches!(pclass, Some(Class::Record(_)));
        let constexpr = self.frames[t].flags & FL_CONSTEXPR != 0;
        if constexpr && !name.is_empty() {
            // A dependent array bound may name it.
            self.types.const_vars.insert(name, e);
        }
        let bits = [
            (in_fn, vf::LOCAL),
            (self.pattern_depth > 0, vf::PATTERN),
            (member, vf::STATIC_MEMBER),
            (constexpr, vf::CONSTEXPR),
        ];
        for (on, bit) in bits {
            if on {
                let f = self.il.variable(e).decl_flags() | bit;
                self.il.variable_mut(e).set_decl_flags(f);
            }
        }
        self.register(t, e);
        Ok(())
    }

    /// A parameter (param_type).
    fn materialize_parm(&mut self, t: usize) -> Result<(), IlError> {
        let e = match self.reuse(t, EntryKind::ParamType) {
            Some(e) => e,
            None => {
                let p = self.il.alloc_param_type()?;
                self.il.eix(p)?
            }
        };
        self.frames[t].entry = e;
        let name = self.frames[t].name.clone();
        if let Some(b) = text(e, &name) {
            self.il.param_type_mut(e).set_name(b);
        }
        let ty = self.type_of(t)?;
        self.set_child(e, F::PARAM_TYPE_TYPE, ty)?;
        if self.frames[t].flags & FL_PACK != 0 {
            self.il.param_type_mut(e).set_is_pack(true);
        }
        self.register(t, e);
        Ok(())
    }

    /// A field, indexed by its class and name for the builtin-property fix-up.
    fn materialize_field(&mut self, t: usize, pclass: Option<Class>) -> Result<(), IlError> {
        let e = match self.reuse(t, EntryKind::Field) {
            Some(e) => e,
            None => self.alloc(EntryKind::Field)?,
        };
        self.frames[t].entry = e;
        let name = self.frames[t].name.clone();
        if let Some(b) = text(e, &name) {
            self.il.field_mut(e).set_name(b);
        }
        let ty = self.type_of(t)?;
        self.set_child(e, F::FIELD_TYPE, ty)?;
        if matches!(pclass, Some(Class::Record(_))) {
            let rec = self.frames[t - 1].entry;
            if !rec.is_none() {
                self.members.entry((rec.raw(), name)).or_insert(e);
            }
        }
        self.register(t, e);
        Ok(())
    }

    /// A typedef or alias: a tk_typeref named entry over the aliased type.
    fn materialize_typedef(&mut self, t: usize, pclass: Option<Class>) -> Result<(), IlError> {
        if let Some(&p) = self.fn_stack.last() {
            let nested = (p + 1..t).any(|f| self.frames[f].qual_pushed || self.frames[f].body_qual);
            if !self.frames[p].body_qual && p < t && !nested {
                // A local type: named inside its routine's body, so that a template's
                // pattern and each instantiation (and two routines) have their own.
                self.frames[p].body_qual = true;
                let id = self.frames[p].id;
                self.types.qual.push(format!("(body {id:x})"));
            }
        }
        let name = self.frames[t].name.clone();
        let q = self.qname(&name);
        let (e, existed) = self.types.named_entry(self.il, &q, TypeKind::Typeref)?;
        if matches!(pclass, Some(Class::Template(TemplateKind::Alias)))
            && !self.frames[t - 1].pattern_seen
        {
            // The pattern of an alias template: `_If_sv<_Tp, int>` names it.
            self.types.template_name(self.il, &q, e)?;
        }
        if !existed || self.il.ty(e).type_kind() == TypeKind::Typeref {
            let target = self.type_of(t)?;
            if !target.is_none()
                && target != e
                && self.il.child_eix(e, F::TYPE_BASE_TYPE).is_none()
                && Types::strip(self.il, target) != e
            {
                self.set_child(e, F::TYPE_BASE_TYPE, target)?;
            }
        }
        self.frames[t].entry = e;
        self.frames[t].reused = existed;
        self.enter_pattern(t, pclass);
        self.register(t, e);
        Ok(())
    }

    /// An enum: a named tk_integer entry (`format` 1).
    fn materialize_enum(&mut self, t: usize) -> Result<(), IlError> {
        let name = self.frames[t].name.clone();
        let q = if name.is_empty() {
            let (f, l, c) = self.frames[t].pos;
            let n = format!("(unnamed enum at {}:{}:{})", self.file_name(f), l, c);
            self.qname(&n)
        } else {
            self.qname(&name)
        };
        let (e, existed) = self.types.named_entry(self.il, &q, TypeKind::Integer)?;
        self.il.ty_mut(e).set_size(4).set_format(1);
        self.frames[t].entry = e;
        self.frames[t].reused = existed;
        self.register(t, e);
        Ok(())
    }

    /// An enumerator: an integer constant.
    fn materialize_enum_const(&mut self, t: usize) -> Result<(), IlError> {
        let e = match self.reuse(t, EntryKind::Constant) {
            Some(e) => e,
            None => {
                let c = self.alloc(EntryKind::Constant)?;
                K::set_constant_kind(self.il, self.il.id_of(c), ConstantKind::Integer)?;
                c
            }
        };
        let name = self.frames[t].name.clone();
        if let Some(b) = text(e, &name) {
            self.il.constant_mut(e).set_name(b);
        }
        self.frames[t].entry = e;
        self.register(t, e);
        Ok(())
    }

    /// A template (`tk`: its kind); its parameters get a scope of their own.
    fn materialize_template(&mut self, t: usize, tk: TemplateKind) -> Result<(), IlError> {
        let e = match self.reuse(t, EntryKind::Template) {
            Some(e) => e,
            None => self.alloc(EntryKind::Template)?,
        };
        self.frames[t].reused = self
            .ids
            .get(self.frames[t].previous)
            .map(|x| x.1)
            .unwrap_or(false);
        let name = self.frames[t].name.clone();
        if self.il.name(e).is_empty() {
            if let Some(b) = text(e, &name) {
                self.il.template_mut(e).set_name(b);
            }
        }
        self.il.template_mut(e).set_template_kind(tk);
        self.frames[t].entry = e;
        self.types.tparam_scopes.push(Vec::new());
        self.frames[t].tparams_pushed = true;
        self.register(t, e);
        Ok(())
    }

    /// A template parameter (`pk`: type, non-type, template).
    fn materialize_template_parm(
        &mut self,
        t: usize,
        pk: TemplateParamKind,
    ) -> Result<(), IlError> {
        let e = match self.reuse(t, EntryKind::TemplateParam) {
            Some(e) => e,
            None => self.alloc(EntryKind::TemplateParam)?,
        };
        let name = self.frames[t].name.clone();
        if let Some(b) = text(e, &name) {
            self.il.template_param_mut(e).set_name(b);
        }
        let (index, depth) = (self.frames[t].index, self.frames[t].depth);
        self.il
            .template_param_mut(e)
            .set_position(index)
            .set_depth(depth)
            .set_param_kind(pk)
            .set_is_pack(self.frames[t].flags & FL_PACK != 0);
        if !name.is_empty() {
            if let Some(s) = self.types.tparam_scopes.last_mut() {
                s.push(name.clone());
            }
        }
        if pk == TemplateParamKind::NonType {
            // A template parameter's type is part of the template, not of an
            // instantiation.
            self.pattern_depth += 1;
            let ty = self.type_of(t);
            self.pattern_depth -= 1;
            let ty = ty?;
            self.set_child(e, F::TEMPLATE_PARAM_TYPE, ty)?;
            if !name.is_empty()
                && matches!(
                    self.parent_class(t),
                    Some(Class::Template(_) | Class::Record(RecordKind::Partial))
                )
            {
                // A dependent array bound may name it (a declaration of the template,
                // not the parameter an instantiation's substituted expression names).
                let level = self.types.tparam_scopes.len();
                self.types.value_params.push(ValueParam {
                    name,
                    depth,
                    position: index,
                    ty,
                    level,
                });
            }
        }
        self.frames[t].entry = e;
        self.register(t, e);
        Ok(())
    }

    /// An attribute, with its `attr_kind` and implicit/inherited flags.
    fn materialize_attr(&mut self, t: usize) -> Result<(), IlError> {
        let e = self.alloc(EntryKind::Attribute)?;
        let kn = self.kind_names[self.frames[t].kind as usize].clone();
        let f = self.frames[t].flags;
        self.il
            .attribute_mut(e)
            .set_attr_kind(attr_kind::of(&kn, f & FL_IMPLICIT != 0))
            .set_flags((f & FL_IMPLICIT != 0) as u8 | (((f & FL_INHERITED != 0) as u8) << 1));
        if let Some(b) = text(e, &kn) {
            self.il.attribute_mut(e).set_name(b);
        }
        self.frames[t].entry = e;
        Ok(())
    }

    /// An out-of-line member definition (`parentDeclContextId` names a class): names in
    /// it are looked up from that class's scope, as clang printed them, until it closes.
    fn enter_semantic_parent(&mut self, t: usize) {
        let id = self.frames[t].parent_ctx;
        if id == 0 || self.frames[t].saved_qual.is_some() {
            return;
        }
        let Some((e, _)) = self.lookup(id) else {
            return;
        };
        if let Some(scopes) = self.types.scopes_of(e) {
            self.frames[t].saved_qual = Some(std::mem::replace(&mut self.types.qual, scopes));
        }
    }

    /// Frame `t`, a child of a template, is its pattern when it is the first templated
    /// declaration there (a routine with a mangled name is an instantiation: clang
    /// mangles no templated declaration; a class template specialization is one too).
    pub(super) fn enter_pattern(&mut self, t: usize, pclass: Option<Class>) {
        let instance = match self.frames[t].class {
            Some(Class::Function(_)) => !self.frames[t].mangled.is_empty(),
            Some(Class::Record(rk)) => rk == RecordKind::Spec,
            _ => false,
        };
        if instance {
            return;
        }
        if let Some(Class::Template(_)) = pclass {
            let p = t - 1;
            if !self.frames[p].pattern_seen {
                self.frames[p].pattern_seen = true;
                self.frames[t].pattern = true;
                self.pattern_depth += 1;
            }
        }
    }
}
