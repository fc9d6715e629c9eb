//! The command line, run as a binary: the course table through `answers` with its exact
//! numbers, JSON that a JSON parser accepts, traces and synthetic traces, and exit statuses.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Whether `text` is JSON, by Python's parser (python3 is on every machine `make test` runs on).
fn is_json(text: &str) -> bool {
    let mut child = Command::new("python3")
        .args(["-c", "import json,sys; json.load(sys.stdin)"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

#[test]
fn answers_writes_the_course_table_as_a_markdown_answer_key() {
    let o = cli(&["answers", &fixture("course.links")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let key = stdout(&o);
    let row = |name: &str| {
        key.lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name} in\n{key}"))
            .split(" | ")
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // scenario | link | N_tx | requested | transferred | efficiency | derivation
    for (name, ntx, transferred, efficiency) in [
        ("Ex1 sequential", "4", "128", "100 %"),
        ("Ex2 misaligned start", "5", "160", "80 %"),
        ("Ex3 stride 2", "8", "256", "50 %"),
        ("Ex4 stride = one sector", "32", "1024", "12.5 %"),
        ("Ex5 huge stride", "32", "1024", "12.5 %"),
        ("Ex6 reversed", "4", "128", "100 %"),
        ("Ex7 broadcast", "1", "32", "400 %"),
        ("Ex8a column of 1024-float rows", "32", "1024", "12.5 %"),
        ("Ex8b mixed", "18", "576", "22.2 %"),
        ("Ex9 AoS float3 .x", "12", "384", "33.3 %"),
        ("Ex2 on a 128 B-transaction GPU", "2", "256", "50 %"),
    ] {
        let r = row(name);
        assert_eq!(
            (r[2].as_str(), r[3].as_str(), r[4].as_str(), r[5].as_str()),
            (ntx, "128", transferred, efficiency),
            "{name}"
        );
    }
    assert!(row("Ex8b mixed")[6].contains("N_tx = 18"));
    assert!(
        row("Shared: column of a 32×32 float tile")[2].starts_with("32 wavefronts, 31 conflicts")
    );
    // The same file as JSON is JSON, keyed by the page's test ids.
    let json = stdout(&cli(&[
        "answers",
        &fixture("course.links"),
        "--format",
        "json",
    ]));
    assert!(is_json(&json), "{json}");
    assert!(json.contains("\"sectors\":18"));
}

#[test]
fn every_subcommand_s_json_is_json() {
    let kernel = "tab=kernel&grid=4&block=64&a1.idx=threadIdx.x*2&a2.kind=store&a2.space=shared&a2.idx=threadIdx.x*32";
    for args in [
        vec![
            "analyze",
            "idx=t<16 ? t : 1000+64*(t-16)",
            "--format",
            "json",
        ],
        vec!["analyze", "space=shared&idx=2*t&elem=8", "--format=json"],
        vec!["kernel", kernel, "--format", "json"],
        vec!["trace", "FIXTURE", "--format", "json"],
    ] {
        let path = fixture("widths.nvbit.txt");
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "FIXTURE" { path.as_str() } else { a })
            .collect();
        let o = cli(&args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(is_json(&stdout(&o)), "{args:?}: {}", stdout(&o));
    }
}

#[test]
fn a_synthetic_trace_reads_back_as_the_kernel_s_totals() {
    let link = "tab=kernel&grid=8,2&block=32,4&loop=0:3&a1.base=4096&a1.idx=(threadIdx.y+i)*33+threadIdx.x*7&a2.kind=store&a2.base=0x100000&a2.elem=8&a2.idx=blockIdx.x*128+threadIdx.x&a3.space=shared&a3.base=4&a3.idx=threadIdx.x*32";
    let kernel = stdout(&cli(&["kernel", link, "--format", "json"]));
    let readouts = |json: &str| {
        json.split("\"readouts\":")
            .nth(1)
            .unwrap()
            .split('}')
            .next()
            .unwrap()
            .to_string()
    };
    for format in ["nvbit", "accelsim"] {
        let synth = cli(&["synth", format, link]);
        assert!(
            synth.status.success(),
            "{}",
            String::from_utf8_lossy(&synth.stderr)
        );
        let path = std::env::temp_dir().join(format!(
            "coalescing-cli-{format}-{}.trace",
            std::process::id()
        ));
        std::fs::write(&path, &synth.stdout).unwrap();
        let trace = stdout(&cli(&["trace", path.to_str().unwrap(), "--format", "json"]));
        std::fs::remove_file(&path).unwrap();
        // Barriers aside (a trace has none), the k- figures are the kernel view's.
        assert_eq!(readouts(&trace), readouts(&kernel), "{format}");
    }
}

#[test]
fn bad_input_names_the_parameter_and_exits_2_and_io_errors_exit_1() {
    let o = cli(&["analyze", "elem=3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("elem: must be 1, 2, 4, 8 or 16 bytes, found '3'"));
    let o = cli(&["kernel", "tab=kernel&a1.kind=read"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("a1.kind: must be load, store or sync, found 'read'"));
    let o = cli(&["analyze", "idx=t", "--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("--format: must be text, json, csv or markdown"));
    let o = cli(&["trace", &fixture("widths.nvbit.txt"), "--width", "LDG.E=3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("--width: LDG.E's bytes must be 1, 2, 4, 8 or 16"));
    let o = cli(&["trace", "/no/such/trace"]);
    assert_eq!(o.status.code(), Some(1));
    let o = cli(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    let o = cli(&["trace", &fixture("course.links")]);
    assert_eq!(o.status.code(), Some(2), "a file that is no trace");
    // A run-time error in a kernel names the statement and the thread.
    let o = cli(&["kernel", "tab=kernel&a1.idx=threadIdx.x-1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("a1.idx: block (0,0,0) thread (0,0,0): address 0 + 4 × -1 = -4 is negative"));
}

#[test]
fn a_width_override_changes_the_instruction_s_bytes_per_lane() {
    let o = cli(&[
        "trace",
        &fixture("widths.nvbit.txt"),
        "--format",
        "csv",
        "--width",
        "LDG.E.64=4",
    ]);
    let csv = stdout(&o);
    let row = csv.lines().find(|l| l.starts_with("LDG.E.64,")).unwrap();
    assert_eq!(row.split(',').nth(3), Some("4"));
}

// The CLI checks `--cache` with the kernel view's own parser on the trace's 128-byte line
// (it once hard-coded 128 and 1 GiB beside the model's MAX_CACHE_BYTES).
#[test]
fn a_cache_size_is_checked_as_the_kernel_view_checks_it() {
    let trace = fixture("widths.nvbit.txt");
    for bad in ["100", "2147483648", "-128", "lots"] {
        let o = cli(&["trace", &trace, "--cache", bad]);
        assert_eq!(o.status.code(), Some(2), "--cache {bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(&format!(
                "--cache: must be 0 (no cache) or a multiple of the 128-byte line from 128 to 1073741824 bytes (1 GiB), found '{bad}'"
            )),
            "--cache {bad}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for good in ["0", "128", "1073741824"] {
        let o = cli(&["trace", &trace, "--cache", good]);
        assert_eq!(o.status.code(), Some(0), "--cache {good}");
    }
}

// A typed query is percent-encoded by the page's own encoder: what the page would read from
// the same text, the CLI reads too, whatever characters the values hold.
#[test]
fn a_typed_query_means_what_the_page_s_link_means() {
    let typed = cli(&[
        "analyze",
        "idx=t<16 ? t : 1000+64*(t-16)&active=t>2 && t!=9&base=0x10",
        "--format",
        "json",
    ]);
    let linked = cli(&[
        "analyze",
        "?idx=t%3C16%20?%20t%20:%201000%2B64*(t-16)&active=t%3E2%20%26%26%20t!%3D9&base=0x10",
        "--format",
        "json",
    ]);
    assert_eq!(typed.status.code(), Some(0));
    assert_eq!(stdout(&typed), stdout(&linked));
    assert!(typed.stderr.is_empty() && linked.stderr.is_empty());
}
