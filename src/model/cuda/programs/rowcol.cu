// Row sums against column sums of one matrix, one thread per row or per column. Summing a
// row, a warp's lanes are a row apart: each load takes 32 sectors. Summing a column, they
// are neighbours: 4 sectors. Same arithmetic, eight times the traffic.
#include <cstdio>
#include <cstdlib>
#define DSIZE 256

__global__ void row_sums(const float *a, float *sums, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n) {
        float sum = 0.0f;
        for (int j = 0; j < n; j++)
            sum += a[row * n + j];
        sums[row] = sum;
    }
}

__global__ void column_sums(const float *a, float *sums, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < n) {
        float sum = 0.0f;
        for (int i = 0; i < n; i++)
            sum += a[i * n + col];
        sums[col] = sum;
    }
}

bool check(const float *sums, int n)
{
    for (int i = 0; i < n; i++)
        if (sums[i] != (float)n) {
            printf("sums[%d] = %f, expected %d\n", i, sums[i], n);
            return false;
        }
    return true;
}

int main()
{
    float *h_a = (float *)malloc(DSIZE * DSIZE * sizeof(float));
    float *h_sums = (float *)malloc(DSIZE * sizeof(float));
    for (int i = 0; i < DSIZE * DSIZE; i++)
        h_a[i] = 1.0f;
    float *d_a, *d_sums;
    cudaMalloc(&d_a, DSIZE * DSIZE * sizeof(float));
    cudaMalloc(&d_sums, DSIZE * sizeof(float));
    cudaMemcpy(d_a, h_a, DSIZE * DSIZE * sizeof(float), cudaMemcpyHostToDevice);
    row_sums<<<DSIZE / 128, 128>>>(d_a, d_sums, DSIZE);
    cudaMemcpy(h_sums, d_sums, DSIZE * sizeof(float), cudaMemcpyDeviceToHost);
    bool rows = check(h_sums, DSIZE);
    printf("row sums %s\n", rows ? "correct" : "wrong");
    cudaMemset(d_sums, 0, DSIZE * sizeof(float));
    column_sums<<<DSIZE / 128, 128>>>(d_a, d_sums, DSIZE);
    cudaMemcpy(h_sums, d_sums, DSIZE * sizeof(float), cudaMemcpyDeviceToHost);
    bool cols = check(h_sums, DSIZE);
    printf("column sums %s\n", cols ? "correct" : "wrong");
    return rows && cols ? 0 : 1;
}
