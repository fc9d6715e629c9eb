/* Prints the cases of tests/clib.rs from this machine's glibc: each `printf` call's format,
 * arguments and output, and rand()'s sequences. Rebuild the expected values with
 *   gcc -o /tmp/glibc_cases tests/clib/glibc_cases.c && /tmp/glibc_cases
 * (the numbers in tests/clib.rs came from glibc 2.36). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void esc(const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if (*s == '\n') printf("\\n");
    else putchar(*s);
  }
}

#define CASE(ARGS_RUST, FMT, ...) do { \
    char buf[512]; snprintf(buf, sizeof buf, FMT, __VA_ARGS__); \
    printf("    (b\""); esc(FMT); printf("\", vec![%s], b\"", ARGS_RUST); esc(buf); printf("\"),\n"); \
  } while (0)

int main(void) {
  printf("// integers\n");
  CASE("I(0)", "%d", 0);
  CASE("I(42)", "[%5d]", 42);
  CASE("I(42)", "[%-5d]", 42);
  CASE("I(42)", "[%05d]", 42);
  CASE("I(42)", "[%+d]", 42);
  CASE("I(42)", "[% d]", 42);
  CASE("I(-42i64 as u64)", "[%d]", -42);
  CASE("I(-42i64 as u64)", "[%06d]", -42);
  CASE("I(-42i64 as u64)", "[%-6d|]", -42);
  CASE("I(42)", "[%.5d]", 42);
  CASE("I(42)", "[%8.5d]", 42);
  CASE("I(42)", "[%08.5d]", 42);
  CASE("I(0)", "[%.0d]", 0);
  CASE("I(0)", "[%5.0d]", 0);
  CASE("I(2147483647)", "%i", 2147483647);
  CASE("I(-2147483648i64 as u64)", "%d", (int)-2147483648LL);
  CASE("I(4294967295)", "%u", 4294967295u);
  CASE("I(-1i64 as u64)", "%u", -1);
  CASE("I(-1i64 as u64)", "%ld", -1L);
  CASE("I(-1i64 as u64)", "%lu", -1L);
  CASE("I(-1i64 as u64)", "%llx", -1LL);
  CASE("I(300)", "%hhu", 300);
  CASE("I(300)", "%hhd", 300);
  CASE("I(70000)", "%hd", 70000);
  CASE("I(255)", "%x", 255);
  CASE("I(255)", "%X", 255);
  CASE("I(255)", "%#x", 255);
  CASE("I(255)", "%#X", 255);
  CASE("I(0)", "%#x", 0);
  CASE("I(255)", "%#010x", 255);
  CASE("I(8)", "%o", 8);
  CASE("I(8)", "%#o", 8);
  CASE("I(0)", "%#o", 0);
  CASE("I(0)", "[%#.0o]", 0);
  CASE("I(123456789)", "%zu", (size_t)123456789);
  CASE("I(5), I(42)", "[%*d]", 5, 42);
  CASE("I(-5i64 as u64), I(42)", "[%*d]", -5, 42);
  CASE("I(3), I(7)", "[%.*d]", 3, 7);
  CASE("I(-3i64 as u64), I(7)", "[%.*d]", -3, 7);
  CASE("I(42)", "%%d is %d%%", 42);
  printf("// characters and strings\n");
  CASE("I(65)", "[%c]", 'A');
  CASE("I(65)", "[%3c]", 'A');
  CASE("I(65)", "[%-3c]", 'A');
  CASE("S(\"hello\")", "[%s]", "hello");
  CASE("S(\"hello\")", "[%8s]", "hello");
  CASE("S(\"hello\")", "[%-8s]", "hello");
  CASE("S(\"hello\")", "[%.3s]", "hello");
  CASE("S(\"hello\")", "[%8.3s]", "hello");
  CASE("I(2), S(\"hello\")", "[%.*s]", 2, "hello");
  CASE("S(\"\")", "[%s]", "");
  CASE("N", "[%s]", (char *)NULL);
  CASE("N", "[%8s]", (char *)NULL);
  CASE("N", "[%.3s]", (char *)NULL);
  CASE("N", "[%.6s]", (char *)NULL);
  printf("// pointers\n");
  CASE("P(0x10000000)", "%p", (void *)0x10000000);
  CASE("P(0x10000000)", "[%20p]", (void *)0x10000000);
  CASE("P(0x10000000)", "[%-20p]", (void *)0x10000000);
  CASE("P(0xdeadbeefcafe)", "%p", (void *)0xdeadbeefcafe);
  CASE("P(0)", "[%p]", (void *)0);
  CASE("P(0)", "[%10p]", (void *)0);
  printf("// floating point\n");
  CASE("D(3.14159)", "%f", 3.14159);
  CASE("D(3.14159)", "%.2f", 3.14159);
  CASE("D(3.14159)", "[%10.3f]", 3.14159);
  CASE("D(3.14159)", "[%-10.3f]", 3.14159);
  CASE("D(3.14159)", "[%010.3f]", 3.14159);
  CASE("D(-3.14159)", "[%010.3f]", -3.14159);
  CASE("D(3.14159)", "[%+.1f]", 3.14159);
  CASE("D(3.14159)", "[% .1f]", 3.14159);
  CASE("D(2.5)", "%.0f", 2.5);
  CASE("D(3.5)", "%.0f", 3.5);
  CASE("D(0.125)", "%.2f", 0.125);
  CASE("D(0.375)", "%.2f", 0.375);
  CASE("D(1.005)", "%.2f", 1.005);
  CASE("D(2.0)", "%#.0f", 2.0);
  CASE("D(0.0)", "%f", 0.0);
  CASE("D(-0.0)", "%f", -0.0);
  CASE("D(1e300)", "%f", 1e300);
  CASE("D(123456789.0)", "%.1f", 123456789.0);
  CASE("D(0.1f32 as f64)", "%.10f", (double)0.1f);
  CASE("D(12345.678)", "%e", 12345.678);
  CASE("D(12345.678)", "%E", 12345.678);
  CASE("D(12345.678)", "%.2e", 12345.678);
  CASE("D(12345.678)", "%.0e", 12345.678);
  CASE("D(12345.678)", "%#.0e", 12345.678);
  CASE("D(0.0)", "%e", 0.0);
  CASE("D(1e-300)", "%e", 1e-300);
  CASE("D(1e100)", "%e", 1e100);
  CASE("D(9.9999999)", "%.2e", 9.9999999);
  CASE("D(-1.5e-7)", "[%12.3e]", -1.5e-7);
  CASE("D(12345.678)", "%g", 12345.678);
  CASE("D(123456789.0)", "%g", 123456789.0);
  CASE("D(0.0001)", "%g", 0.0001);
  CASE("D(0.00001)", "%g", 0.00001);
  CASE("D(100000.0)", "%g", 100000.0);
  CASE("D(1000000.0)", "%g", 1000000.0);
  CASE("D(0.0)", "%g", 0.0);
  CASE("D(1.5)", "%g", 1.5);
  CASE("D(1.5)", "%#g", 1.5);
  CASE("D(1.0)", "%.0g", 1.0);
  CASE("D(3.14159)", "%.3g", 3.14159);
  CASE("D(3.14159)", "%.10g", 3.14159);
  CASE("D(999999.5)", "%g", 999999.5);
  CASE("D(9.9999e-5)", "%G", 9.9999e-5);
  CASE("D(1e-5)", "%G", 1e-5);
  CASE("D(2.5)", "[%10.2g]", 2.5);
  CASE("D(0.1f32 as f64)", "%.17g", (double)0.1f);
  CASE("D(f64::INFINITY)", "%f", 1.0 / 0.0);
  CASE("D(f64::NEG_INFINITY)", "[%8.2f]", -1.0 / 0.0);
  CASE("D(f64::INFINITY)", "%E", 1.0 / 0.0);
  CASE("D(f64::INFINITY)", "[%08f]", 1.0 / 0.0);
  CASE("D(f64::NAN)", "%f", __builtin_nan(""));
  CASE("D(-f64::NAN)", "%g", -__builtin_nan(""));
  CASE("D(f64::NAN)", "%G", __builtin_nan(""));
  CASE("D(f64::INFINITY)", "[%+f]", 1.0 / 0.0);
  printf("// a line as course programs print it\n");
  CASE("I(1), D(4096.0), S(\"PASSED\")", "Test %d: sum = %8.2f %s\n", 1, 4096.0, "PASSED");
  CASE("I(3), I(1), D(0.5)", "C[%d][%d] = %6.3f\n", 3, 1, 0.5);
  CASE("D(1.0e-6), D(2.0)", "max error %g (tolerance %.1e)\n", 1.0e-6, 2.0);
  printf("// rand\n");
  {
    unsigned seeds[] = {0, 1, 42, 12345, 2147483647u, 2147483648u, 4294967295u};
    for (int s = 0; s < 7; s++) {
      srand(seeds[s]);
      printf("    (%uu32, [", seeds[s]);
      for (int i = 0; i < 5; i++) printf("%d%s", rand(), i < 4 ? ", " : "]),\n");
    }
    srand(7); long long sum = 0; int last = 0;
    for (int i = 0; i < 1000000; i++) { last = rand(); sum += last; }
    printf("    // srand(7), 10^6 draws: sum %lld, last %d\n", sum, last);
  }
  return 0;
}
