//! The CUDA source panel's parameters: `cpreset`, a preset's id; `src`, the source text, or
//! `srcz`, the same packed (`model::cuda::link`); `hdrz`, the headers beside it, packed; `launch`, the launch as host code writes
//! it; `defines`, the defines given beside the source, as nvcc's `-D` (`N=4096 B=256`);
//! `cflops`, the FLOPs per thread for the Roofline lab; `cmeasure`, what the heat map
//! and the worst warps rank by (as the kernel view's `kmeasure`); and for a whole program,
//! `argv`, its arguments, and `pick`, the launch on show (an index or `all`), whose presence
//! runs the program. Its cache is the kernel view's
//! `cache` and its machine the calculator's `arch`, `warp`, `sector` and `line`, read by their
//! own panels.
//!
//! The values travel as typed, empty when the link has none; what they stand for together
//! (a preset's source and launch, the default kernel, the launch that goes with the source)
//! is the panel's to say (`model::cuda_view::CudaLink`). Whether a source reads, and whether
//! `srcz` unpacks, is known only once the panel has read them (the CUDA reader and the
//! inflater travel in the panel's chunk, not in the first load), so a bad value is named by
//! the panel, with the default kernel shown instead. `cpreset` is checked here, against the
//! presets' ids, which are all of the presets the first load carries, and so is `cflops`: a
//! bad count stays in its field, named there and in the notice, and the hand-off counts none.

use super::kernel::measure_warning;
use super::{fallback_notice, Link, Params, State};
use crate::model::cuda::presets::{CUDA_PRESET_IDS, PROGRAM_PRESET_IDS};
use crate::model::flops::CUDA_FLOPS;
use crate::model::warp::Measure;

/// `cpreset`, `src`, `srcz`, `hdrz`, `launch`, `defines`, `cflops`, `cmeasure`, `argv` and `pick`.
pub(super) struct Cuda;

/// Whether `id` names a CUDA preset.
fn is_preset(id: &str) -> bool {
    CUDA_PRESET_IDS.contains(&id) || PROGRAM_PRESET_IDS.contains(&id)
}

/// Whether `value` names a launch of a program: its index, or `all` (as the panel's
/// `model::cuda_view::Pick` reads it; that module travels in the panel's chunk).
fn is_pick(value: &str) -> bool {
    let value = value.trim();
    value == "all" || value.parse::<usize>().is_ok()
}

impl Params for Cuda {
    fn is_param(&self, key: &str) -> bool {
        matches!(
            key,
            "cpreset"
                | "src"
                | "srcz"
                | "hdrz"
                | "launch"
                | "defines"
                | "cflops"
                | "cmeasure"
                | "argv"
                | "pick"
        )
    }

    /// A `cpreset` that names no preset is dropped.
    fn decode(&self, link: &Link, state: &mut State) {
        state.cuda_preset = link
            .shown("cpreset")
            .map(|id| id.trim().to_string())
            .filter(|id| is_preset(id))
            .unwrap_or_default();
        state.cuda_src = link.shown("src").unwrap_or_default();
        state.cuda_srcz = link.shown("srcz").unwrap_or_default();
        state.cuda_hdrz = link.shown("hdrz").unwrap_or_default();
        state.cuda_launch = link.shown("launch").unwrap_or_default();
        state.cuda_defines = link.shown("defines").unwrap_or_default();
        state.cuda_flops = link.shown("cflops").unwrap_or_default();
        state.cuda_measure = link.shown("cmeasure").and_then(|m| Measure::parse(&m));
        state.cuda_argv = link.shown("argv").unwrap_or_default();
        state.cuda_pick = link
            .shown("pick")
            .filter(|p| is_pick(p))
            .map(|p| p.trim().to_string())
            .unwrap_or_default();
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        for (key, value) in [
            ("cpreset", &state.cuda_preset),
            ("src", &state.cuda_src),
            ("srcz", &state.cuda_srcz),
            ("hdrz", &state.cuda_hdrz),
            ("launch", &state.cuda_launch),
            ("defines", &state.cuda_defines),
            ("cflops", &state.cuda_flops),
            ("argv", &state.cuda_argv),
            ("pick", &state.cuda_pick),
        ] {
            if !value.is_empty() {
                out.push((key.into(), value.clone()));
            }
        }
        if let Some(measure) = state.cuda_measure {
            out.push(("cmeasure".into(), measure.name().into()));
        }
    }

    fn pair_warning(&self, key: &str, value: &str) -> Option<String> {
        match key {
            "cpreset" if !is_preset(value.trim()) => Some(format!(
                "`cpreset={value}` is not a CUDA preset ({}); it was ignored.",
                CUDA_PRESET_IDS
                    .iter()
                    .chain(PROGRAM_PRESET_IDS.iter())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            "cmeasure" => measure_warning(key, value),
            "pick" if !is_pick(value) => Some(format!(
                "`pick={value}` is not a launch of the program (its index from 0, or all); it \
                 was ignored."
            )),
            _ => None,
        }
    }

    /// A `cflops` that is not a count, named as the field names it.
    fn warnings(&self, link: &Link, state: &State, out: &mut Vec<String>) {
        if let Err(e) = CUDA_FLOPS.read(&state.cuda_flops) {
            let value = link.shown("cflops").unwrap_or_default();
            out.push(fallback_notice("cflops", &value, &e.to_string(), ""));
        }
    }
}
