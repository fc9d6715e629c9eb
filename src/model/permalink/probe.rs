//! The GPU probe's parameters: `strides` and `n`. Its results are never in the URL, and a
//! link never starts the probe.

use super::{Link, Params, State};
use crate::model::probe::{ProbeField, ProbeInputs};

/// The probe's parameters, in the order they are written.
const FIELDS: [ProbeField; 2] = [ProbeField::Strides, ProbeField::N];

/// The raw text of `field`.
fn get(probe: &ProbeInputs, field: ProbeField) -> &str {
    match field {
        ProbeField::Strides => &probe.strides,
        ProbeField::N => &probe.n,
    }
}

/// Replaces the raw text of `field`.
fn set(probe: &mut ProbeInputs, field: ProbeField, value: String) {
    match field {
        ProbeField::Strides => probe.strides = value,
        ProbeField::N => probe.n = value,
    }
}

/// `strides` and `n`.
pub(super) struct Probe;

impl Params for Probe {
    fn is_param(&self, key: &str) -> bool {
        FIELDS.iter().any(|f| f.param() == key)
    }

    fn decode(&self, link: &Link, state: &mut State) {
        for (key, value) in link.pairs() {
            if let Some(field) = FIELDS.into_iter().find(|f| f.param() == key) {
                set(&mut state.probe, field, value.clone());
            }
        }
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        let defaults = ProbeInputs::default();
        for field in FIELDS {
            let value = get(&state.probe, field);
            if value != get(&defaults, field) {
                out.push((field.param().into(), value.into()));
            }
        }
    }

    fn warnings(&self, link: &Link, state: &State, out: &mut Vec<String>) {
        if let Err(errors) = state.probe.check() {
            // The probe keeps a bad value in its field, marked, and will not run until it is
            // fixed: there is no fallback to announce.
            for error in errors {
                let param = error.field.param();
                let value = link.shown(param).unwrap_or_default();
                out.push(format!(
                    "`{param}={value}`: {}; fix it in the GPU probe before running.",
                    error.message()
                ));
            }
        }
    }
}
