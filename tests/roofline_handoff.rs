//! The hand-offs into the Roofline lab, one path for both of its modes: what each panel's
//! button changes in the course's lab and in machine mode, and why it is refused.

use coalescing_lab::model::cuda::presets::cuda_preset;
use coalescing_lab::model::cuda::run::{analyse, CudaAnalysis};
use coalescing_lab::model::cuda_view::work;
use coalescing_lab::model::exact::Exact;
use coalescing_lab::model::flops::{CUDA_FLOPS, KERNEL_FLOPS};
use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::kernel::{analyze_kernel, KernelInputs, Machine};
use coalescing_lab::model::probe::*;
use coalescing_lab::model::roofline::{
    kernel_points, on_roof, HandOff, HandOffRefusal, Lab, MachineInputs, Opened, Work,
};
use coalescing_lab::model::sectors::{analyze, Ratio};

fn lab(oi: &str) -> Lab {
    Lab { oi: oi.into(), ..Lab::default() }
}

fn strided(stride: &str) -> coalescing_lab::model::sectors::Analysis {
    analyze(&Inputs {
        idx: format!("{stride}*t"),
        ..Inputs::default()
    })
    .unwrap()
}

#[test]
fn the_calculator_scales_the_course_labs_intensity_and_leaves_machine_mode_alone() {
    let shown = strided("2");
    let h = HandOff::calculator(&shown, true, &lab("2"), &MachineInputs::default());
    let expected = lab("2").hand_off(shown.totals.efficiency()).unwrap();
    assert_eq!(h.opened, Some(Opened { lab: Some(expected), roofs: None }));
    assert_eq!(
        h.hint,
        "Scales the lab's intensity by the useful fraction: bytes ÷ e at fixed FLOPs."
    );
}

#[test]
fn in_machine_mode_the_calculator_also_places_its_point_on_the_roof() {
    let shown = strided("2");
    let roofs = MachineInputs::from_preset("A100");
    let opened = HandOff::calculator(&shown, true, &lab("2"), &roofs)
        .opened
        .unwrap();
    let (scaled, _) = opened.lab.unwrap();
    assert_eq!(scaled.oi, "1");
    let mut expected = roofs.clone();
    expected
        .add_point(on_roof(&roofs, "calculator", Exact::parse("1")).unwrap())
        .unwrap();
    assert_eq!(opened.roofs, Some(expected));
}

#[test]
fn the_calculator_refuses_shared_memory_first_then_a_field_in_error() {
    let shared = analyze(&Inputs {
        space: "shared".into(),
        ..Inputs::default()
    })
    .unwrap();
    assert!(shared.banks.is_some());
    for valid in [true, false] {
        let h = HandOff::calculator(&shared, valid, &lab("2"), &MachineInputs::default());
        assert_eq!(h.opened, None);
        assert_eq!(
            h.hint,
            format!("Not available: {}", HandOffRefusal::SharedMemory)
        );
    }
    let global = strided("1");
    let h = HandOff::calculator(&global, false, &lab("2"), &MachineInputs::default());
    assert_eq!(
        h.hint,
        "Not available: Fix the calculator's field marked in red first."
    );
    // No active lane: no useful fraction to hand over.
    assert_eq!(
        lab("2").hand_off(Some(Ratio { numerator: 0, denominator: 1 })),
        Err(HandOffRefusal::NoActiveLane)
    );
}

#[test]
fn the_kernel_sets_the_course_labs_intensity_or_adds_two_machine_points() {
    let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
    let a = analyze_kernel(&kernel).unwrap();
    let work = a.work();
    assert_eq!(
        (work.flops, work.dram_bytes, work.request_bytes),
        (
            a.total_flops,
            a.total.dram_bytes(),
            a.total.transferred_bytes
        )
    );
    let course = HandOff::kernel(Some(&work), &lab("2"), &MachineInputs::default());
    match lab("2").with_kernel_intensity(&work) {
        Ok(opened) => {
            assert_eq!(
                course.opened,
                Some(Opened { lab: Some(opened), roofs: None })
            );
            assert_eq!(course.hint, "I = total FLOPs ÷ DRAM bytes.");
        }
        Err(why) => assert_eq!(course.hint, format!("Not available: {why}")),
    }
    let roofs = MachineInputs::from_preset("A100");
    let machine = HandOff::kernel(Some(&work), &lab("2"), &roofs);
    let points = kernel_points(
        &roofs,
        "kernel",
        a.total_flops,
        a.total.dram_bytes(),
        a.total.transferred_bytes,
    );
    match points {
        Ok(points) => {
            assert_eq!(
                machine.opened,
                Some(Opened { lab: None, roofs: Some(points) })
            );
            assert!(machine.hint.contains("adds two points"), "{}", machine.hint);
        }
        Err(why) => assert_eq!(machine.hint, format!("Not available: {why}.")),
    }
    // Degenerate input: no analysis yet disables the button, and says what it would do.
    let waiting = HandOff::kernel(None, &lab("2"), &roofs);
    assert_eq!(waiting.opened, None);
    assert!(waiting.hint.starts_with("Machine mode: adds two points"));
}

/// The CUDA copy preset's run, and its work at `flops` FLOPs a thread.
fn cuda_copy(flops: &str) -> (CudaAnalysis, Work) {
    let p = cuda_preset("copy").unwrap();
    let a = analyse(p.source, p.launch, Machine::default(), 6 << 20, 700).unwrap();
    let w = work(&a, CUDA_FLOPS.read(flops).unwrap());
    (a, w)
}

#[test]
fn the_cuda_copy_hands_flops_per_thread_times_its_threads_over_its_dram_bytes() {
    let (a, w) = cuda_copy("16");
    let (blocks, _, threads) = a.shape;
    // Every thread of the launch counts: blocks × threads per block × 16.
    assert_eq!(
        w.flops,
        Exact::parse(&(blocks * threads * 16).to_string()).unwrap()
    );
    // A copy reads and writes each float once: 8 DRAM bytes a thread, so 16 FLOPs make 2.
    assert_eq!(w.dram_bytes, blocks * threads * 8);
    assert_eq!(w.intensity(), Exact::parse("2"));
    assert_eq!((w.name.as_str(), w.field), ("copy", CUDA_FLOPS));
    let h = HandOff::kernel(Some(&w), &lab("1"), &MachineInputs::default());
    let (opened, note) = h.opened.unwrap().lab.unwrap();
    assert_eq!(opened.oi, "2");
    assert_eq!(
        note.text_for(&opened),
        Some(
            format!(
                "The kernel's {} FLOPs over {} DRAM bytes: intensity 2 FLOP/byte.",
                w.flops, w.dram_bytes
            )
            .as_str()
        )
    );
    // Machine mode: the kernel's two points, named after it, as the kernel view's are.
    let roofs = MachineInputs::from_preset("A100");
    let h = HandOff::kernel(Some(&w), &lab("1"), &roofs);
    let expected = kernel_points(&roofs, "copy", w.flops, w.dram_bytes, w.request_bytes).unwrap();
    assert_eq!(h.opened.unwrap().roofs, Some(expected.clone()));
    assert!(expected
        .points
        .iter()
        .any(|p| p.starts_with("copy DRAM:2:")));
}

#[test]
fn a_cuda_kernel_without_flops_is_refused_naming_cflops() {
    let (_, w) = cuda_copy("");
    let h = HandOff::kernel(Some(&w), &lab("1"), &MachineInputs::default());
    assert_eq!(h.opened, None);
    assert_eq!(
        h.hint,
        "Not available: The kernel's intensity, 0 FLOP/byte, is outside the lab's 1/64 to 1024; set cflops to the FLOPs per thread."
    );
    // The kernel view's refusal names its own field.
    let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
    let a = analyze_kernel(&kernel).unwrap();
    assert_eq!(
        lab("1").with_kernel_intensity(&a.work()),
        Err(HandOffRefusal::OutOfRange {
            intensity: "0".into(),
            field: KERNEL_FLOPS
        })
    );
    assert_eq!(
        HandOff::kernel(Some(&a.work()), &lab("1"), &MachineInputs::default()).hint,
        "Not available: The kernel's intensity, 0 FLOP/byte, is outside the lab's 1/64 to 1024; set flops to the FLOPs per thread per iteration."
    );
}

fn report(description: &str, software: bool, contiguous_ok: bool) -> Report {
    let plan = plan(
        &Config { strides: vec![4, 32], n: Some(4096) },
        &Limits::DEFAULT,
    )
    .unwrap();
    let measurement = |stride: u32, ms: f64| Measurement {
        stride,
        checksum: if contiguous_ok || stride != 4 { 7 } else { 8 },
        expected: 7,
        reps: 10,
        samples_ms: vec![ms; 7],
    };
    Report::new(
        plan,
        Timer::Timestamps,
        AdapterInfo {
            description: description.into(),
            fallback: software,
            timestamps: true,
            ..AdapterInfo::default()
        },
        Limits::DEFAULT,
        "Chrome/156".into(),
        vec![measurement(4, 0.001), measurement(32, 0.004)],
    )
}

#[test]
fn the_probe_adds_its_bandwidth_to_machine_mode_started_from_the_course() {
    let r = report("SwiftShader Device (Subzero)", true, true);
    let h = HandOff::probe(Some(&r), &lab("2"), &MachineInputs::default());
    let roofs = h.opened.unwrap().roofs.unwrap();
    assert!(roofs.custom);
    assert_eq!(
        (
            roofs.bw[0].as_str(),
            roofs.bw[1].as_str(),
            roofs.peak[0].as_str()
        ),
        ("B:100", "SwiftShader D (software):16.4", "synthetic:1000")
    );
    assert_eq!(
        h.hint,
        "Adds 'SwiftShader D (software)' at 16.4 GB/s (the 4 B stride's useful bandwidth) to \
         the Roofline lab's machine mode. A software adapter is not a GPU: this is your CPU's \
         memory through an emulator."
    );
    // A machine already set up keeps its ceilings and gains one.
    let a100 = MachineInputs::from_preset("A100");
    let h = HandOff::probe(Some(&report("NVIDIA A100", false, true)), &lab("2"), &a100);
    let roofs = h.opened.unwrap().roofs.unwrap();
    assert_eq!(
        (roofs.bw[0].as_str(), roofs.bw[1].as_str()),
        ("DRAM:1555", "NVIDIA A100:16.4")
    );
    // A failed checksum has no GB/s.
    let h = HandOff::probe(Some(&report("NVIDIA A100", false, false)), &lab("2"), &a100);
    assert_eq!(
        (h.opened, h.hint.as_str()),
        (
            None,
            "Not available: the contiguous stride's checksum failed, so it has no GB/s."
        )
    );
}
