//! Warp instructions one by one: the 10 worst of the launch, and every warp of a chosen
//! statement, iteration and block; each row opens that instruction in the calculator with its
//! own addresses.

use super::super::share::download_text;
use super::super::widgets::{CalculatorLink, RegionTable, TextField};
use super::super::AppState;
use super::results::stem;
use crate::model::inputs::Inputs;
use crate::model::kernel::view::{lane0_text, warp_csv};
use crate::model::kernel::{
    calculator_addrs, warp_rows, AccessKind, Kernel, KernelAnalysis, Measure, Pick, WarpRow,
};
use leptos::prelude::*;

/// The worst warp instructions of the launch, and every warp of one chosen instruction.
#[component]
pub(super) fn Warps(
    state: AppState,
    analysis: RwSignal<Option<KernelAnalysis>>,
    analysed: RwSignal<Option<Kernel>>,
    measure: Signal<Measure>,
) -> impl IntoView {
    let stmt = RwSignal::new(String::new());
    let iteration = RwSignal::new("0".to_string());
    let block = RwSignal::new("0".to_string());
    // Only memory statements can be picked: a barrier has no warps to list.
    let first_stmt = move || {
        analysed.with(|k| {
            k.as_ref()
                .and_then(|k| {
                    k.statements
                        .iter()
                        .find(|s| s.kind != AccessKind::Sync)
                        .map(|s| s.number)
                })
                .unwrap_or(1)
        })
    };
    let picked = Memo::new(move |_| {
        let kernel = analysed.get()?;
        // An empty loop or a kernel of barriers only has no instruction to pick: the kernel's
        // note says why, and the pickers stay quiet.
        if kernel.loop_range.iterations == 0
            || kernel.statements.iter().all(|s| s.kind == AccessKind::Sync)
        {
            return None;
        }
        let stmt = stmt
            .with(|s| s.parse::<u8>().ok())
            .filter(|n| {
                kernel
                    .statements
                    .iter()
                    .any(|s| s.number == *n && s.kind != AccessKind::Sync)
            })
            .unwrap_or_else(first_stmt);
        let parse = |text: &str, what: &str| {
            text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "{what}: enter a whole number from 0, found '{}'",
                    text.trim()
                )
            })
        };
        let pick = (|| {
            Ok::<_, String>(Pick {
                stmt,
                iteration: parse(&iteration.get(), "iteration")?,
                block: parse(&block.get(), "block")?,
            })
        })();
        Some(pick.and_then(|pick| {
            warp_rows(&kernel, pick)
                .map(|rows| (pick, rows))
                .map_err(|e| e.message().to_string())
        }))
    });
    let export = move |_| {
        let text = picked.with_untracked(|p| match p {
            Some(Ok((_, rows))) => warp_csv(rows),
            _ => String::new(),
        });
        download_text(&format!("{}-warps.csv", stem(state)), "text/csv", &text);
    };
    let worst = move || {
        let m = measure.get();
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.worst_by(m).to_vec())
                .unwrap_or_default()
        })
    };
    let stmts = move || {
        analysed.with(|k| {
            k.as_ref()
                .map(|k| {
                    k.statements
                        .iter()
                        .filter(|s| s.kind != AccessKind::Sync)
                        .map(|s| (s.number, s.name.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    view! {
        <section class="kernel-warps" aria-labelledby="kernel-worst-title">
            <h3 id="kernel-worst-title">"Worst warp instructions"</h3>
            <p class="hint">{move || format!("The 10 warp instructions with the most {}, ties in execution order. Each opens in the calculator.", measure.get().unit())}</p>
            <WarpTable rows=Signal::derive(worst) testid="kernel-worst" state=state analysed=analysed caption="The 10 worst warp instructions" />
            <h3 id="kernel-warp-title">"Every warp of one instruction"</h3>
            <div class="pick">
                <div class="field">
                    <label for="kernel-pick-stmt">"Statement"</label>
                    <select
                        id="kernel-pick-stmt" data-testid="kernel-pick-stmt"
                        prop:value=move || stmt.with(|s| if s.is_empty() { first_stmt().to_string() } else { s.clone() })
                        on:change=move |ev| stmt.set(event_target_value(&ev))
                    >
                        {move || stmts().into_iter().map(|(n, name)| view! { <option value=n.to_string()>{format!("a{n}: {name}")}</option> }).collect_view()}
                    </select>
                </div>
                <TextField
                    testid="kernel-pick-iteration".to_string() param="iteration" label="Iteration"
                    tag="(from 0)" hint="the loop's n-th pass" inputmode="numeric" value=iteration
                    on_input=Callback::new(move |t| iteration.set(t))
                    error=Signal::derive(move || picked.with(|p| match p { Some(Err(e)) if e.starts_with("iteration") || e.contains("iteration") => Some(e.clone()), _ => None }))
                />
                <TextField
                    testid="kernel-pick-block".to_string() param="block-number" label="Block"
                    tag="(linear number)" hint="bx + by·Gx + bz·Gx·Gy" inputmode="numeric"
                    value=block on_input=Callback::new(move |t| block.set(t))
                    error=Signal::derive(move || picked.with(|p| match p { Some(Err(e)) if !e.contains("iteration") => Some(e.clone()), _ => None }))
                />
            </div>
            <WarpTable
                rows=Signal::derive(move || picked.with(|p| match p { Some(Ok((_, rows))) => rows.clone(), _ => Vec::new() }))
                testid="kernel-warp" state=state analysed=analysed
                caption="Every warp of the chosen instruction"
            />
            <div class="buttons exports">
                <button type="button" data-testid="kernel-warp-csv" on:click=export>"Download these warps (CSV)"</button>
            </div>
        </section>
    }
}

#[component]
fn WarpTable(
    rows: Signal<Vec<WarpRow>>,
    testid: &'static str,
    state: AppState,
    analysed: RwSignal<Option<Kernel>>,
    caption: &'static str,
) -> impl IntoView {
    // The calculator scenario of one warp instruction: its addresses, the statement's elem,
    // and the machine the kernel shares with the calculator.
    let scenario = move |row: &WarpRow| -> Option<Inputs> {
        analysed.with_untracked(|k| {
            let k = k.as_ref()?;
            let pick = Pick {
                stmt: row.stmt,
                iteration: row.iteration,
                block: row.block,
            };
            let addrs = calculator_addrs(k, pick, row.warp).ok()?;
            let stmt = k.statements.iter().find(|s| s.number == row.stmt)?;
            Some(Inputs {
                addrs,
                elem: stmt.elem.to_string(),
                space: stmt.space.name().to_string(),
                active: String::new(),
                ..state.calc.get_untracked()
            })
        })
    };
    view! {
        <RegionTable caption=caption columns=WARP_COLUMNS>
            {move || rows.get().into_iter().map(|row| {
                let open = scenario(&row);
                let [x, y, z] = row.block_idx;
                view! {
                    <tr
                        data-testid=testid data-block=row.block data-warp=row.warp
                        data-stmt=row.stmt data-iter=row.iter
                        data-lane0-address=row.lane0_address.map_or(String::new(), |a| a.to_string())
                        // A shared row's cost is wavefronts: it has no sectors.
                        data-sectors=if row.wavefronts.is_some() { String::new() } else { row.sectors.to_string() }
                        data-wavefronts=row.wavefronts.map(|w| w.wavefronts.to_string())
                        data-bank-conflicts=row.wavefronts.map(|w| w.conflicts().to_string())
                        data-excess-sectors=if row.wavefronts.is_some() { String::new() } else { row.excess_sectors().to_string() }
                    >
                        <td class="mono">{row.block}</td>
                        <td class="mono">{format!("({x},{y},{z})")}</td>
                        <td class="mono">{row.warp}</td>
                        <td class="mono">{analysed.with_untracked(|k| k.as_ref().map_or_else(|| format!("a{}", row.stmt), |k| k.statement_label(row.stmt)))}</td>
                        <td class="mono">{row.iter}</td>
                        <td class="mono">{lane0_text(&row)}</td>
                        <td class="mono">{row.active_lanes}</td>
                        <td class="mono">
                            {match row.wavefronts {
                                Some(w) => format!(
                                    "{} wavefront{} (shared), {} conflict{}",
                                    w.wavefronts,
                                    crate::model::format::plural(w.wavefronts),
                                    w.conflicts(),
                                    crate::model::format::plural(w.conflicts())
                                ),
                                None => format!("{} ({} excess)", row.sectors, row.excess_sectors()),
                            }}
                        </td>
                        <td class="mono">
                            {if row.wavefronts.is_some() {
                                "—".to_string()
                            } else {
                                crate::model::format::percent(row.useful_fraction())
                            }}
                        </td>
                        <td>
                            <CalculatorLink state=state calc=open testid=format!("{testid}-open") text=format!("Open block {} warp {}", row.block, row.warp) />
                        </td>
                    </tr>
                }
            }).collect_view()}
        </RegionTable>
    }
}

/// The columns of the table of warp instructions.
const WARP_COLUMNS: &[&str] = &[
    "Block",
    "(x,y,z)",
    "Warp",
    "Statement",
    "i",
    "Lane 0 address",
    "Active",
    "Sectors or wavefronts",
    "Useful",
    "Calculator",
];
