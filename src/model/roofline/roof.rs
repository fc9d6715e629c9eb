//! One roof: a bandwidth diagonal P = I × B under a flat compute ceiling, with the bound, the
//! attainable performance and the ridge decided exactly. The course's lab is one roof (its B
//! under the synthetic 1000 GFLOP/s); machine mode reads each point against the roof of its
//! two ceilings. Knows nothing of inputs, charts or the browser.

use super::super::exact::Exact;
use super::PEAK_GFLOPS;

/// Which roof limits a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// I × B < peak: the bandwidth diagonal.
    Memory,
    /// I × B ≥ peak: the flat compute roof. At the ridge both roofs meet; it counts here.
    Compute,
}

impl Bound {
    /// `data-value` of the `bound` result.
    pub fn value(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }

    /// For people.
    pub fn text(self) -> &'static str {
        match self {
            Bound::Memory => "memory-bound",
            Bound::Compute => "compute-bound",
        }
    }
}

/// A bandwidth B (GB/s) under a compute ceiling (GFLOP/s): P = min(peak, I × B).
///
/// Both are numbers as [`Exact::read`] gives them (at most 15 digits in lowest terms, B above
/// zero), so every product below is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roof {
    /// Bandwidth B, GB/s.
    pub bw_gbps: Exact,
    /// The compute ceiling, GFLOP/s.
    pub peak_gflops: Exact,
}

impl Roof {
    /// The course's roof for bandwidth `bw_gbps`: the synthetic [`PEAK_GFLOPS`] ceiling.
    ///
    /// ```
    /// use coalescing_lab::model::{exact::Exact, roofline::Roof};
    /// let roof = Roof::course(Exact::parse("80").unwrap());
    /// assert_eq!(roof.peak_gflops.to_string(), "1000");
    /// assert_eq!(roof.ridge().to_string(), "12.5");
    /// ```
    pub fn course(bw_gbps: Exact) -> Roof {
        Roof {
            bw_gbps,
            peak_gflops: Exact::new(u128::from(PEAK_GFLOPS), 1),
        }
    }

    /// Memory-bound while I × B < peak, compute-bound at or beyond the ridge; exact.
    ///
    /// ```
    /// use coalescing_lab::model::{exact::Exact, roofline::{Bound, Roof}};
    /// let n = |s| Exact::parse(s).unwrap();
    /// let roof = Roof { bw_gbps: n("3"), peak_gflops: n("1") };
    /// // One typed digit below the ridge 1/3, although floats cannot tell.
    /// assert_eq!(roof.bound(n("0.33333333333333")), Bound::Memory);
    /// assert_eq!(roof.bound(n("1/3")), Bound::Compute);
    /// // Degenerate input: no intensity at all is memory-bound, at nothing.
    /// assert_eq!(roof.bound(Exact::ZERO), Bound::Memory);
    /// ```
    pub fn bound(&self, oi: Exact) -> Bound {
        if oi.times(self.bw_gbps) < self.peak_gflops {
            Bound::Memory
        } else {
            Bound::Compute
        }
    }

    /// P = min(peak, I × B), GFLOP/s, exactly.
    ///
    /// ```
    /// use coalescing_lab::model::{exact::Exact, roofline::Roof};
    /// let roof = Roof::course(Exact::parse("80").unwrap());
    /// assert_eq!(roof.attainable(Exact::parse("2").unwrap()).to_string(), "160");
    /// assert_eq!(roof.attainable(Exact::parse("1024").unwrap()).to_string(), "1000");
    /// ```
    pub fn attainable(&self, oi: Exact) -> Exact {
        match self.bound(oi) {
            Bound::Memory => oi.times(self.bw_gbps),
            Bound::Compute => self.peak_gflops,
        }
    }

    /// The ridge peak ÷ B, FLOP/byte, exactly: the intensity where the roofs meet.
    ///
    /// ```
    /// use coalescing_lab::model::{exact::Exact, roofline::Roof};
    /// let n = |s| Exact::parse(s).unwrap();
    /// // FP32 19500 GFLOP/s over DRAM 1555 GB/s.
    /// assert_eq!(Roof { bw_gbps: n("1555"), peak_gflops: n("19500") }.ridge().to_string(), "3900/311");
    /// ```
    pub fn ridge(&self) -> Exact {
        let (pn, pd) = self.peak_gflops.parts();
        let (bn, bd) = self.bw_gbps.parts();
        // Both in lowest terms below 10^15 (Exact::read), so the products fit in 128 bits.
        Exact::new(pn * bd, pd * bn.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    /// The course lab's decisions as they were before [`Roof`]: one 128-bit cross-product
    /// against 1000/1, and the ridge as a float.
    mod course_before {
        use super::*;

        fn cmp_ratio(x: Exact, numerator: u128, denominator: u128) -> Ordering {
            let (n, d) = x.parts();
            (n * denominator).cmp(&(numerator * d))
        }

        pub fn bound(oi: Exact, bw: Exact) -> Bound {
            match cmp_ratio(oi.times(bw), u128::from(PEAK_GFLOPS), 1) {
                Ordering::Less => Bound::Memory,
                _ => Bound::Compute,
            }
        }

        pub fn attainable(oi: Exact, bw: Exact) -> Exact {
            match bound(oi, bw) {
                Bound::Compute => Exact::new(u128::from(PEAK_GFLOPS), 1),
                Bound::Memory => oi.times(bw),
            }
        }

        pub fn ridge(bw: Exact) -> f64 {
            let (numerator, denominator) = bw.parts();
            Exact::new(u128::from(PEAK_GFLOPS) * denominator, numerator.max(1)).value()
        }
    }

    /// Machine mode's decision as it was: a × b against c multiplied out in 256 bits.
    mod machine_before {
        use super::*;

        use crate::model::exact::wide_mul;

        fn cmp_product(a: Exact, b: Exact, c: Exact) -> Ordering {
            let ((an, ad), (bn, bd), (cn, cd)) = (a.parts(), b.parts(), c.parts());
            wide_mul(an * bn, cd).cmp(&wide_mul(cn, ad * bd))
        }

        pub fn bound(oi: Exact, bw: Exact, peak: Exact) -> Bound {
            match cmp_product(oi, bw, peak) {
                Ordering::Less => Bound::Memory,
                _ => Bound::Compute,
            }
        }

        pub fn roof(oi: Exact, bw: Exact, peak: Exact) -> Exact {
            match bound(oi, bw, peak) {
                Bound::Memory => oi.times(bw),
                Bound::Compute => peak,
            }
        }
    }

    /// A number as typed: `numerator/denominator`, read as the page reads it.
    fn typed(numerator: u64, denominator: u64) -> Exact {
        Exact::parse(&format!("{numerator}/{denominator}")).unwrap_or(Exact::ONE)
    }

    fn n(text: &str) -> Exact {
        Exact::parse(text).unwrap_or(Exact::ZERO)
    }

    #[test]
    fn the_course_ridge_is_peak_over_bandwidth_exactly() {
        // Table: B (GB/s), ridge (FLOP/byte), as the course states them.
        for (bw, ridge) in [
            ("80", "12.5"),
            ("100", "10"),
            ("1", "1000"),
            ("100000", "0.01"),
        ] {
            let roof = Roof::course(n(bw));
            assert_eq!(roof.ridge(), n(ridge), "{bw}");
            assert_eq!(roof.bound(n(ridge)), Bound::Compute, "at the ridge, {bw}");
            assert_eq!(roof.attainable(n(ridge)), n("1000"), "{bw}");
        }
        // 1000/3 GB/s: a ridge no decimal can write.
        assert_eq!(Roof::course(n("1000/3")).ridge().to_string(), "3");
        assert_eq!(Roof::course(n("7")).ridge().to_string(), "1000/7");
    }

    #[test]
    fn just_below_the_ridge_is_memory_bound() {
        let roof = Roof::course(n("3"));
        assert_eq!(roof.ridge().to_string(), "1000/3");
        assert_eq!(roof.bound(n("333.333333333333")), Bound::Memory);
        assert_eq!(roof.bound(n("1000/3")), Bound::Compute);
    }

    proptest! {
        /// The course lab: bound, attainable P and ridge as the lab decided them before.
        #[test]
        fn the_course_roof_decides_as_the_lab_did(
            oi_n in 1u64..=1_048_576, oi_d in 1u64..=65_536,
            bw_n in 1u64..=100_000, bw_d in 1u64..=1000,
        ) {
            let (oi, bw) = (typed(oi_n, oi_d), typed(bw_n, bw_d));
            let roof = Roof::course(bw);
            prop_assert_eq!(roof.bound(oi), course_before::bound(oi, bw));
            prop_assert_eq!(roof.attainable(oi), course_before::attainable(oi, bw));
            prop_assert_eq!(roof.ridge().value(), course_before::ridge(bw));
        }

        /// Machine mode: bound and roof as the 256-bit comparison decided them, at any scale.
        #[test]
        fn a_machine_roof_decides_as_machine_mode_did(
            oi_n in 1u64..=999_999_999_999_999, oi_d in 1u64..=999_999_999_999_999,
            bw_n in 1u64..=999_999_999_999_999, bw_d in 1u64..=999_999_999_999_999,
            peak_n in 1u64..=999_999_999_999_999, peak_d in 1u64..=999_999_999_999_999,
        ) {
            let (oi, bw, peak) = (typed(oi_n, oi_d), typed(bw_n, bw_d), typed(peak_n, peak_d));
            let roof = Roof { bw_gbps: bw, peak_gflops: peak };
            prop_assert_eq!(roof.bound(oi), machine_before::bound(oi, bw, peak));
            prop_assert_eq!(roof.attainable(oi), machine_before::roof(oi, bw, peak));
        }

        /// The ridge is exact: ridge × B is the peak, the ridge itself is compute-bound, and
        /// the roof never stands above either ceiling.
        #[test]
        fn the_ridge_is_where_the_ceilings_meet(
            bw_n in 1u64..=10_000_000, bw_d in 1u64..=1000,
            peak_n in 1u64..=100_000_000, peak_d in 1u64..=1000,
            oi_n in 1u64..=1_048_576, oi_d in 1u64..=4096,
        ) {
            let roof = Roof { bw_gbps: typed(bw_n, bw_d), peak_gflops: typed(peak_n, peak_d) };
            let ridge = roof.ridge();
            prop_assert_eq!(ridge.times(roof.bw_gbps), roof.peak_gflops);
            prop_assert_eq!(roof.bound(ridge), Bound::Compute);
            prop_assert_eq!(roof.attainable(ridge), roof.peak_gflops);
            let oi = typed(oi_n, oi_d);
            let p = roof.attainable(oi);
            prop_assert!(p <= roof.peak_gflops && p <= oi.times(roof.bw_gbps));
            prop_assert_eq!(roof.bound(oi) == Bound::Memory, oi < ridge);
        }
    }
}
