//! The tree the parser builds from device code: types, expressions, statements, functions,
//! structs and templates, each node with the position where it begins. Plain data; the
//! interpreter gives it meaning.

use super::error::{CudaError, Pos};
use super::lex::IntSuffix;

/// A scalar or a named type, before pointers and arrays.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    Void,
    Bool,
    /// `char`, `short`, `int`, `long`, `long long` and their unsigned forms, `size_t`, ….
    Int {
        bytes: u8,
        signed: bool,
    },
    Float,
    Double,
    /// CUDA's vector types: `float4` is `Vector { elem: Float, lanes: 4 }`.
    Vector {
        elem: Box<Base>,
        lanes: u8,
    },
    /// `dim3`.
    Dim3,
    /// `auto`: the initialiser's type.
    Auto,
    /// A struct, a typedef or a template parameter, with template arguments if any.
    Named {
        name: String,
        args: Vec<TemplateArg>,
    },
}

/// A type as written in a declaration's specifiers and declarator.
#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub base: Base,
    /// Levels of `*`.
    pub pointers: u8,
    /// `&` (a reference is an alias, no access of its own).
    pub reference: bool,
    pub is_const: bool,
}

impl Type {
    /// The plain type `base`.
    pub fn of(base: Base) -> Type {
        Type {
            base,
            pointers: 0,
            reference: false,
            is_const: false,
        }
    }
}

/// A template argument: a type, or an integer constant expression.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateArg {
    Type(Type),
    Value(Expr),
}

/// A template parameter: `typename T` or `int N` (with a default if given).
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateParam {
    Type {
        name: String,
        default: Option<Type>,
    },
    Value {
        name: String,
        ty: Type,
        default: Option<Expr>,
    },
}

/// Unary operators, prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
    /// `*p`.
    Deref,
    /// `&x`.
    AddressOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

/// Binary operators, including the compound assignments' arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

/// Which cast was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastKind {
    /// `(T)e` or `T(e)`.
    C,
    Static,
    Reinterpret,
    Const,
}

/// An expression and where it begins: for `a[i]`, the array's name; for `*p`, the `*`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

/// What an expression is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int {
        value: u64,
        suffix: IntSuffix,
        decimal: bool,
    },
    Float {
        value: f64,
        single: bool,
    },
    Bool(bool),
    Char(u32),
    Str(String),
    /// A name, possibly qualified (`cg::this_thread_block`, `threadIdx`).
    Name(String),
    /// `base.field` or `base->field`.
    Member {
        base: Box<Expr>,
        field: String,
        arrow: bool,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Call {
        callee: Box<Expr>,
        template_args: Vec<TemplateArg>,
        args: Vec<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs = rhs`, or `lhs op= rhs`.
    Assign {
        op: Option<BinaryOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cond {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Cast {
        kind: CastKind,
        ty: Type,
        operand: Box<Expr>,
    },
    SizeofType(Type),
    SizeofExpr(Box<Expr>),
    AlignofType(Type),
    Comma(Box<Expr>, Box<Expr>),
    /// `{a, b, c}`, or `T{a, b}` when `ty` is given.
    InitList {
        ty: Option<Type>,
        items: Vec<Expr>,
    },
}

/// How a declared name is initialised.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// `= e`.
    Expr(Expr),
    /// `= {…}` or `{…}`.
    List(Vec<Expr>),
    /// `(a, b)`: a constructor call.
    Ctor(Vec<Expr>),
}

/// Where a declared variable lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    pub shared: bool,
    pub is_extern: bool,
    pub is_static: bool,
    pub constexpr: bool,
    /// `__constant__` or `__device__` on a variable: device memory of its own.
    pub device: bool,
}

/// One name of a declaration: `*p`, `tile[32][33]`, `x = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: String,
    pub pos: Pos,
    pub ty: Type,
    /// Array extents, outermost first; `None` for `[]`.
    pub dims: Vec<Option<Expr>>,
    pub init: Option<Init>,
}

/// A declaration: its storage and its names.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub storage: Storage,
    pub declarators: Vec<Declarator>,
    pub pos: Pos,
}

/// A statement and where it begins.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub pos: Pos,
}

/// What a statement is.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Decl(Decl),
    Expr(Expr),
    Block(Vec<Stmt>),
    If {
        cond: Expr,
        then: Box<Stmt>,
        otherwise: Option<Box<Stmt>>,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    Case(Expr),
    Default,
    Break,
    Continue,
    Return(Option<Expr>),
    Empty,
}

/// Which of CUDA's execution spaces a function is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spaces {
    pub global: bool,
    pub device: bool,
    pub host: bool,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Option<String>,
    pub ty: Type,
    /// `T a[]` or `T a[N]`: an array parameter is a pointer.
    pub pos: Pos,
}

/// A function of device code: a kernel, a `__device__` function, or a struct's member.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub pos: Pos,
    pub spaces: Spaces,
    pub template: Option<Vec<TemplateParam>>,
    /// The arguments of an explicit specialisation, `template <> f<float>(…)`.
    pub specialises: Option<Vec<TemplateArg>>,
    pub ret: Type,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

/// What a struct holds: fields, member functions, constructors.
#[derive(Clone, Debug, PartialEq)]
pub enum Member {
    Field(Decl),
    Method(Function),
    /// A constructor (its name is the struct's).
    Ctor(Function),
    /// `operator T()`: `ret` is `T`.
    Conversion(Function),
}

/// A struct or class.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub name: String,
    pub pos: Pos,
    pub template: Option<Vec<TemplateParam>>,
    pub specialises: Option<Vec<TemplateArg>>,
    pub members: Vec<Member>,
}

/// One top-level item of device code.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Function(Function),
    Struct(StructDef),
    /// `typedef T name;` or `using name = T;`.
    Alias {
        name: String,
        ty: Type,
        pos: Pos,
    },
    /// A `const`, `constexpr`, `__constant__` or `__device__` global.
    Global(Decl),
}

/// What was left out, and why, for the note beside the figures.
#[derive(Clone, Debug, PartialEq)]
pub enum Skipped {
    /// A host function (`main` included), at its line.
    Host { name: String, line: u32 },
    /// A host declaration that is not a function (a host global, a class with host code).
    HostDecl { line: u32 },
    /// Device code outside the subset: an error only if the launched kernel reaches it.
    Unread { name: String, error: CudaError },
}

/// A whole source: its device items, and what was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    pub items: Vec<Item>,
    pub skipped: Vec<Skipped>,
    /// Each `#include` line and what it names.
    pub includes: Vec<(u32, String)>,
}

impl Unit {
    /// The `__global__` functions, in order.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|i| match i {
            Item::Function(f) if f.spaces.global => Some(f),
            _ => None,
        })
    }

    /// The device function or kernel named `name` (the first, for overloads).
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.items.iter().find_map(|i| match i {
            Item::Function(f) if f.name == name => Some(f),
            _ => None,
        })
    }
}
