//! What a SASS opcode says about its memory access: the memory space, from the mnemonic, and
//! the bytes per lane, from the width modifier.
//!
//! Widths follow Accel-Sim's `get_datawidth_from_opcode` (its tracer and its trace parser both
//! recompute the width from the opcode): the first all-digit modifier is the width in bits
//! (`LDG.E.64` → 8 bytes, `LDS.U.128` → 16), a `U<bits>` modifier gives its bits
//! (`LDG.E.U8` → 1), and anything else is 4 bytes. This module also reads the signed
//! modifiers (`S8`, `S16`), which Accel-Sim leaves at 4 bytes: a signed 16-bit load moves 2.

use super::super::inputs::Space;

/// Where an instruction's addresses point.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum MemorySpace {
    /// Device memory through the caches (`LDG`, `STG`, generic `LD`/`ST`, atomics, reductions).
    Global,
    /// Per-thread local memory (`LDL`, `STL`): device memory too, counted like global.
    Local,
    /// On-chip shared memory (`LDS`, `STS`, `ATOMS`, `LDSM`): the bank model.
    Shared,
}

impl MemorySpace {
    /// Its name in tables and links.
    pub fn name(self) -> &'static str {
        match self {
            MemorySpace::Global => "global",
            MemorySpace::Local => "local",
            MemorySpace::Shared => "shared",
        }
    }

    /// The kernel model's space: local memory is device memory, counted as global.
    pub fn space(self) -> Space {
        match self {
            MemorySpace::Shared => Space::Shared,
            MemorySpace::Global | MemorySpace::Local => Space::Global,
        }
    }
}

/// Whether an opcode writes memory (`ST*`, `RED`, atomics count as both; here, as stores).
pub fn is_store(opcode: &str) -> bool {
    let mnemonic = opcode.split('.').next().unwrap_or("");
    mnemonic.starts_with("ST") || mnemonic.starts_with("RED") || mnemonic.starts_with("ATOM")
}

/// The memory space of `opcode`, from its mnemonic (the part before the first dot).
///
/// ```
/// use coalescing_lab::model::trace::opcode::{space_of, MemorySpace};
/// assert_eq!(space_of("LDG.E.64"), MemorySpace::Global);
/// assert_eq!(space_of("STS.128"), MemorySpace::Shared);
/// assert_eq!(space_of("ATOMS.ADD"), MemorySpace::Shared);
/// assert_eq!(space_of("LDL.64"), MemorySpace::Local);
/// assert_eq!(space_of("LD.E"), MemorySpace::Global);
/// ```
pub fn space_of(opcode: &str) -> MemorySpace {
    let mnemonic = opcode.split('.').next().unwrap_or("");
    match mnemonic {
        "LDS" | "STS" | "ATOMS" | "LDSM" | "STSM" => MemorySpace::Shared,
        "LDL" | "STL" => MemorySpace::Local,
        _ => MemorySpace::Global,
    }
}

/// Bytes per lane of `opcode`, from its width modifier; 4 when it has none.
///
/// ```
/// use coalescing_lab::model::trace::opcode::width_of;
/// assert_eq!(width_of("LDG.E"), 4);
/// assert_eq!(width_of("LDG.E.64"), 8);
/// assert_eq!(width_of("LDS.U.128"), 16);
/// assert_eq!(width_of("LDG.E.U8"), 1);
/// assert_eq!(width_of("LDG.E.S16"), 2);
/// assert_eq!(width_of("STG.E.8"), 1);
/// assert_eq!(width_of("LDG.E.SYS"), 4);
/// ```
pub fn width_of(opcode: &str) -> u64 {
    for token in opcode.split('.').skip(1) {
        let bits = if token.chars().all(|c| c.is_ascii_digit()) {
            token
        } else if let Some(bits) = token.strip_prefix('U').or_else(|| token.strip_prefix('S')) {
            if bits.is_empty() || !bits.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            bits
        } else {
            continue;
        };
        if let Ok(bits) = bits.parse::<u64>() {
            if matches!(bits, 8 | 16 | 32 | 64 | 128) {
                return bits / 8;
            }
        }
    }
    4
}

/// The opcode a model statement would compile to, for synthetic traces: a load or store in
/// its space with its width modifier (`LDG.E.64`, `STS.128`, `LDG.E.U8`, …).
pub fn opcode_for(space: Space, store: bool, elem: u64) -> String {
    let stem = match (space, store) {
        (Space::Global, false) => "LDG.E",
        (Space::Global, true) => "STG.E",
        (Space::Shared, false) => "LDS",
        (Space::Shared, true) => "STS",
    };
    match elem {
        1 => format!("{stem}.U8"),
        2 => format!("{stem}.U16"),
        8 => format!("{stem}.64"),
        16 => format!("{stem}.128"),
        _ => stem.to_string(),
    }
}
