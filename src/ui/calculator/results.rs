//! The results: feedback on a prediction, the readouts, the notes, the figures, the
//! hand-off to the Roofline lab and the derivation.

use super::figures::{MapFigure, RampFigure};
use crate::model::derivation::derive;
use crate::model::inputs::FieldError;
use crate::model::predict::Verdict;
use crate::model::readouts::{alignment_note, broadcast_note, readouts, summary};
use crate::model::sectors::Analysis;
use crate::ui::roofline_handoffs::UseInRoofline;
use crate::ui::widgets::ReadoutList;
use crate::ui::AppState;
use leptos::prelude::*;

#[component]
pub(super) fn Results(
    shown: Memo<Analysis>,
    errors: Memo<Vec<FieldError>>,
    state: AppState,
    verdict: RwSignal<Option<Verdict>>,
    feedback: Memo<Option<String>>,
    highlighted: RwSignal<Option<u32>>,
) -> impl IntoView {
    let stale = move || errors.with(|e| !e.is_empty());
    let predict_again = move |_| verdict.set(None);
    view! {
        <div class="results" aria-labelledby="results-title">
            <h3 id="results-title">"Results"</h3>
            <Show when=move || state.predict.get() && feedback.with(Option::is_some)>
                <div class="note broadcast feedback">
                    <p data-testid="prediction-feedback" aria-live="polite">
                        {move || feedback.get().unwrap_or_default()}
                    </p>
                    <button type="button" data-testid="predict-again" on:click=predict_again>
                        "Predict again"
                    </button>
                </div>
            </Show>
            {move || {
                stale()
                    .then(|| {
                        view! {
                            <p class="stale" data-testid="stale">
                                "Showing the last valid results: fix the field marked in red."
                            </p>
                        }
                    })
            }}
            <ReadoutList readouts=Signal::derive(move || shown.with(readouts)) stale=Signal::derive(stale) />
            <p class="visually-hidden" aria-live="polite" data-testid="summary">
                {Signal::derive(move || shown.with(summary))}
            </p>
            {move || {
                shown
                    .with(broadcast_note)
                    .map(|note| {
                        view! {
                            <p class="note broadcast" data-testid="broadcast-note">
                                <strong>"Why above 100 %? "</strong>
                                {note}
                            </p>
                        }
                    })
            }}
            {move || {
                shown
                    .with(alignment_note)
                    .map(|note| {
                        view! {
                            <p class="note warning" data-testid="alignment-warning" role="note">
                                <strong>"Misaligned: "</strong>
                                {note}
                            </p>
                        }
                    })
            }}
            <MapFigure shown=shown inputs=state.calc state=state highlighted=highlighted />
            // The ramp reads addresses against sectors: a global-memory picture.
            <Show when=move || shown.with(|a| a.banks.is_none())>
                <RampFigure shown=shown inputs=state.calc state=state />
            </Show>
            <UseInRoofline shown=shown errors=errors state=state />
            <h3 id="derivation-title">"Derivation"</h3>
            <ol class="derivation" data-testid="derivation" aria-labelledby="derivation-title">
                {move || {
                    shown
                        .with(derive)
                        .into_iter()
                        .map(|step| view! { <li>{step}</li> })
                        .collect_view()
                }}
            </ol>
        </div>
    }
}
