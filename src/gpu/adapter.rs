//! Finding an adapter: what it says of itself and its limits, or why there is none.

use crate::model::probe::{AdapterInfo, Limits};
use js_sys::Reflect;
use std::fmt;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{GpuAdapter, GpuPowerPreference, GpuRequestAdapterOptions};

/// What [`detect`] found.
pub enum Detection {
    /// An adapter, with what it says of itself and its limits.
    Ready {
        /// Vendor, architecture, fallback flag and whether `timestamp-query` is offered.
        info: AdapterInfo,
        /// The buffer and dispatch limits a plan must fit.
        limits: Limits,
    },
    /// No WebGPU here, and why.
    Unavailable(Unavailable),
}

/// Why there is no adapter, worded for people by `Display`.
#[derive(Clone, Debug, PartialEq)]
pub enum Unavailable {
    /// No window (not a page).
    NoWindow,
    /// `navigator.gpu` is missing in a secure context: the browser does not offer WebGPU.
    NotOffered,
    /// `navigator.gpu` is missing because the page is not a secure context.
    Insecure,
    /// WebGPU is there but gave no adapter.
    NoAdapter,
    /// Asking for an adapter failed, with what the browser said.
    RequestFailed(String),
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::NoWindow => f.write_str("There is no window to run WebGPU in."),
            Unavailable::NotOffered => f.write_str("This browser does not offer WebGPU (navigator.gpu is missing). Recent Chrome, Edge, Safari and Firefox releases offer it on most systems; elsewhere it may be turned off or behind a flag."),
            Unavailable::Insecure => f.write_str("WebGPU needs a secure context: open this page over https:// or from localhost. It is unavailable here, so the probe cannot run."),
            Unavailable::NoAdapter => f.write_str("WebGPU is present but gave no adapter: it is turned off or blocked for this GPU or driver (a browser flag, a policy or the browser's blocklist), or there is no usable GPU."),
            Unavailable::RequestFailed(why) => write!(f, "Asking for a WebGPU adapter failed: {why}"),
        }
    }
}

impl std::error::Error for Unavailable {}

/// `navigator.gpu`, or why there is none.
fn gpu() -> Result<web_sys::Gpu, Unavailable> {
    let Some(window) = web_sys::window() else {
        return Err(Unavailable::NoWindow);
    };
    let secure = Reflect::get(&window, &"isSecureContext".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let navigator = window.navigator();
    let gpu = Reflect::get(&navigator, &"gpu".into()).unwrap_or(JsValue::UNDEFINED);
    if gpu.is_undefined() || gpu.is_null() {
        return Err(if secure {
            Unavailable::NotOffered
        } else {
            Unavailable::Insecure
        });
    }
    Ok(gpu.unchecked_into())
}

/// A high-performance adapter, or why there is none.
pub(super) async fn adapter() -> Result<GpuAdapter, Unavailable> {
    let gpu = gpu()?;
    let options = GpuRequestAdapterOptions::new();
    options.set_power_preference(GpuPowerPreference::HighPerformance);
    match gpu.request_adapter_with_options(&options).await {
        Ok(adapter) => adapter.into_option().ok_or(Unavailable::NoAdapter),
        Err(e) => Err(Unavailable::RequestFailed(
            e.as_string().unwrap_or_else(|| format!("{e:?}")),
        )),
    }
}

/// What the adapter says of itself, and its limits.
pub(super) fn describe(adapter: &GpuAdapter) -> (AdapterInfo, Limits) {
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
