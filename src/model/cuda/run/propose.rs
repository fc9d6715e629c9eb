//! The launch the page proposes: the file's first launch as its host code writes it, or, for
//! a file that writes none and has one kernel, a buffer per pointer parameter, one block of
//! 256 threads, and each value still to be given named.

use super::*;
use crate::model::cuda::ErrorKind;

/// A launch the page proposes for a source with one kernel and no launch yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// The launch's text: one block of 256 threads, a buffer per pointer parameter, and each
    /// value the kernel needs written as its parameter's name, to be replaced.
    pub launch: String,
    /// The template parameters and scalar parameters still to be given, in order: for a
    /// launch the file writes, the names in it that the launch field cannot see (the host
    /// code's variables).
    pub missing: Vec<String>,
    /// The line of the file's launch it is, if it is one.
    pub line: Option<u32>,
}

/// The launch to propose for `source`: its first launch of one of its kernels as written, or
/// when it writes none and has exactly one `__global__` kernel, one for it; `None` otherwise.
///
/// ```
/// use coalescing_lab::model::cuda::run::propose_launch;
/// let p = propose_launch("template <int B> __global__ void k(float* out, const float* in, int n) { out[0] = in[n]; }", 700)
///     .unwrap().unwrap();
/// assert_eq!((p.launch.as_str(), p.line), ("k<B><<<1, 256>>>(out, in, n)", None));
/// assert_eq!(p.missing, ["B", "n"]);
/// // The file's own launch, with the host variable it passes still to be given.
/// let p = propose_launch("const int T = 256;\n__global__ void k(float* a, int n) { a[0] = n; }\n\
///                         int main(int argc, char** argv) { int n = argc; float* d; k<<<4, T>>>(d, n); }\n", 700)
///     .unwrap().unwrap();
/// assert_eq!((p.launch.as_str(), p.line, p.missing.as_slice()), ("k<<<4, T>>>(d, n);", Some(3), &["n".to_string()][..]));
/// // Degenerate input: no kernel, nothing to propose.
/// assert_eq!(propose_launch("__device__ int f() { return 1; }", 700).unwrap(), None);
/// ```
pub fn propose_launch(source: &str, arch: u32) -> Result<Option<Proposal>, CudaFailure> {
    let unit = parse(source, arch).map_err(CudaFailure::Source)?;
    Ok(propose_for(&unit))
}

/// The launch proposed for a source already read: as [`propose_launch`].
pub fn propose_for(unit: &Unit) -> Option<Proposal> {
    let has_body = |name: &str| unit.kernels().any(|k| k.name == name && !k.body.is_empty());
    if let Some(w) = unit.launches.iter().find(|w| has_body(&w.kernel)) {
        return Some(Proposal {
            launch: w.text.clone(),
            missing: unseen(unit, &w.text),
            line: Some(w.line),
        });
    }
    let mut kernels = unit.kernels().filter(|k| !k.body.is_empty());
    let (Some(k), None) = (kernels.next(), kernels.next()) else {
        return None;
    };
    let mut missing = Vec::new();
    let mut targs = Vec::new();
    for p in template_params(k) {
        let (name, has_default) = match p {
            TemplateParam::Type { name, default } => (name, default.is_some()),
            TemplateParam::Value { name, default, .. } => (name, default.is_some()),
        };
        if !has_default {
            targs.push(name.clone());
            missing.push(name.clone());
        }
    }
    let mut args = Vec::new();
    for (n, p) in k.params.iter().enumerate() {
        let name = p.name.clone().unwrap_or_else(|| format!("arg{n}"));
        if p.ty.pointers == 0 {
            missing.push(name.clone());
        }
        args.push(name);
    }
    let targs = if targs.is_empty() {
        String::new()
    } else {
        format!("<{}>", targs.join(", "))
    };
    Some(Proposal {
        launch: format!("{}{targs}<<<1, 256>>>({})", k.name, args.join(", ")),
        missing,
        line: None,
    })
}

/// The names in a launch the file writes that the launch field cannot see: one in the grid,
/// block or shared bytes (the first only: reading stops there), or each passed for a scalar
/// parameter.
fn unseen(unit: &Unit, text: &str) -> Vec<String> {
    let launch = match parse_launch_in(text, unit) {
        Ok(l) => l,
        Err(LaunchError(CudaError {
            kind: ErrorKind::NotConstant { name, .. },
            ..
        })) => return vec![name],
        Err(_) => return Vec::new(),
    };
    let Some(k) = unit.kernels().find(|k| k.name == launch.kernel) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (param, arg) in k.params.iter().zip(&launch.args) {
        if let LaunchArg::Buffer { name, .. } = arg {
            if param.ty.pointers == 0 && !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    out
}
