//! The CUDA panel's CSV: the access sites, the lines and the total, the same bytes as the
//! command line's `cuda --format csv` for the same source, launch and cache.

use coalescing_lab::model::cuda::presets::cuda_preset;
use coalescing_lab::model::cuda::run::analyse;
use coalescing_lab::model::cuda_view::{access_csv, site_rows};
use coalescing_lab::model::{Machine, DEFAULT_CACHE_BYTES};
use std::process::Command;

/// `cuda FILE --launch LAUNCH --format csv` on preset `id`'s source, as the binary writes it.
fn cli_csv(id: &str) -> String {
    let p = cuda_preset(id).unwrap();
    let path = std::env::temp_dir().join(format!(
        "coalescing-panel-csv-{}-{id}.cu",
        std::process::id()
    ));
    std::fs::write(&path, p.source).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
        .args([
            "cuda",
            path.to_str().unwrap(),
            "--launch",
            p.launch,
            "--format",
            "csv",
        ])
        .output()
        .expect("the binary runs");
    std::fs::remove_file(&path).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_page_s_csv_is_the_command_line_s() {
    for id in ["transpose-tiled", "layout-aos", "bounds-partial"] {
        let p = cuda_preset(id).unwrap();
        let a = analyse(
            p.source,
            p.launch,
            Machine::default(),
            DEFAULT_CACHE_BYTES,
            700,
        )
        .unwrap();
        assert_eq!(access_csv(&a), cli_csv(id), "{id}");
    }
}

#[test]
fn the_csv_has_a_row_per_access_site_then_per_line_and_the_total() {
    let p = cuda_preset("transpose-tiled").unwrap();
    let a = analyse(
        p.source,
        p.launch,
        Machine::default(),
        DEFAULT_CACHE_BYTES,
        700,
    )
    .unwrap();
    let csv = access_csv(&a);
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .map(|l| l.trim_end_matches('\r').split(',').collect())
        .collect();
    assert_eq!(
        rows[0][..7],
        ["row", "line", "column", "kind", "space", "elem", "part"]
    );
    assert_eq!(rows[0].last(), Some(&"barriers"));
    let sites = site_rows(&a);
    let access: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == "access").collect();
    assert_eq!(access.len(), sites.len());
    for (r, s) in access.iter().zip(&sites) {
        assert_eq!(
            (r[1], r[3], r[4]),
            (s.line.to_string().as_str(), s.kind, s.space)
        );
        assert_eq!(r[9], s.sums.sectors.to_string());
    }
    assert_eq!(
        rows.iter().filter(|r| r[0] == "line").count(),
        a.lines.len()
    );
    let total = rows.last().unwrap();
    assert_eq!(
        (total[0], total[7]),
        ("total", a.total.requests.to_string().as_str())
    );
    assert!(csv.ends_with("\r\n"));
}
