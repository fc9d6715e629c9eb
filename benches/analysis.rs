//! The core analysis, expression to totals, for one 64-lane scenario: the "core analysis"
//! figure of `make bench` (budget 2 µs).

use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::sectors::analyze;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn sixty_four_lanes(c: &mut Criterion) {
    // Ex8b's mixed pattern on a wave64: a conditional expression, straddling nothing,
    // 18-plus sector runs to merge.
    let inputs = Inputs {
        warp: "64".into(),
        idx: "t<16 ? t : 1000+64*(t-16)".into(),
        ..Inputs::default()
    };
    c.bench_function("analyze 64 lanes, expression to totals", |b| {
        b.iter(|| analyze(black_box(&inputs)).map(|a| a.totals))
    });
}

fn parts(c: &mut Criterion) {
    let inputs = Inputs {
        warp: "64".into(),
        idx: "t<16 ? t : 1000+64*(t-16)".into(),
        ..Inputs::default()
    };
    c.bench_function("part: validate and parse", |b| {
        b.iter(|| black_box(&inputs).scenario())
    });
    c.bench_function("part: parse the index expression", |b| {
        b.iter(|| coalescing_lab::model::expr::Expr::parse(black_box("t<16 ? t : 1000+64*(t-16)")))
    });
}

criterion_group!(benches, sixty_four_lanes, parts);
criterion_main!(benches);
