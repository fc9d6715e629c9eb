//! A block's replay: every warp of the block has run to its end and holds its accesses and
//! barriers; they meet the tally here in the hardware's order, round robin between barriers,
//! after the barrier rule is checked (every warp reaches the block's barriers with every lane,
//! or the run stops naming the first thread that differs).

use super::*;

impl CudaJob {
    /// Checks the block's barriers and feeds its accesses to the tally, round robin between
    /// barriers.
    pub(super) fn drain_block(&mut self) -> Result<(), RunError> {
        let threads: u64 = self.program.launch.block.iter().product();
        let width = u64::from(self.program.machine.warp);
        let present = |w: usize| -> u64 {
            let first = w as u64 * width;
            let n = threads.saturating_sub(first).min(width);
            if n >= 64 {
                u64::MAX
            } else {
                (1u64 << n) - 1
            }
        };
        // The barriers of warp 0 are the block's; every warp must reach the same ones with
        // every lane.
        let barriers = |e: &Events| -> Vec<(u32, u64, Pos, Option<u32>)> {
            e.list
                .iter()
                .filter_map(|ev| match *ev {
                    Event::Barrier { site, mask, pos, branch } => Some((site, mask, pos, branch)),
                    Event::Access(_) | Event::SyncWarp => None,
                })
                .collect()
        };
        let first = self.events.first().map(barriers).unwrap_or_default();
        let block_idx = warp::block_index(&self.program, self.block);
        for (w, e) in self.events.iter().enumerate() {
            let mine = barriers(e);
            let full = present(w);
            for k in 0..mine.len().max(first.len()) {
                let (a, b) = (first.get(k), mine.get(k));
                let lane_tid = |lane: u32| w as u64 * width + u64::from(lane);
                let (pos, differs, reaches, branch, apart) = match (a, b) {
                    (Some(&(sa, _, pa, _)), Some(&(sb, mb, pb, bb))) => {
                        if mb != full {
                            (
                                pb,
                                lane_tid((!mb & full).trailing_zeros()),
                                false,
                                bb,
                                Apart::Lanes,
                            )
                        } else if sa != sb {
                            (pb, lane_tid(0), true, bb, Apart::Barrier(pa.line))
                        } else {
                            continue;
                        }
                    }
                    (Some(&(_, _, pa, ba)), None) => (pa, lane_tid(0), false, ba, Apart::Ends),
                    (None, Some(&(_, _, pb, bb))) => (pb, lane_tid(0), true, bb, Apart::FirstEnds),
                    (None, None) => continue,
                };
                let thread = warp::thread_of(&self.program, differs);
                return Err(RunError {
                    pos,
                    thread: Some((block_idx, thread)),
                    kind: Box::new(RunErrorKind::Barrier {
                        differs: thread,
                        reaches,
                        branch,
                        apart,
                    }),
                });
            }
        }
        if !self.shared.checks.arrays.is_empty() {
            self.shared.checks.races(&self.events, block_idx);
        }
        // Segments between barriers, round robin.
        let mut cursors = vec![0usize; self.events.len()];
        let block = self.block;
        let sites = self.shared.sites.len();
        self.passes.clear();
        self.passes.resize(self.events.len() * sites, 0);
        for segment in 0..=first.len() {
            for (w, e) in self.events.iter().enumerate() {
                let c = &mut cursors[w];
                while let Some(ev) = e.list.get(*c) {
                    *c += 1;
                    match ev {
                        Event::Access(Access { site, .. }) => {
                            // Events arrive in the warp's own order, so this counts its passes.
                            let pass =
                                self.passes
                                    .get_mut(w * sites + *site as usize)
                                    .map_or(1, |n| {
                                        *n += 1;
                                        *n
                                    });
                            self.order.push(w, (w, *c - 1, pass));
                        }
                        Event::SyncWarp => {}
                        Event::Barrier { .. } => break,
                    }
                }
            }
            let events = &self.events;
            let tally = &mut self.tally;
            let mut failure = None;
            let width = width as usize;
            self.order.drain(|(w, k, pass)| {
                // Every queued event is an access of its warp's list: one that is not is a bug,
                // reported rather than left out of the figures.
                let Some(r) = events.get(w).and_then(|e| e.access(k)) else {
                    failure.get_or_insert(Err(w));
                    return;
                };
                let lanes = spread(r.access.mask, r.compact);
                let row = |cost: &Cost| r.execution(block_idx, w as u32, pass, *cost);
                let access =
                    r.warp_access(block, w as u32, &lanes[..width.min(crate::model::LANES)]);
                let (site, kind) = (r.access.site, r.access.kind);
                let counted = if kind == SiteKind::Atomic {
                    tally.atomic(&access, row)
                } else {
                    tally.access(&access, row)
                };
                if let Err(e) = counted {
                    failure.get_or_insert(Ok((site, w, e)));
                }
            });
            if let Some(Err(_)) = failure {
                return Err(RunError::at(
                    Pos::default(),
                    RunErrorKind::Internal("a queued access that its warp did not record"),
                ));
            }
            if let Some(Ok((site, w, e))) = failure {
                let pos = self
                    .shared
                    .sites
                    .get(site as usize)
                    .map_or(Pos::default(), |s| s.pos);
                let thread =
                    warp::thread_of(&self.program, w as u64 * width as u64 + u64::from(e.0));
                return Err(RunError {
                    pos,
                    thread: Some((block_idx, thread)),
                    kind: Box::new(RunErrorKind::AddressOverflow),
                });
            }
            if let Some(&(site, _, _, _)) = first.get(segment) {
                self.tally.barrier(site as usize);
            }
        }
        Ok(())
    }
}
