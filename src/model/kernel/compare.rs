//! Two kernels compared in one sentence: the kernel view's Compare. Re-exported from `view`.

use super::super::format::{plural, size_text};
use super::analysis::KernelAnalysis;

/// How kernel B compares with kernel A, in one sentence naming both: global traffic at the
/// request level and at DRAM, then shared wavefronts, bank conflicts and barriers when either
/// has them.
///
/// ```
/// use coalescing_lab::model::kernel::{analyze_kernel, view::compare_sentence, KernelInputs, Machine};
/// let mut b = KernelInputs::default();
/// b.set(coalescing_lab::model::kernel::KernelField::Stmt(1, coalescing_lab::model::kernel::StmtField::Idx), "threadIdx.x * 8".into());
/// let run = |i: &KernelInputs| analyze_kernel(&i.kernel(Machine::default()).unwrap()).unwrap();
/// assert_eq!(
///     compare_sentence("A", &run(&KernelInputs::default()), "B", &run(&b)),
///     "B moves 8× more request-level sectors than A (32 against 4) and 8× more DRAM bytes (1 KiB against 128 B)."
/// );
/// ```
pub fn compare_sentence(
    a_name: &str,
    a: &KernelAnalysis,
    b_name: &str,
    b: &KernelAnalysis,
) -> String {
    use super::super::compare::compare;
    let (ta, tb) = (&a.total, &b.total);
    let sectors = match compare(tb.sectors, ta.sectors) {
        None => format!(
            "{b_name} moves the same request-level sectors as {a_name} ({})",
            ta.sectors
        ),
        Some(r) => format!(
            "{b_name} moves {r} request-level sectors than {a_name} ({} against {})",
            tb.sectors, ta.sectors
        ),
    };
    let dram = match compare(tb.dram_bytes(), ta.dram_bytes()) {
        None => format!("the same DRAM bytes ({})", size_text(ta.dram_bytes())),
        Some(r) => format!(
            "{r} DRAM bytes ({} against {})",
            size_text(tb.dram_bytes()),
            size_text(ta.dram_bytes())
        ),
    };
    let mut text = format!("{sectors} and {dram}");
    if ta.shared_requests + tb.shared_requests > 0 {
        text.push_str(&match compare(tb.wavefronts, ta.wavefronts) {
            None => format!("; the same shared wavefronts ({})", ta.wavefronts),
            Some(r) => format!(
                "; {r} shared wavefronts ({} against {})",
                tb.wavefronts, ta.wavefronts
            ),
        });
        text.push_str(&format!(
            ", with {} bank conflict{} against {}",
            tb.bank_conflicts(),
            plural(tb.bank_conflicts()),
            ta.bank_conflicts()
        ));
    }
    if ta.barriers + tb.barriers > 0 {
        text.push_str(&format!(
            "; {} barrier{} against {}",
            tb.barriers,
            plural(tb.barriers),
            ta.barriers
        ));
    }
    text.push('.');
    crate::model::format::capitalize(&text)
}
