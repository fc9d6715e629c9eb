// A sum in two steps: each block halves its 256 values in shared memory down to one warp's
// 32, then that warp finishes with shuffles and one atomic per block. Shared memory is read
// and written a warp's 32 consecutive floats at a time: no bank conflicts.
#include <cstdio>
#include <cstdlib>
#define N 8192
#define BLOCK 256

__global__ void reduce(const float *in, float *out)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (int stride = BLOCK / 2; stride >= 32; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t];
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffff, v, offset);
        if (t == 0)
            atomicAdd(out, v);
    }
}

int main()
{
    float *h_in = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        h_in[i] = 1.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, N * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    cudaMemcpy(d_in, h_in, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, sizeof(float));
    reduce<<<N / BLOCK, BLOCK>>>(d_in, d_out);
    float sum;
    cudaMemcpy(&sum, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum = %.1f (expected %d)\n", sum, N);
    printf("%s\n", sum == N ? "PASSED" : "FAILED");
    return sum == N ? 0 : 1;
}
