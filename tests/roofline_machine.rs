//! The Roofline lab's machine mode: each point's roof against default and named ceilings, the
//! ridges between every bandwidth and every peak, exact decisions at the ridges, presets and
//! their overrides, the permalink parameters and their bad-value notices, and the hand-offs.

use coalescing_lab::model::exact::Exact;
use coalescing_lab::model::permalink::{decode, encode, warnings};
use coalescing_lab::model::roofline::{
    ceiling_rows, kernel_points, on_roof, point_rows, ridge_between, ridge_rows, Bound, GpuPreset,
    MachineField, MachineInputs, GPU_PRESETS,
};
use proptest::prelude::*;

fn machine(bw: &[&str], peak: &[&str], points: &[&str]) -> MachineInputs {
    let mut m = MachineInputs { custom: true, ..MachineInputs::default() };
    for (slot, text) in m.bw.iter_mut().zip(bw) {
        *slot = text.to_string();
    }
    for (slot, text) in m.peak.iter_mut().zip(peak) {
        *slot = text.to_string();
    }
    for (slot, text) in m.points.iter_mut().zip(points) {
        *slot = text.to_string();
    }
    m
}

const HIERARCHY: [&str; 3] = ["L1:20000", "L2:5000", "DRAM:1000"];
const PEAKS: [&str; 3] = ["FP64:5000", "FP32:10000", "Tensor:100000"];

#[test]
fn a_point_reads_the_lowest_bandwidth_and_the_highest_peak_by_default() {
    let m = machine(&HIERARCHY, &PEAKS, &["k:2:1500"]).check();
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let p = &m.points[0];
    assert_eq!(
        (p.bw.name.as_str(), p.peak.name.as_str()),
        ("DRAM", "Tensor")
    );
    assert_eq!(p.roof(), Exact::parse("2000").unwrap());
    assert_eq!((p.bound(), p.bound_by()), (Bound::Memory, "DRAM"));
    assert_eq!(p.fraction(), 0.75);
    assert_eq!(p.ridge().to_string(), "100");
}

#[test]
fn named_ceilings_give_each_level_its_own_roof() {
    // Table: point, its roof, what binds it.
    let rows = [
        ("a:2:100:L2", "10000", "L2"),
        ("b:2:100:L1:FP32", "10000", "FP32"),
        ("c:0.1:100:L1:FP64", "2000", "L1"),
        ("d:10:100:DRAM:FP64", "5000", "FP64"),
        ("e:1/3:100:DRAM:FP32", "1000/3", "DRAM"),
    ];
    let m = machine(&HIERARCHY, &PEAKS, &rows.map(|r| r.0)).check();
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    for (point, (text, roof, by)) in m.points.iter().zip(rows) {
        assert_eq!(
            (point.roof().to_string().as_str(), point.bound_by()),
            (roof, by),
            "{text}"
        );
    }
}

#[test]
fn at_every_ridge_the_point_is_compute_bound_exactly() {
    let m = machine(&HIERARCHY, &PEAKS, &[]).check();
    for bw in &m.bandwidths {
        for peak in &m.peaks {
            let ridge = ridge_between(bw, peak);
            let at = format!("x:{ridge}:1:{}:{}", bw.name, peak.name);
            let checked = machine(&HIERARCHY, &PEAKS, &[&at]).check();
            let p = &checked.points[0];
            assert_eq!(p.bound(), Bound::Compute, "{at}");
            assert_eq!(p.roof(), peak.value, "{at}");
            assert_eq!(p.bound_by(), peak.name, "{at}");
        }
    }
    // One typed digit below the ridge is memory-bound, although floats cannot tell.
    let below = machine(&["B:3"], &["P:1"], &["x:0.33333333333333:1"]).check();
    assert_eq!(below.points[0].bound(), Bound::Memory);
    let at = machine(&["B:3"], &["P:1"], &["x:1/3:1"]).check();
    assert_eq!(at.points[0].bound(), Bound::Compute);
}

#[test]
fn ridges_pair_every_bandwidth_with_every_peak() {
    let rows = ridge_rows(&machine(&HIERARCHY, &PEAKS, &[]).check());
    assert_eq!(rows.len(), 9);
    assert_eq!(rows[0], ("L1".into(), "FP64".into(), "0.25".into()));
    assert_eq!(rows[8], ("DRAM".into(), "Tensor".into(), "100".into()));
}

#[test]
fn each_preset_has_dram_three_peaks_and_a_source() {
    for preset in GPU_PRESETS {
        let m = MachineInputs::from_preset(preset.id).check();
        assert!(m.errors.is_empty(), "{}: {:?}", preset.id, m.errors);
        assert_eq!(m.bandwidths[0].name, "DRAM", "{}", preset.id);
        let names: Vec<&str> = m.peaks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names[..2], ["FP64", "FP32"], "{}", preset.id);
        assert!(preset.source.contains("https://"), "{}", preset.id);
    }
    let a100 = ceiling_rows(&MachineInputs::from_preset("A100").check());
    let values: Vec<&str> = a100.iter().map(|r| r.value.as_str()).collect();
    assert_eq!(values, ["1555", "9700", "19500", "312000"]);
}

#[test]
fn explicit_values_override_the_preset_and_say_so() {
    let state = decode("?tab=roofline&machine=H100&peak.1=FP64:30000&bw.2=L2:12000");
    assert!(state.roofs.custom);
    let m = state.roofs.check();
    assert_eq!(m.overrides, ["bw.2", "peak.1"]);
    assert_eq!(m.peaks[0].value, Exact::parse("30000").unwrap());
    assert_eq!(m.bandwidths.len(), 2);
    assert_eq!(
        encode(&state),
        "v=1&tab=roofline&roofs=custom&machine=H100&bw.2=L2:12000&peak.1=FP64:30000"
    );
}

#[test]
fn every_machine_link_survives_encode_and_decode() {
    for query in [
        "roofs=custom",
        "machine=a100&pt.3=k:1:10",
        "machine=V100&bw.1=&pt.1=k:1/3:10:DRAM:FP32",
        "roofs=custom&bw.6=x:1&peak.6=y:2&pt.12=z:1:1",
        "machine=B200",
        "roofs=course&machine=A100",
    ] {
        let state = decode(query);
        assert_eq!(decode(&encode(&state)), state, "{query}");
    }
    assert_eq!(
        decode("roofs=course&machine=A100").roofs,
        MachineInputs::default()
    );
    // The course's links keep their meaning: `bw` alone is still the lab's bandwidth.
    let course = decode("?tab=roofline&oi=2&bw=80");
    assert!(!course.roofs.custom);
    assert_eq!(course.lab.bw, "80");
}

#[test]
fn bad_values_get_a_notice_naming_the_field_and_the_default_used() {
    assert_eq!(
        warnings("?machine=B200&bw.1=DRAM&peak.1=FP32:-1&pt.1=k:1:10:L9&pt.2=k:0:1&roofs=maybe"),
        ["`roofs=maybe` is not course or custom; using the course's fixed roof.",]
    );
    let lines =
        warnings("?machine=B200&bw.1=DRAM&peak.1=FP32:-1&peak.2=F:9&pt.1=k:1:10:L9&pt.2=k:0:1");
    assert_eq!(
        lines,
        [
            "`machine=B200` 'B200' is not a GPU preset (V100, A100, H100, RTX4090, MI250X); using none.",
            "`bw.1=DRAM` 'DRAM' is not NAME:GBps; write NAME:GBps (a name of 1 to 24 characters, a value from 1/1000 to 10000000 GB/s), such as DRAM:1555; left out.",
            "`peak.1=FP32:-1` has a value '-1' that is negative; write NAME:GFLOPs (a name of 1 to 24 characters, a value from 1/1000 to 100000000 GFLOP/s), such as FP32:19500; left out.",
            "`pt.1=k:1:10:L9` needs at least one bandwidth ceiling (bw.1) and one compute ceiling (peak.1), or a machine preset; left out.",
            "`pt.2=k:0:1` has an intensity '0' outside 1/4096 to 1048576 FLOP/byte; write NAME:I:P[:BW[:PEAK]] (I in FLOP/byte, P in GFLOP/s, BW and PEAK naming ceilings), such as saxpy:0.25:90; left out.",
        ]
    );
    let lines = warnings("?machine=A100&pt.1=k:1:10:L9:FP8&bw.2=DRAM:5");
    assert_eq!(
        lines,
        [
            "`bw.2=DRAM:5` repeats the name 'DRAM' of bw.1; name each ceiling once; left out.",
            "`pt.1=k:1:10:L9:FP8` names the bandwidth ceiling 'L9', which is not defined (DRAM); using DRAM.",
            "`pt.1=k:1:10:L9:FP8` names the compute ceiling 'FP8', which is not defined (FP64, FP32, Tensor); using Tensor.",
        ]
    );
    // The point with a bad ceiling name is still placed, against the defaults.
    let m = decode("?machine=A100&pt.1=k:1:10:L9").roofs.check();
    assert_eq!(m.points[0].bound_by(), "DRAM");
    assert!(warnings("?roofs=custom&machine=A100&pt.1=k:1:10").is_empty());
}

#[test]
fn limits_are_six_ceilings_of_each_kind_and_twelve_points() {
    assert_eq!(MachineField::from_param("bw.6"), Some(MachineField::Bw(6)));
    assert_eq!(MachineField::from_param("peak.7"), None);
    assert_eq!(MachineField::from_param("pt.13"), None);
    assert_eq!(
        warnings("?roofs=custom&pt.13=k:1:1"),
        ["`pt.13` is not a Coalescing Lab parameter; it was ignored."]
    );
}

#[test]
fn the_kernel_hand_off_shows_what_coalescing_does_to_intensity() {
    let m = MachineInputs::from_preset("A100");
    // 2 FLOPs per 8 bytes at DRAM; four times the bytes at request level (a stride of 4).
    let flops = Exact::parse("1048576").unwrap();
    let added = kernel_points(&m, "strided", flops, 4_194_304, 16_777_216).unwrap();
    let rows = point_rows(&added.check());
    let pairs: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.oi.as_str(), r.attainable.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("strided DRAM", "0.25", "388.75"),
            ("strided requests", "0.0625", "97.1875")
        ]
    );
    assert_eq!(
        on_roof(&MachineInputs::default(), "k", Exact::parse("1")).map_err(|e| e.to_string()),
        Err("needs at least one bandwidth ceiling (bw.1) and one compute ceiling (peak.1), or a machine preset".into())
    );
}

#[test]
fn the_probe_adds_its_bandwidth_named_after_the_adapter() {
    let mut m = MachineInputs::from_preset("RTX4090");
    assert_eq!(m.add_bandwidth("SwiftShader (software)", "2.5"), Ok(2));
    // Again: the same name is replaced, not repeated.
    assert_eq!(m.add_bandwidth("SwiftShader (software)", "3"), Ok(2));
    let c = m.check();
    assert_eq!(c.bandwidths[1].value, Exact::parse("3").unwrap());
    assert_eq!(
        c.default_bw().map(|b| b.name.as_str()),
        Some("SwiftShader (software)")
    );
    assert_eq!(GpuPreset::by_id("rtx4090").map(|p| p.id), Some("RTX4090"));
}

proptest! {
    /// The exact decision against a float oracle far from the ridge, and the roof never
    /// above either ceiling.
    #[test]
    fn the_roof_is_the_lower_of_the_two_ceilings(
        oi_n in 1u32..100_000, oi_d in 1u32..1000,
        bw in 1u32..100_000, peak in 1u32..10_000_000,
    ) {
        let text = format!("p:{oi_n}/{oi_d}:1");
        let m = machine(&[&format!("B:{bw}")], &[&format!("P:{peak}")], &[&text]).check();
        let Some(p) = m.points.first() else {
            // Outside the intensity range: refused, never panicking.
            prop_assert!(!m.errors.is_empty());
            return Ok(());
        };
        let product = f64::from(oi_n) / f64::from(oi_d) * f64::from(bw);
        let roof = p.roof().value();
        prop_assert!(roof <= f64::from(peak) * (1.0 + 1e-12));
        prop_assert!(roof <= product * (1.0 + 1e-12));
        if (product - f64::from(peak)).abs() > 1e-6 * f64::from(peak) {
            let expected = if product < f64::from(peak) { Bound::Memory } else { Bound::Compute };
            prop_assert_eq!(p.bound(), expected);
        }
        // Exactly at the ridge: compute-bound.
        let ridge = ridge_between(&m.bandwidths[0], &m.peaks[0]);
        let at = machine(&[&format!("B:{bw}")], &[&format!("P:{peak}")], &[&format!("r:{ridge}:1")]).check();
        if let Some(p) = at.points.first() {
            prop_assert_eq!(p.bound(), Bound::Compute);
        }
    }
}

proptest! {
    /// The fuzz target's property, on the machine mode's parameters: whatever a link says,
    /// the decoded state survives encode → decode unchanged, and warnings never panic.
    #[test]
    fn any_machine_link_round_trips(
        pairs in proptest::collection::vec(
            (
                prop::sample::select(vec![
                    "roofs", "machine", "bw.1", "bw.2", "bw.6", "peak.1", "peak.3", "pt.1", "pt.12", "bw",
                ]),
                "[A-Za-z0-9:./ ,%+-]{0,14}",
            ),
            0..8,
        )
    ) {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let query = query.join("&");
        let state = decode(&query);
        prop_assert_eq!(decode(&encode(&state)), state.clone());
        let _ = warnings(&query);
        let _ = state.roofs.check();
    }
}
