//! Scenario B beside A: the course's pairs, B's inputs, both sides' totals and pictures.

use super::figures::{MapFigure, RampFigure};
use super::form::{ArchField, CalcField, SpaceField, FIELDS};
use super::{track, Tracked};
use crate::model::compare::{pair_for, pairs, sentence};
use crate::model::inputs::Inputs;
use crate::model::readouts::readouts;
use crate::ui::widgets::ReadoutList;
use crate::ui::AppState;
use leptos::prelude::*;

/// Scenario B beside A: the course's pairs, B's inputs, both sides' totals and pictures, and
/// how many times more (or fewer) bytes and sectors B moves.
#[component]
pub(super) fn Comparison(
    state: AppState,
    a: Tracked,
    /// While a prediction is pending, both sides keep their answers back, like the results.
    hidden: Signal<bool>,
) -> impl IntoView {
    let b = track(state.b);
    let all = pairs();
    // The course pair the two scenarios are, if they still are one: it names the sides.
    let current = {
        let all = all.clone();
        Memo::new(move |_| {
            state.calc.with(|a| {
                state
                    .b
                    .with(|b| pair_for(&all, a, b).map(|p| (p.id, p.a_name, p.b_name)))
            })
        })
    };
    let names = Signal::derive(move || {
        current
            .get()
            .map_or(("scenario A", "scenario B"), |(_, a, b)| (a, b))
    });
    let picked = Signal::derive(move || {
        current
            .get()
            .filter(|_| state.comparing.get())
            .map_or("", |(id, _, _)| id)
            .to_string()
    });
    let pick = {
        let all = all.clone();
        move |ev: leptos::ev::Event| {
            if let Some(pair) = all.iter().find(|p| p.id == event_target_value(&ev)) {
                state.calc.set(pair.a.clone());
                state.b.set(pair.b.clone());
                state.comparing.set(true);
            }
        }
    };
    let toggle = move |_| {
        if !state.comparing.get_untracked() && state.b.with_untracked(|b| *b == Inputs::default()) {
            state.b.set(state.calc.get_untracked());
        }
        state.comparing.update(|on| *on = !*on);
    };
    let ratio = Signal::derive(move || {
        let (a_name, b_name) = names.get();
        a.shown
            .with(|x| b.shown.with(|y| sentence(a_name, x, b_name, y)))
    });
    let unused = RwSignal::new(None::<u32>);
    view! {
        <div class="compare-bar">
            <label for="pair">"Compare two scenarios"</label>
            <select id="pair" data-testid="pair" on:change=pick prop:value=picked>
                <option value="">"Pick a course pair…"</option>
                {all.iter().map(|p| view! { <option value=p.id>{p.name}</option> }).collect_view()}
            </select>
            <button
                type="button"
                data-testid="compare"
                aria-pressed=Signal::derive(move || state.comparing.get().to_string())
                on:click=toggle
            >
                {move || if state.comparing.get() { "Stop comparing" } else { "Compare with a scenario B" }}
            </button>
        </div>
        <Show when=move || state.comparing.get()>
            <section class="comparison" aria-labelledby="comparison-title">
                <h3 id="comparison-title">"Side by side"</h3>
                <Show
                    when=move || !hidden.get()
                    fallback=|| view! {
                        <p class="note" data-testid="comparison-withheld">
                            "Both sides' totals and pictures appear once you reveal your prediction above."
                        </p>
                    }
                >
                    <p class="note broadcast" data-testid="comparison" aria-live="polite">{ratio}</p>
                </Show>
                <div class="sides">
                    <div class="side">
                        <h4>"A: " {move || names.get().0}</h4>
                        <SideResults side=a state=state hidden=hidden highlighted=unused prefix="a." />
                    </div>
                    <div class="side">
                        <h4>"B: " {move || names.get().1}</h4>
                        <SideResults side=b state=state hidden=hidden highlighted=unused prefix="b." />
                        <details class="b-inputs" open>
                            <summary>"Scenario B's inputs"</summary>
                            <ArchField inputs=b.inputs errors=b.errors b=true />
                            <SpaceField inputs=b.inputs errors=b.errors b=true />
                            {FIELDS
                                .iter()
                                .map(|spec| view! { <CalcField spec=spec inputs=b.inputs errors=b.errors b=true /> })
                                .collect_view()}
                        </details>
                    </div>
                </div>
            </section>
        </Show>
    }
}

/// One side's totals and pictures, their test ids after `prefix`; held back while `hidden`.
#[component]
fn SideResults(
    side: Tracked,
    state: AppState,
    hidden: Signal<bool>,
    /// The lane ringed on the side's map.
    highlighted: RwSignal<Option<u32>>,
    prefix: &'static str,
) -> impl IntoView {
    view! {
        <Show when=move || !hidden.get()>
            <ReadoutList readouts=Signal::derive(move || side.shown.with(readouts)) prefix=prefix />
            <MapFigure shown=side.shown inputs=side.inputs state=state highlighted=highlighted prefix=prefix />
            <Show when=move || side.shown.with(|x| x.banks.is_none())>
                <RampFigure shown=side.shown inputs=side.inputs state=state prefix=prefix />
            </Show>
        </Show>
    }
}
