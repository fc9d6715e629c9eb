//! The CUDA front end, slice by slice: the lexer and the preprocessor, to the letter.

use coalescing_lab::model::cuda::lex::{tokenize, IntSuffix, Punct, Tok};
use coalescing_lab::model::cuda::pre::preprocess;

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
        Tok::Int {
            value,
            suffix,
            decimal,
        } => (value, suffix, decimal),
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
    assert_eq!(
        float("1.f"),
        Tok::Float {
            value: 1.0,
            single: true
        }
    );
    assert_eq!(
        float(".5"),
        Tok::Float {
            value: 0.5,
            single: false
        }
    );
    assert_eq!(
        float("1e-3f"),
        Tok::Float {
            value: 1e-3,
            single: true
        }
    );
    assert_eq!(
        float("2.5E+2"),
        Tok::Float {
            value: 250.0,
            single: false
        }
    );
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
    // Each level doubles: 2^40 tokens if nothing stopped it.
    let mut source = String::from("#define M0 x x\n");
    for k in 1..=40 {
        source.push_str(&format!("#define M{k} M{} M{}\n", k - 1, k - 1));
    }
    source.push_str("int y = M40;");
    assert_eq!(
        pre_error(&source),
        "line 42, column 9: macro M40 expands to more than 2097152 tokens"
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
