//! The data a launch gives its allocations (`name[N]=zero|iota|rand(SEED[, BOUND])`),
//! written into global memory before the first warp, element by element in the type of the
//! kernel's parameter each allocation is passed for.

use super::super::error::{RunError, RunErrorKind};
use super::super::ty::Ty;
use super::super::value::S;
use super::super::{Events, Program, Shared};
use super::{Warp, R};
use std::rc::Rc;

/// The most bytes of data a launch gives one allocation (`name[COUNT]=FILL`): 64 MiB.
pub const MAX_FILL_BYTES: u64 = 64 << 20;

/// Writes the data the launch gives its allocations (`name[COUNT]=FILL`) into global memory,
/// each element in the type of the kernel's parameter the allocation is passed for.
pub(crate) fn fill_memory(p: &Program, sh: &mut Shared) -> R<()> {
    let mut events = Events::default();
    let mut w = Warp::constant(p, sh, &mut events);
    w.fill_allocations()
}

impl Warp<'_> {
    /// Fills each allocation the launch gives data, once.
    fn fill_allocations(&mut self) -> R<()> {
        use super::super::super::parse::launch::{Fill, LaunchArg};
        use crate::model::clib::rand::{Rand, RAND_MAX};
        let f = self.kernel_fn()?;
        let bindings = self.p.bindings.clone();
        let mut done: Vec<&str> = Vec::new();
        for (param, arg) in f.params.iter().zip(&self.p.launch.args) {
            let LaunchArg::Buffer { name, pos, .. } = arg else {
                continue;
            };
            let Some(a) = self.p.allocations.iter().find(|a| &a.name == name) else {
                continue;
            };
            let (Some(fill), Some(count)) = (a.fill, a.count) else {
                continue;
            };
            if done.contains(&name.as_str()) {
                continue;
            }
            done.push(name);
            let Ty::Ptr(elem, _) = self.resolve(&param.ty, &bindings, param.pos)? else {
                continue;
            };
            let size = elem.size().max(1);
            let refuse = |why: String| RunError::at(*pos, RunErrorKind::Launch(why));
            let bytes = count.saturating_mul(size);
            if bytes > MAX_FILL_BYTES {
                return Err(refuse(format!(
                    "{name}[{count}]={fill} is {bytes} bytes of data; the launch gives an \
                     allocation at most {MAX_FILL_BYTES} (64 MiB)"
                )));
            }
            if fill != Fill::Zero && !elem.is_scalar() {
                return Err(refuse(format!(
                    "{fill} fills numbers, but {name} points to {}; use zero",
                    elem.a()
                )));
            }
            let mut r = match fill {
                Fill::Rand { seed, .. } => Rand::seeded(seed),
                _ => Rand::default(),
            };
            let mem = Rc::make_mut(&mut self.sh.global);
            for k in 0..count {
                let v = match fill {
                    Fill::Zero => match *elem {
                        Ty::Float | Ty::Double => S::F(0.0),
                        Ty::Ptr(..) => S::P(0),
                        _ => S::I(0),
                    },
                    Fill::Iota if elem.is_floating() => S::F(k as f64),
                    Fill::Iota => S::I(i128::from(k)),
                    Fill::Rand { bound: Some(b), .. } => {
                        let x = u64::from(r.rand().unsigned_abs()) % b;
                        if elem.is_floating() {
                            S::F(x as f64)
                        } else {
                            S::I(i128::from(x))
                        }
                    }
                    // C's `(float)rand() / RAND_MAX`, in the element's precision.
                    Fill::Rand { bound: None, .. } => match *elem {
                        Ty::Float => S::F(f64::from(r.rand() as f32 / RAND_MAX as f32)),
                        Ty::Double => S::F(f64::from(r.rand()) / f64::from(RAND_MAX)),
                        _ => S::I(i128::from(r.rand())),
                    },
                };
                if fill == Fill::Zero && !elem.is_scalar() {
                    mem.write(a.base + k * size, &vec![0u8; size as usize]);
                } else {
                    mem.store(a.base + k * size, &elem, v);
                }
            }
        }
        Ok(())
    }
}
