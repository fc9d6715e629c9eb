// A vector add that checks its result: each thread adds one pair of floats, and consecutive
// threads touch consecutive floats, so every warp's load and store is 4 sectors.
#include <cstdio>
#include <cstdlib>
#define N 4096
#define BLOCK 256

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    size_t bytes = N * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
    for (int i = 0; i < N; i++) {
        h_a[i] = i;
        h_b[i] = 2 * i;
    }
    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMalloc(&d_c, bytes);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    vadd<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(d_a, d_b, d_c, N);
    cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        if (h_c[i] != 3.0f * i) wrong++;
    printf("c[1] = %.1f, c[%d] = %.1f\n", h_c[1], N - 1, h_c[N - 1]);
    printf("%s: %d of %d wrong\n", wrong ? "FAILED" : "PASSED", wrong, N);
    cudaFree(d_a); cudaFree(d_b); cudaFree(d_c);
    free(h_a); free(h_b); free(h_c);
    return wrong ? 1 : 0;
}
