// Sparse matrix times vector in CSR, one thread per row: each thread walks its own row's
// values, so a warp's lanes read 12 bytes apart (3 values a row) and every load of val and
// col takes 12 sectors for 4 sectors of data. The gather x[col[j]] reads neighbours.
#include <cstdio>
#include <cstdlib>
#define ROWS 1024

__global__ void spmv_csr(const int *row_ptr, const int *col, const float *val,
                         const float *x, float *y, int rows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; j++)
            sum += val[j] * x[col[j]];
        y[row] = sum;
    }
}

int main()
{
    // A periodic tridiagonal matrix: 4 on the diagonal, 1 beside it, wrapping at the ends.
    int nnz = 3 * ROWS;
    int *h_ptr = (int *)malloc((ROWS + 1) * sizeof(int));
    int *h_col = (int *)malloc(nnz * sizeof(int));
    float *h_val = (float *)malloc(nnz * sizeof(float));
    float *h_x = (float *)malloc(ROWS * sizeof(float));
    float *h_y = (float *)malloc(ROWS * sizeof(float));
    for (int r = 0; r < ROWS; r++) {
        h_ptr[r] = 3 * r;
        h_col[3 * r] = (r + ROWS - 1) % ROWS;
        h_col[3 * r + 1] = r;
        h_col[3 * r + 2] = (r + 1) % ROWS;
        h_val[3 * r] = 1.0f;
        h_val[3 * r + 1] = 4.0f;
        h_val[3 * r + 2] = 1.0f;
        h_x[r] = 1.0f;
    }
    h_ptr[ROWS] = nnz;
    int *d_ptr, *d_col;
    float *d_val, *d_x, *d_y;
    cudaMalloc(&d_ptr, (ROWS + 1) * sizeof(int));
    cudaMalloc(&d_col, nnz * sizeof(int));
    cudaMalloc(&d_val, nnz * sizeof(float));
    cudaMalloc(&d_x, ROWS * sizeof(float));
    cudaMalloc(&d_y, ROWS * sizeof(float));
    cudaMemcpy(d_ptr, h_ptr, (ROWS + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_col, h_col, nnz * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_val, h_val, nnz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, ROWS * sizeof(float), cudaMemcpyHostToDevice);
    spmv_csr<<<ROWS / 128, 128>>>(d_ptr, d_col, d_val, d_x, d_y, ROWS);
    cudaMemcpy(h_y, d_y, ROWS * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < ROWS; r++)
        if (h_y[r] != 6.0f) wrong++;
    printf("y[0] = %.1f, y[%d] = %.1f\n", h_y[0], ROWS - 1, h_y[ROWS - 1]);
    printf("%s\n", wrong ? "FAILED" : "PASSED");
    return wrong ? 1 : 0;
}
