//! Types as the interpreter knows them: resolved, with template arguments bound, each with its
//! size and alignment (nvcc's LP64 layout, as `layout` gives it for the types as written).

use super::super::cint::IntType;
use crate::model::machine::Space;
use std::fmt;
use std::rc::Rc;

/// `unsigned int`: `threadIdx`'s components and `dim3`'s.
pub const UINT: IntType = IntType { bytes: 4, signed: false };
/// `size_t` and `unsigned long`.
pub const SIZE_T: IntType = IntType { bytes: 8, signed: false };
/// `ptrdiff_t` and `long`.
pub const LONG: IntType = IntType { bytes: 8, signed: true };

/// A resolved type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// No value.
    Void,
    /// `bool`.
    Bool,
    /// An integer type.
    Int(IntType),
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// A CUDA vector type (`dim3` and `uint3` are three `unsigned int`s).
    Vector(Rc<Ty>, u8),
    /// A pointer into `Space`.
    Ptr(Rc<Ty>, Space),
    /// An array of a known length (a local or shared array, a struct's array field).
    Array(Rc<Ty>, u64),
    /// A struct instance.
    Struct(Rc<StructTy>),
    /// A cooperative group (`cg::thread_block`): `sync()`, `thread_rank()`, `size()`.
    Group,
    /// A thread-block tile of this many consecutive lanes (`cg::thread_block_tile<32>`).
    Tile(u32),
}

/// A struct with its template arguments bound and its fields laid out.
///
/// The layout is set once its fields are resolved: a field may point to the struct itself
/// (`struct node { int key; node* next; }`), whose type then stands, laid out or not, behind
/// the pointer. Two struct types are the same when their names (with their arguments) and
/// items are.
pub struct StructTy {
    /// The name as written, with its arguments (`SharedMemory<float>`).
    pub name: String,
    /// The struct's item in the unit.
    pub item: usize,
    /// Its data members, `sizeof` and `alignof`, once resolved. A struct that points to itself
    /// makes a cycle of `Rc`s through its fields: the run's [`StructArena`] empties this when
    /// the run ends, which breaks it.
    pub layout: std::cell::RefCell<Option<Rc<StructLayout>>>,
    /// The template's bindings inside its members.
    pub bindings: Rc<super::Bindings>,
}

/// A struct's data members in declaration order, its `sizeof` and its `alignof`.
#[derive(Debug, Default, PartialEq)]
pub struct StructLayout {
    /// The data members.
    pub fields: Vec<Field>,
    /// `sizeof`.
    pub size: u64,
    /// `alignof`.
    pub align: u64,
}

impl StructTy {
    /// Its layout (no fields, size and alignment 1, while they are being resolved).
    pub fn laid(&self) -> Rc<StructLayout> {
        self.layout
            .borrow()
            .clone()
            .unwrap_or_else(|| Rc::new(StructLayout { fields: Vec::new(), size: 1, align: 1 }))
    }

    /// Whether its fields are resolved.
    pub fn is_laid_out(&self) -> bool {
        self.layout.borrow().is_some()
    }

    /// `sizeof` (1 while the fields are being resolved).
    pub fn size(&self) -> u64 {
        self.layout.borrow().as_ref().map_or(1, |l| l.size)
    }

    /// `alignof`.
    pub fn align(&self) -> u64 {
        self.layout.borrow().as_ref().map_or(1, |l| l.align)
    }
}

/// Every struct type a run resolved, shared by the run's copies of its state: when the last
/// goes, each struct's layout is emptied, so that a struct that points to itself (its field's
/// pointee is the struct) is freed.
#[derive(Debug, Default)]
pub struct StructArena(pub std::cell::RefCell<Vec<Rc<StructTy>>>);

impl Drop for StructArena {
    fn drop(&mut self) {
        for s in self.0.get_mut().drain(..) {
            s.layout.borrow_mut().take();
        }
    }
}

impl PartialEq for StructTy {
    fn eq(&self, other: &StructTy) -> bool {
        self.name == other.name && self.item == other.item
    }
}

impl fmt::Debug for StructTy {
    // By name: a struct that points to itself would print forever.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", self.name)
    }
}

/// A data member.
#[derive(Debug, PartialEq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Bytes from the struct's start.
    pub offset: u64,
}

impl Ty {
    /// `sizeof`.
    pub fn size(&self) -> u64 {
        match self {
            Ty::Void | Ty::Group | Ty::Tile(_) => 1,
            Ty::Bool => 1,
            Ty::Int(t) => u64::from(t.bytes),
            Ty::Float => 4,
            Ty::Double => 8,
            Ty::Vector(e, n) => e.size() * u64::from(*n),
            Ty::Ptr(..) => 8,
            Ty::Array(e, n) => e.size().saturating_mul(*n),
            Ty::Struct(s) => s.size(),
        }
    }

    /// `alignof`: a 1-, 2- or 4-component vector is aligned to its size up to 16, a
    /// 3-component one to its component (`vector_types.h`).
    pub fn align(&self) -> u64 {
        match self {
            Ty::Vector(e, 3) => e.align(),
            Ty::Vector(..) => self.size().min(16),
            Ty::Array(e, _) => e.align(),
            Ty::Struct(s) => s.align(),
            _ => self.size(),
        }
    }

    /// Whether values of this type are one number per lane (integers, floats, pointers).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Bool | Ty::Int(_) | Ty::Float | Ty::Double | Ty::Ptr(..)
        )
    }

    /// Whether arithmetic on it is floating.
    pub fn is_floating(&self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }

    /// The integer type of an integer or `bool` (as `int` after promotion, `bool` as 1 byte
    /// unsigned).
    pub fn int(&self) -> Option<IntType> {
        match self {
            Ty::Int(t) => Some(*t),
            Ty::Bool => Some(IntType { bytes: 1, signed: false }),
            _ => None,
        }
    }

    /// How many scalar parts a value of this type holds, in order.
    pub fn parts(&self) -> usize {
        match self {
            Ty::Vector(_, n) => usize::from(*n),
            Ty::Array(e, n) => e.parts().saturating_mul(*n as usize),
            Ty::Struct(s) => s.laid().fields.iter().map(|f| f.ty.parts()).sum(),
            _ => 1,
        }
    }

    /// Whether a copy of it from memory is one access (a scalar or a vector).
    pub fn is_one_access(&self) -> bool {
        self.is_scalar() || matches!(self, Ty::Vector(..))
    }

    /// The pointee and space of a pointer, or the element of an array (which decays).
    pub fn pointee(&self) -> Option<(&Ty, Space)> {
        match self {
            Ty::Ptr(t, s) => Some((t, *s)),
            _ => None,
        }
    }
}

impl Ty {
    /// The type's name with its article, for messages: "a float", "an int".
    pub fn a(&self) -> String {
        let name = self.to_string();
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name}")
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Void => f.write_str("void"),
            Ty::Bool => f.write_str("bool"),
            Ty::Int(t) => f.write_str(t.name()),
            Ty::Float => f.write_str("float"),
            Ty::Double => f.write_str("double"),
            Ty::Vector(e, n) => match **e {
                Ty::Int(t) if t == UINT && *n == 3 => f.write_str("dim3"),
                Ty::Int(t) => {
                    let name = t.name().replace("unsigned ", "u");
                    write!(f, "{name}{n}")
                }
                _ => write!(f, "{e}{n}"),
            },
            Ty::Ptr(t, _) => write!(f, "{t}*"),
            Ty::Array(t, n) => write!(f, "{t}[{n}]"),
            Ty::Struct(s) => f.write_str(&s.name),
            Ty::Group => f.write_str("thread_block"),
            Ty::Tile(n) => write!(f, "thread_block_tile<{n}>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A struct that points to itself is a cycle of `Rc`s; the arena breaks it when it goes.
    #[test]
    fn the_arena_frees_a_struct_that_points_to_itself() {
        let node = Rc::new(StructTy {
            name: "node".into(),
            item: 0,
            layout: std::cell::RefCell::new(None),
            bindings: Rc::default(),
        });
        let next = Ty::Ptr(Rc::new(Ty::Struct(node.clone())), Space::Global);
        *node.layout.borrow_mut() = Some(Rc::new(StructLayout {
            fields: vec![Field { name: "next".into(), ty: next, offset: 0 }],
            size: 8,
            align: 8,
        }));
        let weak = Rc::downgrade(&node);
        let arena = StructArena::default();
        arena.0.borrow_mut().push(node);
        assert_eq!(Ty::Struct(weak.upgrade().unwrap()).size(), 8);
        drop(arena);
        assert!(weak.upgrade().is_none(), "freed");
    }
}
