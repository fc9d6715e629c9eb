//! The machine mode's GPU presets (`machine=`): each GPU's DRAM bandwidth and its FP64, FP32
//! and tensor peaks, with where each number comes from. Knows nothing of the page.
//!
//! Every number is a vendor's peak as published (dense, no sparsity, boost clock), quoted by
//! the pages in `source`; docs/model.md, "Machine mode", lists the same sources. GB/s are 10^9
//! bytes/s and GFLOP/s 10^9 FLOP/s, so 1.555 TB/s is written 1555 and 19.5 TFLOP/s 19500.

/// One GPU: its ceilings as `NAME:VALUE` text (the URL's own syntax), and its sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuPreset {
    /// The `machine=` value.
    pub id: &'static str,
    /// For people: the exact part the numbers describe.
    pub label: &'static str,
    /// Bandwidth ceilings, `NAME:GBps`, in slot order (`bw.1`, …).
    pub bandwidths: &'static [&'static str],
    /// Compute ceilings, `NAME:GFLOPs`, in slot order (`peak.1`, …).
    pub peaks: &'static [&'static str],
    /// Where the numbers come from: the data sheet's figures as quoted by these pages.
    pub source: &'static str,
}

/// The presets, oldest first.
pub const GPU_PRESETS: [GpuPreset; 5] = [
    // 900 GB/s HBM2 (V100 whitepaper, as summarised in the gist); 7.8 and 15.7 TFLOP/s at
    // 1.53 GHz (Cornell Virtual Workshop); 125 tensor TFLOP/s (NVIDIA Developer blog).
    GpuPreset {
        id: "V100",
        label: "NVIDIA Tesla V100 SXM2",
        bandwidths: &["DRAM:900"],
        peaks: &["FP64:7800", "FP32:15700", "Tensor:125000"],
        source: "https://cvw.cac.cornell.edu/gpu-architecture/gpu-example-tesla-v100/tesla, \
                 https://developer.nvidia.com/programming-tensor-cores-cuda-9-0, \
                 https://gist.github.com/wolfram77/a42aeb021a2fec7b7e85ceb71b398772",
    },
    // NVIDIA A100 data sheet, quoted with its URL by glennklockwood.com: 1.555 TB/s (40 GB
    // HBM2), FP64 9.7, FP32 19.5, FP16 tensor 312 TFLOP/s (dense).
    GpuPreset {
        id: "A100",
        label: "NVIDIA A100 SXM4 40 GB",
        bandwidths: &["DRAM:1555"],
        peaks: &["FP64:9700", "FP32:19500", "Tensor:312000"],
        source: "https://glennklockwood.com/garden/processors/A100 (citing \
                 https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)",
    },
    // NVIDIA H100 SXM data sheet as tabulated by HPC Tech: 3,350 GB/s, FP64 34, FP32 67
    // TFLOP/s, FP16 tensor 1,979 TFLOP/s with sparsity, half without: 989.5.
    GpuPreset {
        id: "H100",
        label: "NVIDIA H100 SXM5 80 GB",
        bandwidths: &["DRAM:3350"],
        peaks: &["FP64:34000", "FP32:67000", "Tensor:989500"],
        source: "https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html",
    },
    // GeForce RTX 4090: 1008 GB/s; FP64 1.29, FP32 82.58, FP16 tensor 165.15 TFLOP/s dense
    // (waredb.com); 82.6 TFLOP/s FP32 and 1008 GB/s again in the specification table quoted
    // by the blog post.
    GpuPreset {
        id: "RTX4090",
        label: "NVIDIA GeForce RTX 4090",
        bandwidths: &["DRAM:1008"],
        peaks: &["FP64:1290", "FP32:82580", "Tensor:165150"],
        source: "https://waredb.com/processor/nvidia-geforce-rtx-4090, \
                 https://holynerdvana.blogspot.com/2022/10/nvidia-geforce-rtx-4090-specifications.html",
    },
    // AMD Instinct MI250X: 3.2 TB/s HBM2e (its DRAM), FP64 and FP32 (vector) 47.9 TFLOP/s, FP16 matrix
    // 383 TFLOP/s (Tom's Hardware; Yobitel's table gives the same bandwidth and FP16 matrix).
    GpuPreset {
        id: "MI250X",
        label: "AMD Instinct MI250X",
        bandwidths: &["DRAM:3200"],
        peaks: &["FP64:47900", "FP32:47900", "Matrix:383000"],
        source: "https://www.tomshardware.com/news/amd-radeon-instinct-mi250x-110-cus-128gb-hbm2e-500w-tdp, \
                 https://yobitel.com/knowledge-base/amd-mi250",
    },
];

impl GpuPreset {
    /// The preset whose id is `id`, ignoring case and spaces around it.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::GpuPreset;
    /// assert_eq!(GpuPreset::by_id(" a100 ").map(|p| p.id), Some("A100"));
    /// // Degenerate input.
    /// assert_eq!(GpuPreset::by_id(""), None);
    /// ```
    pub fn by_id(id: &str) -> Option<&'static GpuPreset> {
        let id = id.trim();
        GPU_PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id))
    }

    /// Every id, for messages: `V100, A100, H100, RTX4090, MI250X`.
    pub fn ids() -> String {
        GPU_PRESETS.map(|p| p.id).join(", ")
    }
}
