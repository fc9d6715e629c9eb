//! The panel's four link parameters together (`cpreset`, `src`, `srcz`, `launch`): the inputs
//! a link stands for, and the link a panel's inputs are written as: a preset by its id, a
//! short source as typed, a long one packed.
//!
//! Packing and unpacking live here, in the panel's chunk: the first load holds the four values
//! as plain text and never inflates.

use super::super::cuda::files::Headers;
use super::super::cuda::link::{pack, unpack, PackError};
use super::super::cuda::presets::{cuda_preset, CudaPreset, CUDA_PRESETS, PROGRAM_PRESETS};
use super::super::format::clip_long_words;
use super::{CudaInputs, DEFAULT_SOURCE};

/// Sources of more than this many characters travel packed, as `srcz`: a few kilobytes of
/// escaped source is more than chat tools and course platforms keep of a link.
pub const PACK_OVER_CHARS: usize = 1500;

/// The panel's part of a link, each value as the link carries it, empty when not given.
///
/// A link names a source in one of three ways: a preset (`cpreset`), the text (`src`), or the
/// text packed (`srcz`); `srcz` stands over `src`, and either over the preset's source. The
/// launch is `launch`, else the preset's, else the one that goes with the source
/// ([`CudaInputs::launch_without_link`]).
///
/// ```
/// use coalescing_lab::model::cuda_view::{CudaInputs, CudaLink};
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// let naive = cuda_preset("transpose-naive").unwrap();
/// let link = CudaLink { preset: "transpose-naive".into(), ..CudaLink::default() };
/// let (inputs, notice) = link.inputs();
/// assert_eq!((inputs.source.as_str(), inputs.launch.as_str(), notice), (naive.source, naive.launch, None));
/// assert_eq!(CudaLink::of(&inputs), link);
/// // Degenerate input: an empty link is the default kernel, and the default kernel an empty link.
/// assert_eq!(CudaLink::default().inputs(), (CudaInputs::default(), None));
/// assert_eq!(CudaLink::of(&CudaInputs::default()), CudaLink::default());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CudaLink {
    /// `cpreset`: a preset's id.
    pub preset: String,
    /// `src`: the source as typed.
    pub src: String,
    /// `srcz`: the source packed.
    pub srcz: String,
    /// `launch`: the launch as typed.
    pub launch: String,
    /// `hdrz`: the headers beside the source, packed ([`pack_headers`]).
    pub hdrz: String,
}

/// The headers as a link carries them: their paths and texts as JSON
/// (`[{"path":…,"text":…},…]`), packed as `srcz` is.
///
/// ```
/// use coalescing_lab::model::cuda::files::Headers;
/// use coalescing_lab::model::cuda_view::{pack_headers, unpack_headers};
/// let headers = Headers::of(&[("util.cuh", "#define TILE 32\n")]);
/// assert_eq!(unpack_headers(&pack_headers(&headers)), Ok(headers));
/// // Degenerate input: packed text that is no list of headers says so.
/// assert_eq!(unpack_headers(&coalescing_lab::model::cuda::link::pack("[1]")).unwrap_err().to_string(), "the packed text is not a list of headers");
/// ```
pub fn pack_headers(headers: &Headers) -> String {
    pack(&serde_json::to_string(&headers.0).unwrap_or_default())
}

/// The panel's fields for `headers`, as markup: per header its path, Remove and its text, each
/// carrying its index in `data-k` (the panel reads edits by it). A header's names say its
/// number, so that they stay true while its path is retyped.
///
/// ```
/// use coalescing_lab::model::cuda::files::Headers;
/// use coalescing_lab::model::cuda_view::header_fields_html;
/// let html = header_fields_html(&Headers::of(&[("a<b>.cuh", "\n#define X 1\n")]));
/// assert!(html.contains(r#"data-testid="cuda-header-path" data-k="0" value="a&lt;b&gt;.cuh""#), "{html}");
/// assert!(html.contains(r#"aria-label="Remove header 1""#), "{html}");
/// // A text area drops one line end after its tag: the text's own first line end is kept.
/// assert!(html.contains(">\n\n#define X 1\n</textarea>"), "{html}");
/// // Degenerate input: no headers, no markup.
/// assert_eq!(header_fields_html(&Headers::default()), "");
/// ```
pub fn header_fields_html(headers: &Headers) -> String {
    use super::super::format::html_escape_into;
    let mut html = String::new();
    for (k, h) in headers.0.iter().enumerate() {
        let n = k + 1;
        html.push_str(&format!(
            r#"<div class="cuda-header" data-testid="cuda-header"><div class="cuda-header-head"><label for="cuda-header-path-{k}">Path of header {n}</label><input id="cuda-header-path-{k}" type="text" class="mono" autocomplete="off" autocapitalize="off" spellcheck="false" data-testid="cuda-header-path" data-k="{k}" value=""#
        ));
        html_escape_into(&mut html, &h.path);
        html.push_str(&format!(
            r#""><button type="button" class="secondary" data-testid="cuda-header-remove" data-k="{k}" aria-label="Remove header {n}">Remove</button></div><label for="cuda-header-text-{k}" class="visually-hidden">Text of header {n}</label><textarea id="cuda-header-text-{k}" class="mono" rows="8" wrap="off" spellcheck="false" autocomplete="off" autocapitalize="off" data-testid="cuda-header-text" data-k="{k}">"#
        ));
        html.push('\n');
        html_escape_into(&mut html, &h.text);
        html.push_str("</textarea></div>");
    }
    html
}

/// Why `hdrz` does not unpack into headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeadersError {
    /// The text does not unpack (its position, where it has one, is in the error).
    Pack(PackError),
    /// It unpacks, but not into a list of `{"path", "text"}`.
    NotHeaders,
}

impl std::fmt::Display for HeadersError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeadersError::Pack(e) => e.fmt(f),
            HeadersError::NotHeaders => f.write_str("the packed text is not a list of headers"),
        }
    }
}

impl std::error::Error for HeadersError {}

/// The headers `hdrz` holds, or why not.
pub fn unpack_headers(hdrz: &str) -> Result<Headers, HeadersError> {
    let text = unpack(hdrz).map_err(HeadersError::Pack)?;
    serde_json::from_str(&text)
        .map(Headers)
        .map_err(|_| HeadersError::NotHeaders)
}

impl CudaLink {
    /// The inputs this link stands for, and the link notice for a `srcz` that does not unpack
    /// (whose source is then `src`'s, the preset's or the default kernel's, in that order).
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::{CudaInputs, CudaLink};
    /// let bad = CudaLink { srcz: "AAAA".into(), ..CudaLink::default() };
    /// let (inputs, notice) = bad.inputs();
    /// assert_eq!(inputs, CudaInputs::default());
    /// assert_eq!(notice.as_deref(), Some("`srcz=AAAA`: the packed text is not a packed source; using the default kernel."));
    /// ```
    pub fn inputs(&self) -> (CudaInputs, Option<String>) {
        let preset = cuda_preset(self.preset.trim());
        let mut notice = None;
        let mut source = None;
        if !self.srcz.is_empty() {
            match unpack(&self.srcz) {
                Ok(text) => source = Some(text),
                Err(e) => {
                    let fallback = if !self.src.is_empty() {
                        "`src`"
                    } else if preset.is_some() {
                        "the preset's source"
                    } else {
                        "the default kernel"
                    };
                    notice = Some(clip_long_words(&format!(
                        "`srcz={}`: {e}; using {fallback}.",
                        self.srcz
                    )));
                }
            }
        }
        let source = source
            .or_else(|| (!self.src.is_empty()).then(|| self.src.clone()))
            .or_else(|| preset.map(|p| p.source.to_string()))
            .unwrap_or_else(|| DEFAULT_SOURCE.to_string());
        let launch = if !self.launch.is_empty() {
            self.launch.clone()
        } else if let Some(p) = preset {
            p.launch.to_string()
        } else {
            CudaInputs::launch_without_link(&source).to_string()
        };
        let headers = if self.hdrz.is_empty() {
            Headers::default()
        } else {
            unpack_headers(&self.hdrz).unwrap_or_else(|e| {
                let said = notice.take().map_or(String::new(), |n| format!("{n} "));
                notice = Some(clip_long_words(&format!(
                    "{said}`hdrz={}`: {e}; the source is read without its headers.",
                    self.hdrz
                )));
                Headers::default()
            })
        };
        (CudaInputs { source, launch, headers }, notice)
    }

    /// The link that stands for `inputs`: the preset whose source it is (with the launch
    /// when it is not the preset's), else the source as typed, packed when it has more than
    /// [`PACK_OVER_CHARS`] characters. [`CudaLink::inputs`] of it gives `inputs` back, except
    /// where [`CudaInputs::to_link`] does not (an emptied source, the default kernel's launch
    /// emptied).
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::{CudaInputs, CudaLink, PACK_OVER_CHARS};
    /// let long = format!("__global__ void k(float* a) {{ a[threadIdx.x] = 0; }}\n{}", "// x\n".repeat(400));
    /// let inputs = CudaInputs { source: long, launch: "k<<<1, 32>>>(a)".into(), ..CudaInputs::default() };
    /// let link = CudaLink::of(&inputs);
    /// assert!(link.src.is_empty() && link.srcz.len() < PACK_OVER_CHARS);
    /// assert_eq!(link.inputs().0, inputs);
    /// ```
    pub fn of(inputs: &CudaInputs) -> CudaLink {
        let hdrz = if inputs.headers.is_empty() {
            String::new()
        } else {
            pack_headers(&inputs.headers)
        };
        if !hdrz.is_empty() {
            let bare = CudaInputs {
                headers: Headers::default(),
                ..inputs.clone()
            };
            return CudaLink { hdrz, ..CudaLink::of_source(&bare) };
        }
        CudaLink::of_source(inputs)
    }

    /// [`CudaLink::of`] for inputs without headers.
    fn of_source(inputs: &CudaInputs) -> CudaLink {
        if let Some(p) = preset_of(inputs).filter(|_| inputs.headers.is_empty()) {
            let launch = if inputs.launch == p.launch {
                String::new()
            } else {
                inputs.launch.clone()
            };
            return CudaLink {
                preset: p.id.to_string(),
                launch,
                ..CudaLink::default()
            };
        }
        let (src, launch) = inputs.to_link();
        if src.chars().count() > PACK_OVER_CHARS {
            CudaLink {
                srcz: pack(&src),
                launch,
                ..CudaLink::default()
            }
        } else {
            CudaLink { src, launch, ..CudaLink::default() }
        }
    }
}

/// The preset a link names for `inputs`: the one with its source and launch, else one with
/// its source (the launch then travels too), the one that launches the same kernel first;
/// none for an empty launch, which a preset would fill with its own.
fn preset_of(inputs: &CudaInputs) -> Option<&'static CudaPreset> {
    if inputs.launch.is_empty() {
        // A whole program's launch is empty: its main() makes them.
        return PROGRAM_PRESETS.iter().find(|p| p.source == inputs.source);
    }
    let kernel = |launch: &str| {
        launch
            .split(['<', '('])
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let mine = kernel(&inputs.launch);
    let same_source = || CUDA_PRESETS.iter().filter(|p| p.source == inputs.source);
    matching_preset(inputs)
        .or_else(|| same_source().find(|p| kernel(p.launch) == mine))
        .or_else(|| same_source().next())
}

/// The preset whose source and launch `inputs` are, for the picker and its lesson; none
/// with headers beside the source, which no preset has.
///
/// ```
/// use coalescing_lab::model::cuda_view::{matching_preset, CudaInputs};
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// let p = cuda_preset("copy-offset").unwrap();
/// let inputs = CudaInputs { source: p.source.into(), launch: p.launch.into(), ..CudaInputs::default() };
/// assert_eq!(matching_preset(&inputs).map(|p| p.id), Some("copy-offset"));
/// // Degenerate input: the default kernel is no preset.
/// assert_eq!(matching_preset(&CudaInputs::default()), None);
/// ```
pub fn matching_preset(inputs: &CudaInputs) -> Option<&'static CudaPreset> {
    if !inputs.headers.is_empty() {
        return None;
    }
    CUDA_PRESETS
        .iter()
        .chain(PROGRAM_PRESETS.iter())
        .find(|p| p.source == inputs.source && p.launch == inputs.launch)
}

/// The inputs of the preset `id`; `None` for an id that names none.
pub fn preset_inputs(id: &str) -> Option<CudaInputs> {
    cuda_preset(id).map(|p| CudaInputs {
        source: p.source.into(),
        launch: p.launch.into(),
        headers: Headers::default(),
    })
}
