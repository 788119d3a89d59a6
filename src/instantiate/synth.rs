//! Instantiating the generator's templates (`ilkit il dump --instantiate`).

use super::{Binding, DataModel, Subst, TemplateArgs};
use crate::il::{fields as F, Eix, EntryId, EntryKind, Il, IlError};
use crate::share::ConstantSharing;

/// Instantiates the templates the generator made (`il::synth`): for each template and
/// each instantiation recorded in a `template_info` naming it, copies the pattern routine
/// (`walk::copy::copy_subtree`, sharing file-scope types) and names the copy
/// `<template><arg>`. Each statement expression of the copy that uses a template
/// parameter is replaced by its substitution ([`Subst::copy_template_param_expr`] on the
/// LP64 model, in the copy's body region): `sizeof(T) * 2` folds to a constant and
/// `t + 1` gets `1` converted to `T`. The parameter is then replaced by the argument in
/// every other `type` child of the copy (the routine's and its variables' types).
/// Returns the new routines. Meant for `ilkit il dump --instantiate`.
///
/// # Errors
/// Stale entries or a walk error in the pattern.
pub fn instantiate_synth_templates(il: &mut Il) -> Result<Vec<EntryId>, IlError> {
    let templates: Vec<Eix> = il.kind_list(EntryKind::Template).collect();
    let infos: Vec<Eix> = il.kind_list(EntryKind::TemplateInfo).collect();
    let mut out = Vec::new();
    let mut sharing = ConstantSharing::new();
    for t in templates {
        let Some(pattern) = il.child_eix(t, F::TEMPLATE_PATTERN) else {
            continue;
        };
        if il.kind(pattern) != EntryKind::Routine {
            continue;
        }
        let param_types: Vec<Eix> = il
            .list_eix(t, F::TEMPLATE_PARAMS)
            .iter()
            .filter_map(|&p| il.child_eix(p, F::TEMPLATE_PARAM_TYPE))
            .collect();
        for &info in &infos {
            if il.ref_eix(info, F::TEMPLATE_INFO_TEMPLATE) != Some(t) {
                continue;
            }
            let args: Vec<Eix> = il.list_eix(info, F::TEMPLATE_INFO_ARGS).to_vec();
            let (copy, _) = crate::walk::copy::copy_subtree(
                il,
                il.id_of(pattern),
                &crate::walk::copy::share_file_scope_types,
            )
            .map_err(|e| IlError::Assert(e.message))?;
            let ce = il.eix(copy)?;
            let mut name = il.name(t).to_vec();
            name.push(b'<');
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    name.push(b',');
                }
                name.extend_from_slice(il.name(a));
            }
            name.push(b'>');
            il.set_string(copy, 0, &name)?;
            il.set_child(copy, F::ROUTINE_TEMPLATE_INFO, Some(il.id_of(info)))?;
            substitute_statement_exprs(il, ce, &param_types, &args, &mut sharing)?;
            // Substitute T by its argument in the copy's type children (iteratively over
            // the copied subtree).
            let mut stack = vec![ce];
            let mut seen = ahash::AHashSet::new();
            while let Some(e) = stack.pop() {
                if !seen.insert(e) {
                    continue;
                }
                let n = il.children(e).len();
                for i in 0..n {
                    let c = il.children(e)[i];
                    if c.is_none() {
                        continue;
                    }
                    if let Some(j) = param_types.iter().position(|&p| p == c) {
                        if let Some(&a) = args.get(j) {
                            il.replace_child_at(e, i, a);
                        }
                    } else if il.kind(c) != EntryKind::Type {
                        stack.push(c);
                    }
                }
            }
            out.push(copy);
        }
    }
    Ok(out)
}

/// Replaces each statement expression under routine `rt` that uses one of `params` (type
/// parameters, bound in order to `args`) by its substitution, allocated in the region of
/// the statement at its position. The replaced tree stays unreferenced in that region
/// until the region goes (as the deep copier leaves a copied constant sharing replaced).
fn substitute_statement_exprs(
    il: &mut Il,
    rt: Eix,
    params: &[Eix],
    args: &[Eix],
    sharing: &mut ConstantSharing,
) -> Result<(), IlError> {
    // The statements whose expression depends on a parameter.
    let mut found = Vec::new();
    let mut stack = vec![rt];
    let mut seen = ahash::AHashSet::new();
    while let Some(e) = stack.pop() {
        if !seen.insert(e) {
            continue;
        }
        if il.kind(e) == EntryKind::Statement {
            if let Some(x) = il.child_eix(e, F::STATEMENT_EXPR) {
                if uses_any(il, x, params) {
                    found.push((e, x));
                }
            }
        }
        for &c in il.children(e) {
            if !c.is_none() && !matches!(il.kind(c), EntryKind::Type | EntryKind::ExprNode) {
                stack.push(c);
            }
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    let mut targs = TemplateArgs::new();
    for (&p, &a) in params.iter().zip(args) {
        let Some(t) = il.as_ty(p) else { continue };
        let (depth, pos) = (t.tparam_depth(), t.tparam_position());
        targs.bind(depth, pos, Binding::Type(il.id_of(a)));
    }
    let (saved, cursor) = (il.current_region(), il.position());
    let mut subst = Subst::new(il, &targs, DataModel::default(), sharing)?;
    for (stmt, x) in found {
        // New nodes take the statement's region and position.
        il.switch_region(il.region_of(stmt))?;
        let p = il.pos(stmt);
        il.set_position(p.file, p.line, p.col as u32);
        let y = subst.copy_template_param_expr(il, x)?;
        il.replace_child_at(stmt, F::STATEMENT_EXPR.slot as usize, y);
    }
    il.set_position(cursor.file, cursor.line, cursor.col as u32);
    il.switch_region(saved)
}

/// Whether the expression tree at `x` names one of the type parameters `params` (as a
/// node's type or through a variable of that type).
fn uses_any(il: &Il, x: Eix, params: &[Eix]) -> bool {
    let mut stack = vec![x];
    while let Some(e) = stack.pop() {
        if il.kind(e) != EntryKind::ExprNode {
            continue;
        }
        if il
            .child_eix(e, F::EXPR_NODE_TYPE)
            .is_some_and(|t| params.contains(&t))
        {
            return true;
        }
        stack.extend(il.list_eix(e, F::EXPR_NODE_OPERANDS));
    }
    false
}
