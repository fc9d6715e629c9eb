//! Pattern builders: sugar over `elem`, `base` and `idx`. A learner describes the data layout
//! they have in mind (a strided array, a row-major matrix, an array of structures) and the
//! builder writes the index expression, so the learner always sees what it stands for.

use super::inputs::Inputs;
use std::fmt;

/// What is wrong with a builder's form, and the form field it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuilderError {
    /// The form field at fault, as in its test id `builder-{field}`: `stride`, `pitch`, …
    pub field: &'static str,
    message: String,
}

impl BuilderError {
    fn new(field: &'static str, message: String) -> BuilderError {
        BuilderError { field, message }
    }
}

impl fmt::Display for BuilderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BuilderError {}

/// Compares a builder error with its message, for tests and doc tests.
impl PartialEq<&str> for BuilderError {
    fn eq(&self, other: &&str) -> bool {
        self.message == *other
    }
}

/// Element types a builder offers, with their sizes in bytes.
pub const ELEMENT_TYPES: [(&str, u64); 6] = [
    ("char", 1),
    ("half", 2),
    ("float", 4),
    ("double", 8),
    ("float2", 8),
    ("float4", 16),
];

/// A layout to build the access pattern from. Counts are in elements unless named bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `a[offset + stride·t]` over an array of `element`.
    Strided {
        /// An element type of [`ELEMENT_TYPES`], e.g. `float`; it sets `elem`.
        element: &'static str,
        /// Elements between consecutive lanes; negative runs backwards, 0 is a broadcast.
        stride: i64,
        /// The element lane 0 reads, counted from the array's start.
        offset: i64,
    },
    /// A row-major matrix `m[row][col]` of `element`, `rows` × `cols`, rows `pitch` elements
    /// apart (≥ cols, padding allowed); lane t takes the next column along the row, or the
    /// next row down. Lanes that would run off the matrix are masked out with `active`.
    Matrix {
        /// An element type of [`ELEMENT_TYPES`]; it sets `elem`.
        element: &'static str,
        /// Number of rows, at least 1; with `down_column` it bounds how many lanes stay active.
        rows: i64,
        /// Number of columns, in elements, at least 1.
        cols: i64,
        /// Elements from one row's start to the next, at least `cols`.
        pitch: i64,
        /// Lane t reads row `row + t` of column `col`; when false, column `col + t` of row `row`.
        down_column: bool,
        /// The row lane 0 reads, from 0 to `rows` − 1.
        row: i64,
        /// The column lane 0 reads, from 0 to `cols` − 1.
        col: i64,
    },
    /// Field `field_offset`..+`field_bytes` of structures of `struct_bytes`, lane t reading
    /// structure t; as a structure of arrays, lane t reads element t of that field's array.
    Structures {
        /// Size of one structure in bytes, a multiple of `field_bytes` unless `as_arrays`.
        struct_bytes: u64,
        /// Byte offset of the field inside the structure; it becomes `base`.
        field_offset: u64,
        /// Size of the field in bytes: 1, 2, 4, 8 or 16; it becomes `elem`.
        field_bytes: u64,
        /// A structure of arrays instead: lane t reads element t of the field's packed array.
        as_arrays: bool,
    },
}

/// The size of an element type, if it is one the builders offer.
pub fn element_bytes(name: &str) -> Option<u64> {
    ELEMENT_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
}

impl Layout {
    /// The calculator inputs for this layout: `elem`, `base`, `idx` and `active` are replaced
    /// (and `addrs` cleared); the machine (`arch`, `warp`, `sector`, `line`) is kept. A builder starts from byte 0 of its array, so `base` is 0 (or the field's offset).
    ///
    /// ```
    /// use coalescing_lab::model::builders::Layout;
    /// use coalescing_lab::model::inputs::Inputs;
    /// let column = Layout::Matrix { element: "float", rows: 1024, cols: 1024, pitch: 1024, down_column: true, row: 0, col: 0 };
    /// let inputs = column.build(&Inputs::default()).unwrap();
    /// assert_eq!((inputs.elem.as_str(), inputs.idx.as_str()), ("4", "1024*t"));
    /// // Degenerate input: a structure whose size is not a whole number of fields cannot be
    /// // indexed in elements.
    /// let odd = Layout::Structures { struct_bytes: 12, field_offset: 0, field_bytes: 8, as_arrays: false };
    /// assert!(odd.build(&Inputs::default()).is_err());
    /// ```
    pub fn build(&self, current: &Inputs) -> Result<Inputs, BuilderError> {
        let mut mask: Option<String> = None;
        let (elem, base, idx) = match *self {
            Layout::Strided { element, stride, offset } => {
                let elem = element_bytes(element).ok_or_else(|| unknown_type(element))?;
                (elem, 0, affine(stride, offset))
            }
            Layout::Matrix {
                element,
                rows,
                cols,
                pitch,
                down_column,
                row,
                col,
            } => {
                let elem = element_bytes(element).ok_or_else(|| unknown_type(element))?;
                if rows < 1 || row >= rows {
                    return Err(BuilderError::new(
                        "row",
                        format!(
                            "the start row must be below the number of rows ({rows}), found {row}"
                        ),
                    ));
                }
                if cols < 1 || pitch < cols {
                    return Err(BuilderError::new(
                        "pitch",
                        format!("row pitch must be at least the number of columns ({cols}), found {pitch}"),
                    ));
                }
                if row < 0 || col < 0 || col >= cols {
                    return Err(BuilderError::new(
                        if row < 0 { "row" } else { "col" },
                        format!(
                            "the start must be a row ≥ 0 and a column from 0 to {}, found row {row}, column {col}",
                            cols - 1
                        ),
                    ));
                }
                let start = row
                    .checked_mul(pitch)
                    .and_then(|r| r.checked_add(col))
                    .ok_or_else(|| {
                        BuilderError::new(
                            "row",
                            "the start element is too far for 64 bits".to_string(),
                        )
                    })?;
                let stride = if down_column { pitch } else { 1 };
                let left = if down_column { rows - row } else { cols - col };
                let warp = current.warp.trim().parse::<i64>().unwrap_or(0);
                mask = (left < warp).then(|| format!("t < {left}"));
                (elem, 0, affine(stride, start))
            }
            Layout::Structures {
                struct_bytes,
                field_offset,
                field_bytes,
                as_arrays,
            } => {
                if !matches!(field_bytes, 1 | 2 | 4 | 8 | 16) {
                    return Err(BuilderError::new(
                        "field-bytes",
                        format!("the field must be 1, 2, 4, 8 or 16 bytes, found {field_bytes}"),
                    ));
                }
                if field_offset.saturating_add(field_bytes) > struct_bytes {
                    return Err(BuilderError::new(
                        "field-offset",
                        format!(
                            "the field ({field_bytes} B at offset {field_offset}) must lie inside the {struct_bytes}-byte structure"
                        ),
                    ));
                }
                if as_arrays {
                    (field_bytes, 0, "t".to_string())
                } else if struct_bytes % field_bytes != 0 {
                    return Err(BuilderError::new(
                        "struct-bytes",
                        format!(
                            "a {struct_bytes}-byte structure is not a whole number of {field_bytes}-byte fields; \
                             write the addresses in the address list instead"
                        ),
                    ));
                } else {
                    (
                        field_bytes,
                        field_offset,
                        affine((struct_bytes / field_bytes) as i64, 0),
                    )
                }
            }
        };
        // A builder writes the whole scenario it describes, the mask included: a mask left by
        // another builder (or typed earlier) would silently change the answer.
        let active = mask.unwrap_or_default();
        Ok(Inputs {
            elem: elem.to_string(),
            base: base.to_string(),
            idx,
            active,
            addrs: String::new(),
            ..current.clone()
        })
    }
}

fn unknown_type(name: &str) -> BuilderError {
    let known: Vec<&str> = ELEMENT_TYPES.iter().map(|(n, _)| *n).collect();
    BuilderError::new(
        "element",
        format!(
            "the element type must be one of {}, found '{name}'",
            known.join(", ")
        ),
    )
}

/// `stride*t + offset`, written the way a person would: `t`, `2*t`, `t + 16`, `1024*t + 3`.
///
/// ```
/// use coalescing_lab::model::builders::affine;
/// assert_eq!(affine(1, 0), "t");
/// assert_eq!(affine(-1, 31), "31 - t");
/// assert_eq!(affine(3, 0), "3*t");
/// assert_eq!(affine(0, 5), "5");
/// assert_eq!(affine(64, -8), "64*t - 8");
/// ```
pub fn affine(stride: i64, offset: i64) -> String {
    let term = match stride {
        0 => String::new(),
        1 => "t".to_string(),
        -1 => "-t".to_string(),
        s => format!("{s}*t"),
    };
    match (term.as_str(), offset) {
        ("", o) => o.to_string(),
        (_, 0) => term,
        ("-t", o) => format!("{o} - t"),
        (t, o) if o < 0 => format!("{t} - {}", o.unsigned_abs()),
        (t, o) => format!("{t} + {o}"),
    }
}

/// The builder form as typed: one string per field, whatever the layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuilderForm {
    /// `strided`, `matrix` or `structures`.
    pub kind: String,
    /// Element type name, one of [`ELEMENT_TYPES`]; used by the strided and matrix layouts.
    pub element: String,
    /// Strided: elements between lanes, a signed whole number.
    pub stride: String,
    /// Strided: the element lane 0 reads, a signed whole number.
    pub offset: String,
    /// Matrix: number of rows.
    pub rows: String,
    /// Matrix: number of columns, in elements.
    pub cols: String,
    /// Matrix: row pitch, in elements or, with `pitch_in_bytes`, in bytes.
    pub pitch: String,
    /// The row pitch is in bytes (as the course states it) rather than elements.
    pub pitch_in_bytes: bool,
    /// Matrix: lanes walk down a column (true) or along a row (false).
    pub down_column: bool,
    /// Matrix: the 0-based row lane 0 starts at.
    pub row: String,
    /// Matrix: the 0-based column lane 0 starts at.
    pub col: String,
    /// Structures: size of one structure, in bytes.
    pub struct_bytes: String,
    /// Structures: the field's byte offset inside the structure.
    pub field_offset: String,
    /// Structures: the field's size, in bytes.
    pub field_bytes: String,
}

impl Default for BuilderForm {
    /// A float3 and its `.x` field, and a 1024-float-wide matrix read down a column: the
    /// course's examples.
    fn default() -> BuilderForm {
        BuilderForm {
            kind: "strided".into(),
            element: "float".into(),
            stride: "2".into(),
            offset: "0".into(),
            rows: "1024".into(),
            cols: "1024".into(),
            pitch: "1024".into(),
            pitch_in_bytes: false,
            down_column: true,
            row: "0".into(),
            col: "0".into(),
            struct_bytes: "12".into(),
            field_offset: "0".into(),
            field_bytes: "4".into(),
        }
    }
}

impl BuilderForm {
    /// The layout the form describes, or what is wrong with it, naming the field.
    ///
    /// ```
    /// use coalescing_lab::model::builders::{BuilderForm, Layout};
    /// let form = BuilderForm { kind: "structures".into(), ..BuilderForm::default() };
    /// assert_eq!(
    ///     form.layout(false),
    ///     Ok(Layout::Structures { struct_bytes: 12, field_offset: 0, field_bytes: 4, as_arrays: false })
    /// );
    /// let bad = BuilderForm { stride: "two".into(), ..BuilderForm::default() };
    /// assert_eq!(bad.layout(false).unwrap_err(), "stride: must be a whole number of elements, found 'two'");
    /// assert_eq!(bad.layout(false).unwrap_err().field, "stride");
    /// ```
    pub fn layout(&self, as_arrays: bool) -> Result<Layout, BuilderError> {
        let whole = |field: &'static str, name: &str, text: &str, unit: &str| {
            text.trim().parse::<i64>().map_err(|_| {
                BuilderError::new(
                    field,
                    format!(
                        "{name}: must be a whole number of {unit}, found '{}'",
                        text.trim()
                    ),
                )
            })
        };
        let bytes = |field: &'static str, name: &str, text: &str| {
            text.trim().parse::<u64>().map_err(|_| {
                BuilderError::new(
                    field,
                    format!(
                        "{name}: must be a whole number of bytes, found '{}'",
                        text.trim()
                    ),
                )
            })
        };
        let element = ELEMENT_TYPES
            .iter()
            .find(|(n, _)| *n == self.element)
            .map(|(n, _)| *n)
            .ok_or_else(|| unknown_type(&self.element))?;
        match self.kind.as_str() {
            "strided" => Ok(Layout::Strided {
                element,
                stride: whole("stride", "stride", &self.stride, "elements")?,
                offset: whole("offset", "offset", &self.offset, "elements")?,
            }),
            "matrix" => Ok(Layout::Matrix {
                element,
                rows: whole("rows", "rows", &self.rows, "rows")?,
                cols: whole("cols", "columns", &self.cols, "elements")?,
                pitch: self.pitch_elements(element)?,
                down_column: self.down_column,
                row: whole("row", "start row", &self.row, "rows")?,
                col: whole("col", "start column", &self.col, "columns")?,
            }),
            "structures" => Ok(Layout::Structures {
                struct_bytes: bytes("struct-bytes", "structure size", &self.struct_bytes)?,
                field_offset: bytes("field-offset", "field offset", &self.field_offset)?,
                field_bytes: bytes("field-bytes", "field size", &self.field_bytes)?,
                as_arrays,
            }),
            other => Err(BuilderError::new(
                "kind",
                format!("layout must be strided, matrix or structures, found '{other}'"),
            )),
        }
    }

    /// The row pitch in elements, from elements or from bytes (a whole number of elements).
    ///
    /// ```
    /// use coalescing_lab::model::builders::BuilderForm;
    /// let bytes = BuilderForm { pitch: "4096".into(), pitch_in_bytes: true, ..BuilderForm::default() };
    /// assert_eq!(bytes.pitch_elements("float"), Ok(1024));
    /// let odd = BuilderForm { pitch: "4098".into(), pitch_in_bytes: true, ..BuilderForm::default() };
    /// assert_eq!(odd.pitch_elements("float").unwrap_err(), "row pitch: 4098 bytes is not a whole number of 4-byte float elements");
    /// ```
    pub fn pitch_elements(&self, element: &str) -> Result<i64, BuilderError> {
        let text = self.pitch.trim();
        let unit = if self.pitch_in_bytes {
            "bytes"
        } else {
            "elements"
        };
        let value = text.parse::<i64>().map_err(|_| {
            BuilderError::new(
                "pitch",
                format!("row pitch: must be a whole number of {unit}, found '{text}'"),
            )
        })?;
        if !self.pitch_in_bytes {
            return Ok(value);
        }
        let size = element_bytes(element).ok_or_else(|| unknown_type(element))? as i64;
        if value % size != 0 {
            return Err(BuilderError::new(
                "pitch",
                format!("row pitch: {value} bytes is not a whole number of {size}-byte {element} elements"),
            ));
        }
        Ok(value / size)
    }
}
