//! Any text as a worker's answer, as the page reads it: the kernel view's replies and the CUDA
//! panel's (with the heat map's runs of cells among them) decode or are refused, never panic,
//! and a reply that decodes is written back to the same text's meaning. The same bytes as
//! words between the kernel view's two workers: a cache stream met by the cache server in two
//! pieces, and a cache server's answer added to a tally, are taken or refused, never a panic.
#![no_main]

use coalescing_lab::model::cuda_view::wire as cuda;
use coalescing_lab::model::kernel::wire as kernel;
use coalescing_lab::model::warp::{CacheServer, Tally, TallyOptions};
use coalescing_lab::model::Machine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(reply) = kernel::decode_reply(&text) {
        let again = serde_json::to_string(&reply).expect("a decoded reply encodes");
        assert_eq!(kernel::decode_reply(&again).ok(), Some(reply));
    }
    let _ = cuda::decode_reply(&text);

    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let cut = data.first().map_or(0, |&b| usize::from(b) % (words.len() + 1));
    let mut server = CacheServer::default();
    if server.receive(&words[..cut]).is_ok() {
        let _ = server.receive(&words[cut..]);
    }
    let mut tally: Tally = Tally::new(TallyOptions::new(Machine::default(), 1 << 20));
    tally.hand_off_cache();
    if tally.absorb_cache(&words).is_ok() {
        let _ = tally.counts(0);
    }
});
