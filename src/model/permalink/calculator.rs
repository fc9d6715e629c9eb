//! The sector calculator's parameters: its fields (`arch`, `space`, `warp`, `elem`, `base`,
//! `idx`, `active`, `addrs`, `sector`, `line`), `predict`, and scenario B beside it:
//! `compare=1` and the same fields prefixed `b.`.

use super::{fallback_notice, first_per_field, Link, Params, State};
use crate::model::arch::Arch;
use crate::model::inputs::{Field, Inputs};
use crate::model::sectors::repair;

/// The prefix of scenario B's parameters.
pub const B_PREFIX: &str = "b.";

/// The calculator: its fields, `predict`, `compare` and the `b.` fields.
pub(super) struct Calculator;

impl Params for Calculator {
    fn is_param(&self, key: &str) -> bool {
        matches!(key, "predict" | "compare")
            || Field::from_param(key.strip_prefix(B_PREFIX).unwrap_or(key)).is_some()
    }

    fn decode(&self, link: &Link, state: &mut State) {
        state.calc = decode_inputs(link, "");
        // Any `b.` parameter turns B on, unless a later `compare` says otherwise.
        let mut compare = false;
        for (key, value) in link.pairs() {
            match key.as_str() {
                "predict" => state.predict = value == "1",
                "compare" => compare = value == "1",
                key if key.starts_with(B_PREFIX) => compare = true,
                _ => {}
            }
        }
        if compare {
            state.compare = Some(decode_inputs(link, B_PREFIX));
        }
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        if state.predict {
            out.push(("predict".into(), "1".into()));
        }
        if state.compare.is_some() {
            out.push(("compare".into(), "1".into()));
        }
        encode_inputs(&state.calc, "", out);
        if let Some(b) = &state.compare {
            encode_inputs(b, B_PREFIX, out);
        }
    }

    fn pair_warning(&self, key: &str, value: &str) -> Option<String> {
        match key {
            "predict" if value != "0" && value != "1" => Some(format!(
                "`predict={value}` is not 0 or 1; showing the results at once."
            )),
            "compare" if value != "0" && value != "1" => Some(format!(
                "`compare={value}` is not 0 or 1; showing one scenario."
            )),
            _ => None,
        }
    }

    fn warnings(&self, link: &Link, state: &State, out: &mut Vec<String>) {
        let scenarios =
            std::iter::once(("", &state.calc)).chain(state.compare.as_ref().map(|b| (B_PREFIX, b)));
        for (prefix, inputs) in scenarios {
            let (_, errors) = repair(inputs);
            for error in first_per_field(errors) {
                let param = format!("{prefix}{}", error.field.param());
                let value = link
                    .shown(&param)
                    .unwrap_or_else(|| inputs.get(error.field).to_string());
                out.push(fallback_notice(
                    &param,
                    &value,
                    error.message(),
                    &inputs.default_for(error.field),
                ));
            }
        }
    }
}

/// Reads one scenario's fields, those whose parameters start with `prefix`. The architecture
/// goes first, wherever it stands: it supplies the defaults that explicit warp, sector and
/// line then override.
fn decode_inputs(link: &Link, prefix: &str) -> Inputs {
    let mut inputs = Inputs::default();
    let ours = || {
        link.pairs()
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?, v)))
    };
    if let Some((_, arch)) = ours().rfind(|(k, _)| *k == "arch") {
        let preset = inputs.with_arch(Arch::by_id(arch).unwrap_or(Arch::default_arch()));
        inputs = Inputs { arch: arch.clone(), ..preset };
    }
    for (key, value) in ours() {
        if let Some(field) = Field::from_param(key) {
            inputs.set(field, value.clone());
        }
    }
    inputs
}

/// Writes one scenario's fields that differ from their defaults, prefixed.
fn encode_inputs(inputs: &Inputs, prefix: &str, out: &mut Vec<(String, String)>) {
    for field in Field::ALL {
        // Warp, sector and line are omitted when the architecture supplies them.
        let value = inputs.get(field);
        if value != inputs.preset_value(field) {
            out.push((format!("{prefix}{}", field.param()), value.to_string()));
        }
    }
}
