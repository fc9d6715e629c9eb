// The tiled transpose, after NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++": a
// 32 x 32 tile read by rows and written by columns through shared memory, padded to 33
// floats a row so that a column's 32 floats fall in 32 banks. It checks its own result.
#include <cstdio>
#include <cstdlib>
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define WIDTH 64

__global__ void transposePadded(float *odata, const float *idata)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    int width = gridDim.x * TILE_DIM;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main()
{
    int n = WIDTH * WIDTH;
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        h_in[i] = i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    dim3 grid(WIDTH / TILE_DIM, WIDTH / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
    transposePadded<<<grid, block>>>(d_out, d_in);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < WIDTH; r++)
        for (int c = 0; c < WIDTH; c++)
            if (h_out[r * WIDTH + c] != h_in[c * WIDTH + r]) wrong++;
    printf("out[1] = %.0f, out[%d] = %.0f\n", h_out[1], WIDTH, h_out[WIDTH]);
    printf("%s: %d of %d wrong\n", wrong ? "FAILED" : "PASSED", wrong, n);
    return wrong ? 1 : 0;
}
