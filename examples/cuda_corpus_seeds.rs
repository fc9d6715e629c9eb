//! Writes the CUDA presets as seeds for the `cuda_run` fuzz target: the launch on the first
//! line, the source after it. `cargo run --example cuda_corpus_seeds DIR`.
use coalescing_lab::model::cuda::presets::CUDA_PRESETS;

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/corpus/cuda_run".into());
    std::fs::create_dir_all(&dir)?;
    for p in CUDA_PRESETS {
        // Small launches, so each seed runs to its end within the target's cap.
        let launch = p
            .launch
            .replace("4096", "2")
            .replace("1024", "2")
            .replace("256, 256", "2, 256");
        std::fs::write(format!("{dir}/{}", p.id), format!("{launch}\n{}", p.source))?;
    }
    Ok(())
}
