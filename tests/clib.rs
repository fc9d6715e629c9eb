//! The C library as glibc gives it, against glibc itself: every expected value below was
//! printed by glibc 2.36 running `tests/clib/glibc_cases.c` (the command is in its first
//! lines), so that the model prints what a program prints on Linux.

#![expect(
    clippy::approx_constant,
    reason = "3.14159 is the value course programs print, not an approximation of π"
)]

use coalescing_lab::model::clib::printf::{sprintf, Arg, PrintfErrorKind};
use coalescing_lab::model::clib::rand::{Rand, RAND_MAX};

#[allow(non_snake_case, reason = "short names for the table's arguments")]
fn I(v: u64) -> Arg {
    Arg::Int(v)
}

#[allow(non_snake_case, reason = "short names for the table's arguments")]
fn D(v: f64) -> Arg {
    Arg::Double(v)
}

#[allow(non_snake_case, reason = "short names for the table's arguments")]
fn S(v: &str) -> Arg {
    Arg::Str(Some(v.as_bytes().to_vec()))
}

#[allow(non_snake_case, reason = "short names for the table's arguments")]
fn P(v: u64) -> Arg {
    Arg::Ptr(v)
}

/// A null `char *`.
const N: Arg = Arg::Str(None);

#[test]
fn printf_formats_as_glibc_does() {
    let cases: Vec<(&[u8], Vec<Arg>, &[u8])> = vec![
    // integers
    (b"%d", vec![I(0)], b"0"),
    (b"[%5d]", vec![I(42)], b"[   42]"),
    (b"[%-5d]", vec![I(42)], b"[42   ]"),
    (b"[%05d]", vec![I(42)], b"[00042]"),
    (b"[%+d]", vec![I(42)], b"[+42]"),
    (b"[% d]", vec![I(42)], b"[ 42]"),
    (b"[%d]", vec![I(-42i64 as u64)], b"[-42]"),
    (b"[%06d]", vec![I(-42i64 as u64)], b"[-00042]"),
    (b"[%-6d|]", vec![I(-42i64 as u64)], b"[-42   |]"),
    (b"[%.5d]", vec![I(42)], b"[00042]"),
    (b"[%8.5d]", vec![I(42)], b"[   00042]"),
    (b"[%08.5d]", vec![I(42)], b"[   00042]"),
    (b"[%.0d]", vec![I(0)], b"[]"),
    (b"[%5.0d]", vec![I(0)], b"[     ]"),
    (b"%i", vec![I(2147483647)], b"2147483647"),
    (b"%d", vec![I(-2147483648i64 as u64)], b"-2147483648"),
    (b"%u", vec![I(4294967295)], b"4294967295"),
    (b"%u", vec![I(-1i64 as u64)], b"4294967295"),
    (b"%ld", vec![I(-1i64 as u64)], b"-1"),
    (b"%lu", vec![I(-1i64 as u64)], b"18446744073709551615"),
    (b"%llx", vec![I(-1i64 as u64)], b"ffffffffffffffff"),
    (b"%hhu", vec![I(300)], b"44"),
    (b"%hhd", vec![I(300)], b"44"),
    (b"%hd", vec![I(70000)], b"4464"),
    (b"%x", vec![I(255)], b"ff"),
    (b"%X", vec![I(255)], b"FF"),
    (b"%#x", vec![I(255)], b"0xff"),
    (b"%#X", vec![I(255)], b"0XFF"),
    (b"%#x", vec![I(0)], b"0"),
    (b"%#010x", vec![I(255)], b"0x000000ff"),
    (b"%o", vec![I(8)], b"10"),
    (b"%#o", vec![I(8)], b"010"),
    (b"%#o", vec![I(0)], b"0"),
    (b"[%#.0o]", vec![I(0)], b"[0]"),
    (b"%zu", vec![I(123456789)], b"123456789"),
    (b"[%*d]", vec![I(5), I(42)], b"[   42]"),
    (b"[%*d]", vec![I(-5i64 as u64), I(42)], b"[42   ]"),
    (b"[%.*d]", vec![I(3), I(7)], b"[007]"),
    (b"[%.*d]", vec![I(-3i64 as u64), I(7)], b"[7]"),
    (b"%%d is %d%%", vec![I(42)], b"%d is 42%"),
    // characters and strings
    (b"[%c]", vec![I(65)], b"[A]"),
    (b"[%3c]", vec![I(65)], b"[  A]"),
    (b"[%-3c]", vec![I(65)], b"[A  ]"),
    (b"[%s]", vec![S("hello")], b"[hello]"),
    (b"[%8s]", vec![S("hello")], b"[   hello]"),
    (b"[%-8s]", vec![S("hello")], b"[hello   ]"),
    (b"[%.3s]", vec![S("hello")], b"[hel]"),
    (b"[%8.3s]", vec![S("hello")], b"[     hel]"),
    (b"[%.*s]", vec![I(2), S("hello")], b"[he]"),
    (b"[%s]", vec![S("")], b"[]"),
    (b"[%s]", vec![N], b"[(null)]"),
    (b"[%8s]", vec![N], b"[  (null)]"),
    (b"[%.3s]", vec![N], b"[]"),
    (b"[%.6s]", vec![N], b"[(null)]"),
    // pointers
    (b"%p", vec![P(0x10000000)], b"0x10000000"),
    (b"[%20p]", vec![P(0x10000000)], b"[          0x10000000]"),
    (b"[%-20p]", vec![P(0x10000000)], b"[0x10000000          ]"),
    (b"%p", vec![P(0xdeadbeefcafe)], b"0xdeadbeefcafe"),
    (b"[%p]", vec![P(0)], b"[(nil)]"),
    (b"[%10p]", vec![P(0)], b"[     (nil)]"),
    // floating point
    (b"%f", vec![D(3.14159)], b"3.141590"),
    (b"%.2f", vec![D(3.14159)], b"3.14"),
    (b"[%10.3f]", vec![D(3.14159)], b"[     3.142]"),
    (b"[%-10.3f]", vec![D(3.14159)], b"[3.142     ]"),
    (b"[%010.3f]", vec![D(3.14159)], b"[000003.142]"),
    (b"[%010.3f]", vec![D(-3.14159)], b"[-00003.142]"),
    (b"[%+.1f]", vec![D(3.14159)], b"[+3.1]"),
    (b"[% .1f]", vec![D(3.14159)], b"[ 3.1]"),
    (b"%.0f", vec![D(2.5)], b"2"),
    (b"%.0f", vec![D(3.5)], b"4"),
    (b"%.2f", vec![D(0.125)], b"0.12"),
    (b"%.2f", vec![D(0.375)], b"0.38"),
    (b"%.2f", vec![D(1.005)], b"1.00"),
    (b"%#.0f", vec![D(2.0)], b"2."),
    (b"%f", vec![D(0.0)], b"0.000000"),
    (b"%f", vec![D(-0.0)], b"-0.000000"),
    (b"%f", vec![D(1e300)], b"1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000"),
    (b"%.1f", vec![D(123456789.0)], b"123456789.0"),
    (b"%.10f", vec![D(0.1f32 as f64)], b"0.1000000015"),
    (b"%e", vec![D(12345.678)], b"1.234568e+04"),
    (b"%E", vec![D(12345.678)], b"1.234568E+04"),
    (b"%.2e", vec![D(12345.678)], b"1.23e+04"),
    (b"%.0e", vec![D(12345.678)], b"1e+04"),
    (b"%#.0e", vec![D(12345.678)], b"1.e+04"),
    (b"%e", vec![D(0.0)], b"0.000000e+00"),
    (b"%e", vec![D(1e-300)], b"1.000000e-300"),
    (b"%e", vec![D(1e100)], b"1.000000e+100"),
    (b"%.2e", vec![D(9.9999999)], b"1.00e+01"),
    (b"[%12.3e]", vec![D(-1.5e-7)], b"[  -1.500e-07]"),
    (b"%g", vec![D(12345.678)], b"12345.7"),
    (b"%g", vec![D(123456789.0)], b"1.23457e+08"),
    (b"%g", vec![D(0.0001)], b"0.0001"),
    (b"%g", vec![D(0.00001)], b"1e-05"),
    (b"%g", vec![D(100000.0)], b"100000"),
    (b"%g", vec![D(1000000.0)], b"1e+06"),
    (b"%g", vec![D(0.0)], b"0"),
    (b"%g", vec![D(1.5)], b"1.5"),
    (b"%#g", vec![D(1.5)], b"1.50000"),
    (b"%.0g", vec![D(1.0)], b"1"),
    (b"%.3g", vec![D(3.14159)], b"3.14"),
    (b"%.10g", vec![D(3.14159)], b"3.14159"),
    (b"%g", vec![D(999999.5)], b"1e+06"),
    (b"%G", vec![D(9.9999e-5)], b"9.9999E-05"),
    (b"%G", vec![D(1e-5)], b"1E-05"),
    (b"[%10.2g]", vec![D(2.5)], b"[       2.5]"),
    (b"%.17g", vec![D(0.1f32 as f64)], b"0.10000000149011612"),
    (b"%f", vec![D(f64::INFINITY)], b"inf"),
    (b"[%8.2f]", vec![D(f64::NEG_INFINITY)], b"[    -inf]"),
    (b"%E", vec![D(f64::INFINITY)], b"INF"),
    (b"[%08f]", vec![D(f64::INFINITY)], b"[     inf]"),
    (b"%f", vec![D(f64::NAN)], b"nan"),
    (b"%g", vec![D(-f64::NAN)], b"-nan"),
    (b"%G", vec![D(f64::NAN)], b"NAN"),
    (b"[%+f]", vec![D(f64::INFINITY)], b"[+inf]"),
    // a line as course programs print it
    (b"Test %d: sum = %8.2f %s\n", vec![I(1), D(4096.0), S("PASSED")], b"Test 1: sum =  4096.00 PASSED\n"),
    (b"C[%d][%d] = %6.3f\n", vec![I(3), I(1), D(0.5)], b"C[3][1] =  0.500\n"),
    (b"max error %g (tolerance %.1e)\n", vec![D(1.0e-6), D(2.0)], b"max error 1e-06 (tolerance 2.0e+00)\n"),
    ];
    let mut wrong = Vec::new();
    for (format, args, want) in &cases {
        let got = sprintf(format, args).unwrap_or_else(|e| panic!("{e}"));
        if got != *want {
            wrong.push(format!(
                "{} {args:?}: {:?}, glibc {:?}",
                String::from_utf8_lossy(format),
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(want)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn printf_names_the_conversion_it_cannot_print() {
    let e = sprintf(b"x = %d, y = %d\n", &[I(1)]).unwrap_err();
    assert_eq!(
        (e.at, e.kind.clone()),
        (12, PrintfErrorKind::Missing { index: 2 })
    );
    assert_eq!(
        e.to_string(),
        "the conversion %d needs argument 2, which is not given"
    );
    let e = sprintf(b"%5.2d", &[D(1.5)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the conversion %5.2d takes an integer, but argument 1 is a double"
    );
    let e = sprintf(b"%f", &[I(1)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the conversion %f takes a double, but argument 1 is an integer"
    );
    let e = sprintf(b"%s", &[I(1)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the conversion %s takes a string, but argument 1 is an integer"
    );
    let e = sprintf(b"%a", &[D(1.0)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the conversion %a is not one this page prints"
    );
    let e = sprintf(b"%n", &[P(8)]).unwrap_err();
    assert_eq!(e.kind, PrintfErrorKind::Unsupported);
    let e = sprintf(b"100%", &[]).unwrap_err();
    assert_eq!(e.to_string(), "the format ends inside the conversion %");
    let e = sprintf(b"%*d", &[D(2.0), I(1)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the conversion %* takes an int (for '*'), but argument 1 is a double"
    );
    let e = sprintf(b"[%33333333333333p]", &[P(1)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the conversion %33333333333333 asks for a field of 33333333333333 bytes; a field here is \
         at most 1048576"
    );
    let e = sprintf(b"%.*f", &[I(2_000_000), D(1.0)]).unwrap_err();
    assert_eq!(e.kind, PrintfErrorKind::TooWide { asked: 2_000_000 });
    assert_eq!(sprintf(b"%1048576d", &[I(1)]).unwrap().len(), 1 << 20);
    // Past Rust's own limit on a precision (65535), the digits past a double's exact
    // expansion are zeros, as glibc prints them.
    let long = sprintf(b"%.70000f|%.70000e", &[D(0.1), D(0.1)]).unwrap();
    let long = String::from_utf8(long).unwrap();
    let (f, e) = long.split_once('|').unwrap();
    assert_eq!((f.len(), e.len()), (2 + 70000, 2 + 70000 + 4));
    assert!(f.starts_with("0.1000000000000000055511151231257827021181583404541015625000"));
    assert!(e.starts_with("1.000000000000000055511151231257827021181583404541015625000"));
    assert!(e.ends_with("000e-01") && f.ends_with("0000"));
    // Arguments past the format's are not read, as in C.
    assert_eq!(sprintf(b"%d\n", &[I(7), I(8)]).unwrap(), b"7\n");
}

#[test]
fn rand_gives_glibcs_sequences() {
    let cases: [(u32, [i32; 5]); 7] = [
        (
            0u32,
            [1804289383, 846930886, 1681692777, 1714636915, 1957747793],
        ),
        (
            1u32,
            [1804289383, 846930886, 1681692777, 1714636915, 1957747793],
        ),
        (
            42u32,
            [71876166, 708592740, 1483128881, 907283241, 442951012],
        ),
        (
            12345u32,
            [383100999, 858300821, 357768173, 455528251, 133005921],
        ),
        (
            2147483647u32,
            [1065668062, 2142264300, 1066566375, 1064012770, 2141034222],
        ),
        (
            2147483648u32,
            [1336741213, 1210407648, 1447044896, 337392383, 82502902],
        ),
        (
            4294967295u32,
            [254925627, 1205188300, 366127624, 1401405153, 76053476],
        ),
    ];
    for (seed, want) in cases {
        let mut r = Rand::seeded(seed);
        let got: Vec<i32> = (0..5).map(|_| r.rand()).collect();
        assert_eq!(got, want, "srand({seed})");
    }
    // A program that never calls srand draws srand(1)'s sequence.
    let mut r = Rand::default();
    assert_eq!(r.rand(), 1804289383);
    // A long run, every draw within 0..=RAND_MAX.
    let mut r = Rand::seeded(7);
    let (mut sum, mut last) = (0i64, 0);
    for _ in 0..1_000_000 {
        last = r.rand();
        assert!((0..=RAND_MAX).contains(&last));
        sum += i64::from(last);
    }
    assert_eq!((sum, last), (1073462256499888, 185062269));
}

#[test]
fn a_value_the_caller_does_not_know_prints_as_a_question_mark_in_its_field() {
    let out = sprintf(
        b"[%5d|%-4.2f|%s]",
        &[Arg::Unknown, Arg::Unknown, Arg::Unknown],
    )
    .unwrap();
    assert_eq!(out, b"[    ?|?   |?]");
    assert_eq!(
        sprintf(b"%n", &[Arg::Unknown]).unwrap_err().kind,
        PrintfErrorKind::Unsupported
    );
}
