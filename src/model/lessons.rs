//! Words for a newcomer: one lesson per worked example, and the glossary every term on the
//! page links to. Plain text in the course's terms; the figures a lesson quotes are checked
//! against the model in tests/lessons.rs, so a lesson cannot drift from what the page shows.

/// One glossary entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Stable key, used in element ids: `gloss-<key>`.
    pub key: &'static str,
    /// The term as the page writes it.
    pub term: &'static str,
    /// One or two sentences.
    pub definition: &'static str,
}

/// Every term the page uses without explaining it in place, in reading order.
pub const GLOSSARY: [Term; 20] = [
    Term { key: "warp", term: "Warp", definition: "32 threads (64 on AMD's wave64) that a GPU runs together: one instruction, issued once, executes for all of them." },
    Term { key: "lane", term: "Lane", definition: "One thread's place in its warp, numbered t = 0 to 31. In a memory instruction each lane asks for its own address." },
    Term { key: "sector", term: "Sector", definition: "The unit global memory moves: 32 aligned bytes on NVIDIA GPUs since Volta. A lane that needs one byte of a sector costs the whole sector." },
    Term { key: "line", term: "Cache line", definition: "128 aligned bytes, four sectors: the unit the cache keeps. Sectors of a line are fetched one by one, as needed." },
    Term { key: "coalescing", term: "Coalescing", definition: "Serving a warp's addresses with as few sectors as possible. A warp whose 32 lanes read 32 consecutive floats needs 4 sectors; one whose lanes are far apart needs 32." },
    Term { key: "ntx", term: "N_tx (sectors)", definition: "The number of distinct sectors one warp instruction touches: the transactions the memory system performs for it." },
    Term { key: "elem", term: "elem", definition: "Bytes each lane reads or writes: 4 for a float, 8 for a double, 16 for a float4." },
    Term { key: "idx", term: "idx(t)", definition: "The element index lane t accesses, as a C expression; its address is base + elem × idx(t)." },
    Term { key: "efficiency", term: "Efficiency", definition: "Bytes the lanes asked for ÷ bytes the sectors moved. 100 % means no byte moved was wasted; above 100 % means lanes shared bytes (a broadcast)." },
    Term { key: "distinct-efficiency", term: "Distinct efficiency", definition: "Distinct bytes asked for ÷ bytes moved: like efficiency, but a byte read by several lanes counts once, so it never exceeds 100 %." },
    Term { key: "misaligned", term: "Misaligned lane", definition: "A lane whose address is not a multiple of elem. Such an access may cross a sector boundary and cost one sector more." },
    Term { key: "bank", term: "Bank", definition: "Shared memory is split into 32 banks of 4-byte words; word w lives in bank w mod 32. Each bank delivers one word per cycle." },
    Term { key: "wavefront", term: "Wavefront", definition: "One pass of shared memory serving a group of lanes. A group needs as many wavefronts as the most distinct words any one bank must deliver to it." },
    Term { key: "conflict", term: "Bank conflict", definition: "A wavefront beyond the ideal one per group: several lanes want different words of the same bank, which then serves them one after another." },
    Term { key: "request", term: "Request", definition: "One warp instruction with at least one active lane: what Nsight Compute (NCU, NVIDIA's kernel profiler) counts as a request." },
    Term { key: "request-level", term: "Request level", definition: "Counted per warp instruction, before any cache: the sectors each instruction asks for, as NCU's sectors/request counts them." },
    Term { key: "unique", term: "Unique sectors", definition: "Distinct sectors over the whole launch: the traffic with a perfect cache that never forgets." },
    Term { key: "dram", term: "DRAM bytes", definition: "Bytes that reach the GPU's main memory (DRAM) after the cache model: misses read, dirty sectors written back." },
    Term { key: "lru", term: "LRU cache", definition: "Least recently used: when the cache is full, the line not touched for the longest time leaves first." },
    Term { key: "ideal", term: "Ideal", definition: "The fewest that could do: ⌈distinct bytes ÷ sector⌉ sectors, or one wavefront per group of lanes. Excess is what a pattern costs beyond it." },
];

/// The glossary entry of a result's `data-testid`, if its label uses a term.
///
/// ```
/// use coalescing_lab::model::lessons::term_of_readout;
/// assert_eq!(term_of_readout("sectors").map(|t| t.key), Some("ntx"));
/// assert_eq!(term_of_readout("k-dram-bytes").map(|t| t.key), Some("dram"));
/// assert_eq!(term_of_readout("no-such-id"), None);
/// ```
pub fn term_of_readout(id: &str) -> Option<&'static Term> {
    let key = match id.strip_prefix("b.").unwrap_or(id) {
        "sectors" => "ntx",
        "lines" => "line",
        "efficiency" | "k-useful" => "efficiency",
        "distinct-efficiency" => "distinct-efficiency",
        "misaligned-lanes" => "misaligned",
        "wavefronts" | "k-wavefronts" => "wavefront",
        "bank-conflicts" | "k-bank-conflicts" => "conflict",
        "ideal-wavefronts" => "ideal",
        "k-requests" => "request",
        "k-sectors" | "k-sectors-per-request" => "request-level",
        "k-unique-sectors" => "unique",
        "k-dram-bytes" => "dram",
        "k-hit-rate" => "lru",
        _ => return None,
    };
    GLOSSARY.iter().find(|t| t.key == key)
}

/// The introduction in the course's terms, paragraph by paragraph, with its worked example: a
/// strided column read.
pub const INTRODUCTION: [&str; 3] = [
    "A GPU runs threads in warps of 32. When a warp executes a load, each of its 32 lanes asks for its own address, but memory does not move single bytes: it moves aligned 32-byte sectors. Coalescing is how few sectors a warp's addresses need.",
    "When the 32 lanes read 32 consecutive floats (idx = t), their 128 bytes fill exactly 4 sectors: every byte moved is used. When each lane reads down a column of a row-major matrix of 1024 floats per row (idx = t·1024), every lane lands in a sector of its own: 32 sectors, 1024 bytes moved for the 128 asked for, an efficiency of 12.5 %. Same data volume, eight times the traffic.",
    "This page counts the sectors of one warp instruction (the calculator), of every warp of a launch (the kernel view), of a real trace, and of a CUDA kernel as you wrote it (the CUDA source tab). Pick a worked example below, predict its sectors, then read why. Terms with a dotted underline explain themselves on hover or focus.",
];

/// The lesson of the worked example `id`, if it has one.
///
/// ```
/// use coalescing_lab::model::lessons::lesson;
/// assert!(lesson("ex1-sequential").unwrap().contains("4 sectors"));
/// assert_eq!(lesson("custom"), None);
/// ```
pub fn lesson(id: &str) -> Option<&'static str> {
    LESSONS.iter().find(|(k, _)| *k == id).map(|(_, l)| *l)
}

/// One paragraph per worked example of `presets::PRESETS`, keyed by its id.
const LESSONS: [(&str, &str); 18] = [
    ("ex1-sequential", "32 lanes read 32 consecutive floats: 128 bytes that start on a sector boundary fill exactly 4 sectors, and every byte moved is used (100 %). This is a fully coalesced access, the one every other example is measured against."),
    ("ex2-misaligned", "The same 128 bytes, starting 8 bytes into a sector, straddle one more boundary: 5 sectors move 160 B for 128 B used (80 %). On 32-byte sectors a misaligned start costs at most one sector more per warp."),
    ("ex3-stride-2", "Each lane skips a float, so the warp's bytes spread over twice the range: 8 sectors for 128 B used, 50 %. Half of every sector moved holds floats nobody asked for, as when one component of interleaved pairs is read."),
    ("ex4-stride-sector", "Lanes 32 bytes apart land one per sector: 32 sectors, 1024 B moved for 128 B used (12.5 %). Once the stride reaches a sector every lane pays for a sector of its own, and no larger stride costs more sectors."),
    ("ex5-huge-stride", "1024 floats apart, each lane is alone in its sector and in its cache line: 32 sectors again, 12.5 %, the sectors of Ex4 but 32 cache lines instead of 8. Sectors stop growing at one per lane; lines keep growing with the stride."),
    ("ex6-reversed", "The lanes read the same 32 floats in reverse order: still 4 sectors, 100 %. Coalescing depends on which sectors the warp touches, not on which lane reads which byte."),
    ("ex7-broadcast", "Every lane reads the same float: 1 sector serves the whole warp. Requested bytes count every lane (128 B), so the efficiency reads 400 %; the distinct efficiency, 4 B of 32, is 12.5 %. A broadcast is cheap in sectors."),
    ("ex8a-column", "A warp walks down a column of a row-major matrix of 1024 floats per row: the lanes are a row (4 KiB) apart, so 32 sectors move 1024 B for 128 B (12.5 %). This is the introduction's strided column read, and the naive transpose's write; a shared-memory tile turns it into row reads."),
    ("ex8b-mixed", "Half the warp reads 16 consecutive floats (2 sectors); the other half reads floats 64 apart (16 sectors): 18 sectors, 576 B for 128 B, 22.2 %. A warp pays for all its lanes: the scattered half costs eight times the coalesced one."),
    ("ex9-aos-float3-x", "An array of structs of three floats, each lane reading its struct's x: lanes are 12 bytes apart, so the warp spans 384 B in 12 sectors and only a third of what moves is x (33.3 %). A structure of arrays, one array of x, reads the same values in 4 sectors."),
    ("column-128b-rows", "A column of a matrix whose rows are 32 floats (128 B): every lane is a row apart, one per sector and per line, so 32 sectors move 1024 B for 128 B (12.5 %). Short rows do not rescue a column read; a different layout or a tile does."),
    ("ex2-128b-transactions", "Ex2's misaligned read on a GPU that moves 128-byte units: 2 sectors of 128 B, 256 B for 128 B used (50 %). The same 8-byte offset costs 25 % more traffic on 32-byte sectors and 100 % more here, which is why older GPUs punished misalignment harder."),
    ("shared-tile-column", "Shared memory has 32 banks of 4-byte words. Reading a column of a 32×32 float tile puts every lane on word 32·t, all in bank 0, which delivers the 32 words one at a time: 32 wavefronts where 1 would do, 31 bank conflicts."),
    ("shared-tile-column-padded", "Pad each tile row to 33 floats and the column's words 33·t fall in 32 different banks: 1 wavefront, no conflict. One unused float per row is the whole cost of the fix."),
    ("shared-broadcast", "Every lane reads the same word, and a bank delivers one word to any number of lanes at once: 1 wavefront, no conflict. Only different words in one bank conflict."),
    ("shared-stride-2", "Floats 2 apart put lanes t and t + 16 in the same bank on different words, so each bank delivers 2 words: 2 wavefronts, a 2-way conflict."),
    ("shared-float2-row", "8-byte accesses are served in groups of 16 lanes. A row of float2 gives each group 32 consecutive words in 32 different banks: 2 wavefronts, one per group, which is the ideal: no conflict."),
    ("shared-double-column-padded", "Doubles down a column of a tile padded to 33: lane t reads words 66·t and 66·t + 1. In each group of 16 lanes those fall in 32 different banks: 2 wavefronts, one per group, no conflict."),
];
