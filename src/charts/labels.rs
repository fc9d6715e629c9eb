//! Where a chart's labels go so that none covers another: boxes in backend pixels (y grows
//! downward), and the places around a dot tried in order for its name. Pure geometry: it knows
//! nothing of plotters, fonts or which chart asks; a text's box is its estimated width and
//! height.

/// A box in backend pixels: left, top, right, bottom.
pub type Rect = [f64; 4];

/// The area two boxes share; 0 when they are apart or only touch.
///
/// ```
/// use coalescing_lab::charts::labels::overlap;
/// assert_eq!(overlap(&[0.0, 0.0, 10.0, 10.0], &[5.0, 5.0, 20.0, 20.0]), 25.0);
/// // Degenerate input: boxes that share an edge share no area.
/// assert_eq!(overlap(&[0.0, 0.0, 10.0, 10.0], &[10.0, 0.0, 20.0, 10.0]), 0.0);
/// ```
pub fn overlap(a: &Rect, b: &Rect) -> f64 {
    let across = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let down = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    across * down
}

/// How far, in name heights, a name may move up or down from its dot's corners before the
/// least-covering place is taken instead.
const RINGS: usize = 4;

/// A name box for each dot at `dots`, of `sizes` (width, height) in the same order, placed
/// `off` pixels from its dot: up-right, else down-right, up-left, down-left, right, left (in
/// that order), then the four corners again one, two and three name heights further up or
/// down. Each name takes the first place that is inside `inside` and covers none of `taken`
/// (the ceilings' labels), no name placed before it, and no other dot (a square of `radius`
/// around it); when no place is clear, the one that covers them least. Boxes start on whole
/// pixels, so a text drawn at a box's integer corner stays in it.
///
/// ```
/// use coalescing_lab::charts::labels::{overlap, place_names};
/// let inside = [0.0, 0.0, 400.0, 300.0];
/// // Two dots 3 px apart: the second name goes down-right, not over the first.
/// let names = place_names(&[(100.0, 100.0), (103.0, 101.0)], &[(20.0, 12.0); 2], 7.0, 5.0, &[], inside);
/// assert_eq!(names[0], [107.0, 81.0, 127.0, 93.0]);
/// assert_eq!(overlap(&names[0], &names[1]), 0.0);
/// // A ceiling label over the up-right corner: the name goes down-right.
/// let taken = [[100.0, 70.0, 200.0, 95.0]];
/// assert_eq!(place_names(&[(100.0, 100.0)], &[(20.0, 12.0)], 7.0, 5.0, &taken, inside),
///            [[107.0, 107.0, 127.0, 119.0]]);
/// // Degenerate input: no dots, no names.
/// assert!(place_names(&[], &[], 7.0, 5.0, &taken, inside).is_empty());
/// ```
pub fn place_names(
    dots: &[(f64, f64)],
    sizes: &[(f64, f64)],
    off: f64,
    radius: f64,
    taken: &[Rect],
    inside: Rect,
) -> Vec<Rect> {
    let dot_box = |&(x, y): &(f64, f64)| [x - radius, y - radius, x + radius, y + radius];
    let mut placed: Vec<Rect> = Vec::with_capacity(dots.len());
    for (i, (&(x, y), &(w, h))) in dots.iter().zip(sizes).enumerate() {
        let others: Vec<Rect> = dots
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, d)| dot_box(d))
            .collect();
        let cost = |b: &Rect| {
            let outside =
                b[0] < inside[0] || b[1] < inside[1] || b[2] > inside[2] || b[3] > inside[3];
            let covered: f64 = taken
                .iter()
                .chain(&placed)
                .chain(&others)
                .map(|o| overlap(b, o))
                .sum();
            covered + if outside { w * h } else { 0.0 }
        };
        let candidates = candidates((x, y), (w, h), off);
        let best = candidates
            .iter()
            .find(|b| cost(b) == 0.0)
            .or_else(|| candidates.iter().min_by(|a, b| cost(a).total_cmp(&cost(b))))
            .copied()
            .unwrap_or([x + off, y - off - h, x + off + w, y - off]);
        placed.push(best);
    }
    placed
}

/// The places for a `size` name around the dot at `(x, y)`, in the order [`place_names`]
/// tries them, each starting on a whole pixel.
fn candidates((x, y): (f64, f64), (w, h): (f64, f64), off: f64) -> Vec<Rect> {
    let boxed = |left: f64, top: f64| {
        let (left, top) = (left.round(), top.round());
        [left, top, left + w, top + h]
    };
    let (right, left) = (x + off, x - off - w);
    let (up, down) = (y - off - h, y + off);
    let mut all = vec![
        boxed(right, up),
        boxed(right, down),
        boxed(left, up),
        boxed(left, down),
        boxed(right, y - h / 2.0),
        boxed(left, y - h / 2.0),
    ];
    for ring in 1..RINGS {
        let e = h * ring as f64;
        all.extend([
            boxed(right, up - e),
            boxed(right, down + e),
            boxed(left, up - e),
            boxed(left, down + e),
        ]);
    }
    all
}
