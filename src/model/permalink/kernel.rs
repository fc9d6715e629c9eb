//! The kernel view's parameters: the launch (`grid`, `block`, `loop`, `cache`, `flops`), the
//! statements' `aN.*`, `kcompare`, the preset shown beside the kernel, and `kmeasure`, what
//! the heat map and the worst warps rank by. Its machine is
//! the calculator's, so a statement's notice is checked against the calculator as shown.

use super::{fallback_notice, first_per_field, Link, Params, State};
use crate::model::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use crate::model::kernel::{view, KernelField, KernelInputs, Machine, StmtField, StmtInputs};
use crate::model::warp::Measure;

/// The launch, the statements, `kcompare` and `kmeasure`.
pub(super) struct Kernel;

impl Params for Kernel {
    fn is_param(&self, key: &str) -> bool {
        key == "kcompare" || key == "kmeasure" || KernelField::from_param(key).is_some()
    }

    /// A statement exists when any of its `aN.*` parameters is in the link; with none in the
    /// link, the default kernel's statement stands. A `kcompare` that names no preset clears
    /// an earlier one.
    fn decode(&self, link: &Link, state: &mut State) {
        let mut kernel = KernelInputs::default();
        let fields: Vec<(KernelField, &String)> = link
            .pairs()
            .iter()
            .filter_map(|(k, v)| Some((KernelField::from_param(k)?, v)))
            .collect();
        if fields
            .iter()
            .any(|(f, _)| matches!(f, KernelField::Stmt(..)))
        {
            kernel.statements = Default::default();
        }
        for (field, value) in fields {
            kernel.set(field, value.clone());
        }
        state.kernel = kernel;
        for (key, value) in link.pairs() {
            if key == "kcompare" {
                state.kernel_compare = KernelPreset::by_id(value.trim());
            }
            if key == "kmeasure" {
                state.kernel_measure = Measure::parse(value);
            }
        }
    }

    /// Statements are written whole when they differ from the default kernel's, each with at
    /// least its `kind`, so that every statement present comes back.
    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        encode_kernel(&state.kernel, out);
        if let Some(preset) = state.kernel_compare {
            out.push(("kcompare".into(), preset.id.into()));
        }
        if let Some(measure) = state.kernel_measure {
            out.push(("kmeasure".into(), measure.name().into()));
        }
    }

    fn pair_warning(&self, key: &str, value: &str) -> Option<String> {
        match key {
            "kcompare" if KernelPreset::by_id(value.trim()).is_none() => Some(format!(
                "`kcompare={value}` is not a kernel preset ({}); comparing with none.",
                KERNEL_PRESETS.map(|p| p.id).join(", ")
            )),
            "kmeasure" => measure_warning(key, value),
            _ => None,
        }
    }

    fn warnings(&self, link: &Link, state: &State, out: &mut Vec<String>) {
        // The kernel's machine is the calculator's, as shown (bad fields at their defaults).
        let machine = Machine::shown_by(&state.calc);
        let (_, errors) = view::repair(&state.kernel, machine);
        for error in first_per_field(errors) {
            let param = error.field.param();
            let value = link
                .shown(&param)
                .unwrap_or_else(|| state.kernel.get(error.field));
            out.push(fallback_notice(
                &param,
                &value,
                error.message(),
                &KernelInputs::default_for(error.field),
            ));
        }
    }
}

fn encode_kernel(kernel: &KernelInputs, out: &mut Vec<(String, String)>) {
    let defaults = KernelInputs::default();
    for field in KernelField::LAUNCH {
        let value = kernel.get(field);
        if value != defaults.get(field) {
            out.push((field.param(), value));
        }
    }
    if kernel.statements == defaults.statements {
        return;
    }
    for (k, stmt) in kernel.statements.iter().enumerate() {
        if stmt.is_none() {
            continue;
        }
        let n = k as u8 + 1;
        let mut wrote = false;
        for f in StmtField::ALL {
            let field = KernelField::Stmt(n, f);
            let value = kernel.get(field);
            if value != StmtInputs::default_for(field) {
                out.push((field.param(), value));
                wrote = true;
            }
        }
        if !wrote {
            let kind = KernelField::Stmt(n, StmtField::Kind);
            out.push((kind.param(), kernel.get(kind)));
        }
    }
}

/// The notice for a `kmeasure` or `cmeasure` that names no measure.
pub(super) fn measure_warning(key: &str, value: &str) -> Option<String> {
    Measure::parse(value).is_none().then(|| {
        format!(
            "`{key}={value}` is not a measure ({}); ranking by the kernel's default.",
            Measure::ALL.map(Measure::name).join(", ")
        )
    })
}
