//! Reads every `.cu`/`.cuh` file under a directory through the CUDA front end and reports
//! what it could not read: `cargo run --release --example cuda_corpus -- DIR`.

use coalescing_lab::model::cuda::ast::Skipped;
use coalescing_lab::model::cuda::parse::parse;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: cuda_corpus DIR");
        std::process::exit(2);
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{dir}: not a directory");
        std::process::exit(2);
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let (mut read, mut failed) = (0, 0);
    let (mut kernels, mut device_items, mut unread) = (0, 0, 0);
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        read += 1;
        match parse(&text, 700) {
            Err(e) => {
                failed += 1;
                println!("{}: {e}", path.display());
            }
            Ok(unit) => {
                kernels += unit.kernels().count();
                device_items += unit.items.len();
                for s in &unit.skipped {
                    if let Skipped::Unread { name, error } = s {
                        unread += 1;
                        println!("{}: {name}: {error}", path.display());
                    }
                }
            }
        }
    }
    println!("{read} files, {failed} not read; {kernels} kernels and {device_items} device items read, {unread} device items outside the subset");
}
