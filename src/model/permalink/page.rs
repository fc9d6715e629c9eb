//! The page's own parameters: `tab`, the panel on show, and `embed`, the page without its
//! frame for an iframe.

use super::{Link, Params, State};

/// The panel on show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tab {
    /// The sector calculator, the default: no `tab` in the link.
    #[default]
    Calculator,
    /// The roofline lab and machine mode: `tab=roofline`.
    Roofline,
    /// The WebGPU strided-load probe: `tab=probe`.
    Probe,
    /// The kernel view, a whole launch: `tab=kernel`.
    Kernel,
    /// The trace import (NVBit or Accel-Sim): `tab=trace`.
    Trace,
    /// CUDA C++ source, interpreted launch by launch: `tab=cuda`.
    Cuda,
}

impl Tab {
    /// The `tab` parameter's value; the calculator is the default and is omitted.
    pub fn param(self) -> &'static str {
        match self {
            Tab::Calculator => "calculator",
            Tab::Roofline => "roofline",
            Tab::Probe => "probe",
            Tab::Kernel => "kernel",
            Tab::Trace => "trace",
            Tab::Cuda => "cuda",
        }
    }

    /// The tab whose `tab` value is `param`, if any.
    pub fn from_param(param: &str) -> Option<Tab> {
        [
            Tab::Calculator,
            Tab::Roofline,
            Tab::Probe,
            Tab::Kernel,
            Tab::Trace,
            Tab::Cuda,
        ]
        .into_iter()
        .find(|t| t.param() == param)
    }
}

/// `tab` and `embed`.
pub(super) struct Page;

impl Params for Page {
    fn is_param(&self, key: &str) -> bool {
        matches!(key, "tab" | "embed")
    }

    fn decode(&self, link: &Link, state: &mut State) {
        for (key, value) in link.pairs() {
            match key.as_str() {
                "tab" => state.tab = Tab::from_param(value).unwrap_or_default(),
                "embed" => state.embed = value == "1",
                _ => {}
            }
        }
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        if state.tab != Tab::default() {
            out.push(("tab".into(), state.tab.param().into()));
        }
        if state.embed {
            out.push(("embed".into(), "1".into()));
        }
    }

    fn pair_warning(&self, key: &str, value: &str) -> Option<String> {
        match key {
            "tab" if Tab::from_param(value).is_none() => Some(format!(
                "`tab={value}` is not a panel (calculator, kernel, trace, roofline or probe); showing the calculator."
            )),
            "embed" if value != "0" && value != "1" => Some(format!(
                "`embed={value}` is not 0 or 1; showing the full page."
            )),
            _ => None,
        }
    }
}
