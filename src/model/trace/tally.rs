//! Counting a trace: each execution of each static instruction through the calculator's sector
//! arithmetic (global and local memory) or the bank model (shared memory), and through the
//! kernel view's cache model in the order the executions are replayed.

use super::super::banks::{words, BankCounter, Wavefronts};
use super::super::kernel::cache::SectorCache;
use super::super::kernel::{Figures, Machine};
use super::super::sectors::{merge_sorted_into, sort_ascending, Span};
use super::opcode::{is_store, space_of, width_of, MemorySpace};
use std::collections::HashMap;

/// Write-backs of instructions from this index on share one account: the cache model keeps
/// one byte of state per sector.
pub const POOLED_AFTER: usize = 253;

/// The worst execution of an instruction: the most sectors (or wavefronts), first met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worst {
    /// Its sectors, or wavefronts in shared memory.
    pub cost: u64,
    pub block: [u32; 3],
    pub warp: u32,
    /// Active lanes, bit `l` for lane `l`.
    pub mask: u32,
    /// Each lane's address; meaningless for an inactive lane. A fixed array: a trace may
    /// have 10^6 static instructions, and each keeps one of these.
    pub addresses: Box<[u64; 32]>,
}

impl Worst {
    /// Lane `lane`'s address, `None` when inactive or past the warp.
    pub fn address(&self, lane: usize) -> Option<u64> {
        (lane < 32 && self.mask & (1 << lane) != 0).then(|| self.addresses[lane])
    }
}

/// One static instruction's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Its PC, where the format has one.
    pub pc: Option<u64>,
    pub opcode: String,
    pub space: MemorySpace,
    pub store: bool,
    /// Bytes per lane.
    pub elem: u64,
    /// Lines, active lanes or not.
    pub executions: u64,
    /// Executions with an active lane.
    pub requests: u64,
    pub active_lanes: u64,
    pub requested_bytes: u64,
    /// Request-level sectors (global and local memory).
    pub sectors: u64,
    /// `ceil(active lanes × elem ÷ sector)` summed over the requests.
    pub ideal_sectors: u64,
    pub read_sectors: u64,
    pub write_sectors: u64,
    pub hits: u64,
    /// Shared memory only.
    pub wavefronts: Wavefronts,
    pub worst: Option<Worst>,
}

impl Instruction {
    /// Sectors beyond the ideal: where the waste is.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors.saturating_sub(self.ideal_sectors)
    }
}

/// The running count of a trace.
#[derive(Clone, Debug)]
pub(super) struct Tally {
    pub(super) machine: Machine,
    cache_bytes: u64,
    cache: Option<SectorCache>,
    line_shift: u32,
    unique: super::super::kernel::UniqueSectors,
    index: HashMap<(Option<u64>, String), usize>,
    pub(super) instructions: Vec<Instruction>,
    widths: Vec<(String, u64)>,
    spans: Vec<Span>,
    runs: Vec<Span>,
    banks: BankCounter,
}

impl Tally {
    pub(super) fn new(machine: Machine, cache_bytes: u64, widths: Vec<(String, u64)>) -> Tally {
        let per_line = (machine.line_bytes / machine.sector_bytes).max(1);
        Tally {
            machine,
            cache_bytes,
            cache: (cache_bytes > 0).then(|| {
                SectorCache::new(
                    (cache_bytes / machine.line_bytes) as usize,
                    per_line as usize,
                )
            }),
            line_shift: per_line.trailing_zeros(),
            unique: Default::default(),
            index: HashMap::new(),
            instructions: Vec::new(),
            widths,
            spans: Vec::with_capacity(32),
            runs: vec![Span { first: 0, last: 0 }; 32],
            banks: BankCounter::default(),
        }
    }

    /// The index of the instruction `(pc, opcode)`, added on first sight.
    pub(super) fn intern(&mut self, pc: Option<u64>, opcode: &str) -> usize {
        // Most traces have a handful of memory instructions: a scan finds them without the
        // allocation a map key would cost on every line.
        if self.instructions.len() <= 32 {
            if let Some(at) = self
                .instructions
                .iter()
                .position(|i| i.pc == pc && i.opcode == opcode)
            {
                return at;
            }
        } else if let Some(&at) = self.index.get(&(pc, opcode.to_string())) {
            return at;
        }
        let at = self.instructions.len();
        let elem = self
            .widths
            .iter()
            .find(|(op, _)| op == opcode)
            .map_or_else(|| width_of(opcode), |(_, w)| *w);
        self.instructions.push(Instruction {
            pc,
            opcode: opcode.to_string(),
            space: space_of(opcode),
            store: is_store(opcode),
            elem,
            executions: 0,
            requests: 0,
            active_lanes: 0,
            requested_bytes: 0,
            sectors: 0,
            ideal_sectors: 0,
            read_sectors: 0,
            write_sectors: 0,
            hits: 0,
            wavefronts: Wavefronts::default(),
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
        addresses: &[u64; 32],
        block: [u32; 3],
        warp: u32,
    ) -> Result<(), String> {
        let Some(instr) = self.instructions.get(at) else {
            return Ok(());
        };
        let (elem, space, store) = (instr.elem, instr.space, instr.store);
        let active = mask.count_ones() as u64;
        self.spans.clear();
        for (lane, &address) in addresses.iter().enumerate() {
            if mask & (1 << lane) == 0 {
                continue;
            }
            let last = address.checked_add(elem - 1).ok_or_else(|| {
                format!("lane {lane}: {elem} bytes at address {address} run past 2^64")
            })?;
            self.spans.push(Span {
                first: address,
                last,
            });
        }
        let cost = if active == 0 {
            0
        } else if space == MemorySpace::Shared {
            let lanes = (0..32u32).filter(|l| mask & (1 << l) != 0).map(|l| {
                let a = addresses[l as usize];
                (l, words(a, a + (elem - 1)))
            });
            let w = self.banks.count(elem, lanes);
            if let Some(i) = self.instructions.get_mut(at) {
                i.wavefronts.add(w);
            }
            w.wavefronts
        } else {
            self.global(at, store)?
        };
        let Some(instr) = self.instructions.get_mut(at) else {
            return Ok(());
        };
        instr.executions += 1;
        if active == 0 {
            return Ok(());
        }
        instr.requests += 1;
        instr.active_lanes += active;
        instr.requested_bytes += active * elem;
        if space != MemorySpace::Shared {
            instr.ideal_sectors += (active * elem).div_ceil(self.machine.sector_bytes);
        }
        match &mut instr.worst {
            Some(w) if cost <= w.cost => {}
            Some(w) => {
                w.cost = cost;
                w.block = block;
                w.warp = warp;
                w.mask = mask as u32;
                *w.addresses = *addresses;
            }
            None => {
                instr.worst = Some(Worst {
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

    /// The sectors of the spans in `self.spans`, through the cache; returns their number.
    fn global(&mut self, at: usize, store: bool) -> Result<u64, String> {
        let shift = self.machine.sector_bytes.trailing_zeros();
        for span in &mut self.spans {
            *span = Span {
                first: span.first >> shift,
                last: span.last >> shift,
            };
        }
        sort_ascending(&mut self.spans, |s| s.first);
        let count = merge_sorted_into(&self.spans, &mut self.runs);
        let Tally {
            cache,
            unique,
            instructions,
            runs,
            line_shift,
            ..
        } = self;
        let charge = |instructions: &mut Vec<Instruction>, who: u8| {
            if let Some(i) = instructions.get_mut(usize::from(who)) {
                i.write_sectors += 1;
            }
        };
        let who = at.min(POOLED_AFTER) as u8;
        let (mut sectors, mut hits, mut reads) = (0, 0, 0);
        for run in &runs[..count] {
            for sector in run.first..=run.last {
                sectors += 1;
                unique.insert(sector, 0);
                let Some(cache) = cache.as_mut() else {
                    continue;
                };
                let line = sector >> *line_shift;
                let slot = cache.touch(line, |w| charge(instructions, w));
                let within = (sector & ((1 << *line_shift) - 1)) as usize;
                let hit = if store {
                    cache.store(slot, within, who)
                } else {
                    cache.load(slot, within)
                };
                if hit {
                    hits += 1;
                } else if !store {
                    reads += 1;
                }
            }
        }
        let no_cache = cache.is_none();
        if let Some(i) = instructions.get_mut(at) {
            i.sectors += sectors;
            i.hits += hits;
            match (no_cache, store) {
                (true, true) => i.write_sectors += sectors,
                (true, false) => i.read_sectors += sectors,
                (false, _) => i.read_sectors += reads,
            }
        }
        Ok(sectors)
    }

    /// True when the distinct-sector count reached its memory budget: the unique figure
    /// is then a lower bound.
    pub(super) fn unique_over_budget(&self) -> bool {
        self.unique.over_budget()
    }

    /// Writes the dirty sectors back and sums the instructions into kernel-view figures.
    pub(super) fn finish(&mut self) -> Figures {
        let Tally {
            cache,
            instructions,
            ..
        } = self;
        if let Some(cache) = cache.as_mut() {
            cache.flush(|who| {
                if let Some(i) = instructions.get_mut(usize::from(who)) {
                    i.write_sectors += 1;
                }
            });
        }
        let s = self.machine.sector_bytes;
        let mut f = Figures {
            unique_sectors: self.unique.total,
            hits: (self.cache_bytes > 0).then_some(0),
            ..Figures::default()
        };
        for i in &self.instructions {
            f.requests += i.requests;
            f.requested_bytes += i.requested_bytes;
            if i.space == MemorySpace::Shared {
                f.shared_requests += i.requests;
                f.shared_requested_bytes += i.requested_bytes;
                f.wavefronts += i.wavefronts.wavefronts;
                f.ideal_wavefronts += i.wavefronts.ideal;
            } else {
                f.sectors += i.sectors;
                f.dram_read_bytes += i.read_sectors * s;
                f.dram_write_bytes += i.write_sectors * s;
                if let Some(h) = f.hits.as_mut() {
                    *h += i.hits;
                }
            }
        }
        f.transferred_bytes = f.sectors * s;
        f
    }
}
