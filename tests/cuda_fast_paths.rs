//! The interpreter's fast paths change no figure and no error: random kernels of affine
//! index arithmetic (in `int`, `unsigned`, `long long`, `short` and `unsigned char`, with
//! casts, negative steps, constants near the types' limits, pointer offsets and partial
//! masks) run once with values held as lines (base + step × lane) and once lane by lane
//! ([`CudaJob::general_paths`]), and give the same analysis, or the same error to the letter.
//!
//! The constants near the limits make the ends of the active lanes overflow or wrap in some
//! cases and not in others, so both the fast path and its fall-back to lane-by-lane
//! arithmetic are taken.

use coalescing_lab::model::cuda::run::{CudaAnalysis, CudaFailure, CudaJob};
use coalescing_lab::model::kernel::Machine;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum E {
    Leaf(&'static str),
    Lit(i64),
    Cast(&'static str, Box<E>),
    Bin(&'static str, Box<E>, Box<E>),
}

impl E {
    fn text(&self) -> String {
        match self {
            E::Leaf(v) => (*v).to_string(),
            E::Lit(n) if *n < 0 => format!("({n})"),
            E::Lit(n) => n.to_string(),
            E::Cast(t, e) => format!("(({t})({}))", e.text()),
            E::Bin(op, a, b) => format!("({} {op} {})", a.text(), b.text()),
        }
    }
}

const TYPES: [&str; 6] = [
    "int",
    "unsigned",
    "long long",
    "short",
    "unsigned char",
    "size_t",
];

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        4 => prop_oneof![
            Just("threadIdx.x"),
            Just("threadIdx.y"),
            Just("blockIdx.x"),
            Just("blockDim.x"),
            Just("i"),
            Just("lane"),
        ]
        .prop_map(E::Leaf),
        2 => (0i64..64).prop_map(E::Lit),
        1 => prop_oneof![
            Just(2_147_483_600i64),
            Just(-2_147_483_600),
            Just(4_294_967_295),
            Just(65_530),
            Just(1 << 26),
            Just(-1),
            Just(9_223_372_036_854_775_000),
        ]
        .prop_map(E::Lit),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            3 => (prop_oneof![Just("+"), Just("-"), Just("*")], inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| E::Bin(op, Box::new(a), Box::new(b))),
            1 => (0..TYPES.len(), inner).prop_map(|(t, e)| E::Cast(TYPES[t], Box::new(e))),
        ]
    })
}

#[derive(Clone, Debug)]
struct Gen {
    block: [u32; 2],
    /// Lanes `threadIdx.x % 32 < keep` run the accesses (all 32 when 32).
    keep: u32,
    /// Whether the guard is `>=` (the upper lanes) rather than `<`.
    upper: bool,
    index: E,
    offset: E,
    store: E,
    trips: u32,
}

fn gen() -> impl Strategy<Value = Gen> {
    (
        prop_oneof![Just([32, 2]), Just([64, 1]), Just([16, 4]), Just([48, 1])],
        1u32..=32,
        any::<bool>(),
        expr(),
        expr(),
        expr(),
        1u32..=3,
    )
        .prop_map(|(block, keep, upper, index, offset, store, trips)| Gen {
            block,
            keep,
            upper,
            index,
            offset,
            store,
            trips,
        })
}

impl Gen {
    fn source(&self) -> String {
        let guard = if self.upper {
            format!("threadIdx.x % 32 >= {}", 32 - self.keep)
        } else {
            format!("threadIdx.x % 32 < {}", self.keep)
        };
        format!(
            "__global__ void k(float *p, int *q)\n{{\n    int lane = threadIdx.x % 32;\n    \
             for (int i = 0; i < {trips}; i++) {{\n        if ({guard}) {{\n            \
             float v = p[{index}];\n            float *r = p + {offset};\n            \
             r[i] = v;\n            q[{store}] = lane;\n        }}\n    }}\n}}\n",
            trips = self.trips,
            index = self.index.text(),
            offset = self.offset.text(),
            store = self.store.text(),
        )
    }

    fn launch(&self) -> String {
        format!("k<<<2, dim3({}, {})>>>(p, q)", self.block[0], self.block[1])
    }
}

fn run(source: &str, launch: &str, general: bool) -> Result<CudaAnalysis, CudaFailure> {
    let mut job = CudaJob::new(source, launch, Machine::default(), 6 << 20, 700)?;
    if general {
        job.general_paths();
    }
    while !job.step(64)? {}
    Ok(job.finish())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn lines_and_lanes_give_the_same_analysis(g in gen()) {
        let (src, launch) = (g.source(), g.launch());
        let fast = run(&src, &launch, false);
        let general = run(&src, &launch, true);
        match (&fast, &general) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}\n{}", src, launch),
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string(), "{}\n{}", src, launch),
            _ => prop_assert!(false, "one failed: {:?} / {:?}\n{}\n{}",
                fast.as_ref().err(), general.as_ref().err(), src, launch),
        }
    }
}

/// The generator reaches both outcomes: some kernels run, and some stop on an overflow that
/// only the ends of the active lanes show, so the fall-back is taken as well as the fast path.
#[test]
fn the_cases_include_runs_and_overflows() {
    let g = |index: E| Gen {
        block: [32, 2],
        keep: 32,
        upper: false,
        index,
        offset: E::Lit(0),
        store: E::Leaf("threadIdx.x"),
        trips: 1,
    };
    let ok = g(E::Bin(
        "*",
        Box::new(E::Leaf("threadIdx.x")),
        Box::new(E::Lit(4)),
    ));
    let fast = run(&ok.source(), &ok.launch(), false);
    assert!(fast.is_ok(), "{fast:?}");
    assert_eq!(fast, run(&ok.source(), &ok.launch(), true));
    // 2147483600 + 2 × (int)threadIdx.x overflows int from lane 24 on: lane 0 is fine, the
    // last lane is not, so the fast path falls back and the lane-by-lane path names lane 24.
    let high = g(E::Bin(
        "+",
        Box::new(E::Lit(2_147_483_600)),
        Box::new(E::Bin(
            "*",
            Box::new(E::Cast("int", Box::new(E::Leaf("threadIdx.x")))),
            Box::new(E::Lit(2)),
        )),
    ));
    let fast = run(&high.source(), &high.launch(), false);
    let general = run(&high.source(), &high.launch(), true);
    let message = fast
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        message.contains("2147483600 + 48 overflows int"),
        "{message}"
    );
    assert_eq!(fast, general);
}
