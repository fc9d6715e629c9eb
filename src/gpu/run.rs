//! A run: set the bench up, then check, warm up and time each stride, reporting progress
//! and stopping when asked; a lost device wins over the errors it causes.

use super::adapter::{adapter, describe};
use super::bench::setup;
use super::Failure;
use crate::model::format::size_text;
use crate::model::probe::{
    expected_checksum, reps_for, AdapterInfo, Limits, Measurement, Plan, Timer, MEASURED, WARMUPS,
};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::GpuAdapter;

/// How far a run has got.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Steps finished so far, from 0 up to `total`.
    pub done: u32,
    /// All steps: one buffer fill, then per stride a check, the warm-ups and the timed runs.
    pub total: u32,
    /// What is being measured, e.g. "the 32 B stride (2 of 4)": it changes once per stride,
    /// so a screen reader hears it without a flood of updates.
    pub stage: String,
    /// The step just finished, e.g. "32 B stride: run 3 of 7".
    pub label: String,
}

/// A finished run.
pub struct Outcome {
    /// What the adapter said of itself, for the evidence export.
    pub info: AdapterInfo,
    /// The adapter's buffer and dispatch limits the plan was checked against.
    pub limits: Limits,
    /// How the runs were timed: GPU timestamps when `timestamp-query` was offered, else wall clock.
    pub timer: Timer,
    /// One measurement per stride of the plan, in the plan's order.
    pub measurements: Vec<Measurement>,
}

/// Runs `plan` on a fresh device. Calls `progress` when a stage starts and after every
/// step, and stops at the next step once `cancelled` returns true. The device is destroyed
/// when this returns.
pub async fn run(
    plan: &Plan,
    progress: &dyn Fn(Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<Outcome, Failure> {
    let adapter = adapter().await.map_err(Failure::Unavailable)?;
    let (info, limits) = describe(&adapter);
    let lost = Rc::new(RefCell::new(None));
    let outcome = measure(&adapter, &info, plan, lost.clone(), progress, cancelled).await;
    // A lost device can make a pending call fail before the loss itself is reported, or
    // make the last wall-clock pass look fine: give the report a moment, then let it win.
    sleep(50).await;
    if let Some(message) = lost.borrow().clone() {
        return Err(Failure::Lost(message));
    }
    let (timer, measurements) = outcome?;
    Ok(Outcome { info, limits, timer, measurements })
}

/// Resolves after `ms` milliseconds.
async fn sleep(ms: i32) {
    let wait = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
}

/// Keeps the progress count and reports it.
struct Steps<'a> {
    done: u32,
    total: u32,
    stage: String,
    report: &'a dyn Fn(Progress),
}

impl Steps<'_> {
    /// A new stage starts: says so without counting a step.
    fn begin(&mut self, stage: String, label: String) {
        self.stage = stage;
        self.send(label);
    }

    /// A step finished.
    fn step(&mut self, label: String) {
        self.done += 1;
        self.send(label);
    }

    fn send(&self, label: String) {
        (self.report)(Progress {
            done: self.done,
            total: self.total,
            stage: self.stage.clone(),
            label,
        });
    }
}

/// Sets the device up and measures every stride: the timer used and the measurements.
async fn measure(
    adapter: &GpuAdapter,
    info: &AdapterInfo,
    plan: &Plan,
    lost: Rc<RefCell<Option<String>>>,
    progress: &dyn Fn(Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<(Timer, Vec<Measurement>), Failure> {
    let steps_per_stride = 1 + WARMUPS + MEASURED;
    let mut steps = Steps {
        done: 0,
        total: (1 + plan.strides.len() * steps_per_stride) as u32,
        stage: String::new(),
        report: progress,
    };
    let stop = || -> Result<(), Failure> {
        if cancelled() {
            Err(Failure::Cancelled)
        } else {
            Ok(())
        }
    };
    steps.begin(
        "filling the buffer".into(),
        format!("filling {} on the GPU", size_text(plan.buffer_bytes)),
    );
    let bench = setup(adapter, info, plan, lost).await?;
    steps.step("buffer filled".into());
    let mut measurements = Vec::new();
    for (index, &stride) in plan.strides.iter().enumerate() {
        stop()?;
        steps.begin(
            format!(
                "measuring the {stride} B stride ({} of {})",
                index + 1,
                plan.strides.len()
            ),
            format!("{stride} B stride: checking the values read"),
        );
        let bases = plan.bases(stride);
        bench.write_params(&plan.uniforms(stride))?;
        // The first and the last base offset are checked: both ends of the buffer's use.
        let first = bench.checksum(false).await?;
        let last = bench.checksum(true).await?;
        let checksum = first.wrapping_add(last);
        let expected = expected_checksum(bases[0], stride, plan.n).wrapping_add(expected_checksum(
            bases[bases.len() - 1],
            stride,
            plan.n,
        ));
        steps.step(format!("{stride} B stride: checked"));
        let mut reps = 1;
        for warmup in 1..=WARMUPS {
            stop()?;
            let ms = bench.pass(reps).await?;
            reps = reps_for(ms, reps);
            steps.step(format!("{stride} B stride: warm-up {warmup} of {WARMUPS}"));
        }
        let mut samples_ms = Vec::with_capacity(MEASURED);
        if checksum == expected {
            for run in 1..=MEASURED {
                stop()?;
                samples_ms.push(bench.pass(reps).await?);
                steps.step(format!("{stride} B stride: run {run} of {MEASURED}"));
            }
        } else {
            // A wrong sum is an error, never a number: skip the timing.
            for _ in 0..MEASURED {
                steps.step(format!("{stride} B stride: checksum failed"));
            }
        }
        measurements.push(Measurement {
            stride,
            checksum,
            expected,
            reps,
            samples_ms,
        });
    }
    Ok((bench.timer(), measurements))
}
