//! Host code: `main()` and its helpers run as a warp of one lane that no thread owns, with
//! host memory apart from the device's, the C library calls that teaching programs make
//! (glibc's `printf` and `rand`, `malloc` and `free`), the CUDA runtime's memory, copies,
//! errors, events and synchronisation, and each `<<<…>>>` launch run on the SIMT interpreter
//! as it is reached. One idea: what host code can do that a kernel cannot.

use super::super::super::ast::{Expr, ExprKind, Function, TemplateArg, UnaryOp};
use super::super::super::cint::{IntType, INT};
use super::super::super::error::Pos;
use super::super::super::parse::launch::Launch;
use super::super::device_memory::Memory;
use super::super::error::{RunError, RunErrorKind};
use super::super::program::{Block, LaunchRun, Stream};
use super::super::ty::Ty;
use super::super::value::{Lanes, S};
use super::super::{Bindings, CudaFailure, CudaJob, Program, Shared};
use super::memory::scalar_parts;
use super::{Events, Frame, Place, Value, Warp, R};
use crate::model::clib::printf::{sprintf, Arg};
use crate::model::clib::rand::Rand;
use crate::model::cuda::files::Line;
use crate::model::machine::{Machine, Space};
use std::collections::HashMap;
use std::rc::Rc;

/// The longest C string host code may print or pass: 1 MiB.
const MAX_STRING: u64 = 1 << 20;

/// `cudaMemcpyKind`'s values, by name (CUDA Runtime API, "Data types used by CUDA Runtime").
const MEMCPY_KINDS: [(&str, i128); 5] = [
    ("cudaMemcpyHostToHost", 0),
    ("cudaMemcpyHostToDevice", 1),
    ("cudaMemcpyDeviceToHost", 2),
    ("cudaMemcpyDeviceToDevice", 3),
    ("cudaMemcpyDefault", 4),
];

/// The runtime's error codes the model returns, with `cudaGetErrorName` and
/// `cudaGetErrorString` of each (CUDA Runtime API, `cudaError`).
const ERRORS: [(i32, &str, &str); 4] = [
    (0, "cudaSuccess", "no error"),
    (1, "cudaErrorInvalidValue", "invalid argument"),
    (2, "cudaErrorMemoryAllocation", "out of memory"),
    (
        9,
        "cudaErrorInvalidConfiguration",
        "invalid configuration argument",
    ),
];

/// Host code's entry points from the warp's shared code. They are reached only through the
/// program's state ([`hooks`], which only a program's run asks for), so that a page that never
/// runs a program links none of host code.
#[allow(
    clippy::type_complexity,
    reason = "each field is one method's signature"
)]
pub(crate) struct Hooks {
    pub(super) call: for<'w> fn(&mut Warp<'w>, &str, &[Expr], u64, Pos) -> R<Option<Value>>,
    pub(super) launch:
        for<'w> fn(&mut Warp<'w>, &str, &[TemplateArg], &[Expr], &[Expr], Pos) -> R<Value>,
    pub(super) new: for<'w> fn(
        &mut Warp<'w>,
        &super::super::super::ast::Type,
        Option<&Expr>,
        Option<&[Expr]>,
        Pos,
    ) -> R<Value>,
    pub(super) delete: for<'w> fn(&mut Warp<'w>, &Expr, bool, Pos) -> R<Value>,
    pub(super) load: for<'w> fn(&mut Warp<'w>, &Lanes, &Ty, Pos) -> R<Lanes>,
    pub(super) store: for<'w> fn(&mut Warp<'w>, &Lanes, &Ty, &Lanes, Pos) -> R<()>,
    pub(super) intern: for<'w> fn(&mut Warp<'w>, &str) -> u64,
    pub(super) name_allocation: for<'w> fn(&mut Warp<'w>, &str, &Ty, &Lanes),
    pub(super) budget: for<'w> fn(&Warp<'w>, Pos) -> RunError,
    pub(super) constant: fn(&str) -> Option<Value>,
    /// A local array declared by host code, with its initial parts: it lives in host memory.
    pub(super) local_array: for<'w> fn(&mut Warp<'w>, &str, Ty, Lanes, Pos) -> R<()>,
    /// `&x` of host code's local `x` (the slot, and the part and type taken): the local moves
    /// to host memory, and its address is the pointer.
    pub(super) address_of: for<'w> fn(&mut Warp<'w>, usize, &Lanes, &Ty, Pos) -> R<Value>,
    /// `std::cout << …` (and `std::cerr`, `std::clog`): the chain written, or `None` when the
    /// `<<` is a shift.
    pub(super) stream: for<'w> fn(&mut Warp<'w>, &Expr, u64) -> R<Option<Value>>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hooks")
    }
}

static HOOKS: Hooks = Hooks {
    call: |w, name, args, m, pos| {
        if m == 0 {
            Ok(result_of(name))
        } else {
            w.host_call(name, args, pos)
        }
    },
    launch: |w, kernel, targs, config, args, pos| w.host_launch(kernel, targs, config, args, pos),
    new: |w, ty, count, init, pos| w.host_new(ty, count, init, pos),
    delete: |w, operand, array, pos| w.host_delete(operand, array, pos),
    load: |w, addr, ty, pos| w.host_load(addr, ty, pos),
    store: |w, addr, ty, lanes, pos| w.host_store(addr, ty, lanes, pos),
    intern: |w, text| w.intern(text),
    name_allocation: |w, name, ty, lanes| w.name_allocation(name, ty, lanes),
    budget: |w, pos| w.host_budget(pos),
    constant: host_constant,
    local_array: |w, name, ty, lanes, pos| w.host_local_array(name, ty, lanes, pos),
    address_of: |w, slot, part, ty, pos| w.host_address_of(slot, part, ty, pos),
    stream: |w, e, m| match super::stream::stream_of(e) {
        Some(stream) => w.stream_out(e, stream, m).map(Some),
        None => Ok(None),
    },
};

/// What a call of the C library or the runtime gives, when no lane makes it (the side of a
/// `?:` or an `&&` not taken, read for its type alone); `None` when `name` is not one.
fn result_of(name: &str) -> Option<Value> {
    let ptr = |to: Ty| Value::new(Ty::Ptr(Rc::new(to), Space::Global), Lanes::Same(S::P(0)));
    let char_ty = Ty::Int(IntType { bytes: 1, signed: true });
    Some(match name {
        "malloc" | "calloc" | "memset" | "memcpy" => ptr(Ty::Void),
        "cudaGetErrorString" | "cudaGetErrorName" => ptr(char_ty),
        "srand" | "exit" | "fill_n" | "checkCudaErrors" | "getLastCudaError" => {
            Value::new(Ty::Void, Lanes::Same(S::I(0)))
        }
        "atol" | "atoll" | "time" | "clock" => Value::int(super::super::ty::LONG, 0),
        "atoi"
        | "checkCmdLineFlag"
        | "getCmdLineArgumentInt"
        | "findCudaDevice"
        | "gpuGetMaxGflopsDeviceId"
        | "printf"
        | "fprintf"
        | "puts"
        | "putchar"
        | "fflush"
        | "rand"
        | "free" => Value::int(INT, 0),
        n if n.starts_with("cuda") => Value::int(INT, 0),
        _ => return None,
    })
}

/// Host code's entry points, for the program's state.
pub(crate) fn hooks() -> &'static Hooks {
    &HOOKS
}

/// Names host code may use for constants of the C library and the runtime.
fn host_constant(name: &str) -> Option<Value> {
    let int = |v: i128| Some(Value::int(INT, v));
    if let Some((_, v)) = MEMCPY_KINDS.iter().find(|(n, _)| *n == name) {
        return int(*v);
    }
    if let Some((v, _, _)) = ERRORS.iter().find(|(_, n, _)| *n == name) {
        return int(i128::from(*v));
    }
    match name {
        "EXIT_SUCCESS" => int(0),
        "CLOCKS_PER_SEC" => Some(Value::int(super::super::ty::LONG, 1_000_000)),
        "EXIT_FAILURE" => int(1),
        "RAND_MAX" => int(i128::from(crate::model::clib::rand::RAND_MAX)),
        "cudaMemAttachGlobal" => int(1),
        "cudaStreamDefault" | "cudaEventDefault" => int(0),
        "cudaStreamNonBlocking" | "cudaEventBlockingSync" => int(1),
        // `cudaDeviceAttr` (driver_types.h).
        "cudaDevAttrMaxThreadsPerBlock" => int(1),
        "cudaDevAttrWarpSize" => int(10),
        "cudaDevAttrComputeCapabilityMajor" => int(75),
        "cudaDevAttrComputeCapabilityMinor" => int(76),
        "cudaHostAllocDefault" => int(0),
        _ => None,
    }
}

/// The architecture's name `helper_cuda.h`'s `_ConvertSMVer2ArchName` gives compute
/// capability `major.minor` (cuda-samples, Common/helper_cuda.h).
fn arch_name(major: u32, minor: u32) -> &'static str {
    match (major, minor) {
        (3, _) => "Kepler",
        (5, _) => "Maxwell",
        (6, _) => "Pascal",
        (7, 0) => "Volta",
        (7, 2) => "Xavier",
        (7, 5) => "Turing",
        (8, 9) => "Ada",
        (8, _) => "Ampere",
        (9, 0) => "Hopper",
        (10..=12, _) => "Blackwell",
        _ => "Graphics Device",
    }
}

/// `helper_string.h`'s reading of a command-line argument: the text after its leading `-`s
/// (none stripped when that would leave at most one character).
fn without_dashes(arg: &str) -> &str {
    let start = arg.bytes().take_while(|b| *b == b'-').count();
    if start + 1 >= arg.len() {
        arg
    } else {
        &arg[start..]
    }
}

/// C's `atoi`: leading blanks, a sign, then decimal digits (at most 18 read).
fn atoi(s: &str) -> i128 {
    let s = s.trim_start();
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let digits: String = rest
        .chars()
        .take_while(char::is_ascii_digit)
        .take(18)
        .collect();
    sign * digits.parse::<i128>().unwrap_or(0)
}

/// Device-only built-ins, refused in host code by name.
fn device_only(name: &str) -> bool {
    name.starts_with("__sync")
        || name.starts_with("__shfl")
        || name.starts_with("atomic")
        || matches!(
            name,
            "__ballot" | "__any" | "__all" | "__activemask" | "__ldg" | "tiled_partition"
        )
}

/// Runs `main` of `unit` (device items and host functions) as host code, with `sh.host` as
/// the program's state; returns its exit status.
pub(crate) fn run_host(
    unit: Rc<super::super::super::ast::Unit>,
    main: &Function,
    machine: Machine,
    sh: &mut Shared,
) -> Result<i32, CudaFailure> {
    let kernel = unit
        .items
        .iter()
        .position(|i| matches!(i, super::super::super::ast::Item::Function(f) if f.name == "main" && f.pos == main.pos))
        .unwrap_or(0);
    let p = Program {
        unit,
        kernel,
        bindings: Rc::new(Bindings::default()),
        launch: Launch {
            kernel: "main".into(),
            template_args: Vec::new(),
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
            args: Vec::new(),
            stream: false,
            sizes: Vec::new(),
        },
        allocations: Vec::new(),
        machine: Machine { warp: 1, ..machine },
        device_globals: HashMap::new(),
        given: None,
        heap: Vec::new(),
    };
    let mut events = Events::default();
    let mut w = Warp::constant(&p, sh, &mut events);
    w.constant = false;
    w.host = true;
    w.main(main).map_err(CudaFailure::Run)
}

impl Warp<'_> {
    /// Runs `main`: `argc` and `argv` given when it takes them; its status returned.
    fn main(&mut self, f: &Function) -> R<i32> {
        let mut frame = Frame::outermost(Rc::new(Bindings::default()), f as *const Function);
        frame.ret_ty = Ty::Int(INT);
        self.frames.push(frame);
        if f.params.len() >= 2 {
            let mut args = vec!["a.out".to_string()];
            args.extend(self.hs()?.argv.iter().cloned());
            let mut pointers = Vec::new();
            for a in &args {
                pointers.push(self.intern(a));
            }
            let char_ptr = Ty::Ptr(
                Rc::new(Ty::Int(IntType { bytes: 1, signed: true })),
                Space::Global,
            );
            let bytes = 8 * (pointers.len() as u64 + 1);
            let argv = self
                .hs()?
                .allocate(bytes, false, false, "argv", f.pos.line)
                .ok_or_else(|| self.host_error(f.pos, "no room for argv".into()))?;
            for (k, p) in pointers.iter().chain([&0]).enumerate() {
                self.hs()?
                    .memory
                    .store(argv + 8 * k as u64, &char_ptr, S::P(*p));
            }
            let names: Vec<String> = f
                .params
                .iter()
                .map(|p| p.name.clone().unwrap_or_default())
                .collect();
            let argc = args.len() as i128;
            self.declare_value(&names[0], Ty::Int(INT), Lanes::Same(S::I(argc)));
            self.declare_value(
                &names[1],
                Ty::Ptr(Rc::new(char_ptr), Space::Global),
                Lanes::Same(S::P(argv)),
            );
        }
        let out = self.seq(&f.body, 1, false);
        let ret = self.frames.pop().and_then(|fr| fr.ret);
        match out {
            Ok(()) => {}
            Err(e) => match *e.kind {
                RunErrorKind::Exit(code) => return Ok(code),
                _ => return Err(e),
            },
        }
        Ok(match ret.map(|v| v.lanes.at(0)) {
            Some(S::I(x)) => x as i32,
            // Falling off the end of `main` returns 0.
            _ => 0,
        })
    }

    /// Names the allocation a pointer `lanes` starts, if it is one still unnamed, after the
    /// variable `name` it is stored in.
    fn name_allocation(&mut self, name: &str, ty: &Ty, lanes: &Lanes) {
        if let (Ty::Ptr(..), Lanes::Same(S::P(a))) = (ty, lanes) {
            if let Some(hs) = self.sh.host.as_deref_mut() {
                hs.name_block(*a, name);
            }
        }
    }

    /// Why host code stops at the loop at `pos`: past its budget of iterations, with the
    /// file's constants a define could shrink.
    fn host_budget(&self, pos: Pos) -> RunError {
        let sizes: Vec<String> = self
            .sh
            .constants
            .iter()
            .filter_map(|(name, (_, lanes))| match lanes {
                Lanes::Same(S::I(v)) if *v >= 1 << 10 => Some(format!("{name}={v}")),
                _ => None,
            })
            .collect();
        let limit = self
            .sh
            .host
            .as_ref()
            .map_or(super::super::program::MAX_HOST_ITERATIONS, |h| {
                h.limits.host_iterations
            });
        let mut why = format!(
            "host code's loops ran {limit} iterations in all, the most this run allows; the \
             program stops at this loop"
        );
        if !sizes.is_empty() {
            let mut sizes = sizes;
            sizes.sort();
            why.push_str(&format!(
                ": run it smaller with a define (now {})",
                sizes.join(", ")
            ));
        } else {
            why.push_str(": run it smaller with a define of its size");
        }
        self.host_error(pos, why)
    }

    /// The program's state.
    pub(super) fn hs(&mut self) -> R<&mut super::super::program::HostState> {
        self.sh
            .host
            .as_deref_mut()
            .ok_or_else(|| RunError::at(Pos::default(), RunErrorKind::Internal("host state")))
    }

    pub(super) fn host_error(&self, pos: Pos, why: String) -> RunError {
        RunError::at(pos, RunErrorKind::Host(why))
    }

    /// A string literal's address in host memory (each text stored once).
    fn intern(&mut self, text: &str) -> u64 {
        let Some(hs) = self.sh.host.as_deref_mut() else {
            return 0;
        };
        if let Some((_, a)) = hs.strings.iter().find(|(t, _)| t == text) {
            return *a;
        }
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        let Some(a) = hs.allocate(bytes.len() as u64, false, false, "a string literal", 0) else {
            return 0;
        };
        hs.memory.write(a, &bytes);
        hs.strings.push((text.to_string(), a));
        a
    }

    /// One scalar argument's value.
    fn scalar(&mut self, e: &Expr) -> R<(Ty, S)> {
        let v = self.eval(e, 1)?;
        Ok((v.ty, v.lanes.at(0)))
    }

    /// An integer argument.
    pub(super) fn int_arg(&mut self, e: &Expr, what: &str) -> R<i128> {
        match self.scalar(e)?.1 {
            S::I(x) => Ok(x),
            S::F(x) => Ok(x as i128),
            S::P(a) => Ok(i128::from(a)),
            S::U(line) => Err(self.unwritten(e.pos, what, line)),
        }
    }

    /// A pointer argument's address (0 for a null pointer).
    fn ptr_arg(&mut self, e: &Expr, what: &str) -> R<u64> {
        match self.scalar(e)?.1 {
            S::P(a) => Ok(a),
            S::I(0) => Ok(0),
            S::U(line) => Err(self.unwritten(e.pos, what, line)),
            _ => Err(self.host_error(e.pos, format!("{what} must be a pointer"))),
        }
    }

    pub(super) fn unwritten(&self, pos: Pos, what: &str, line: u32) -> RunError {
        self.host_error(
            pos,
            format!(
                "{what} depends on memory that nothing wrote (read at {})",
                Line(line)
            ),
        )
    }

    /// The place an out-parameter names: `&x`, `(void**)&x`, or a pointer's target.
    fn out_place(&mut self, e: &Expr) -> R<(Place, Option<String>)> {
        match &e.kind {
            ExprKind::Cast { operand, .. } => self.out_place(operand),
            ExprKind::Unary { op: UnaryOp::AddressOf, operand } => {
                let name = match &operand.kind {
                    ExprKind::Name(n) => Some(n.clone()),
                    _ => None,
                };
                Ok((self.place(operand, 1)?, name))
            }
            _ => {
                let v = self.eval(e, 1)?;
                Ok((self.deref(v, e.pos)?, None))
            }
        }
    }

    /// Stores `value` (an integer, a float or an address) through an out-parameter.
    fn store_out(&mut self, e: &Expr, value: S) -> R<Option<String>> {
        let (place, name) = self.out_place(e)?;
        let ty = self.place_ty(&place);
        let v = match (&ty, value) {
            (Ty::Ptr(..), S::P(_)) => Value::new(ty.clone(), Lanes::Same(value)),
            (_, S::F(x)) => {
                self.convert(Value::new(Ty::Float, Lanes::Same(S::F(x))), &ty, 1, e.pos)?
            }
            _ => self.convert(Value::new(Ty::Int(INT), Lanes::Same(value)), &ty, 1, e.pos)?,
        };
        self.store(&place, v, 1, e.pos)?;
        Ok(name)
    }

    /// The allocation `[addr, addr + bytes)` lies in, checked: live, and on the host side
    /// unless `device` memory may be touched. `what` names the access for a message.
    fn checked_block(&mut self, addr: u64, bytes: u64, pos: Pos, what: &str) -> R<Block> {
        if addr == 0 {
            return Err(self.host_error(pos, format!("{what} a null pointer")));
        }
        let hs = self.hs()?;
        if let Some(b) = hs.block_at(addr) {
            let end = addr.saturating_add(bytes);
            // The common case, with no name to copy; a message needs the name.
            if b.freed.is_none() && end <= b.base + b.bytes && (!b.device || b.managed) {
                return Ok(b.clone_plain());
            }
        }
        let Some(b) = hs.block_at(addr).cloned() else {
            return Err(self.host_error(
                pos,
                format!("{what} address {addr:#x}, which no allocation holds"),
            ));
        };
        if let Some(line) = b.freed {
            return Err(self.host_error(
                pos,
                format!("{what} {}, freed at {}", b.described(), Line(line)),
            ));
        }
        let end = addr.saturating_add(bytes);
        if end > b.base + b.bytes {
            return Err(self.host_error(
                pos,
                format!(
                    "{what} {bytes} byte{} at offset {} of {}, which holds {} bytes",
                    if bytes == 1 { "" } else { "s" },
                    addr - b.base,
                    b.described(),
                    b.bytes
                ),
            ));
        }
        Ok(b)
    }

    /// Host code's read of a `ty` at `addr`.
    fn host_load(&mut self, addr: &Lanes, ty: &Ty, pos: Pos) -> R<Lanes> {
        let a = super::address(addr.at(0));
        let b = self.checked_block(a, ty.size(), pos, "host code reads")?;
        if b.device && !b.managed {
            return Err(self.device_from_host(pos, &b, "reads"));
        }
        let mut parts = Vec::new();
        scalar_parts(ty, 0, &mut parts);
        let mem: &Memory = if b.device {
            &self.sh.global
        } else {
            match self.sh.host.as_deref() {
                Some(hs) => &hs.memory,
                None => return Err(RunError::at(pos, RunErrorKind::Internal("host state"))),
            }
        };
        let values: Vec<Lanes> = parts
            .iter()
            .map(|(offset, part)| {
                Lanes::Same(
                    mem.load(a.wrapping_add(*offset), part)
                        .unwrap_or(S::U(pos.line)),
                )
            })
            .collect();
        Ok(if values.len() == 1 && !super::exec::is_agg(ty) {
            values
                .into_iter()
                .next()
                .unwrap_or(Lanes::Same(S::U(pos.line)))
        } else {
            Lanes::Agg(values)
        })
    }

    /// The device a program's `cudaGetDeviceProperties` describes: this page's model (its
    /// compute capability, warp, cache as L2 and device memory limit), with CUDA's limits per
    /// block and grid; what the model does not model (clocks, the memory bus) is 0. The
    /// console's notes say so once.
    fn device_prop(&mut self, prop: Rc<super::super::ty::StructTy>) -> R<Value> {
        let hs = self.hs()?;
        let (major, minor) = (hs.arch / 100, hs.arch % 100 / 10);
        // The multiprocessors of the GPU each compute capability is modelled on: V100, A100,
        // RTX 4090 and H100 SXM5 (the Roofline lab's presets' data sheets).
        let (sms, gpu) = match (major, minor) {
            (8, 0) => (108, "A100"),
            (8, 9) => (128, "RTX 4090"),
            (9, 0) => (132, "H100 SXM5"),
            _ => (80, "V100"),
        };
        let name = format!(
            "Coalescing Lab model of sm_{major}{minor} ({})",
            arch_name(major, minor)
        );
        let field = |f: &str| -> i128 {
            match f {
                "totalGlobalMem" => i128::from(hs.limits.memory_bytes),
                "sharedMemPerBlock" => 49152,
                "regsPerBlock" => 65536,
                "warpSize" => i128::from(hs.machine.warp),
                "memPitch" => 2_147_483_647,
                "maxThreadsPerBlock" => 1024,
                "totalConstMem" => 65536,
                "major" => i128::from(major),
                "minor" => i128::from(minor),
                "textureAlignment" => 512,
                "texturePitchAlignment" => 32,
                "multiProcessorCount" => sms,
                "l2CacheSize" => i128::from(hs.cache_bytes),
                "maxThreadsPerMultiProcessor" => 2048,
                "deviceOverlap"
                | "canMapHostMemory"
                | "concurrentKernels"
                | "unifiedAddressing"
                | "managedMemory"
                | "concurrentManagedAccess" => 1,
                _ => 0,
            }
        };
        let mut parts = Vec::new();
        for f in &prop.laid().fields {
            match (f.name.as_str(), &f.ty) {
                ("name", Ty::Array(_, n)) => {
                    let bytes = name.as_bytes();
                    for k in 0..*n as usize {
                        let b = bytes.get(k).copied().unwrap_or(0);
                        parts.push(Lanes::Same(S::I(i128::from(b))));
                    }
                }
                ("maxThreadsDim", Ty::Array(_, 3)) => {
                    for v in [1024, 1024, 64] {
                        parts.push(Lanes::Same(S::I(v)));
                    }
                }
                ("maxGridSize", Ty::Array(_, 3)) => {
                    for v in [2_147_483_647, 65535, 65535] {
                        parts.push(Lanes::Same(S::I(v)));
                    }
                }
                (n, t) => {
                    for _ in 0..t.parts() {
                        parts.push(Lanes::Same(S::I(field(n))));
                    }
                }
            }
        }
        let note = format!(
            "cudaGetDeviceProperties describes this page's model: compute capability \
             {major}.{minor}, a warp of {}, {} multiprocessors (the {gpu}'s), the model's \
             cache as its L2 ({} bytes) and {} bytes of device memory, this run's limit; clock \
             rates and the memory bus are 0, not modelled",
            hs.machine.warp, sms, hs.cache_bytes, hs.limits.memory_bytes
        );
        if !hs.notes.contains(&note) {
            hs.notes.push(note);
        }
        Ok(Value::new(Ty::Struct(prop), Lanes::Agg(parts)))
    }

    /// Where host code's local in `slot` lives in host memory, as on a CPU's stack: the same
    /// bytes each time the slot at this depth of calls is declared again (a loop's body), new
    /// ones for a local of another size.
    fn local_block(&mut self, slot: usize, ty: &Ty, name: &str, pos: Pos) -> R<u64> {
        let key = (slot, self.frames.len());
        let bytes = ty.size().max(1);
        let hs = self.hs()?;
        if let Some(&(base, n)) = hs.locals.get(&key) {
            if n == bytes {
                return Ok(base);
            }
        }
        let Some(base) = hs.allocate(bytes, false, false, "a local variable", pos.line) else {
            return Err(self.host_error(pos, format!("no room in host memory for {name}")));
        };
        hs.name_block(base, name);
        hs.locals.insert(key, (base, bytes));
        Ok(base)
    }

    /// A local array of host code: its parts stored in host memory, and its name the place
    /// there, so that it decays to a pointer a call can write through (`cudaMemcpy(h, …)`).
    fn host_local_array(&mut self, name: &str, ty: Ty, lanes: Lanes, pos: Pos) -> R<()> {
        let slot = self.vars.len();
        let base = self.local_block(slot, &ty, name, pos)?;
        let at = Lanes::Same(S::P(base));
        self.host_store(&at, &ty, &lanes, pos)?;
        self.declare_alias(name, Place::Mem { addr: at, ty, space: Space::Global });
        Ok(())
    }

    /// `&x` of host code's local `x`: the local moves to host memory with its value, from
    /// then on its name is that place, and the address of the part taken is the pointer.
    fn host_address_of(&mut self, slot: usize, part: &Lanes, ty: &Ty, pos: Pos) -> R<Value> {
        let Some(super::Var::Value(root, lanes)) = self.vars.get(slot).cloned() else {
            return Err(RunError::at(pos, RunErrorKind::Internal("variable slot")));
        };
        let name = self
            .names
            .iter()
            .rev()
            .find(|(_, s)| *s == slot)
            .map(|(n, _)| n.clone())
            .unwrap_or_default();
        let base = self.local_block(slot, &root, &name, pos)?;
        let at = Lanes::Same(S::P(base));
        self.host_store(&at, &root, &lanes, pos)?;
        let mut parts = Vec::new();
        scalar_parts(&root, 0, &mut parts);
        let k = match part.at(0) {
            S::I(k) => usize::try_from(k).unwrap_or(0),
            _ => 0,
        };
        let offset = parts.get(k).map_or(0, |(offset, _)| *offset);
        if let Some(v) = self.vars.get_mut(slot) {
            *v = super::Var::Alias(Place::Mem { addr: at, ty: root, space: Space::Global });
        }
        Ok(Value::new(
            Ty::Ptr(Rc::new(ty.clone()), Space::Global),
            Lanes::Same(S::P(base + offset)),
        ))
    }

    /// Host code's write of `lanes`, a `ty`, at `addr`.
    fn host_store(&mut self, addr: &Lanes, ty: &Ty, lanes: &Lanes, pos: Pos) -> R<()> {
        let a = super::address(addr.at(0));
        let b = self.checked_block(a, ty.size(), pos, "host code writes")?;
        if b.device && !b.managed {
            return Err(self.device_from_host(pos, &b, "writes"));
        }
        if b.made_by == "a string literal" {
            return Err(self.host_error(pos, "host code writes to a string literal".into()));
        }
        let mut parts = Vec::new();
        scalar_parts(ty, 0, &mut parts);
        let single = [lanes.clone()];
        let values: &[Lanes] = match lanes {
            Lanes::Agg(p) if parts.len() != 1 || super::exec::is_agg(ty) => p,
            _ => &single,
        };
        let mem: &mut Memory = if b.device {
            Rc::make_mut(&mut self.sh.global)
        } else {
            &mut self.hs()?.memory
        };
        for ((offset, part), v) in parts.iter().zip(values) {
            mem.store(a.wrapping_add(*offset), part, v.at(0));
        }
        Ok(())
    }

    fn device_from_host(&self, pos: Pos, b: &Block, verb: &str) -> RunError {
        self.host_error(
            pos,
            format!(
                "host code {verb} {}, which is device memory: copy it with cudaMemcpy (on a GPU \
                 this faults)",
                b.described()
            ),
        )
    }

    /// The bytes of a C string at `addr`, without its terminating zero.
    pub(super) fn c_string(&mut self, addr: u64, pos: Pos) -> R<Vec<u8>> {
        let b = self.checked_block(addr, 1, pos, "host code reads a string at")?;
        let mem: &Memory = if b.device {
            if !b.managed {
                return Err(self.device_from_host(pos, &b, "reads a string in"));
            }
            &self.sh.global
        } else {
            match self.sh.host.as_deref() {
                Some(hs) => &hs.memory,
                None => return Err(RunError::at(pos, RunErrorKind::Internal("host state"))),
            }
        };
        let end = (b.base + b.bytes).min(addr.saturating_add(MAX_STRING));
        let mut out = Vec::new();
        for a in addr..end {
            match mem.read::<1>(a) {
                Some([0]) => return Ok(out),
                Some([c]) => out.push(c),
                None => {
                    return Err(self.host_error(
                        pos,
                        format!(
                            "a string in {} has a byte that nothing wrote",
                            b.described()
                        ),
                    ))
                }
            }
        }
        Err(self.host_error(
            pos,
            format!("a string in {} has no terminating zero", b.described()),
        ))
    }

    /// A `printf`-family call's text: `format` and the values of `args`.
    fn format(&mut self, format: &Expr, args: &[Expr], pos: Pos) -> R<String> {
        let fmt = match &format.kind {
            ExprKind::Str(s) => s.as_bytes().to_vec(),
            _ => {
                let a = self.ptr_arg(format, "printf's format")?;
                self.c_string(a, format.pos)?
            }
        };
        let mut values = Vec::new();
        for a in args {
            if let ExprKind::Str(s) = &a.kind {
                values.push(Arg::Str(Some(s.as_bytes().to_vec())));
                continue;
            }
            let v = self.eval(a, 1)?;
            values.push(match (&v.ty, v.lanes.at(0)) {
                (Ty::Ptr(t, _), S::P(addr)) if matches!(**t, Ty::Int(IntType { bytes: 1, .. })) => {
                    Arg::Str(Some(self.c_string(addr, a.pos)?))
                }
                (Ty::Ptr(t, _), S::I(0)) if matches!(**t, Ty::Int(IntType { bytes: 1, .. })) => {
                    Arg::Str(None)
                }
                (_, S::F(x)) => Arg::Double(x),
                (_, S::P(x)) => Arg::Ptr(x),
                (_, S::I(x)) => Arg::Int(x as u64),
                (_, S::U(line)) => return Err(self.unwritten(a.pos, "a value printed", line)),
            });
        }
        let text =
            sprintf(&fmt, &values).map_err(|e| RunError::at(pos, RunErrorKind::Printf(e)))?;
        Ok(String::from_utf8_lossy(&text).into_owned())
    }

    /// A call of the C library or the CUDA runtime, if `name` is one.
    fn host_call(&mut self, name: &str, args: &[Expr], pos: Pos) -> R<Option<Value>> {
        let int = |v: i128| Ok(Some(Value::int(INT, v)));
        let arg = |k: usize| {
            args.get(k).ok_or_else(|| {
                RunError::at(
                    pos,
                    RunErrorKind::Type(format!("{name} takes at least {} arguments", k + 1)),
                )
            })
        };
        let void_ptr = |a: u64| {
            Ok(Some(Value::new(
                Ty::Ptr(Rc::new(Ty::Void), Space::Global),
                Lanes::Same(S::P(a)),
            )))
        };
        if device_only(name) {
            return Err(self.host_error(
                pos,
                format!("{name} is device code: host code cannot call it"),
            ));
        }
        match name {
            "printf" => {
                let text = self.format(arg(0)?, &args[1..], pos)?;
                let n = text.len() as i128;
                self.hs()?.print(Stream::Stdout, &text);
                int(n)
            }
            "fprintf" => {
                let stream =
                    match &arg(0)?.kind {
                        ExprKind::Name(n) if n == "stderr" || n == "std::stderr" => Stream::Stderr,
                        ExprKind::Name(n) if n == "stdout" || n == "std::stdout" => Stream::Stdout,
                        _ => return Err(self.host_error(
                            pos,
                            "fprintf prints to stdout or stderr here; files are outside the model"
                                .into(),
                        )),
                    };
                let text = self.format(arg(1)?, &args[2..], pos)?;
                let n = text.len() as i128;
                self.hs()?.print(stream, &text);
                int(n)
            }
            "puts" => {
                let a = self.ptr_arg(arg(0)?, "puts's string")?;
                let mut text = String::from_utf8_lossy(&self.c_string(a, pos)?).into_owned();
                text.push('\n');
                self.hs()?.print(Stream::Stdout, &text);
                int(1)
            }
            "putchar" => {
                let c = self.int_arg(arg(0)?, "putchar's character")? as u8;
                self.hs()?
                    .print(Stream::Stdout, &String::from_utf8_lossy(&[c]));
                int(i128::from(c))
            }
            "fflush"
            | "cudaSetDevice"
            | "cudaProfilerStart"
            | "cudaProfilerStop"
            | "cudaMemPrefetchAsync"
            | "cudaMemAdvise"
            | "cudaFuncSetCacheConfig"
            | "cudaDeviceSetCacheConfig" => {
                for a in args {
                    if !matches!(&a.kind, ExprKind::Name(n) if n == "stdout" || n == "stderr") {
                        self.eval(a, 1)?;
                    }
                }
                int(0)
            }
            "fill_n" => {
                let p = self.eval(arg(0)?, 1)?;
                let n = self.int_arg(arg(1)?, "fill_n's count")?;
                let v = self.eval(arg(2)?, 1)?;
                let (Ty::Ptr(elem, _), S::P(base)) = (&p.ty, p.lanes.at(0)) else {
                    return Err(self.host_error(pos, "fill_n fills through a pointer".into()));
                };
                let elem = (**elem).clone();
                let v = self.convert(v, &elem, 1, pos)?;
                let size = elem.size();
                let n = u64::try_from(n).unwrap_or(0);
                self.checked_block(base, n.saturating_mul(size), pos, "fill_n writes")?;
                for k in 0..n {
                    let place = Place::Mem {
                        addr: Lanes::Same(S::P(base + k * size)),
                        ty: elem.clone(),
                        space: Space::Global,
                    };
                    self.store(&place, v.clone(), 1, pos)?;
                }
                Ok(Some(Value::new(
                    p.ty.clone(),
                    Lanes::Same(S::P(base + n * size)),
                )))
            }
            "rand" => {
                let v = self.hs()?.rand.rand();
                int(i128::from(v))
            }
            "srand" => {
                let seed = self.int_arg(arg(0)?, "srand's seed")? as u32;
                self.hs()?.rand = Rand::seeded(seed);
                Ok(Some(Value::new(Ty::Void, Lanes::Same(S::I(0)))))
            }
            "time" | "clock" => {
                for a in args {
                    self.eval(a, 1)?;
                }
                let hs = self.hs()?;
                let note = format!(
                    "{name}() returns 0 here, so that a run gives the same output each time"
                );
                if !hs.notes.contains(&note) {
                    hs.notes.push(note);
                }
                int(0)
            }
            "exit" => {
                let code = self.int_arg(arg(0)?, "exit's status")?;
                Err(RunError::at(pos, RunErrorKind::Exit(code as i32)))
            }
            "malloc" | "cudaMallocHost" | "cudaHostAlloc" | "cudaMalloc" | "cudaMallocManaged"
            | "calloc" => {
                let host_api = matches!(name, "malloc" | "calloc");
                let size_at = usize::from(!host_api);
                let mut bytes = self.int_arg(arg(size_at)?, "the size")?;
                if name == "calloc" {
                    bytes = bytes.saturating_mul(self.int_arg(arg(1)?, "the element size")?);
                }
                for a in args.iter().skip(size_at + 1).filter(|_| name != "calloc") {
                    self.eval(a, 1)?;
                }
                let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
                let device = matches!(name, "cudaMalloc" | "cudaMallocManaged");
                let base = self.hs()?.allocate(
                    bytes,
                    device,
                    name == "cudaMallocManaged",
                    match name {
                        "malloc" => "malloc",
                        "calloc" => "calloc",
                        "cudaMalloc" => "cudaMalloc",
                        "cudaMallocManaged" => "cudaMallocManaged",
                        _ => "cudaMallocHost",
                    },
                    pos.line,
                );
                if name == "calloc" {
                    if let Some(b) = base {
                        let zeros = vec![0u8; bytes as usize];
                        self.hs()?.memory.write(b, &zeros);
                    }
                }
                if host_api {
                    return void_ptr(base.unwrap_or(0));
                }
                match base {
                    Some(b) => {
                        if let Some(var) = self.store_out(arg(0)?, S::P(b))? {
                            self.hs()?.name_block(b, &var);
                        }
                        int(0)
                    }
                    None => {
                        self.hs()?.last_error = 2;
                        let hs = self.hs()?;
                        let note = format!("{name} of {bytes} bytes at {} was refused: the model holds at most 1 GiB of each memory", Line(pos.line));
                        hs.notes.push(note);
                        int(2)
                    }
                }
            }
            "free" | "cudaFree" | "cudaFreeHost" => {
                let a = self.ptr_arg(arg(0)?, "the pointer freed")?;
                if a == 0 {
                    return int(0);
                }
                let device = name == "cudaFree";
                let hs = self.hs()?;
                let found = hs.block_index(a);
                let block = found.and_then(|k| hs.blocks.get(k).cloned());
                match (found, block) {
                    (Some(k), Some(b))
                        if b.freed.is_none()
                            && b.device == device
                            && b.made_by != "a string literal" =>
                    {
                        hs.free(k, pos.line);
                        int(0)
                    }
                    (_, Some(b)) if b.freed.is_some() => Err(self.host_error(
                        pos,
                        format!(
                            "{name} of {}, already freed at {}",
                            b.described(),
                            Line(b.freed.unwrap_or(0))
                        ),
                    )),
                    (_, Some(b)) => Err(self.host_error(
                        pos,
                        format!(
                            "{name} of {}: {}",
                            b.described(),
                            if b.device {
                                "device memory is freed with cudaFree"
                            } else {
                                "host memory is freed with free"
                            }
                        ),
                    )),
                    _ => Err(self.host_error(
                        pos,
                        format!("{name} of address {a:#x}, which no allocation starts at"),
                    )),
                }
            }
            "memset" | "cudaMemset" | "cudaMemsetAsync" => {
                let a = self.ptr_arg(arg(0)?, "the pointer")?;
                let v = self.int_arg(arg(1)?, "the byte")? as u8;
                let n = u64::try_from(self.int_arg(arg(2)?, "the size")?).unwrap_or(u64::MAX);
                for e in args.iter().skip(3) {
                    self.eval(e, 1)?;
                }
                let device = name != "memset";
                let b = self.checked_block(a, n, pos, &format!("{name} writes"))?;
                if b.device != device && !b.managed {
                    return Err(self.host_error(
                        pos,
                        format!(
                            "{name} of {}: {}",
                            b.described(),
                            if device {
                                "cudaMemset sets device memory"
                            } else {
                                "memset sets host memory"
                            }
                        ),
                    ));
                }
                let bytes = vec![v; n as usize];
                self.memory_of(&b)?.write(a, &bytes);
                if name == "memset" {
                    void_ptr(a)
                } else {
                    int(0)
                }
            }
            "memcpy" | "cudaMemcpy" | "cudaMemcpyAsync" => {
                let dst = self.ptr_arg(arg(0)?, "the destination")?;
                let src = self.ptr_arg(arg(1)?, "the source")?;
                let n = u64::try_from(self.int_arg(arg(2)?, "the size")?).unwrap_or(u64::MAX);
                let kind = if name == "memcpy" {
                    0
                } else {
                    self.int_arg(arg(3)?, "the copy's kind")?
                };
                for e in args.iter().skip(4) {
                    self.eval(e, 1)?;
                }
                if name != "memcpy" {
                    self.hs()?.flush_device();
                }
                if n == 0 {
                    return if name == "memcpy" {
                        void_ptr(dst)
                    } else {
                        int(0)
                    };
                }
                let to = self.checked_block(dst, n, pos, &format!("{name} writes"))?;
                let from = self.checked_block(src, n, pos, &format!("{name} reads"))?;
                let sides = (from.device && !from.managed, to.device && !to.managed);
                let want = match kind {
                    0 => Some((false, false)),
                    1 => Some((false, true)),
                    2 => Some((true, false)),
                    3 => Some((true, true)),
                    _ => None,
                };
                if let Some(w) = want {
                    let fits = (w.0 == sides.0 || from.managed) && (w.1 == sides.1 || to.managed);
                    if !fits {
                        let side = |d: bool| if d { "device" } else { "host" };
                        return Err(self.host_error(
                            pos,
                            format!(
                                "{name} copies from {} ({} memory) to {} ({} memory), but its kind says {} to {}",
                                from.described(), side(sides.0), to.described(), side(sides.1), side(w.0), side(w.1)
                            ),
                        ));
                    }
                }
                self.copy(&from, src, &to, dst, n)?;
                if name == "memcpy" {
                    void_ptr(dst)
                } else {
                    int(0)
                }
            }
            "cudaDeviceSynchronize"
            | "cudaThreadSynchronize"
            | "cudaStreamSynchronize"
            | "cudaEventSynchronize"
            | "cudaDeviceReset" => {
                for a in args {
                    self.eval(a, 1)?;
                }
                let hs = self.hs()?;
                hs.flush_device();
                if name == "cudaDeviceReset" {
                    for k in 0..hs.blocks.len() {
                        if hs.blocks[k].device && hs.blocks[k].freed.is_none() {
                            hs.free(k, pos.line);
                        }
                    }
                }
                int(0)
            }
            "cudaGetLastError" | "cudaPeekAtLastError" => {
                let hs = self.hs()?;
                let e = hs.last_error;
                if name == "cudaGetLastError" {
                    hs.last_error = 0;
                }
                int(i128::from(e))
            }
            // The samples' `helper_cuda.h`: a failed call prints its code and name and exits
            // with EXIT_FAILURE (the macro's file name and expression text are not kept here).
            "checkCudaErrors" => {
                let code = self.int_arg(arg(0)?, "the checked call")?;
                if code != 0 {
                    let name = ERRORS
                        .iter()
                        .find(|(c, _, _)| i128::from(*c) == code)
                        .map_or("cudaErrorUnknown", |(_, n, _)| *n);
                    let text = format!("CUDA error at {} code={code}({name})\n", Line(pos.line));
                    self.hs()?.print(Stream::Stderr, &text);
                    return Err(RunError::at(pos, RunErrorKind::Exit(1)));
                }
                Ok(Some(Value::new(Ty::Void, Lanes::Same(S::I(0)))))
            }
            "getLastCudaError" => {
                let message = match &arg(0)?.kind {
                    ExprKind::Str(s) => s.clone(),
                    _ => {
                        let a = self.ptr_arg(arg(0)?, "the message")?;
                        String::from_utf8_lossy(&self.c_string(a, pos)?).into_owned()
                    }
                };
                let hs = self.hs()?;
                let code = std::mem::take(&mut hs.last_error);
                if code != 0 {
                    let words = ERRORS
                        .iter()
                        .find(|(c, _, _)| *c == code)
                        .map_or("unrecognized error code", |(_, _, s)| *s);
                    let text = format!(
                        "{}: getLastCudaError() CUDA error : {message} : ({code}) {words}.\n",
                        Line(pos.line)
                    );
                    hs.print(Stream::Stderr, &text);
                    return Err(RunError::at(pos, RunErrorKind::Exit(1)));
                }
                Ok(Some(Value::new(Ty::Void, Lanes::Same(S::I(0)))))
            }
            // `helper_string.h`'s command-line readers, over the program's real arguments.
            "checkCmdLineFlag" | "getCmdLineArgumentInt" => {
                let want = match &arg(2)?.kind {
                    ExprKind::Str(s) => s.clone(),
                    _ => {
                        let a = self.ptr_arg(arg(2)?, "the flag")?;
                        String::from_utf8_lossy(&self.c_string(a, pos)?).into_owned()
                    }
                };
                self.eval(arg(0)?, 1)?;
                let argv = self.hs()?.argv.clone();
                let mut found = None;
                for a in &argv {
                    let text = without_dashes(a);
                    if name == "checkCmdLineFlag" {
                        let key = text.split('=').next().unwrap_or("");
                        if key.eq_ignore_ascii_case(&want) {
                            found = Some(1);
                        }
                    } else if text.len() >= want.len()
                        && text.is_char_boundary(want.len())
                        && text[..want.len()].eq_ignore_ascii_case(&want)
                    {
                        let rest = &text[want.len()..];
                        found = Some(if rest.is_empty() {
                            0
                        } else {
                            atoi(rest.strip_prefix('=').unwrap_or(rest))
                        });
                    }
                }
                int(found.unwrap_or(0))
            }
            "atoi" | "atol" | "atoll" => {
                let a = self.ptr_arg(arg(0)?, "the string")?;
                let s = String::from_utf8_lossy(&self.c_string(a, pos)?).into_owned();
                let v = atoi(&s);
                let ty = if name == "atoi" {
                    INT
                } else {
                    super::super::ty::LONG
                };
                Ok(Some(Value::int(ty, ty.wrap(v))))
            }
            "findCudaDevice" | "gpuGetMaxGflopsDeviceId" => {
                for a in args {
                    self.eval(a, 1)?;
                }
                if name == "findCudaDevice" {
                    let hs = self.hs()?;
                    if hs
                        .argv
                        .iter()
                        .any(|a| without_dashes(a).to_ascii_lowercase().starts_with("device"))
                    {
                        return Err(self.host_error(
                            pos,
                            "findCudaDevice with -device=N: this model has one device, 0".into(),
                        ));
                    }
                    let (major, minor) = (hs.arch / 100, hs.arch % 100 / 10);
                    let text = format!(
                        "GPU Device 0: \"{}\" with compute capability {major}.{minor}\n\n",
                        arch_name(major, minor)
                    );
                    hs.print(Stream::Stdout, &text);
                }
                int(0)
            }
            "cudaDeviceGetAttribute" => {
                let attr = self.int_arg(arg(1)?, "the attribute")?;
                self.eval(arg(2)?, 1)?;
                let hs = self.hs()?;
                let value = match attr {
                    1 => 1024,
                    10 => i128::from(hs.machine.warp),
                    75 => i128::from(hs.arch / 100),
                    76 => i128::from(hs.arch % 100 / 10),
                    _ => {
                        return Err(self.host_error(
                            pos,
                            format!("cudaDeviceGetAttribute of attribute {attr}: this model knows the compute capability, the warp size and the threads per block"),
                        ))
                    }
                };
                self.store_out(arg(0)?, S::I(value))?;
                int(0)
            }
            "cudaGetErrorString" | "cudaGetErrorName" => {
                let code = self.int_arg(arg(0)?, "the error")?;
                let text = match ERRORS.iter().find(|(c, _, _)| i128::from(*c) == code) {
                    Some((_, n, s)) => {
                        if name == "cudaGetErrorName" {
                            *n
                        } else {
                            *s
                        }
                    }
                    None => "unrecognized error code",
                };
                let a = self.intern(text);
                let char_ptr = Ty::Ptr(
                    Rc::new(Ty::Int(IntType { bytes: 1, signed: true })),
                    Space::Global,
                );
                Ok(Some(Value::new(char_ptr, Lanes::Same(S::P(a)))))
            }
            "cudaGetDeviceProperties" => {
                let device = self.int_arg(arg(1)?, "the device")?;
                if device != 0 {
                    return Err(self.host_error(
                        pos,
                        format!("cudaGetDeviceProperties of device {device}: this model has one device, 0"),
                    ));
                }
                let (place, _) = self.out_place(arg(0)?)?;
                let Ty::Struct(prop) = self.place_ty(&place) else {
                    return Err(self.host_error(
                        pos,
                        "cudaGetDeviceProperties writes a cudaDeviceProp".into(),
                    ));
                };
                let value = self.device_prop(prop)?;
                self.store(&place, value, 1, pos)?;
                int(0)
            }
            "cudaGetDeviceCount" | "cudaGetDevice" => {
                let v = i128::from(name == "cudaGetDeviceCount");
                self.store_out(arg(0)?, S::I(v))?;
                int(0)
            }
            "cudaEventCreate"
            | "cudaStreamCreate"
            | "cudaEventCreateWithFlags"
            | "cudaStreamCreateWithFlags" => {
                for a in args.iter().skip(1) {
                    self.eval(a, 1)?;
                }
                let hs = self.hs()?;
                hs.handles += 1;
                let h = hs.handles;
                self.store_out(arg(0)?, S::I(i128::from(h)))?;
                int(0)
            }
            "cudaEventDestroy" | "cudaStreamDestroy" => {
                for a in args {
                    self.eval(a, 1)?;
                }
                int(0)
            }
            "cudaEventRecord" => {
                let h = self.int_arg(arg(0)?, "the event")? as u64;
                for a in args.iter().skip(1) {
                    self.eval(a, 1)?;
                }
                let hs = self.hs()?;
                let t = hs.clock_ms;
                hs.events.retain(|(e, _)| *e != h);
                hs.events.push((h, t));
                int(0)
            }
            "cudaEventElapsedTime" => {
                let a = self.int_arg(arg(1)?, "the start event")? as u64;
                let b = self.int_arg(arg(2)?, "the end event")? as u64;
                let hs = self.hs()?;
                let time = |h: u64| hs.events.iter().find(|(e, _)| *e == h).map(|(_, t)| *t);
                let (Some(ta), Some(tb)) = (time(a), time(b)) else {
                    return int(1);
                };
                let note = format!(
                    "cudaEventElapsedTime cannot be measured without a GPU: it gives the model's \
                     estimate, DRAM bytes ÷ {} GB/s",
                    hs.bytes_per_ms / 1e6
                );
                if !hs.notes.contains(&note) {
                    hs.notes.push(note);
                }
                let ms = f64::from((tb - ta) as f32);
                self.store_out(arg(0)?, S::F(ms))?;
                int(0)
            }
            _ => Ok(None),
        }
    }

    /// `new T[count]` or `new T(init)`: host memory for it, its address as a `T*`.
    fn host_new(
        &mut self,
        ty: &super::super::super::ast::Type,
        count: Option<&Expr>,
        init: Option<&[Expr]>,
        pos: Pos,
    ) -> R<Value> {
        let b = self.frame()?.bindings.clone();
        let elem = self.resolve(ty, &b, pos)?;
        let n = match count {
            Some(e) => self.int_arg(e, "new[]'s count")?,
            None => 1,
        };
        let n =
            u64::try_from(n).map_err(|_| self.host_error(pos, format!("new[] of {n} elements")))?;
        let bytes = n
            .checked_mul(elem.size())
            .ok_or_else(|| self.host_error(pos, "new[] of more bytes than memory holds".into()))?;
        let made_by = if count.is_some() { "new[]" } else { "new" };
        let Some(base) = self.hs()?.allocate(bytes, false, false, made_by, pos.line) else {
            return Err(self.host_error(
                pos,
                format!("{made_by} of {bytes} bytes: the model holds at most 1 GiB of host memory; shrink the size with a define"),
            ));
        };
        let ptr_ty = Ty::Ptr(Rc::new(elem.clone()), Space::Global);
        match init {
            // `new T[n]()` and `new T()`: every byte zero.
            Some([]) => {
                let zeros = vec![0u8; bytes as usize];
                self.hs()?.memory.write(base, &zeros);
            }
            Some([x]) if count.is_none() => {
                let v = self.eval(x, 1)?;
                let v = self.convert(v, &elem, 1, x.pos)?;
                let place = Place::Mem {
                    addr: Lanes::Same(S::P(base)),
                    ty: elem,
                    space: Space::Global,
                };
                self.store(&place, v, 1, pos)?;
            }
            Some(_) => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Unsupported("new with an initialiser list".into()),
                ))
            }
            None => {}
        }
        Ok(Value::new(ptr_ty, Lanes::Same(S::P(base))))
    }

    /// `delete p` or `delete[] p`.
    fn host_delete(&mut self, operand: &Expr, array: bool, pos: Pos) -> R<Value> {
        let a = self.ptr_arg(operand, "the pointer deleted")?;
        let void = Value::new(Ty::Void, Lanes::Same(S::I(0)));
        if a == 0 {
            return Ok(void);
        }
        let want = if array { "new[]" } else { "new" };
        let hs = self.hs()?;
        let found = hs.block_index(a);
        let block = found.and_then(|k| hs.blocks.get(k).cloned());
        match (found, block) {
            (Some(k), Some(b)) if b.freed.is_none() && b.made_by == want => {
                hs.free(k, pos.line);
                Ok(void)
            }
            (_, Some(b)) if b.freed.is_some() => Err(self.host_error(
                pos,
                format!(
                    "delete of {}, already freed at {}",
                    b.described(),
                    Line(b.freed.unwrap_or(0))
                ),
            )),
            (_, Some(b)) => Err(self.host_error(
                pos,
                format!(
                    "{} of {}: memory from {} is freed with {}",
                    if array { "delete[]" } else { "delete" },
                    b.described(),
                    b.made_by,
                    match b.made_by {
                        "new[]" => "delete[]",
                        "new" => "delete",
                        "cudaMalloc" | "cudaMallocManaged" => "cudaFree",
                        "cudaMallocHost" => "cudaFreeHost",
                        _ => "free",
                    }
                ),
            )),
            _ => Err(self.host_error(
                pos,
                format!("delete of address {a:#x}, which no allocation starts at"),
            )),
        }
    }

    /// The memory that holds `b`'s bytes.
    fn memory_of(&mut self, b: &Block) -> R<&mut Memory> {
        if b.device {
            Ok(Rc::make_mut(&mut self.sh.global))
        } else {
            Ok(&mut self.hs()?.memory)
        }
    }

    /// Copies `n` bytes from `src` in `from` to `dst` in `to`, known bytes as known.
    fn copy(&mut self, from: &Block, src: u64, to: &Block, dst: u64, n: u64) -> R<()> {
        const CHUNK: u64 = 1 << 16;
        let mut done = 0u64;
        while done < n {
            let len = CHUNK.min(n - done);
            let chunk: Vec<Option<u8>> = {
                let mem = self.memory_of(from)?;
                (0..len)
                    .map(|k| mem.read::<1>(src + done + k).map(|[b]| b))
                    .collect()
            };
            let mem = self.memory_of(to)?;
            let mut k = 0usize;
            while k < chunk.len() {
                let known = chunk[k].is_some();
                let mut end = k;
                while end < chunk.len() && chunk[end].is_some() == known {
                    end += 1;
                }
                let at = dst + done + k as u64;
                if known {
                    let bytes: Vec<u8> = chunk[k..end].iter().map(|b| b.unwrap_or(0)).collect();
                    mem.write(at, &bytes);
                } else {
                    mem.forget(at, (end - k) as u64);
                }
                k = end;
            }
            done += len;
        }
        Ok(())
    }

    /// `kernel<<<config>>>(args)`: the launch run to its end on the SIMT interpreter, with
    /// device memory as host code left it.
    fn host_launch(
        &mut self,
        kernel: &str,
        template_args: &[TemplateArg],
        config: &[Expr],
        args: &[Expr],
        pos: Pos,
    ) -> R<Value> {
        let dims = |w: &mut Self, e: &Expr| -> R<[u64; 3]> {
            let v = w.eval(e, 1)?;
            let one = |s: S, w: &Self| match s {
                S::I(x) => Ok(u64::try_from(x).unwrap_or(0)),
                S::U(line) => Err(w.unwritten(e.pos, "the launch's configuration", line)),
                _ => Err(w.host_error(
                    e.pos,
                    "a launch's grid and block are integers or dim3".into(),
                )),
            };
            match &v.lanes {
                Lanes::Agg(parts) if parts.len() == 3 => Ok([
                    one(parts[0].at(0), w)?,
                    one(parts[1].at(0), w)?,
                    one(parts[2].at(0), w)?,
                ]),
                l => Ok([one(l.at(0), w)?, 1, 1]),
            }
        };
        let grid = dims(self, &config[0])?;
        let block = dims(self, &config[1])?;
        let shared_bytes = match config.get(2) {
            Some(e) => {
                u64::try_from(self.int_arg(e, "the launch's shared bytes")?).unwrap_or(u64::MAX)
            }
            None => 0,
        };
        if let Some(e) = config.get(3) {
            self.eval(e, 1)?;
        }
        let mut given = Vec::new();
        for a in args {
            let v = self.eval(a, 1)?;
            if let Some((_, line)) = v.lanes.first_unknown(1) {
                return Err(self.unwritten(a.pos, "a kernel's argument", line));
            }
            given.push(v);
        }
        let hs = self.hs()?;
        hs.flush_device();
        let launch = Launch {
            kernel: kernel.to_string(),
            template_args: template_args.to_vec(),
            grid,
            block,
            shared_bytes,
            args: Vec::new(),
            stream: config.len() > 3,
            sizes: Vec::new(),
        };
        let heap: Vec<(String, u64, u64)> = hs
            .blocks
            .iter()
            .filter(|b| b.device && b.freed.is_none())
            .map(|b| (b.name.clone(), b.base, b.bytes))
            .collect();
        let (unit, machine, cache) = (hs.kernel_unit.clone(), hs.machine, hs.cache_bytes);
        let limits = hs.limits;
        let threads = grid
            .iter()
            .chain(&block)
            .fold(1u64, |n, d| n.saturating_mul(*d));
        if threads > limits.launch_threads {
            return Err(self.host_error(
                pos,
                format!(
                    "the launch has {threads} threads; this run allows at most {}",
                    limits.launch_threads
                ),
            ));
        }
        let global = std::mem::take(&mut self.sh.global);
        let job = CudaJob::of_host(unit, launch, given, heap, global, machine, cache);
        let mut job = match job {
            Ok(job) => job,
            Err(CudaFailure::Run(e)) if matches!(*e.kind, RunErrorKind::Launch(_)) => {
                // The launch fails, and the program goes on: `cudaGetLastError` says so.
                let hs = self.hs()?;
                hs.last_error = 9;
                hs.notes.push(format!(
                    "the launch at {} failed: {}",
                    Line(pos.line),
                    e.kind
                ));
                return Ok(Value::new(Ty::Void, Lanes::Same(S::I(0))));
            }
            Err(CudaFailure::Run(e)) => return Err(e),
            Err(e) => return Err(self.host_error(pos, format!("the launch of {kernel}: {e}"))),
        };
        job.iteration_budget(limits.warp_iterations);
        let ran = loop {
            match job.step(1 << 12) {
                Ok(true) => break Ok(()),
                Ok(false) => {
                    if let Some(hs) = self.sh.host.as_deref() {
                        hs.observe(Some(job.progress()));
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.sh.global = job.take_global();
        match ran {
            Ok(()) => {}
            Err(CudaFailure::Run(e)) => return Err(e),
            Err(e) => return Err(self.host_error(pos, format!("the launch of {kernel}: {e}"))),
        }
        let mut analysis = job.finish();
        // Host code ran: the launch field's note that it is skipped is not this launch's.
        analysis
            .notes
            .retain(|n| !n.starts_with("Host code is skipped"));
        let hs = self.hs()?;
        hs.pending.push_str(&analysis.output);
        hs.clock_ms += analysis.total.dram_bytes() as f64 / hs.bytes_per_ms;
        hs.launches.push(LaunchRun {
            kernel: kernel.to_string(),
            line: pos.line,
            grid,
            block,
            shared_bytes,
            analysis,
        });
        hs.observe(None);
        Ok(Value::new(Ty::Void, Lanes::Same(S::I(0))))
    }
}
