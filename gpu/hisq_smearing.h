// hisq_smearing.h: the staggered link smearing of reference/staggered/hisq_links.h (fat7, Lepage, Naik, asqtad,
// HISQ) computed on the GPU, equal to the oracle's links bit for bit.
//
// Host-only header (no CUDA types); host fields in and out. Computes exactly the functions of hisq_links.h of the
// same names without "OnGpu":
//   FatLinkOnGpu(U, c)            F_mu(n) = c.one_link U_mu(n) + c.three_staple sum S3 + ... + c.lepage sum SL;
//   NaikLinkOnGpu(U, c_naik)      L_mu(n) = c_naik U_mu(n) U_mu(n + mu) U_mu(n + 2 mu);
//   AsqtadLinksOnGpu(U, u0)       {FatLinkOnGpu(U, asqtad), NaikLinkOnGpu(U, -1/(24 u0^2))};
//   HisqLinksOnGpu(U, epsilon)    {FatLinkOnGpu(W, hisq(epsilon)), NaikLinkOnGpu(W, -(1 + epsilon)/24)},
//                                 W = ProjectU3OnGpu(FatLinkOnGpu(U, fat7)), all on the device;
//   ProjectU3OnGpu(V)             every link's U(3) projection by gpu/u3_projection.h (Jacobi rotations);
//   ProjectU3OnHost(V)            the same on the host's cores (OpenMP): ProjectU3OnGpu's result bit for bit.
// The paths are summed by the oracle's staple recursion (a 5-staple is a staple around a 3-staple, a 7-staple
// around a 5-staple, the Lepage term around a 3-staple along the same hop), one kernel per pass over the
// lattice, with every product and sum in the oracle's order and rounding (hisq_smearing_kernels.cu), so the
// fat and Naik links of given links are the oracle's bit for bit (hisq_smearing_test checks every link). The U(3)
// projection is u3_projection.h's, the same bits as its host build; it differs from the oracle's ProjectU3 (another
// eigen-decomposition) by rounding, within twice the oracle's error bound for each link (u3_projection_test). So
// the HISQ links are the oracle's fat and Naik links of that W bit for bit, and the oracle's HisqLinks to rounding.
//
// Cost: with every coefficient nonzero a fat link is 4 x 6 x (2 + 4 x 3) = 336 staple passes over the lattice (two
// matrix products per site each) and 120 accumulations.
// Device memory: three gauge fields (the links, the fat links, the transfers' staging) and seven fields of one
// matrix per site (at 64^3 x 16: 3 x 2.4 + 7 x 0.6 GB).
//
// Errors, before any device work: as the oracle's (u0 <= 0 or not finite, epsilon not finite: std::invalid_argument
// from the coefficient functions; Naik links on an extent below 4); no usable GPU: std::runtime_error naming why.
// After the projection (on either side): a link that is not finite or whose Jacobi sweeps do not converge,
// std::runtime_error naming the first such link (site and direction).
#pragma once

#include "reference/gauge_field.h"
#include "reference/staggered/hisq_links.h"

namespace lqcd::gpu {

GaugeField<double> FatLinkOnGpu(const GaugeField<double>& u, const SmearingCoefficients& c);
GaugeField<double> NaikLinkOnGpu(const GaugeField<double>& u, double c_naik);
SmearedLinks AsqtadLinksOnGpu(const GaugeField<double>& u, double u0);
SmearedLinks HisqLinksOnGpu(const GaugeField<double>& u, double epsilon_naik);
GaugeField<double> ProjectU3OnGpu(const GaugeField<double>& v);
GaugeField<double> ProjectU3OnHost(const GaugeField<double>& v);

}  // namespace lqcd::gpu
