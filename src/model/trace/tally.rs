//! Counting a trace: each static instruction is a site of the warp core's tally, and each
//! execution a warp access, counted in the order the executions are replayed. What is the
//! trace's own: interning instructions by PC and opcode, and each one's worst execution.

use super::super::banks::Wavefronts;
use super::super::machine::{AccessKind, Machine, Space};
use super::super::warp::{self, Figures, TallyOptions, WarpAccess};
use super::opcode::{is_store, space_of, width_of, MemorySpace};
use super::{TraceLineError, TRACE_LANES};
use std::collections::HashMap;

/// The worst execution of an instruction: the most sectors (or wavefronts), first met.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Worst {
    /// Its sectors, or wavefronts in shared memory.
    pub cost: u64,
    /// The thread block (x, y, z) of that execution.
    pub block: [u32; 3],
    /// The warp: NVBit's hardware warp slot, Accel-Sim's warp within the block.
    pub warp: u32,
    /// Active lanes, bit `l` for lane `l`.
    pub mask: u32,
    /// Each lane's address; meaningless for an inactive lane. A fixed array: a trace may
    /// have 10^6 static instructions, and each keeps one of these.
    pub addresses: Box<[u64; TRACE_LANES]>,
}

impl Worst {
    /// Lane `lane`'s address, `None` when inactive or past the warp.
    pub fn address(&self, lane: usize) -> Option<u64> {
        (lane < TRACE_LANES && self.mask & (1 << lane) != 0).then(|| self.addresses[lane])
    }
}

/// One static instruction's figures.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Instruction {
    /// Its PC, where the format has one.
    pub pc: Option<u64>,
    /// The SASS opcode as traced, e.g. `LDG.E.64`.
    pub opcode: String,
    /// Global, local or shared, read from the opcode.
    pub space: MemorySpace,
    /// Whether the opcode writes memory.
    pub store: bool,
    /// Bytes per lane.
    pub elem: u64,
    /// Lines, active lanes or not.
    pub executions: u64,
    /// Executions with an active lane.
    pub requests: u64,
    /// Active lanes summed over the executions.
    pub active_lanes: u64,
    /// `elem` × active lanes, summed over the executions.
    pub requested_bytes: u64,
    /// Request-level sectors (global and local memory).
    pub sectors: u64,
    /// ⌈distinct requested bytes ÷ sector⌉ summed over the requests: lanes that repeat
    /// bytes (a broadcast) need them once.
    pub ideal_sectors: u64,
    /// Sectors read from DRAM through the cache model (every loaded sector with no cache).
    pub read_sectors: u64,
    /// Dirty sectors written back to DRAM, charged to this instruction.
    pub write_sectors: u64,
    /// Sector accesses that found their sector in the cache; 0 with no cache.
    pub hits: u64,
    /// Shared memory only.
    pub wavefronts: Wavefronts,
    /// Its costliest execution; `None` when no execution had an active lane.
    pub worst: Option<Worst>,
}

impl Instruction {
    /// Sectors beyond the ideal: where the waste is.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors.saturating_sub(self.ideal_sectors)
    }
}

/// What a trace's static instruction is, and its worst execution so far.
#[derive(Clone, Debug)]
struct Site {
    pc: Option<u64>,
    opcode: String,
    space: MemorySpace,
    store: bool,
    elem: u64,
    worst: Option<Worst>,
}

/// The running count of a trace: its static instructions as the warp core's sites.
#[derive(Clone, Debug)]
pub(super) struct Tally {
    pub(super) machine: Machine,
    tally: warp::Tally,
    index: HashMap<(Option<u64>, String), usize>,
    sites: Vec<Site>,
    widths: Vec<(String, u64)>,
}

impl Tally {
    pub(super) fn new(machine: Machine, cache_bytes: u64, widths: Vec<(String, u64)>) -> Tally {
        Tally {
            machine,
            tally: warp::Tally::new(TallyOptions::new(machine, cache_bytes)),
            index: HashMap::new(),
            sites: Vec::new(),
            widths,
        }
    }

    /// The index of the instruction `(pc, opcode)`, added on first sight.
    pub(super) fn intern(&mut self, pc: Option<u64>, opcode: &str) -> usize {
        // Most traces have a handful of memory instructions: a scan finds them without the
        // allocation a map key would cost on every line.
        if self.sites.len() <= 32 {
            if let Some(at) = self
                .sites
                .iter()
                .position(|i| i.pc == pc && i.opcode == opcode)
            {
                return at;
            }
        } else if let Some(&at) = self.index.get(&(pc, opcode.to_string())) {
            return at;
        }
        let at = self.sites.len();
        let elem = self
            .widths
            .iter()
            .find(|(op, _)| op == opcode)
            .map_or_else(|| width_of(opcode), |(_, w)| *w);
        self.sites.push(Site {
            pc,
            opcode: opcode.to_string(),
            space: space_of(opcode),
            store: is_store(opcode),
            elem,
            worst: None,
        });
        self.index.insert((pc, opcode.to_string()), at);
        at
    }

    /// One execution of instruction `at`; an error (bytes past 2^64) names the lane.
    pub(super) fn execute(
        &mut self,
        at: usize,
        mask: u64,
        addresses: &[u64; TRACE_LANES],
        block: [u32; 3],
        warp: u32,
    ) -> Result<(), TraceLineError> {
        let Some(site) = self.sites.get_mut(at) else {
            return Err(TraceLineError::UnknownInstruction(at));
        };
        let access = WarpAccess {
            site: at,
            kind: if site.store {
                AccessKind::Store
            } else {
                AccessKind::Load
            },
            space: if site.space == MemorySpace::Shared {
                Space::Shared
            } else {
                Space::Global
            },
            elem: site.elem,
            block: 0,
            warp,
            mask,
            addresses,
            // A trace's addresses are as recorded: the tally checks them itself.
            stride: None,
        };
        let cost = self
            .tally
            .access(&access, |_| ())
            .map_err(|(lane, reason)| TraceLineError::Lane { lane, reason })?;
        if cost.active_lanes == 0 {
            return Ok(());
        }
        // Its sectors, or wavefronts in shared memory.
        let cost = cost.wavefronts.map_or(cost.sectors, |w| w.wavefronts);
        match &mut site.worst {
            Some(w) if cost <= w.cost => {}
            Some(w) => {
                w.cost = cost;
                w.block = block;
                w.warp = warp;
                w.mask = mask as u32;
                *w.addresses = *addresses;
            }
            None => {
                site.worst = Some(Worst {
                    cost,
                    block,
                    warp,
                    mask: mask as u32,
                    addresses: Box::new(*addresses),
                })
            }
        }
        Ok(())
    }

    /// True when the distinct-sector count reached its memory budget: the unique figure
    /// is then a lower bound.
    pub(super) fn unique_over_budget(&self) -> bool {
        self.tally.over_budget()
    }

    /// Writes the dirty sectors back; the kernel-view figures of the whole trace, and one
    /// row per static instruction in the order first seen.
    pub(super) fn finish(self) -> (Figures, Vec<Instruction>) {
        let mut tally = self.tally;
        tally.finish();
        let s = self.machine.sector_bytes;
        let rows = self
            .sites
            .into_iter()
            .enumerate()
            .map(|(at, site)| {
                let k = tally.counts(at);
                debug_assert_eq!(k.read_sectors * s, tally.figures(at).dram_read_bytes);
                Instruction {
                    pc: site.pc,
                    opcode: site.opcode,
                    space: site.space,
                    store: site.store,
                    elem: site.elem,
                    executions: k.executions,
                    requests: k.requests,
                    active_lanes: k.active_lanes,
                    requested_bytes: k.requested_bytes,
                    sectors: k.sectors,
                    ideal_sectors: k.ideal_sectors,
                    read_sectors: k.read_sectors,
                    write_sectors: k.write_sectors,
                    hits: k.hits,
                    wavefronts: k.wavefronts,
                    worst: site.worst,
                }
            })
            .collect();
        (tally.total(), rows)
    }
}
