//! The kernel fields' parsers: text in, a checked value or a [`KernelError`] naming the field
//! and what is accepted. Each parser knows one field's syntax and limits; `inputs` puts them
//! together into a [`Kernel`](super::Kernel).

pub(super) use super::super::read::{keep, whole};
use super::inputs::{
    AccessKind, KernelError, KernelField, LoopRange, Statement, StmtField, StmtInputs,
    MAX_CACHE_BYTES, MAX_EXTENT, MAX_ITERATIONS, MAX_NAME_CHARS, MAX_THREADS_PER_BLOCK,
};
use crate::model::exact::Exact;
use crate::model::expr::kernel::KernelExpr;
use crate::model::flops::KERNEL_FLOPS;
use crate::model::inputs::{parse_address, Space, ELEM_SIZES};

pub(super) fn product(shape: [u32; 3]) -> u128 {
    shape.iter().map(|&v| u128::from(v)).product()
}

pub(super) fn parse_shape(field: KernelField, text: &str) -> Result<[u32; 3], KernelError> {
    let refuse = || {
        KernelError::new(
            field,
            format!(
                "must be 1 to 3 whole numbers from 1 to {MAX_EXTENT} separated by commas, \
                 e.g. 128,128,1, found '{}'",
                text.trim()
            ),
        )
    };
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 3 {
        return Err(refuse());
    }
    let mut shape = [1; 3];
    for (slot, part) in shape.iter_mut().zip(parts) {
        let value = whole(part).filter(|v| (1..=MAX_EXTENT).contains(v));
        *slot = value.ok_or_else(refuse)? as u32;
    }
    Ok(shape)
}

pub(super) fn parse_block(text: &str) -> Result<[u32; 3], KernelError> {
    let block = parse_shape(KernelField::Block, text)?;
    let threads = product(block);
    if threads > u128::from(MAX_THREADS_PER_BLOCK) {
        return Err(KernelError::new(
            KernelField::Block,
            format!(
                "must have at most {MAX_THREADS_PER_BLOCK} threads, found {}×{}×{} = {threads}",
                block[0], block[1], block[2]
            ),
        ));
    }
    Ok(block)
}

pub(super) fn parse_loop(text: &str) -> Result<LoopRange, KernelError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(LoopRange {
            start: 0,
            step: 1,
            iterations: 1,
            looped: false,
        });
    }
    let refuse = |why: &str| KernelError::new(KernelField::Loop, format!("{why}, found '{text}'"));
    let parts: Vec<Option<i64>> = text.split(':').map(|p| p.trim().parse().ok()).collect();
    let (start, end, step) = match parts[..] {
        [Some(start), Some(end)] => (start, end, 1),
        [Some(start), Some(end), Some(step)] => (start, end, step),
        _ => {
            return Err(refuse(
                "must be START:END or START:END:STEP with whole numbers, or empty for no loop",
            ))
        }
    };
    if step == 0 {
        return Err(refuse("the step must not be 0"));
    }
    let (start, end, step) = (i128::from(start), i128::from(end), i128::from(step));
    let span = if step > 0 { end - start } else { start - end };
    let iterations = if span > 0 {
        (span + step.abs() - 1) / step.abs()
    } else {
        0
    };
    if iterations > i128::from(MAX_ITERATIONS) {
        return Err(refuse(&format!(
            "runs {iterations} iterations; at most {MAX_ITERATIONS} (2^20) are accepted"
        )));
    }
    Ok(LoopRange {
        start: start as i64,
        step: step as i64,
        iterations: iterations as u64,
        looped: true,
    })
}

pub(super) fn parse_cache(text: &str, line: u64) -> Result<u64, KernelError> {
    whole(text)
        .filter(|&c| c == 0 || (c.is_multiple_of(line) && (line..=MAX_CACHE_BYTES).contains(&c)))
        .ok_or_else(|| {
            KernelError::new(
                KernelField::Cache,
                format!(
                    "must be 0 (no cache) or a multiple of the {line}-byte line from {line} to \
                     {MAX_CACHE_BYTES} bytes (1 GiB), found '{}'",
                    text.trim()
                ),
            )
        })
}

pub(super) fn parse_flops(text: &str) -> Result<Exact, KernelError> {
    KERNEL_FLOPS
        .read(text)
        .map_err(|e| KernelError::new(KernelField::Flops, e.to_string()))
}

pub(super) fn parse_statement(n: u8, s: &StmtInputs) -> Result<Statement, KernelError> {
    let field = |f| KernelField::Stmt(n, f);
    let kind = match s.kind.trim() {
        "load" => AccessKind::Load,
        "store" => AccessKind::Store,
        "sync" => AccessKind::Sync,
        other => {
            return Err(KernelError::new(
                field(StmtField::Kind),
                format!("must be load, store or sync, found '{other}'"),
            ))
        }
    };
    // Checked in form order: kind, space, elem, base, idx, active, name.
    let active = || -> Result<Option<KernelExpr>, KernelError> {
        if s.active.trim().is_empty() {
            return Ok(None);
        }
        KernelExpr::parse(&s.active)
            .map(Some)
            .map_err(|e| KernelError::new(field(StmtField::Active), e.to_string()))
    };
    if kind == AccessKind::Sync {
        // A barrier reads no memory: its space, elem, base and idx are not used.
        return Ok(Statement {
            number: n,
            kind,
            space: Space::Global,
            elem: 4,
            base: 0,
            idx: KernelExpr::parse("0")
                .map_err(|e| KernelError::new(field(StmtField::Idx), e.to_string()))?,
            active: active()?,
            name: parse_name(n, &s.name)?,
        });
    }
    let space = Space::parse(&s.space).ok_or_else(|| {
        KernelError::new(
            field(StmtField::Space),
            format!("must be global or shared, found '{}'", s.space.trim()),
        )
    })?;
    let elem = whole(&s.elem)
        .filter(|v| ELEM_SIZES.contains(v))
        .ok_or_else(|| {
            KernelError::new(
                field(StmtField::Elem),
                format!("must be 1, 2, 4, 8 or 16 bytes, found '{}'", s.elem.trim()),
            )
        })?;
    let base = parse_address(&s.base).ok_or_else(|| {
        KernelError::new(
            field(StmtField::Base),
            format!(
                "must be a byte address from 0 to 2^64−1, decimal or 0x hex, found '{}'",
                s.base.trim()
            ),
        )
    })?;
    let idx = KernelExpr::parse(&s.idx)
        .map_err(|e| KernelError::new(field(StmtField::Idx), e.to_string()))?;
    Ok(Statement {
        number: n,
        kind,
        space,
        elem,
        base,
        idx,
        active: active()?,
        name: parse_name(n, &s.name)?,
    })
}

/// The label of statement `aN`: the typed name, or `aN` when none was typed.
fn parse_name(n: u8, text: &str) -> Result<String, KernelError> {
    let name = text.trim();
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(KernelError::new(
            KernelField::Stmt(n, StmtField::Name),
            format!("must be at most {MAX_NAME_CHARS} characters, found {chars}"),
        ));
    }
    // Line breaks would split a CSV row in a naive reader, and direction overrides
    // (U+202A–U+202E, U+2066–U+2069) make a name read differently from what it is.
    if let Some(c) = name.chars().find(|&c| c.is_control() || is_bidi_control(c)) {
        return Err(KernelError::new(
            KernelField::Stmt(n, StmtField::Name),
            format!(
                "must not contain control or text-direction characters, found U+{:04X}",
                u32::from(c)
            ),
        ));
    }
    Ok(if name.is_empty() {
        format!("a{n}")
    } else {
        name.to_string()
    })
}

/// Unicode's explicit direction embeddings, overrides and isolates, and the marks.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}
