// Coalescing Lab's strided-load probe. Invocation i reads the f32 at word
// params.base + i * params.stride of `data`: consecutive invocations (the lanes of a warp or
// subgroup) are `stride` words apart, and every stride reads the same n useful floats.
// The Rust side (src/model/probe.rs) sizes the buffers and predicts the checksum.

struct Params {
    base: u32,   // first word this repetition reads; each uniform slot has its own
    stride: u32, // lane stride in f32 words
    n: u32,      // useful floats per dispatch
    pad: u32,
}

@group(0) @binding(0) var<storage, read> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> sink: array<atomic<u32>, 2>;
@group(0) @binding(2) var<uniform> params: Params;

// The timed kernel. The store fires only for a negative value, and the data are never
// negative, but no compiler can know that: the load has to happen.
@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < params.n) {
        let v = data[params.base + i * params.stride];
        if (v < 0.0) {
            atomicStore(&sink[1], bitcast<u32>(v));
        }
    }
}

var<workgroup> partial: atomic<u32>;

// The checked kernel: the same loads, summed in the workgroup, then once per workgroup into
// sink[0]. The page compares the sum with the one it expects before timing anything.
@compute @workgroup_size(64)
fn checked(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = id.x;
    if (i < params.n) {
        atomicAdd(&partial, u32(data[params.base + i * params.stride]));
    }
    workgroupBarrier();
    if (local == 0u) {
        atomicAdd(&sink[0], atomicLoad(&partial));
    }
}

// Fills the data buffer on the GPU, so the page never holds a copy: word j gets value_at(j).
@group(0) @binding(3) var<storage, read_write> fill: array<f32>;

// The same hash as model::probe::value_at: 0 to 255, exact as an f32.
fn value_at(word: u32) -> u32 {
    let h = word * 2654435761u;
    return (h ^ (h >> 15u)) & 255u;
}

@compute @workgroup_size(64)
fn init(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let step = groups.x * 64u;
    let words = arrayLength(&fill);
    for (var j = id.x; j < words; j += step) {
        fill[j] = f32(value_at(j));
    }
}
