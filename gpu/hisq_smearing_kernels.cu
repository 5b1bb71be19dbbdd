// hisq_smearing_kernels.cu: the kernels of the GPU link smearing (hisq_smearing.h), one thread per site (the
// transposes: one per number).
//
// Each kernel is the transcription of one loop of reference/staggered/hisq_links.cc with the operations in the
// order the oracle's Eigen expressions evaluate them on the host (hisq_smearing_test requires every link to be
// equal bit for bit):
//   - a colour-matrix product C = A B: C(i, j) = (A(i,0) B(0,j) + A(i,1) B(1,j)) + A(i,2) B(2,j), left to right;
//     A B C^dag is (A B) C^dag, and c (A B C) with a real c is ((c A) B) C;
//   - a complex product: re = a.re b.re - a.im b.im, im = a.re b.im + a.im b.re, each product rounded;
//   - a real scalar times a matrix: each real part and imaginary part multiplied; sums of terms left to right.
// Every operation is an explicitly rounded intrinsic (__dmul_rn, __dadd_rn, __dsub_rn), never contracted into a
// fused multiply-add, as the host build (x86-64 baseline, no FMA) computes them.
// Products of three matrices are formed a row or a column at a time (row i of A B needs only row i of A), which
// keeps fewer matrices in a thread's registers and changes no operation.
#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/cuda_check.h"
#include "gpu/hisq_smearing_launch.h"
#include "gpu/u3_projection.h"

namespace lqcd::gpu {
namespace {

constexpr int kThreads = 128;

struct Complex {
  double re, im;
};

__device__ __forceinline__ Complex Times(Complex a, Complex b) {
  return {__dsub_rn(__dmul_rn(a.re, b.re), __dmul_rn(a.im, b.im)), __dadd_rn(__dmul_rn(a.re, b.im), __dmul_rn(a.im, b.re))};
}

__device__ __forceinline__ Complex Plus(Complex a, Complex b) { return {__dadd_rn(a.re, b.re), __dadd_rn(a.im, b.im)}; }

__device__ __forceinline__ Complex Conjugate(Complex a) { return {a.re, -a.im}; }

// A colour matrix in registers: m[k], element (i, j) at k = i + 3 j.
struct Matrix {
  Complex m[9];
};

// A row of a matrix: r[j] = element (i, j).
struct Row {
  Complex r[3];
};

// Matrix (18 numbers) of a field in the kernels' layouts: number q at base[q * stride + index].
__device__ __forceinline__ Matrix Load(const double* base, long stride, long index) {
  Matrix a;
#pragma unroll
  for (int k = 0; k < 9; ++k) a.m[k] = {base[(2 * k) * stride + index], base[(2 * k + 1) * stride + index]};
  return a;
}

// Row i of the matrix at (base, stride, index), or of its adjoint.
template <bool kAdjoint>
__device__ __forceinline__ Row LoadRow(const double* base, long stride, long index, int i) {
  Row row;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const int k = kAdjoint ? j + 3 * i : i + 3 * j;  // adjoint: element (i, j) = conj of (j, i)
    const Complex v{base[(2 * k) * stride + index], base[(2 * k + 1) * stride + index]};
    row.r[j] = kAdjoint ? Conjugate(v) : v;
  }
  return row;
}

// Row i of A times B: (a(i,0) B(0,j) + a(i,1) B(1,j)) + a(i,2) B(2,j).
__device__ __forceinline__ Row RowTimes(const Row& a, const Matrix& b) {
  Row c;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    Complex sum = Times(a.r[0], b.m[3 * j]);
    sum = Plus(sum, Times(a.r[1], b.m[1 + 3 * j]));
    sum = Plus(sum, Times(a.r[2], b.m[2 + 3 * j]));
    c.r[j] = sum;
  }
  return c;
}

// A lexicographic site with its coordinates, and the index one hop away (periodic). The coordinate of a
// direction known only at run time is picked by comparisons, not by indexing an array (which would put the
// array in local memory).
struct Site {
  int index;
  int coords[4];
};

__device__ __forceinline__ Site SiteOf(int index, const SmearingLattice& l) {
  Site s{index, {0, 0, 0, 0}};
#pragma unroll
  for (int mu = 0; mu < 4; ++mu) {
    s.coords[mu] = index % l.extents[mu];
    index /= l.extents[mu];
  }
  return s;
}

template <class T>
__device__ __forceinline__ T Pick(const T (&v)[4], int d) {
  return d == 0 ? v[0] : d == 1 ? v[1] : d == 2 ? v[2] : v[3];
}

// The index of the neighbour of site `index` in direction d (forward or backward), given the site's coordinate
// in d.
__device__ __forceinline__ int Step(int index, int coordinate, int d, bool forward, const SmearingLattice& l) {
  const int extent = Pick(l.extents, d);
  const int stride = d == 0 ? 1 : d == 1 ? l.extents[0] : d == 2 ? l.extents[0] * l.extents[1]
                                                              : l.extents[0] * l.extents[1] * l.extents[2];
  if (forward) return coordinate + 1 == extent ? index - (extent - 1) * stride : index + stride;
  return coordinate == 0 ? index + (extent - 1) * stride : index - stride;
}

__device__ __forceinline__ int Step(const Site& s, int d, bool forward, const SmearingLattice& l) {
  return Step(s.index, Pick(s.coords, d), d, forward, l);
}

// The numbers of direction mu of a gauge field: a site field's layout with the same stride V.
__host__ __device__ __forceinline__ const double* Direction(const double* gauge, int mu, int volume) {
  return gauge + 18 * static_cast<long>(mu) * volume;
}

// The hop link T(s, h) = U_h(s) (forward) or U_h(s - h)^dag (backward), as (base, site, adjoint).
struct HopLinkAt {
  const double* base;
  long site;
  bool adjoint;
};

// The hop link from the site `index` whose coordinate in `direction` is `coordinate`.
__device__ __forceinline__ HopLinkAt HopLink(const double* u, int index, int coordinate, int direction, bool forward,
                                             const SmearingLattice& l) {
  const double* base = Direction(u, direction, l.volume);
  if (forward) return {base, index, false};
  return {base, Step(index, coordinate, direction, false, l), true};
}

__device__ __forceinline__ Row HopLinkRow(const HopLinkAt& t, long stride, int i) {
  return t.adjoint ? LoadRow<true>(t.base, stride, t.site, i) : LoadRow<false>(t.base, stride, t.site, i);
}

// Two phases, so that at most two matrices are live at a time: t = T(n, a) x(n + a) row by row (x is dead after
// it), then each column j of t T(n + mu, a)^dag from row j of T(n + mu, a); each number of the staple is formed
// as in the oracle's (A B) C^dag.
template <bool kAdd>
__global__ void StapleKernel(double* out, const double* x, const double* u, int mu, int a_direction, bool a_forward,
                             SmearingLattice l) {
  const int site = blockIdx.x * blockDim.x + threadIdx.x;
  if (site >= l.volume) return;
  const long stride = l.volume;
  const Site here = SiteOf(site, l);
  const int a_coordinate = Pick(here.coords, a_direction);  // also that of n + mu (mu != a)
  Row t[3];
  {
    const HopLinkAt first = HopLink(u, site, a_coordinate, a_direction, a_forward, l);
    const Matrix middle = Load(x, stride, Step(here, a_direction, a_forward, l));
#pragma unroll
    for (int i = 0; i < 3; ++i) t[i] = RowTimes(HopLinkRow(first, stride, i), middle);
  }
  const HopLinkAt last = HopLink(u, Step(here, mu, true, l), a_coordinate, a_direction, a_forward, l);
#pragma unroll 1
  for (int j = 0; j < 3; ++j) {
    const Row row = HopLinkRow(last, stride, j);  // column j of T(n + mu, a)^dag, conjugated
#pragma unroll
    for (int i = 0; i < 3; ++i) {
      Complex sum = Times(t[i].r[0], Conjugate(row.r[0]));
      sum = Plus(sum, Times(t[i].r[1], Conjugate(row.r[1])));
      sum = Plus(sum, Times(t[i].r[2], Conjugate(row.r[2])));
      const long re = (2 * (i + 3 * j)) * stride + site, im = re + stride;
      if constexpr (kAdd) {
        out[re] = __dadd_rn(out[re], sum.re);
        out[im] = __dadd_rn(out[im], sum.im);
      } else {
        out[re] = sum.re;
        out[im] = sum.im;
      }
    }
  }
}

__global__ void AccumulateKernel(double* sum, const double* term, long doubles) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < doubles) sum[i] = __dadd_rn(sum[i], term[i]);
}

// One thread per number of the host order: reads there (consecutive), writes into the gauge layout.
__global__ void ToGaugeLayoutKernel(double* gauge, const double* host_order, int volume) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= 72 * static_cast<long>(volume)) return;
  const long site = e / 72;
  const int number = static_cast<int>(e - 72 * site);  // 18 mu + r
  gauge[number * static_cast<long>(volume) + site] = host_order[e];
}

__global__ void ToHostOrderKernel(double* host_order, const double* gauge, int volume) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= 72 * static_cast<long>(volume)) return;
  const long site = e / 72;
  const int number = static_cast<int>(e - 72 * site);
  host_order[e] = gauge[number * static_cast<long>(volume) + site];
}

struct CombineCoefficients {
  double c[5];
};

__global__ void CombineKernel(double* fat, int mu, CombineCoefficients k, const double* thin, const double* s3,
                              const double* s5, const double* s7, const double* lepage, int volume) {
  const int site = blockIdx.x * blockDim.x + threadIdx.x;
  if (site >= volume) return;
  const double* terms[5] = {thin, s3, s5, s7, lepage};
  double* target = fat + 18 * static_cast<long>(mu) * volume;
#pragma unroll
  for (int q = 0; q < 18; ++q) {
    const long at = q * static_cast<long>(volume) + site;
    double value = __dmul_rn(k.c[0], terms[0][at]);
#pragma unroll
    for (int t = 1; t < 5; ++t) value = __dadd_rn(value, __dmul_rn(k.c[t], terms[t][at]));
    target[at] = value;
  }
}

__global__ void NaikKernel(double* naik, const double* u, double c, SmearingLattice l) {
  const int site = blockIdx.x * blockDim.x + threadIdx.x;
  if (site >= l.volume) return;
  const long stride = l.volume;
  const Site here = SiteOf(site, l);
#pragma unroll 1
  for (int mu = 0; mu < 4; ++mu) {
    const double* links = Direction(u, mu, l.volume);
    const int coordinate = Pick(here.coords, mu);
    const int extent = Pick(l.extents, mu);
    const int n1 = Step(site, coordinate, mu, true, l);
    const int n2 = Step(n1, coordinate + 1 == extent ? 0 : coordinate + 1, mu, true, l);
    const Matrix second = Load(links, stride, n1);
    const Matrix third = Load(links, stride, n2);
    double* target = naik + 18 * static_cast<long>(mu) * l.volume;
#pragma unroll 1
    for (int i = 0; i < 3; ++i) {
      Row first = LoadRow<false>(links, stride, site, i);
#pragma unroll
      for (int j = 0; j < 3; ++j) first.r[j] = {__dmul_rn(c, first.r[j].re), __dmul_rn(c, first.r[j].im)};
      const Row path = RowTimes(RowTimes(first, second), third);
#pragma unroll
      for (int j = 0; j < 3; ++j) {
        const long re = (2 * (i + 3 * j)) * stride + site;
        target[re] = path.r[j].re;
        target[re + stride] = path.r[j].im;
      }
    }
  }
}

// w = the U(3) projection of v, link by link (u3_projection.h; w may be v: a thread reads its whole link before it
// writes). A link that fails leaves its w alone and offers (4 site + mu) << 2 | status to *first_failure
// (atomicMin: the lowest host-order link index wins, whatever the order the threads run in).
__global__ void ProjectU3Kernel(double* w, const double* v, unsigned long long* first_failure, SmearingLattice l) {
  const long link = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (link >= 4L * l.volume) return;
  const int mu = static_cast<int>(link / l.volume);
  const long site = link % l.volume;
  const double* in = Direction(v, mu, l.volume);
  double matrix[18], projected[18];
#pragma unroll
  for (int r = 0; r < 18; ++r) matrix[r] = in[r * static_cast<long>(l.volume) + site];
  const u3::Status status = u3::ProjectU3(matrix, projected);
  if (status != u3::Status::kOk) {
    const unsigned long long host_index = 4ull * static_cast<unsigned long long>(site) + mu;
    atomicMin(first_failure, host_index << 2 | static_cast<unsigned long long>(status));
    return;
  }
  double* out = w + 18 * static_cast<long>(mu) * l.volume;
#pragma unroll
  for (int r = 0; r < 18; ++r) out[r * static_cast<long>(l.volume) + site] = projected[r];
}

int BlocksFor(long items) { return static_cast<int>((items + kThreads - 1) / kThreads); }

void Check(const char* what) { CheckCuda(cudaGetLastError(), what, __FILE__, __LINE__); }

}  // namespace

void LaunchToGaugeLayout(double* gauge, const double* host_order, const SmearingLattice& lattice) {
  ToGaugeLayoutKernel<<<BlocksFor(72 * static_cast<long>(lattice.volume)), kThreads>>>(gauge, host_order,
                                                                                     lattice.volume);
  Check("launch of the smearing's transpose to the gauge layout");
}

void LaunchToHostOrder(double* host_order, const double* gauge, const SmearingLattice& lattice) {
  ToHostOrderKernel<<<BlocksFor(72 * static_cast<long>(lattice.volume)), kThreads>>>(host_order, gauge,
                                                                                   lattice.volume);
  Check("launch of the smearing's transpose to the host order");
}

void LaunchStaple(double* out, const double* x, const double* u, int mu, int a_direction, bool a_forward, bool add,
                  const SmearingLattice& lattice) {
  if (add) {
    StapleKernel<true><<<BlocksFor(lattice.volume), kThreads>>>(out, x, u, mu, a_direction, a_forward, lattice);
  } else {
    StapleKernel<false><<<BlocksFor(lattice.volume), kThreads>>>(out, x, u, mu, a_direction, a_forward, lattice);
  }
  Check("launch of the smearing staple kernel");
}

void LaunchAccumulate(double* sum, const double* term, const SmearingLattice& lattice) {
  const long doubles = 18 * static_cast<long>(lattice.volume);
  AccumulateKernel<<<BlocksFor(doubles), kThreads>>>(sum, term, doubles);
  Check("launch of the smearing accumulation kernel");
}

void LaunchCopyDirection(double* thin, const double* u, int mu, const SmearingLattice& lattice) {
  const std::size_t bytes = 18 * sizeof(double) * static_cast<std::size_t>(lattice.volume);
  LQCD_CUDA_CHECK(cudaMemcpyAsync(thin, Direction(u, mu, lattice.volume), bytes, cudaMemcpyDeviceToDevice));
}

void LaunchCombine(double* fat, int mu, const double (&c)[5], const double* thin, const double* s3, const double* s5,
                   const double* s7, const double* lepage, const SmearingLattice& lattice) {
  const CombineCoefficients k{{c[0], c[1], c[2], c[3], c[4]}};
  CombineKernel<<<BlocksFor(lattice.volume), kThreads>>>(fat, mu, k, thin, s3, s5, s7, lepage, lattice.volume);
  Check("launch of the smearing combination kernel");
}

void LaunchNaik(double* naik, const double* u, double c, const SmearingLattice& lattice) {
  NaikKernel<<<BlocksFor(lattice.volume), kThreads>>>(naik, u, c, lattice);
  Check("launch of the Naik kernel");
}

void LaunchProjectU3(double* w, const double* v, unsigned long long* first_failure, const SmearingLattice& lattice) {
  ProjectU3Kernel<<<BlocksFor(4 * static_cast<long>(lattice.volume)), kThreads>>>(w, v, first_failure, lattice);
  Check("launch of the U(3) projection kernel");
}

}  // namespace lqcd::gpu
