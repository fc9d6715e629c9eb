//! The address ramp: each active lane's address against its lane id, and the regime its
//! slope puts the access in (broadcast, coalesced, partial waste, one sector per lane, mixed).

use super::sectors::Analysis;
use std::fmt;

/// What the slope of the address ramp says about the access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    /// Fewer than two active lanes: no slope to read.
    Single,
    /// Flat: every lane reads the same address.
    Broadcast,
    /// Slope = ±elem: consecutive lanes read consecutive elements.
    Coalesced {
        /// Bytes of address per lane id, ±elem.
        stride: i128,
    },
    /// 0 < |slope| < elem: neighbouring lanes share bytes.
    Overlapping {
        /// Bytes of address per lane id, nonzero and smaller in size than elem.
        stride: i128,
    },
    /// elem < |slope| < one sector: sectors carry bytes nobody asked for.
    PartialWaste {
        /// Bytes of address per lane id, between elem and one sector in size.
        stride: i128,
    },
    /// |slope| ≥ one sector: every lane pays for a sector of its own.
    SectorPerLane {
        /// Bytes of address per lane id, at least one sector in size.
        stride: i128,
    },
    /// No single slope.
    Mixed,
}

impl Regime {
    /// The regime's name, as the course says it.
    pub fn name(self) -> &'static str {
        match self {
            Regime::Single => "single lane",
            Regime::Broadcast => "broadcast",
            Regime::Coalesced { .. } => "coalesced",
            Regime::Overlapping { .. } => "overlapping",
            Regime::PartialWaste { .. } => "partial waste",
            Regime::SectorPerLane { .. } => "one sector per lane",
            Regime::Mixed => "mixed",
        }
    }
}

impl fmt::Display for Regime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match *self {
            Regime::Single => write!(f, "{name}: fewer than two active lanes, so no slope"),
            Regime::Broadcast => write!(f, "{name}: flat, every lane reads the same address"),
            Regime::Coalesced { stride } => write!(
                f,
                "{name}: slope {stride} B per lane, one element, so lanes fill sectors back to back"
            ),
            Regime::Overlapping { stride } => write!(
                f,
                "{name}: slope {stride} B per lane, less than one element, so lanes share bytes"
            ),
            Regime::PartialWaste { stride } => write!(
                f,
                "{name}: slope {stride} B per lane, more than one element but less than a sector, so sectors carry unused bytes"
            ),
            Regime::SectorPerLane { stride } => write!(
                f,
                "{name}: slope {stride} B per lane, at least a sector, so every lane moves a sector of its own"
            ),
            Regime::Mixed => write!(f, "{name}: no single slope"),
        }
    }
}

/// Reads the regime off the active lanes' addresses, in lane order. The slope is the change
/// of address per lane id, so masked-out lanes in between do not break a constant stride.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, ramp::{regime, Regime}, sectors::analyze};
/// let ramp = |idx: &str| regime(&analyze(&Inputs { idx: idx.into(), ..Inputs::default() }).unwrap());
/// assert_eq!(ramp("t"), Regime::Coalesced { stride: 4 });
/// assert_eq!(ramp("31-t"), Regime::Coalesced { stride: -4 });
/// assert_eq!(ramp("0"), Regime::Broadcast);
/// assert_eq!(ramp("2*t"), Regime::PartialWaste { stride: 8 });
/// assert_eq!(ramp("8*t"), Regime::SectorPerLane { stride: 32 });
/// assert_eq!(ramp("t<16 ? t : 1000+64*(t-16)"), Regime::Mixed);
/// // Degenerate input: one active lane has no slope.
/// let one = Inputs { active: "t == 3".into(), ..Inputs::default() };
/// assert_eq!(regime(&analyze(&one).unwrap()), Regime::Single);
/// ```
pub fn regime(a: &Analysis) -> Regime {
    let points: Vec<(i128, i128)> = a
        .lanes
        .iter()
        .filter_map(|l| {
            l.access
                .as_ref()
                .map(|x| (i128::from(l.lane), i128::from(x.address)))
        })
        .collect();
    let [first, second, ..] = points.as_slice() else {
        return Regime::Single;
    };
    let (dt, da) = (second.0 - first.0, second.1 - first.1);
    if da % dt != 0 {
        return Regime::Mixed;
    }
    let stride = da / dt;
    let constant = points
        .iter()
        .all(|(t, address)| *address == first.1 + stride * (t - first.0));
    if !constant {
        return Regime::Mixed;
    }
    let (elem, sector) = (i128::from(a.elem), i128::from(a.sector_bytes));
    match stride.abs() {
        0 => Regime::Broadcast,
        s if s == elem => Regime::Coalesced { stride },
        s if s < elem => Regime::Overlapping { stride },
        s if s < sector => Regime::PartialWaste { stride },
        _ => Regime::SectorPerLane { stride },
    }
}
