//! Every message of the lab's and machine mode's readers, to the letter: the field it names,
//! what is wrong, and what would be accepted. They are part of the interface (STYLE §8), so a
//! change in how they are built must not change a character of them.

use coalescing_lab::model::exact::Exact;
use coalescing_lab::model::probe::*;
use coalescing_lab::model::roofline::{kernel_points, probe_contiguous_gbps, Lab, MachineInputs};

fn errors(m: &MachineInputs) -> Vec<String> {
    m.check().errors.iter().map(ToString::to_string).collect()
}

const BW_ACCEPTED: &str = "; write NAME:GBps (a name of 1 to 24 characters, a value from 1/1000 to 10000000 GB/s), such as DRAM:1555; left out";
const POINT_ACCEPTED: &str = "; write NAME:I:P[:BW[:PEAK]] (I in FLOP/byte, P in GFLOP/s, BW and PEAK naming ceilings), such as saxpy:0.25:90; left out";

#[test]
fn each_bad_ceiling_is_named_with_what_is_accepted() {
    let rows = [
        ("DRAM", "bw.1: 'DRAM' is not NAME:GBps"),
        (":5", "bw.1: has a name of 0 characters"),
        (
            "a,b:5",
            "bw.1: has a name with ',', which separates the link's entries",
        ),
        (
            "x\u{202E}y:5",
            "bw.1: has a name with the control or text-direction character U+202E",
        ),
        (
            "DRAM:abc",
            "bw.1: has a value 'abc' that is not a decimal or a fraction such as 1/8",
        ),
        (
            "DRAM:0",
            "bw.1: has a value '0' outside 1/1000 to 10000000 GB/s",
        ),
        (
            "DRAM:126000000000000000000",
            "bw.1: has a value '126000000000000000000' outside 1/1000 to 10000000 GB/s",
        ),
        (
            "DRAM:1e3",
            "bw.1: has a value '1e3' that has an exponent; write the number out (100, not 1e2)",
        ),
        ("DRAM:-1", "bw.1: has a value '-1' that is negative"),
        (
            &format!("{}:5", "n".repeat(25)),
            "bw.1: has a name of 25 characters",
        ),
    ];
    for (text, expected) in rows {
        let mut m = MachineInputs::from_preset("");
        m.bw[0] = text.to_string();
        m.peak[0] = "FP32:100".into();
        assert_eq!(errors(&m), [format!("{expected}{BW_ACCEPTED}")], "{text}");
    }
    let mut m = MachineInputs::from_preset("");
    m.peak[0] = "FP32".into();
    assert_eq!(
        errors(&m),
        ["peak.1: 'FP32' is not NAME:GFLOPs; write NAME:GFLOPs (a name of 1 to 24 characters, a value from 1/1000 to 100000000 GFLOP/s), such as FP32:19500; left out"]
    );
    m.bw[..2].clone_from_slice(&["DRAM:10".into(), "DRAM:20".into()]);
    m.peak[0] = "FP32:100".into();
    assert_eq!(
        errors(&m),
        ["bw.2: repeats the name 'DRAM' of bw.1; name each ceiling once; left out"]
    );
}

#[test]
fn each_bad_point_is_named_and_an_undefined_ceiling_is_replaced() {
    let mut m = MachineInputs::from_preset("");
    m.bw[0] = "DRAM:100".into();
    m.peak[0] = "FP32:1000".into();
    let points = [
        "x",
        "a,b:1:1",
        "k:0:1",
        "k:1:x",
        "k:1:1:HBM",
        "k:1:1:DRAM:TF",
        "k:1:1:a:b:c",
    ];
    for (slot, text) in m.points.iter_mut().zip(points) {
        *slot = text.to_string();
    }
    assert_eq!(
        errors(&m),
        [
            format!("pt.1: 'x' is not NAME:I:P[:BW[:PEAK]]{POINT_ACCEPTED}"),
            format!("pt.2: has a name with ',', which separates the link's entries{POINT_ACCEPTED}"),
            format!("pt.3: has an intensity '0' outside 1/4096 to 1048576 FLOP/byte{POINT_ACCEPTED}"),
            format!("pt.4: has a performance 'x' that is not a decimal or a fraction such as 1/8{POINT_ACCEPTED}"),
            "pt.5: names the bandwidth ceiling 'HBM', which is not defined (DRAM); using DRAM".to_string(),
            "pt.6: names the compute ceiling 'TF', which is not defined (FP32); using FP32".to_string(),
            format!("pt.7: 'k:1:1:a:b:c' is not NAME:I:P[:BW[:PEAK]]{POINT_ACCEPTED}"),
        ]
    );
    let mut bare = MachineInputs::from_preset("");
    bare.points[0] = "k:1:1".into();
    assert_eq!(
        errors(&bare),
        ["pt.1: needs at least one bandwidth ceiling (bw.1) and one compute ceiling (peak.1), or a machine preset; left out"]
    );
    let unknown = errors(&MachineInputs::from_preset("B200X"));
    assert!(
        unknown[0].starts_with("machine: 'B200X' is not a GPU preset (V100, A100")
            && unknown[0].ends_with("); using none"),
        "{unknown:?}"
    );
}

#[test]
fn each_bad_number_of_the_lab_is_named_with_its_range() {
    let rows = [
        ("oi", "", "oi: is empty; enter an intensity from 1/64 to 1024 FLOP/byte, such as 2 or 1/8"),
        ("oi", "abc", "oi: 'abc' is not a decimal or a fraction such as 1/8; enter an intensity from 1/64 to 1024 FLOP/byte, such as 2 or 1/8"),
        ("oi", "-1", "oi: must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '-1'"),
        ("oi", "2000", "oi: must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '2000'"),
        ("bw", "1e3", "bw: '1e3' has an exponent; write the number out (100, not 1e2); enter a bandwidth from 1 to 100000 GB/s, such as 80"),
        ("bw", " 0.5 ", "bw: must be a bandwidth from 1 to 100000 GB/s, found '0.5'"),
        ("bw", " ", "bw: is empty; enter a bandwidth from 1 to 100000 GB/s, such as 80"),
        ("prediction", "x", "prediction: must be empty or a number of GFLOP/s such as 160: 'x' is not a decimal or a fraction such as 1/8"),
        ("prediction", "-5", "prediction: must be empty or a number of GFLOP/s such as 160: '-5' is negative"),
    ];
    for (knob, text, expected) in rows {
        let mut lab = Lab::default();
        match knob {
            "oi" => lab.oi = text.into(),
            "bw" => lab.bw = text.into(),
            _ => lab.prediction = text.into(),
        }
        let messages: Vec<String> = lab.check().errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages, [expected], "{knob}={text}");
    }
}

#[test]
fn full_slots_and_missing_measurements_say_what_to_do() {
    let mut m = MachineInputs::from_preset("A100");
    for n in 0..5 {
        m.add_bandwidth(&format!("L{n}"), "100").unwrap();
    }
    assert_eq!(
        m.add_bandwidth("L9", "100").unwrap_err().to_string(),
        "all 6 bandwidth ceilings are in use; remove one first"
    );
    m.points = std::array::from_fn(|k| format!("k{k}:1:1"));
    let flops = Exact::parse("1024").unwrap();
    assert_eq!(
        kernel_points(&m, "k", flops, 4096, 8192)
            .unwrap_err()
            .to_string(),
        "all 12 points are in use; remove one first"
    );
    let empty = MachineInputs::from_preset("A100");
    assert_eq!(
        kernel_points(&empty, "k", flops, 0, 8192)
            .unwrap_err()
            .to_string(),
        "the DRAM point moves no byte, so it has no intensity"
    );
    let plan = plan(
        &Config { strides: vec![32, 64], n: Some(4096) },
        &Limits::DEFAULT,
    )
    .unwrap();
    let measurement = |stride: u32| Measurement {
        stride,
        checksum: 7,
        expected: 7,
        reps: 10,
        samples_ms: vec![0.004; 7],
    };
    let report = Report::new(
        plan,
        Timer::Timestamps,
        AdapterInfo::default(),
        Limits::DEFAULT,
        "Chrome/156".into(),
        vec![measurement(32), measurement(64)],
    );
    assert_eq!(
        probe_contiguous_gbps(&report).unwrap_err().to_string(),
        "the run has no contiguous stride (4 B) to measure bandwidth with"
    );
}
