//! The CUDA front end, slice by slice: the lexer and the preprocessor, to the letter.

use coalescing_lab::model::cuda::lex::{tokenize, IntSuffix, Punct, Tok};
use coalescing_lab::model::cuda::preprocess;

/// The preprocessed tokens of `source` as text, one space apart.
fn pre(source: &str) -> String {
    let out = preprocess(tokenize(source).unwrap(), 700).unwrap();
    let text: Vec<String> = out.tokens.iter().map(|t| t.tok.spelling()).collect();
    text.join(" ")
}

/// The error `source` gives, lexing or preprocessing.
fn pre_error(source: &str) -> String {
    match tokenize(source).and_then(|t| preprocess(t, 700)) {
        Ok(out) => panic!("no error: {} tokens", out.tokens.len()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn numbers_keep_their_suffix_radix_and_value() {
    let int = |text: &str| match tokenize(text).unwrap()[0].tok.clone() {
        Tok::Int { value, suffix, decimal } => (value, suffix, decimal),
        other => panic!("{text}: {other:?}"),
    };
    let s = |unsigned, longs| IntSuffix { unsigned, longs };
    assert_eq!(int("42"), (42, s(false, 0), true));
    assert_eq!(int("0x1Fu"), (31, s(true, 0), false));
    assert_eq!(int("017"), (15, s(false, 0), false));
    assert_eq!(int("0b101"), (5, s(false, 0), false));
    assert_eq!(int("64ULL"), (64, s(true, 2), true));
    assert_eq!(int("1'000'000l"), (1_000_000, s(false, 1), true));
    assert_eq!(int("0"), (0, s(false, 0), true));
    let float = |text: &str| tokenize(text).unwrap()[0].tok.clone();
    assert_eq!(float("1.f"), Tok::Float { value: 1.0, single: true });
    assert_eq!(float(".5"), Tok::Float { value: 0.5, single: false });
    assert_eq!(float("1e-3f"), Tok::Float { value: 1e-3, single: true });
    assert_eq!(float("2.5E+2"), Tok::Float { value: 250.0, single: false });
    assert_eq!(
        tokenize("12abc").unwrap_err().to_string(),
        "line 1, column 1: '12abc' is not a number"
    );
    assert_eq!(
        tokenize("  09").unwrap_err().to_string(),
        "line 1, column 3: '09' is not a number"
    );
    assert_eq!(
        tokenize("x = 18446744073709551616;")
            .unwrap_err()
            .to_string(),
        "line 1, column 5: 18446744073709551616 does not fit in 64 bits"
    );
}

#[test]
fn punctuators_take_the_longest_match_and_positions_count_characters() {
    let tokens = tokenize("a<<=b->c ... x>>y; s = \"é\"; t").unwrap();
    let kinds: Vec<&Tok> = tokens.iter().map(|t| &t.tok).collect();
    assert_eq!(kinds[1], &Tok::Punct(Punct::ShlAssign));
    assert_eq!(kinds[3], &Tok::Punct(Punct::Arrow));
    assert_eq!(kinds[5], &Tok::Punct(Punct::Ellipsis));
    assert_eq!(kinds[7], &Tok::Punct(Punct::Shr));
    // Columns count characters, not bytes: 'é' is one.
    let t = tokens.last().unwrap();
    assert_eq!((t.pos.line, t.pos.column), (1, 29));
    assert_eq!(
        tokenize("a @ b").unwrap_err().to_string(),
        "line 1, column 3: '@' is not part of CUDA C++"
    );
    // Regression: these were Rust's escapes, '\u{ef}'. A letter shows itself; a character
    // that would hide or reorder the message shows its code point only.
    for (source, message) in [
        (
            "int x\u{ef} = 1;",
            "line 1, column 6: 'ï' (U+00EF) is not part of CUDA C++",
        ),
        (
            "a \u{202E} b",
            "line 1, column 3: U+202E is not part of CUDA C++",
        ),
        (
            "a \u{200B} b",
            "line 1, column 3: U+200B is not part of CUDA C++",
        ),
        (
            "a \u{0} b",
            "line 1, column 3: U+0000 is not part of CUDA C++",
        ),
    ] {
        assert_eq!(tokenize(source).unwrap_err().to_string(), message);
    }
    assert_eq!(
        tokenize("x = 'ab';").unwrap_err().to_string(),
        "line 1, column 5: a character literal holds exactly one character"
    );
    assert_eq!(
        tokenize("s = \"open\n\";").unwrap_err().to_string(),
        "line 1, column 5: the quoted text never ends on its line"
    );
}

#[test]
fn continuations_join_lines_but_keep_the_file_s_line_numbers() {
    let tokens = tokenize("#define SUM(a, b) \\\n  ((a) + (b))\nint x;\r\nint y;").unwrap();
    // The continued line is one logical line: only '#', 'int', 'int' start lines.
    let starts: Vec<String> = tokens
        .iter()
        .filter(|t| t.line_start)
        .map(|t| t.tok.spelling())
        .collect();
    assert_eq!(starts, ["#", "int", "int"]);
    let y = tokens.iter().find(|t| t.tok.ident() == Some("y")).unwrap();
    assert_eq!((y.pos.line, y.pos.column), (4, 5));
    assert_eq!(
        pre("#define SUM(a, b) \\\n  ((a) + (b))\nint x = SUM(1, 2);"),
        "int x = ( ( 1 ) + ( 2 ) ) ;"
    );
}

#[test]
fn macros_expand_as_c_expands_them() {
    // Object-like, nested, and a function-like name with no call is just a name.
    assert_eq!(
        pre("#define N 4\n#define M (N * N)\nint a[M]; int f = F;\n#define F(x) x\nint g = F;"),
        "int a [ ( 4 * 4 ) ] ; int f = F ; int g = F ;"
    );
    // Arguments with nested parentheses and commas inside them.
    assert_eq!(
        pre("#define MIN(a, b) ((a) < (b) ? (a) : (b))\nint m = MIN(f(1, 2), (3, 4));"),
        "int m = ( ( f ( 1 , 2 ) ) < ( ( 3 , 4 ) ) ? ( f ( 1 , 2 ) ) : ( ( 3 , 4 ) ) ) ;"
    );
    // Stringizing, pasting and variadic macros.
    assert_eq!(
        pre("#define STR(x) #x\nconst char* s = STR(a + b);"),
        "const char * s = \"a + b\" ;"
    );
    assert_eq!(
        pre("#define CAT(a, b) a ## b\nint CAT(tile, 2) = CAT(1, 0);"),
        "int tile2 = 10 ;"
    );
    assert_eq!(
        pre("#define CALL(f, ...) f(__VA_ARGS__)\nCALL(g, 1, 2);"),
        "g ( 1 , 2 ) ;"
    );
    // A macro never expands inside itself.
    assert_eq!(pre("#define A A + 1\nint x = A;"), "int x = A + 1 ;");
    assert_eq!(pre("#define X Y\n#define Y X\nint x = X;"), "int x = X ;");
    // A call may span lines.
    assert_eq!(
        pre("#define ADD(a, b) a + b\nint x = ADD(1,\n 2);"),
        "int x = 1 + 2 ;"
    );
    // #undef.
    assert_eq!(pre("#define T 1\n#undef T\nint x = T;"), "int x = T ;");
    // Expanded tokens stand where the macro was written.
    let out = preprocess(tokenize("#define Z \\\n 0\n\n  int q = Z;").unwrap(), 700).unwrap();
    let z = &out.tokens[3];
    assert_eq!(
        (z.tok.spelling(), z.pos.line, z.pos.column),
        ("0".into(), 4, 11)
    );
}

#[test]
fn conditionals_read_one_branch() {
    let source = "#if __CUDA_ARCH__ >= 800\nint ampere;\n#elif __CUDA_ARCH__ >= 700\nint volta;\n#else\nint older;\n#endif\n";
    assert_eq!(pre(source), "int volta ;");
    let eighty = preprocess(tokenize(source).unwrap(), 800).unwrap();
    assert_eq!(eighty.tokens[1].tok.spelling(), "ampere");
    assert_eq!(
        pre("#ifdef __CUDACC__\nint a;\n#endif\n#ifndef __CUDACC__\nint b;\n#endif"),
        "int a ;"
    );
    // Nested, inside a branch that is skipped: nothing of it is read, even a bad condition.
    assert_eq!(
        pre("#if 0\n#if 1/0\nint x;\n#else\nint y;\n#endif\n#error not read\n#endif\nint z;"),
        "int z ;"
    );
    assert_eq!(
        pre("#if defined(N) || !defined N\nint ok;\n#endif"),
        "int ok ;"
    );
    assert_eq!(
        pre("#define V 3\n#if V * 2 == 6 && (V << 1) > 5 ? 1 : 0\nint six;\n#endif"),
        "int six ;"
    );
    // The host is taken as Linux, as NVIDIA's samples check.
    assert_eq!(
        pre("#if defined(__linux__)\nint linux;\n#else\n#error Unsupported system\n#endif"),
        "int linux ;"
    );
}

#[test]
fn includes_and_pragmas_are_skipped_and_includes_listed() {
    let out = preprocess(
        tokenize("#include <cuda_runtime.h>\n#include \"helper.h\"\n#pragma unroll\nint x;")
            .unwrap(),
        700,
    )
    .unwrap();
    assert_eq!(
        out.includes,
        [
            (1, "<cuda_runtime.h>".to_string()),
            (2, "\"helper.h\"".to_string())
        ]
    );
    assert_eq!(out.tokens.len(), 3);
}

#[test]
fn preprocessor_errors_name_the_line_and_column() {
    assert_eq!(
        pre_error("#if 1\nint x;\n"),
        "line 1, column 1: this #if has no #endif"
    );
    assert_eq!(
        pre_error("int x;\n#endif"),
        "line 2, column 1: #endif without an #if"
    );
    assert_eq!(
        pre_error("#if 1\n#else\n#else\n#endif"),
        "line 3, column 1: #else: comes after this #if's #else"
    );
    assert_eq!(
        pre_error("#define F(a, b) a\nint x = F(1);"),
        "line 2, column 9: macro F takes 2 arguments, given 1"
    );
    assert_eq!(
        pre_error("#define F(a) a\nint x = F(1;"),
        "line 2, column 9: the call of macro F has no closing ')'"
    );
    assert_eq!(
        pre_error("#define\n"),
        "line 1, column 2: #define: needs a macro name"
    );
    assert_eq!(
        pre_error("#define F(a,) a\n"),
        "line 1, column 13: #define: its parameters are names separated by commas, then ')'"
    );
    assert_eq!(
        pre_error("#frobnicate\n"),
        "line 1, column 2: #frobnicate is not a directive"
    );
    assert_eq!(
        pre_error("#error TILE must be 32\n"),
        "line 1, column 1: #error TILE must be 32"
    );
    assert_eq!(
        pre_error("#if 1 +\n#endif"),
        "line 1, column 1: #if: the condition ends too soon"
    );
    assert_eq!(
        pre_error("#if 1 2\n#endif"),
        "line 1, column 7: #if: '2' after the condition"
    );
    assert_eq!(
        pre_error("#if 4 / 0\n#endif"),
        "line 1, column 7: #if: division by zero"
    );
    assert_eq!(
        pre_error("x /* never closed\n"),
        "line 1, column 3: the comment never ends"
    );
}

#[test]
fn hostile_macros_stop_with_a_message() {
    // Macros `{name}1` to `{name}40`, each using the one before twice, on `{name}0` = `base`.
    let doubling = |name: &str, base: &str| {
        let mut source = format!("#define {name}0{base}\n");
        for k in 1..=40 {
            source.push_str(&format!(
                "#define {name}{k} {name}{} {name}{}\n",
                k - 1,
                k - 1
            ));
        }
        source
    };
    // Each level doubles: 2^40 tokens if nothing stopped it.
    let source = doubling("M", " x x") + "int y = M40;";
    assert_eq!(
        pre_error(&source),
        "line 42, column 9: macro M40 expands to more than 2097152 tokens"
    );
    // Regression: macros that expand to nothing produced no token, so 2^40 expansions ran on
    // (seconds at 2^21, for ever at 2^40); each expansion counts as one.
    let empty = doubling("E", "") + "int y = 1 E40;";
    assert_eq!(
        pre_error(&empty),
        "line 42, column 11: macro E40 expands to more than 2097152 tokens"
    );
    // Deep rather than wide: 70 macros each calling the next.
    let mut deep = String::from("#define D70 z\n");
    for k in (0..70).rev() {
        deep.push_str(&format!("#define D{k} D{}\n", k + 1));
    }
    deep.push_str("int y = D0;");
    assert_eq!(
        pre_error(&deep),
        "line 72, column 9: macro D0 expands too deeply (more than 64 levels)"
    );
    // A huge source is refused before it is read.
    let big = "x".repeat((1 << 20) + 1);
    assert_eq!(
        pre_error(&big),
        "line 1, column 1: the source is 1048577 bytes; at most 1048576 are read"
    );
}

mod parse {
    use coalescing_lab::model::cuda::ast::{
        Base, ExprKind, Init, Item, Member, Skipped, StmtKind, TemplateArg, UnaryOp,
    };
    use coalescing_lab::model::cuda::parse::parse;

    /// The one error of the device item named `name`, or panics.
    fn unread(source: &str, name: &str) -> String {
        let unit = parse(source, 700).unwrap();
        unit.skipped
            .iter()
            .find_map(|s| match s {
                Skipped::Unread { name: n, error } if n == name => Some(error.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name} was read: {:?}", unit.skipped))
    }

    #[test]
    fn a_whole_file_keeps_device_code_and_lists_the_host_s() {
        let source = "#include <cstdio>\n#include \"helper_cuda.h\"\nusing namespace std;\n\
            static int hostCount = 0;\n\
            __device__ float twice(float x) { return 2.0f * x; }\n\
            __global__ void scale(float* __restrict__ out, const float* in, int n) {\n\
              int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
              if (i < n) out[i] = twice(in[i]);\n\
            }\n\
            void launch(float* d) { scale<<<4, 256>>>(d, d, 1024); }\n\
            int main(int argc, char** argv) {\n  std::vector<int> v{1, 2};\n  return 0;\n}\n";
        let unit = parse(source, 700).unwrap();
        assert_eq!(
            unit.kernels().map(|k| k.name.as_str()).collect::<Vec<_>>(),
            ["scale"]
        );
        assert!(unit.function("twice").is_some_and(|f| f.spaces.device));
        assert_eq!(
            format!("{:?}", unit.skipped),
            r#"[HostDecl { line: 4 }, Host { name: "launch", line: 10 }, Host { name: "main", line: 11 }]"#
        );
        assert_eq!(unit.includes.len(), 2);
        let scale = unit.kernels().next().unwrap();
        assert_eq!(scale.params[0].ty.pointers, 1);
        assert!(scale.params[1].ty.is_const);
        // `out[i]` begins at `out`: line 8, column 12 (the `\` continuation drops the
        // literal's indentation).
        let StmtKind::If { then, .. } = &scale.body[1].kind else {
            panic!("{:?}", scale.body[1]);
        };
        let StmtKind::Expr(e) = &then.kind else {
            panic!()
        };
        let ExprKind::Assign { lhs, .. } = &e.kind else {
            panic!()
        };
        assert_eq!((lhs.pos.line, lhs.pos.column), (8, 12));
    }

    #[test]
    fn the_tiled_transpose_reads_with_its_shared_tile_and_barrier() {
        let source = "#define TILE_DIM 32\n#define BLOCK_ROWS 8\n\
            __global__ void transposeCoalesced(float *odata, const float *idata)\n{\n\
              __shared__ float tile[TILE_DIM][TILE_DIM+1];\n\
              int x = blockIdx.x * TILE_DIM + threadIdx.x;\n\
              int y = blockIdx.y * TILE_DIM + threadIdx.y;\n\
              int width = gridDim.x * TILE_DIM;\n\
              for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n\
                 tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*width + x];\n\
              __syncthreads();\n\
              x = blockIdx.y * TILE_DIM + threadIdx.x;  // transpose block offset\n\
              y = blockIdx.x * TILE_DIM + threadIdx.y;\n\
              for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n\
                 odata[(y+j)*width + x] = tile[threadIdx.x][threadIdx.y + j];\n}\n";
        let unit = parse(source, 700).unwrap();
        assert!(unit.skipped.is_empty(), "{:?}", unit.skipped);
        let k = unit.kernels().next().unwrap();
        assert_eq!(k.body.len(), 9);
        let StmtKind::Decl(tile) = &k.body[0].kind else {
            panic!()
        };
        assert!(tile.storage.shared);
        assert_eq!(tile.declarators[0].dims.len(), 2);
        assert!(
            matches!(k.body[5].kind, StmtKind::Expr(ref e) if matches!(e.kind, ExprKind::Call { .. }))
        );
        assert!(matches!(k.body[4].kind, StmtKind::For { .. }));
    }

    #[test]
    fn templates_structs_and_casts_of_nvidia_s_samples_read() {
        // The shapes of cuda-samples' reduction (SharedMemory<T> with its specialisation and
        // conversion operator), a float4 cast, cooperative groups and brace initialisation.
        let source = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
            template <class T> struct SharedMemory {\n\
              __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }\n\
            };\n\
            template <> struct SharedMemory<double> {\n\
              __device__ inline operator double *() { extern __shared__ double __smem_d[]; return (double *)__smem_d; }\n\
            };\n\
            template <class T, unsigned int blockSize>\n\
            __global__ void reduce4(T *g_idata, T *g_odata, unsigned int n) {\n\
              cg::thread_block cta = cg::this_thread_block();\n\
              T *sdata = SharedMemory<T>();\n\
              unsigned int tid = threadIdx.x;\n\
              T mySum = (tid < n) ? g_idata[tid] : 0;\n\
              sdata[tid] = mySum;\n\
              cg::sync(cta);\n\
              for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {\n\
                if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];\n\
                cg::sync(cta);\n\
              }\n\
              size_t const col{blockIdx.x * blockDim.x + threadIdx.x};\n\
              float4 v = reinterpret_cast<float4 *>(g_idata)[col];\n\
              g_odata[static_cast<int>(col)] = v.x;\n\
            }\n";
        let unit = parse(source, 700).unwrap();
        assert!(unit.skipped.is_empty(), "{:?}", unit.skipped);
        let structs: Vec<_> = unit
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Struct(s) => Some(s),
                _ => None,
            })
            .collect();
        assert_eq!(structs.len(), 2);
        assert!(matches!(structs[0].members[0], Member::Conversion(ref f) if f.ret.pointers == 1));
        assert!(
            matches!(structs[1].specialises.as_deref(), Some([TemplateArg::Type(t)]) if t.base == Base::Double)
        );
        let k = unit.kernels().next().unwrap();
        assert_eq!(k.template.as_ref().map(Vec::len), Some(2));
        let StmtKind::Decl(col) = &k.body[7].kind else {
            panic!("{:?}", k.body[7])
        };
        assert!(matches!(col.declarators[0].init, Some(Init::List(_))));
        assert_eq!(
            col.declarators[0].ty.base,
            Base::Int { bytes: 8, signed: false }
        );
    }

    #[test]
    fn pointers_members_and_operators_keep_their_shape() {
        let source = "struct P { float x; int2 v[4]; };\n\
            __device__ int f(P* p, int* q) { return p->v[1].y + *q++ + sizeof(P) + (int)p[2].x; }\n";
        let unit = parse(source, 700).unwrap();
        assert!(unit.skipped.is_empty(), "{:?}", unit.skipped);
        let f = unit.function("f").unwrap();
        let StmtKind::Return(Some(e)) = &f.body[0].kind else {
            panic!()
        };
        // ((p->v[1].y + *q++) + sizeof(P)) + (int)p[2].x
        let ExprKind::Binary { lhs, .. } = &e.kind else {
            panic!()
        };
        let ExprKind::Binary { lhs, rhs: size, .. } = &lhs.kind else {
            panic!()
        };
        assert!(matches!(size.kind, ExprKind::SizeofType(_)));
        let ExprKind::Binary { rhs: deref, .. } = &lhs.kind else {
            panic!()
        };
        // `*q++` is `*(q++)`, and it begins at the `*`: column 53.
        let ExprKind::Unary { op: UnaryOp::Deref, operand } = &deref.kind else {
            panic!("{deref:?}")
        };
        assert!(matches!(
            operand.kind,
            ExprKind::Unary { op: UnaryOp::PostInc, .. }
        ));
        assert_eq!((deref.pos.line, deref.pos.column), (2, 53));
    }

    #[test]
    fn what_the_subset_leaves_out_is_named_with_its_line() {
        let k = |body: &str| format!("__global__ void k(int* a) {{\n{body}\n}}\n");
        assert_eq!(
            unread(&k("  goto done;"), "k"),
            "line 2, column 3: the CUDA subset this page reads leaves out goto"
        );
        assert_eq!(
            unread(&k("  asm(\"nop\");"), "k"),
            "line 2, column 3: the CUDA subset this page reads leaves out inline asm"
        );
        assert_eq!(
            unread(&k("  auto f = [](int x) { return x; };"), "k"),
            "line 2, column 12: the CUDA subset this page reads leaves out a lambda"
        );
        assert_eq!(
            unread(&k("  int* p = new int[4];"), "k"),
            "line 2, column 12: the CUDA subset this page reads leaves out new and delete in device code"
        );
        assert_eq!(unread(&k("  k<<<1, 1>>>(a);"), "k"), "line 2, column 4: the CUDA subset this page reads leaves out dynamic parallelism (a launch inside a kernel)");
        assert_eq!(
            unread("__global__ void t(cudaTextureObject_t tex) {}\n", "t"),
            "line 1, column 19: the CUDA subset this page reads leaves out textures and surfaces"
        );
        assert_eq!(
            unread("struct B : A { int x; };\n__device__ int g;\n", "B"),
            "line 1, column 10: the CUDA subset this page reads leaves out inheritance"
        );
        assert_eq!(
            unread(&k("  a[0] = 1"), "k"),
            "line 3, column 1: expected ';' after the expression, found '}'"
        );
        assert_eq!(
            unread(&k("  if (a[0] > 0 { }"), "k"),
            "line 2, column 16: expected ')' after the condition, found '{'"
        );
        // One kernel outside the subset does not keep the others from being read.
        let two = format!(
            "{}__global__ void ok(int* a) {{ a[0] = 1; }}\n",
            k("  goto x;")
        );
        let unit = parse(&two, 700).unwrap();
        assert_eq!(
            unit.kernels().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["ok"]
        );
    }
}

mod layout {
    use coalescing_lab::model::cuda::ast::{Base, Item, Type};
    use coalescing_lab::model::cuda::parse::parse;
    use coalescing_lab::model::cuda::Pos;
    use coalescing_lab::model::cuda::{base_layout, layout_of, struct_layout, Layout};

    /// CUDA's vector types, as `vector_types.h` defines them: (name, size, alignment).
    const VECTORS: [(&str, u64, u64); 16] = [
        ("char2", 2, 2),
        ("char3", 3, 1),
        ("char4", 4, 4),
        ("short2", 4, 4),
        ("short3", 6, 2),
        ("short4", 8, 8),
        ("int2", 8, 8),
        ("int3", 12, 4),
        ("int4", 16, 16),
        ("uint4", 16, 16),
        ("float2", 8, 8),
        ("float3", 12, 4),
        ("float4", 16, 16),
        ("double2", 16, 16),
        ("double3", 24, 8),
        ("double4", 32, 16),
    ];

    #[test]
    fn vector_types_have_cuda_s_sizes_and_alignments() {
        for (name, size, align) in VECTORS {
            let unit = parse(&format!("__device__ {name} v;"), 700).unwrap();
            let Some(Item::Global(decl)) = unit.items.first() else {
                panic!("{name}: {:?}", unit.skipped);
            };
            let l = layout_of(&decl.declarators[0].ty, &unit, Pos::default()).unwrap();
            assert_eq!(l, Layout { size, align }, "{name}");
        }
        let scalar = |b| base_layout(&b).map(|l| (l.size, l.align));
        assert_eq!(scalar(Base::Int { bytes: 8, signed: true }), Some((8, 8)));
        assert_eq!(scalar(Base::Bool), Some((1, 1)));
        // A pointer is 8 bytes whatever it points to.
        let p = Type { pointers: 1, ..Type::of(Base::Void) };
        assert_eq!(
            layout_of(&p, &parse("", 700).unwrap(), Pos::default()).unwrap(),
            Layout { size: 8, align: 8 }
        );
    }

    #[test]
    fn structs_are_laid_out_as_cpp_lays_them_out() {
        let source = "struct Particle { float x, y, z; };\n\
            typedef struct { double mass; char tag; } Body;\n\
            struct Cell { char c; Particle p[2]; Body b; int2 i; unsigned long long n; static const int K = 4; };\n\
            struct Empty {};\n";
        let unit = parse(source, 700).unwrap();
        assert!(unit.skipped.is_empty(), "{:?}", unit.skipped);
        let (_, particle) = struct_layout(&unit, "Particle").unwrap();
        assert_eq!(particle, Layout { size: 12, align: 4 });
        let (_, body) = struct_layout(&unit, "Body").unwrap();
        assert_eq!(body, Layout { size: 16, align: 8 });
        let (fields, cell) = struct_layout(&unit, "Cell").unwrap();
        let offsets: Vec<(&str, u64, u64)> = fields
            .iter()
            .map(|f| (f.name.as_str(), f.offset, f.layout.size))
            .collect();
        // c at 0; p (align 4) at 4, 24 bytes; b (align 8) at 32; i (align 8) at 48; n at 56.
        assert_eq!(
            offsets,
            [
                ("c", 0, 1),
                ("p", 4, 24),
                ("b", 32, 16),
                ("i", 48, 8),
                ("n", 56, 8)
            ]
        );
        assert_eq!(cell, Layout { size: 64, align: 8 });
        assert_eq!(
            struct_layout(&unit, "Empty").unwrap().1,
            Layout { size: 1, align: 1 }
        );
    }

    #[test]
    fn what_has_no_layout_says_why() {
        let unit = parse("struct A { B b; };\nstruct L { int v[N]; };\ntemplate <class T> struct W { T t; };\nstruct S { W<int> w; };\n", 700).unwrap();
        assert_eq!(
            struct_layout(&unit, "A").unwrap_err().to_string(),
            "line 1, column 14: B is not a type this file defines, so its size is unknown"
        );
        assert_eq!(
            struct_layout(&unit, "L").unwrap_err().to_string(),
            "line 2, column 16: an array extent must be a constant made of integer literals"
        );
        assert_eq!(
            struct_layout(&unit, "S").unwrap_err().to_string(),
            "line 4, column 19: W is a template: its layout needs its arguments"
        );
    }
}

mod launch {
    use coalescing_lab::model::cuda::parse::launch::{parse_launch, LaunchArg};

    fn error(text: &str) -> String {
        parse_launch(text).unwrap_err().to_string()
    }

    #[test]
    fn launches_read_as_host_code_writes_them() {
        let l = parse_launch(
            "  matmul<16><<<(1024 / 16) * 2, 256>>>(A[65536], B@0x2000, C + 3, 1024, 2.5f)",
        )
        .unwrap();
        assert_eq!(
            (l.grid, l.block, l.shared_bytes),
            ([128, 1, 1], [256, 1, 1], 0)
        );
        assert!(
            matches!(&l.args[0], LaunchArg::Buffer { name, count: Some(65536), base: None, offset: 0, .. } if name == "A")
        );
        assert!(matches!(
            &l.args[1],
            LaunchArg::Buffer { base: Some(0x2000), .. }
        ));
        assert!(matches!(&l.args[2], LaunchArg::Buffer { offset: 3, .. }));
        assert!(
            matches!(l.args[3], LaunchArg::Value(_)) && matches!(l.args[4], LaunchArg::Value(_))
        );
        // A, C unpinned: the 1st and 3rd distinct names; B pinned.
        let bases: Vec<u64> = l.allocations().unwrap().iter().map(|a| a.base).collect();
        assert_eq!(bases, [0x1000_0000, 0x2000, 0x3000_0000]);
        let none = parse_launch("k<<<dim3(2,2,2), dim3(8)>>>()").unwrap();
        assert_eq!(
            (none.grid, none.block, none.args.len()),
            ([2, 2, 2], [8, 1, 1], 0)
        );
        assert_eq!(
            parse_launch("copy<<<1, 32>>>(a - 1)").unwrap().args.len(),
            1
        );
    }

    // Regression: launches copied from host code failed on `sizeof`, a stream and the
    // statement's `;`.
    #[test]
    fn a_launch_as_host_code_writes_it_reads() {
        let l = parse_launch(
            "k<<<(4096 + 255) / 256, 256, 256 * sizeof(float), stream>>>(a, NULL, nullptr, 0);",
        )
        .unwrap();
        assert_eq!(
            (l.grid, l.block, l.shared_bytes, l.stream),
            ([16, 1, 1], [256, 1, 1], 1024, true)
        );
        assert_eq!(l.args.len(), 4);
        assert!(l.args[1..].iter().all(|a| matches!(a, LaunchArg::Value(_))));
        let l = parse_launch("k<<<1 << 4, sizeof(float4) * 8 % 100, (int)sizeof(double *)>>>()")
            .unwrap();
        assert_eq!(
            (l.grid[0], l.block[0], l.shared_bytes, l.stream),
            (16, 28, 8, false)
        );
    }

    #[test]
    fn launch_errors_name_the_column() {
        assert_eq!(
            error("k<<<0, 32>>>()"),
            "launch, column 5: expected the grid: blocks, or dim3(x, y, z), found '0'"
        );
        assert_eq!(
            error("k<<<n, 32>>>()"),
            "launch, column 5: expected the grid: blocks, or dim3(x, y, z), found 'n'"
        );
        assert_eq!(error("k<<<1, 32>>>(a"), "launch, column 14: expected ',' or ')' after an argument, found 'the end of the launch'");
        assert_eq!(
            error("k<<<1, 32>>>(a) x"),
            "launch, column 17: expected the end of the launch, found 'x'"
        );
        // Regression: constants the launch can work out itself were "not an integer
        // constant"; a name it cannot see is named.
        assert_eq!(
            error("k<<<-1, 32>>>()"),
            "launch, column 5: expected the grid: blocks, or dim3(x, y, z), found '-1'"
        );
        assert_eq!(
            error("k<<<(DSIZE + 255) / 256, 256>>>()"),
            "launch, column 5: expected the grid: blocks, or dim3(x, y, z), found 'DSIZE'"
        );
        assert_eq!(
            error("k<<<1, 32, -1>>>()"),
            "launch, column 12: expected the bytes of dynamic shared memory, found '-1'"
        );
        assert_eq!(
            error("k<<<1, 32, sizeof(Tile)>>>()"),
            "launch, column 12: expected the bytes of dynamic shared memory, found 'the size of a type this launch does not know'"
        );
        assert_eq!(
            error("k<<<dim3(1,2,3,4), 1>>>()"),
            "launch, column 15: expected ')': dim3 has at most three sizes, found ','"
        );
        assert_eq!(
            error("k<<<1, 1>>>(a@x)"),
            "launch, column 15: expected the allocation's base address, found 'x'"
        );
        assert_eq!(
            error("k<<<1, 1>>>(#a)"),
            "launch, column 13: '#' is not part of CUDA C++"
        );
        assert_eq!(
            error("k<<<1,\n 1>>>()"),
            "launch, column 2: a launch is one line"
        );
        assert_eq!(
            parse_launch("k<<<1, 1>>>(a@0x10, a@0x20)")
                .unwrap()
                .allocations()
                .unwrap_err()
                .to_string(),
            "launch, column 21: the same allocation is pinned at two bases"
        );
    }
}

mod cint {
    use coalescing_lab::model::cuda::cint::{binary, Int, IntType, Undefined};
    use coalescing_lab::model::expr::BinaryOp;
    use proptest::prelude::*;

    const TYPES: [IntType; 8] = [
        IntType { bytes: 1, signed: true },
        IntType { bytes: 1, signed: false },
        IntType { bytes: 2, signed: true },
        IntType { bytes: 2, signed: false },
        IntType { bytes: 4, signed: true },
        IntType { bytes: 4, signed: false },
        IntType { bytes: 8, signed: true },
        IntType { bytes: 8, signed: false },
    ];

    const OPS: [BinaryOp; 16] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Lt,
        BinaryOp::Gt,
        BinaryOp::Le,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Shl,
        BinaryOp::Shr,
    ];

    /// The common type after promotion, written out as C++17's table for a 64-bit host
    /// (int, unsigned, long, unsigned long), independently of the model's rule.
    fn common(a: IntType, b: IntType) -> (u8, bool) {
        let p = |t: IntType| {
            if t.bytes < 4 {
                (4, true)
            } else {
                (t.bytes, t.signed)
            }
        };
        match (p(a), p(b)) {
            (x, y) if x == y => x,
            ((8, false), _) | (_, (8, false)) => (8, false),
            ((8, true), _) | (_, (8, true)) => (8, true),
            _ => (4, false), // int with unsigned int
        }
    }

    /// The oracle: Rust's own fixed-width arithmetic in the common type. `None` where C++
    /// is undefined.
    fn oracle(op: BinaryOp, a: i128, b: i128, ty: (u8, bool)) -> Option<i128> {
        use BinaryOp as B;
        macro_rules! go {
            ($t:ty, $signed:expr) => {{
                let (x, y) = (a as $t, b as $t);
                let cmp = |c: bool| Some(i128::from(c));
                match op {
                    B::Add => {
                        if $signed {
                            x.checked_add(y).map(|v| v as i128)
                        } else {
                            Some(x.wrapping_add(y) as i128)
                        }
                    }
                    B::Sub => {
                        if $signed {
                            x.checked_sub(y).map(|v| v as i128)
                        } else {
                            Some(x.wrapping_sub(y) as i128)
                        }
                    }
                    B::Mul => {
                        if $signed {
                            x.checked_mul(y).map(|v| v as i128)
                        } else {
                            Some(x.wrapping_mul(y) as i128)
                        }
                    }
                    B::Div => x.checked_div(y).map(|v| v as i128),
                    B::Rem => x.checked_rem(y).map(|v| v as i128),
                    B::BitAnd => Some((x & y) as i128),
                    B::BitOr => Some((x | y) as i128),
                    B::BitXor => Some((x ^ y) as i128),
                    B::Lt => cmp(x < y),
                    B::Gt => cmp(x > y),
                    B::Le => cmp(x <= y),
                    B::Ge => cmp(x >= y),
                    B::Eq => cmp(x == y),
                    B::Ne => cmp(x != y),
                    _ => unreachable!(),
                }
            }};
        }
        match ty {
            (4, true) => go!(i32, true),
            (4, false) => go!(u32, false),
            (8, true) => go!(i64, true),
            _ => go!(u64, false),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn arithmetic_is_cpp_s(ta in 0usize..8, tb in 0usize..8, op in 0usize..14, x in any::<i64>(), y in prop_oneof![any::<i64>(), -3i64..4]) {
            let (ta, tb, op) = (TYPES[ta], TYPES[tb], OPS[op]);
            let (a, b) = (Int::new(i128::from(x), ta), Int::new(i128::from(y), tb));
            let ty = common(ta, tb);
            let expected = oracle(op, a.value, b.value, ty);
            match (binary(op, a, b), expected) {
                (Ok(r), Some(v)) => prop_assert_eq!(r.value, v, "{:?} {:?} {:?}", op, a, b),
                (Err(_), None) => {}
                (got, want) => prop_assert!(false, "{:?} {:?} {:?}: {:?} against {:?}", op, a, b, got, want),
            }
        }

        #[test]
        fn shifts_follow_cpp17(t in 0usize..8, x in any::<i64>(), amount in -2i64..70) {
            let ty = TYPES[t];
            let a = Int::new(i128::from(x), ty);
            let amt = Int::new(i128::from(amount), TYPES[4]);
            let promoted = if ty.bytes < 4 { TYPES[4] } else { ty };
            let bits = i128::from(promoted.bits());
            let left = binary(BinaryOp::Shl, a, amt);
            let right = binary(BinaryOp::Shr, a, amt);
            if !(0..bits).contains(&i128::from(amount)) {
                prop_assert!(matches!(left, Err(Undefined::ShiftOutOfRange { .. })), "{:?}", left);
                prop_assert!(matches!(right, Err(Undefined::ShiftOutOfRange { .. })), "{:?}", right);
            } else {
                // >> is arithmetic for a negative value.
                prop_assert_eq!(right.unwrap().value, a.value >> amount);
                let exact = a.value << amount;
                if a.value < 0 {
                    prop_assert!(matches!(left, Err(Undefined::NegativeShifted { .. })), "{:?}", left);
                } else if promoted.signed && exact >= (1i128 << bits) {
                    prop_assert!(matches!(left, Err(Undefined::Overflow { .. })), "{:?}", left);
                } else {
                    prop_assert_eq!(left.unwrap().value, promoted.wrap(exact));
                }
            }
        }
    }

    #[test]
    fn undefined_behaviour_names_the_values() {
        let int = |v| Int::new(v, TYPES[4]);
        assert_eq!(
            binary(BinaryOp::Div, int(7), int(0))
                .unwrap_err()
                .to_string(),
            "7 / 0 divides by zero"
        );
        assert_eq!(
            binary(BinaryOp::Div, int(-2147483648), int(-1))
                .unwrap_err()
                .to_string(),
            "-2147483648 / -1 overflows int (signed overflow is undefined behaviour)"
        );
        assert_eq!(
            binary(BinaryOp::Shl, int(1), int(32))
                .unwrap_err()
                .to_string(),
            "a shift by 32 is outside 0 to 31 for a 32-bit value (`<<`)"
        );
        assert_eq!(
            binary(BinaryOp::Shl, int(-1), int(1))
                .unwrap_err()
                .to_string(),
            "-1 << …: a negative value shifted left is undefined behaviour"
        );
        // 1 << 31 fits unsigned int: C++17 defines it, as INT_MIN.
        assert_eq!(
            binary(BinaryOp::Shl, int(1), int(31)).unwrap().value,
            -2147483648
        );
    }
}
