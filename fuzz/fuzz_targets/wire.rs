//! Any text as a worker's answer, as the page reads it: the kernel view's replies and the CUDA
//! panel's (with the heat map's runs of cells among them) decode or are refused, never panic,
//! and a reply that decodes is written back to the same text's meaning.
#![no_main]

use coalescing_lab::model::cuda_view::wire as cuda;
use coalescing_lab::model::kernel::wire as kernel;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(reply) = kernel::decode_reply(&text) {
        let again = serde_json::to_string(&reply).expect("a decoded reply encodes");
        assert_eq!(kernel::decode_reply(&again).ok(), Some(reply));
    }
    let _ = cuda::decode_reply(&text);
});
