//! Pattern builders: every builder writes the expression it should, and the course's
//! examples built from their data layouts cost what the course says.

use coalescing_lab::model::builders::Layout;
use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::sectors::analyze;

fn built(layout: Layout) -> (Inputs, u64, u64) {
    let inputs = layout
        .build(&Inputs::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let t = analyze(&inputs).unwrap().totals;
    (inputs, t.sectors, t.transferred_bytes)
}

#[test]
fn course_examples_built_from_their_layouts() {
    // Ex3: every second float.
    let (i, sectors, bytes) = built(Layout::Strided { element: "float", stride: 2, offset: 0 });
    assert_eq!(
        (i.idx.as_str(), i.elem.as_str(), sectors, bytes),
        ("2*t", "4", 8, 256)
    );
    // Ex8a: down a column of a 1024-float-wide matrix, against along a row.
    let column = Layout::Matrix {
        element: "float",
        rows: 1024,
        cols: 1024,
        pitch: 1024,
        down_column: true,
        row: 0,
        col: 0,
    };
    let (i, sectors, bytes) = built(column);
    assert_eq!((i.idx.as_str(), sectors, bytes), ("1024*t", 32, 1024));
    let row = Layout::Matrix {
        element: "float",
        rows: 1024,
        cols: 1024,
        pitch: 1024,
        down_column: false,
        row: 0,
        col: 0,
    };
    let (i, sectors, bytes) = built(row);
    assert_eq!((i.idx.as_str(), sectors, bytes), ("t", 4, 128));
    // The course's "column, 128 B rows": a 32-float-wide matrix read down a column.
    let narrow = Layout::Matrix {
        element: "float",
        rows: 1024,
        cols: 32,
        pitch: 32,
        down_column: true,
        row: 0,
        col: 0,
    };
    assert_eq!(built(narrow).1, 32);
    // Ex9: float3 .x as an array of structures, then the same field as a structure of arrays.
    let aos = Layout::Structures {
        struct_bytes: 12,
        field_offset: 0,
        field_bytes: 4,
        as_arrays: false,
    };
    let (i, sectors, bytes) = built(aos);
    assert_eq!(
        (i.idx.as_str(), i.base.as_str(), sectors, bytes),
        ("3*t", "0", 12, 384)
    );
    let soa = Layout::Structures {
        struct_bytes: 12,
        field_offset: 0,
        field_bytes: 4,
        as_arrays: true,
    };
    assert_eq!(built(soa).1, 4);
    // The .y field starts 4 bytes in.
    let y = Layout::Structures {
        struct_bytes: 12,
        field_offset: 4,
        field_bytes: 4,
        as_arrays: false,
    };
    assert_eq!(built(y).0.base, "4");
}

#[test]
fn padding_offsets_and_element_types_shape_the_expression() {
    let padded = Layout::Matrix {
        element: "double",
        rows: 1024,
        cols: 100,
        pitch: 128,
        down_column: true,
        row: 2,
        col: 5,
    };
    let (i, _, _) = built(padded);
    assert_eq!((i.idx.as_str(), i.elem.as_str()), ("128*t + 261", "8"));
    let shifted = Layout::Strided { element: "float4", stride: 1, offset: 3 };
    assert_eq!(built(shifted).0.idx, "t + 3");
}

#[test]
fn lanes_that_would_leave_the_matrix_are_masked_out() {
    let short = Layout::Matrix {
        element: "float",
        rows: 20,
        cols: 64,
        pitch: 64,
        down_column: true,
        row: 4,
        col: 0,
    };
    let (i, sectors, _) = built(short);
    assert_eq!(
        (i.idx.as_str(), i.active.as_str(), sectors),
        ("64*t + 256", "t < 16", 16)
    );
    let row_end = Layout::Matrix {
        element: "float",
        rows: 20,
        cols: 64,
        pitch: 64,
        down_column: false,
        row: 0,
        col: 48,
    };
    assert_eq!(built(row_end).0.active, "t < 16");
    let fits = Layout::Matrix {
        element: "float",
        rows: 64,
        cols: 64,
        pitch: 64,
        down_column: true,
        row: 0,
        col: 0,
    };
    assert_eq!(built(fits).0.active, "", "every lane stays inside");
}

#[test]
fn impossible_layouts_say_why() {
    let build = |l: Layout| l.build(&Inputs::default()).unwrap_err();
    assert_eq!(
        build(Layout::Matrix {
            element: "float",
            rows: 1024,
            cols: 64,
            pitch: 32,
            down_column: true,
            row: 0,
            col: 0
        }),
        "row pitch must be at least the number of columns (64), found 32"
    );
    assert_eq!(
        build(Layout::Matrix {
            element: "float",
            rows: 1024,
            cols: 64,
            pitch: 64,
            down_column: true,
            row: 0,
            col: 64
        }),
        "the start must be a row ≥ 0 and a column from 0 to 63, found row 0, column 64"
    );
    assert_eq!(
        build(Layout::Structures {
            struct_bytes: 8,
            field_offset: 6,
            field_bytes: 4,
            as_arrays: false
        }),
        "the field (4 B at offset 6) must lie inside the 8-byte structure"
    );
    assert_eq!(
        build(Layout::Strided { element: "int3", stride: 1, offset: 0 }),
        "the element type must be one of char, half, float, double, float2, float4, found 'int3'"
    );
}

// Regression: the strided builder kept the matrix builder's `active = t < 24`, so a stride-1
// float array showed 24 of 32 lanes and 3 sectors instead of the whole warp's 4.
#[test]
fn a_builder_writes_the_whole_scenario_including_the_mask() {
    let along_row = Layout::Matrix {
        element: "float",
        rows: 8,
        cols: 1024,
        pitch: 1024,
        down_column: false,
        row: 0,
        col: 1000,
    };
    let masked = along_row.build(&Inputs::default()).unwrap();
    assert_eq!(masked.active, "t < 24");
    let strided = Layout::Strided { element: "float", stride: 1, offset: 0 }
        .build(&masked)
        .unwrap();
    assert_eq!(strided.active, "");
    let t = analyze(&strided).unwrap().totals;
    assert_eq!((t.active_lanes, t.sectors), (32, 4));
}
