//! Sizes, alignments and field offsets, as nvcc lays types out on a 64-bit (LP64) host: the
//! scalars' sizes, CUDA's vector types with the alignments their definitions give them
//! (`vector_types.h`: a 1-, 2- or 4-component vector is aligned to its size up to 16 bytes, a
//! 3-component one to its component), pointers of 8 bytes, and structs as C++ lays them out
//! (each field at the next multiple of its alignment, the struct aligned to its widest field
//! and padded to a multiple of that). An access's width and a shared array's offsets come
//! from here.

use super::ast::{Base, ExprKind, Member, StructDef, Type, Unit};
use super::error::Pos;
use crate::model::cuda::files::Line;
use std::fmt;

/// A type's size and alignment, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `sizeof`: bytes, a multiple of `align`.
    pub size: u64,
    /// `alignof`: a power of two.
    pub align: u64,
}

/// One field of a laid-out struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// The field's name.
    pub name: String,
    /// Bytes from the struct's start.
    pub offset: u64,
    /// The field's own size and alignment (an array's whole extent).
    pub layout: Layout,
}

/// Why a type has no layout here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// `void` or `auto`, which have no size of their own.
    NoSize {
        /// Where the type is used.
        pos: Pos,
    },
    /// A name that is no struct or type of the file (a type from a header that is not read).
    UnknownType {
        /// The type's name.
        name: String,
        /// Where the type is used.
        pos: Pos,
    },
    /// A struct template's instance: laid out once its arguments are known (the interpreter).
    Template {
        /// The type's name.
        name: String,
        /// Where the type is used.
        pos: Pos,
    },
    /// An array extent that is not an integer literal expression.
    Extent {
        /// The declared name whose extent it is.
        pos: Pos,
    },
    /// A struct that contains itself.
    Recursive {
        /// The type's name.
        name: String,
        /// Where the type is used.
        pos: Pos,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |f: &mut fmt::Formatter<'_>, pos: &Pos| {
            write!(f, "{}, column {}: ", Line(pos.line), pos.column)
        };
        match self {
            LayoutError::NoSize { pos } => {
                at(f, pos)?;
                f.write_str("this type has no size")
            }
            LayoutError::UnknownType { name, pos } => {
                at(f, pos)?;
                write!(
                    f,
                    "{name} is not a type this file defines, so its size is unknown"
                )
            }
            LayoutError::Template { name, pos } => {
                at(f, pos)?;
                write!(f, "{name} is a template: its layout needs its arguments")
            }
            LayoutError::Extent { pos } => {
                at(f, pos)?;
                f.write_str("an array extent must be a constant made of integer literals")
            }
            LayoutError::Recursive { name, pos } => {
                at(f, pos)?;
                write!(f, "struct {name} contains itself")
            }
        }
    }
}

impl std::error::Error for LayoutError {}

/// The layout of a scalar or vector base type; `None` for `void`, `auto` and named types.
///
/// ```
/// use coalescing_lab::model::cuda::{ast::Base, base_layout, Layout};
/// let vector = |elem, lanes| Base::Vector { elem: Box::new(elem), lanes };
/// assert_eq!(base_layout(&vector(Base::Float, 4)), Some(Layout { size: 16, align: 16 }));
/// assert_eq!(base_layout(&vector(Base::Float, 3)), Some(Layout { size: 12, align: 4 }));
/// assert_eq!(base_layout(&Base::Dim3), Some(Layout { size: 12, align: 4 }));
/// // Degenerate input: void has no size.
/// assert_eq!(base_layout(&Base::Void), None);
/// ```
pub fn base_layout(base: &Base) -> Option<Layout> {
    let same = |n: u64| Layout { size: n, align: n };
    Some(match base {
        Base::Bool => same(1),
        Base::Int { bytes, .. } => same(u64::from(*bytes)),
        Base::Float => same(4),
        Base::Double => same(8),
        Base::Dim3 => Layout { size: 12, align: 4 },
        Base::Vector { elem, lanes } => {
            let e = base_layout(elem)?;
            let size = e.size * u64::from(*lanes);
            let align = if *lanes == 3 { e.align } else { size.min(16) };
            Layout { size, align }
        }
        Base::Void | Base::Auto | Base::Named { .. } => return None,
    })
}

/// The layout of `ty` in the file `unit`: pointers and references are 8 bytes, structs are
/// laid out field by field.
pub fn layout_of(ty: &Type, unit: &Unit, pos: Pos) -> Result<Layout, LayoutError> {
    layout_in(ty, unit, pos, &mut Vec::new())
}

fn layout_in(
    ty: &Type,
    unit: &Unit,
    pos: Pos,
    open: &mut Vec<String>,
) -> Result<Layout, LayoutError> {
    if ty.pointers > 0 || ty.reference {
        return Ok(Layout { size: 8, align: 8 });
    }
    if let Some(l) = base_layout(&ty.base) {
        return Ok(l);
    }
    match &ty.base {
        Base::Named { name, args } => {
            if !args.is_empty() {
                return Err(LayoutError::Template { name: name.clone(), pos });
            }
            if let Some(alias) = unit.items.iter().find_map(|i| match i {
                super::ast::Item::Alias { name: n, ty, .. } if n == name => Some(ty),
                _ => None,
            }) {
                return layout_in(alias, unit, pos, open);
            }
            let Some(def) = find_struct(unit, name) else {
                return Err(LayoutError::UnknownType { name: name.clone(), pos });
            };
            if def.template.is_some() {
                return Err(LayoutError::Template { name: name.clone(), pos });
            }
            if open.contains(name) {
                return Err(LayoutError::Recursive { name: name.clone(), pos });
            }
            open.push(name.clone());
            let laid = fields_in(def, unit, open).map(|(_, l)| l);
            open.pop();
            laid
        }
        _ => Err(LayoutError::NoSize { pos }),
    }
}

/// The non-template struct `name` of the file.
fn find_struct<'u>(unit: &'u Unit, name: &str) -> Option<&'u StructDef> {
    unit.items.iter().find_map(|i| match i {
        super::ast::Item::Struct(s) if s.name == name && s.specialises.is_none() => Some(s),
        _ => None,
    })
}

/// The fields of struct `def` with their offsets, and the struct's layout.
///
/// ```
/// use coalescing_lab::model::cuda::{parse::parse, struct_layout};
/// let unit = parse("struct P { char tag; float4 v; short s[3]; };", 700).unwrap();
/// let (fields, whole) = struct_layout(&unit, "P").unwrap();
/// let offsets: Vec<(&str, u64)> = fields.iter().map(|f| (f.name.as_str(), f.offset)).collect();
/// assert_eq!(offsets, [("tag", 0), ("v", 16), ("s", 32)]);
/// assert_eq!((whole.size, whole.align), (48, 16));
/// ```
pub fn struct_layout(unit: &Unit, name: &str) -> Result<(Vec<FieldLayout>, Layout), LayoutError> {
    let Some(def) = find_struct(unit, name) else {
        return Err(LayoutError::UnknownType {
            name: name.to_string(),
            pos: Pos::default(),
        });
    };
    fields_in(def, unit, &mut vec![name.to_string()])
}

fn fields_in(
    def: &StructDef,
    unit: &Unit,
    open: &mut Vec<String>,
) -> Result<(Vec<FieldLayout>, Layout), LayoutError> {
    let mut fields = Vec::new();
    let (mut offset, mut align) = (0u64, 1u64);
    for member in &def.members {
        let Member::Field(decl) = member else {
            continue;
        };
        if decl.storage.is_static {
            continue; // A static member is not in the object.
        }
        for d in &decl.declarators {
            let element = layout_in(&d.ty, unit, d.pos, open)?;
            let mut count = 1u64;
            for dim in &d.dims {
                let n = dim
                    .as_ref()
                    .and_then(constant)
                    .ok_or(LayoutError::Extent { pos: d.pos })?;
                count = count.saturating_mul(n);
            }
            offset = offset.next_multiple_of(element.align);
            let layout = Layout {
                size: element.size.saturating_mul(count),
                align: element.align,
            };
            fields.push(FieldLayout { name: d.name.clone(), offset, layout });
            offset = offset.saturating_add(layout.size);
            align = align.max(element.align);
        }
    }
    // An empty struct still takes one byte, as in C++.
    let size = offset.max(1).next_multiple_of(align);
    Ok((fields, Layout { size, align }))
}

/// The value of an array extent made of integer literals and `+ - * / << >>`, if it is one.
pub(crate) fn constant(e: &super::ast::Expr) -> Option<u64> {
    use super::ast::BinaryOp;
    match &e.kind {
        ExprKind::Int { value, .. } => Some(*value),
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (constant(lhs)?, constant(rhs)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                BinaryOp::Div => a.checked_div(b),
                BinaryOp::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                BinaryOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                _ => None,
            }
        }
        _ => None,
    }
}
