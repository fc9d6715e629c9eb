//! The step-by-step derivation, in the words and symbols of the course's "Verify" lines:
//! `A(t) = 8 + 4·t` → `sector(t) = ⌊A(t)/32⌋` → `lanes span sectors 0…4` → `N_tx = 5` →
//! `128 / 160 = 80 %`.

use super::super::banks::{BankReport, BANKS, WORD_BYTES};
use super::super::format::{percent, plural, runs};
use super::sectors::{Analysis, Formula};

/// Most lane groups written out one by one (a 64-lane warp of 16-byte accesses has 8).
const MOST_GROUPS: usize = 8;

/// Most sector runs written out before the list is cut with "…".
const MOST_RUNS: usize = 8;

/// The derivation of `analysis`, one step per line.
///
/// ```
/// use coalescing_lab::model::{derivation::derive, inputs::Inputs, sectors::analyze};
/// let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
/// let steps = derive(&analyze(&ex2).unwrap());
/// assert_eq!(steps[0], "A(t) = 8 + 4·t");
/// assert!(steps.contains(&"N_tx = 5".to_string()));
/// // Degenerate input: with no active lane the derivation says so instead of dividing by 0.
/// let idle = Inputs { active: "0".into(), ..Inputs::default() };
/// assert!(derive(&analyze(&idle).unwrap()).last().unwrap().contains("n/a"));
/// ```
pub fn derive(analysis: &Analysis) -> Vec<String> {
    let a = analysis;
    let t = &a.totals;
    let mut steps = vec![address_step(a)];
    if a.masked || t.active_lanes < a.warp {
        steps.push(format!("{} of {} lanes active", t.active_lanes, a.warp));
    }
    if let Some(banks) = &a.banks {
        shared_steps(a, banks, &mut steps);
        return steps;
    }
    if t.active_lanes == 0 {
        steps.push("no lane is active → N_tx = 0".to_string());
        steps.push("efficiency = n/a (nothing requested, nothing transferred)".to_string());
        return steps;
    }
    let s = a.sector_bytes;
    if t.straddling_lanes == 0 {
        steps.push(format!("sector(t) = ⌊A(t)/{s}⌋"));
    } else {
        steps.push(format!(
            "sector(t) = ⌊A(t)/{s}⌋ … ⌊(A(t)+{})/{s}⌋: {} lane{} cross{} a sector boundary",
            a.elem - 1,
            t.straddling_lanes,
            plural(u64::from(t.straddling_lanes)),
            if t.straddling_lanes == 1 { "es" } else { "" }
        ));
    }
    let list = runs(&a.sector_runs, MOST_RUNS);
    steps.push(match a.sector_runs.as_slice() {
        [one] if one.first == one.last => format!("lanes share sector {}", one.first),
        [_] => format!("lanes span sectors {list}"),
        _ => format!("lanes touch sectors {list}"),
    });
    steps.push(format!("N_tx = {}", t.sectors));
    steps.push(format!(
        "transferred = {} × {s} B = {} B; requested = {} lane{} × {} B = {} B",
        t.sectors,
        t.transferred_bytes,
        t.active_lanes,
        plural(u64::from(t.active_lanes)),
        a.elem,
        t.requested_bytes
    ));
    steps.push(format!(
        "{} / {} = {}",
        t.requested_bytes,
        t.transferred_bytes,
        percent(t.efficiency())
    ));
    if t.is_broadcast() {
        steps.push(format!(
            "distinct bytes = {} → {} / {} = {} distinct efficiency",
            t.distinct_bytes,
            t.distinct_bytes,
            t.transferred_bytes,
            percent(t.distinct_efficiency())
        ));
    }
    steps.push(format!(
        "line(t) = ⌊A(t)/{}⌋ → {} line{}",
        a.line_bytes,
        t.lines,
        plural(t.lines)
    ));
    steps
}

fn address_step(a: &Analysis) -> String {
    match &a.formula {
        Formula::Explicit => "A(t) from the address list (addrs)".to_string(),
        Formula::Indexed { base, idx, idx_is_lane } => {
            let atom = idx.chars().all(|c| c.is_ascii_alphanumeric());
            let scaled = if *idx_is_lane {
                format!("{}·t", a.elem)
            } else if atom {
                format!("{}·{idx}", a.elem)
            } else {
                format!("{}·({idx})", a.elem)
            };
            if *base == 0 {
                format!("A(t) = {scaled}")
            } else {
                format!("A(t) = {base} + {scaled}")
            }
        }
    }
}

/// The shared-memory steps: words, banks, groups, each group's busiest bank, the sum.
///
/// ```
/// use coalescing_lab::model::{derivation::derive, inputs::Inputs, sectors::analyze};
/// let column = Inputs { space: "shared".into(), idx: "32*t".into(), ..Inputs::default() };
/// let steps = derive(&analyze(&column).unwrap());
/// assert_eq!(steps[1], "word(t) = ⌊A(t)/4⌋, bank(t) = word(t) mod 32");
/// assert!(steps.contains(&"lanes 0–31: bank 0 delivers 32 distinct words → 32 wavefronts".to_string()));
/// assert_eq!(steps.last().unwrap(), "bank conflicts = 32 − 1 = 31");
/// ```
fn shared_steps(a: &Analysis, b: &BankReport, steps: &mut Vec<String>) {
    let t = b.totals;
    if a.totals.active_lanes == 0 {
        steps.push("no lane is active → 0 wavefronts, no bank conflict".to_string());
        return;
    }
    steps.push(format!(
        "word(t) = ⌊A(t)/{WORD_BYTES}⌋, bank(t) = word(t) mod {BANKS}"
    ));
    if a.elem > WORD_BYTES || a.totals.misaligned_lanes > 0 {
        steps.push(format!(
            "a lane's {} B may cover several words; it needs each of them",
            a.elem
        ));
    }
    let active: Vec<_> = b.groups.iter().filter(|g| g.active > 0).collect();
    steps.push(format!(
        "{} B accesses are served in groups of {} lanes: {} group{} with an active lane",
        a.elem,
        b.group_lanes,
        active.len(),
        plural(active.len() as u64)
    ));
    for g in active.iter().take(MOST_GROUPS) {
        let (first, last) = g.lanes;
        steps.push(match g.busiest() {
            Some((bank, words)) if words > 1 => format!(
                "lanes {first}–{last}: bank {bank} delivers {words} distinct words → {words} wavefronts"
            ),
            _ => format!(
                "lanes {first}–{last}: no bank delivers two distinct words → 1 wavefront"
            ),
        });
    }
    if active.len() > MOST_GROUPS {
        steps.push(format!("… {} more groups", active.len() - MOST_GROUPS));
    }
    let each: Vec<String> = active.iter().map(|g| g.wavefronts.to_string()).collect();
    steps.push(if each.len() > 1 {
        format!(
            "wavefronts = {} = {}; ideal = {} (one per group)",
            each.join(" + "),
            t.wavefronts,
            t.ideal
        )
    } else {
        format!(
            "wavefronts = {}; ideal = {} (one per group)",
            t.wavefronts, t.ideal
        )
    });
    steps.push(format!(
        "bank conflicts = {} − {} = {}",
        t.wavefronts,
        t.ideal,
        t.conflicts()
    ));
}
