//! The probe's pure parts against brute-force oracles: predictions, sizing within limits,
//! base offsets, checksums, statistics, repetition counts, the report and its exports.

use coalescing_lab::model::permalink::{decode, encode, warnings, State, Tab};
use coalescing_lab::model::probe::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Counts the 32-byte sectors one warp of 32 lanes touches at `stride`, byte by byte.
fn oracle_sectors(stride: u64) -> u64 {
    let bytes = (0..32u64).flat_map(|t| (t * stride)..(t * stride + 4));
    bytes.map(|b| b / 32).collect::<BTreeSet<_>>().len() as u64
}

#[test]
fn predictions_match_the_byte_oracle_for_every_stride() {
    for stride in (4..=MAX_STRIDE).step_by(4) {
        let p = predict(stride);
        let sectors = oracle_sectors(u64::from(stride));
        assert_eq!(p.sectors, sectors, "stride {stride}");
        assert_eq!(p.useful_bytes, 128);
        assert_eq!(p.transferred_bytes, sectors * 32);
        assert_eq!(p.fraction.value(), 128.0 / (sectors * 32) as f64);
        assert_eq!(p.addresses.len(), 32);
        assert_eq!(p.addresses[31], 31 * u64::from(stride));
    }
}

#[test]
fn the_course_strides_predict_what_the_course_says() {
    // Contiguous: 4 sectors, 100 %; 32, 64 and 128 B: one sector per lane, 12.5 %, 8× slower.
    let rows: Vec<(u64, f64)> = [4, 32, 64, 128]
        .iter()
        .map(|&s| {
            let p = predict(s);
            (p.sectors, p.fraction.value())
        })
        .collect();
    assert_eq!(rows, [(4, 1.0), (32, 0.125), (32, 0.125), (32, 0.125)]);
    // An 8 B stride puts 4 lanes in a sector (8 sectors), a 16 B stride 2 (16 sectors).
    assert_eq!(predict(8).sectors, 8);
    assert_eq!(predict(16).sectors, 16);
}

#[test]
fn checksum_matches_a_plain_sum() {
    for (base, stride, n) in [(0u64, 4u32, 1000u32), (4096, 128, 333), (256, 4096, 32)] {
        let plain: u64 = (0..u64::from(n))
            .map(|i| u64::from(value_at(((base + i * u64::from(stride)) / 4) as u32)))
            .sum();
        assert_eq!(u64::from(expected_checksum(base, stride, n)), plain);
    }
    // The hash is not constant along any course stride, so a wrong stride changes the sum.
    assert_ne!(
        expected_checksum(0, 32, 1024),
        expected_checksum(0, 64, 1024)
    );
    assert_ne!(
        expected_checksum(0, 4, 1024),
        expected_checksum(256, 4, 1024)
    );
}

fn limits() -> impl Strategy<Value = Limits> {
    (16u64..=34, 16u64..=34, 1000u32..=70000).prop_map(|(b, s, w)| Limits {
        max_buffer_size: 1 << b,
        max_storage_buffer_binding_size: (1 << s) + 4 * (s % 3),
        max_compute_workgroups_per_dimension: w,
    })
}

proptest! {
    #[test]
    fn plans_stay_within_limits_and_bases_within_the_buffer(
        limits in limits(),
        strides in prop::collection::btree_set(1u32..=1024, 1..6),
        n in prop::option::of(MIN_N..=MAX_N),
    ) {
        let config = Config { strides: strides.iter().map(|s| s * 4).collect(), n };
        match plan(&config, &limits) {
            Err(error) => {
                prop_assert!(!error.message().is_empty());
                prop_assert!(["n", "strides"].contains(&error.field.param()));
            }
            Ok(p) => {
                prop_assert!(p.buffer_bytes <= limits.max_buffer_size);
                prop_assert!(p.buffer_bytes <= limits.max_storage_buffer_binding_size);
                prop_assert!(p.buffer_bytes <= BUFFER_CAP_BYTES);
                prop_assert!(p.workgroups <= limits.max_compute_workgroups_per_dimension);
                prop_assert!(u64::from(p.workgroups) * u64::from(WORKGROUP_INVOCATIONS) >= u64::from(p.n));
                if let Some(n) = n {
                    prop_assert_eq!(p.n, n);
                } else {
                    prop_assert!(p.n.is_power_of_two() && p.n <= MAX_N);
                    // The largest that fits: twice as many would not.
                    let doubled = plan(&Config { n: Some(p.n * 2), ..config.clone() }, &limits);
                    prop_assert!(p.n == MAX_N || doubled.is_err());
                }
                for &stride in &config.strides {
                    let bases = p.bases(stride);
                    prop_assert_eq!(bases.len(), BASE_SLOTS as usize);
                    let distinct: BTreeSet<_> = bases.iter().collect();
                    prop_assert_eq!(distinct.len(), bases.len(), "bases repeat for stride {}", stride);
                    for base in bases {
                        prop_assert_eq!(base % SECTOR_BYTES, 0);
                        let last_byte = base + u64::from(p.n - 1) * u64::from(stride) + 4;
                        prop_assert!(last_byte <= p.buffer_bytes);
                        // Word indices fit the kernel's u32 arithmetic.
                        prop_assert!(last_byte / 4 < u64::from(u32::MAX));
                    }
                }
            }
        }
    }

    #[test]
    fn stats_agree_with_sorting(samples in prop::collection::vec(0.0f64..1e3, 1..30)) {
        let s = stats(&samples).unwrap();
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        prop_assert_eq!(s.min, sorted[0]);
        prop_assert_eq!(s.max, *sorted.last().unwrap());
        let below = sorted.iter().filter(|&&x| x < s.median).count();
        let above = sorted.iter().filter(|&&x| x > s.median).count();
        prop_assert!(below <= samples.len() / 2 && above <= samples.len() / 2);
    }

    #[test]
    fn a_pass_lasts_about_the_target(dispatch_ms in 0.00001f64..500.0) {
        let reps = reps_for(dispatch_ms, 1000);
        prop_assert!((1..=MAX_REPS).contains(&reps));
        let per = dispatch_ms.max(TIMER_RESOLUTION_MS / 1000.0);
        let pass = f64::from(reps) * per;
        prop_assert!(pass >= TARGET_PASS_MS || reps == MAX_REPS || reps == 1);
        prop_assert!(pass <= TARGET_PASS_MS + per || reps == 1);
    }

    #[test]
    fn probe_fields_never_panic_and_errors_name_their_field(strides in ".{0,40}", n in ".{0,12}") {
        if let Err(errors) = (ProbeInputs { strides, n }).check() {
            for e in errors {
                // The whole message: the parameter once, then one sentence with one full stop.
                let prefix = format!("{}: ", e.field.param());
                prop_assert_eq!(e.to_string(), format!("{prefix}{}.", e.message()));
                prop_assert!(!e.message().is_empty() && !e.message().starts_with(&prefix));
                prop_assert!(!e.message().ends_with('.'));
            }
        }
    }
}

#[test]
fn calibration_never_asks_for_a_long_pass_from_a_reading_below_the_timer() {
    // Whatever a dispatch really takes below the 0.1 ms resolution, a pass sized from a
    // one-dispatch reading of 0 lasts at most 120 × 0.1 ms = 12 ms; from a 120-dispatch
    // reading, at most twice the target.
    assert_eq!(reps_for(0.0, 1), 120);
    let from_second = reps_for(0.0, 120);
    assert!(f64::from(from_second) * (TIMER_RESOLUTION_MS / 120.0) <= 2.0 * TARGET_PASS_MS);
    assert_eq!(reps_for(f64::NAN, 1), 120);
}

#[test]
fn the_default_plan_uses_the_largest_power_of_two_that_fits() {
    let config = ProbeInputs::default().check().unwrap();
    let roomy = Limits {
        max_buffer_size: 1 << 31,
        max_storage_buffer_binding_size: 1 << 31,
        max_compute_workgroups_per_dimension: 65535,
    };
    let p = plan(&config, &roomy).unwrap();
    assert_eq!((p.n, p.n_from_limits), (MAX_N, true));
    assert_eq!(p.workgroups, MAX_N / WORKGROUP_INVOCATIONS);
    // 16 disjoint 4 MiB contiguous windows would be 64 MiB; the 128 B stride needs 128 MiB.
    assert_eq!(p.buffer_bytes, (128 << 20) + 3840);
    let small = plan(&config, &Limits::DEFAULT).unwrap();
    assert_eq!(small.n, 1 << 19);
}

#[test]
fn too_big_a_size_is_refused_before_allocation_with_the_field_named() {
    let config = Config { strides: vec![4, 4096], n: Some(1 << 20) };
    let error = plan(&config, &Limits::DEFAULT).unwrap_err();
    assert_eq!(
        error.to_string(),
        "n: 1048576 floats at the 4096-byte stride need a 4 GiB buffer, more than this device's largest (128 MiB); use n ≤ 32767 or smaller strides."
    );
}

fn sample_report(checksums_ok: bool) -> Report {
    let plan = plan(
        &Config {
            strides: vec![4, 32, 64, 128],
            n: Some(4096),
        },
        &Limits::DEFAULT,
    )
    .unwrap();
    let measurement = |stride: u32, ms: f64| Measurement {
        stride,
        checksum: if checksums_ok || stride != 64 { 7 } else { 8 },
        expected: 7,
        reps: 10,
        samples_ms: vec![ms * 1.1, ms, ms * 0.9, ms, ms, ms * 1.2, ms],
    };
    Report::new(
        plan,
        Timer::Timestamps,
        AdapterInfo {
            vendor: "google".into(),
            architecture: "swiftshader".into(),
            description: "a \"quoted\", comma".into(),
            fallback: true,
            timestamps: true,
            ..AdapterInfo::default()
        },
        Limits::DEFAULT,
        "Mozilla/5.0 (X11) Chrome/156".into(),
        // Out of order on purpose: the report sorts by stride.
        vec![
            measurement(128, 0.0068),
            measurement(4, 0.001),
            measurement(32, 0.004),
            measurement(64, 0.005),
        ],
    )
}

#[test]
fn the_report_puts_prediction_beside_measurement() {
    let report = sample_report(true);
    let strides: Vec<u32> = report.rows.iter().map(|r| r.measurement.stride).collect();
    assert_eq!(strides, [4, 32, 64, 128]);
    let first = &report.rows[0];
    assert_eq!(first.measured_slowdown, Some(1.0));
    // 4096 floats = 16384 B in 0.001 ms: 16.384 GB/s useful, and at 100 % as much moved.
    let gbps = first.useful_gbps.unwrap();
    assert!((gbps - 16.384).abs() < 1e-9, "{gbps}");
    assert_eq!(first.implied_gbps, first.useful_gbps);
    let last = &report.rows[3];
    assert!((last.measured_slowdown.unwrap() - 6.8).abs() < 1e-9);
    assert_eq!(last.predicted_slowdown, 8.0);
    assert!((last.implied_gbps.unwrap() - last.useful_gbps.unwrap() * 8.0).abs() < 1e-9);
    assert_eq!(
        report.reading()[2],
        "128 B stride ran 6.8× slower than contiguous; the sector model predicts 8×."
    );
    let text = last.text();
    assert_eq!(
        (text.sectors.as_str(), text.fraction.as_str()),
        ("32", "12.5 %")
    );
    assert_eq!(text.median_value, "0.0068");
    let (measured, model) = chart_points(&report);
    assert_eq!(measured.len(), 4);
    assert!((model[3].1 - measured[0].1 / 8.0).abs() < 1e-9);
}

#[test]
fn a_wrong_checksum_is_an_error_never_a_number() {
    let report = sample_report(false);
    let bad = report
        .rows
        .iter()
        .find(|r| r.measurement.stride == 64)
        .unwrap();
    assert_eq!(
        (bad.time, bad.useful_gbps, bad.measured_slowdown),
        (None, None, None)
    );
    assert_eq!(bad.text().median_ms, "—");
    assert!(report
        .reading()
        .iter()
        .any(|s| s.starts_with("64 B stride: the checksum was 8, expected 7")));
}

#[test]
fn the_csv_export_holds_every_stride_and_lane() {
    let csv = sample_report(true).csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("# adapter: google swiftshader"));
    let header = lines
        .iter()
        .position(|l| l.starts_with("stride_bytes,"))
        .unwrap();
    let rows = &lines[header + 1..];
    assert_eq!(rows.len(), 4 * 32);
    let columns = lines[header].split(',').count();
    for row in rows {
        assert_eq!(row.split(',').count(), columns, "{row}");
    }
    let lane31_at_128: Vec<&str> = rows[127].split(',').collect();
    assert_eq!(lane31_at_128[0], "128");
    assert_eq!(&lane31_at_128[columns - 3..], ["31", "3968", "124"]);
    assert!(csv.contains("# fallback adapter: true"));
    // One dialect for every export: RFC 4180 line ends, comments included.
    assert!(csv.ends_with("\r\n"));
    assert_eq!(csv.matches('\n').count(), csv.matches("\r\n").count());
}

#[test]
fn the_json_export_holds_the_course_evidence() {
    let json: serde_json::Value = serde_json::from_str(&sample_report(true).json()).unwrap();
    assert_eq!(json["adapter"]["description"], "a \"quoted\", comma");
    assert_eq!(json["software_adapter"], true);
    assert_eq!(json["browser"], "Mozilla/5.0 (X11) Chrome/156");
    assert_eq!(json["timer"], "timestamp-query");
    let strides = json["strides"].as_array().unwrap();
    assert_eq!(strides.len(), 4);
    for (s, stride) in strides.iter().zip([4, 32, 64, 128]) {
        assert_eq!(s["stride_bytes"], stride);
        assert_eq!(s["warp_addresses"].as_array().unwrap().len(), 32);
        assert_eq!(s["warp_addresses"][1]["address"], stride);
        assert_eq!(s["raw_ms_per_dispatch"].as_array().unwrap().len(), MEASURED);
        assert_eq!(s["requested_bytes_per_warp"], 128);
        assert!(s["useful_fraction"].as_f64().unwrap() > 0.0);
        assert_eq!(s["checksum_ok"], true);
    }
    assert_eq!(strides[3]["predicted_sectors_per_warp"], 32);
}

#[test]
fn probe_links_carry_the_configuration_and_report_bad_values() {
    let state = decode("?tab=probe&strides=4,256&n=2048");
    assert_eq!(state.tab, Tab::Probe);
    assert_eq!(
        (state.probe.strides.as_str(), state.probe.n.as_str()),
        ("4,256", "2048")
    );
    assert_eq!(encode(&state), "v=1&tab=probe&strides=4,256&n=2048");
    assert_eq!(decode(&encode(&state)), state);
    assert_eq!(encode(&decode("tab=probe")), "v=1&tab=probe");
    assert_eq!(State::default().probe, ProbeInputs::default());
    let said = warnings("tab=probe&strides=4,7&n=0");
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(
        said,
        [
            "`strides=4,7`: 7 is not a multiple of 4 bytes; each stride must be 4 to 4096, a multiple of 4; fix it in the GPU probe before running.",
            "`n=0`: '0' is not a whole number from 32 to 1048576 (2^20); leave it empty for as many as the device allows; fix it in the GPU probe before running.",
        ]
    );
    assert!(warnings("tab=probe&strides=4,32&n=64").is_empty());
    assert_eq!(warnings("tab=gpu").len(), 1);
}

/// Uniforms belong to the plan: every slot carries its base (in f32 words), the stride in
/// words and `n`, at its own aligned offset.
#[test]
fn each_uniform_slot_holds_its_base_stride_and_n() {
    let p = plan(
        &Config { strides: vec![4, 128], n: Some(1024) },
        &Limits::DEFAULT,
    )
    .unwrap();
    for stride in [4, 128] {
        let bytes = p.uniforms(stride);
        assert_eq!(bytes.len() as u64, u64::from(BASE_SLOTS) * ALIGN_BYTES);
        for (slot, base) in p.bases(stride).iter().enumerate() {
            let at = slot * ALIGN_BYTES as usize;
            let word = |k: usize| {
                u32::from_le_bytes(bytes[at + 4 * k..at + 4 * k + 4].try_into().unwrap())
            };
            assert_eq!(
                [word(0), word(1), word(2), word(3)],
                [(base / 4) as u32, stride / 4, 1024, 0]
            );
            assert!(bytes[at + PARAMS_BYTES as usize..at + ALIGN_BYTES as usize]
                .iter()
                .all(|&b| b == 0));
        }
    }
}

/// The shader and the model agree: workgroup size, the `Params` layout and the value hash.
#[test]
fn the_shader_uses_the_models_constants() {
    const WGSL: &str = include_str!("../src/gpu/probe.wgsl");
    let sizes: Vec<u32> = WGSL
        .match_indices("@workgroup_size(")
        .map(|(at, open)| {
            let rest = &WGSL[at + open.len()..];
            rest[..rest.find(')').unwrap()].parse().unwrap()
        })
        .collect();
    assert_eq!(sizes, [WORKGROUP_INVOCATIONS; 3]);
    assert!(WGSL.contains(&format!("let step = groups.x * {WORKGROUP_INVOCATIONS}u;")));
    let params = &WGSL[WGSL.find("struct Params {").unwrap()..];
    let params = &params[..params.find('}').unwrap()];
    assert_eq!(params.matches(": u32").count() as u64 * 4, PARAMS_BYTES);
    assert!(WGSL.contains(&format!("let h = word * {HASH_MULTIPLIER}u;")));
    assert!(WGSL.contains(&format!("return (h ^ (h >> {HASH_SHIFT}u)) & 255u;")));
}
