// A histogram with atomics: each thread reads one value and adds one to its bin. The loads
// coalesce; the atomics of a warp land on bins spread over 256 bytes, 8 sectors where the
// 128 bytes they update would fit in 4.
#include <cstdio>
#include <cstdlib>
#define N 4096
#define BINS 64

__global__ void histogram(const int *data, int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i]], 1);
}

int main()
{
    int *h_data = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        h_data[i] = (i * 7) % BINS;
    int *d_data, *d_bins;
    cudaMalloc(&d_data, N * sizeof(int));
    cudaMalloc(&d_bins, BINS * sizeof(int));
    cudaMemcpy(d_data, h_data, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, BINS * sizeof(int));
    histogram<<<N / 256, 256>>>(d_data, d_bins, N);
    int h_bins[BINS];
    cudaMemcpy(h_bins, d_bins, BINS * sizeof(int), cudaMemcpyDeviceToHost);
    int total = 0, wrong = 0;
    for (int b = 0; b < BINS; b++) {
        total += h_bins[b];
        if (h_bins[b] != N / BINS) wrong++;
    }
    printf("bins[0] = %d, bins[%d] = %d, total %d\n", h_bins[0], BINS - 1, h_bins[BINS - 1], total);
    printf("%s\n", wrong == 0 && total == N ? "PASSED" : "FAILED");
    return wrong ? 1 : 0;
}
