//! The CUDA source panel's parameters: `src`, the source text, and `launch`, the launch as
//! host code writes it. Its cache is the kernel view's `cache` and its machine the
//! calculator's `arch`, `warp`, `sector` and `line`, read by their own panels.
//!
//! Both values travel as typed, empty when the link has none; what an empty one stands for
//! (the default kernel, the launch that goes with the source) is the panel's to say
//! (`model::cuda_view::CudaInputs::from_link`). Whether they read is known only once the
//! panel has parsed them (the CUDA reader travels in the panel's chunk, not in the first
//! load), so a bad value is named by the panel, beside its field, with the default kernel
//! shown instead.

use super::{Link, Params, State};

/// `src` and `launch`.
pub(super) struct Cuda;

impl Params for Cuda {
    fn is_param(&self, key: &str) -> bool {
        matches!(key, "src" | "launch")
    }

    fn decode(&self, link: &Link, state: &mut State) {
        state.cuda_src = link.shown("src").unwrap_or_default();
        state.cuda_launch = link.shown("launch").unwrap_or_default();
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        for (key, value) in [("src", &state.cuda_src), ("launch", &state.cuda_launch)] {
            if !value.is_empty() {
                out.push((key.into(), value.clone()));
            }
        }
    }
}
