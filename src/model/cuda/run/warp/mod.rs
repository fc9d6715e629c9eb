//! One warp's run of the kernel: its lanes, their variables, the active masks of control
//! flow, and the events it leaves (accesses and barriers).
//!
//! - `exec`: statements and control flow;
//! - `eval`: expressions, places (what can be assigned), loads and stores;
//! - `arith`: operators, conversions and initialisers;
//! - `call`: device functions, constructors, methods and conversions;
//! - `builtin`: barriers, atomics, shuffles and votes, cooperative groups, the math library;
//! - `types`: types resolved with their template arguments, structs laid out.
//!
//! This file keeps what every part above shares: the warp's state, the kernel's entry and
//! arguments, and the one place an access is recorded (its site, the tally's event and the
//! bounds check), so that no part records an access its own way. It is one idea, the warp's
//! state and its entry, which every part above shares.

mod arith;
mod builtin;
mod call;
mod eval;
mod exec;
mod fill;
mod host;
mod math;
mod memory;
mod names;
mod park;
mod stream;
mod types;

use super::super::ast::{Function, Item};
use super::super::error::Pos;
use super::error::{RunError, RunErrorKind};
use super::ty::Ty;
use super::value::{Lanes, S};
use super::{Bindings, Events, Program, Shared};
use crate::model::cuda::files::Line;
use crate::model::machine::Space;
use std::rc::Rc;

pub(crate) use fill::fill_memory;
pub(crate) use host::{hooks, run_host, Hooks};
pub(crate) use park::Parked;
pub(crate) use types::bind_launch_template;

type R<T> = Result<T, RunError>;

/// A value: its type and its lanes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Value {
    pub(crate) ty: Ty,
    pub(crate) lanes: Lanes,
}

impl Value {
    fn new(ty: Ty, lanes: Lanes) -> Value {
        Value { ty, lanes }
    }

    fn int(ty: super::super::cint::IntType, v: i128) -> Value {
        Value::new(Ty::Int(ty), Lanes::Same(S::I(v)))
    }
}

/// Where a value lives, so it can be read and written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Place {
    /// A local variable's parts from `part` (the same in every lane, or one per lane for a
    /// local array indexed by lane).
    Var { slot: usize, part: Lanes, ty: Ty },
    /// Memory: each lane's address.
    Mem { addr: Lanes, ty: Ty, space: Space },
    /// `__constant__` memory: read through the constant cache, not counted.
    Constant { ty: Ty },
    /// A value that is not stored anywhere (a temporary, a built-in).
    Temp(Value),
}

/// A local variable: a value, or a reference to a place.
#[derive(Clone, Debug)]
enum Var {
    Value(Ty, Lanes),
    Alias(Place),
}

/// A loop's or a switch's lanes that have left it.
#[derive(Clone, Copy, Debug, Default)]
struct Flow {
    is_loop: bool,
    broken: u64,
    continued: u64,
}

/// A function being run.
#[derive(Debug)]
struct Frame {
    names_base: usize,
    returned: u64,
    flows: Vec<Flow>,
    ret: Option<Value>,
    ret_ty: Ty,
    bindings: Rc<Bindings>,
    function: *const Function,
    this: Option<Place>,
}

impl Frame {
    /// The frame a run starts in: the kernel's (or none, for a constant expression), returning
    /// nothing, with no loop around it.
    fn outermost(bindings: Rc<Bindings>, function: *const Function) -> Frame {
        Frame {
            names_base: 0,
            returned: 0,
            flows: Vec::new(),
            ret: None,
            ret_ty: Ty::Void,
            bindings,
            function,
            this: None,
        }
    }
}

/// One warp's run.
pub(crate) struct Warp<'a> {
    p: &'a Program,
    sh: &'a mut Shared,
    width: usize,
    /// Lanes that hold a thread.
    full: u64,
    block: [u64; 3],
    /// The warp within its block.
    warp: u32,
    /// The lanes' `threadIdx`, x, y, z.
    tid: [Lanes; 3],
    vars: Vec<Var>,
    names: Vec<(String, usize)>,
    frames: Vec<Frame>,
    out: &'a mut Events,
    /// Lane-accesses this warp may still make.
    room: u64,
    made: u64,
    /// Loop iterations run by this warp so far, all loops together.
    iterations: u64,
    /// Evaluating a constant expression: no thread exists.
    constant: bool,
    /// Lines of the `if`s and loops the current statement is inside, innermost last.
    enclosing: Vec<u32>,
    /// Whether a barrier may park the warp (a block's warp; not a constant expression).
    phased: bool,
    /// How many calls inside larger expressions the run is in: a barrier there does not park.
    nosuspend: u32,
    /// A barrier was met in the statement now running, which parks the warp at its end.
    at_barrier: bool,
    /// Where a parked warp stands: recorded innermost first while it parks, taken from the end
    /// while it resumes, empty while it runs.
    levels: Vec<park::Level>,
    /// The position of the call the running statement makes that may park
    /// ([`Warp::parkable_call`]).
    designated: Option<Pos>,
    /// A resumed statement's call: its position and the value it returned.
    pending: Option<(Pos, Value)>,
    /// Running host code (`main()` and its helpers): one lane, no thread, host memory.
    host: bool,
}

/// How a warp's run ended: at the end of the kernel, or parked at a barrier.
pub(crate) enum Ran {
    /// The warp has run the kernel to its end.
    Done,
    /// The warp waits at a barrier for the block's other warps.
    Parked(Parked),
}

/// A launch that gives kernel `f` `given` arguments, not as many as it takes.
fn arity(f: &Function, given: usize, at: Pos) -> RunError {
    RunError::at(
        at,
        RunErrorKind::Launch(format!(
            "{} ({}) takes {} argument{}, the launch gives {given}",
            f.name,
            Line(f.pos.line),
            f.params.len(),
            if f.params.len() == 1 { "" } else { "s" },
        )),
    )
}

/// Block `linear`'s `(x, y, z)`.
pub(crate) fn block_index(p: &Program, linear: u64) -> [u64; 3] {
    let [gx, gy, _] = p.launch.grid;
    [linear % gx, linear / gx % gy, linear / (gx * gy)]
}

/// The `threadIdx` of the thread with linear id `tid`.
pub(crate) fn thread_of(p: &Program, tid: u64) -> [u64; 3] {
    let [bx, by, _] = p.launch.block;
    [tid % bx, tid / bx % by, tid / (bx * by)]
}

/// Runs warp `warp` of block `block` into `out` until its end or its next barrier, from its
/// start or from where it parked; returns how it stopped and the lane-accesses made.
pub(crate) fn run_warp(
    p: &Program,
    sh: &mut Shared,
    block: u64,
    warp: u32,
    out: &mut Events,
    room: u64,
    parked: Option<Parked>,
) -> R<(Ran, u64)> {
    let width = p.machine.warp as usize;
    let threads: u64 = p.launch.block.iter().product();
    let first = u64::from(warp) * width as u64;
    let mut full = 0u64;
    let mut tid: [Vec<S>; 3] = [
        vec![S::I(0); width],
        vec![S::I(0); width],
        vec![S::I(0); width],
    ];
    for lane in 0..width {
        let t = first + lane as u64;
        if t < threads {
            full |= 1 << lane;
            for (axis, v) in thread_of(p, t).iter().enumerate() {
                if let Some(slot) = tid.get_mut(axis).and_then(|a| a.get_mut(lane)) {
                    *slot = S::I(i128::from(*v));
                }
            }
        }
    }
    let [x, y, z] = tid;
    let lines = !sh.general_only;
    let phased = !sh.whole_warps;
    let lanes = |v: Vec<S>| Lanes::from_values(v, lines);
    let mut w = Warp {
        p,
        sh,
        width,
        full,
        block: block_index(p, block),
        warp,
        tid: [lanes(x), lanes(y), lanes(z)],
        vars: Vec::new(),
        names: Vec::new(),
        frames: Vec::new(),
        out,
        room,
        made: 0,
        iterations: 0,
        constant: false,
        enclosing: Vec::new(),
        phased,
        nosuspend: 0,
        at_barrier: false,
        levels: Vec::new(),
        designated: None,
        pending: None,
        host: false,
    };
    let out = match parked {
        Some(parked) => {
            w.unpark(parked);
            w.resume_kernel()
        }
        None => w.kernel(),
    };
    match out {
        Ok(()) => Ok((Ran::Done, w.made)),
        Err(e) if e.is_parked() => Ok((Ran::Parked(w.park()), w.made)),
        Err(e) => Err(e),
    }
}

/// Checks the launch's arguments against the kernel's parameters.
pub(crate) fn launch_arguments(p: &Program, sh: &mut Shared) -> R<()> {
    let mut events = Events::default();
    let mut w = Warp::constant(p, sh, &mut events);
    w.arguments().map(|_| ())
}

impl<'a> Warp<'a> {
    /// A warp of one lane and no thread, for constant expressions.
    fn constant(p: &'a Program, sh: &'a mut Shared, out: &'a mut Events) -> Warp<'a> {
        Warp {
            p,
            sh,
            width: 1,
            full: 1,
            block: [0; 3],
            warp: 0,
            tid: [
                Lanes::Same(S::I(0)),
                Lanes::Same(S::I(0)),
                Lanes::Same(S::I(0)),
            ],
            vars: Vec::new(),
            names: Vec::new(),
            frames: Vec::new(),
            out,
            room: 0,
            made: 0,
            iterations: 0,
            constant: true,
            enclosing: Vec::new(),
            phased: false,
            nosuspend: 0,
            at_barrier: false,
            levels: Vec::new(),
            designated: None,
            pending: None,
            host: false,
        }
    }

    /// A constant warp ([`Warp::constant`]) with one frame whose template values are
    /// `bindings`, ready to evaluate an expression.
    fn constant_in(
        p: &'a Program,
        sh: &'a mut Shared,
        out: &'a mut Events,
        bindings: Rc<Bindings>,
    ) -> Warp<'a> {
        let mut c = Warp::constant(p, sh, out);
        c.frames.push(Frame::outermost(bindings, std::ptr::null()));
        c
    }

    fn kernel_fn(&self) -> R<&'a Function> {
        match self.p.unit.items.get(self.p.kernel) {
            Some(Item::Function(f)) => Ok(f),
            _ => Err(RunError::at(
                Pos::default(),
                RunErrorKind::Internal("the kernel is not a function"),
            )),
        }
    }

    /// The kernel's parameters bound to the launch's arguments.
    fn arguments(&mut self) -> R<Vec<(String, Value)>> {
        let f = self.kernel_fn()?;
        if let Some(given) = self.p.given.clone() {
            return self.given_arguments(f, &given);
        }
        let args = &self.p.launch.args;
        let arg_pos = |arg: &super::super::parse::launch::LaunchArg| match arg {
            super::super::parse::launch::LaunchArg::Buffer { pos, .. } => *pos,
            super::super::parse::launch::LaunchArg::Value(e) => e.pos,
        };
        if args.len() != f.params.len() {
            let at = args
                .get(f.params.len())
                .map_or(Pos { line: 1, column: 1 }, arg_pos);
            return Err(arity(f, args.len(), at));
        }
        let bindings = self.p.bindings.clone();
        let mut out = Vec::new();
        for (param, arg) in f.params.iter().zip(args) {
            let ty = self.resolve(&param.ty, &bindings, param.pos)?;
            let name = param.name.clone().unwrap_or_default();
            let at = arg_pos(arg);
            let value = match (super::buffer(arg), &ty) {
                (Some((buffer, offset)), Ty::Ptr(pointee, _)) => {
                    let allocation = self.p.allocations.iter().find(|a| a.name == buffer);
                    let base = allocation.map_or(0, |a| a.base);
                    let size = pointee.size() as i128;
                    // An allocation must fit below 2^64: a pin near the top wrapped to 0.
                    let elements = allocation.and_then(|a| a.count).unwrap_or(1).max(1);
                    if i128::from(base) + i128::from(elements).saturating_mul(size)
                        > i128::from(u64::MAX) + 1
                    {
                        return Err(RunError::at(
                            at,
                            RunErrorKind::Launch(format!(
                                "{buffer} at {base:#x} reaches past 2^64, the end of the address \
                                 space"
                            )),
                        ));
                    }
                    let addr = i128::from(base) + i128::from(offset) * size;
                    let addr = u64::try_from(addr).map_err(|_| {
                        let side = if addr < 0 {
                            "starts below address 0"
                        } else {
                            "starts past 2^64, the end of the address space"
                        };
                        RunError::at(
                            at,
                            RunErrorKind::Launch(format!("{buffer}{offset:+} {side}")),
                        )
                    })?;
                    Value::new(
                        Ty::Ptr(pointee.clone(), Space::Global),
                        Lanes::Same(S::P(addr)),
                    )
                }
                (Some((buffer, _)), _) => {
                    return Err(RunError::at(
                        at,
                        RunErrorKind::Launch(format!(
                        "parameter {name} is {}, but the launch passes the buffer {buffer}; give a \
                             value",
                            ty.a()
                    )),
                    ))
                }
                (None, Ty::Ptr(pointee, space)) => {
                    // `NULL`, `nullptr` or `0`: a null pointer, which the kernel may test.
                    let null = match arg {
                        super::super::parse::launch::LaunchArg::Value(e) => {
                            matches!(
                                self.eval(e, 1).map(|v| v.lanes),
                                Ok(Lanes::Same(S::I(0) | S::P(0)))
                            )
                        }
                        _ => false,
                    };
                    if !null {
                        return Err(RunError::at(
                            at,
                            RunErrorKind::Launch(format!(
                                "parameter {name} is a pointer; the launch must name a buffer \
                                 for it, or pass NULL"
                            )),
                        ));
                    }
                    Value::new(Ty::Ptr(pointee.clone(), *space), Lanes::Same(S::P(0)))
                }
                (None, _) => {
                    let super::super::parse::launch::LaunchArg::Value(e) = arg else {
                        return Err(RunError::at(param.pos, RunErrorKind::Internal("argument")));
                    };
                    let not_constant = |why: String| {
                        RunError::at(
                            at,
                            RunErrorKind::Launch(format!(
                                "the argument for {name} must be a number or a constant \
                                 expression ({why})"
                            )),
                        )
                    };
                    let v = self
                        .eval(e, 1)
                        .and_then(|v| self.convert(v, &ty, 1, e.pos))
                        .map_err(|err| not_constant(err.kind.to_string()))?;
                    if v.lanes.first_unknown(1).is_some() || !v.ty.is_scalar() {
                        return Err(not_constant(format!("{} is not a scalar", v.ty.a())));
                    }
                    v
                }
            };
            out.push((name, value));
        }
        Ok(out)
    }

    /// The kernel's parameters bound to the values host code passed.
    fn given_arguments(&mut self, f: &Function, given: &[Value]) -> R<Vec<(String, Value)>> {
        if given.len() != f.params.len() {
            return Err(arity(f, given.len(), f.pos));
        }
        let bindings = self.p.bindings.clone();
        let mut out = Vec::new();
        for (param, v) in f.params.iter().zip(given) {
            let ty = self.resolve(&param.ty, &bindings, param.pos)?;
            let name = param.name.clone().unwrap_or_default();
            let value = match (&ty, v.lanes.at(0)) {
                (Ty::Ptr(pointee, _), S::P(a)) => Value::new(
                    Ty::Ptr(pointee.clone(), Space::Global),
                    Lanes::Same(S::P(a)),
                ),
                _ => self.convert(v.clone(), &ty, 1, param.pos)?,
            };
            out.push((name, value));
        }
        Ok(out)
    }

    /// The launch's allocations, with their declared lengths and their element sizes from
    /// the kernel's parameters, and the `__device__` variables (of no declared length), for
    /// the bounds check.
    fn extents(&mut self, f: &Function) -> R<()> {
        let bindings = self.p.bindings.clone();
        let mut extents: Vec<super::check::Extent> = Vec::new();
        for (param, arg) in f.params.iter().zip(&self.p.launch.args) {
            let Some((name, _)) = super::buffer(arg) else {
                continue;
            };
            let Ty::Ptr(pointee, _) = self.resolve(&param.ty, &bindings, param.pos)? else {
                continue;
            };
            let Some(a) = self.p.allocations.iter().find(|a| a.name == name) else {
                continue;
            };
            if extents.iter().any(|e| e.name == name) {
                continue;
            }
            extents.push(super::check::Extent {
                name: name.to_string(),
                base: a.base,
                count: a.count,
                elem: pointee.size().max(1),
            });
        }
        if let Some(given) = self.p.given.clone() {
            // A program's launch: every live device allocation, its length in the elements of
            // the first parameter that points into it (bytes when none does).
            let tys: Vec<(u64, u64)> = f
                .params
                .iter()
                .zip(given.iter())
                .filter_map(|(param, v)| {
                    match (self.resolve(&param.ty, &bindings, param.pos), v.lanes.at(0)) {
                        (Ok(Ty::Ptr(pointee, _)), S::P(a)) => Some((a, pointee.size().max(1))),
                        _ => None,
                    }
                })
                .collect();
            for (name, base, bytes) in &self.p.heap {
                let elem = tys
                    .iter()
                    .find(|(a, _)| *a >= *base && *a < base + bytes.max(&1))
                    .map_or(1, |(_, e)| *e);
                extents.push(super::check::Extent {
                    name: name.clone(),
                    base: *base,
                    count: Some(bytes / elem),
                    elem,
                });
            }
        }
        for (name, &base) in &self.p.device_globals {
            extents.push(super::check::Extent {
                name: name.clone(),
                base,
                count: None,
                elem: 1,
            });
        }
        self.sh.checks.set_extents(extents);
        Ok(())
    }

    /// Runs the kernel's body with every lane of the warp.
    fn kernel(&mut self) -> R<()> {
        let f = self.kernel_fn()?;
        let args = self.arguments()?;
        if !self.sh.extents_known {
            self.sh.extents_known = true;
            self.extents(f)?;
        }
        let bindings = self.p.bindings.clone();
        self.frames
            .push(Frame::outermost(bindings, f as *const Function));
        for (name, value) in args {
            self.declare_value(&name, value.ty, value.lanes);
        }
        if !self.sh.shared_laid_out {
            self.sh.shared_laid_out = true;
            self.static_shared_bytes()?;
        }
        let full = self.full;
        self.seq(&f.body, full, false)?;
        self.frames.pop();
        Ok(())
    }

    /// Runs the rest of the kernel's body from where the warp parked.
    fn resume_kernel(&mut self) -> R<()> {
        let f = self.kernel_fn()?;
        let full = self.full;
        self.seq(&f.body, full, false)?;
        self.frames.pop();
        Ok(())
    }

    /// The warp's state, parked.
    fn park(&mut self) -> Parked {
        Parked {
            vars: std::mem::take(&mut self.vars),
            names: std::mem::take(&mut self.names),
            frames: std::mem::take(&mut self.frames),
            iterations: self.iterations,
            enclosing: std::mem::take(&mut self.enclosing),
            levels: std::mem::take(&mut self.levels),
        }
    }

    /// Takes up a parked warp's state.
    fn unpark(&mut self, p: Parked) {
        self.vars = p.vars;
        self.names = p.names;
        self.frames = p.frames;
        self.iterations = p.iterations;
        self.enclosing = p.enclosing;
        self.levels = p.levels;
    }

    /// The error `kind` at `pos`, met by the first lane of `mask`.
    fn fail(&self, pos: Pos, mask: u64, kind: RunErrorKind) -> RunError {
        let lane = if mask == 0 {
            0
        } else {
            mask.trailing_zeros() as usize
        };
        self.fail_lane(pos, lane, kind)
    }

    /// The error `kind` at `pos`, met by lane `lane`.
    fn fail_lane(&self, pos: Pos, lane: usize, kind: RunErrorKind) -> RunError {
        if self.constant {
            return RunError::at(pos, kind);
        }
        let tid = [0, 1, 2].map(|a| match self.tid[a].at(lane) {
            S::I(v) => v as u64,
            _ => 0,
        });
        RunError {
            pos,
            thread: Some((self.block, tid)),
            kind: Box::new(kind),
        }
    }

    fn frame(&self) -> R<&Frame> {
        self.frames
            .last()
            .ok_or_else(|| RunError::at(Pos::default(), RunErrorKind::Internal("no frame")))
    }

    fn frame_mut(&mut self) -> R<&mut Frame> {
        self.frames
            .last_mut()
            .ok_or_else(|| RunError::at(Pos::default(), RunErrorKind::Internal("no frame")))
    }

    /// Lanes that have left the current statement: returned, broken out or continued.
    fn dead(&self) -> u64 {
        self.frames.last().map_or(0, |f| {
            f.flows
                .iter()
                .fold(f.returned, |m, fl| m | fl.broken | fl.continued)
        })
    }

    /// Declares a local variable.
    /// Host code's entry points, when a program runs.
    fn hooks(&self) -> Option<&'static Hooks> {
        self.sh.host.as_ref().map(|h| h.hooks)
    }

    /// Host code's entry points, which host code needs.
    fn host_hooks(&self, pos: Pos) -> R<&'static Hooks> {
        self.hooks()
            .ok_or_else(|| RunError::at(pos, RunErrorKind::Internal("host code outside a program")))
    }

    fn declare_value(&mut self, name: &str, ty: Ty, lanes: Lanes) {
        if let Some(h) = self.hooks() {
            (h.name_allocation)(self, name, &ty, &lanes);
        }
        let slot = self.vars.len();
        self.vars.push(Var::Value(ty, lanes));
        self.names.push((name.to_string(), slot));
    }

    /// Declares a reference.
    fn declare_alias(&mut self, name: &str, place: Place) {
        let slot = self.vars.len();
        self.vars.push(Var::Alias(place));
        self.names.push((name.to_string(), slot));
    }

    /// The local named `name` in the current function, innermost first.
    fn local(&self, name: &str) -> Option<usize> {
        let base = self.frames.last().map_or(0, |f| f.names_base);
        self.names
            .get(base..)?
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    /// Records a memory access of the lanes of `mask`; checks that the addresses are known.
    #[allow(clippy::too_many_arguments, reason = "one access's fields")]
    fn record(
        &mut self,
        pos: Pos,
        kind: super::SiteKind,
        space: Space,
        elem: u64,
        part: u32,
        addr: &Lanes,
        mask: u64,
        same_value: bool,
    ) -> R<()> {
        if mask == 0 {
            return Ok(());
        }
        if let Some((lane, line)) = addr.first_unknown(mask) {
            return Err(self.fail_lane(
                pos,
                lane,
                RunErrorKind::DependsOnLoad { what: "the address", load_line: line },
            ));
        }
        if self.constant {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type("a constant expression cannot read memory".into()),
            ));
        }
        let lanes = u64::from(mask.count_ones());
        if self.made + lanes > self.room {
            return Err(self.fail(
                pos,
                mask,
                RunErrorKind::BlockTooLarge {
                    limit: super::MAX_BLOCK_LANE_ACCESSES,
                    unit: "lane-accesses",
                    shrink: super::Shrink::of(&self.p.launch.sizes, 1.0),
                },
            ));
        }
        self.made += lanes;
        // A program's kernel that dereferences a host pointer: the GPU faults there.
        if space == Space::Global && self.sh.global.tracks_writes() {
            let mut rest = mask;
            while rest != 0 {
                let t = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let a = address(addr.at(t));
                if super::program::is_host_address(a) {
                    let verb = if kind == super::SiteKind::Load {
                        "reads"
                    } else {
                        "writes"
                    };
                    return Err(self.fail_lane(
                        pos,
                        t,
                        RunErrorKind::Host(format!(
                            "the kernel {verb} host memory at {a:#x}: a pointer from malloc, \
                             new or a host array faults on a GPU (pinned memory from \
                             cudaMallocHost a GPU reaches, but this model's kernels reach \
                             device memory only). Allocate it with cudaMalloc and copy it \
                             there, or with cudaMallocManaged"
                        )),
                    ));
                }
            }
        }
        let site = self.sh.site(pos, kind, space, elem, part);
        let at = self.out.addresses.len();
        if self.out.list.len() >= super::MAX_BLOCK_WARP_ACCESSES {
            return Err(self.fail(
                pos,
                mask,
                RunErrorKind::BlockTooLarge {
                    limit: super::MAX_BLOCK_WARP_ACCESSES as u64,
                    unit: "warp accesses",
                    shrink: super::Shrink::of(&self.p.launch.sizes, 1.0),
                },
            ));
        }
        let mut rest = mask;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.out.addresses.push(address(addr.at(t)));
        }
        self.out.list.push(super::Event::Access(super::Access {
            site,
            kind,
            space,
            elem,
            mask,
            at,
            same_value,
        }));
        {
            let block = self.block;
            let tid = &self.tid;
            let thread = |t: usize| {
                [0, 1, 2].map(|a| match tid[a].at(t) {
                    S::I(v) => v as u64,
                    _ => 0,
                })
            };
            let lane_addr = |t: usize| address(addr.at(t));
            self.sh
                .checks
                .bounds(site as usize, space, elem, mask, lane_addr, block, thread);
            // initcheck, where device memory tracks what was written (a program's).
            if kind == super::SiteKind::Load
                && space == Space::Global
                && self.sh.global.tracks_writes()
            {
                let sh = &mut *self.sh;
                let global = &sh.global;
                sh.checks.uninit(
                    site as usize,
                    elem,
                    mask,
                    lane_addr,
                    |a| global.unwritten(a, elem),
                    block,
                    thread,
                );
            }
        }
        Ok(())
    }
}

/// A lane's address as the tally takes it: a pointer's, or an integer's bits (an address
/// built from integers); an unknown one never gets here (`record` refuses it first).
fn address(s: S) -> u64 {
    match s {
        S::P(a) => a,
        S::I(v) => v as u64,
        _ => 0,
    }
}
