//! The panel's CSV of its tables, byte for byte what the command line's `cuda --format csv`
//! writes (the CLI calls this): one row per access site (`row` = `access`), then one per line
//! (`line`) and the whole launch (`total`), with the figures under the page's attribute names
//! (`data-requested-bytes` is the column `requested_bytes`).

use super::super::csv::Csv;
use super::super::cuda::run::{CudaAnalysis, SiteKind};
use super::super::warp::Figures;

/// A row's figures by the page's attribute names (`data-…` without `data-`), in column order.
pub fn figure_fields(f: &Figures) -> [(&'static str, u64); 10] {
    [
        ("requests", f.requests),
        ("requested-bytes", f.requested_bytes),
        ("sectors", f.sectors),
        ("ideal-sectors", f.ideal_sectors),
        ("excess-sectors", f.excess_sectors()),
        ("unique-sectors", f.unique_sectors),
        ("dram-bytes", f.dram_bytes()),
        ("wavefronts", f.wavefronts),
        ("ideal-wavefronts", f.ideal_wavefronts),
        ("bank-conflicts", f.bank_conflicts()),
    ]
}

/// The access sites, the lines and the total of `a` as one CSV table, told apart by `row`.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{access_csv, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 0, 700).unwrap();
/// let csv = access_csv(&a);
/// assert!(csv.ends_with("\r\n"));
/// let rows: Vec<&str> = csv.lines().collect();
/// assert_eq!(rows[0], "row,line,column,kind,space,elem,part,requests,requested_bytes,sectors,ideal_sectors,excess_sectors,unique_sectors,dram_bytes,wavefronts,ideal_wavefronts,bank_conflicts,barriers");
/// assert_eq!(rows[1], "access,4,14,load,global,4,0,128,16384,512,512,0,512,16384,0,0,0,0");
/// assert_eq!(rows.len(), 5);
/// ```
pub fn access_csv(a: &CudaAnalysis) -> String {
    let mut csv = Csv::default();
    let mut header = vec!["row", "line", "column", "kind", "space", "elem", "part"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    header.extend(figure_fields(&a.total).map(|(name, _)| name.replace('-', "_")));
    header.push("barriers".into());
    csv.row(header);
    let numbers = |f: &Figures| {
        figure_fields(f)
            .into_iter()
            .map(|(_, n)| n.to_string())
            .chain([f.barriers.to_string()])
    };
    for (s, f) in a.sites.iter().filter(|(s, _)| s.kind != SiteKind::Barrier) {
        csv.row(
            [
                "access".to_string(),
                s.pos.line.to_string(),
                s.pos.column.to_string(),
                s.kind.name().to_string(),
                s.space.name().to_string(),
                s.elem.to_string(),
                s.part.to_string(),
            ]
            .into_iter()
            .chain(numbers(f)),
        );
    }
    let sums = a
        .lines
        .iter()
        .map(|(line, f)| ("line", line.to_string(), f))
        .chain([("total", String::new(), &a.total)]);
    for (row, line, f) in sums {
        csv.row(
            [row.to_string(), line]
                .into_iter()
                .chain(std::iter::repeat_n(String::new(), 5))
                .chain(numbers(f)),
        );
    }
    csv.finish()
}
