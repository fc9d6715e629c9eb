//! Architecture presets: the warp width and the sizes of the serviced unit (sector) and the
//! cache line that a family of GPUs uses for global loads. A preset fills `warp`, `sector`
//! and `line`; explicit values override it. These are models of the documented behaviour,
//! not measurements: the real cache path decides, and a profiler should confirm.

/// One architecture preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    /// The `arch` URL parameter's value.
    pub id: &'static str,
    /// The name people know it by.
    pub name: &'static str,
    /// Lanes per warp or wavefront: the `warp` default this preset fills.
    pub warp: u32,
    /// Bytes in the serviced unit: the `sector` default.
    pub sector_bytes: u64,
    /// Bytes in a cache line, a multiple of the sector: the `line` default.
    pub line_bytes: u64,
    /// The assumption, and where it comes from, in one line.
    pub note: &'static str,
}

/// The presets, the default first.
pub const ARCHES: [Arch; 5] = [
    Arch {
        id: "volta",
        name: "NVIDIA Volta and newer",
        warp: 32,
        sector_bytes: 32,
        line_bytes: 128,
        note: "32-lane warps; global loads are served in 32 B sectors of 128 B cache lines \
               (CUDA C++ Best Practices Guide, \"Coalesced Access to Global Memory\").",
    },
    Arch {
        id: "fermi-l1",
        name: "NVIDIA Fermi/Kepler, loads cached in L1",
        warp: 32,
        sector_bytes: 128,
        line_bytes: 128,
        note: "32-lane warps; a load cached in L1 moves whole 128 B lines, one transaction per \
               line touched (CUDA C Programming Guide, compute capability 2.x, global memory).",
    },
    Arch {
        id: "nvidia-l1-bypass",
        name: "NVIDIA loads that bypass L1",
        warp: 32,
        sector_bytes: 32,
        line_bytes: 32,
        note:
            "32-lane warps; a load that skips L1 (Kepler's default for globals, or -dlcm=cg) \
               is served by L2 in 32 B segments (CUDA C Programming Guide, compute capability 3.x).",
    },
    Arch {
        id: "cdna3",
        name: "AMD CDNA3 (MI300)",
        warp: 64,
        sector_bytes: 128,
        line_bytes: 128,
        note: "64-lane wavefronts; the vector L1 cache moves 128 B lines \
               (AMD CDNA3 architecture white paper, MI300 cache hierarchy).",
    },
    Arch {
        id: "gcn",
        name: "AMD GCN and older CDNA",
        warp: 64,
        sector_bytes: 64,
        line_bytes: 64,
        note: "64-lane wavefronts; the vector L1 cache moves 64 B lines \
               (AMD GCN architecture white paper; CDNA1/2 instruction set guides).",
    },
];

impl Arch {
    /// The preset with this `arch` value, if any.
    ///
    /// ```
    /// use coalescing_lab::model::arch::Arch;
    /// assert_eq!(Arch::by_id("cdna3").map(|a| a.warp), Some(64));
    /// assert_eq!(Arch::by_id(" Volta "), None, "ids are exact");
    /// ```
    pub fn by_id(id: &str) -> Option<&'static Arch> {
        ARCHES.iter().find(|a| a.id == id)
    }

    /// The default preset.
    pub fn default_arch() -> &'static Arch {
        &ARCHES[0]
    }

    /// All ids, for messages: "volta, fermi-l1, …".
    pub fn ids() -> String {
        ARCHES.iter().map(|a| a.id).collect::<Vec<_>>().join(", ")
    }
}
