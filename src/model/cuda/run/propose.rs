//! The launch the page proposes for a file with one kernel: a buffer per pointer parameter,
//! one block of 256 threads, and each value still to be given named.

use super::*;

/// A launch the page proposes for a source with one kernel and no launch yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// The launch's text: one block of 256 threads, a buffer per pointer parameter, and each
    /// value the kernel needs written as its parameter's name, to be replaced.
    pub launch: String,
    /// The template parameters and scalar parameters still to be given, in order.
    pub missing: Vec<String>,
}

/// The launch to propose when `source` has exactly one `__global__` kernel; `None` with none
/// or several.
///
/// ```
/// use coalescing_lab::model::cuda::run::propose_launch;
/// let p = propose_launch("template <int B> __global__ void k(float* out, const float* in, int n) { out[0] = in[n]; }", 700)
///     .unwrap().unwrap();
/// assert_eq!(p.launch, "k<B><<<1, 256>>>(out, in, n)");
/// assert_eq!(p.missing, ["B", "n"]);
/// // Degenerate input: no kernel, nothing to propose.
/// assert_eq!(propose_launch("__device__ int f() { return 1; }", 700).unwrap(), None);
/// ```
pub fn propose_launch(source: &str, arch: u32) -> Result<Option<Proposal>, CudaFailure> {
    let unit = parse(source, arch).map_err(CudaFailure::Source)?;
    Ok(propose_for(&unit))
}

/// The launch proposed for a source already read: as [`propose_launch`].
pub fn propose_for(unit: &Unit) -> Option<Proposal> {
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
    })
}
