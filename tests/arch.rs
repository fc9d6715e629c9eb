//! Architecture presets on the course's Ex1, Ex2 and Ex5: the same access pattern costs what
//! each architecture's warp width and serviced unit make it cost.

use coalescing_lab::model::arch::{Arch, ARCHES};
use coalescing_lab::model::inputs::{Field, Inputs};
use coalescing_lab::model::permalink::{decode, encode, warnings};
use coalescing_lab::model::sectors::analyze;

/// (arch, example, sectors, transferred bytes, requested bytes, lines)
#[rustfmt::skip]
const TABLE: [(&str, &str, u64, u64, u64, u64); 15] = [
    ("volta",            "ex1", 4,  128,  128, 1),
    ("volta",            "ex2", 5,  160,  128, 2),
    ("volta",            "ex5", 32, 1024, 128, 32),
    ("fermi-l1",         "ex1", 1,  128,  128, 1),
    ("fermi-l1",         "ex2", 2,  256,  128, 2),
    ("fermi-l1",         "ex5", 32, 4096, 128, 32),
    ("nvidia-l1-bypass", "ex1", 4,  128,  128, 4),
    ("nvidia-l1-bypass", "ex2", 5,  160,  128, 5),
    ("nvidia-l1-bypass", "ex5", 32, 1024, 128, 32),
    ("cdna3",            "ex1", 2,  256,  256, 2),
    ("cdna3",            "ex2", 3,  384,  256, 3),
    ("cdna3",            "ex5", 64, 8192, 256, 64),
    ("gcn",              "ex1", 4,  256,  256, 4),
    ("gcn",              "ex2", 5,  320,  256, 5),
    ("gcn",              "ex5", 64, 4096, 256, 64),
];

fn example(name: &str) -> Inputs {
    match name {
        "ex1" => Inputs::default(),
        "ex2" => Inputs { base: "8".into(), ..Inputs::default() },
        _ => Inputs {
            idx: "1024*t".into(),
            ..Inputs::default()
        },
    }
}

#[test]
fn every_architecture_costs_ex1_ex2_and_ex5_as_its_units_say() {
    assert_eq!(ARCHES.len() * 3, TABLE.len());
    for (arch, ex, sectors, transferred, requested, lines) in TABLE {
        let inputs = example(ex).with_arch(Arch::by_id(arch).unwrap());
        let t = analyze(&inputs).unwrap().totals;
        assert_eq!(
            (t.sectors, t.transferred_bytes, t.requested_bytes, t.lines),
            (sectors, transferred, requested, lines),
            "{arch} {ex}"
        );
    }
}

#[test]
fn a_link_names_the_architecture_and_only_its_overrides() {
    let cdna3 = example("ex2").with_arch(Arch::by_id("cdna3").unwrap());
    assert_eq!(
        encode(&decode(&encode(&coalescing_lab::model::permalink::State {
            calc: cdna3.clone(),
            ..Default::default()
        })))
        .as_str(),
        "v=1&arch=cdna3&base=8"
    );
    let state = decode("warp=32&arch=cdna3&base=8");
    assert_eq!(
        (state.calc.warp.as_str(), state.calc.sector.as_str()),
        ("32", "128"),
        "explicit warp wins, wherever it stands"
    );
    assert_eq!(state.calc.overrides(), [Field::Warp]);
    assert_eq!(
        warnings("arch=kepler"),
        ["`arch=kepler` must be one of volta, fermi-l1, nvidia-l1-bypass, cdna3, gcn, found 'kepler'; using volta."]
    );
}
