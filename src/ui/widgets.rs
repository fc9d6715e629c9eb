//! Widgets the panels share: a labelled text field with its hint and error, a picker, a
//! list of readouts, a table in its region and its header row, and the link that opens a
//! scenario in the calculator. One non-generic component each, so the page ships
//! their code once.

use super::{url, AppState};
use crate::model::inputs::Inputs;
use crate::model::permalink::{self, State, Tab};
use crate::model::readouts::Readout;
use leptos::either::Either;
use leptos::prelude::*;

/// A labelled text input wired to a piece of state, with its hint and its error.
///
/// The input's `data-testid` is `testid`; an error is shown as `data-testid="input-error"`
/// with `data-field` set to `param`, announced as an alert and linked by `aria-describedby`.
#[component]
pub fn TextField(
    /// Element id and `data-testid` of the input.
    testid: String,
    /// The URL parameter the field edits, for `data-field` on its error.
    param: &'static str,
    /// The visible label.
    #[prop(into)]
    label: Signal<String>,
    /// Small text after the label: the parameter name or the unit.
    tag: &'static str,
    /// How to fill the field in, under it.
    #[prop(into)]
    hint: String,
    #[prop(default = "")] placeholder: &'static str,
    #[prop(default = "text")] inputmode: &'static str,
    /// The current text.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the new text on every input event.
    on_input: Callback<String>,
    /// The error message for this field, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
    /// Extra words after the hint, e.g. why the field is ignored; empty for none.
    #[prop(into, default = Signal::stored(String::new()))]
    note: Signal<String>,
    /// Whether the field is shown faded because its value is not used.
    #[prop(into, default = Signal::stored(false))]
    dimmed: Signal<bool>,
) -> impl IntoView {
    let hint_id = format!("{testid}-hint");
    let error_id = format!("{testid}-error");
    let invalid = move || error.with(Option::is_some);
    let described_by = {
        let (hint_id, error_id) = (hint_id.clone(), error_id.clone());
        Signal::derive(move || {
            if invalid() {
                format!("{error_id} {hint_id}")
            } else {
                hint_id.clone()
            }
        })
    };
    view! {
        <div class="field" class:invalid=Signal::derive(invalid) class:ignored=dimmed>
            // A parameter name stays visible but out of the accessible name ("Lanes in the
            // warp", not "Lanes in the warp warp"); a unit stays in it.
            <label for=testid.clone()>
                {label} " " <span class="param" aria-hidden=(tag == param).then_some("true")>{tag}</span>
            </label>
            <input
                id=testid.clone()
                type="text"
                name=param
                data-testid=testid
                inputmode=inputmode
                autocomplete="off"
                autocapitalize="off"
                spellcheck="false"
                placeholder=placeholder
                aria-invalid=Signal::derive(move || invalid().to_string())
                aria-describedby=described_by
                prop:value=value
                on:input=move |ev| on_input.run(event_target_value(&ev))
            />
            <p class="hint" id=hint_id>
                {hint}
                {note}
            </p>
            <ErrorNote param=param message=error id=error_id />
        </div>
    }
}

/// A `<select>` with `id` as its element id and `data-testid`: first the option `none` with
/// the empty value (if given), then one per (value, text) of `options`, in order; `on_pick`
/// is called with the value picked. Given a `label`, it stands in a `.field` under it.
#[component]
pub fn Select(
    id: &'static str,
    /// The visible label; without one, the caller labels the picker.
    #[prop(optional)]
    label: Option<&'static str>,
    /// The text of a first option that picks nothing (the empty value).
    #[prop(optional)]
    none: Option<&'static str>,
    #[prop(into)] options: Vec<(&'static str, &'static str)>,
    /// The value shown.
    #[prop(into)]
    value: Signal<String>,
    on_pick: Callback<String>,
) -> impl IntoView {
    let select = view! {
        <select id=id data-testid=id prop:value=value on:change=move |ev| on_pick.run(event_target_value(&ev))>
            {none
                .map(|text| ("", text))
                .into_iter()
                .chain(options)
                .map(|(value, text)| view! { <option value=value>{text}</option> })
                .collect_view()}
        </select>
    };
    match label {
        Some(label) => Either::Left(view! {
            <div class="field">
                <label for=id>{label}</label>
                {select}
            </div>
        }),
        None => Either::Right(select),
    }
}

/// A table's header row: one column heading per name, in order.
#[component]
pub fn ColumnHeads(names: &'static [&'static str]) -> impl IntoView {
    view! {
        <thead>
            <tr>{names.iter().map(|name| view! { <th scope="col">{*name}</th> }).collect_view()}</tr>
        </thead>
    }
}

/// A table in a region of its own that scrolls sideways and takes the keyboard's focus, named by
/// its caption, with one column heading per name and `children` as its rows.
#[component]
pub fn RegionTable<C: IntoView + 'static>(
    /// The caption's id, which the region's `aria-labelledby` names; without one (a table
    /// shown more than once), the region is named by `aria-label`.
    #[prop(optional, into)]
    caption_id: Option<&'static str>,
    /// The caption: what each row is.
    caption: &'static str,
    /// The column headings, in order.
    columns: &'static [&'static str],
    /// Classes after `lane-table` on the region.
    #[prop(default = "")]
    class: &'static str,
    // Typed, not `Children`: an erased view would cost its own code for every table.
    children: TypedChildren<C>,
) -> impl IntoView {
    let class = if class.is_empty() {
        "lane-table".to_string()
    } else {
        format!("lane-table {class}")
    };
    view! {
        <div
            class=class
            role="region"
            aria-labelledby=caption_id
            aria-label=caption_id.is_none().then_some(caption)
            tabindex="0"
        >
            <table>
                <caption id=caption_id>{caption}</caption>
                <ColumnHeads names=columns />
                <tbody>{children.into_inner()()}</tbody>
            </table>
        </div>
    }
}

/// Results as labelled values, each with `data-testid` and `data-value`.
#[component]
pub fn ReadoutList(
    #[prop(into)] readouts: Signal<Vec<Readout>>,
    /// Put before every `data-testid`, e.g. `b.` for scenario B.
    #[prop(default = "")]
    prefix: &'static str,
    /// Marks the list while the results shown are the last valid ones, not the inputs'.
    #[prop(into, default = Signal::stored(false))]
    stale: Signal<bool>,
) -> impl IntoView {
    // The kernel view and the trace panel show the same readouts at once: each list numbers
    // its tooltips' ids, so no id is on the page twice.
    static LISTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let list = LISTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    view! {
        <dl class="readouts" class:outdated=stale>
            {move || {
                readouts
                    .get()
                    .into_iter()
                    .map(|r| {
                        // A term explains itself on hover and on keyboard focus.
                        let term = crate::model::lessons::term_of_readout(r.id).map(|t| {
                            let tip = format!("tip-{list}-{prefix}{}", r.id);
                            (tip, t.definition)
                        });
                        let label = match term {
                            Some((tip, definition)) => view! {
                                <span class="term" tabindex="0" aria-describedby=tip.clone()>{r.label}</span>
                                <span class="tip" role="tooltip" id=tip>{definition}</span>
                            }
                            .into_any(),
                            None => r.label.into_any(),
                        };
                        view! {
                            <div class="readout" class:headline=r.headline>
                                <dt>{label}</dt>
                                <dd data-testid=format!("{prefix}{}", r.id) data-value=r.value>{r.text}</dd>
                                <dd class="detail">{r.detail}</dd>
                            </div>
                        }
                    })
                    .collect_view()
            }}
        </dl>
    }
}

/// The error shown for a field: `data-testid="input-error"` with `data-field` set to the
/// field's URL parameter, announced as an alert; nothing while there is no error.
#[component]
pub fn ErrorNote(
    /// The field's URL parameter.
    param: &'static str,
    #[prop(into)] message: Signal<Option<String>>,
    /// Element id, for `aria-describedby` on the field.
    #[prop(into)]
    id: String,
) -> impl IntoView {
    move || {
        message.get().map(|message| {
            view! {
                <p class="error" id=id.clone() data-testid="input-error" data-field=param role="alert">
                    {message}
                </p>
            }
        })
    }
}

/// A link that opens `calc` in the calculator: the calculator's permalink as its address (a
/// new tab gets the scenario), and on a click the switch in place, once the entry being left
/// has the edits a panel holds back. Without a scenario it is a link to nowhere.
#[component]
pub fn CalculatorLink(
    state: AppState,
    calc: Option<Inputs>,
    #[prop(into)] testid: String,
    /// What the link says.
    #[prop(into)]
    text: String,
) -> impl IntoView {
    let href = calc.clone().map(|calc| {
        permalink::link(
            &url::page(),
            &State {
                tab: Tab::Calculator,
                calc,
                ..State::default()
            },
        )
    });
    let go = move |ev: leptos::ev::MouseEvent| {
        if let Some(calc) = calc.clone() {
            ev.prevent_default();
            url::settle();
            state.calc.set(calc);
            state.tab.set(Tab::Calculator);
        }
    };
    view! { <a href=href data-testid=testid on:click=go>{text}</a> }
}
