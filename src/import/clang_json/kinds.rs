//! Classification of clang AST node kinds: what each becomes in the IL.

/// The role a clang node kind plays in the import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// TranslationUnitDecl.
    Tu,
    /// NamespaceDecl.
    Namespace,
    /// LinkageSpecDecl, ExportDecl: transparent, members go to the enclosing scope.
    Transparent,
    /// FunctionDecl and the C++ method kinds.
    Function(u8),
    /// VarDecl and kin.
    Var,
    /// ParmVarDecl.
    Parm,
    /// FieldDecl, MSPropertyDecl, IndirectFieldDecl.
    Field,
    /// RecordDecl, CXXRecordDecl, ClassTemplate(Partial)SpecializationDecl.
    Record(RecordKind),
    /// TypedefDecl, TypeAliasDecl.
    Typedef,
    /// EnumDecl.
    Enum,
    /// EnumConstantDecl.
    EnumConst,
    /// ClassTemplateDecl (1), FunctionTemplateDecl (2), VarTemplateDecl (3),
    /// TypeAliasTemplateDecl (4), ConceptDecl (5).
    Template(u8),
    /// Template parameter decls: type (0), non-type (1), template (2).
    TemplateParm(u8),
    /// TemplateArgument.
    TemplateArg,
    /// UsingDecl / UsingShadowDecl / UsingDirectiveDecl / NamespaceAliasDecl.
    Using,
    /// StaticAssertDecl.
    StaticAssert,
    /// A statement with its stmk_* kind.
    Stmt(u8),
    /// A statement that stands for its last child (AttributedStmt).
    StmtPass,
    /// An expression.
    Expr(ExprClass),
    /// Expression wrappers that stand for their first child.
    ExprPass,
    /// CXXCtorInitializer.
    CtorInit,
    /// An attribute.
    Attr,
    /// Type nodes (only under typedefs and template arguments): folded into the interned
    /// types of the strings.
    TypeNode,
    /// Doc comments: skipped.
    Comment,
    /// Anything else: an opaque entry.
    Other,
}

/// What kind of record declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// RecordDecl / CXXRecordDecl.
    Plain,
    /// ClassTemplateSpecializationDecl.
    Spec,
    /// ClassTemplatePartialSpecializationDecl.
    Partial,
}

/// Expression sub-classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExprClass {
    /// Binary/compound-assign operators (`opcode`).
    Binary,
    /// Unary operators (`opcode`).
    Unary,
    /// Calls.
    Call,
    /// `kern<<<...>>>(...)`.
    KernelCall,
    /// DeclRefExpr.
    DeclRef,
    /// MemberExpr.
    Member,
    /// Casts (`castKind`).
    Cast,
    /// ArraySubscriptExpr.
    Subscript,
    /// ConditionalOperator, BinaryConditionalOperator.
    Conditional,
    /// IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr, FixedPointLiteral.
    IntLit,
    /// FloatingLiteral.
    FloatLit,
    /// StringLiteral.
    StrLit,
    /// CXXNullPtrLiteralExpr, GNUNullExpr.
    NullLit,
    /// CXXConstructExpr, CXXTemporaryObjectExpr, CXXInheritedCtorInitExpr.
    Construct,
    /// CXXNewExpr.
    New,
    /// CXXDeleteExpr.
    Delete,
    /// LambdaExpr.
    Lambda,
    /// SubstNonTypeTemplateParmExpr.
    SubstNttp,
    /// PseudoObjectExpr (`threadIdx.x`).
    Pseudo,
    /// MSPropertyRefExpr.
    Property,
    /// OpaqueValueExpr (repeated by id).
    OpaqueValue,
    /// InitListExpr, ParenListExpr, DesignatedInitExpr.
    InitList,
    /// Dependent forms in patterns.
    Dependent,
    /// UnaryExprOrTypeTraitExpr, type traits.
    TypeOperand,
    /// CXXThrowExpr.
    Throw,
    /// Other expressions (operands kept).
    Other,
}

/// Operation codes of `expr_node.op` for `enk_operation` nodes made by the importer.
pub mod op {
    /// A call; operands: callee, arguments.
    pub const CALL: u8 = 1;
    /// A kernel launch; operands: callee, configuration call, arguments.
    pub const KERNEL_CALL: u8 = 2;
    /// Member access `.` / `->`; entity: the member.
    pub const MEMBER: u8 = 3;
    /// Array subscript.
    pub const SUBSCRIPT: u8 = 4;
    /// `?:`.
    pub const CONDITIONAL: u8 = 5;
    /// A cast (castKind in `op2`).
    pub const CAST: u8 = 6;
    /// Construction; entity: the constructor.
    pub const CONSTRUCT: u8 = 7;
    /// Initializer list.
    pub const INIT_LIST: u8 = 8;
    /// Substituted non-type template parameter.
    pub const SUBST_NTTP: u8 = 9;
    /// Dependent expression in a pattern.
    pub const DEPENDENT: u8 = 10;
    /// Any other expression kind.
    pub const OTHER: u8 = 11;
    /// Binary operators start here: `BINARY_BASE + index in BINARY_OPS`.
    pub const BINARY_BASE: u8 = 32;
    /// Unary operators start here: `UNARY_BASE + index in UNARY_OPS`.
    pub const UNARY_BASE: u8 = 96;
    /// Binary operator spellings, in op order.
    pub const BINARY_OPS: &[&str] = &[
        "+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&",
        "||", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", ",", ".*", "->*",
        "<=>",
    ];
    /// Unary operator spellings, in op order.
    pub const UNARY_OPS: &[&str] = &[
        "++",
        "--",
        "&",
        "*",
        "+",
        "-",
        "~",
        "!",
        "__real",
        "__imag",
        "__extension__",
        "co_await",
    ];
}

/// Classifies a clang node kind name.
pub fn classify(k: &str) -> Class {
    use Class::*;
    use ExprClass as E;
    match k {
        "TranslationUnitDecl" => Tu,
        "NamespaceDecl" => Namespace,
        "LinkageSpecDecl" | "ExportDecl" => Transparent,
        "FunctionDecl" => Function(0),
        "CXXMethodDecl" => Function(1),
        "CXXConstructorDecl" => Function(2),
        "CXXDestructorDecl" => Function(3),
        "CXXConversionDecl" => Function(4),
        "CXXDeductionGuideDecl" => Function(5),
        "VarDecl"
        | "VarTemplateSpecializationDecl"
        | "VarTemplatePartialSpecializationDecl"
        | "DecompositionDecl"
        | "ImplicitParamDecl" => Var,
        "ParmVarDecl" => Parm,
        "FieldDecl" | "MSPropertyDecl" | "IndirectFieldDecl" | "ObjCIvarDecl" => Field,
        "RecordDecl" | "CXXRecordDecl" => Record(RecordKind::Plain),
        "ClassTemplateSpecializationDecl" => Record(RecordKind::Spec),
        "ClassTemplatePartialSpecializationDecl" => Record(RecordKind::Partial),
        "TypedefDecl" | "TypeAliasDecl" => Typedef,
        "EnumDecl" => Enum,
        "EnumConstantDecl" => EnumConst,
        "ClassTemplateDecl" => Template(1),
        "FunctionTemplateDecl" => Template(2),
        "VarTemplateDecl" => Template(3),
        "TypeAliasTemplateDecl" => Template(4),
        "ConceptDecl" => Template(5),
        "TemplateTypeParmDecl" => TemplateParm(0),
        "NonTypeTemplateParmDecl" => TemplateParm(1),
        "TemplateTemplateParmDecl" => TemplateParm(2),
        "TemplateArgument" => TemplateArg,
        "UsingDecl"
        | "UsingShadowDecl"
        | "UsingDirectiveDecl"
        | "NamespaceAliasDecl"
        | "ConstructorUsingShadowDecl"
        | "UsingEnumDecl" => Using,
        "StaticAssertDecl" => StaticAssert,
        "CXXCtorInitializer" => CtorInit,
        // Statements (stmk_* numbers of seed 001).
        "CompoundStmt" => Stmt(11),
        "IfStmt" => Stmt(1),
        "WhileStmt" => Stmt(5),
        "DoStmt" => Stmt(12),
        "ForStmt" => Stmt(13),
        "CXXForRangeStmt" => Stmt(14),
        "SwitchStmt" => Stmt(16),
        "CaseStmt" | "DefaultStmt" => Stmt(15),
        "ReturnStmt" => Stmt(8),
        "GotoStmt" | "IndirectGotoStmt" => Stmt(6),
        "LabelStmt" => Stmt(7),
        "DeclStmt" => Stmt(20),
        "NullStmt" | "BreakStmt" | "ContinueStmt" => Stmt(10),
        "GCCAsmStmt" | "MSAsmStmt" => Stmt(18),
        "CXXTryStmt" => Stmt(19),
        "CXXCatchStmt" => Stmt(23),
        "CoreturnStmt" | "CoroutineBodyStmt" => Stmt(9),
        "AttributedStmt" => StmtPass,
        // Expressions.
        "BinaryOperator" | "CompoundAssignOperator" | "CXXRewrittenBinaryOperator" => {
            Expr(E::Binary)
        }
        "UnaryOperator" => Expr(E::Unary),
        "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" | "UserDefinedLiteral" => {
            Expr(E::Call)
        }
        "CUDAKernelCallExpr" => Expr(E::KernelCall),
        "DeclRefExpr" => Expr(E::DeclRef),
        "MemberExpr" => Expr(E::Member),
        "ImplicitCastExpr"
        | "CStyleCastExpr"
        | "CXXStaticCastExpr"
        | "CXXDynamicCastExpr"
        | "CXXReinterpretCastExpr"
        | "CXXConstCastExpr"
        | "CXXFunctionalCastExpr"
        | "BuiltinBitCastExpr"
        | "CXXAddrspaceCastExpr" => Expr(E::Cast),
        "ArraySubscriptExpr" => Expr(E::Subscript),
        "ConditionalOperator" | "BinaryConditionalOperator" => Expr(E::Conditional),
        "IntegerLiteral" | "CharacterLiteral" | "CXXBoolLiteralExpr" | "FixedPointLiteral" => {
            Expr(E::IntLit)
        }
        "FloatingLiteral" => Expr(E::FloatLit),
        "StringLiteral" => Expr(E::StrLit),
        "CXXNullPtrLiteralExpr" | "GNUNullExpr" => Expr(E::NullLit),
        "CXXConstructExpr" | "CXXTemporaryObjectExpr" | "CXXInheritedCtorInitExpr" => {
            Expr(E::Construct)
        }
        "CXXNewExpr" => Expr(E::New),
        "CXXDeleteExpr" => Expr(E::Delete),
        "LambdaExpr" => Expr(E::Lambda),
        "SubstNonTypeTemplateParmExpr" => Expr(E::SubstNttp),
        "PseudoObjectExpr" => Expr(E::Pseudo),
        "MSPropertyRefExpr" => Expr(E::Property),
        "OpaqueValueExpr" => Expr(E::OpaqueValue),
        "InitListExpr" | "ParenListExpr" | "DesignatedInitExpr" | "CXXParenListInitExpr" => {
            Expr(E::InitList)
        }
        "UnresolvedLookupExpr"
        | "CXXDependentScopeMemberExpr"
        | "DependentScopeDeclRefExpr"
        | "CXXUnresolvedConstructExpr"
        | "PackExpansionExpr"
        | "SizeOfPackExpr"
        | "CXXFoldExpr"
        | "UnresolvedMemberExpr"
        | "RecoveryExpr" => Expr(E::Dependent),
        "UnaryExprOrTypeTraitExpr"
        | "TypeTraitExpr"
        | "CXXTypeidExpr"
        | "OffsetOfExpr"
        | "ArrayTypeTraitExpr"
        | "ExpressionTraitExpr"
        | "CXXNoexceptExpr" => Expr(E::TypeOperand),
        "CXXThrowExpr" => Expr(E::Throw),
        "ParenExpr"
        | "ExprWithCleanups"
        | "MaterializeTemporaryExpr"
        | "CXXBindTemporaryExpr"
        | "ConstantExpr"
        | "CXXDefaultInitExpr"
        | "FullExpr" => ExprPass,
        "FullComment"
        | "ParagraphComment"
        | "TextComment"
        | "InlineCommandComment"
        | "BlockCommandComment"
        | "ParamCommandComment"
        | "TParamCommandComment"
        | "VerbatimBlockComment"
        | "VerbatimBlockLineComment"
        | "VerbatimLineComment"
        | "HTMLStartTagComment"
        | "HTMLEndTagComment" => Comment,
        k if k.ends_with("Attr") => Attr,
        k if k.ends_with("Type") && !k.ends_with("Decl") => TypeNode,
        "QualType" => TypeNode,
        k if k.ends_with("Expr") || k.ends_with("Operator") || k.ends_with("Literal") => {
            Expr(E::Other)
        }
        _ => Other,
    }
}

/// Whether a class of node is a declaration that may be referenced by id.
pub fn is_decl(c: Class) -> bool {
    use Class::*;
    matches!(
        c,
        Namespace
            | Function(_)
            | Var
            | Parm
            | Field
            | Record(_)
            | Typedef
            | Enum
            | EnumConst
            | Template(_)
            | TemplateParm(_)
            | Using
            | Other
    )
}

/// Attribute kind numbers (`attribute.attr_kind`): the six CUDA kinds of
/// `crate::il::kinds::attr`, then the importer's own.
pub mod attr_kind {
    pub use crate::il::kinds::attr::*;
    /// `__launch_bounds__`.
    pub const LAUNCH_BOUNDS: u16 = 7;
    /// `__forceinline__` / always_inline.
    pub const ALWAYS_INLINE: u16 = 8;
    /// `aligned` / `__align__`.
    pub const ALIGNED: u16 = 9;
    /// noinline.
    pub const NOINLINE: u16 = 10;
    /// `#pragma unroll` (LoopHintAttr).
    pub const LOOP_HINT: u16 = 11;
    /// `__grid_constant__`.
    pub const GRID_CONSTANT: u16 = 12;
    /// An implicit `__device__` (constexpr functions, implicit members: implicitly HD).
    pub const IMPLICIT_DEVICE: u16 = 20;
    /// An implicit `__host__`.
    pub const IMPLICIT_HOST: u16 = 21;
    /// An implicit `__constant__` (namespace-scope constexpr variables).
    pub const IMPLICIT_CONSTANT: u16 = 22;
    /// Any other attribute (its clang kind is the attribute's name).
    pub const OTHER: u16 = 255;

    /// The attr_kind for a clang attribute kind name, given `implicit`.
    pub fn of(kind: &str, implicit: bool) -> u16 {
        match (kind, implicit) {
            ("CUDAGlobalAttr", _) => GLOBAL,
            ("CUDADeviceAttr", false) => DEVICE,
            ("CUDADeviceAttr", true) => IMPLICIT_DEVICE,
            ("CUDAHostAttr", false) => HOST,
            ("CUDAHostAttr", true) => IMPLICIT_HOST,
            ("CUDASharedAttr", _) => SHARED,
            ("CUDAConstantAttr", false) => CONSTANT,
            ("CUDAConstantAttr", true) => IMPLICIT_CONSTANT,
            ("HIPManagedAttr", _) => MANAGED,
            ("CUDALaunchBoundsAttr", _) => LAUNCH_BOUNDS,
            ("AlwaysInlineAttr", _) => ALWAYS_INLINE,
            ("AlignedAttr", _) => ALIGNED,
            ("NoInlineAttr", _) => NOINLINE,
            ("LoopHintAttr", _) => LOOP_HINT,
            ("CUDAGridConstantAttr", _) => GRID_CONSTANT,
            _ => OTHER,
        }
    }
}
