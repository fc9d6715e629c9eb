//! The CUDA panel's presets: kernels of this project's own writing, each with its launch and
//! the lesson it teaches, and whole programs with a `main()`. The kernels' figures are derived
//! independently in `tests/cuda_presets.rs`, the programs' in `tests/cuda_program_presets.rs`.

/// One preset: a source, its launch, and what it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaPreset {
    /// Its id in links and in the page (`cuda-preset`).
    pub id: &'static str,
    /// Its name in the picker.
    pub title: &'static str,
    /// What to look at, in a sentence or two.
    pub lesson: &'static str,
    /// The kernel, as a `.cu` file would hold it.
    pub source: &'static str,
    /// The launch; empty for a whole program, whose `main()` makes its launches.
    pub launch: &'static str,
}

const COPY: &str = "// One float per thread, consecutive threads on consecutive floats.
__global__ void copy(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}
";

const STRIDE2: &str = "// Each thread reads every other float: half of every sector is wasted.
__global__ void copyStride2(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[2 * i];
}
";

/// The tiled transposes' body, from the tile's declaration to the end, written once so that
/// the race preset is the padded kernel with nothing changed but its barrier: `$tile` is the
/// tile's declaration, `$sync` the line between the two loops.
macro_rules! tiled_transpose {
    ($tile:literal, $sync:literal) => {
        concat!(
            "{\n    __shared__ float ",
            $tile,
            ";\n\n",
            "    int x = blockIdx.x * TILE_DIM + threadIdx.x;\n    int y = blockIdx.y * TILE_DIM + threadIdx.y;\n    int width = gridDim.x * TILE_DIM;\n\n    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];\n\n",
            $sync,
            "\n",
            "\n    x = blockIdx.y * TILE_DIM + threadIdx.x;\n    y = blockIdx.x * TILE_DIM + threadIdx.y;\n\n    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n        odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];\n}\n"
        )
    };
}

const TRANSPOSE: &str = concat!(
    "// Matrix transpose, after NVIDIA's \"An Efficient Matrix Transpose in CUDA C/C++\".
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNaive(float *odata, const float *idata)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    int width = gridDim.x * TILE_DIM;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[x * width + (y + j)] = idata[(y + j) * width + x];
}

__global__ void transposeTiled(float *odata, const float *idata)
",
    tiled_transpose!("tile[TILE_DIM][TILE_DIM]", "    __syncthreads();"),
    "
__global__ void transposePadded(float *odata, const float *idata)
",
    tiled_transpose!("tile[TILE_DIM][TILE_DIM + 1]", "    __syncthreads();"),
    "
int main()
{
    // Host code is skipped: the page reads the kernels only.
    return 0;
}
"
);

const TRANSPOSE_RACE: &str = concat!(
    "// The tiled transpose with its __syncthreads() removed: a warp reads tile words
// that other warps may not have written yet.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNoSync(float *odata, const float *idata)
",
    tiled_transpose!(
        "tile[TILE_DIM][TILE_DIM + 1]",
        "    // The barrier that belongs here is missing."
    )
);

const SGEMM: &str = "// C = A × B for N × N row-major floats, one thread per element of C.
template <int N>
__global__ void sgemmRows(const float *A, const float *B, float *C)
{
    // threadIdx.x walks rows: a warp's lanes read 32 different rows of A.
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
        sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
}

template <int N>
__global__ void sgemmCols(const float *A, const float *B, float *C)
{
    // threadIdx.x walks columns: a warp reads one float of A and 32 consecutive of B.
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
        sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
}

#define TILE 16
template <int N>
__global__ void sgemmTiled(const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[ty][tx] = A[row * N + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = sum;
}
";

const REDUCE: &str = "// Sum 256 floats per block in shared memory, two ways.
__global__ void reduceInterleaved(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        int index = 2 * stride * tid;
        if (index < blockDim.x)
            s[index] += s[index + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduceSequential(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
";

const LAYOUT: &str = "// Moving particles: an array of structs against a struct of arrays.
struct Particle {
    float x, y, z;
};

__global__ void moveAoS(Particle *p, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i].x += dt;
}

__global__ void moveSoA(float *x, float *y, float *z, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] += dt;
}
";

const BOUNDS: &str =
    "// n is not a multiple of the block: the last block's tail threads do nothing.
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
";

/// Every preset, in the picker's order.
pub const CUDA_PRESETS: [CudaPreset; 15] = [
    CudaPreset {
        id: "copy",
        title: "Copy",
        lesson: "Consecutive threads read consecutive floats: each warp's 128 bytes are 4 \
                 sectors, exactly what it needs.",
        source: COPY,
        launch: "copy<<<4096, 256>>>(out, in)",
    },
    CudaPreset {
        id: "copy-offset",
        title: "Copy, offset by one float",
        lesson: "The same copy through a view one float in (in+1): every warp's 128 bytes now \
                 straddle 5 sectors, one of them excess.",
        source: COPY,
        launch: "copy<<<4096, 256>>>(out, in+1)",
    },
    CudaPreset {
        id: "copy-stride2",
        title: "Copy, stride 2",
        lesson: "Reading every other float fetches 8 sectors where 4 would carry the bytes: \
                 half of the read traffic is excess.",
        source: STRIDE2,
        launch: "copyStride2<<<4096, 256>>>(out, in)",
    },
    CudaPreset {
        id: "transpose-naive",
        title: "Transpose, naive",
        lesson: "Reads are coalesced, but each warp writes one float in each of 32 rows: 32 \
                 sectors per store where 4 would do.",
        source: TRANSPOSE,
        launch: "transposeNaive<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)",
    },
    CudaPreset {
        id: "transpose-tiled",
        title: "Transpose through shared memory",
        lesson: "A shared tile makes both global accesses coalesced, but reading a column of \
                 the tile hits one bank 32 times: 31 conflicts per request.",
        source: TRANSPOSE,
        launch: "transposeTiled<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)",
    },
    CudaPreset {
        id: "transpose-padded",
        title: "Transpose, padded tile",
        lesson: "One float of padding per tile row shifts each column across all 32 banks: \
                 no conflicts left.",
        source: TRANSPOSE,
        launch: "transposePadded<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)",
    },
    CudaPreset {
        id: "transpose-race",
        title: "Transpose, barrier missing",
        lesson: "The padded transpose without its __syncthreads(): every figure is as good as \
                 the padded one's, yet warps read tile words other warps have not written yet. \
                 The race check names the lines and the barrier to add.",
        source: TRANSPOSE_RACE,
        launch: "transposeNoSync<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)",
    },
    CudaPreset {
        id: "sgemm-rows",
        title: "SGEMM, threadIdx.x walks rows",
        lesson: "Lanes on different rows read A 512 bytes apart and write C likewise: 32 \
                 sectors per request for A and C.",
        source: SGEMM,
        launch: "sgemmRows<128><<<dim3(4, 8), dim3(32, 16)>>>(A, B, C)",
    },
    CudaPreset {
        id: "sgemm-cols",
        title: "SGEMM, threadIdx.x walks columns",
        lesson: "The same product with lanes along a row of C: A is one broadcast float per \
                 request, B and C are 4 sectors.",
        source: SGEMM,
        launch: "sgemmCols<128><<<dim3(4, 8), dim3(32, 16)>>>(A, B, C)",
    },
    CudaPreset {
        id: "sgemm-tiled",
        title: "SGEMM, shared-memory tiles",
        lesson: "Each element of A and B is read from global memory once per tile instead of \
                 once per thread; the inner loop runs from shared memory.",
        source: SGEMM,
        launch: "sgemmTiled<128><<<dim3(8, 8), dim3(16, 16)>>>(A, B, C)",
    },
    CudaPreset {
        id: "reduce-interleaved",
        title: "Reduction, interleaved addressing",
        lesson: "index = 2 × stride × tid spreads the active lanes 2, 4, 8 … words apart: \
                 they pile into fewer banks at every step.",
        source: REDUCE,
        launch: "reduceInterleaved<<<256, 256>>>(in, out)",
    },
    CudaPreset {
        id: "reduce-sequential",
        title: "Reduction, sequential addressing",
        lesson: "Active lanes stay on consecutive words: never a bank conflict.",
        source: REDUCE,
        launch: "reduceSequential<<<256, 256>>>(in, out)",
    },
    CudaPreset {
        id: "layout-aos",
        title: "Array of structs",
        lesson: "Updating one field of 12-byte structs reads and writes 4 bytes in every 12: \
                 12 sectors per request where 4 would do.",
        source: LAYOUT,
        launch: "moveAoS<<<1024, 256>>>(p, 0.01f)",
    },
    CudaPreset {
        id: "layout-soa",
        title: "Struct of arrays",
        lesson: "The same update on a separate array of x: 4 sectors per request.",
        source: LAYOUT,
        launch: "moveSoA<<<1024, 256>>>(x, y, z, 0.01f)",
    },
    CudaPreset {
        id: "bounds-partial",
        title: "Bounds check, partial last warp",
        lesson: "n = 1000 with 256-thread blocks: the last block has 24 threads past the end, \
                 so its last warp runs with 8 of 32 lanes: 1 sector per request, not 4.",
        source: BOUNDS,
        launch: "saxpy<<<4, 256>>>(1000, 2.0f, x, y)",
    },
];

/// Every preset's id, in the picker's order: what a link's `cpreset` may name. The link
/// decoder checks `cpreset` in the first load, which must not carry the presets' sources, so
/// the ids are listed apart; `tests/cuda_panel_presets.rs` checks that they are
/// [`CUDA_PRESETS`]' ids, in order.
pub const CUDA_PRESET_IDS: [&str; 15] = [
    "copy",
    "copy-offset",
    "copy-stride2",
    "transpose-naive",
    "transpose-tiled",
    "transpose-padded",
    "transpose-race",
    "sgemm-rows",
    "sgemm-cols",
    "sgemm-tiled",
    "reduce-interleaved",
    "reduce-sequential",
    "layout-aos",
    "layout-soa",
    "bounds-partial",
];

/// The whole programs: files of this project's own writing with a `main()`, each run as a
/// whole (its `launch` is empty). Their output and every launch's figures are derived by hand
/// in `tests/cuda_program_presets.rs`.
pub const PROGRAM_PRESETS: [CudaPreset; 6] = [
    CudaPreset {
        id: "program-vadd",
        title: "Program: a vector add that checks itself",
        lesson: "Consecutive threads add consecutive floats: each warp's two loads and its store \
                 are 4 sectors each, the ideal. The program copies its inputs in, runs one \
                 launch and checks every element on the host.",
        source: include_str!("programs/vadd.cu"),
        launch: "",
    },
    CudaPreset {
        id: "program-histogram",
        title: "Program: a histogram with atomics",
        lesson: "The loads coalesce (4 sectors a warp), but a warp's 32 atomics land on bins \
                 spread over 256 bytes: 8 sectors where the 128 bytes they update would fit in \
                 4. The bins' values are real: the program checks every count.",
        source: include_str!("programs/histogram.cu"),
        launch: "",
    },
    CudaPreset {
        id: "program-spmv",
        title: "Program: CSR sparse matrix times vector",
        lesson: "One thread per row walks its row's values: a warp's lanes read 12 bytes apart, \
                 so each load of val and col takes 12 sectors for 4 sectors of data, and the \
                 loop's bounds come from row_ptr, loaded. Compare the sites of line 15.",
        source: include_str!("programs/spmv.cu"),
        launch: "",
    },
    CudaPreset {
        id: "program-reduce",
        title: "Program: a shared-memory sum with a shuffle finish",
        lesson: "Each block halves 256 values in shared memory, a barrier a step, down to one \
                 warp, which finishes with __shfl_down_sync and one atomic. Shared memory is \
                 read 32 consecutive floats at a time: no bank conflicts.",
        source: include_str!("programs/reduce.cu"),
        launch: "",
    },
    CudaPreset {
        id: "program-rowcol",
        title: "Program: row sums against column sums",
        lesson: "The same sums two ways. A thread per row reads along its row, so a warp's \
                 lanes are a row apart: 32 sectors a load. A thread per column reads down it, \
                 lanes side by side: 4 sectors. Pick each launch and compare.",
        source: include_str!("programs/rowcol.cu"),
        launch: "",
    },
    CudaPreset {
        id: "program-transpose",
        title: "Program: the tiled transpose, checked",
        lesson: "Reads by rows and writes by columns through a padded shared tile: every global \
                 access is 4 sectors and no shared access conflicts. The program checks the \
                 transpose element by element.",
        source: include_str!("programs/transpose.cu"),
        launch: "",
    },
];

/// Every whole program's id, as [`CUDA_PRESET_IDS`] lists the kernels'.
pub const PROGRAM_PRESET_IDS: [&str; 6] = [
    "program-vadd",
    "program-histogram",
    "program-spmv",
    "program-reduce",
    "program-rowcol",
    "program-transpose",
];

/// The preset with id `id`: a kernel's or a whole program's.
pub fn cuda_preset(id: &str) -> Option<&'static CudaPreset> {
    CUDA_PRESETS
        .iter()
        .chain(PROGRAM_PRESETS.iter())
        .find(|p| p.id == id)
}
