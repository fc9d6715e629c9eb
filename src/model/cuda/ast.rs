//! The tree the parser builds from device code: types, expressions, statements, functions,
//! structs and templates, each node with the position where it begins. Plain data; the
//! interpreter gives it meaning.

use super::error::{CudaError, Pos};
use super::lex::IntSuffix;
use super::pre::{Macros, Replaced};
use std::collections::HashSet;

/// A scalar or a named type, before pointers and arrays.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    /// `void`: a function that returns nothing.
    Void,
    /// `bool`, one byte.
    Bool,
    /// `char`, `short`, `int`, `long`, `long long` and their unsigned forms, `size_t`, ….
    Int {
        /// 1, 2, 4 or 8 bytes, with CUDA's LP64 sizes (`long` is 8).
        bytes: u8,
        /// Whether the type is signed: `unsigned` and `size_t` are not.
        signed: bool,
    },
    /// `float`, 4 bytes.
    Float,
    /// `double`, 8 bytes.
    Double,
    /// CUDA's vector types: `float4` is `Vector { elem: Float, lanes: 4 }`.
    Vector {
        /// The type of each component.
        elem: Box<Base>,
        /// Components: 1 to 4.
        lanes: u8,
    },
    /// `dim3`.
    Dim3,
    /// `auto`: the initialiser's type.
    Auto,
    /// A struct, a typedef or a template parameter, with template arguments if any.
    Named {
        /// The type's last name component (`thread_block` for `cg::thread_block`).
        name: String,
        /// Its template arguments, empty when none were written.
        args: Vec<TemplateArg>,
    },
}

/// A type as written in a declaration's specifiers and declarator.
#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    /// The scalar or named type the pointers and references apply to.
    pub base: Base,
    /// Levels of `*`.
    pub pointers: u8,
    /// `&` (a reference is an alias, no access of its own).
    pub reference: bool,
    /// `const` (or `constexpr`) on the declared name.
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
    /// A type argument, `float` in `f<float>`.
    Type(Type),
    /// An integer constant expression, `32` in `tile<32>`.
    Value(Expr),
}

/// A template parameter: `typename T` or `int N` (with a default if given).
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateParam {
    /// `typename T` or `class T`.
    Type {
        /// The parameter's name, a type name inside the template.
        name: String,
        /// `= type`, used when an argument is not given.
        default: Option<Type>,
    },
    /// `int N`, `unsigned BM`: a value known at compile time.
    Value {
        /// The parameter's name, a constant inside the template.
        name: String,
        /// The parameter's integer type.
        ty: Type,
        /// `= value`, used when an argument is not given.
        default: Option<Expr>,
    },
}

/// Unary operators, prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `!x`.
    Not,
    /// `~x`.
    BitNot,
    /// `*p`.
    Deref,
    /// `&x`.
    AddressOf,
    /// `++x`.
    PreInc,
    /// `--x`.
    PreDec,
    /// `x++`.
    PostInc,
    /// `x--`.
    PostDec,
}

/// C's binary operators, the index-expression language's.
pub use super::super::expr::BinaryOp;

/// Which cast was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastKind {
    /// `(T)e` or `T(e)`.
    C,
    /// `static_cast<T>(e)`.
    Static,
    /// `reinterpret_cast<T>(e)`: between pointer types, one access of the target's size.
    Reinterpret,
    /// `const_cast<T>(e)`.
    Const,
}

/// An expression and where it begins: for `a[i]`, the array's name; for `*p`, the `*`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it begins in the file.
    pub pos: Pos,
}

/// What an expression is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int {
        /// Its value, at most 2^64 − 1.
        value: u64,
        /// `u`, `l`, `ll` and their combinations.
        suffix: IntSuffix,
        /// Written in decimal: C's type rule tries only signed types for an unsuffixed decimal.
        decimal: bool,
    },
    /// A floating literal.
    Float {
        /// Its value.
        value: f64,
        /// With an `f` suffix: `float`, not `double`.
        single: bool,
    },
    /// `true` or `false`.
    Bool(bool),
    /// A character literal's code point.
    Char(u32),
    /// A string literal's text, escapes resolved.
    Str(String),
    /// A name, possibly qualified (`cg::this_thread_block`, `threadIdx`).
    Name(String),
    /// `base.field` or `base->field`.
    Member {
        /// The struct or pointer whose member is read.
        base: Box<Expr>,
        /// The member's name.
        field: String,
        /// `->` rather than `.`.
        arrow: bool,
    },
    /// `base[index]`: an access when `base` is a pointer or an array in memory.
    Index {
        /// The array or pointer.
        base: Box<Expr>,
        /// The element's index.
        index: Box<Expr>,
    },
    /// A call of a device function, a built-in or a constructor.
    Call {
        /// What is called: usually a name.
        callee: Box<Expr>,
        /// `f<T, N>(…)`'s explicit template arguments.
        template_args: Vec<TemplateArg>,
        /// The arguments, in order.
        args: Vec<Expr>,
    },
    /// A prefix or postfix operator.
    Unary {
        /// Which operator.
        op: UnaryOp,
        /// What it applies to.
        operand: Box<Expr>,
    },
    /// A binary operator other than assignment and the comma.
    Binary {
        /// Which operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `lhs = rhs`, or `lhs op= rhs`.
    Assign {
        /// `None` for `=`, the operator of a compound assignment (`+=`).
        op: Option<BinaryOp>,
        /// What is assigned to.
        lhs: Box<Expr>,
        /// The value assigned.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`, each side evaluated only by the lanes that take it.
    Cond {
        /// The condition.
        cond: Box<Expr>,
        /// The value where it holds.
        then: Box<Expr>,
        /// The value where it does not.
        otherwise: Box<Expr>,
    },
    /// A cast.
    Cast {
        /// Which cast was written.
        kind: CastKind,
        /// The type cast to.
        ty: Type,
        /// The value cast.
        operand: Box<Expr>,
    },
    /// `sizeof(T)`.
    SizeofType(Type),
    /// `sizeof e`: the size of `e`'s type, `e` not evaluated.
    SizeofExpr(Box<Expr>),
    /// `alignof(T)`.
    AlignofType(Type),
    /// `a, b`: `a`, then `b`'s value.
    Comma(Box<Expr>, Box<Expr>),
    /// `k<<<grid, block[, bytes[, stream]]>>>(args)`, in host code: a kernel's launch.
    Launch {
        /// The kernel's name.
        kernel: String,
        /// Its explicit template arguments.
        template_args: Vec<TemplateArg>,
        /// The grid, the block, and the dynamic shared bytes and stream when written.
        config: Vec<Expr>,
        /// The kernel's arguments, in order.
        args: Vec<Expr>,
    },
    /// `new T`, `new T[count]`, `new T(args)`: in host code, an allocation on the heap.
    New {
        /// The type of what is made.
        ty: Type,
        /// `[count]`: an array of that many.
        count: Option<Box<Expr>>,
        /// `(args)` or `{args}`: the initialiser, when written.
        init: Option<Vec<Expr>>,
    },
    /// `delete p` or `delete[] p`.
    Delete {
        /// The pointer freed.
        operand: Box<Expr>,
        /// `delete[]`.
        array: bool,
    },
    /// `{a, b, c}`, or `T{a, b}` when `ty` is given.
    InitList {
        /// The type constructed, for `T{…}` and `T(a, b)`; `None` for a bare `{…}`.
        ty: Option<Type>,
        /// The values, in order.
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
    /// `__shared__`: one copy per block, in shared memory.
    pub shared: bool,
    /// `extern`: with `__shared__`, the launch's dynamic shared memory.
    pub is_extern: bool,
    /// `static`.
    pub is_static: bool,
    /// `constexpr`: a compile-time constant.
    pub constexpr: bool,
    /// `__constant__` or `__device__` on a variable: device memory of its own.
    pub device: bool,
    /// `__constant__`: read through the constant cache.
    pub constant: bool,
}

/// One name of a declaration: `*p`, `tile[32][33]`, `x = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The declared name.
    pub name: String,
    /// Where the name is written.
    pub pos: Pos,
    /// The declared type, pointers and references included.
    pub ty: Type,
    /// Array extents, outermost first; `None` for `[]`.
    pub dims: Vec<Option<Expr>>,
    /// Its initialiser, if any.
    pub init: Option<Init>,
}

/// A declaration: its storage and its names.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// Storage written before the type.
    pub storage: Storage,
    /// The names declared, in order.
    pub declarators: Vec<Declarator>,
    /// Where the declaration begins.
    pub pos: Pos,
}

/// A statement and where it begins.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// Where it begins.
    pub pos: Pos,
}

/// What a statement is.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// A declaration of local variables or shared arrays.
    Decl(Decl),
    /// An expression evaluated for its effects.
    Expr(Expr),
    /// `{ … }`: its statements in order.
    Block(Vec<Stmt>),
    /// `if`: the `then` side runs with the lanes where `cond` holds, `otherwise` with the rest.
    If {
        /// The condition.
        cond: Expr,
        /// What the lanes where it holds run.
        then: Box<Stmt>,
        /// What the others run, if written.
        otherwise: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`: runs while any lane is still in it.
    For {
        /// Run once before the loop.
        init: Option<Box<Stmt>>,
        /// Checked before each iteration; none means forever.
        cond: Option<Expr>,
        /// Run after each iteration.
        step: Option<Expr>,
        /// The loop's body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`.
    While {
        /// Checked before each iteration.
        cond: Expr,
        /// The loop's body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`.
    DoWhile {
        /// The loop's body, run at least once.
        body: Box<Stmt>,
        /// Checked after each iteration.
        cond: Expr,
    },
    /// `switch (cond) body`.
    Switch {
        /// The value switched on.
        cond: Expr,
        /// The body with its `case` labels.
        body: Box<Stmt>,
    },
    /// `case value:`.
    Case(Expr),
    /// `default:`.
    Default,
    /// `break;`: lanes leave the loop or switch.
    Break,
    /// `continue;`: lanes leave the iteration.
    Continue,
    /// `return [value];`: lanes leave the function.
    Return(Option<Expr>),
    /// `;`.
    Empty,
}

/// Which of CUDA's execution spaces a function is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spaces {
    /// `__global__`: a kernel, launched from the host.
    pub global: bool,
    /// `__device__`: callable from device code.
    pub device: bool,
    /// `__host__`: callable from the host (with `__device__`, from both).
    pub host: bool,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter's name; none in a prototype that omits it.
    pub name: Option<String>,
    /// Its type; an array parameter is a pointer.
    pub ty: Type,
    /// Where the parameter begins.
    pub pos: Pos,
}

/// A function of device code: a kernel, a `__device__` function, or a struct's member.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name (`operator` for a conversion operator).
    pub name: String,
    /// Where its declaration begins.
    pub pos: Pos,
    /// Where it may run.
    pub spaces: Spaces,
    /// `template <…>`'s parameters, when it is a template.
    pub template: Option<Vec<TemplateParam>>,
    /// The arguments of an explicit specialisation, `template <> f<float>(…)`.
    pub specialises: Option<Vec<TemplateArg>>,
    /// The type it returns (the target type of a conversion operator).
    pub ret: Type,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// The body's statements; empty for a prototype.
    pub body: Vec<Stmt>,
}

/// What a struct holds: fields, member functions, constructors.
#[derive(Clone, Debug, PartialEq)]
pub enum Member {
    /// A data member.
    Field(Decl),
    /// A member function.
    Method(Function),
    /// A constructor (its name is the struct's).
    Ctor(Function),
    /// `operator T()`: `ret` is `T`.
    Conversion(Function),
}

/// A struct or class.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// The struct's name (its typedef's for `typedef struct { … } Name;`).
    pub name: String,
    /// Where the name is written.
    pub pos: Pos,
    /// `template <…>`'s parameters, when it is a template.
    pub template: Option<Vec<TemplateParam>>,
    /// The arguments of an explicit specialisation, `template <> struct S<double>`.
    pub specialises: Option<Vec<TemplateArg>>,
    /// Its members, in declaration order (the layout's order).
    pub members: Vec<Member>,
}

/// One top-level item of device code.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A kernel or a device function.
    Function(Function),
    /// A struct or class.
    Struct(StructDef),
    /// `typedef T name;` or `using name = T;`.
    Alias {
        /// The alias's name.
        name: String,
        /// The type it stands for.
        ty: Type,
        /// Where the alias is written.
        pos: Pos,
    },
    /// A `const`, `constexpr`, `__constant__` or `__device__` global.
    Global(Decl),
}

/// What was left out, and why, for the note beside the figures.
#[derive(Clone, Debug, PartialEq)]
pub enum Skipped {
    /// A host function (`main` included), at its line.
    Host {
        /// The function's name.
        name: String,
        /// The line its declaration begins on.
        line: u32,
    },
    /// A host declaration that is not a function (a host global, a class with host code).
    HostDecl {
        /// The line it begins on.
        line: u32,
    },
    /// Device code outside the subset: an error only if the launched kernel reaches it.
    Unread {
        /// The item's name, or "a declaration".
        name: String,
        /// Why it is outside the subset.
        error: CudaError,
    },
}

/// A whole source: its device items, and what was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The device items read, in file order.
    pub items: Vec<Item>,
    /// What was left out, for the note beside the figures.
    pub skipped: Vec<Skipped>,
    /// Each `#include` line that no file given answered, and what it names.
    pub includes: Vec<(u32, String)>,
    /// The files `#include "…"` read, file `k` (from 1) of `super::files` at `k - 1`.
    pub files: Vec<super::files::SourceFile>,
    /// What a launch written against the file sees of it besides its items: the macros it
    /// leaves defined, and the names it declares as types and as templates.
    pub scope: FileScope,
    /// The launches the file's host code writes (`k<<<…>>>(…);`), in file order.
    pub launches: Vec<WrittenLaunch>,
    /// What the defines given beside the file replaced in it, in file order.
    pub replaced: Vec<Replaced>,
    /// The host functions read (`main` and its helpers), in file order: the kernels' run
    /// never sees them.
    pub host: Vec<Function>,
    /// Each host function outside the subset: its name and why.
    pub host_unread: Vec<(String, CudaError)>,
}

/// A launch as the file's host code writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenLaunch {
    /// The kernel it names.
    pub kernel: String,
    /// The line of its `<<<`.
    pub line: u32,
    /// Its text as written, on one line, through its `;`.
    pub text: String,
}

/// The macros a file leaves defined, and the names it declares as types and as templates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileScope {
    /// The macros defined at the file's end.
    pub macros: Macros,
    /// Names of structs, typedefs and aliases.
    pub types: HashSet<String>,
    /// Names of templates.
    pub templates: HashSet<String>,
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
