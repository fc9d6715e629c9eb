//! Device memory that holds values: bytes at device addresses, each with a bit that says
//! whether its value is known (and, in a program's device memory, one that says whether
//! anything wrote it: initcheck's). A store of a known value writes its bytes; a store of a value
//! computed from an unknown one, and an atomic, make them unknown again. A load of bytes that
//! are all known gives their value; any other load gives an unknown value, as every load did
//! before memory held values, so nothing here ever makes a value up.
//!
//! Global memory lasts the launch (blocks run in order, so a block reads what earlier blocks
//! wrote); shared memory is a block's own, and starts unknown in each block.

use super::ty::Ty;
use super::value::S;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Bytes in a page.
const PAGE: usize = 4096;

/// The most bytes of values one space holds: 256 MiB. Past it a store to a page not yet held
/// leaves its bytes unknown, so a load of them gives an unknown value, never a wrong one.
pub(crate) const MAX_HELD_BYTES: u64 = 1 << 28;

/// A page of memory: its bytes, and one bit a byte for whether the byte is known.
#[derive(Clone, Debug)]
struct Page {
    bytes: Box<[u8; PAGE]>,
    known: Box<[u64; PAGE / 64]>,
}

impl Page {
    fn new() -> Page {
        Page {
            bytes: Box::new([0; PAGE]),
            known: Box::new([0; PAGE / 64]),
        }
    }

    fn is_known(&self, at: usize) -> bool {
        self.known[at / 64] >> (at % 64) & 1 == 1
    }
}

/// A hasher for page numbers: a multiply, for the page lookups of every lane's load.
#[derive(Default, Clone, Copy)]
struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// One space's memory: sparse pages, by page number, at most `limit` bytes of them; and, for
/// a program's device memory, which bytes anything has written (initcheck).
#[derive(Clone, Debug)]
pub(crate) struct Memory {
    pages: HashMap<u64, Page, BuildHasherDefault<PageHasher>>,
    limit: u64,
    /// One bit a byte for whether a copy, a memset or a store (of any value, known or not)
    /// has written it, by page number; `None` where writes are not tracked.
    written: Option<HashMap<u64, Box<[u64; PAGE / 64]>, BuildHasherDefault<PageHasher>>>,
}

impl Default for Memory {
    fn default() -> Memory {
        Memory {
            pages: HashMap::default(),
            limit: MAX_HELD_BYTES,
            written: None,
        }
    }
}

impl Memory {
    /// Memory that holds at most `limit` bytes of values.
    pub(crate) fn with_limit(limit: u64) -> Memory {
        Memory {
            pages: HashMap::default(),
            limit,
            written: None,
        }
    }

    /// The same memory, tracking which bytes anything writes: a program's device memory,
    /// whose loads of bytes nothing wrote are initcheck's findings. The bits are kept apart
    /// from the values, so past the values' limit a write still counts as written.
    pub(crate) fn tracking_writes(mut self) -> Memory {
        self.written = Some(HashMap::default());
        self
    }

    /// Whether this memory tracks which bytes are written.
    pub(crate) fn tracks_writes(&self) -> bool {
        self.written.is_some()
    }

    /// Marks `len` bytes at `addr` written, where writes are tracked.
    fn mark_written(&mut self, addr: u64, len: u64) {
        let Some(written) = self.written.as_mut() else {
            return;
        };
        for (number, at, n) in spans(addr, len) {
            let bits = written
                .entry(number)
                .or_insert_with(|| Box::new([0; PAGE / 64]));
            for k in at..at + n {
                bits[k / 64] |= 1 << (k % 64);
            }
        }
    }

    /// Whether any of `len` bytes at `addr` has never been written; false where writes are
    /// not tracked.
    pub(crate) fn unwritten(&self, addr: u64, len: u64) -> bool {
        let Some(written) = self.written.as_ref() else {
            return false;
        };
        (0..len).any(|k| {
            let a = addr.wrapping_add(k);
            let at = (a % PAGE as u64) as usize;
            written
                .get(&(a / PAGE as u64))
                .is_none_or(|bits| bits[at / 64] >> (at % 64) & 1 == 0)
        })
    }

    /// Whether no byte is known: every load gives an unknown value.
    pub(crate) fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Forgets every byte, and that any was written.
    pub(crate) fn clear(&mut self) {
        self.pages.clear();
        if let Some(written) = self.written.as_mut() {
            written.clear();
        }
    }

    /// Writes known `bytes` at `addr`, page by page (the access's bounds were checked first,
    /// so the bytes never wrap past the top of the address space).
    pub(crate) fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.mark_written(addr, bytes.len() as u64);
        let mut done = 0usize;
        while done < bytes.len() {
            let a = addr.wrapping_add(done as u64);
            let at = (a % PAGE as u64) as usize;
            let n = (PAGE - at).min(bytes.len() - done);
            let number = a / PAGE as u64;
            if !self.pages.contains_key(&number)
                && (self.pages.len() as u64 + 1) * PAGE as u64 > self.limit
            {
                done += n;
                continue;
            }
            let page = self.pages.entry(number).or_insert_with(Page::new);
            page.bytes[at..at + n].copy_from_slice(&bytes[done..done + n]);
            for k in at..at + n {
                page.known[k / 64] |= 1 << (k % 64);
            }
            done += n;
        }
    }

    /// Makes `len` bytes at `addr` unknown.
    pub(crate) fn forget(&mut self, addr: u64, len: u64) {
        self.mark_written(addr, len);
        if self.pages.is_empty() {
            return;
        }
        for (number, at, n) in spans(addr, len) {
            if let Some(page) = self.pages.get_mut(&number) {
                for k in at..at + n {
                    page.known[k / 64] &= !(1 << (k % 64));
                }
            }
        }
    }

    /// The `N` bytes at `addr` when every one is known.
    pub(crate) fn read<const N: usize>(&self, addr: u64) -> Option<[u8; N]> {
        let mut out = [0u8; N];
        let mut page: Option<(u64, &Page)> = None;
        for (k, slot) in out.iter_mut().enumerate() {
            let a = addr.wrapping_add(k as u64);
            let number = a / PAGE as u64;
            let p = match page {
                Some((n, p)) if n == number => p,
                _ => {
                    let p = self.pages.get(&number)?;
                    page = Some((number, p));
                    p
                }
            };
            let at = (a % PAGE as u64) as usize;
            if !p.is_known(at) {
                return None;
            }
            *slot = p.bytes[at];
        }
        Some(out)
    }

    /// Stores `value`, a scalar of type `ty`, at `addr`: its bytes when it is known, unknown
    /// bytes when it is not.
    pub(crate) fn store(&mut self, addr: u64, ty: &Ty, value: S) {
        let size = ty.size();
        match encode(ty, value) {
            Some(bytes) => self.write(addr, &bytes[..size as usize]),
            None => self.forget(addr, size),
        }
    }

    /// The scalar of type `ty` at `addr`, when its bytes are known.
    pub(crate) fn load(&self, addr: u64, ty: &Ty) -> Option<S> {
        if self.pages.is_empty() {
            return None;
        }
        match ty.size() {
            1 => decode(ty, u64::from(self.read::<1>(addr)?[0])),
            2 => decode(ty, u64::from(u16::from_le_bytes(self.read::<2>(addr)?))),
            4 => decode(ty, u64::from(u32::from_le_bytes(self.read::<4>(addr)?))),
            8 => decode(ty, u64::from_le_bytes(self.read::<8>(addr)?)),
            _ => None,
        }
    }
}

/// The pages `len` bytes at `addr` cross, each as its number, the first byte's offset in it
/// and the bytes in it.
fn spans(addr: u64, len: u64) -> impl Iterator<Item = (u64, usize, usize)> {
    let mut done = 0u64;
    std::iter::from_fn(move || {
        (done < len).then(|| {
            let a = addr.wrapping_add(done);
            let at = (a % PAGE as u64) as usize;
            let n = ((PAGE - at) as u64).min(len - done) as usize;
            done += n as u64;
            (a / PAGE as u64, at, n)
        })
    })
}

/// The little-endian bytes of a scalar `value` of type `ty`, when it is known (8 bytes, of
/// which the type's size are meant).
pub(crate) fn encode(ty: &Ty, value: S) -> Option<[u8; 8]> {
    let bits: u64 = match (ty, value) {
        (_, S::U(_)) => return None,
        (Ty::Bool, S::I(v)) => u64::from(v != 0),
        (Ty::Int(_), S::I(v)) => v as u64,
        (Ty::Float, S::F(x)) => u64::from((x as f32).to_bits()),
        (Ty::Double, S::F(x)) => x.to_bits(),
        (Ty::Ptr(..), S::P(a)) => a,
        (Ty::Ptr(..), S::I(v)) => v as u64,
        _ => return None,
    };
    Some(bits.to_le_bytes())
}

/// A scalar of type `ty` from the low bytes of `bits` (as many as the type's size).
pub(crate) fn decode(ty: &Ty, bits: u64) -> Option<S> {
    Some(match ty {
        Ty::Bool => S::I(i128::from(bits & 0xff != 0)),
        Ty::Int(it) => {
            let width = it.bits();
            let v = if width >= 64 {
                bits
            } else {
                bits & ((1u64 << width) - 1)
            };
            if it.signed && v >> (width - 1) & 1 == 1 {
                S::I(i128::from(v) - (1i128 << width))
            } else {
                S::I(i128::from(v))
            }
        }
        Ty::Float => S::F(f64::from(f32::from_bits(bits as u32))),
        Ty::Double => S::F(f64::from_bits(bits)),
        Ty::Ptr(..) => S::P(bits),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cuda::cint::IntType;
    use crate::model::Space;
    use std::rc::Rc;

    #[test]
    fn a_stored_scalar_loads_back_with_its_type() {
        let mut m = Memory::default();
        let i8t = Ty::Int(IntType { bytes: 1, signed: true });
        let u16t = Ty::Int(IntType { bytes: 2, signed: false });
        let i64t = Ty::Int(IntType { bytes: 8, signed: true });
        let ptr = Ty::Ptr(Rc::new(Ty::Float), Space::Global);
        m.store(0x100, &i8t, S::I(-3));
        m.store(0x102, &u16t, S::I(65535));
        m.store(0x108, &i64t, S::I(-(1 << 40)));
        m.store(0x110, &Ty::Float, S::F(0.1f32 as f64));
        m.store(0x118, &Ty::Double, S::F(0.1));
        m.store(0x120, &ptr, S::P(0x1000_0000));
        m.store(0x128, &Ty::Bool, S::I(5));
        assert_eq!(m.load(0x100, &i8t), Some(S::I(-3)));
        // The same byte read unsigned: C's bits, another type.
        let u8t = Ty::Int(IntType { bytes: 1, signed: false });
        assert_eq!(m.load(0x100, &u8t), Some(S::I(253)));
        assert_eq!(m.load(0x102, &u16t), Some(S::I(65535)));
        assert_eq!(m.load(0x108, &i64t), Some(S::I(-(1 << 40))));
        assert_eq!(m.load(0x110, &Ty::Float), Some(S::F(0.1f32 as f64)));
        assert_eq!(m.load(0x118, &Ty::Double), Some(S::F(0.1)));
        assert_eq!(m.load(0x120, &ptr), Some(S::P(0x1000_0000)));
        assert_eq!(m.load(0x128, &Ty::Bool), Some(S::I(1)));
    }

    #[test]
    fn a_byte_not_known_makes_the_load_unknown() {
        let mut m = Memory::default();
        let int = Ty::Int(IntType { bytes: 4, signed: true });
        assert_eq!(m.load(0, &int), None, "nothing written");
        m.store(0xffe, &int, S::I(7));
        assert_eq!(m.load(0xffe, &int), Some(S::I(7)), "across a page boundary");
        assert_eq!(m.load(0xffc, &int), None, "two bytes never written");
        m.store(0xffe, &int, S::U(3));
        assert_eq!(m.load(0xffe, &int), None, "an unknown value stored");
        m.write(0x2000, &[1, 0, 0, 0]);
        m.forget(0x2001, 1);
        assert_eq!(m.load(0x2000, &int), None, "one byte forgotten");
        m.clear();
        assert!(m.is_empty());
    }

    #[test]
    fn past_its_budget_a_space_leaves_new_pages_unknown() {
        // The budget of 256 MiB, scaled down to 8 pages.
        let mut m = Memory {
            limit: 8 * PAGE as u64,
            ..Memory::default()
        };
        let pages = 8;
        for k in 0..pages {
            m.write(k * PAGE as u64, &[1]);
        }
        m.write(pages * PAGE as u64, &[1]);
        assert_eq!(m.read::<1>(pages * PAGE as u64), None);
        // A page already held still takes values.
        m.write(1, &[9]);
        assert_eq!(m.read::<1>(1), Some([9]));
    }
}
