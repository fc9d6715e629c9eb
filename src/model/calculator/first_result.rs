//! The link's first result as HTML, before the app has arrived.
//!
//! On a slow phone link the page's main module takes seconds to arrive, while a small module
//! of the model alone (`src/bin/first-result.rs`, no Leptos) arrives in a fraction of that.
//! It decodes the link's calculator part, analyses it as the app does, and writes the result
//! into the page's static first content (index.html `#shell`), laid out with the app's own
//! classes: the scenario's column (a card that says the editor is on its way), the results
//! (the readouts and their notes, as the app shows them) and the phone's headline bar. The
//! app then replaces the whole copy when it mounts.
//!
//! What waits for the app: the fields, the figures, the derivation and the lane table. The
//! figures come between the readouts and the derivation and have no height until they are
//! drawn, so a derivation written here would move down when the app takes over; what is
//! written here sits where the app puts it.
//!
//! Every text is the app's, from the same functions ([`readouts`], [`broadcast_note`],
//! [`alignment_note`], [`Analysis::headline`]); `tests/browser/first_result.test.mjs` checks
//! the copy against the app for a set of links.

use super::readouts::{alignment_note, broadcast_note, readouts};
use super::sectors::{analyze, analyze_repaired, Analysis};
use crate::model::format::html_escape_into;
use crate::model::lessons::term_of_readout;
use crate::model::permalink::{decode_calculator, Tab};

/// The HTML for the calculator's first content, for the link `query` (with or without its
/// `?`). Empty when the link opens another panel. With scenario B beside A, the headline bar
/// alone: the comparison's layout comes above A's results, and is not written here.
///
/// ```
/// use coalescing_lab::model::calculator::first_result::first_result;
/// let html = first_result("?idx=t*1024");
/// assert!(html.contains(r#"<dd data-value="32">32</dd>"#), "{html}");
/// assert!(html.contains(r#"<p class="headline-bar" aria-hidden="true">N_tx = 32 sectors · efficiency 12.5 %</p>"#));
/// // Predict mode keeps the answer back, as the app does.
/// assert!(!first_result("?idx=t*1024&predict=1").contains("data-value"));
/// // Another panel's link: nothing to write.
/// assert_eq!(first_result("?tab=kernel"), "");
/// ```
pub fn first_result(query: &str) -> String {
    let state = decode_calculator(query);
    if state.tab != Tab::Calculator {
        return String::new();
    }
    let (shown, in_error) = match analyze(&state.calc) {
        Ok(analysis) => (analysis, false),
        Err(_) => (analyze_repaired(&state.calc), true),
    };
    let mut html = String::with_capacity(4096);
    if state.compare.is_some() {
        // A screen of room, so that the bar sits at the bottom of the screen as the app's does.
        html.push_str(r#"<div class="shell-editor"></div>"#);
    } else {
        html.push_str(concat!(
            r#"<div class="layout">"#,
            r#"<div class="scenario shell-editor" aria-busy="true">"#,
            r#"<p class="hint">The editor is on its way. The results are this link's, worked out already.</p>"#,
            r#"</div><div class="outputs">"#,
        ));
        if !state.predict {
            results(&mut html, &shown, in_error);
        }
        html.push_str("</div></div>");
    }
    let headline = if state.predict {
        "Predict, then reveal".to_string()
    } else {
        shown.headline()
    };
    html.push_str(r#"<p class="headline-bar" aria-hidden="true">"#);
    html_escape_into(&mut html, &headline);
    html.push_str("</p>");
    html
}

/// The results card: the readouts, as `ReadoutList` lays them out, and the notes.
fn results(html: &mut String, a: &Analysis, in_error: bool) {
    html.push_str(r#"<div class="results" aria-labelledby="shell-results-title"><h3 id="shell-results-title">Results</h3>"#);
    if in_error {
        html.push_str(r#"<p class="stale">The link has a field in error: these results use its default until the editor shows which.</p>"#);
    }
    html.push_str(if in_error {
        r#"<dl class="readouts outdated">"#
    } else {
        r#"<dl class="readouts">"#
    });
    for r in readouts(a) {
        html.push_str(if r.headline {
            r#"<div class="readout headline"><dt>"#
        } else {
            r#"<div class="readout"><dt>"#
        });
        match term_of_readout(r.id) {
            Some(term) => {
                let tip = format!("shell-tip-{}", r.id);
                html.push_str(&format!(
                    r#"<span class="term" tabindex="0" aria-describedby="{tip}">"#
                ));
                html_escape_into(html, r.label);
                html.push_str(&format!(
                    r#"</span><span class="tip" role="tooltip" id="{tip}">"#
                ));
                html_escape_into(html, term.definition);
                html.push_str("</span>");
            }
            None => html_escape_into(html, r.label),
        }
        html.push_str(r#"</dt><dd data-value=""#);
        html_escape_into(html, &r.value);
        html.push_str(r#"">"#);
        html_escape_into(html, &r.text);
        html.push_str(r#"</dd><dd class="detail">"#);
        html_escape_into(html, &r.detail);
        html.push_str("</dd></div>");
    }
    html.push_str("</dl>");
    if let Some(note) = broadcast_note(a) {
        html.push_str(r#"<p class="note broadcast"><strong>Why above 100 %? </strong>"#);
        html_escape_into(html, &note);
        html.push_str("</p>");
    }
    if let Some(note) = alignment_note(a) {
        html.push_str(r#"<p class="note warning" role="note"><strong>Misaligned: </strong>"#);
        html_escape_into(html, &note);
        html.push_str("</p>");
    }
    html.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_value_is_text_not_markup() {
        // The `idx` field's text reaches the notes and readouts only through the analysis,
        // but a value that did would still be escaped.
        let mut out = String::new();
        html_escape_into(&mut out, r#"<img src=x onerror="alert('1')">&"#);
        assert_eq!(
            out,
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;"
        );
        let html = first_result("?idx=%3Cscript%3E&base=%22%3E%3Cb%3E");
        assert!(!html.contains("<script") && !html.contains("<b>"), "{html}");
        assert!(html.contains(r#"<p class="stale">"#), "{html}");
    }

    #[test]
    fn shared_memory_reads_banks() {
        let html = first_result("?space=shared&idx=t*32");
        assert!(html.contains("32 wavefronts · 31 bank conflicts"), "{html}");
    }

    #[test]
    fn every_readout_is_written_once() {
        let html = first_result("?base=2");
        let a = analyze(&crate::model::inputs::Inputs { base: "2".into(), ..Default::default() })
            .unwrap();
        let expected = readouts(&a);
        assert_eq!(
            html.matches(r#"<div class="readout"#).count(),
            expected.len()
        );
        for r in &expected {
            let dd = format!(r#"<dd data-value="{}">{}</dd>"#, r.value, r.text);
            assert!(html.contains(&dd), "{dd} not in {html}");
        }
        assert!(html.contains("Misaligned: "), "{html}");
        // Comparing lays out two sides above A's results: the headline bar alone.
        assert_eq!(
            first_result("?base=8&compare=1"),
            r#"<div class="shell-editor"></div><p class="headline-bar" aria-hidden="true">N_tx = 5 sectors · efficiency 80 %</p>"#
        );
    }
}
