//! The packed source of a CUDA link: every text round-trips, garbage is refused without a
//! panic, and a bomb stops at the source's limit.

use coalescing_lab::model::cuda::lex::MAX_SOURCE_BYTES;
use coalescing_lab::model::cuda::link::{pack, unpack, PackError};
use proptest::prelude::*;

proptest! {
    #[test]
    fn any_text_round_trips(text in ".{0,2000}") {
        let packed = pack(&text);
        prop_assert!(packed.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        prop_assert_eq!(unpack(&packed).unwrap(), text);
    }

    #[test]
    fn garbage_is_refused_or_read_never_a_panic(text in "[A-Za-z0-9_*-]{0,400}") {
        let _ = unpack(&text);
    }
}

#[test]
fn a_bomb_stops_at_the_source_limit() {
    let huge = "a".repeat(MAX_SOURCE_BYTES + 1);
    let packed = pack(&huge);
    assert!(packed.len() < 5000);
    assert_eq!(unpack(&packed), Err(PackError::TooLong));
    let exact = "a".repeat(MAX_SOURCE_BYTES);
    assert_eq!(unpack(&pack(&exact)).map(|s| s.len()), Ok(MAX_SOURCE_BYTES));
    // Multi-byte UTF-8 comes back whole.
    assert_eq!(unpack(&pack("é → ∑")).unwrap(), "é → ∑");
    // A length base64 cannot have.
    assert_eq!(unpack("A"), Err(PackError::Truncated));
}
