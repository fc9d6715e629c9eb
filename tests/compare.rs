//! The course's comparisons: the ratios of sectors and bytes moved, pair by pair.

use coalescing_lab::model::compare::{pairs, sentence};
use coalescing_lab::model::permalink::{decode, encode, State};
use coalescing_lab::model::sectors::analyze;

#[test]
fn every_course_pair_compares_as_the_course_says() {
    let expected = [
        ("ex1-ex2", "The read misaligned by 8 B moves 1.25× more bytes than the aligned read (160 B against 128 B), in 1.25× more sectors (5 against 4)."),
        ("row-column", "Column traversal moves 8× more bytes than row traversal (1024 B against 128 B), in 8× more sectors (32 against 4)."),
        ("aos-soa", "The array of float3 moves 3× more bytes than the structure of arrays (384 B against 128 B), in 3× more sectors (12 against 4)."),
        ("volta-fermi", "Fermi L1 (128 B lines) moves 1.6× more bytes than Volta (32 B sectors) (256 B against 160 B), in 2.5× fewer sectors (2 against 5)."),
    ];
    let all = pairs();
    assert_eq!(all.len(), expected.len());
    for (pair, (id, text)) in all.iter().zip(expected) {
        assert_eq!(pair.id, id);
        let (a, b) = (analyze(&pair.a).unwrap(), analyze(&pair.b).unwrap());
        assert_eq!(sentence(pair.a_name, &a, pair.b_name, &b), text, "{id}");
    }
}

#[test]
fn scenario_b_travels_with_the_b_prefix() {
    let pair = pairs().into_iter().find(|p| p.id == "volta-fermi").unwrap();
    let state = State {
        calc: pair.a.clone(),
        compare: Some(pair.b.clone()),
        ..State::default()
    };
    let query = encode(&state);
    assert_eq!(query, "v=1&compare=1&base=8&b.arch=fermi-l1&b.base=8");
    assert_eq!(decode(&query), state);
    let b_only = decode("b.idx=t*1024");
    assert_eq!(b_only.compare.map(|b| b.idx), Some("t*1024".to_string()));
    assert_eq!(
        coalescing_lab::model::permalink::warnings("b.elem=3&b.zoom=1"),
        [
            "`b.zoom` is not a Coalescing Lab parameter; it was ignored.",
            "`b.elem=3` must be 1, 2, 4, 8 or 16 bytes, found '3'; using 4.",
        ]
    );
}
