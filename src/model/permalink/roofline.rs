//! The Roofline lab's parameters: the course lab's `oi`, `bw`, `trail` and `prev`, and the
//! machine mode's `roofs`, `machine`, `bw.N`, `peak.N` and `pt.N` (read and written by
//! `roofline::machine_link`).

use super::{Link, Params, State};
use crate::model::roofline::{self, Knob, MachineInputs, MAX_TRAIL};

/// The course lab: `oi`, `bw`, `trail` and `prev`.
pub(super) struct Lab;

/// The course lab's parameters, in the order they are written.
const LAB: [Knob; 4] = [Knob::Oi, Knob::Bw, Knob::Trail, Knob::Previous];

impl Params for Lab {
    fn is_param(&self, key: &str) -> bool {
        LAB.iter().any(|knob| knob.param() == key)
    }

    fn decode(&self, link: &Link, state: &mut State) {
        for (key, value) in link.pairs() {
            if let Some(knob) = LAB.into_iter().find(|knob| knob.param() == key) {
                state.lab.set(knob, value.clone());
            }
        }
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        let defaults = roofline::Lab::default();
        for knob in LAB {
            let value = state.lab.get(knob);
            if value != defaults.get(knob) {
                out.push((knob.param().into(), value.into()));
            }
        }
    }

    fn warnings(&self, link: &Link, state: &State, out: &mut Vec<String>) {
        let lab = state.lab.check();
        for error in lab.errors {
            let param = error.field.param();
            if matches!(error.field, Knob::Trail | Knob::Previous) {
                // A trail can be long: name the entry, not the whole value.
                out.push(format!("`{param}` {}; it was left out.", error.message()));
                continue;
            }
            let value = link.shown(param).unwrap_or_default();
            let fallback = roofline::Lab::default().get(error.field).to_string();
            out.push(format!(
                "`{param}={value}` {}; using {fallback}.",
                error.message()
            ));
        }
        if lab.dropped > 0 {
            out.push(format!(
                "The trail is longer than the {MAX_TRAIL} points the lab keeps; {} of the oldest were left out.",
                lab.dropped
            ));
        }
    }
}

/// The machine mode: `roofs`, `machine`, `bw.N`, `peak.N` and `pt.N`.
pub(super) struct Machine;

impl Params for Machine {
    fn is_param(&self, key: &str) -> bool {
        MachineInputs::is_param(key)
    }

    fn decode(&self, link: &Link, state: &mut State) {
        state.roofs = MachineInputs::from_pairs(link.pairs().iter().cloned());
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        state.roofs.to_pairs(out);
    }

    fn warnings(&self, link: &Link, _state: &State, out: &mut Vec<String>) {
        out.extend(MachineInputs::link_warnings(link.pairs(), |key| {
            link.shown(key)
        }));
    }
}
