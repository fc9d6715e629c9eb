//! One run's bench: the device, the pipelines, the buffers and bind groups, the data filled
//! on the GPU, and the passes (checked and timed) it runs.

use super::{error, Failure};
use crate::model::format::size_text;
use crate::model::probe::{AdapterInfo, Plan, Timer, ALIGN_BYTES, BASE_SLOTS, PARAMS_BYTES};
use js_sys::Reflect;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{
    gpu_buffer_usage as usage, GpuAdapter, GpuAutoLayoutMode, GpuBindGroup, GpuBindGroupDescriptor,
    GpuBindGroupEntry, GpuBuffer, GpuBufferBinding, GpuBufferDescriptor, GpuComputePassDescriptor,
    GpuComputePassTimestampWrites, GpuComputePipeline, GpuComputePipelineDescriptor, GpuDevice,
    GpuDeviceDescriptor, GpuDeviceLostReason, GpuErrorFilter, GpuProgrammableStage, GpuQuerySet,
    GpuQuerySetDescriptor, GpuQueryType, GpuShaderModuleDescriptor,
};

/// The kernels, in their own file.
const SHADER: &str = include_str!("probe.wgsl");
/// Destroys the device when the run ends, however it ends.
pub(super) struct Device(GpuDevice);

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
pub(super) struct Bench {
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
    pub(super) fn alive(&self) -> Result<(), Failure> {
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

    /// Writes the uniform slots of one stride (see `Plan::uniforms`).
    pub(super) fn write_params(&self, bytes: &[u8]) -> Result<(), Failure> {
        self.device
            .0
            .queue()
            .write_buffer_with_u32_and_u8_slice(&self.params, 0, bytes)
            .map_err(|e| error("Writing the probe's parameters failed", e))
    }

    /// How the passes are timed.
    pub(super) fn timer(&self) -> Timer {
        if self.timestamps.is_some() {
            Timer::Timestamps
        } else {
            Timer::WallClock
        }
    }

    /// One checked pass at the first (`last` false) or the last base slot: the sum of every
    /// value read.
    pub(super) async fn checksum(&self, last: bool) -> Result<u32, Failure> {
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
    pub(super) async fn pass(&self, reps: u32) -> Result<f64, Failure> {
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
pub(super) async fn setup(
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
    let params = buffer(
        d,
        slots * ALIGN_BYTES,
        usage::UNIFORM | usage::COPY_DST,
        "params",
    )?;
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
        window.set_offset_f64((slot * ALIGN_BYTES) as f64);
        window.set_size(PARAMS_BYTES as u32);
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
