//! `printf`'s formatting: any format, with arguments of every kind drawn from the input, must
//! print or return an error naming the conversion, never panic.
#![no_main]

use coalescing_lab::model::clib::printf::{sprintf, Arg};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first bytes choose the arguments, the rest is the format.
    let (head, format) = data.split_at(data.len().min(8));
    let args: Vec<Arg> = head
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let v = u64::from(*b).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (k * 7);
            match b % 5 {
                0 => Arg::Int(v),
                1 => Arg::Double(f64::from_bits(v)),
                2 => Arg::Str(Some(format.iter().copied().take(*b as usize).collect())),
                3 => Arg::Str(None),
                _ => Arg::Ptr(v),
            }
        })
        .collect();
    if let Ok(out) = sprintf(format, &args) {
        // A width or precision is at most what the format can spell, so the output stays
        // within reach; an unbounded one would be a bug here.
        assert!(out.len() <= format.len().saturating_mul(1 << 20) + 4096);
    }
});
