//! Pattern builders: sugar over `elem`, `base` and `idx`. A learner describes the data layout
//! they have in mind (a strided array, a row-major matrix, an array of structures) and the
//! builder writes the index expression, so the learner always sees what it stands for.

use super::inputs::Inputs;

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
        element: &'static str,
        stride: i64,
        offset: i64,
    },
    /// A row-major matrix `m[row][col]` of `element`, `rows` × `cols`, rows `pitch` elements
    /// apart (≥ cols, padding allowed); lane t takes the next column along the row, or the
    /// next row down. Lanes that would run off the matrix are masked out with `active`.
    Matrix {
        element: &'static str,
        rows: i64,
        cols: i64,
        pitch: i64,
        down_column: bool,
        row: i64,
        col: i64,
    },
    /// Field `field_offset`..+`field_bytes` of structures of `struct_bytes`, lane t reading
    /// structure t; as a structure of arrays, lane t reads element t of that field's array.
    Structures {
        struct_bytes: u64,
        field_offset: u64,
        field_bytes: u64,
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
    /// The calculator inputs for this layout: `elem`, `base` and `idx` are replaced, the rest
    /// kept. A builder starts from byte 0 of its array, so `base` is 0 (or the field's offset).
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
    pub fn build(&self, current: &Inputs) -> Result<Inputs, String> {
        let mut mask: Option<String> = None;
        let (elem, base, idx) = match *self {
            Layout::Strided {
                element,
                stride,
                offset,
            } => {
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
                    return Err(format!(
                        "the start row must be below the number of rows ({rows}), found {row}"
                    ));
                }
                if cols < 1 || pitch < cols {
                    return Err(format!(
                        "row pitch must be at least the number of columns ({cols}), found {pitch}"
                    ));
                }
                if row < 0 || col < 0 || col >= cols {
                    return Err(format!(
                        "the start must be a row ≥ 0 and a column from 0 to {}, found row {row}, column {col}",
                        cols - 1
                    ));
                }
                let start = row
                    .checked_mul(pitch)
                    .and_then(|r| r.checked_add(col))
                    .ok_or_else(|| "the start element is too far for 64 bits".to_string())?;
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
                    return Err(format!(
                        "the field must be 1, 2, 4, 8 or 16 bytes, found {field_bytes}"
                    ));
                }
                if field_offset + field_bytes > struct_bytes {
                    return Err(format!(
                        "the field ({field_bytes} B at offset {field_offset}) must lie inside the {struct_bytes}-byte structure"
                    ));
                }
                if as_arrays {
                    (field_bytes, 0, "t".to_string())
                } else if struct_bytes % field_bytes != 0 {
                    return Err(format!(
                        "a {struct_bytes}-byte structure is not a whole number of {field_bytes}-byte fields; \
                         write the addresses in the address list instead"
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
        let active = match (self, mask) {
            (Layout::Matrix { .. }, mask) => mask.unwrap_or_default(),
            _ => current.active.clone(),
        };
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

fn unknown_type(name: &str) -> String {
    let known: Vec<&str> = ELEMENT_TYPES.iter().map(|(n, _)| *n).collect();
    format!(
        "the element type must be one of {}, found '{name}'",
        known.join(", ")
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
    pub element: String,
    pub stride: String,
    pub offset: String,
    pub rows: String,
    pub cols: String,
    pub pitch: String,
    pub down_column: bool,
    pub row: String,
    pub col: String,
    pub struct_bytes: String,
    pub field_offset: String,
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
    /// ```
    pub fn layout(&self, as_arrays: bool) -> Result<Layout, String> {
        let whole = |name: &str, text: &str, unit: &str| {
            text.trim().parse::<i64>().map_err(|_| {
                format!(
                    "{name}: must be a whole number of {unit}, found '{}'",
                    text.trim()
                )
            })
        };
        let bytes = |name: &str, text: &str| {
            text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "{name}: must be a whole number of bytes, found '{}'",
                    text.trim()
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
                stride: whole("stride", &self.stride, "elements")?,
                offset: whole("offset", &self.offset, "elements")?,
            }),
            "matrix" => Ok(Layout::Matrix {
                element,
                rows: whole("rows", &self.rows, "rows")?,
                cols: whole("columns", &self.cols, "elements")?,
                pitch: whole("row pitch", &self.pitch, "elements")?,
                down_column: self.down_column,
                row: whole("start row", &self.row, "rows")?,
                col: whole("start column", &self.col, "columns")?,
            }),
            "structures" => Ok(Layout::Structures {
                struct_bytes: bytes("structure size", &self.struct_bytes)?,
                field_offset: bytes("field offset", &self.field_offset)?,
                field_bytes: bytes("field size", &self.field_bytes)?,
                as_arrays,
            }),
            other => Err(format!(
                "layout must be strided, matrix or structures, found '{other}'"
            )),
        }
    }
}
