//! Parameter ≡ source: a random kernel written as the kernel view's `aN.*` statements and the
//! same kernel written as CUDA source (by the test-only generator below) give identical
//! figures for every id, DRAM and hits included, whole-kernel and per statement.
//!
//! The generator renders one expression tree twice: in the kernel dialect, and in C++ where
//! every built-in is first copied into a `long long` (so the arithmetic is the kernel view's
//! exact 64-bit arithmetic). Guards keep lane 0 of every warp active (`threadIdx.x % A < B`,
//! with A a power of two and a block width that is one): a warp whose lanes all skip an
//! access makes no instruction in source, while the kernel view still offers it, and the round
//! robin would then pair different instructions.

use coalescing_lab::model::cuda::run::analyse;
use coalescing_lab::model::kernel::{Job, KernelField, KernelInputs, Machine, StmtField};
use coalescing_lab::model::warp::Figures;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum E {
    Var(&'static str),
    Lit(u32),
    Bin(&'static str, Box<E>, Box<E>),
    /// `op` with a literal right side (`/`, `%`, `<<`, `>>`).
    ByLit(&'static str, Box<E>, u32),
    MinMax(bool, Box<E>, Box<E>),
    Cond(Box<E>, Box<E>, Box<E>, Box<E>),
}

const VARS: [(&str, &str); 10] = [
    ("threadIdx.x", "tx"),
    ("threadIdx.y", "ty"),
    ("threadIdx.z", "tz"),
    ("blockIdx.x", "bx"),
    ("blockIdx.y", "by"),
    ("blockIdx.z", "bz"),
    ("blockDim.x", "dx"),
    ("gridDim.x", "gx"),
    ("i", "i"),
    ("warp", "warp"),
];

impl E {
    /// The expression in the kernel dialect (`cuda` false) or in C++ (`cuda` true).
    fn text(&self, cuda: bool) -> String {
        match self {
            E::Var(v) => {
                let (kernel, source) = VARS.iter().find(|(k, _)| k == v).copied().unwrap_or((v, v));
                if cuda { source } else { kernel }.to_string()
            }
            E::Lit(n) => n.to_string(),
            E::Bin(op, a, b) => format!("({} {op} {})", a.text(cuda), b.text(cuda)),
            E::ByLit(op, a, n) => format!("({} {op} {n})", a.text(cuda)),
            E::MinMax(max, a, b) => {
                let f = if *max { "max" } else { "min" };
                format!("{f}({}, {})", a.text(cuda), b.text(cuda))
            }
            E::Cond(a, b, c, d) => format!(
                "({} < {} ? {} : {})",
                a.text(cuda),
                b.text(cuda),
                c.text(cuda),
                d.text(cuda)
            ),
        }
    }
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        3 => proptest::sample::select(VARS.map(|(k, _)| k).to_vec()).prop_map(E::Var),
        1 => (0u32..40).prop_map(E::Lit),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            3 => (proptest::sample::select(vec!["+", "*", "&", "|", "^"]), inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| E::Bin(op, Box::new(a), Box::new(b))),
            2 => (proptest::sample::select(vec!["/", "%", "<<", ">>"]), inner.clone(), 1u32..5)
                .prop_map(|(op, a, n)| E::ByLit(op, Box::new(a), n)),
            1 => (any::<bool>(), inner.clone(), inner.clone())
                .prop_map(|(m, a, b)| E::MinMax(m, Box::new(a), Box::new(b))),
            1 => (inner.clone(), inner.clone(), inner.clone(), inner)
                .prop_map(|(a, b, c, d)| E::Cond(Box::new(a), Box::new(b), Box::new(c), Box::new(d))),
        ]
    })
}

/// `threadIdx.x % A < B`, optionally `|| extra < C`.
type Guard = Option<(u32, u32, Option<(E, u32)>)>;

#[derive(Clone, Debug)]
struct Access {
    store: bool,
    shared: bool,
    elem: u64,
    base: u64,
    idx: E,
    guard: Guard,
}

#[derive(Clone, Debug)]
enum Stmt {
    Access(Access),
    Sync,
}

#[derive(Clone, Debug)]
struct Gen {
    grid: [u32; 3],
    block: [u32; 3],
    looped: Option<(i64, i64, i64)>,
    cache: u64,
    stmts: Vec<Stmt>,
}

fn access() -> impl Strategy<Value = Access> {
    let guard = (
        0u32..6,
        any::<u32>(),
        proptest::option::of((expr(), 1u32..40)),
    )
        .prop_map(|(a, b, extra)| {
            let a = 1u32 << a;
            (a, 1 + b % a, extra)
        });
    (
        any::<bool>(),
        proptest::bool::weighted(0.3),
        proptest::sample::select(vec![1u64, 2, 4, 8, 16]),
        0u64..4096,
        expr(),
        proptest::option::weighted(0.4, guard),
    )
        .prop_map(|(store, shared, elem, base, idx, guard)| Access {
            store,
            shared,
            elem,
            // Aligned to the element, as the hardware needs.
            base: base / elem * elem + if shared { 0 } else { 0x1_0000 },
            idx,
            guard,
        })
}

fn kernel() -> impl Strategy<Value = Gen> {
    let block = proptest::sample::select(vec![
        [32, 1, 1],
        [64, 1, 1],
        [16, 4, 1],
        [8, 4, 2],
        [32, 3, 1],
        [128, 1, 1],
        [4, 4, 4],
        [48, 1, 1],
    ]);
    let stmt = prop_oneof![6 => access().prop_map(Stmt::Access), 1 => Just(Stmt::Sync)];
    (
        (1u32..4, 1u32..3, 1u32..3),
        block,
        proptest::option::of((0i64..3, 1i64..5, 1i64..3)),
        proptest::sample::select(vec![0u64, 4096, 6 << 20]),
        proptest::collection::vec(stmt, 1..6),
    )
        .prop_map(|((gx, gy, gz), block, looped, cache, stmts)| Gen {
            grid: [gx, gy, gz],
            block,
            looped: looped.map(|(s, n, st)| (s, s + n * st, st)),
            cache,
            stmts,
        })
}

fn ctype(elem: u64) -> &'static str {
    match elem {
        1 => "char",
        2 => "short",
        4 => "float",
        8 => "double",
        _ => "float4",
    }
}

impl Gen {
    fn inputs(&self) -> KernelInputs {
        let mut k = KernelInputs::default();
        let j = |v: [u32; 3]| format!("{},{},{}", v[0], v[1], v[2]);
        k.set(KernelField::Grid, j(self.grid));
        k.set(KernelField::Block, j(self.block));
        k.set(
            KernelField::Loop,
            self.looped
                .map_or(String::new(), |(s, e, st)| format!("{s}:{e}:{st}")),
        );
        k.set(KernelField::Cache, self.cache.to_string());
        for (n, s) in self.stmts.iter().enumerate() {
            let n = n as u8 + 1;
            let f = |field| KernelField::Stmt(n, field);
            match s {
                Stmt::Sync => k.set(f(StmtField::Kind), "sync".into()),
                Stmt::Access(a) => {
                    k.set(
                        f(StmtField::Kind),
                        if a.store { "store" } else { "load" }.into(),
                    );
                    k.set(
                        f(StmtField::Space),
                        if a.shared { "shared" } else { "global" }.into(),
                    );
                    k.set(f(StmtField::Elem), a.elem.to_string());
                    k.set(f(StmtField::Base), a.base.to_string());
                    k.set(f(StmtField::Idx), a.idx.text(false));
                    k.set(f(StmtField::Active), guard_text(&a.guard, false));
                }
            }
        }
        k
    }

    /// The kernel as CUDA source, statement `n` on line `FIRST_LINE + n`, and its launch.
    fn source(&self) -> (String, String) {
        let mut params = Vec::new();
        let mut args = Vec::new();
        let mut body = Vec::new();
        for (n, s) in self.stmts.iter().enumerate() {
            let line = match s {
                Stmt::Sync => "    __syncthreads();".to_string(),
                Stmt::Access(a) => {
                    let t = ctype(a.elem);
                    let place = if a.shared {
                        format!(
                            "reinterpret_cast<{t}*>(smem + {})[{}]",
                            a.base,
                            a.idx.text(true)
                        )
                    } else {
                        params.push(format!("{t}* p{n}"));
                        args.push(format!("p{n}@{:#x}", a.base));
                        format!("p{n}[{}]", a.idx.text(true))
                    };
                    let zero = if a.elem == 16 {
                        "make_float4(0, 0, 0, 0)".to_string()
                    } else {
                        format!("({t})0")
                    };
                    let op = if a.store {
                        format!("{place} = {zero};")
                    } else {
                        format!("{{ {t} v = {place}; }}")
                    };
                    match &a.guard {
                        None => format!("    {op}"),
                        Some(_) => format!("    if ({}) {{ {op} }}", guard_text(&a.guard, true)),
                    }
                }
            };
            body.push(line);
        }
        let (start, end, step) = self.looped.unwrap_or((0, 1, 1));
        let src = format!(
            "__global__ void k({}) {{
  extern __shared__ char smem[];
  long long tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  long long bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  long long dx = blockDim.x, gx = gridDim.x;
  long long warp = (tx + ty * dx + tz * dx * (long long)blockDim.y) / warpSize;
  for (long long i = {start}; i < {end}; i += {step}) {{
{}
  }}
}}
",
            params.join(", "),
            body.join("\n")
        );
        let g = self.grid;
        let b = self.block;
        let launch = format!(
            "k<<<dim3({}, {}, {}), dim3({}, {}, {}), 65536>>>({})",
            g[0],
            g[1],
            g[2],
            b[0],
            b[1],
            b[2],
            args.join(", ")
        );
        (src, launch)
    }
}

/// Statement `n` (from 0) is on this line of the source.
const FIRST_LINE: u32 = 8;

fn guard_text(g: &Guard, cuda: bool) -> String {
    let Some((a, b, extra)) = g else {
        return String::new();
    };
    let x = if cuda { "tx" } else { "threadIdx.x" };
    let first = format!("{x} % {a} < {b}");
    match extra {
        None => first,
        Some((e, c)) => format!("{first} || {} < {c}", e.text(cuda)),
    }
}

/// Every figure that has an id on the page.
fn ids(f: &Figures) -> [u64; 13] {
    [
        f.requests,
        f.requested_bytes,
        f.shared_requests,
        f.shared_requested_bytes,
        f.wavefronts,
        f.ideal_wavefronts,
        f.barriers,
        f.sectors,
        f.ideal_sectors,
        f.unique_sectors,
        f.dram_read_bytes,
        f.dram_write_bytes,
        f.hits.unwrap_or(u64::MAX),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parameters_and_source_give_the_same_figures(g in kernel()) {
        let machine = Machine::default();
        // The kernel view reads expressions of at most 256 characters; longer ones are not a
        // case of this property.
        let inputs = g.inputs();
        prop_assume!((1..=8u8).all(|n| {
            [StmtField::Idx, StmtField::Active]
                .iter()
                .all(|f| inputs.get(KernelField::Stmt(n, *f)).len() <= 256)
        }));
        let kernel = inputs.kernel(machine);
        let kernel = match kernel {
            Ok(k) => k,
            Err(e) => {
                // The generator only writes valid fields.
                panic!("{:?}: {}", g, e[0]);
            }
        };
        let view = Job::new(&kernel).finish();
        let (src, launch) = g.source();
        let source = analyse(&src, &launch, machine, g.cache, 700);
        match (view, source) {
            (Ok(v), Ok(s)) => {
                prop_assert_eq!(ids(&v.total), ids(&s.total), "{}\n{}", src, launch);
                for (n, st) in v.statements.iter().enumerate() {
                    let line = FIRST_LINE + n as u32;
                    let site = s.sites.iter().find(|(site, _)| site.pos.line == line);
                    let Some((_, f)) = site else {
                        // A statement no lane ever reached makes no site in source.
                        prop_assert_eq!(st.figures.requests + st.figures.barriers, 0);
                        continue;
                    };
                    prop_assert_eq!(ids(&st.figures), ids(f), "statement {}\n{}\n{}", n + 1, src, launch);
                }
            }
            (Err(_), Err(_)) => {}
            (v, s) => prop_assert!(false, "one failed: {:?} / {:?}\n{}\n{}", v.err(), s.err(), src, launch),
        }
    }
}

#[test]
fn the_generator_writes_the_kernel_it_means() {
    let g = Gen {
        grid: [2, 1, 1],
        block: [64, 1, 1],
        looped: None,
        cache: 0,
        stmts: vec![Stmt::Access(Access {
            store: false,
            shared: false,
            elem: 4,
            base: 0x10000,
            idx: E::Bin("*", Box::new(E::Var("threadIdx.x")), Box::new(E::Lit(2))),
            guard: Some((2, 1, None)),
        })],
    };
    let (src, launch) = g.source();
    assert!(
        src.contains("    if (tx % 2 < 1) { { float v = p0[(tx * 2)]; } }"),
        "{src}"
    );
    assert_eq!(
        launch,
        "k<<<dim3(2, 1, 1), dim3(64, 1, 1), 65536>>>(p0@0x10000)"
    );
    assert_eq!(
        g.inputs().get(KernelField::Stmt(1, StmtField::Idx)),
        "(threadIdx.x * 2)"
    );
    // Even lanes, 8 bytes apart: 16 lanes spanning 256 bytes, 8 sectors, in 4 warps.
    let a = analyse(&src, &launch, Machine::default(), 0, 700).unwrap();
    assert_eq!(
        (a.total.requests, a.total.sectors, a.total.ideal_sectors),
        (4, 32, 8)
    );
}
