// Every IL entry kind, 0..=84, once. `build.rs` expands this list into the kind enum, the
// per-kind SoA tables, the child-edge layout and the walk tables. See README.md here for
// how to add a kind. Numbers, names and sizes: the seeds' entry-kind table and the IL
// allocation notes (seed 001).
//
// Field roles: `child` and `list` are owned edges (walks descend), `reference` is a
// non-owning edge (walks remap it, keep-in-IL marks the target as a declaration but does not
// descend), `string` has a string kind (24 id_name, 25 string_text, 26 other_text).

pub fn entries() -> Vec<KindDef> {
    use Cat::*;
    use RegionRule::*;
    let mut v = vec![
        KindDef { name: "none", walk_label: "none", ..reserved(0) },
        kind(1, "source_file_entry", Source, 80, "source file", FileScope, true,
            "A source file: names, the files it includes, its module.", &[
            string("file_name", 26), string("full_name", 26), string("name_as_written", 26),
            list("child_files", "source_file_entry", "child_file at +56"),
            reference("associated_file", "source_file_entry"),
            child("module_info", "module_info"),
            scalar("first_seq", "u32"), flag("is_include_file"),
        ]),
        // `share_key`: the exact key of constant sharing's memo (`il::derived`), so a
        // sharing lookup reads one 16-byte key instead of a dozen columns.
        kind(2, "constant", Constant, 184, "constant", Dual, true,
            "A constant value; constant_kind picks the variant (16 ck_* kinds).", &[
            scalar("constant_kind", "ConstantKind"), scalar("sub_kind", "u8"), scalar("value", "i64"),
            scalar("text_len", "u32"), scalar("ptm_flags", "u8"),
            // Second 64-bit payload: the imaginary part of a complex constant (f64 bits).
            scalar("value2", "i64"),
            string("text", 25),
            child("type", "type"), child("declared_type", "type"), child("expr", "expr_node"),
            child("template_info", "template_info"),
            child("operand", "any"),
            list("aggregate", "constant", "next constant at +104"),
            child("subobject_path", "subobject_path"),
            flag("is_shared"),
            // Stamped by a deep copy with mark_instantiated (0x1000).
            flag("is_instantiated"),
            // Added for the clang importer: the name of an enumerator constant.
            string("name", 24),
        ])
        .derived(&[("share_key", "[u64; 2]")])
        // `sub_kind` is one byte whose vocabulary the constant kind picks (seed 000's
        // walk reads it under ck_address, ck_template_param and ck_reflection; a string
        // keeps its character kind there).
        .sub_kinds(&[
            sub_kind("sub_kind", "constant_kind", "Address", "AddressKind", "address_kind"),
            sub_kind("sub_kind", "constant_kind", "TemplateParam", "TemplateParamConstantKind",
                "template_param_constant_kind"),
            sub_kind("sub_kind", "constant_kind", "Reflection", "EntryKind", "reflected_kind"),
        ]),
        kind(3, "param_type", Object, 80, "param type", Dual, true,
            "One parameter of a routine type.", &[
            string("name", 24), child("type", "type"), child("declared_type", "type"),
            child("default_arg", "expr_node"), list("attributes", "attribute", "next attribute"),
            flag("is_pack"),
        ]),
        kind(4, "routine_type_supplement", Type, 64, "routine type supplement", FileScope, false,
            "The routine-type supplement: calling convention, parameters, exception spec.", &[
            scalar("calling_convention", "u8"), scalar("param_flags", "u16"),
            list("params", "param_type", "next param_type"),
            child("exception_spec", "exception_specification"),
        ]),
        kind(5, "routine_type_extra", Type, 0, "routine type extra", FileScope, false,
            "Rarely needed routine-type data.", &[scalar("extra_flags", "u32")]),
        kind(6, "type", Type, 176, "type", FileScope, true,
            "A type; type_kind picks the variant (22 tk_* kinds) and the supplement.", &[
            scalar("type_kind", "TypeKind"), scalar("qualifiers", "u8"), scalar("size", "u64"),
            scalar("alignment", "u32"), scalar("int_kind", "IntKind"), scalar("supp_access", "u8"),
            scalar("format", "u8"), scalar("tparam_position", "u16"), scalar("tparam_depth", "u16"),
            string("name", 24),
            child("base_type", "type"), child("routine_supplement", "routine_type_supplement"),
            child("class_info", "class_info"), child("template_info", "template_info"),
            child("scope", "scope"), child("array_bound", "constant"),
            list("fields", "field", "next field at +104"),
            list("bases", "base_class", "next base_class"),
            flag("is_defined"), flag("is_external"),
            // Added for the clang importer: the enumerators of an enum type.
            list("enum_constants", "constant", "next enumerator"),
        ]),
        kind(7, "variable", Object, 232, "variable", Dual, true,
            "A variable; storage_class > 2 (global, extern, static) lives in file scope.", &[
            string("name", 24), string("mangled_name", 26),
            scalar("storage_class", "StorageClass"), scalar("cuda_space", "u8"),
            child("type", "type"), child("initializer", "expr_node"),
            child("declared_type", "type"), list("attributes", "attribute", "next attribute"),
            child("dynamic_init", "dynamic_init"),
            flag("is_defined"),
            // Declaration facts device marking needs (`il::kinds::vf` bits): local to a body,
            // inside a template pattern, static data member, constexpr.
            scalar("decl_flags", "u8"),
        ]),
        kind(8, "field", Object, 176, "field", FileScope, true,
            "A non-static data member.", &[
            string("name", 24), scalar("offset", "u64"), scalar("access", "u8"),
            child("type", "type"), child("bit_size", "constant"),
        ]),
        kind(9, "exception_specification", Routine, 16, "exception specification", Dual, true,
            "A routine's exception specification.", &[
            list("types", "exception_spec_type", "next"), child("noexcept_expr", "expr_node"),
        ]),
        kind(10, "exception_spec_type", Routine, 24, "exception spec type", Dual, true,
            "One type of a dynamic exception specification.", &[child("type", "type")]),
        kind(11, "routine", Routine, 288, "routine", FileScope, true,
            "A function: return type, parameters, body scope, template info, attributes.", &[
            string("name", 24), string("mangled_name", 26),
            scalar("special_kind", "RoutineSpecialKind"), scalar("special_data", "u64"),
            scalar("storage_class", "StorageClass"), scalar("gnu_supplement", "u32"),
            child("type", "type"), child("return_type", "type"),
            list("params", "param_type", "next param_type"),
            child("body_scope", "scope"), child("template_info", "template_info"),
            child("exception_spec", "exception_specification"),
            list("attributes", "attribute", "next attribute"),
            reference("primary_template", "template"),
            flag("is_defined"), flag("is_inline"),
            // Declaration facts device marking needs (`il::kinds::rf` bits): body, template
            // pattern, CUDA execution space, inline, static, member, instance, implicit,
            // internal. Set by the clang importer; 0 when unknown.
            scalar("decl_flags", "u16"),
            // Added for the clang importer: a constructor's member and base initializers.
            list("ctor_inits", "constructor_init", "next constructor init"),
        ]),
        kind(12, "label", Statement, 128, "label", FunctionOnly, true,
            "A named jump target inside a routine body.", &[
            string("name", 24),
            reference("break_label", "label"), reference("continue_label", "label"),
            reference("target_stmt", "statement"),
            flag("is_address_taken"),
        ]),
        // The most numerous kind: kind, operator, op2 and lvalue-ness share one word, and the
        // supplement index (only new/delete, throw, condition and kind-18 nodes have one)
        // lives in a side map.
        kind(13, "expr_node", Expr, 72, "expr node", Dual, true,
            "An expression; expr_kind picks the variant (36 enk_* kinds, 36 = reclaimed).", &[
            scalar("expr_kind", "ExprKind"), scalar("op", "Op"), scalar("op2", "u8"),
            scalar("supplement", "u32"),
            child("type", "type"), list("operands", "expr_node", "next operand at +16"),
            child("constant", "constant"),
            reference("entity", "any"),
            flag("is_lvalue"),
        ])
        .packed(&[("expr_kind", 6), ("op", 8), ("op2", 8), ("is_lvalue", 1)])
        .rare(&["supplement"])
        // `op2` is the cast kind of a cast (other operations keep their own byte there).
        .sub_kinds(&[sub_kind("op2", "op", "Cast", "CastKind", "cast_kind")]),
        reserved(14),
        reserved(15),
        kind(16, "switch_case_entry", Statement, 56, "switch case entry", Dual, true,
            "One case of a switch.", &[child("stmt", "statement"), child("case_value", "constant")]),
        kind(17, "switch_info", Statement, 24, "switch info", Dual, true,
            "The cases of a switch.", &[
            list("cases", "switch_case_entry", "next case"), child("default_case", "switch_case_entry"),
        ]),
        kind(18, "handler", Statement, 40, "handler", Dual, true,
            "A catch handler.", &[
            child("param", "variable"), child("stmt", "statement"), child("dynamic_init_expr", "expr_node"),
        ]),
        kind(19, "try_supplement", Statement, 32, "try supplement", Dual, false,
            "The handlers of a try block.", &[list("handlers", "handler", "next handler")]),
        kind(20, "asm_supplement", Statement, 0, "asm supplement", Dual, false,
            "The text of an asm statement.", &[string("text", 26)]),
        kind(21, "statement", Statement, 80, "statement", Dual, true,
            "A statement; stmt_kind picks the variant (26 stmk_* kinds).", &[
            scalar("stmt_kind", "StmtKind"), scalar("supplement", "u32"), scalar("priority", "u16"),
            child("expr", "expr_node"), child("expr2", "expr_node"),
            list("stmts", "statement", "next statement"),
            child("label", "label"), child("switch_info", "switch_info"),
            child("try_supplement", "try_supplement"), child("asm", "asm_entry"),
            child("scope", "scope"),
            reference("decl", "any"),
        ]),
        kind(22, "object_lifetime", Statement, 64, "object lifetime", Dual, true,
            "The lifetime of a local object within a scope.", &[
            reference("variable", "variable"), child("next", "object_lifetime"),
        ]),
        kind(23, "scope", Scope, 288, "scope", Dual, true,
            "A scope (9 sck_* kinds) and its member lists.", &[
            scalar("scope_kind", "ScopeKind"), scalar("sentinel", "i64"),
            list("variables", "variable", "next variable"),
            list("routines", "routine", "next routine"),
            list("types", "type", "next type"),
            list("scopes", "scope", "next nested scope"),
            list("namespaces", "namespace", "next namespace"),
            list("using_decls", "using_declaration", "next using-decl"),
            list("hidden_names", "hidden_name", "next hidden name"),
            list("labels", "label", "next label"),
            // Added for the clang importer: templates declared in this scope.
            list("templates", "template", "next template"),
            child("block", "statement"),
            reference("assoc_routine", "routine"), reference("parent", "scope"),
        ]),
        kind(24, "base_class", Type, 112, "base class", FileScope, true,
            "A base of a class.", &[
            scalar("access", "u8"), scalar("offset", "u64"), child("type", "type"),
            reference("derived_class", "type"), child("offset_expr", "expr_node"),
            flag("is_virtual"),
        ]),
        KindDef { name: "string_text", walk_label: "string text", cat: Text, seed_size: 1,
            stats_name: "string literal text", ..reserved(25) },
        KindDef { name: "other_text", walk_label: "other text", cat: Text, seed_size: 1,
            stats_name: "other text", ..reserved(26) },
        kind(27, "template_parameter", Template, 136, "template parameter", FileScope, false,
            "A template parameter supplement: default, constraint.", &[
            string("name", 24), scalar("position", "u16"), scalar("depth", "u16"),
            scalar("param_kind", "TemplateParamKind"), child("default_value", "any"),
            child("constraint", "requires_clause"),
        ]),
        kind(28, "namespace", Scope, 128, "namespace", FileScope, true,
            "A namespace and its scope.", &[
            string("name", 24), child("scope", "scope"), flag("is_inline"),
        ]),
        kind(29, "using_declaration", Scope, 80, "using declaration", Dual, true,
            "A using-declaration naming an entity.", &[
            reference("target", "any"), scalar("access", "u8"),
        ]),
        kind(30, "dynamic_init", Object, 104, "dynamic init", Dual, true,
            "A dynamic initialization (10 kinds).", &[
            scalar("init_kind", "DynamicInitKind"), child("expr", "expr_node"), child("constant", "constant"),
            reference("variable", "variable"), reference("routine", "routine"),
        ]),
        kind(31, "local_static_variable_init", Object, 40, "local static var init", Dual, true,
            "Initialization of a local static variable.", &[
            reference("variable", "variable"), child("init", "dynamic_init"),
        ]),
        kind(32, "vla_dimension", Type, 48, "vla dimension", Dual, true,
            "A variable-length array dimension.", &[child("bound", "expr_node")]),
        kind(33, "overriding_virtual_func", Routine, 40, "overriding virtual func", FileScope, true,
            "A virtual function and the function it overrides.", &[
            reference("routine", "routine"), reference("overridden", "routine"),
        ]),
        reserved(34),
        kind(35, "derivation_path", Type, 24, "derivation path", FileScope, true,
            "A path of base-class derivation steps.", &[
            list("steps", "base_class_derivation", "next derivation step"),
        ]),
        kind(36, "base_class_derivation", Type, 32, "base class derivation", FileScope, true,
            "One step of a derivation path.", &[reference("base_class", "base_class")]),
        reserved(37),
        reserved(38),
        kind(39, "class_info", Type, 208, "class type supplement", FileScope, true,
            "The class-type supplement: access, vtable index, constructor initializers.", &[
            scalar("class_kind", "TypeKind"), scalar("access", "u8"), scalar("vtable_index", "i32"),
            list("ctor_inits", "constructor_init", "next constructor init"),
        ]),
        reserved(40),
        kind(41, "constructor_init", Routine, 48, "constructor init", Dual, true,
            "One member or base initializer of a constructor.", &[
            reference("member", "any"), child("init", "expr_node"),
        ]),
        kind(42, "asm_entry", Statement, 152, "asm entry", Dual, true,
            "An asm statement's text, operands and clobbers.", &[
            string("text", 26), list("operands", "asm_operand", "next operand"),
            list("clobbers", "asm_clobber", "next clobber"),
        ]),
        kind(43, "asm_operand", Statement, 0, "asm operand", Dual, true,
            "One asm operand.", &[string("constraint", 26), child("expr", "expr_node")]),
        kind(44, "asm_clobber", Statement, 0, "asm clobber", Dual, true,
            "One asm clobber.", &[string("name", 26)]),
        reserved(45),
        KindDef { walk_label: "lambda", ..reserved(46) },
        KindDef { walk_label: "lambda_capture", ..reserved(47) },
        KindDef { walk_label: "attribute", ..reserved(48) },
        kind(49, "element_position", Misc, 24, "element position", FileScope, false,
            "A position inside an aggregate initializer.", &[scalar("index", "u32")]),
        kind(50, "source_sequence_entry", Source, 32, "source sequence entry", Dual, true,
            "One entry of a scope's source sequence.", &[
            reference("entity", "any"), scalar("seq", "u32"),
        ]),
        kind(51, "full_entity_decl_info", Source, 56, "full entity decl info", FileScope, true,
            "Full declaration information for an entity.", &[reference("entity", "any")]),
        kind(52, "instantiation_directive", Template, 40, "instantiation directive", FileScope, true,
            "An explicit instantiation directive.", &[reference("entity", "any")]),
        kind(53, "src_seq_sublist", Source, 24, "src-seq sublist", Dual, true,
            "A sublist of a source sequence.", &[
            list("entries", "source_sequence_entry", "next src-seq entry"),
        ]),
        kind(54, "explicit_instantiation_decl", Template, 0, "explicit instantiation decl", FileScope, true,
            "An explicit instantiation declaration.", &[reference("entity", "any")]),
        kind(55, "orphaned_entities", Scope, 56, "orphaned list header", FileScope, true,
            "Entities whose parent scope went away.", &[
            list("entities", "any", "next orphan"), reference("scope", "scope"),
        ]),
        kind(56, "hidden_name", Scope, 32, "hidden name", Dual, true,
            "A name hidden in a scope.", &[string("name", 24), reference("entity", "any")]),
        kind(57, "pragma", Misc, 64, "pragma", SameRegionAs, true,
            "A pragma (43 kinds).", &[
            scalar("pragma_kind", "PragmaKind"), scalar("payload", "u32"), string("text", 26),
        ]),
        kind(58, "template", Template, 208, "template", FileScope, true,
            "A template: parameters, pattern, constraint.", &[
            string("name", 24), scalar("template_kind", "TemplateKind"),
            list("params", "template_param", "next template param"),
            child("pattern", "any"), child("requires", "requires_clause"),
        ]),
        kind(59, "template_decl", Template, 40, "template decl", FileScope, true,
            "A template declaration.", &[
            child("template", "template"), list("params", "template_param", "next"),
        ]),
        kind(60, "requires_clause", Template, 16, "requires clause", FileScope, true,
            "A requires-clause.", &[child("expr", "expr_node")]),
        kind(61, "template_param", Template, 136, "template parameters", FileScope, true,
            "A template parameter (type, non-type or template), possibly a pack.", &[
            string("name", 24), scalar("position", "u16"), scalar("depth", "u16"),
            scalar("param_kind", "TemplateParamKind"), child("type", "type"), child("default_arg", "any"),
            flag("is_pack"),
        ]),
        kind(62, "name_reference", Misc, 40, "name reference", Dual, true,
            "A name as written, with its qualifier.", &[
            string("name", 24), reference("entity", "any"), child("qualifier", "name_qualifier"),
            // Added for the clang importer: an AST node of a kind the importer does not map
            // is kept as a name reference holding its clang kind name and its children.
            string("clang_kind", 26), list("children", "any", "opaque node children"),
        ]),
        kind(63, "name_qualifier", Misc, 40, "name qualifier", Dual, true,
            "One qualifier of a qualified name.", &[
            reference("scope", "any"), child("next", "name_qualifier"),
        ]),
        kind(64, "seq_number_lookup", Source, 32, "seq_number_lookup_entry", FileScope, true,
            "A sequence-number lookup entry.", &[scalar("seq", "u32"), reference("entity", "any")]),
        kind(65, "local_expr_node_ref", Expr, 0, "local-expr-node-ref", Dual, true,
            "A reference to a local expression node.", &[reference("expr", "expr_node")]),
        kind(66, "static_assert", Misc, 24, "static_assertion", Dual, true,
            "A static assertion.", &[child("cond", "expr_node"), child("message", "constant")]),
        kind(67, "linkage_spec", Scope, 32, "linkage_spec_block", FileScope, true,
            "A linkage specification block.", &[scalar("language", "u8")]),
        kind(68, "scope_ref", Scope, 32, "local-scope-ref", Dual, true,
            "A reference to a scope.", &[reference("scope", "scope")]),
        reserved(69),
        kind(70, "lambda", Expr, 0, "lambda", Dual, true,
            "A lambda: closure class, call operator, captures.", &[
            child("closure_type", "type"), child("call_operator", "routine"),
            list("captures", "lambda_capture", "next capture"),
        ]),
        kind(71, "lambda_capture", Expr, 0, "lambda capture", Dual, true,
            "One lambda capture.", &[
            reference("variable", "variable"), scalar("mode", "u8"), child("init", "expr_node"),
        ]),
        KindDef { walk_label: "attribute (C++11)", ..kind(72, "attribute", Attribute, 72, "attribute", Dual, true,
            "An attribute (__global__, __device__, aligned, ...).", &[
            string("name", 24), string("scope_name", 24), scalar("attr_kind", "AttrKind"),
            scalar("flags", "u8"), list("args", "attribute_argument", "next argument"),
        ]) },
        kind(73, "attribute_argument", Attribute, 40, "attribute_arg", Dual, true,
            "One attribute argument.", &[
            string("text", 26), child("expr", "expr_node"), child("constant", "constant"),
        ]),
        kind(74, "attribute_group", Attribute, 8, "attribute_group", Dual, true,
            "A group of attributes.", &[list("attributes", "attribute", "next attribute")]),
        reserved(75),
        reserved(76),
        reserved(77),
        reserved(78),
        kind(79, "template_info", Template, 0, "template info", FileScope, true,
            "Template arguments of an instantiation and the template it came from.", &[
            reference("template", "template"), list("args", "any", "next template_arg"),
            scalar("instantiation_kind", "u8"),
        ]),
        kind(80, "subobject_path", Constant, 24, "subobject_path", FileScope, true,
            "A path to a subobject inside an address constant.", &[
            scalar("index", "u32"), reference("field", "any"), child("next", "subobject_path"),
        ]),
        reserved(81),
        kind(82, "module_info", Misc, 0, "module info", FileScope, true,
            "A C++20 module.", &[string("name", 24)]),
        kind(83, "module_decl", Misc, 0, "module decl", FileScope, true,
            "A C++20 module declaration.", &[string("name", 24), reference("module", "module_info")]),
    ];
    v.push(KindDef { name: "last", walk_label: "last", ..reserved(84) });
    v
}

/// Phase 5 of the file-scope walk: the global per-kind lists, in the seed's order
/// (61 before 59 is the binary's order).
pub const PHASE5_WALK_ORDER: [u8; 45] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 27, 28, 29,
    30, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 46, 47, 48, 61, 59, 62, 63, 72,
];

/// Phase 6: the trailing lists. Kind 6 here is the external-declarations list, linked
/// through the type's own link rather than the per-kind list.
pub const PHASE6_WALK_ORDER: [u8; 3] = [64, 6, 83];
