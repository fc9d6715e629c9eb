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

/// The kernel view's 4096×4096 transpose preset `id` at 1024×1024 (16× smaller): a 32×32
/// grid, each index's row length 1024.
fn transpose_1024(id: &str) -> Option<coalescing_lab::model::kernel::KernelInputs> {
    use coalescing_lab::model::kernel::presets::KernelPreset;
    let mut inputs = KernelPreset::by_id(id)?.inputs();
    inputs.grid = "32,32".into();
    for stmt in inputs.statements.iter_mut().flatten() {
        stmt.idx = stmt.idx.replace("* 4096", "* 1024");
    }
    Some(inputs)
}

/// The kernel engine's throughput: a naive transpose of a 1024×1024 float matrix (the
/// preset's shape, 16× smaller), 2M lane-accesses through the cache model. Criterion reports
/// lane-accesses per second.
fn kernel_transpose(c: &mut Criterion) {
    use coalescing_lab::model::kernel::{analyze_kernel, Machine};
    let Some(Ok(kernel)) = transpose_1024("transpose-naive").map(|i| i.kernel(Machine::default()))
    else {
        return;
    };
    let mut group = c.benchmark_group("kernel engine");
    group.throughput(criterion::Throughput::Elements(kernel.lane_accesses()));
    group.sample_size(10);
    group.bench_function("naive transpose 1024x1024, lane-accesses", |b| {
        b.iter(|| analyze_kernel(black_box(&kernel)).map(|a| a.total))
    });
    group.finish();
}

/// The kernel view's `transpose-tiled` preset at 1024×1024: the global read and write by rows,
/// through a 32×32 shared tile whose column read is a 32-way bank conflict; 4M lane-accesses,
/// half of them to shared memory.
fn kernel_tiled(c: &mut Criterion) {
    use coalescing_lab::model::kernel::{analyze_kernel, Machine};
    let Some(Ok(kernel)) = transpose_1024("transpose-tiled").map(|i| i.kernel(Machine::default()))
    else {
        return;
    };
    let mut group = c.benchmark_group("kernel engine");
    // The lanes that take part: 4 accesses an element (`lane_accesses` counts the barrier and
    // the passes a statement's condition turns off too).
    group.throughput(criterion::Throughput::Elements(4 * 1024 * 1024));
    group.sample_size(10);
    group.bench_function("tiled transpose 1024x1024, lane-accesses", |b| {
        b.iter(|| analyze_kernel(black_box(&kernel)).map(|a| a.total))
    });
    group.finish();
}

/// The floor the engines are measured against (#26): the kernel engine's own walk over the
/// same launch as `kernel engine`, evaluating each warp instruction's lanes to their addresses
/// and sector numbers, with no de-duplication, no cache and no figures
/// (`kernel::address_pass`). What the engine adds to it is the tally.
fn address_floor(c: &mut Criterion) {
    use coalescing_lab::model::kernel::{address_pass, Machine};
    let Some(kernel) =
        transpose_1024("transpose-naive").and_then(|i| i.kernel(Machine::default()).ok())
    else {
        return;
    };
    let mut group = c.benchmark_group("address floor");
    group.throughput(criterion::Throughput::Elements(kernel.lane_accesses()));
    group.sample_size(10);
    group.bench_function("naive transpose 1024x1024, lane-accesses", |b| {
        b.iter(|| address_pass(black_box(&kernel)))
    });
    group.finish();
}

/// The page's own launch natively (#26's "the page within 1.5× of native"): the kernel view's
/// naive 4096×4096 transpose preset itself, 33.5M lane-accesses, the launch `make bench`'s
/// row 7 times in the page. Both the whole engine and its address floor, so that the page's
/// figure and the engine's ratio are each set against the same work. One run takes about a
/// quarter of a second here: flat sampling, one iteration a sample.
fn page_launch(c: &mut Criterion) {
    use coalescing_lab::model::kernel::presets::KernelPreset;
    use coalescing_lab::model::kernel::{address_pass, analyze_kernel, Machine};
    let Some(Ok(kernel)) =
        KernelPreset::by_id("transpose-naive").map(|p| p.inputs().kernel(Machine::default()))
    else {
        return;
    };
    for (name, engine) in [("kernel engine 4096", true), ("address floor 4096", false)] {
        let mut group = c.benchmark_group(name);
        group.throughput(criterion::Throughput::Elements(kernel.lane_accesses()));
        group.sample_size(10);
        group.sampling_mode(criterion::SamplingMode::Flat);
        group.bench_function("naive transpose 4096x4096, lane-accesses", |b| {
            b.iter(|| {
                if engine {
                    let _ = black_box(analyze_kernel(black_box(&kernel)).map(|a| a.total));
                } else {
                    let _ = black_box(address_pass(black_box(&kernel)));
                }
            })
        });
        group.finish();
    }
}

/// The CUDA interpreter's throughput on the same transpose written as source (the
/// `transpose-naive` CUDA preset: 1024×1024 floats, 32×8 blocks, the same 2M lane-accesses as
/// `kernel engine`), through the same cache model.
fn cuda_transpose(c: &mut Criterion) {
    use coalescing_lab::model::cuda::presets::cuda_preset;
    use coalescing_lab::model::cuda::run::analyse;
    use coalescing_lab::model::kernel::Machine;
    let Some(p) = cuda_preset("transpose-naive") else {
        return;
    };
    let mut group = c.benchmark_group("cuda interpreter");
    group.throughput(criterion::Throughput::Elements(2 * 1024 * 1024));
    group.sample_size(10);
    group.bench_function("naive transpose 1024x1024 as source, lane-accesses", |b| {
        b.iter(|| {
            analyse(
                black_box(p.source),
                p.launch,
                Machine::default(),
                6 << 20,
                700,
            )
            .map(|a| a.total)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    sixty_four_lanes,
    parts,
    address_floor,
    kernel_transpose,
    kernel_tiled,
    page_launch,
    cuda_transpose
);
criterion_main!(benches);
