//! The CUDA panel's presets and its link (#27's follow-up): `cpreset` names a preset whose
//! source and launch the panel loads, `srcz` carries a long source packed, and the panel
//! writes its inputs back as the shortest of these that reads back the same.

use coalescing_lab::model::cuda::link::pack;
use coalescing_lab::model::cuda::presets::{
    cuda_preset, CUDA_PRESETS, CUDA_PRESET_IDS, PROGRAM_PRESET_IDS,
};
use coalescing_lab::model::cuda::run::analyse;
use coalescing_lab::model::cuda_view::{
    matching_preset, preset_inputs, site_rows, CudaInputs, CudaLink, DEFAULT_SOURCE,
    PACK_OVER_CHARS,
};
use coalescing_lab::model::permalink::{decode, encode, escape, warnings, State, Tab};
use coalescing_lab::model::Machine;
use proptest::prelude::*;

/// The link `?…` of `state`, and the panel's four values in it.
fn cuda_link(state: &State) -> CudaLink {
    CudaLink {
        preset: state.cuda_preset.clone(),
        src: state.cuda_src.clone(),
        srcz: state.cuda_srcz.clone(),
        launch: state.cuda_launch.clone(),
        hdrz: state.cuda_hdrz.clone(),
    }
}

/// A source of more than `PACK_OVER_CHARS` characters that runs.
fn long_source() -> String {
    let mut s = String::from(
        "__global__ void scale(float *a) {\n  a[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f;\n}\n",
    );
    for k in 0..60 {
        s.push_str(&format!(
            "// note {k}: every thread scales one float of its own.\n"
        ));
    }
    assert!(s.chars().count() > PACK_OVER_CHARS);
    s
}

// --- The presets ---

// The link decoder checks `cpreset` against a list kept apart from the presets (so that the
// first load does not carry their sources): the two must not drift.
#[test]
fn the_link_s_preset_ids_are_the_presets_ids_in_order() {
    let ids: Vec<&str> = CUDA_PRESETS.iter().map(|p| p.id).collect();
    assert_eq!(ids, CUDA_PRESET_IDS);
}

#[test]
fn every_preset_matches_itself_and_only_itself() {
    for p in &CUDA_PRESETS {
        let inputs = preset_inputs(p.id).unwrap();
        assert_eq!(matching_preset(&inputs).map(|m| m.id), Some(p.id));
    }
    assert_eq!(preset_inputs("no-such-preset"), None);
    assert_eq!(matching_preset(&CudaInputs::default()), None);
}

// --- `cpreset` ---

#[test]
fn cpreset_travels_as_its_id_and_loads_the_preset_s_source_and_launch() {
    let state = decode("?v=1&tab=cuda&cpreset=transpose-naive");
    assert_eq!(state.tab, Tab::Cuda);
    assert_eq!(state.cuda_preset, "transpose-naive");
    assert_eq!(encode(&state), "v=1&tab=cuda&cpreset=transpose-naive");
    assert!(warnings("?tab=cuda&cpreset=transpose-naive").is_empty());
    let (inputs, notice) = cuda_link(&state).inputs();
    let p = cuda_preset("transpose-naive").unwrap();
    assert_eq!(
        (inputs.source.as_str(), inputs.launch.as_str()),
        (p.source, p.launch)
    );
    assert_eq!(notice, None);
    // The naive store: 32 lanes 4096 bytes apart, 32 sectors for each of 32768 requests.
    let a = analyse(
        &inputs.source,
        &inputs.launch,
        Machine::default(),
        6 << 20,
        700,
    )
    .unwrap();
    let store = site_rows(&a)
        .into_iter()
        .find(|r| r.kind == "store")
        .unwrap();
    assert_eq!((store.sums.requests, store.sums.sectors), (32768, 1048576));
}

#[test]
fn a_cpreset_that_names_no_preset_gets_the_link_notice_and_is_dropped() {
    let state = decode("?tab=cuda&cpreset=transpose-fast");
    assert_eq!(state.cuda_preset, "");
    assert_eq!(encode(&state), "v=1&tab=cuda");
    assert_eq!(
        warnings("?tab=cuda&cpreset=transpose-fast"),
        [format!(
            "`cpreset=transpose-fast` is not a CUDA preset ({}, {}); it was ignored.",
            CUDA_PRESET_IDS.join(", "),
            PROGRAM_PRESET_IDS.join(", ")
        )]
    );
    assert_eq!(cuda_link(&state).inputs().0, CudaInputs::default());
}

#[test]
fn a_preset_with_another_launch_travels_as_the_preset_and_the_launch() {
    let p = cuda_preset("copy").unwrap();
    let inputs = CudaInputs {
        source: p.source.into(),
        launch: "copy<<<8, 128>>>(out, in)".into(),
        ..CudaInputs::default()
    };
    let link = CudaLink::of(&inputs);
    assert_eq!(
        link,
        CudaLink {
            preset: "copy".into(),
            launch: "copy<<<8, 128>>>(out, in)".into(),
            ..CudaLink::default()
        }
    );
    assert_eq!(link.inputs(), (inputs, None));
    // Of the presets with that source, the one that launches the same kernel.
    let tiled = CudaInputs {
        launch: "transposeTiled<<<dim3(8, 8), dim3(32, 8)>>>(odata, idata)".into(),
        ..preset_inputs("transpose-naive").unwrap()
    };
    assert_eq!(CudaLink::of(&tiled).preset, "transpose-tiled");
    assert_eq!(CudaLink::of(&tiled).inputs().0, tiled);
    // A launch that is another preset's with the same source names that preset.
    let offset = preset_inputs("copy-offset").unwrap();
    assert_eq!(CudaLink::of(&offset).preset, "copy-offset");
    assert_eq!(CudaLink::of(&offset).launch, "");
}

#[test]
fn src_and_launch_stand_over_the_preset_s() {
    let link = CudaLink {
        preset: "copy".into(),
        src: "__global__ void k(float *a) { a[threadIdx.x] = 0; }\n".into(),
        ..CudaLink::default()
    };
    let (inputs, _) = link.inputs();
    assert_eq!(inputs.source, link.src);
    assert_eq!(inputs.launch, cuda_preset("copy").unwrap().launch);
}

#[test]
fn an_emptied_launch_of_a_preset_s_source_is_kept_empty() {
    let p = cuda_preset("transpose-tiled").unwrap();
    let inputs = CudaInputs {
        source: p.source.into(),
        launch: String::new(),
        ..CudaInputs::default()
    };
    let link = CudaLink::of(&inputs);
    assert_eq!(link.preset, "");
    assert_eq!(link.inputs().0, inputs);
}

// --- `srcz` ---

#[test]
fn a_long_source_travels_packed_and_a_short_one_as_typed() {
    let long = CudaInputs {
        source: long_source(),
        launch: "scale<<<4, 64>>>(a)".into(),
        ..CudaInputs::default()
    };
    let link = CudaLink::of(&long);
    assert_eq!(link.src, "");
    assert_eq!(link.srcz, pack(&long.source));
    assert_eq!(link.inputs(), (long.clone(), None));
    // Through the query string and back.
    let state = State {
        tab: Tab::Cuda,
        cuda_srcz: link.srcz.clone(),
        cuda_launch: link.launch.clone(),
        ..State::default()
    };
    let query = encode(&state);
    assert!(query.starts_with("v=1&tab=cuda&srcz="), "{query}");
    assert!(
        query.len() < long.source.len() / 2,
        "{} of {}",
        query.len(),
        long.source.len()
    );
    assert_eq!(decode(&query), state);
    assert!(warnings(&query).is_empty());
    let short = CudaInputs {
        source: "__global__ void k(float *a) { a[threadIdx.x] = 0; }\n".into(),
        launch: "k<<<1, 32>>>(a)".into(),
        ..CudaInputs::default()
    };
    assert_eq!(CudaLink::of(&short).src, short.source);
    assert_eq!(CudaLink::of(&short).srcz, "");
}

#[test]
fn both_forms_of_a_source_read_the_same() {
    let source = long_source();
    let plain = format!(
        "?tab=cuda&src={}&launch=scale%3C%3C%3C1,32%3E%3E%3E(a)",
        escape(&source)
    );
    let packed = format!(
        "?tab=cuda&srcz={}&launch=scale%3C%3C%3C1,32%3E%3E%3E(a)",
        pack(&source)
    );
    let (a, _) = cuda_link(&decode(&plain)).inputs();
    let (b, _) = cuda_link(&decode(&packed)).inputs();
    assert_eq!(a, b);
    assert_eq!(a.source, source);
}

#[test]
fn a_srcz_that_does_not_unpack_is_named_with_its_reason_and_the_fallback() {
    let notice = |link: CudaLink| link.inputs().1.unwrap();
    let bad = |srcz: &str| CudaLink { srcz: srcz.into(), ..CudaLink::default() };
    assert_eq!(
        notice(bad("ab*c")),
        "`srcz=ab*c`: character 3 is not base64url (A–Z, a–z, 0–9, - and _); using the default kernel."
    );
    assert_eq!(
        notice(bad("A")),
        "`srcz=A`: the packed text is cut short; using the default kernel."
    );
    assert_eq!(
        notice(CudaLink { preset: "copy".into(), ..bad("AAAA") }),
        "`srcz=AAAA`: the packed text is not a packed source; using the preset's source."
    );
    let with_src = CudaLink {
        src: "__global__ void k(float *a) { a[threadIdx.x] = 0; }\n".into(),
        ..bad("AAAA")
    };
    assert_eq!(
        notice(with_src.clone()),
        "`srcz=AAAA`: the packed text is not a packed source; using `src`."
    );
    assert_eq!(with_src.inputs().0.source, with_src.src);
    // The default kernel, with its launch.
    assert_eq!(bad("AAAA").inputs().0, CudaInputs::default());
    assert_eq!(bad("AAAA").inputs().0.source, DEFAULT_SOURCE);
    // A value of thousands of characters is cut in the notice.
    let long = "*".repeat(5000);
    assert!(notice(bad(&long)).len() < 200);
}

// --- `cflops` ---

#[test]
fn cflops_travels_as_typed_and_comes_back() {
    let state = State {
        tab: Tab::Cuda,
        cuda_preset: "copy".into(),
        cuda_flops: "2.5".into(),
        ..State::default()
    };
    let query = encode(&state);
    assert_eq!(query, "v=1&tab=cuda&cpreset=copy&cflops=2.5");
    assert_eq!(decode(&query), state);
    assert!(warnings(&query).is_empty());
    // A fraction is a count too; empty is none, and not written.
    assert!(warnings("?tab=cuda&cflops=1/4").is_empty());
    let none = State { cuda_flops: String::new(), ..state };
    assert_eq!(encode(&none), "v=1&tab=cuda&cpreset=copy");
    // It is the CUDA panel's own: the kernel view's `flops` is another field.
    let kernel = decode("?flops=3");
    assert_eq!(
        (kernel.kernel.flops.as_str(), kernel.cuda_flops.as_str()),
        ("3", "")
    );
    assert_eq!(decode("?cflops=3").kernel.flops, "");
}

#[test]
fn a_cflops_that_is_not_a_count_is_kept_in_its_field_and_named_in_the_notice() {
    let state = decode("?tab=cuda&cflops=-2");
    assert_eq!(
        state.cuda_flops, "-2",
        "kept for the field to show it with its error"
    );
    assert_eq!(
        warnings("?tab=cuda&cflops=-2"),
        [
            "`cflops=-2` must be a non-negative number of FLOPs per thread, a decimal or a \
          fraction such as 1/4, found '-2'; using none."
        ]
    );
    // Given twice, the last is read and the notice says so, as for every parameter.
    assert_eq!(
        warnings("?cflops=x&cflops=4"),
        ["`cflops` is given 2 times; the last, `cflops=4`, is used."]
    );
}

proptest! {
    // Whatever the fields hold, the link written for them reads back the same fields (but an
    // emptied source, which stands for the default kernel, as `CudaInputs::to_link` says).
    #[test]
    fn the_link_of_any_inputs_reads_back_as_those_inputs(
        source in prop_oneof![
            "[ -~\n]{1,40}",
            "[ -~\n]{1400,1700}",
            Just(CUDA_PRESETS[3].source.to_string()),
            Just(DEFAULT_SOURCE.to_string()),
        ],
        launch in prop_oneof!["[ -~]{0,30}", Just(CUDA_PRESETS[3].launch.to_string())],
    ) {
        let inputs = CudaInputs { source, launch, ..CudaInputs::default() };
        let link = CudaLink::of(&inputs);
        let (back, notice) = link.inputs();
        prop_assert_eq!(notice, None);
        let lost = inputs.source == DEFAULT_SOURCE && inputs.launch.is_empty();
        if !lost {
            prop_assert_eq!(back, inputs);
        }
        // Through the query string too.
        let state = State { tab: Tab::Cuda, cuda_preset: link.preset.clone(), cuda_src: link.src.clone(),
            cuda_srcz: link.srcz.clone(), cuda_launch: link.launch.clone(), ..State::default() };
        prop_assert_eq!(cuda_link(&decode(&encode(&state))), link);
    }
}
