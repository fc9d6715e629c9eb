//! The panel's inputs: the source (a text area with line numbers that scroll with it, a file
//! picker, and drop onto the text area), the launch, the cache (the kernel view's), the FLOPs
//! per thread for the Roofline lab (`cflops`), and the launch the page proposes for a file with
//! one kernel.
//!
//! Each field is built once and fed by signals, never rebuilt by its own edit: a rebuilt field
//! loses focus after every key (the kernel view's statements did, hostile pass H1).

use super::super::widgets::TextField;
use super::super::AppState;
use crate::model::cuda::error::{CudaError, ErrorKind, Pos};
use crate::model::cuda::files::{Header, Headers};
use crate::model::cuda::lex::MAX_SOURCE_BYTES;
use crate::model::cuda::run::{CudaFailure, Proposal};
use crate::model::cuda_view::{
    first_missing, header_fields_html, proposal_head, proposal_text, CudaField, CudaInputs,
};
use crate::model::flops::CUDA_FLOPS;
use crate::model::kernel::KernelField;
use leptos::ev::DragEvent;
use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The error of `field`, if it is the one in error.
fn error_of(
    error: Signal<Option<(CudaField, String)>>,
    field: CudaField,
) -> impl Fn() -> Option<String> + Copy {
    move || {
        error.with(|e| {
            e.as_ref()
                .filter(|(f, _)| *f == field)
                .map(|(_, m)| m.clone())
        })
    }
}

/// The one element that says why the inputs do not run, under the field in error.
fn error_note(error: Signal<Option<(CudaField, String)>>, field: CudaField) -> impl IntoView {
    let message = error_of(error, field);
    move || {
        message().map(|m| {
            view! {
                <p class="error" id="cuda-error" data-testid="cuda-error" data-field=field.param() role="alert">{m}</p>
            }
        })
    }
}

/// A one-line field of code that a run reads (the launch, the defines): its label with its
/// URL parameter, its hint (the children), and the run's error under it when it names this
/// field.
#[component]
fn CodeField(
    field: CudaField,
    label: &'static str,
    placeholder: &'static str,
    error: Signal<Option<(CudaField, String)>>,
    #[prop(into)] value: Signal<String>,
    on_input: Callback<String>,
    children: Children,
) -> impl IntoView {
    let param = field.param();
    let (id, hint) = (format!("input-{param}"), format!("input-{param}-hint"));
    let invalid = error_of(error, field);
    let described = {
        let hint = hint.clone();
        move || {
            if invalid().is_some() {
                format!("cuda-error {hint}")
            } else {
                hint.clone()
            }
        }
    };
    view! {
        <div class="field" class:invalid=move || invalid().is_some()>
            <label for=id.clone()>{label} <span class="param" aria-hidden="true">{param}</span></label>
            <input
                id=id.clone() type="text" name=param data-testid=id class="mono"
                autocomplete="off" autocapitalize="off" spellcheck="false" placeholder=placeholder
                aria-invalid=move || invalid().is_some().to_string() aria-describedby=described
                prop:value=value on:input=move |ev| on_input.run(event_target_value(&ev))
            />
            <p class="hint" id=hint>{children()}</p>
            {error_note(error, field)}
        </div>
    }
}

/// Reads a picked or dropped file into the source, or says why not: a file over the reader's
/// limit gets the reader's own message, and is not read.
fn load(
    file: web_sys::File,
    inputs: RwSignal<CudaInputs>,
    file_error: RwSignal<Option<String>>,
    file_read: RwSignal<Option<String>>,
) {
    let bytes = file.size() as usize;
    if bytes > MAX_SOURCE_BYTES {
        file_error.set(Some(too_long(&file.name(), bytes)));
        return;
    }
    leptos::task::spawn_local(async move {
        let text = JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|t| t.as_string());
        match text {
            Some(text) => {
                file_error.set(None);
                file_read.set(Some(format!(
                    "Read {} ({} bytes).",
                    file.name(),
                    text.len()
                )));
                // A new file's kernel needs its own launch: the page proposes one.
                inputs.update(|i| {
                    i.source = text;
                    i.launch = String::new();
                });
            }
            None => file_error.set(Some(format!(
                "{}: the browser could not read the file as text",
                file.name()
            ))),
        }
    });
}

/// Reads several picked or dropped files: the one with a `main(` (else the first `.cu`, else
/// the first) becomes the source when `as_source`, and the others headers beside it, by their
/// names; a header of the same name is replaced. A file over the reader's limit is refused
/// with the reader's message, and none is read.
fn load_all(
    files: Vec<web_sys::File>,
    as_source: bool,
    inputs: RwSignal<CudaInputs>,
    file_error: RwSignal<Option<String>>,
    file_read: RwSignal<Option<String>>,
) {
    if let Some(big) = files.iter().find(|f| f.size() as usize > MAX_SOURCE_BYTES) {
        file_error.set(Some(too_long(&big.name(), big.size() as usize)));
        return;
    }
    leptos::task::spawn_local(async move {
        let mut read = Vec::new();
        for file in &files {
            let text = JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|t| t.as_string());
            match text {
                Some(text) => read.push((file.name(), text)),
                None => {
                    file_error.set(Some(format!(
                        "{}: the browser could not read the file as text",
                        file.name()
                    )));
                    return;
                }
            }
        }
        let main = as_source.then(|| {
            read.iter()
                .position(|(_, t)| t.contains("main("))
                .or_else(|| read.iter().position(|(n, _)| n.ends_with(".cu")))
                .unwrap_or(0)
        });
        file_error.set(None);
        let names: Vec<String> = read
            .iter()
            .map(|(n, t)| format!("{n} ({} bytes)", t.len()))
            .collect();
        file_read.set(Some(format!("Read {}.", names.join(", "))));
        inputs.update(|i| {
            for (k, (name, text)) in read.into_iter().enumerate() {
                if Some(k) == main {
                    i.source = text;
                    i.launch = String::new();
                } else if let Some(h) = i.headers.0.iter_mut().find(|h| h.path == name) {
                    h.text = text;
                } else {
                    i.headers.0.push(Header { path: name, text });
                }
            }
        });
    });
}

/// The files of a picker or a drop.
fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|k| l.get(k)).collect())
        .unwrap_or_default()
}

/// The reader's refusal of a source of `bytes` bytes, as the file picker words it for `what`.
fn too_long(what: &str, bytes: usize) -> String {
    let refused = CudaFailure::Source(CudaError::new(
        Pos { line: 1, column: 1 },
        ErrorKind::SourceTooLong { bytes },
    ));
    format!("{what}: {refused}")
}

/// The bytes the text area would hold after pasting `pasted` over its selection.
fn after_paste(area: &web_sys::HtmlTextAreaElement, pasted: &str) -> usize {
    let value = area.value();
    let units: Vec<u16> = value.encode_utf16().collect();
    let at = |k: Option<u32>| (k.unwrap_or(0) as usize).min(units.len());
    let (start, end) = (
        at(area.selection_start().ok().flatten()),
        at(area.selection_end().ok().flatten()),
    );
    let selected = String::from_utf16_lossy(units.get(start..end.max(start)).unwrap_or(&[])).len();
    value.len().saturating_sub(selected) + pasted.len()
}

/// The line numbers beside the source: one per line, the line in error marked.
fn gutter(lines: u32, bad: Option<u32>) -> impl IntoView {
    let numbers = |from: u32, to: u32| -> String {
        (from..=to).map(|n| format!("{n}\n")).collect::<String>()
    };
    match bad.filter(|&b| b >= 1 && b <= lines) {
        Some(b) => view! {
            {numbers(1, b - 1)}
            <span class="bad" data-testid="cuda-gutter-error">{format!("{b}")}</span>
            {format!("\n{}", numbers(b + 1, lines))}
        }
        .into_any(),
        None => numbers(1, lines).into_any(),
    }
}

#[component]
pub(super) fn Inputs(
    state: AppState,
    inputs: RwSignal<CudaInputs>,
    /// The field in error and why.
    error: Signal<Option<(CudaField, String)>>,
    /// The source line a failure names.
    error_line: Signal<Option<u32>>,
    /// That line with a caret under the column.
    excerpt: Signal<Option<String>>,
    cache_error: Signal<Option<String>>,
    file_error: RwSignal<Option<String>>,
    /// Why the link's `srcz` did not unpack, until the next edit.
    link_notice: RwSignal<Option<String>>,
    /// What follows the source file: Run, for a file with a `main()` (`super::program`).
    children: Children,
) -> impl IntoView {
    // Text areas show a last, empty line after a final line end: number it too.
    let lines = Memo::new(move |_| {
        inputs.with(|i| i.source.bytes().filter(|&b| b == b'\n').count() as u32 + 1)
    });
    let source_invalid = error_of(error, CudaField::Source);
    let described = move |field: CudaField, hint: &'static str| {
        let bad = error_of(error, field);
        Signal::derive(move || {
            if bad().is_some() {
                format!("cuda-error {hint}")
            } else {
                hint.to_string()
            }
        })
    };
    let scrolled = move |ev: leptos::ev::Event| {
        let area: web_sys::Element = event_target(&ev);
        if let Some(g) = document().get_element_by_id("cuda-gutter") {
            g.set_scroll_top(area.scroll_top());
        }
    };
    let file_read = RwSignal::new(None::<String>);
    let pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let mut files = files_of(input.files());
        if files.len() == 1 {
            load(files.remove(0), inputs, file_error, file_read);
        } else if !files.is_empty() {
            load_all(files, true, inputs, file_error, file_read);
        }
        // Picking the same file again reads it again (the picker then says "No file chosen":
        // `cuda-file-read` says what was read).
        input.set_value("");
    };
    let dropped = move |ev: DragEvent| {
        let mut files = files_of(ev.data_transfer().and_then(|d| d.files()));
        if !files.is_empty() {
            ev.prevent_default();
        }
        if files.len() == 1 {
            load(files.remove(0), inputs, file_error, file_read);
        } else if !files.is_empty() {
            load_all(files, true, inputs, file_error, file_read);
        }
    };
    // A paste that would take the source past the reader's limit is refused before it lands,
    // as the file picker refuses such a file: a multi-megabyte text in the field froze the
    // page for seconds before the reader said no.
    let pasted = move |ev: leptos::ev::ClipboardEvent| {
        let area: web_sys::HtmlTextAreaElement = event_target(&ev);
        let Some(text) = ev.clipboard_data().and_then(|d| d.get_data("text").ok()) else {
            return;
        };
        let bytes = after_paste(&area, &text);
        if bytes > MAX_SOURCE_BYTES {
            ev.prevent_default();
            file_error.set(Some(too_long("the pasted text", bytes)));
        }
    };
    // Any other way past the limit (a drop of text, an input method) is undone the same way.
    let typed = move |ev: leptos::ev::Event| {
        let area: web_sys::HtmlTextAreaElement = event_target(&ev);
        let text = area.value();
        if text.len() > MAX_SOURCE_BYTES {
            area.set_value(&inputs.with_untracked(|i| i.source.clone()));
            file_error.set(Some(too_long("the text", text.len())));
            return;
        }
        inputs.update(|i| i.source = text);
    };
    let file_note = move || {
        file_error.get().map(|m| {
            view! { <p class="error" data-testid="cuda-file-error" role="alert">{m}</p> }
        })
    };
    view! {
        <div class="field cuda-source-field" class:invalid=move || source_invalid().is_some()>
            <label for="input-src">"Source " <span class="param" aria-hidden="true">"src"</span></label>
            <div class="cuda-editor" on:dragover=|ev: DragEvent| ev.prevent_default() on:drop=dropped>
                <pre class="cuda-gutter" id="cuda-gutter" aria-hidden="true">{move || gutter(lines.get(), error_line.get())}</pre>
                <textarea
                    id="input-src" name="src" data-testid="input-src" class="mono" rows="12"
                    wrap="off" spellcheck="false" autocomplete="off" autocapitalize="off"
                    aria-invalid=move || source_invalid().is_some().to_string()
                    aria-describedby=described(CudaField::Source, "input-src-hint")
                    prop:value=move || inputs.with(|i| i.source.clone())
                    on:paste=pasted
                    on:input=typed
                    on:scroll=scrolled
                ></textarea>
            </div>
            <p class="hint" id="input-src-hint">
                "CUDA C++ as you would compile it: kernels, " <code>"__device__"</code> " functions, structs, templates, " <code>"#define"</code>
    ". A file with a " <code>"main()"</code> " runs whole with Run; otherwise one launch runs, and host code is listed and skipped. Type or paste it, pick a file, or drop one on the text area. The file is read here and never leaves your machine."
            </p>
            {error_note(error, CudaField::Source)}
            {move || link_notice.get().map(|m| view! { <p class="note warning" role="status" data-testid="cuda-link-notice" data-param="srcz">{m}</p> })}
            {move || excerpt.get().map(|text| view! { <pre class="caret mono" data-testid="cuda-error-excerpt">{text}</pre> })}
        </div>
        <div class="field">
            <label for="cuda-file">"Source file"</label>
            <input type="file" id="cuda-file" data-testid="cuda-file" accept=".cu,.cuh,.h,.hpp,.txt,text/plain" multiple on:change=pick />
            {move || file_read.get().map(|m| view! { <p class="hint" role="status" data-testid="cuda-file-read">{m}</p> })}
            {file_note}
        </div>
        <HeaderFields inputs=inputs file_error=file_error file_read=file_read />
        {children()}
        <CodeField
            field=CudaField::Launch label="Launch " placeholder="kernel<<<grid, block>>>(args)" error=error
            value=Signal::derive(move || inputs.with(|i| i.launch.clone()))
            on_input=Callback::new(move |text| inputs.update(|i| i.launch = text))
        >
            <code>"name<<<grid, block[, shared bytes]>>>(args)"</code>
            ", grid and block as numbers or " <code>"dim3(x, y, z)"</code>
            "; a pointer argument is a name (its own allocation), " <code>"name@0x1000"</code>
            " pins its base, " <code>"name[N]"</code> " gives its length, and "
            <code>"name[N]=iota"</code> ", " <code>"=zero"</code> ", " <code>"=rand(SEED)"</code>
            " or " <code>"=rand(SEED, BOUND)"</code> " its data; a value is a number. The file's "
            <code>"#define"</code> "s and constants are in scope."
        </CodeField>
        <CodeField
            field=CudaField::Defines label="Defines " placeholder="N=4096 BLOCK=256" error=error
            value=state.cuda_defines
            on_input=Callback::new(move |text| state.cuda_defines.set(text))
        >
            "As nvcc's " <code>"-D"</code> ": " <code>"NAME=VALUE"</code>
            " separated by spaces. Each replaces the file's " <code>"#define"</code>
            " of its name, or the initialiser of its file-scope constant, so a program sized for a GPU runs here at a smaller size."
        </CodeField>
        <TextField
            testid="cuda-input-cache".to_string() param="cache" label="Cache" tag="cache"
            hint="bytes: 0 for none, or whole lines up to 1 GiB (V100's L2: 6291456); the kernel view's cache"
            placeholder="6291456"
            value=Signal::derive(move || state.kernel.with(|k| k.get(KernelField::Cache)))
            on_input=Callback::new(move |text| state.kernel.update(|k| k.set(KernelField::Cache, text)))
            error=cache_error
        />
        <TextField
            testid="input-cflops".to_string() param="cflops" label="FLOPs" tag="cflops"
            hint="per thread, for the Roofline lab (every thread of the launch counts, active or not); empty for none"
            inputmode="decimal" value=state.cuda_flops
            on_input=Callback::new(move |text| state.cuda_flops.set(text))
            error=Signal::derive(move || {
                state.cuda_flops.with(|t| CUDA_FLOPS.read(t).err().map(|e| format!("cflops: {e}")))
            })
        />
    }
}

/// The headers beside the source: each one's path and text, Remove, Add a header, and a
/// picker for header files. The fields are markup (`header_fields_html`), written again only
/// when the headers change otherwise than by typing in them, so an edit never rebuilds the
/// field it was typed in; their edits and Remove are read here, by each field's `data-k`.
#[component]
fn HeaderFields(
    inputs: RwSignal<CudaInputs>,
    file_error: RwSignal<Option<String>>,
    file_read: RwSignal<Option<String>>,
) -> impl IntoView {
    let holder = NodeRef::<leptos::html::Div>::new();
    // The headers the fields show.
    let shown = StoredValue::new(None::<Headers>);
    Effect::new(move |_| {
        let headers = inputs.with(|i| i.headers.clone());
        let Some(el) = holder.get() else { return };
        if shown.with_value(|s| s.as_ref() != Some(&headers)) {
            el.set_inner_html(&header_fields_html(&headers));
            shown.set_value(Some(headers));
        }
    });
    // An edit goes to the header of the field's `data-k`; the fields already show it.
    let edited = move |ev: leptos::ev::Event| {
        let field: web_sys::Element = event_target(&ev);
        let Some(k) = field
            .get_attribute("data-k")
            .and_then(|k| k.parse::<usize>().ok())
        else {
            return;
        };
        let path = field.get_attribute("data-testid").as_deref() == Some("cuda-header-path");
        let text = event_target_value(&ev);
        if !path && text.len() > MAX_SOURCE_BYTES {
            file_error.set(Some(too_long("the header", text.len())));
            shown.set_value(None);
            inputs.update(|_| {});
            return;
        }
        inputs.update(|i| {
            if let Some(h) = i.headers.0.get_mut(k) {
                if path {
                    h.path = text;
                } else {
                    h.text = text;
                }
            }
        });
        shown.set_value(Some(inputs.with_untracked(|i| i.headers.clone())));
    };
    let clicked = move |ev: leptos::ev::MouseEvent| {
        let target: web_sys::Element = event_target(&ev);
        if target.get_attribute("data-testid").as_deref() != Some("cuda-header-remove") {
            return;
        }
        if let Some(k) = target
            .get_attribute("data-k")
            .and_then(|k| k.parse::<usize>().ok())
        {
            inputs.update(|i| {
                if k < i.headers.0.len() {
                    i.headers.0.remove(k);
                }
            });
        }
    };
    let add = move |_| {
        let mut k = 0;
        inputs.update(|i| {
            let taken = |name: &str| i.headers.0.iter().any(|h| h.path == name);
            let path = (1..)
                .map(|n| {
                    if n == 1 {
                        "header.cuh".to_string()
                    } else {
                        format!("header{n}.cuh")
                    }
                })
                .find(|p| !taken(p))
                .unwrap_or_default();
            k = i.headers.0.len();
            i.headers.0.push(Header { path, text: String::new() });
        });
        request_animation_frame(move || {
            if let Some(field) = document().get_element_by_id(&format!("cuda-header-path-{k}")) {
                let field: web_sys::HtmlInputElement = wasm_bindgen::JsCast::unchecked_into(field);
                let _ = field.focus();
                field.select();
            }
        });
    };
    let pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let files = files_of(input.files());
        if !files.is_empty() {
            load_all(files, false, inputs, file_error, file_read);
        }
        input.set_value("");
    };
    view! {
        <fieldset class="cuda-headers" data-testid="cuda-headers">
            <legend>"Headers " <span class="param" aria-hidden="true">"hdrz"</span></legend>
            <p class="hint" id="cuda-headers-hint">
                "The files the source includes with " <code>"#include \"…\""</code>
                ", read as nvcc reads them: beside the including file, or by name. Pick several files at once, or drop them on the source, and the one with "
                <code>"main()"</code> " becomes the source. Standard headers (" <code>"<cstdio>"</code> ", " <code>"<cuda_runtime.h>"</code> ", …) need no file."
            </p>
            <div node_ref=holder on:input=edited on:click=clicked></div>
            <div class="cuda-header-add">
                <button type="button" class="secondary" data-testid="cuda-header-add" on:click=add>"Add a header"</button>
                <label for="cuda-header-files">"Header files"</label>
                <input type="file" id="cuda-header-files" data-testid="cuda-header-files" accept=".cuh,.h,.hpp,.cu,.inl,.txt,text/plain" multiple on:change=pick />
            </div>
        </fieldset>
    }
}

/// The launch the page proposes for a file with one kernel, the values it still needs, and a
/// button that writes it into the launch field.
#[component]
pub(super) fn Proposed(
    inputs: RwSignal<CudaInputs>,
    proposal: Memo<Option<Proposal>>,
) -> impl IntoView {
    move || {
        proposal.get().map(|p| {
            let launch = p.launch.clone();
            let select = first_missing(&p);
            // The button goes with the proposal: the focus moves to the launch field, with the
            // first value still needed selected to be typed over.
            let use_it = move |_| {
                inputs.update(|i| i.launch = launch.clone());
                let select = select.clone();
                request_animation_frame(move || {
                    let Some(field) = document().get_element_by_id("input-launch") else {
                        return;
                    };
                    let field: web_sys::HtmlInputElement = wasm_bindgen::JsCast::unchecked_into(field);
                    let _ = field.focus();
                    if let Some(r) = &select {
                        let _ = field.set_selection_range(r.start as u32, r.end as u32);
                    }
                });
            };
            view! {
                <div class="note broadcast cuda-proposal" data-testid="cuda-proposal" data-launch=p.launch.clone() data-missing=p.missing.join(",")>
                    <p>{proposal_head(&p)} <code>{p.launch.clone()}</code></p>
                    <p>{proposal_text(&p)}</p>
                    <button type="button" data-testid="cuda-use-proposal" on:click=use_it>"Use this launch"</button>
                </div>
            }
        })
    }
}
