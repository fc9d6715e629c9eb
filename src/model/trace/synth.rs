//! Synthetic traces: a model kernel written in NVBit's and Accel-Sim's formats, line for line
//! as their tools write them. They make the sample traces (labelled synthetic) and the
//! round-trip tests: importing one gives back the kernel view's totals.

use super::super::kernel::{each_instruction, AccessKind, Executed, Kernel, KernelError};
use super::opcode::opcode_for;
use super::TRACE_LANES;
use std::fmt::{self, Write};

/// Why a kernel cannot be written as a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SynthError {
    /// The machine's warp is not the 32 lanes a trace records.
    WarpLanes {
        /// The machine's warp width, in lanes.
        lanes: u32,
    },
    /// The kernel does not run.
    Kernel(KernelError),
    /// An active lane reads address 0, which NVBit's format takes for an inactive lane.
    ZeroAddress {
        /// N in `aN`.
        stmt: u8,
        /// The thread block (x, y, z) of the access.
        block: [u32; 3],
        /// The warp within that block.
        warp: u32,
        /// The lane within that warp, 0 to 31.
        lane: usize,
    },
}

impl fmt::Display for SynthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SynthError::WarpLanes { lanes } => write!(
                f,
                "warp: traces hold {TRACE_LANES} lanes per warp, the machine has {lanes}"
            ),
            SynthError::Kernel(e) => fmt::Display::fmt(e, f),
            SynthError::ZeroAddress { stmt, block: [x, y, z], warp, lane } => write!(
                f,
                "a{stmt}.base: block ({x},{y},{z}) warp {warp} lane {lane} reads address 0, which \
                 NVBit's format cannot tell from an inactive lane; move the array off address 0"
            ),
        }
    }
}

impl std::error::Error for SynthError {}

/// Why a kernel cannot be written as a trace.
fn check(kernel: &Kernel) -> Result<(), SynthError> {
    if kernel.machine.warp as usize != TRACE_LANES {
        return Err(SynthError::WarpLanes { lanes: kernel.machine.warp });
    }
    Ok(())
}

fn opcode(e: &Executed<'_>) -> String {
    opcode_for(e.stmt.space, e.stmt.kind == AccessKind::Store, e.stmt.elem)
}

/// The kernel as NVBit `mem_trace` output: a launch line, then one line per warp instruction
/// with an active lane, 32 addresses each, 0 for an inactive lane. An active lane at address
/// 0 would read back as inactive, so it is refused.
///
/// ```
/// use coalescing_lab::model::kernel::{KernelField, KernelInputs, Machine, StmtField};
/// use coalescing_lab::model::trace::synth::nvbit_text;
/// let mut inputs = KernelInputs::default();
/// inputs.set(KernelField::Stmt(1, StmtField::Base), "0x1000".into());
/// let text = nvbit_text(&inputs.kernel(Machine::default()).unwrap(), "vecLoad").unwrap();
/// assert!(text.lines().nth(1).unwrap().starts_with("MEMTRACE: CTX 0x0000000000000001 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E - 0x0000000000001000 "));
/// ```
pub fn nvbit_text(kernel: &Kernel, name: &str) -> Result<String, SynthError> {
    check(kernel)?;
    let mut out = String::new();
    let [gx, gy, gz] = kernel.grid;
    let [bx, by, bz] = kernel.block;
    let _ = writeln!(
        out,
        "MEMTRACE: CTX 0x0000000000000001 - LAUNCH - Kernel pc 0x0000000000000000 - Kernel name \
         {name} - grid launch id 0 - grid size {gx},{gy},{gz} - block size {bx},{by},{bz} - nregs 16 \
         - shmem 0 - cuda stream id 0"
    );
    let mut zero_lane = None;
    each_instruction(kernel, |e| {
        if e.mask == 0 {
            return;
        }
        let [x, y, z] = e.block;
        let _ = write!(
            out,
            "MEMTRACE: CTX 0x0000000000000001 - grid_launch_id 0 - CTA {x},{y},{z} - warp {} - {} - ",
            e.warp,
            opcode(&e)
        );
        for lane in 0..32 {
            let address = if e.mask & (1 << lane) != 0 {
                if e.addresses[lane] == 0 {
                    zero_lane.get_or_insert((e.stmt.number, e.block, e.warp, lane));
                }
                e.addresses[lane]
            } else {
                0
            };
            let _ = write!(out, "0x{address:016x} ");
        }
        out.push('\n');
    })
    .map_err(SynthError::Kernel)?;
    if let Some((stmt, block, warp, lane)) = zero_lane {
        return Err(SynthError::ZeroAddress { stmt, block, warp, lane });
    }
    Ok(out)
}

/// The kernel as an Accel-Sim `.traceg` (tracer version 5): the header, then per block every
/// warp's memory instructions in order. A warp with no lane taking part gets a mask-0 line, as
/// a predicated-off instruction does, so every warp has the same lines. PCs are 0x10 × N for
/// statement `aN`; addresses use mode 1 (base, stride) when the set lanes are one run with a
/// constant stride, and mode 2 (base, deltas) otherwise, as the tracer chooses.
pub fn accelsim_text(kernel: &Kernel, name: &str) -> Result<String, SynthError> {
    check(kernel)?;
    let mut out = String::new();
    let [gx, gy, gz] = kernel.grid;
    let [bx, by, bz] = kernel.block;
    let _ = write!(
        out,
        "-kernel name = {name}\n-kernel id = 1\n-grid dim = ({gx},{gy},{gz})\n-block dim = ({bx},{by},{bz})\n\
         -shmem = 0\n-nregs = 16\n-binary version = 70\n-cuda stream id = 0\n\
         -shmem base_addr = 0x0000000000000000\n-local mem base_addr = 0x0000000000000000\n\
         -nvbit version = 1.7.5\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n\
         #traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n"
    );
    let warps = kernel.warps_per_block() as usize;
    let mut per_warp: Vec<Vec<String>> = vec![Vec::new(); warps];
    let mut current: Option<u64> = None;
    let flush = |out: &mut String, per_warp: &mut Vec<Vec<String>>, block: [u32; 3]| {
        let [x, y, z] = block;
        let _ = write!(out, "\n#BEGIN_TB\n\nthread block = {x},{y},{z}\n");
        for (w, lines) in per_warp.iter_mut().enumerate() {
            let _ = write!(out, "\nwarp = {w}\ninsts = {}\n", lines.len());
            for line in lines.drain(..) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out.push_str("\n#END_TB\n");
    };
    let mut last_block = [0u32; 3];
    each_instruction(kernel, |e| {
        if current.is_some_and(|b| b != e.block_number) {
            flush(&mut out, &mut per_warp, last_block);
        }
        current = Some(e.block_number);
        last_block = e.block;
        let store = e.stmt.kind == AccessKind::Store;
        let mut line = format!(
            "{:04x} {:08x} {}{} 1 R4 {} {}",
            0x10 * u32::from(e.stmt.number),
            e.mask & 0xffff_ffff,
            if store { "0 " } else { "1 R2 " },
            opcode(&e),
            e.stmt.elem,
            addresses(e.mask, e.addresses)
        );
        line.push_str(" 0 ");
        if let Some(lines) = per_warp.get_mut(e.warp as usize) {
            lines.push(line);
        }
    })
    .map_err(SynthError::Kernel)?;
    if current.is_some() {
        flush(&mut out, &mut per_warp, last_block);
    }
    Ok(out)
}

/// The address part of an Accel-Sim line for the lanes of `mask`.
fn addresses(mask: u64, addresses: &[u64; 64]) -> String {
    let lanes: Vec<usize> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
    let Some(&first) = lanes.first() else {
        // No lane: the tracer's base_stride with nothing found.
        return "1 0x0 0".to_string();
    };
    let base = addresses[first];
    let deltas: Vec<i128> = lanes
        .windows(2)
        .map(|w| i128::from(addresses[w[1]]) - i128::from(addresses[w[0]]))
        .collect();
    let contiguous = lanes.windows(2).all(|w| w[1] == w[0] + 1);
    let constant = deltas.windows(2).all(|d| d[0] == d[1]);
    if lanes.len() >= 2 && contiguous && constant && i32::try_from(deltas[0]).is_ok() {
        format!("1 0x{base:x} {}", deltas[0])
    } else {
        let mut text = format!("2 0x{base:x}");
        for d in deltas {
            let _ = write!(text, " {d}");
        }
        text
    }
}
