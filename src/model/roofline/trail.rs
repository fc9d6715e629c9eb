//! The lab's trail: the points already stepped, read from their text (`I:B` or `I:B:P`, comma
//! separated). A malformed entry is named and left out; past [`MAX_TRAIL`] points the oldest go.

use super::{parse_bw, parse_oi, parse_prediction, Knob, KnobError, Point};

/// Most points a trail keeps. A longer link keeps its latest points, and a Step past the cap
/// drops the oldest, so the chart, the table and each Step's work stay small.
pub const MAX_TRAIL: usize = 64;

/// A trail read from text: the valid points, and a note for each entry left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trail {
    /// The latest valid points, oldest first, at most [`MAX_TRAIL`].
    pub points: Vec<Point>,
    /// Valid points dropped from the front to keep [`MAX_TRAIL`].
    pub dropped: usize,
    /// One error per malformed entry, naming it; those entries are left out.
    pub errors: Vec<KnobError>,
}

/// Reads a trail: `I:B` or `I:B:P` entries, comma separated; empty is no trail. A malformed
/// entry is named and left out, and the valid ones are kept.
///
/// ```
/// use coalescing_lab::model::roofline::read_trail;
/// let trail = read_trail("2:80:160,x,1:80");
/// assert_eq!(trail.points.len(), 2);
/// assert_eq!(
///     trail.errors[0].to_string(),
///     "trail: entry 2 ('x') is not I:B (intensity:bandwidth, e.g. 2:80)"
/// );
/// // Degenerate input: no trail.
/// assert_eq!(read_trail(" ").points.len(), 0);
/// ```
pub fn read_trail(text: &str) -> Trail {
    read_points(text, Knob::Trail)
}

pub(super) fn read_points(text: &str, knob: Knob) -> Trail {
    let mut trail = Trail::default();
    if text.trim().is_empty() {
        return trail;
    }
    for (i, entry) in text.split(',').enumerate() {
        match read_entry(knob, i, entry.trim()) {
            Ok(point) => trail.points.push(point),
            Err(e) => trail.errors.push(e),
        }
    }
    trail.dropped = trail.points.len().saturating_sub(MAX_TRAIL);
    trail.points.drain(..trail.dropped);
    trail
}

fn read_entry(knob: Knob, i: usize, entry: &str) -> Result<Point, KnobError> {
    let fail = |why: &str| KnobError::new(knob, format!("entry {} ('{entry}') {why}", i + 1));
    let mut parts = entry.split(':');
    let (Some(oi), Some(bw), prediction, None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(fail("is not I:B (intensity:bandwidth, e.g. 2:80)"));
    };
    Ok(Point {
        oi: parse_oi(oi).map_err(|_| fail("has an intensity outside 1/64 to 1024 FLOP/byte"))?,
        bw: parse_bw(bw).map_err(|_| fail("has a bandwidth outside 1 to 100000 GB/s"))?,
        prediction: parse_prediction(prediction.unwrap_or(""))
            .map_err(|_| fail("has a prediction that is not a number of GFLOP/s"))?,
    })
}

/// Parses a whole trail strictly: every entry must be valid.
///
/// ```
/// use coalescing_lab::model::roofline::parse_trail;
/// let trail = parse_trail("2:80:160,1:80").unwrap();
/// assert_eq!(trail.len(), 2);
/// assert_eq!(trail[0].attainable_gflops(), 160.0);
/// assert_eq!(parse_trail("").unwrap().len(), 0);
/// assert_eq!(
///     parse_trail("2:80,x").unwrap_err().to_string(),
///     "trail: entry 2 ('x') is not I:B (intensity:bandwidth, e.g. 2:80)"
/// );
/// ```
pub fn parse_trail(text: &str) -> Result<Vec<Point>, KnobError> {
    let trail = read_trail(text);
    match trail.errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(trail.points),
    }
}
