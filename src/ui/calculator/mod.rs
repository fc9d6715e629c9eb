//! The sector calculator panel: inputs, totals, derivation and the lane table.
//!
//! Its parts: `form` (the inputs), `results` (readouts, notes, derivation, hand-off),
//! `figures` (sector map and ramp), `lanes` (the lane table) and `comparison` (scenario B).

mod comparison;
mod figures;
mod form;
mod lanes;
mod results;

use crate::model::inputs::{FieldError, Inputs};
use crate::model::predict::Verdict;
use crate::model::sectors::{analyze, analyze_repaired, Analysis};
use crate::ui::AppState;
use comparison::Comparison;
use form::{PredictPanel, ScenarioForm};
use lanes::LaneTable;
use leptos::prelude::*;
use results::Results;

/// One scenario's inputs and what is derived from them.
#[derive(Clone, Copy)]
struct Tracked {
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    /// The analysis on show: the last valid one while a field is in error; for a bad first
    /// link, the scenario with its bad fields at their defaults.
    shown: Memo<Analysis>,
}

fn track(inputs: RwSignal<Inputs>) -> Tracked {
    let settled = after_paint(inputs);
    let checked = Memo::new(move |_| settled.with(analyze));
    let errors =
        Memo::new(move |_| checked.with(|c| c.as_ref().err().cloned().unwrap_or_default()));
    let shown = Memo::new(move |previous: Option<&Analysis>| {
        checked.with(|c| match (c, previous) {
            (Ok(analysis), _) => analysis.clone(),
            (Err(_), Some(previous)) => previous.clone(),
            (Err(_), None) => settled.with_untracked(analyze_repaired),
        })
    });
    Tracked { inputs, errors, shown }
}

/// `inputs` as the results show them: the same value, taken after the paint that follows an
/// edit. A keystroke's own frame then carries only the field's new text and its caret; the
/// checks, the analysis and the results' DOM (readouts, lane rows, figures, errors) come in a
/// task after that paint, with their own frame. Edits that land before it are taken together.
/// While an edit waits, the page's root element carries `data-pending`, which the browser
/// tests wait on.
fn after_paint(inputs: RwSignal<Inputs>) -> RwSignal<Inputs> {
    use std::cell::Cell;
    use std::rc::Rc;
    let settled = RwSignal::new(inputs.get_untracked());
    let waiting = Rc::new(Cell::new(false));
    Effect::new(move |first: Option<()>| {
        inputs.track();
        if first.is_none() || waiting.replace(true) {
            return;
        }
        mark_pending(1);
        let waiting = Rc::clone(&waiting);
        // requestAnimationFrame runs before this frame's paint; a zero timeout set there runs
        // after it.
        request_animation_frame(move || {
            set_timeout(
                move || {
                    waiting.set(false);
                    // `try_`: the panel may have been dropped since (a disposed signal).
                    if let Some(now) = inputs.try_get_untracked() {
                        if settled.try_with_untracked(|s| *s != now) == Some(true) {
                            settled.try_set(now);
                        }
                    }
                    mark_pending(-1);
                },
                std::time::Duration::ZERO,
            );
        });
    });
    settled
}

thread_local!(static PENDING: std::cell::Cell<i32> = const { std::cell::Cell::new(0) });

/// Counts a scenario's edit in (`1`) or out (`-1`) of waiting, on the root element.
fn mark_pending(step: i32) {
    let now = PENDING.with(|p| {
        p.set(p.get() + step);
        p.get()
    });
    if let Some(root) = document().document_element() {
        let _ = if now > 0 {
            root.set_attribute("data-pending", "")
        } else {
            root.remove_attribute("data-pending")
        };
    }
}

/// The calculator for the scenario in the page's state.
#[component]
pub fn Calculator(state: AppState) -> impl IntoView {
    let a = track(state.calc);
    let Tracked { inputs, errors, shown } = a;

    // predict=1: results stay hidden until the learner commits to an N_tx and reveals. The
    // verdict belongs to its scenario: any change of the inputs retires it, which hides the
    // results again and asks for a new prediction.
    let verdict = RwSignal::new(None::<Verdict>);
    let feedback = Memo::new(move |_| {
        verdict.with(|v| {
            v.as_ref()
                .and_then(|v| inputs.with(|i| v.feedback_for(i).map(str::to_string)))
        })
    });
    let hidden = Signal::derive(move || state.predict.get() && feedback.with(Option::is_none));
    // The lane under the pointer in the sector map or the lane table: highlighted in both.
    let highlighted = RwSignal::new(None::<u32>);
    let stage = stages();
    view! {
        <section class="calculator" aria-labelledby="calc-title">
            <h2 id="calc-title">"Sector calculator"</h2>
            <p class="lead">
                "One warp memory instruction: each active lane " <i>"t"</i> " reads bytes "
                <code>"[A(t), A(t)+elem)"</code> " with " <code>"A(t) = base + elem·idx(t)"</code>
                ". The memory system moves whole aligned sectors; count them."
            </p>
            <Introduction />
            // Comparing is one of the calculator's main uses: its bar comes first, not after
            // the lane table.
            <Comparison state=state a=a hidden=hidden />
            <div class="layout">
                <ScenarioForm inputs=inputs errors=errors state=state verdict=verdict hidden=hidden />
                <div class="outputs">
                    <Show
                        when=move || !hidden.get()
                        fallback=move || {
                            view! { <PredictPanel shown=shown inputs=inputs verdict=verdict /> }
                        }
                    >
                        <Show when=move || reached(stage, RESULTS)>
                            <Results
                                shown=shown
                                errors=errors
                                state=state
                                verdict=verdict
                                feedback=feedback
                                highlighted=highlighted
                            />
                        </Show>
                    </Show>
                    <Show when=move || reached(stage, LANES)>
                        <LaneTable shown=shown inputs=inputs hidden=hidden highlighted=highlighted />
                    </Show>
                </div>
            </div>
            // On a phone the results are far below the fields: the headline stays in sight
            // at the bottom of the screen while a field is edited (CSS shows it there only).
            <p class="headline-bar" data-testid="headline-bar" aria-hidden="true">
                {move || if hidden.get() {
                    "Predict, then reveal".to_string()
                } else {
                    shown.with(|a| a.headline())
                }}
            </p>
        </section>
    }
}

/// The calculator's build stages: its fields, then the results, then the lane table.
const RESULTS: u8 = 1;
/// The stage that adds the lane table, the last.
const LANES: u8 = 2;

/// Whether the build has reached `at`.
fn reached(stage: RwSignal<u8>, at: u8) -> bool {
    stage.get() >= at
}

/// The stage the calculator's build has reached. On the first load, behind its first content
/// (`lazy::building`), each stage is a task of its own, so that no one task builds the whole
/// panel (it was the first load's longest: docs/performance.md, "The calculator built in
/// stages"); after the last, the first content gives way to it in one task. Built later (a tab
/// opened), all of it at once.
fn stages() -> RwSignal<u8> {
    if !crate::ui::lazy::building() {
        return RwSignal::new(LANES);
    }
    let stage = RwSignal::new(0);
    fn next(stage: RwSignal<u8>) {
        set_timeout(
            move || match stage.try_get_untracked() {
                Some(now) if now < LANES => {
                    stage.set(now + 1);
                    next(stage);
                }
                // After the last stage's own task (or the panel gone): the app takes over.
                _ => {
                    crate::ui::lazy::built();
                    crate::ui::app_ready();
                }
            },
            std::time::Duration::ZERO,
        );
    }
    next(stage);
    stage
}

/// What coalescing is, in the course's terms, with the strided column read as its worked
/// example, and the glossary of every term the page uses. Folded, so it costs a newcomer one
/// click and everyone else one line.
#[component]
fn Introduction() -> impl IntoView {
    use crate::model::lessons::{GLOSSARY, INTRODUCTION};
    view! {
        <details class="intro" data-testid="intro">
            <summary>"New to coalescing? What a warp, a lane and a sector are"</summary>
            {INTRODUCTION.map(|p| view! { <p>{p}</p> }).collect_view()}
            <p>
                "Try it: " <a href="?idx=t" data-testid="intro-rows">"32 consecutive floats"</a>
                " against " <a href="?idx=t*1024" data-testid="intro-column">"a column of 1024-float rows"</a> "."
            </p>
            <h3 id="glossary-title">"Glossary"</h3>
            <dl class="glossary" aria-labelledby="glossary-title" data-testid="glossary">
                {GLOSSARY
                    .map(|t| view! {
                        <dt id=format!("gloss-{}", t.key)>{t.term}</dt>
                        <dd>{t.definition}</dd>
                    })
                    .collect_view()}
            </dl>
        </details>
    }
}
