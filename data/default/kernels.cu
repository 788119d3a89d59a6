// Small CUDA test: kernels, device helpers, templates, shared/constant memory.
namespace ops {
struct Add { __device__ float operator()(float a, float b) const { return a + b; } };
template <typename T> __device__ __forceinline__ T sq(T x) { return x * x; }
__device__ int counter;
__constant__ float coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
}  // namespace ops

enum Mode { MODE_A, MODE_B = 4 };
typedef unsigned int u32;
using f32 = float;

template <typename T, int N>
struct Arr { T v[N]; __device__ T get(int i) const { return v[i]; } };

__device__ float helper(float x, Mode m) {
  if (m == MODE_A) return ops::sq(x);
  return ops::sq<double>(x) > 1.0 ? x : -x;
}

__host__ __device__ int both(int a) { return a + 1; }

int host_only(int a) { return a * 2; }

__device__ void unused_device() {}

template <typename T, typename Op>
__global__ void __launch_bounds__(256) binary(const T *a, const T *b, T *out, u32 n) {
  __shared__ T tile[256];
  extern __shared__ char dyn[];
  u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  Op op;
  if (i < n) {
    tile[threadIdx.x] = op(a[i], b[i]);
    __syncthreads();
    out[i] = tile[threadIdx.x] + ops::coeffs[i % 4];
    atomicAdd(&ops::counter, 1);
  }
}

template __global__ void binary<float, ops::Add>(const float *, const float *, float *, u32);

__global__ void fill(f32 *p, int n, Arr<float, 4> a) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    p[i] = helper(a.get(i & 3), MODE_B) + (float)both(i);
  }
  int k = 0;
  while (k < 3) { ++k; }
  do { k--; } while (k > 0);
  switch (n) { case 1: k = 2; break; default: k = 3; }
  auto lam = [=] __device__ (int z) { return z + k; };
  p[0] += lam(1);
}

void launch(float *p, int n) {
  fill<<<dim3(n / 256), 256>>>(p, n, Arr<float, 4>{});
  binary<float, ops::Add><<<1, 256, 0, 0>>>(p, p, p, n);
}
