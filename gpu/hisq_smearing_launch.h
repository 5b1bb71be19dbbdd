// hisq_smearing_launch.h: the plain-struct interface between the host side of the GPU link smearing
// (hisq_smearing.cc, which has checked every argument) and its kernels (hisq_smearing_kernels.cu). Internal to
// gpu/; no CUDA or Eigen types.
//
// Storage (device memory, double). A colour matrix is 18 doubles r = 2 k + (0: re, 1: im), element (i, j) = row i,
// column j at k = i + 3 j (Eigen's column-major order). Sites are lexicographic, x + Lx (y + Ly (z + Lz t))
// (reference/lattice.h), V of them. Three layouts:
//   host order   (site, mu, r): double (4 site + mu) 18 + r, a host GaugeField<double> byte for byte (transfers);
//   gauge field  (mu, r, site): double (18 mu + r) V + site, what the kernels read and write;
//   site field   (r, site):     double r V + site, one matrix per site (the recursion's partial sums).
// The kernels' layouts put a warp's 32 sites next to each other for every number they load; the host order
// does not (144 bytes between a matrix's sites), so it is only transposed, once per transfer.
// Every launch is queued on the default stream and returns at once.
#pragma once

namespace lqcd::gpu {

struct SmearingLattice {
  int extents[4] = {0, 0, 0, 0};
  int volume = 0;
};

// Gauge field <-> host order.
void LaunchToGaugeLayout(double* gauge, const double* host_order, const SmearingLattice& lattice);
void LaunchToHostOrder(double* host_order, const double* gauge, const SmearingLattice& lattice);

// out(n) (+)= T(n, a) x(n + a) T(n + mu, a)^dag with T(n, a) the hop link of u (U_a(n) forward, U_|a|(n - |a|)^dag
// backward): FatLink's StapleAround (reference/staggered/hisq_links.cc). u is a gauge field, x and out are site
// fields; out != x.
void LaunchStaple(double* out, const double* x, const double* u, int mu, int a_direction, bool a_forward, bool add,
                  const SmearingLattice& lattice);

// sum(n) += term(n) for every site.
void LaunchAccumulate(double* sum, const double* term, const SmearingLattice& lattice);

// thin(n) = U_mu(n) (a site field from a gauge field).
void LaunchCopyDirection(double* thin, const double* u, int mu, const SmearingLattice& lattice);

// The path sums' combination into link (n, mu) of the gauge field `fat`:
//   c[0] thin + c[1] s3 + c[2] s5 + c[3] s7 + c[4] lepage   (left to right).
void LaunchCombine(double* fat, int mu, const double (&c)[5], const double* thin, const double* s3, const double* s5,
                   const double* s7, const double* lepage, const SmearingLattice& lattice);

// naik(n, mu) = c U_mu(n) U_mu(n + mu) U_mu(n + 2 mu) for every site and mu, evaluated as the oracle's
// expression is, ((c U_mu(n)) U_mu(n + mu)) U_mu(n + 2 mu) (Eigen applies a scalar factor of a product to its
// leftmost matrix). u and naik are gauge fields.
void LaunchNaik(double* naik, const double* u, double c, const SmearingLattice& lattice);

// w(n, mu) = u3::ProjectU3(v(n, mu)) for every link (gpu/u3_projection.h), v and w gauge fields (w may be v). A
// link whose projection fails keeps its w, and *first_failure (device memory) becomes the smaller of itself and
// (4 n + mu) << 2 | status for the failing link of the lowest host-order index (set it to ~0 first).
void LaunchProjectU3(double* w, const double* v, unsigned long long* first_failure, const SmearingLattice& lattice);

}  // namespace lqcd::gpu
