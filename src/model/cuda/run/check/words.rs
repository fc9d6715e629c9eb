//! The reports worded for people: what is wrong, and the usual fix.

use super::{OutOfBounds, Race, RaceScope, Uninit};
use crate::model::cuda::files::Line;
use crate::model::cuda::run::SiteKind;
use crate::model::machine::Space;

fn verb(kind: SiteKind, past: bool) -> &'static str {
    match (kind, past) {
        (SiteKind::Load, false) => "reads",
        (SiteKind::Load, true) => "read",
        (SiteKind::Atomic, false) => "updates",
        (SiteKind::Atomic, true) => "updated",
        (_, false) => "writes",
        (_, true) => "wrote",
    }
}

impl Race {
    /// What is wrong and the usual fix, for people. `line_kind(site)` gives a site's line and
    /// kind.
    pub fn sentence(&self, line_kind: impl Fn(usize) -> (u32, SiteKind)) -> String {
        let (la, ka) = line_kind(self.site_a);
        let (lb, kb) = line_kind(self.site_b);
        let (fix, _) = line_kind(self.fix_after);
        match self.scope {
            RaceScope::Block => format!(
                "{} {} {}, which warp {} {} at {} with no __syncthreads() between: \
                 add one after {}",
                Line(lb),
                verb(kb, false),
                self.word,
                self.warp_a,
                verb(ka, true),
                Line(la),
                Line(fix)
            ),
            RaceScope::Warp => format!(
                "{} {} {}, which lane {} of the same warp {} at {} with no \
                 __syncwarp() between: that is correct only if the warp runs in lockstep, which \
                 Volta and later GPUs do not promise; add __syncwarp() after {}",
                Line(lb),
                verb(kb, false),
                self.word,
                self.lanes.0,
                verb(ka, true),
                Line(la),
                Line(la)
            ),
            RaceScope::Instruction if self.same_value => format!(
                "{}: lanes {} and {} of one warp store the same value to {}; harmless, \
                 but one lane would do",
                Line(la),
                self.lanes.0,
                self.lanes.1,
                self.word
            ),
            RaceScope::Instruction => format!(
                "{}: lanes {} and {} of one warp store to {} in the same instruction; \
                 which value lands is not defined",
                Line(la),
                self.lanes.0,
                self.lanes.1,
                self.word
            ),
        }
    }
}

impl OutOfBounds {
    /// What is wrong, for people. `line` is the site's line.
    pub fn sentence(&self, line: u32) -> String {
        let t = self.thread;
        let b = self.block;
        let what = match self.space {
            Space::Shared => "shared array",
            Space::Global => "allocation",
        };
        let more = if self.occurrences > 1 {
            format!(
                " ({} lane-accesses out of bounds at this line in all)",
                self.occurrences
            )
        } else {
            String::new()
        };
        let wrong = match (&self.array, self.count) {
            (Some(array), Some(count)) => format!(
                "index {} is outside the {what} {array} of {count} elements (0 to {})",
                self.index,
                count.saturating_sub(1)
            ),
            (Some(array), None) if self.index < 0 => format!(
                "index {} of the {what} {array} is below its start",
                self.index
            ),
            (Some(array), None) => format!(
                "index {} of the {what} {array} is past the 256 MiB that an allocation of \
                 undeclared length spans here",
                self.index
            ),
            (None, _) => match self.space {
                Space::Shared => format!(
                    "byte {} of the block's shared memory is outside every shared array",
                    self.address as i64
                ),
                Space::Global => format!(
                    "the address {:#x} is outside every allocation",
                    self.address
                ),
            },
        };
        format!(
            "{}: {wrong}; on a GPU this faults or corrupts other data{more}",
            at(line, b, t)
        )
    }
}

/// Where a finding is: its line, and the block and thread of its first occurrence.
fn at(line: u32, block: [u64; 3], thread: [u64; 3]) -> String {
    let (b, t) = (block, thread);
    format!(
        "{}, block ({},{},{}), thread ({},{},{})",
        Line(line),
        b[0],
        b[1],
        b[2],
        t[0],
        t[1],
        t[2]
    )
}

impl Uninit {
    /// What is wrong, for people. `line` is the site's line.
    pub fn sentence(&self, line: u32) -> String {
        let t = self.thread;
        let b = self.block;
        let what = match &self.array {
            Some(array) => format!("index {} of {array}", self.index),
            None => format!("the address {:#x}", self.address),
        };
        let more = if self.occurrences > 1 {
            format!(
                " ({} lane-accesses read unwritten bytes at this line in all)",
                self.occurrences
            )
        } else {
            String::new()
        };
        format!(
            "{}: reads {what}, which no copy, memset or store has written; on a GPU the value \
             is whatever the memory held{more}",
            at(line, b, t)
        )
    }
}
