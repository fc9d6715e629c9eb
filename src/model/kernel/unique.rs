//! Distinct sectors over a whole launch, overall and per statement: a paged map from sector
//! index to a byte whose bit `s` says statement `s` touched it.
//!
//! Pages of 4096 sectors are allocated only where sectors are touched, so a launch over 4M
//! sectors holds 4 MB, and one touching a few scattered sectors holds a few pages. No set of
//! `u64`s and no sort: each access costs a page look-up (usually the last page) and a byte.

use super::cache::LineHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

const PAGE_SHIFT: u32 = 12;
const PAGE_SECTORS: usize = 1 << PAGE_SHIFT;

/// Distinct sectors touched, overall and by each of up to 8 statements.
#[derive(Clone, Debug, Default)]
pub(crate) struct UniqueSectors {
    pages: Vec<Box<[u8; PAGE_SECTORS]>>,
    index: HashMap<u64, u32, BuildHasherDefault<LineHasher>>,
    /// The page of the last access and its position in `pages`.
    last: Option<(u64, u32)>,
    /// Distinct sectors touched by any statement.
    pub(crate) total: u64,
    /// Distinct sectors touched by statement `s` (0-based position in the kernel).
    pub(crate) by_statement: [u64; 8],
}

impl UniqueSectors {
    /// Records that statement `stmt` (0 to 7) touched `sector`.
    #[inline]
    pub(crate) fn insert(&mut self, sector: u64, stmt: usize) {
        let page = sector >> PAGE_SHIFT;
        let at = match self.last {
            Some((p, at)) if p == page => at,
            _ => {
                let next = self.pages.len() as u32;
                let at = *self.index.entry(page).or_insert(next);
                if at == next {
                    self.pages.push(Box::new([0; PAGE_SECTORS]));
                }
                self.last = Some((page, at));
                at
            }
        };
        let bit = 1u8 << (stmt & 7);
        let Some(page) = self.pages.get_mut(at as usize) else {
            return;
        };
        let seen = &mut page[(sector as usize) & (PAGE_SECTORS - 1)];
        if *seen & bit == 0 {
            if *seen == 0 {
                self.total += 1;
            }
            self.by_statement[stmt & 7] += 1;
            *seen |= bit;
        }
    }
}
