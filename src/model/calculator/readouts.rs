//! What the calculator displays, already worded: one [`Readout`] per result and one
//! [`LaneRow`] per lane, each with the text people read and the `data-value` scripts read.
//!
//! Components only lay these out, so every number on the page is testable here natively.
//!
//! Why one file of ~520 lines: every readout, lane row and lane CSV of the calculator, in
//! global and in shared memory, worded side by side so the two modes read alike.

use super::super::banks::{bank_of, BankReport};
use super::super::csv::Csv;
use super::super::format::plural;
use super::super::format::{hex, percent, ratio_value};
use super::super::span::Span;
use super::sectors::Analysis;

/// One result of the calculator.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Readout {
    /// `data-testid`, a public contract.
    pub id: &'static str,
    /// What a person reads as the heading.
    pub label: &'static str,
    /// What a person reads as the value.
    pub text: String,
    /// `data-value`: integers plainly, ratios as decimals, empty when undefined.
    pub value: String,
    /// A short line under the value saying how it was counted.
    pub detail: String,
    /// Whether this is a headline figure, drawn stronger.
    pub headline: bool,
}

impl Readout {
    /// A fraction's readout: a percentage for people, the decimal as `data-value`, both empty
    /// ("n/a") when the fraction is undefined.
    pub fn fraction(
        id: &'static str,
        label: &'static str,
        ratio: Option<super::super::ratio::Ratio>,
        detail: &str,
        headline: bool,
    ) -> Readout {
        Readout {
            id,
            label,
            text: percent(ratio),
            value: ratio_value(ratio),
            detail: detail.into(),
            headline,
        }
    }
}

/// The calculator's results in display order.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::readouts, sectors::analyze};
/// let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
/// let r = readouts(&analyze(&ex2).unwrap());
/// let eff = r.iter().find(|r| r.id == "efficiency").unwrap();
/// assert_eq!((eff.text.as_str(), eff.value.as_str()), ("80 %", "0.8"));
/// // Degenerate input: with no active lane the efficiencies are undefined, not zero.
/// let idle = Inputs { active: "0".into(), ..Inputs::default() };
/// let r = readouts(&analyze(&idle).unwrap());
/// let eff = r.iter().find(|r| r.id == "efficiency").unwrap();
/// assert_eq!((eff.text.as_str(), eff.value.as_str()), ("n/a", ""));
/// ```
pub fn readouts(a: &Analysis) -> Vec<Readout> {
    let t = &a.totals;
    let bytes = |n: u64| format!("{n} B");
    let requests = [
        Readout {
            id: "active-lanes",
            label: "Active lanes",
            text: format!("{} of {}", t.active_lanes, a.warp),
            value: t.active_lanes.to_string(),
            detail: "lanes that take part".into(),
            headline: false,
        },
        Readout {
            id: "requested-bytes",
            label: "Requested",
            text: bytes(t.requested_bytes),
            value: t.requested_bytes.to_string(),
            detail: format!("{} × {} B, repeats counted", t.active_lanes, a.elem),
            headline: false,
        },
        Readout {
            id: "distinct-bytes",
            label: "Distinct requested",
            text: bytes(t.distinct_bytes),
            value: t.distinct_bytes.to_string(),
            detail: "union of the lanes' bytes".into(),
            headline: false,
        },
    ];
    let misaligned = Readout {
        id: "misaligned-lanes",
        label: "Misaligned lanes",
        text: t.misaligned_lanes.to_string(),
        value: t.misaligned_lanes.to_string(),
        detail: format!("address not a multiple of {} B", a.elem),
        headline: false,
    };
    let Some(banks) = &a.banks else {
        return requests
            .into_iter()
            .chain(global_readouts(a))
            .chain([misaligned])
            .collect();
    };
    requests
        .into_iter()
        .chain(shared_readouts(banks))
        .chain([misaligned])
        .collect()
}

/// Shared memory's figures: wavefronts, their ideal and the bank conflicts.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::readouts, sectors::analyze};
/// let column = Inputs { space: "shared".into(), idx: "32*t".into(), ..Inputs::default() };
/// let r = readouts(&analyze(&column).unwrap());
/// let value = |id: &str| r.iter().find(|r| r.id == id).unwrap().value.clone();
/// assert_eq!((value("wavefronts"), value("ideal-wavefronts"), value("bank-conflicts")), ("32".into(), "1".into(), "31".into()));
/// assert!(r.iter().all(|r| r.id != "sectors"));
/// ```
fn shared_readouts(b: &BankReport) -> [Readout; 3] {
    let t = b.totals;
    let groups = b.groups.iter().filter(|g| g.active > 0).count() as u64;
    let busiest = match b.busiest() {
        Some((_, bank, words)) if words > 1 => {
            format!("busiest: bank {bank}, {words} distinct words ({words}-way)")
        }
        Some(_) => "no bank delivers two distinct words".to_string(),
        None => "no lane is active".to_string(),
    };
    [
        Readout {
            id: "wavefronts",
            label: "Wavefronts",
            text: t.wavefronts.to_string(),
            value: t.wavefronts.to_string(),
            detail: format!(
                "each group's busiest bank, summed; groups of {} lanes",
                b.group_lanes
            ),
            headline: true,
        },
        Readout {
            id: "ideal-wavefronts",
            label: "Ideal wavefronts",
            text: t.ideal.to_string(),
            value: t.ideal.to_string(),
            detail: format!(
                "one per group with an active lane: {groups} group{}",
                plural(groups)
            ),
            headline: false,
        },
        Readout {
            id: "bank-conflicts",
            label: "Bank conflicts",
            text: t.conflicts().to_string(),
            value: t.conflicts().to_string(),
            detail: format!("wavefronts − ideal; {busiest}"),
            headline: true,
        },
    ]
}

/// Global memory's figures: sectors, bytes moved, lines and the efficiencies.
fn global_readouts(a: &Analysis) -> [Readout; 5] {
    let t = &a.totals;
    let bytes = |n: u64| format!("{n} B");
    [
        Readout {
            id: "sectors",
            label: "Sectors N_tx",
            text: t.sectors.to_string(),
            value: t.sectors.to_string(),
            detail: format!("distinct {} B sectors", a.sector_bytes),
            headline: true,
        },
        Readout {
            id: "transferred-bytes",
            label: "Transferred",
            text: bytes(t.transferred_bytes),
            value: t.transferred_bytes.to_string(),
            detail: format!("{} × {} B", t.sectors, a.sector_bytes),
            headline: false,
        },
        Readout {
            id: "lines",
            label: "Cache lines",
            text: t.lines.to_string(),
            value: t.lines.to_string(),
            detail: format!("distinct {} B lines", a.line_bytes),
            headline: false,
        },
        Readout::fraction(
            "efficiency",
            "Efficiency",
            t.efficiency(),
            "requested ÷ transferred",
            true,
        ),
        Readout::fraction(
            "distinct-efficiency",
            "Distinct efficiency",
            t.distinct_efficiency(),
            "distinct ÷ transferred",
            false,
        ),
    ]
}

/// One row of the lane table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaneRow {
    /// Lane id, 0 to warp − 1: `data-lane`.
    pub lane: u32,
    /// Whether the lane takes part (the `active` mask and the address list): `data-active`.
    pub active: bool,
    /// Decimal address for `data-address`; empty when inactive.
    pub address: String,
    /// Hex address for people; "inactive" when inactive.
    pub address_hex: String,
    /// Requested byte range, e.g. "[8, 12)".
    pub bytes: String,
    /// Sector indices for `data-sectors`, comma separated; empty when inactive.
    pub sectors: String,
    /// Sector indices for people, e.g. "0" or "3, 4".
    pub sectors_text: String,
    /// Line indices for people.
    pub lines_text: String,
    /// Whether the address is a multiple of elem; true for inactive lanes.
    pub aligned: bool,
    /// Whether the bytes cross a sector boundary.
    pub straddles: bool,
    /// Bank numbers for `data-bank`, comma separated; empty when inactive or in global memory.
    pub banks: String,
    /// The 4-byte words for people, e.g. "32" or "2, 3"; empty in global memory.
    pub words_text: String,
    /// Whether one of the lane's banks delivers another word to its group too.
    pub conflicted: bool,
}

impl LaneRow {
    /// The row with its answer held back while a prediction is pending: the address stays,
    /// the sectors and lines read "?".
    ///
    /// ```
    /// use coalescing_lab::model::{inputs::Inputs, readouts::lane_rows, sectors::analyze};
    /// let row = lane_rows(&analyze(&Inputs::default()).unwrap())[0].clone().withheld();
    /// assert_eq!((row.address.as_str(), row.sectors.as_str(), row.sectors_text.as_str()), ("0", "", "?"));
    /// ```
    pub fn withheld(self) -> LaneRow {
        LaneRow {
            sectors: String::new(),
            sectors_text: "?".into(),
            lines_text: "?".into(),
            straddles: false,
            banks: String::new(),
            words_text: if self.words_text.is_empty() {
                String::new()
            } else {
                "?".into()
            },
            conflicted: false,
            ..self
        }
    }
}

/// Every lane of the warp, in lane order.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::lane_rows, sectors::analyze};
/// let two = Inputs { warp: "2".into(), addrs: "30, -".into(), ..Inputs::default() };
/// let rows = lane_rows(&analyze(&two).unwrap());
/// assert_eq!((rows[0].sectors.as_str(), rows[0].sectors_text.as_str()), ("0,1", "0, 1"));
/// assert_eq!((rows[1].active, rows[1].address.as_str()), (false, ""));
/// ```
pub fn lane_rows(a: &Analysis) -> Vec<LaneRow> {
    a.lanes
        .iter()
        .map(|lane| match &lane.access {
            None => LaneRow {
                lane: lane.lane,
                active: false,
                address: String::new(),
                address_hex: "inactive".into(),
                bytes: "—".into(),
                sectors: String::new(),
                sectors_text: "—".into(),
                lines_text: "—".into(),
                aligned: true,
                straddles: false,
                banks: String::new(),
                words_text: if a.banks.is_some() {
                    "—".into()
                } else {
                    String::new()
                },
                conflicted: false,
            },
            Some(access) => LaneRow {
                lane: lane.lane,
                active: true,
                address: access.address.to_string(),
                address_hex: hex(access.address),
                bytes: format!(
                    "[{}, {}) {} B",
                    access.address,
                    u128::from(access.address) + u128::from(a.elem),
                    a.elem
                ),
                sectors: indices(access.sectors, ","),
                sectors_text: indices(access.sectors, ", "),
                lines_text: indices(access.lines, ", "),
                aligned: access.aligned,
                straddles: access.sectors.len() > 1,
                banks: lane_banks(a, access, ","),
                words_text: match a.banks {
                    Some(_) => indices(a.words(access), ", "),
                    None => String::new(),
                },
                conflicted: a
                    .banks
                    .as_ref()
                    .is_some_and(|b| b.conflicted(lane.lane, a.words(access))),
            },
        })
        .collect()
}

/// The banks of a lane's words in shared memory, e.g. "0" or "31,0"; empty in global memory.
fn lane_banks(a: &Analysis, access: &super::sectors::Access, separator: &str) -> String {
    if a.banks.is_none() {
        return String::new();
    }
    let words = a.words(access);
    (words.first..=words.last)
        .map(|w| bank_of(w).to_string())
        .collect::<Vec<_>>()
        .join(separator)
}

fn indices(span: Span, separator: &str) -> String {
    (span.first..=span.last)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(separator)
}

/// One sentence for screen readers, announced politely when the results change.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::summary, sectors::analyze};
/// let a = analyze(&Inputs::default()).unwrap();
/// assert_eq!(summary(&a), "4 sectors, 128 B transferred for 128 B requested: efficiency 100 %.");
/// ```
pub fn summary(a: &Analysis) -> String {
    if let Some(b) = &a.banks {
        let t = b.totals;
        return format!(
            "{} wavefront{} for an ideal of {}: {} bank conflict{}.",
            t.wavefronts,
            plural(t.wavefronts),
            t.ideal,
            t.conflicts(),
            plural(t.conflicts())
        );
    }
    let t = &a.totals;
    format!(
        "{} sector{}, {} B transferred for {} B requested: efficiency {}.",
        t.sectors,
        plural(t.sectors),
        t.transferred_bytes,
        t.requested_bytes,
        percent(t.efficiency())
    )
}

/// The footnote a broadcast needs: why the efficiency exceeds 100 %.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::broadcast_note, sectors::analyze};
/// let ex7 = Inputs { idx: "0".into(), ..Inputs::default() };
/// assert!(broadcast_note(&analyze(&ex7).unwrap()).unwrap().contains("N_tx = 1"));
/// assert_eq!(broadcast_note(&analyze(&Inputs::default()).unwrap()), None);
/// ```
pub fn broadcast_note(a: &Analysis) -> Option<String> {
    let t = &a.totals;
    // Shared memory shows no efficiency: its broadcast is in the wavefronts' detail.
    (t.is_broadcast() && a.banks.is_none()).then(|| {
        format!(
            "Efficiency reads {} because lanes request the same bytes again (a broadcast): \
             requested bytes count each of the {} lanes' {} B, but only {} distinct bytes are useful. \
             The honest headline is N_tx = {} with {} distinct useful bytes: distinct efficiency {}.",
            percent(t.efficiency()),
            t.active_lanes,
            a.elem,
            t.distinct_bytes,
            t.sectors,
            t.distinct_bytes,
            percent(t.distinct_efficiency())
        )
    })
}

/// The warning misaligned lanes need.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::alignment_note, sectors::analyze};
/// let doubles = Inputs { elem: "8".into(), base: "4".into(), ..Inputs::default() };
/// assert!(alignment_note(&analyze(&doubles).unwrap()).unwrap().starts_with("32 lanes"));
/// assert_eq!(alignment_note(&analyze(&Inputs::default()).unwrap()), None);
/// ```
pub fn alignment_note(a: &Analysis) -> Option<String> {
    let n = a.totals.misaligned_lanes;
    (n > 0).then(|| {
        let consequence = if a.elem >= 8 {
            "CUDA requires 8- and 16-byte accesses to be naturally aligned: on a GPU such a load \
             faults or returns wrong words, so it cannot be issued as written."
        } else {
            "CUDA requires natural alignment for built-in types; a misaligned access faults on \
             a GPU, so it cannot be issued as written."
        };
        format!(
            "{n} lane{} read{} {} B at an address that is not a multiple of {} B. {consequence} \
             The counts show the bytes as written.",
            plural(u64::from(n)),
            if n == 1 { "s" } else { "" },
            a.elem,
            a.elem
        )
    })
}

/// The lane table as CSV (the one dialect of [`Csv`]: RFC 4180, CRLF), one row per lane, for course material and spreadsheets.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::lane_csv, sectors::analyze};
/// let two = Inputs { warp: "2".into(), addrs: "30, -".into(), ..Inputs::default() };
/// let csv = lane_csv(&analyze(&two).unwrap());
/// assert_eq!(
///     csv,
///     "lane,active,address,address_hex,bytes,sectors,lines\r\n\
///      0,true,30,0x1e,4,\"0,1\",0\r\n\
///      1,false,,,0,,\r\n"
/// );
/// ```
///
/// In shared memory, words and banks take the place of sectors and lines:
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::lane_csv, sectors::analyze};
/// let three = Inputs { space: "shared".into(), warp: "3".into(), addrs: "128, 0, -".into(), ..Inputs::default() };
/// assert_eq!(
///     lane_csv(&analyze(&three).unwrap()),
///     "lane,active,address,address_hex,bytes,words,banks,conflicted\r\n\
///      0,true,128,0x80,4,32,0,true\r\n\
///      1,true,0,0x0,4,0,0,true\r\n\
///      2,false,,,0,,,false\r\n"
/// );
/// ```
pub fn lane_csv(a: &Analysis) -> String {
    let shared = a.banks.is_some();
    let tail: &[&str] = if shared {
        &["words", "banks", "conflicted"]
    } else {
        &["sectors", "lines"]
    };
    let mut csv = Csv::default();
    csv.row(
        ["lane", "active", "address", "address_hex", "bytes"]
            .iter()
            .chain(tail),
    );
    for (lane, row) in a.lanes.iter().zip(lane_rows(a)) {
        let mut fields = vec![lane.lane.to_string(), lane.access.is_some().to_string()];
        match &lane.access {
            None => {
                fields.extend([String::new(), String::new(), "0".into()]);
                // An inactive lane has no words, banks, sectors or lines, and no conflict.
                fields.extend(tail.iter().map(|&column| {
                    if column == "conflicted" {
                        "false".to_string()
                    } else {
                        String::new()
                    }
                }));
            }
            Some(access) => {
                fields.extend([
                    access.address.to_string(),
                    hex(access.address),
                    a.elem.to_string(),
                ]);
                if shared {
                    fields.extend([
                        row.words_text.replace(", ", ","),
                        row.banks,
                        row.conflicted.to_string(),
                    ]);
                } else {
                    fields.extend([indices(access.sectors, ","), indices(access.lines, ",")]);
                }
            }
        }
        csv.row(fields);
    }
    csv.finish()
}
