//! Classification of clang AST node kinds: what each becomes in the IL.

use crate::il::{Op, RoutineSpecialKind, StmtKind, TemplateKind, TemplateParamKind};

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
    Function(RoutineSpecialKind),
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
    /// ClassTemplateDecl, FunctionTemplateDecl, VarTemplateDecl, TypeAliasTemplateDecl,
    /// ConceptDecl.
    Template(TemplateKind),
    /// Template parameter decls: type, non-type, template.
    TemplateParm(TemplateParamKind),
    /// TemplateArgument.
    TemplateArg,
    /// UsingDecl / UsingShadowDecl / UsingDirectiveDecl / NamespaceAliasDecl.
    Using,
    /// StaticAssertDecl.
    StaticAssert,
    /// A statement with its stmk_* kind.
    Stmt(StmtKind),
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
    /// PackExpansionExpr: its pattern, expanded once per pack element.
    PackExpansion,
    /// SizeOfPackExpr: the pack by name.
    SizeofPack,
    /// CXXFoldExpr (clang's JSON does not print its operator).
    Fold,
    /// UnaryExprOrTypeTraitExpr, type traits.
    TypeOperand,
    /// CXXThrowExpr.
    Throw,
    /// Other expressions (operands kept).
    Other,
}

/// The operator of each binary (and compound-assignment) operator spelling clang prints.
pub const BINARY_OPS: &[(&str, Op)] = &[
    ("+", Op::Add),
    ("-", Op::Sub),
    ("*", Op::Mul),
    ("/", Op::Div),
    ("%", Op::Rem),
    ("<<", Op::Shl),
    (">>", Op::Shr),
    ("<", Op::Lt),
    (">", Op::Gt),
    ("<=", Op::Le),
    (">=", Op::Ge),
    ("==", Op::Eq),
    ("!=", Op::Ne),
    ("&", Op::BitAnd),
    ("^", Op::BitXor),
    ("|", Op::BitOr),
    ("&&", Op::LogAnd),
    ("||", Op::LogOr),
    ("=", Op::Assign),
    ("+=", Op::AddAssign),
    ("-=", Op::SubAssign),
    ("*=", Op::MulAssign),
    ("/=", Op::DivAssign),
    ("%=", Op::RemAssign),
    ("<<=", Op::ShlAssign),
    (">>=", Op::ShrAssign),
    ("&=", Op::BitAndAssign),
    ("^=", Op::BitXorAssign),
    ("|=", Op::BitOrAssign),
    (",", Op::Comma),
    (".*", Op::PtrMemD),
    ("->*", Op::PtrMemI),
    ("<=>", Op::Cmp3),
];

/// The operator of each unary operator spelling clang prints.
pub const UNARY_OPS: &[(&str, Op)] = &[
    ("++", Op::Inc),
    ("--", Op::Dec),
    ("&", Op::AddrOf),
    ("*", Op::Deref),
    ("+", Op::Plus),
    ("-", Op::Neg),
    ("~", Op::Compl),
    ("!", Op::Not),
    ("__real", Op::Real),
    ("__imag", Op::Imag),
    ("__extension__", Op::Extension),
    ("co_await", Op::CoAwait),
];

/// The operator of an operator `spelling` in `table` ([`BINARY_OPS`], [`UNARY_OPS`]),
/// [`Op::Other`] for one it does not list.
pub fn op_of(table: &[(&str, Op)], spelling: &str) -> Op {
    table
        .iter()
        .find(|(s, _)| *s == spelling)
        .map_or(Op::Other, |&(_, o)| o)
}

/// Classifies a clang node kind name.
pub fn classify(k: &str) -> Class {
    use Class::*;
    use ExprClass as E;
    match k {
        "TranslationUnitDecl" => Tu,
        "NamespaceDecl" => Namespace,
        "LinkageSpecDecl" | "ExportDecl" => Transparent,
        "FunctionDecl" => Function(RoutineSpecialKind::Function),
        "CXXMethodDecl" => Function(RoutineSpecialKind::Method),
        "CXXConstructorDecl" => Function(RoutineSpecialKind::Constructor),
        "CXXDestructorDecl" => Function(RoutineSpecialKind::Destructor),
        "CXXConversionDecl" => Function(RoutineSpecialKind::Conversion),
        "CXXDeductionGuideDecl" => Function(RoutineSpecialKind::DeductionGuide),
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
        "ClassTemplateDecl" => Template(TemplateKind::Class),
        "FunctionTemplateDecl" => Template(TemplateKind::Function),
        "VarTemplateDecl" => Template(TemplateKind::Variable),
        "TypeAliasTemplateDecl" => Template(TemplateKind::Alias),
        "ConceptDecl" => Template(TemplateKind::Concept),
        "TemplateTypeParmDecl" => TemplateParm(TemplateParamKind::Type),
        "NonTypeTemplateParmDecl" => TemplateParm(TemplateParamKind::NonType),
        "TemplateTemplateParmDecl" => TemplateParm(TemplateParamKind::Template),
        "TemplateArgument" => TemplateArg,
        "UsingDecl"
        | "UsingShadowDecl"
        | "UsingDirectiveDecl"
        | "NamespaceAliasDecl"
        | "ConstructorUsingShadowDecl"
        | "UsingEnumDecl" => Using,
        "StaticAssertDecl" => StaticAssert,
        "CXXCtorInitializer" => CtorInit,
        // Statements (stmk_* kinds of seed 001).
        "CompoundStmt" => Stmt(StmtKind::Block),
        "IfStmt" => Stmt(StmtKind::If),
        "WhileStmt" => Stmt(StmtKind::While),
        "DoStmt" => Stmt(StmtKind::EndTestWhile),
        "ForStmt" => Stmt(StmtKind::For),
        "CXXForRangeStmt" => Stmt(StmtKind::RangeBasedFor),
        "SwitchStmt" => Stmt(StmtKind::Switch),
        "CaseStmt" | "DefaultStmt" => Stmt(StmtKind::SwitchCase),
        "ReturnStmt" => Stmt(StmtKind::Return),
        "GotoStmt" | "IndirectGotoStmt" => Stmt(StmtKind::Goto),
        "LabelStmt" => Stmt(StmtKind::Label),
        "DeclStmt" => Stmt(StmtKind::Decl),
        "NullStmt" | "BreakStmt" | "ContinueStmt" => Stmt(StmtKind::Stmk10),
        "GCCAsmStmt" | "MSAsmStmt" => Stmt(StmtKind::Asm),
        "CXXTryStmt" => Stmt(StmtKind::TryBlock),
        "CXXCatchStmt" => Stmt(StmtKind::Stmk23),
        "CoreturnStmt" | "CoroutineBodyStmt" => Stmt(StmtKind::Coroutine),
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
        | "UnresolvedMemberExpr"
        | "RecoveryExpr" => Expr(E::Dependent),
        "PackExpansionExpr" => Expr(E::PackExpansion),
        "SizeOfPackExpr" => Expr(E::SizeofPack),
        "CXXFoldExpr" => Expr(E::Fold),
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

/// Attribute kinds (`attribute.attr_kind`) of clang attributes.
pub mod attr_kind {
    use crate::il::AttrKind;

    /// The attr_kind for a clang attribute kind name, given `implicit`.
    pub fn of(kind: &str, implicit: bool) -> AttrKind {
        use AttrKind as A;
        match (kind, implicit) {
            ("CUDAGlobalAttr", _) => A::Global,
            ("CUDADeviceAttr", false) => A::Device,
            ("CUDADeviceAttr", true) => A::ImplicitDevice,
            ("CUDAHostAttr", false) => A::Host,
            ("CUDAHostAttr", true) => A::ImplicitHost,
            ("CUDASharedAttr", _) => A::Shared,
            ("CUDAConstantAttr", false) => A::Constant,
            ("CUDAConstantAttr", true) => A::ImplicitConstant,
            ("HIPManagedAttr", _) => A::Managed,
            ("CUDALaunchBoundsAttr", _) => A::LaunchBounds,
            ("AlwaysInlineAttr", _) => A::AlwaysInline,
            ("AlignedAttr", _) => A::Aligned,
            ("NoInlineAttr", _) => A::NoInline,
            ("LoopHintAttr", _) => A::LoopHint,
            ("CUDAGridConstantAttr", _) => A::GridConstant,
            _ => A::Other,
        }
    }
}
