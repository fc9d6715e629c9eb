//! The WebGPU strided-load probe, for wasm32 only. Its whole interface:
//!
//! - [`detect`] asks for an adapter and says what it is, or why there is none;
//! - [`run`] runs a [`Plan`] on a fresh device: fill the buffer on the GPU, then for each
//!   stride one checked pass, [`WARMUPS`] warm-up passes and [`MEASURED`] timed passes,
//!   reporting progress and stopping when asked.
//!
//! Sizing, predictions, checksums and statistics live in `model::probe`; this module only
//! talks to the GPU and reads clocks. It uses web-sys's WebGPU bindings, which need
//! `--cfg=web_sys_unstable_apis` (see `.cargo/config.toml`); web-sys is pinned to an exact
//! version in Cargo.toml because those bindings change without semver.

use crate::model::probe::{
    expected_checksum, reps_for, size_text, AdapterInfo, Limits, Measurement, Plan, Timer, ALIGN,
    BASE_SLOTS, MEASURED, WARMUPS,
};
use js_sys::Reflect;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    gpu_buffer_usage as usage, GpuAdapter, GpuAutoLayoutMode, GpuBindGroup, GpuBindGroupDescriptor,
    GpuBindGroupEntry, GpuBuffer, GpuBufferBinding, GpuBufferDescriptor, GpuComputePassDescriptor,
    GpuComputePassTimestampWrites, GpuComputePipeline, GpuComputePipelineDescriptor, GpuDevice,
    GpuDeviceDescriptor, GpuDeviceLostReason, GpuErrorFilter, GpuPowerPreference,
    GpuProgrammableStage, GpuQuerySet, GpuQuerySetDescriptor, GpuQueryType,
    GpuRequestAdapterOptions, GpuShaderModuleDescriptor,
};

/// The kernels, in their own file.
const SHADER: &str = include_str!("probe.wgsl");

/// What [`detect`] found.
pub enum Detection {
    /// An adapter, with what it says of itself and its limits.
    Ready { info: AdapterInfo, limits: Limits },
    /// No WebGPU here, and why, in plain words.
    Unavailable(String),
}

/// How far a run has got.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub done: u32,
    pub total: u32,
    /// What is being measured, e.g. "the 32 B stride (2 of 4)": it changes once per stride,
    /// so a screen reader hears it without a flood of updates.
    pub stage: String,
    /// The step just finished, e.g. "32 B stride: run 3 of 7".
    pub label: String,
}

/// Why a run stopped without results.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The visitor pressed Cancel.
    Cancelled,
    /// The browser took the device away (`device.lost`): driver reset, sleep, or the tab
    /// was throttled.
    Lost(String),
    /// Anything else, worded for people.
    Error(String),
}

/// A finished run.
pub struct Outcome {
    pub info: AdapterInfo,
    pub limits: Limits,
    pub timer: Timer,
    pub measurements: Vec<Measurement>,
}

fn error(context: &str, e: JsValue) -> Failure {
    let text = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    Failure::Error(format!("{context}: {text}"))
}

/// `navigator.gpu`, or why there is none.
fn gpu() -> Result<web_sys::Gpu, String> {
    let Some(window) = web_sys::window() else {
        return Err("There is no window to run WebGPU in.".into());
    };
    let secure = Reflect::get(&window, &"isSecureContext".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let navigator = window.navigator();
    let gpu = Reflect::get(&navigator, &"gpu".into()).unwrap_or(JsValue::UNDEFINED);
    if gpu.is_undefined() || gpu.is_null() {
        return Err(if secure {
            "This browser does not offer WebGPU (navigator.gpu is missing). Recent Chrome, Edge, Safari and Firefox releases offer it on most systems; elsewhere it may be turned off or behind a flag.".into()
        } else {
            "WebGPU needs a secure context: open this page over https:// or from localhost. It is unavailable here, so the probe cannot run.".into()
        });
    }
    Ok(gpu.unchecked_into())
}

async fn adapter() -> Result<GpuAdapter, String> {
    let gpu = gpu()?;
    let options = GpuRequestAdapterOptions::new();
    options.set_power_preference(GpuPowerPreference::HighPerformance);
    match gpu.request_adapter_with_options(&options).await {
        Ok(adapter) => adapter.into_option().ok_or_else(|| {
            "WebGPU is present but gave no adapter: it is turned off or blocked for this GPU or driver (a browser flag, a policy or the browser's blocklist), or there is no usable GPU.".to_string()
        }),
        Err(e) => Err(format!(
            "Asking for a WebGPU adapter failed: {}",
            e.as_string().unwrap_or_else(|| format!("{e:?}"))
        )),
    }
}

fn describe(adapter: &GpuAdapter) -> (AdapterInfo, Limits) {
    let info = adapter.info();
    // Newer browsers say it on the info, older ones on the adapter.
    let flag = |object: &JsValue| {
        Reflect::get(object, &"isFallbackAdapter".into())
            .ok()
            .and_then(|v| v.as_bool())
    };
    let fallback = flag(&info).or_else(|| flag(adapter)).unwrap_or(false);
    let limits = adapter.limits();
    (
        AdapterInfo {
            vendor: info.vendor(),
            architecture: info.architecture(),
            device: info.device(),
            description: info.description(),
            fallback,
            timestamps: adapter.features().has("timestamp-query"),
        },
        Limits {
            max_buffer_size: limits.max_buffer_size() as u64,
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size() as u64,
            max_compute_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension(),
        },
    )
}

/// Asks for an adapter. Starts no GPU work.
pub async fn detect() -> Detection {
    match adapter().await {
        Ok(adapter) => {
            let (info, limits) = describe(&adapter);
            Detection::Ready { info, limits }
        }
        Err(why) => Detection::Unavailable(why),
    }
}

/// Destroys the device when the run ends, however it ends.
struct Device(GpuDevice);

impl Drop for Device {
    fn drop(&mut self) {
        self.0.destroy();
    }
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn buffer(device: &GpuDevice, size: u64, usage: u32, label: &str) -> Result<GpuBuffer, Failure> {
    let descriptor = GpuBufferDescriptor::new_with_f64(size as f64, usage);
    descriptor.set_label(label);
    device
        .create_buffer(&descriptor)
        .map_err(|e| error(&format!("Creating the {label} buffer failed"), e))
}

async fn pipeline(
    device: &GpuDevice,
    module: &web_sys::GpuShaderModule,
    entry: &str,
) -> Result<GpuComputePipeline, Failure> {
    let stage = GpuProgrammableStage::new(module);
    stage.set_entry_point(entry);
    let descriptor = GpuComputePipelineDescriptor::new_with_gpu_auto_layout_mode(
        GpuAutoLayoutMode::Auto,
        &stage,
    );
    device
        .create_compute_pipeline_async(&descriptor)
        .await
        .map_err(|e| error(&format!("Compiling the {entry} kernel failed"), e))
}

fn bind_group(
    device: &GpuDevice,
    pipeline: &GpuComputePipeline,
    entries: &[GpuBindGroupEntry],
) -> GpuBindGroup {
    device.create_bind_group(&GpuBindGroupDescriptor::new(
        entries,
        &pipeline.get_bind_group_layout(0),
    ))
}

/// Everything one run allocates, and the device it lives on.
struct Bench {
    device: Device,
    probe: GpuComputePipeline,
    checked: GpuComputePipeline,
    /// One bind group per base slot for the timed kernel.
    groups: Vec<GpuBindGroup>,
    /// The checked kernel's bind groups for the first and the last base slot.
    checked_groups: [GpuBindGroup; 2],
    params: GpuBuffer,
    sink: GpuBuffer,
    readback: GpuBuffer,
    timestamps: Option<(GpuQuerySet, GpuBuffer)>,
    workgroups: u32,
    lost: Rc<RefCell<Option<String>>>,
}

impl Bench {
    /// `Err(Lost)` once the device is gone.
    fn alive(&self) -> Result<(), Failure> {
        match self.lost.borrow().as_ref() {
            Some(message) => Err(Failure::Lost(message.clone())),
            None => Ok(()),
        }
    }

    /// Maps `readback`, copies out `words` u32s, unmaps.
    async fn read(&self, words: u32) -> Result<Vec<u32>, Failure> {
        let mapped = self
            .readback
            .map_async_with_u32_and_u32(web_sys::gpu_map_mode::READ, 0, words * 4)
            .await;
        self.alive()?;
        mapped.map_err(|e| error("Reading results back failed", e))?;
        let range = self
            .readback
            .get_mapped_range_with_u32_and_u32(0, words * 4)
            .map_err(|e| error("Reading results back failed", e))?;
        let values = js_sys::Uint32Array::new(&range).to_vec();
        self.readback.unmap();
        Ok(values)
    }

    /// One checked pass at the first (`last` false) or the last base slot: the sum of every
    /// value read.
    async fn checksum(&self, last: bool) -> Result<u32, Failure> {
        let device = &self.device.0;
        let encoder = device.create_command_encoder();
        encoder.clear_buffer(&self.sink);
        let pass = encoder.begin_compute_pass();
        pass.set_pipeline(&self.checked);
        pass.set_bind_group(0, Some(&self.checked_groups[usize::from(last)]));
        pass.dispatch_workgroups(self.workgroups);
        pass.end();
        encoder
            .copy_buffer_to_buffer_with_u32_and_u32_and_u32(&self.sink, 0, &self.readback, 0, 8)
            .map_err(|e| error("Copying the checksum failed", e))?;
        device.queue().submit(&[encoder.finish()]);
        Ok(self.read(2).await?[0])
    }

    /// One timed pass of `reps` dispatches, cycling the base slots: milliseconds per
    /// dispatch, by the GPU's timestamps when there are any, else by the wall clock.
    async fn pass(&self, reps: u32) -> Result<f64, Failure> {
        let device = &self.device.0;
        let encoder = device.create_command_encoder();
        let descriptor = GpuComputePassDescriptor::new();
        if let Some((set, _)) = &self.timestamps {
            let writes = GpuComputePassTimestampWrites::new(set);
            writes.set_beginning_of_pass_write_index(0);
            writes.set_end_of_pass_write_index(1);
            descriptor.set_timestamp_writes(&writes);
        }
        let pass = encoder.begin_compute_pass_with_descriptor(&descriptor);
        pass.set_pipeline(&self.probe);
        for r in 0..reps {
            pass.set_bind_group(0, Some(&self.groups[(r % BASE_SLOTS) as usize]));
            pass.dispatch_workgroups(self.workgroups);
        }
        pass.end();
        if let Some((set, resolved)) = &self.timestamps {
            encoder.resolve_query_set_with_u32(set, 0, 2, resolved, 0);
            encoder
                .copy_buffer_to_buffer_with_u32_and_u32_and_u32(resolved, 0, &self.readback, 0, 16)
                .map_err(|e| error("Copying the timestamps failed", e))?;
        }
        let start = now();
        device.queue().submit(&[encoder.finish()]);
        let done = device.queue().on_submitted_work_done().await;
        let wall = now() - start;
        self.alive()?;
        done.map_err(|e| error("Waiting for the GPU failed", e))?;
        if self.timestamps.is_none() {
            return Ok(wall / f64::from(reps));
        }
        let t = self.read(4).await?;
        let stamp = |lo: u32, hi: u32| f64::from(hi) * 4_294_967_296.0 + f64::from(lo);
        let ns = stamp(t[2], t[3]) - stamp(t[0], t[1]);
        if ns < 0.0 {
            return Err(Failure::Error(
                "The GPU's timestamps ran backwards; this browser's timer cannot be trusted here."
                    .into(),
            ));
        }
        Ok(ns / 1e6 / f64::from(reps))
    }
}

/// Sets the device up: pipelines, buffers, bind groups, and the data filled on the GPU.
async fn setup(
    adapter: &GpuAdapter,
    info: &AdapterInfo,
    plan: &Plan,
    lost: Rc<RefCell<Option<String>>>,
) -> Result<Bench, Failure> {
    let descriptor = GpuDeviceDescriptor::new();
    descriptor.set_label("Coalescing Lab probe");
    if info.timestamps {
        descriptor.set_required_features(&[js_sys::JsString::from("timestamp-query")]);
    }
    // Ask explicitly for the adapter's own buffer limits: the defaults are smaller.
    let limits = adapter.limits();
    let required = js_sys::Object::<js_sys::Number>::new_typed();
    for (name, value) in [
        ("maxBufferSize", limits.max_buffer_size()),
        (
            "maxStorageBufferBindingSize",
            limits.max_storage_buffer_binding_size(),
        ),
    ] {
        let _ = Reflect::set(&required, &name.into(), &value.into());
    }
    descriptor.set_required_limits(&required);
    let device = adapter
        .request_device_with_descriptor(&descriptor)
        .await
        .map_err(|e| error("The GPU refused a device", e))?;
    {
        let lost = lost.clone();
        let gone = device.lost();
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(info) = gone.await {
                if info.reason() != GpuDeviceLostReason::Destroyed {
                    let message = info.message();
                    *lost.borrow_mut() = Some(if message.is_empty() {
                        "the GPU device was lost".into()
                    } else {
                        message
                    });
                }
            }
        });
    }
    let device = Device(device);
    let d = &device.0;
    d.push_error_scope(GpuErrorFilter::OutOfMemory);
    d.push_error_scope(GpuErrorFilter::Validation);
    let module = d.create_shader_module(&GpuShaderModuleDescriptor::new(SHADER));
    let init = pipeline(d, &module, "init").await?;
    let probe = pipeline(d, &module, "probe").await?;
    let checked = pipeline(d, &module, "checked").await?;
    let data = buffer(d, plan.buffer_bytes, usage::STORAGE, "data")?;
    let sink = buffer(
        d,
        8,
        usage::STORAGE | usage::COPY_SRC | usage::COPY_DST,
        "sink",
    )?;
    let slots = u64::from(BASE_SLOTS);
    let params = buffer(d, slots * ALIGN, usage::UNIFORM | usage::COPY_DST, "params")?;
    let readback = buffer(d, 16, usage::MAP_READ | usage::COPY_DST, "readback")?;
    let timestamps = if info.timestamps {
        let set = d
            .create_query_set(&GpuQuerySetDescriptor::new(2, GpuQueryType::Timestamp))
            .map_err(|e| error("Creating the timestamp queries failed", e))?;
        let resolved = buffer(d, 16, usage::QUERY_RESOLVE | usage::COPY_SRC, "timestamps")?;
        Some((set, resolved))
    } else {
        None
    };
    let entries = |slot: u64| {
        let window = GpuBufferBinding::new(&params);
        window.set_offset_f64((slot * ALIGN) as f64);
        window.set_size(16);
        [
            GpuBindGroupEntry::new_with_gpu_buffer(0, &data),
            GpuBindGroupEntry::new_with_gpu_buffer(1, &sink),
            GpuBindGroupEntry::new_with_gpu_buffer_binding(2, &window),
        ]
    };
    let groups = (0..slots)
        .map(|slot| bind_group(d, &probe, &entries(slot)))
        .collect();
    let checked_groups = [
        bind_group(d, &checked, &entries(0)),
        bind_group(d, &checked, &entries(slots - 1)),
    ];
    let fill = bind_group(
        d,
        &init,
        &[GpuBindGroupEntry::new_with_gpu_buffer(3, &data)],
    );
    let encoder = d.create_command_encoder();
    let pass = encoder.begin_compute_pass();
    pass.set_pipeline(&init);
    pass.set_bind_group(0, Some(&fill));
    pass.dispatch_workgroups(1024);
    pass.end();
    d.queue().submit(&[encoder.finish()]);
    for _ in 0..2 {
        if let Ok(problem) = d.pop_error_scope().await {
            if let Some(problem) = problem.into_option() {
                return Err(Failure::Error(format!(
                    "The GPU refused the probe's setup ({} of data): {}",
                    size_text(plan.buffer_bytes),
                    problem.message()
                )));
            }
        }
    }
    let _ = d.queue().on_submitted_work_done().await;
    let bench = Bench {
        device,
        probe,
        checked,
        groups,
        checked_groups,
        params,
        sink,
        readback,
        timestamps,
        workgroups: plan.workgroups,
        lost,
    };
    bench.alive()?;
    Ok(bench)
}

/// Runs `plan` on a fresh device. Calls `progress` when a stage starts and after every
/// step, and stops at the next step once `cancelled` returns true. The device is destroyed
/// when this returns.
pub async fn run(
    plan: &Plan,
    progress: &dyn Fn(Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<Outcome, Failure> {
    let adapter = adapter().await.map_err(Failure::Error)?;
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
    Ok(Outcome {
        info,
        limits,
        timer,
        measurements,
    })
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
        let mut bytes = vec![0u8; (u64::from(BASE_SLOTS) * ALIGN) as usize];
        for (slot, base) in bases.iter().enumerate() {
            let words = [(base / 4) as u32, stride / 4, plan.n, 0];
            for (k, word) in words.iter().enumerate() {
                let at = slot * ALIGN as usize + k * 4;
                bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
            }
        }
        bench
            .device
            .0
            .queue()
            .write_buffer_with_u32_and_u8_slice(&bench.params, 0, &bytes)
            .map_err(|e| error("Writing the probe's parameters failed", e))?;
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
    let timer = if bench.timestamps.is_some() {
        Timer::Timestamps
    } else {
        Timer::WallClock
    };
    Ok((timer, measurements))
}
