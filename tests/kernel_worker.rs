//! The kernel view's launches in the page's Web Worker, natively: what the worker answers
//! (`kernel::wire::answer`) is what the page's own run gives, figure for figure, after its
//! trip through JSON, and a launch that stops crosses with its field and words to the letter.

use coalescing_lab::model::kernel::presets::KERNEL_PRESETS;
use coalescing_lab::model::kernel::view::repair_inputs;
use coalescing_lab::model::kernel::wire::{answer, decode_reply, Reply, Request};
use coalescing_lab::model::kernel::{
    analyze_kernel, KernelField, KernelInputs, Machine, StmtField,
};

/// The worker's replies to `text`, decoded, on a clock that moves 10 ms a reading.
fn replies(text: &str) -> Vec<Reply> {
    let mut t = 0.0;
    let mut posted = Vec::new();
    answer(
        text,
        &mut || {
            t += 10.0;
            t
        },
        &mut || 7 << 16,
        &mut |text| posted.push(text),
    );
    posted
        .iter()
        .map(|text| decode_reply(text).unwrap_or_else(|e| panic!("{e}: {text}")))
        .collect()
}

/// Progress only grows, of one total, and one last reply ends the run.
fn last(replies: Vec<Reply>) -> Reply {
    let mut seen = 0;
    let mut all = None;
    let count = replies.len();
    for (n, reply) in replies.into_iter().enumerate() {
        match reply {
            Reply::Progress { done, total } => {
                assert!(n + 1 < count, "progress was the last reply");
                assert!(
                    done >= seen && done <= total,
                    "{done} after {seen}, of {total}"
                );
                assert_eq!(*all.get_or_insert(total), total);
                seen = done;
            }
            end => {
                assert_eq!(n + 1, count, "a reply after the end");
                return end;
            }
        }
    }
    panic!("no end among {count} replies")
}

#[test]
fn every_preset_through_the_worker_equals_the_page_run() {
    for preset in KERNEL_PRESETS {
        for cache in ["", "4096"] {
            let mut inputs = preset.inputs();
            if !cache.is_empty() {
                inputs.set(KernelField::Cache, cache.into());
            }
            let machine = Machine::default();
            let page = analyze_kernel(&inputs.kernel(machine).unwrap()).unwrap();
            let text = Request { inputs, machine }.encode();
            match last(replies(&text)) {
                Reply::Done { analysis, memory_bytes } => {
                    assert_eq!(*analysis, page, "{} with cache {cache:?}", preset.id);
                    assert_eq!(memory_bytes, 7 << 16);
                }
                other => panic!("{}: {other:?}", preset.id),
            }
        }
    }
}

#[test]
fn a_repaired_link_runs_in_the_worker_as_on_the_page() {
    let mut inputs = KernelInputs::default();
    inputs.set(KernelField::Grid, "0".into());
    inputs.set(KernelField::Stmt(1, StmtField::Idx), "threadIdx.q".into());
    let machine = Machine::default();
    let (Some((repaired, kernel)), errors) = repair_inputs(&inputs, machine) else {
        panic!("no repair")
    };
    assert_eq!(errors.len(), 2);
    assert_eq!(repaired.kernel(machine).unwrap(), kernel);
    let Reply::Done { analysis, .. } =
        last(replies(&Request { inputs: repaired, machine }.encode()))
    else {
        panic!("the repaired kernel did not run")
    };
    assert_eq!(*analysis, analyze_kernel(&kernel).unwrap());
}

#[test]
fn a_launch_that_stops_crosses_with_its_field_and_words() {
    let mut inputs = KernelInputs::default();
    inputs.set(
        KernelField::Stmt(1, StmtField::Idx),
        "64 / (threadIdx.x - 3)".into(),
    );
    let machine = Machine::default();
    let page = analyze_kernel(&inputs.kernel(machine).unwrap()).unwrap_err();
    let Reply::Failed(e) = last(replies(&Request { inputs, machine }.encode())) else {
        panic!("the launch did not stop")
    };
    assert_eq!(e, page);
    assert_eq!(e.field, KernelField::Stmt(1, StmtField::Idx));
    assert!(e.to_string().starts_with("a1.idx: "), "{e}");
}

#[test]
fn inputs_in_error_and_unreadable_requests_are_refused_with_words() {
    let mut inputs = KernelInputs::default();
    inputs.set(KernelField::Block, "0".into());
    let Reply::Failed(e) = last(replies(
        &Request { inputs, machine: Machine::default() }.encode(),
    )) else {
        panic!("a bad block ran")
    };
    assert_eq!(e.field, KernelField::Block);
    for text in ["kernel:{", "kernel:", "kernel:[1,2]"] {
        let Reply::Failed(e) = last(replies(text)) else {
            panic!("{text} ran")
        };
        assert!(
            e.to_string()
                .starts_with("grid: the worker could not read the launch ("),
            "{e}"
        );
    }
}

#[test]
fn a_kernel_request_is_told_from_a_cuda_run() {
    let text = Request {
        inputs: KernelInputs::default(),
        machine: Machine::default(),
    }
    .encode();
    assert!(Request::is_one(&text));
    let cuda = coalescing_lab::model::cuda_view::wire::Request {
        source: String::new(),
        launch: String::new(),
        machine: Machine::default(),
        cache_bytes: 0,
        arch: 700,
        defines: String::new(),
        headers: Default::default(),
    }
    .encode();
    assert!(!Request::is_one(&cuda));
}
