//! Each panel's permalink parameters on their own (`model::permalink`'s modules): any state
//! of that panel survives encode → decode, writes only parameters the link reader knows, and
//! encodes to the same text a second time.

use coalescing_lab::model::inputs::{Field, Inputs};
use coalescing_lab::model::kernel::presets::KERNEL_PRESETS;
use coalescing_lab::model::kernel::{KernelField, KernelInputs, StmtField, MAX_STATEMENTS};
use coalescing_lab::model::permalink::{decode, encode, same_origin_path, warnings, State, Tab};
use coalescing_lab::model::probe::ProbeInputs;
use coalescing_lab::model::roofline::Lab;
use coalescing_lab::model::trace::Format;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-z+*/%()<>=!&|^~?:,. #-]{0,24}",
        any::<String>(),
        Just(String::new()),
    ]
}

/// What every panel's state must satisfy.
fn holds(state: &State) -> Result<(), TestCaseError> {
    let query = encode(state);
    prop_assert_eq!(&decode(&query), state, "{}", query);
    prop_assert_eq!(encode(&decode(&query)), query.clone());
    for w in warnings(&query) {
        prop_assert!(
            !w.contains("not a Coalescing Lab parameter") && !w.contains("given"),
            "{} in {}",
            w,
            query
        );
    }
    Ok(())
}

const TABS: [Tab; 5] = [
    Tab::Calculator,
    Tab::Roofline,
    Tab::Probe,
    Tab::Kernel,
    Tab::Trace,
];

fn inputs(values: Vec<String>) -> Inputs {
    let mut inputs = Inputs::default();
    for (field, value) in Field::ALL.into_iter().zip(values) {
        inputs.set(field, value);
    }
    inputs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn the_page_s_tab_and_embed_round_trip(tab in 0..TABS.len(), embed: bool) {
        holds(&State { tab: TABS[tab], embed, ..State::default() })?;
    }

    #[test]
    fn the_calculator_s_scenarios_round_trip(
        a in prop::collection::vec(text(), Field::ALL.len()),
        b in prop::option::of(prop::collection::vec(text(), Field::ALL.len())),
        predict: bool,
    ) {
        holds(&State { calc: inputs(a), compare: b.map(inputs), predict, ..State::default() })?;
    }

    #[test]
    fn the_roofline_lab_round_trips(values in prop::collection::vec(text(), 4)) {
        let lab = Lab {
            oi: values[0].clone(),
            bw: values[1].clone(),
            trail: values[2].clone(),
            previous: values[3].clone(),
            ..Lab::default()
        };
        holds(&State { tab: Tab::Roofline, lab, ..State::default() })?;
    }

    #[test]
    fn the_probe_round_trips(strides in text(), n in text()) {
        holds(&State { tab: Tab::Probe, probe: ProbeInputs { strides, n }, ..State::default() })?;
    }

    #[test]
    fn the_kernel_view_and_its_comparison_round_trip(
        launch in prop::collection::vec(text(), KernelField::LAUNCH.len()),
        statements in prop::collection::vec(
            (1..=MAX_STATEMENTS as u8, 0..StmtField::ALL.len(), text()),
            0..6,
        ),
        preset in prop::option::of(0..KERNEL_PRESETS.len()),
    ) {
        let mut kernel = KernelInputs::default();
        for (field, value) in KernelField::LAUNCH.into_iter().zip(launch) {
            kernel.set(field, value);
        }
        for (n, f, value) in statements {
            kernel.set(KernelField::Stmt(n, StmtField::ALL[f]), value);
        }
        let kernel_compare = preset.map(|i| &KERNEL_PRESETS[i]);
        holds(&State { tab: Tab::Kernel, kernel, kernel_compare, ..State::default() })?;
    }

    #[test]
    fn the_trace_s_path_and_format_round_trip(
        path in "[A-Za-z0-9_.-]{1,12}(/[A-Za-z0-9_.-]{1,12}){0,3}",
        format in prop::option::of(prop::bool::ANY),
    ) {
        prop_assume!(same_origin_path(&path));
        let trace_format = format.map(|nvbit| if nvbit { Format::Nvbit } else { Format::AccelSim });
        holds(&State { tab: Tab::Trace, trace: path, trace_format, ..State::default() })?;
    }
}

// A `kcompare` or `tformat` is kept typed: the link's words come back exactly, whatever
// spaces it carried, and a value that names nothing is dropped with a notice.
#[test]
fn kcompare_and_tformat_are_read_into_their_types() {
    let preset = &KERNEL_PRESETS[0];
    let state = decode(&format!("kcompare=+{}+&tformat=+accelsim", preset.id));
    assert_eq!(state.kernel_compare.map(|p| p.id), Some(preset.id));
    assert_eq!(state.trace_format, Some(Format::AccelSim));
    assert_eq!(
        encode(&state),
        format!("v=1&kcompare={}&tformat=accelsim", preset.id)
    );
    let state = decode(&format!(
        "kcompare={}&kcompare=nope&tformat=nvbit&tformat=x",
        preset.id
    ));
    assert_eq!(
        state.kernel_compare, None,
        "a later unknown preset clears it"
    );
    assert_eq!(
        state.trace_format,
        Some(Format::Nvbit),
        "a later unknown format is ignored"
    );
}

/// `kmeasure` (#28's gap): read, written back, and a bad value named with the measures.
#[test]
fn the_kernel_measure_travels_with_the_link() {
    use coalescing_lab::model::permalink::{decode, encode, warnings};
    use coalescing_lab::model::warp::Measure;
    let state = decode("?v=1&tab=kernel&kmeasure=conflicts");
    assert_eq!(state.kernel_measure, Some(Measure::Conflicts));
    assert!(
        encode(&state).contains("kmeasure=conflicts"),
        "{}",
        encode(&state)
    );
    let bad = "?v=1&tab=kernel&kmeasure=speed";
    assert_eq!(decode(bad).kernel_measure, None);
    assert!(
        warnings(bad).iter().any(|w| w
            == "`kmeasure=speed` is not a measure (sectors, excess, wavefronts, conflicts); ranking by the kernel's default."),
        "{:?}",
        warnings(bad)
    );
    // The default is not written.
    assert!(!encode(&decode("?v=1&tab=kernel")).contains("kmeasure"));
}

/// `cmeasure`: the CUDA panel's measure travels as the kernel view's does, and a bad value is
/// named with the measures.
#[test]
fn the_cuda_measure_travels_with_the_link() {
    use coalescing_lab::model::permalink::{decode, encode, warnings};
    use coalescing_lab::model::warp::Measure;
    let state = decode("?v=1&tab=cuda&cmeasure=excess");
    assert_eq!(state.cuda_measure, Some(Measure::Excess));
    assert_eq!(state.kernel_measure, None);
    assert!(
        encode(&state).ends_with("&cmeasure=excess"),
        "{}",
        encode(&state)
    );
    let bad = "?v=1&tab=cuda&cmeasure=speed";
    assert_eq!(decode(bad).cuda_measure, None);
    assert_eq!(
        warnings(bad),
        ["`cmeasure=speed` is not a measure (sectors, excess, wavefronts, conflicts); ranking by the kernel's default."]
    );
    assert!(!encode(&decode("?v=1&tab=cuda")).contains("cmeasure"));
}

/// `argv` and `pick`: a whole program's arguments and the launch on show travel as typed; a
/// pick that is neither an index nor `all` is dropped and named.
#[test]
fn a_programs_arguments_and_pick_travel_with_the_link() {
    use coalescing_lab::model::permalink::{decode, encode, warnings};
    let state = decode("?v=1&tab=cuda&argv=-n%201024&pick=2");
    assert_eq!(state.cuda_argv, "-n 1024");
    assert_eq!(state.cuda_pick, "2");
    assert_eq!(decode(&encode(&state)), state);
    assert_eq!(decode("?v=1&tab=cuda&pick=all").cuda_pick, "all");
    let bad = "?v=1&tab=cuda&pick=first";
    assert_eq!(decode(bad).cuda_pick, "");
    assert_eq!(
        warnings(bad),
        ["`pick=first` is not a launch of the program (its index from 0, or all); it was ignored."]
    );
    let plain = encode(&decode("?v=1&tab=cuda"));
    assert!(
        !plain.contains("pick") && !plain.contains("argv"),
        "{plain}"
    );
}
