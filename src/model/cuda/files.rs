//! The files of one translation unit: the main file, and the headers its `#include "…"`
//! lines bring in, found as nvcc finds them: beside the file that includes them, then in each
//! `-I` folder in order.
//!
//! Every position keeps one `u32` line: the main file's lines are its own numbers, and line
//! `n` of the `k`-th file included (`k` from 1, in the order first included) is
//! `k << FILE_SHIFT | n`. A single file's figures, keys and messages are therefore the same
//! with or without this module; [`Line`] words a line with its file's name.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fmt;

/// How far a line's file index is shifted: a file has fewer than 2^24 lines.
pub const FILE_SHIFT: u32 = 24;

/// Most files one unit includes, the main one apart.
pub const MAX_FILES: usize = 255;

/// How deep `#include` nests, as GCC's default limit.
pub const MAX_INCLUDE_DEPTH: usize = 200;

/// Most bytes the included files hold together.
pub const MAX_INCLUDED_BYTES: usize = 4 << 20;

/// The file index of `line` (0 for the main file) and its number in that file.
///
/// ```
/// use coalescing_lab::model::cuda::files::{split, FILE_SHIFT};
/// assert_eq!(split(12), (0, 12));
/// assert_eq!(split(2 << FILE_SHIFT | 7), (2, 7));
/// ```
pub const fn split(line: u32) -> (usize, u32) {
    (
        (line >> FILE_SHIFT) as usize,
        line & ((1 << FILE_SHIFT) - 1),
    )
}

/// Where `#include "…"` reads a file: the page's files by name, the disk on the command line.
pub trait Reader {
    /// The text of the file at `path` (a normalised path, `/`-separated), if there is one.
    fn read(&self, path: &str) -> Option<String>;
    /// A file to take when no folder has `name`: the page finds a header added beside the
    /// source by its name, whatever folder it came from. None on the command line.
    fn fallback(&self, _name: &str) -> Option<(String, String)> {
        None
    }
}

/// Headers given by their paths: the page's tabs beside the source, or a test's strings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Headers(pub Vec<Header>);

/// One header: its path as given (`cuda_gemm_utils.cuh`, `include/util.h`) and its text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Header {
    /// The path, `/`-separated.
    pub path: String,
    /// The text.
    pub text: String,
}

impl Headers {
    /// Headers from `(path, text)` pairs.
    pub fn of(files: &[(&str, &str)]) -> Headers {
        Headers(
            files
                .iter()
                .map(|(p, t)| Header { path: p.to_string(), text: t.to_string() })
                .collect(),
        )
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Reader for Headers {
    fn read(&self, path: &str) -> Option<String> {
        self.0
            .iter()
            .find(|h| normalise(&h.path) == path)
            .map(|h| h.text.clone())
    }

    /// The first header whose path ends with `name`'s own components (`../include/u.h` finds
    /// `u.h` and `src/include/u.h`).
    fn fallback(&self, name: &str) -> Option<(String, String)> {
        let wanted: Vec<String> = normalise(name)
            .split('/')
            .filter(|c| *c != "..")
            .map(str::to_string)
            .collect();
        self.0.iter().find_map(|h| {
            let path = normalise(&h.path);
            let have: Vec<&str> = path.split('/').collect();
            let ends = have.len() >= wanted.len()
                && have[have.len() - wanted.len()..]
                    .iter()
                    .zip(&wanted)
                    .all(|(a, b)| *a == b);
            ends.then(|| (path.clone(), h.text.clone()))
        })
    }
}

/// The header of `headers` a unit found at `path` (`CudaAnalysis::files`): the one given at
/// that path, else the one whose own path ends it (a header found by its name).
pub fn header_at<'a>(headers: &'a [Header], path: &str) -> Option<&'a Header> {
    let given = |h: &&Header| normalise(&h.path) == path;
    let named = |h: &&Header| path.ends_with(&format!("/{}", normalise(&h.path)));
    headers
        .iter()
        .find(given)
        .or_else(|| headers.iter().find(named))
}

/// `path` with `\` as `/`, and `.` and `x/..` components folded away (a leading `..` stays).
///
/// ```
/// use coalescing_lab::model::cuda::files::normalise;
/// assert_eq!(normalise("src/../include/./u.h"), "include/u.h");
/// assert_eq!(normalise("../u.h"), "../u.h");
/// assert_eq!(normalise("a\\b.h"), "a/b.h");
/// ```
pub fn normalise(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    let path = path.replace('\\', "/");
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." if out.last().is_some_and(|l| *l != "..") => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    let joined = out.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The folder of `path` (empty for a file in the current one).
pub fn folder(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |k| &path[..k])
}

/// Where the files of a unit come from: the main file's path, the `-I` folders, and the reader.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    /// The main file's path (`main.cu` on the page), for the folder its includes start from.
    pub main: &'a str,
    /// The `-I` folders, searched in order after the including file's own.
    pub dirs: &'a [String],
    /// What reads a file.
    pub reader: &'a dyn Reader,
}

impl fmt::Debug for Sources<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sources")
            .field("main", &self.main)
            .field("dirs", &self.dirs)
            .finish_non_exhaustive()
    }
}

/// No headers at all: a single file.
pub struct NoFiles;

impl Reader for NoFiles {
    fn read(&self, _: &str) -> Option<String> {
        None
    }
}

impl Sources<'_> {
    /// A single file, named `main.cu`, with no headers.
    pub fn single() -> Sources<'static> {
        Sources {
            main: "main.cu",
            dirs: &[],
            reader: &NoFiles,
        }
    }

    /// The file `#include "name"` means in the file at `including`: its normalised path and
    /// text, searched beside `including`, then in each folder of `dirs`, then the reader's
    /// fallback.
    pub fn find(&self, including: &str, name: &str) -> Option<(String, String)> {
        let join = |dir: &str| {
            if dir.is_empty() {
                normalise(name)
            } else {
                normalise(&format!("{dir}/{name}"))
            }
        };
        std::iter::once(join(folder(including)))
            .chain(self.dirs.iter().map(|d| join(d)))
            .find_map(|p| self.reader.read(&p).map(|t| (p, t)))
            .or_else(|| self.reader.fallback(name))
    }
}

/// A file a unit included: its path (as found) and its text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// The path it was found at.
    pub path: String,
    /// Its text.
    pub text: String,
}

thread_local! {
    /// The included files' paths of the unit read last on this thread, for [`Line`]'s words.
    static NAMES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Names the included files (index 1 on) for the [`Line`]s this thread words next.
pub fn name_files(paths: Vec<String>) {
    NAMES.with(|n| *n.borrow_mut() = paths);
}

/// Names file `k` (from 1) alone, as a failure reported from another thread names it.
pub fn name_file(k: usize, path: String) {
    NAMES.with(|n| {
        let mut names = n.borrow_mut();
        if names.len() < k {
            names.resize(k, String::new());
        }
        names[k - 1] = path;
    });
}

/// The path of file `k` (from 1) of the unit read last on this thread.
pub fn file_name(k: usize) -> Option<String> {
    NAMES.with(|n| {
        n.borrow()
            .get(k.wrapping_sub(1))
            .filter(|p| !p.is_empty())
            .cloned()
    })
}

/// A line worded for people: `line 12` in the main file, `line 7 of util.cuh` in a header.
///
/// ```
/// use coalescing_lab::model::cuda::files::{name_files, Line, FILE_SHIFT};
/// name_files(vec!["util.cuh".into()]);
/// assert_eq!(Line(12).to_string(), "line 12");
/// assert_eq!(Line(1 << FILE_SHIFT | 7).to_string(), "line 7 of util.cuh");
/// assert_eq!(Line(3 << FILE_SHIFT | 1).to_string(), "line 1 of included file 3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line(pub u32);

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (k, n) = split(self.0);
        if k == 0 {
            return write!(f, "line {n}");
        }
        match file_name(k) {
            Some(name) => write!(f, "line {n} of {name}"),
            None => write!(f, "line {n} of included file {k}"),
        }
    }
}
