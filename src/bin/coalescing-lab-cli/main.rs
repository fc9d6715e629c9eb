//! Coalescing Lab on the command line: the page's model, without a page, for answer keys,
//! handouts and batch checks. Every number comes from `coalescing_lab::model`; nothing here
//! computes.
//!
//! ```text
//! coalescing-lab-cli analyze 'idx=t<16 ? t : 1000+64*(t-16)'
//! coalescing-lab-cli kernel 'https://host/?tab=kernel&grid=128,128&…'
//! coalescing-lab-cli trace FILE|- [--trace-format nvbit|accelsim] [--width OPCODE=BYTES]… [--cache BYTES]
//! coalescing-lab-cli cuda FILE|- --launch 'name<<<grid, block>>>(args)' [--arch N] [--warp LANES] [--sector BYTES] [--line BYTES] [--cache BYTES]
//! coalescing-lab-cli answers FILE|-
//! coalescing-lab-cli synth nvbit|accelsim LINK
//! ```
//!
//! Every subcommand takes `--format text|json|csv|markdown`. Exit status: 0 success, 1 an I/O
//! error, 2 bad input (the message names the parameter, as the page's do).

// No panic reaches a user: outside tests, a missing value is handled, never unwrapped.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod answers;
mod cli;
mod cuda;
mod link;
mod out;
mod run;
mod trace;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    let code = match cli::run(&args, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            // A program's own exit status comes with no message.
            if !e.message.is_empty() {
                eprintln!("coalescing-lab-cli: {}", e.message);
            }
            e.code
        }
    };
    std::process::exit(code);
}
