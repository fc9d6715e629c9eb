//! Reads every `.cu`/`.cuh` file under a directory through the CUDA front end and reports
//! what it could not read: `cargo run --release --example cuda_corpus -- DIR`.

use coalescing_lab::model::cuda::{lex::tokenize, pre::preprocess};

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
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        read += 1;
        let outcome = tokenize(&text).and_then(|t| preprocess(t, 700));
        if let Err(e) = outcome {
            failed += 1;
            println!("{}: {e}", path.display());
        }
    }
    println!("{read} files, {failed} not read");
}
