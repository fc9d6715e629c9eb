//! #28's M10: a trace of several kernel launches says that they are counted together, and
//! that the cache carries over from one to the next.

use coalescing_lab::model::trace::{analyze_trace, TraceOptions};

fn line(launch: u64, warp: u32) -> String {
    let lanes: String = (0..32)
        .map(|t| format!(" 0x{:016x}", 0x1000 + 4 * t))
        .collect();
    format!("MEMTRACE: CTX 0x0000000000000001 - grid_launch_id {launch} - CTA 0,0,0 - warp {warp} - LDG.E -{lanes}\n")
}

#[test]
fn two_launches_are_named_in_a_note_and_one_is_not() {
    let one = line(0, 0) + &line(0, 1);
    let a = analyze_trace(one.as_bytes(), TraceOptions::default());
    assert!(
        a.notes.iter().all(|n| !n.contains("kernel launches")),
        "{:?}",
        a.notes
    );
    let two = line(0, 0) + &line(1, 0);
    let b = analyze_trace(two.as_bytes(), TraceOptions::default());
    assert!(
        b.notes.contains(
            &"The trace holds 2 kernel launches (NVBit's grid_launch_id), counted together: the \
              figures are their sum, and the cache model keeps its contents from one launch to \
              the next, as an L2 does between back-to-back launches."
                .to_string()
        ),
        "{:?}",
        b.notes
    );
    // The same 4 sectors twice: the second launch finds them in the cache.
    assert_eq!(
        (b.total.requests, b.total.sectors, b.total.dram_read_bytes),
        (2, 8, 128)
    );
}
