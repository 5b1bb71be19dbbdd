// hisq_smearing.h: the staggered link smearing of reference/staggered/hisq_links.h (fat7, Lepage, Naik, asqtad,
// HISQ) computed on the GPU, equal to the oracle's links bit for bit.
//
// Host-only header (no CUDA types); host fields in and out. Computes exactly the functions of hisq_links.h of the
// same names without "OnGpu":
//   FatLinkOnGpu(U, c)            F_mu(n) = c.one_link U_mu(n) + c.three_staple sum S3 + ... + c.lepage sum SL;
//   NaikLinkOnGpu(U, c_naik)      L_mu(n) = c_naik U_mu(n) U_mu(n + mu) U_mu(n + 2 mu);
//   AsqtadLinksOnGpu(U, u0)       {FatLinkOnGpu(U, asqtad), NaikLinkOnGpu(U, -1/(24 u0^2))};
//   HisqLinksOnGpu(U, epsilon)    {FatLinkOnGpu(W, hisq(epsilon)), NaikLinkOnGpu(W, -(1 + epsilon)/24)},
//                                 W = ProjectU3(FatLinkOnGpu(U, fat7)).
// The paths are summed by the oracle's staple recursion (a 5-staple is a staple around a 3-staple, a 7-staple
// around a 5-staple, the Lepage term around a 3-staple along the same hop), one kernel per pass over the
// lattice, with every product and sum in the oracle's order and rounding (hisq_smearing_kernels.cu), so the
// links are the oracle's bit for bit (hisq_smearing_test checks every link). The U(3) projection between the
// two HISQ levels is the oracle's own ProjectU3 on the host (every core): the level-1 fat links go down and W
// comes back up, two transfers of the field.
//
// Cost: with every coefficient nonzero a fat link is 4 x 6 x (2 + 4 x 3) = 336 staple passes over the lattice (two
// matrix products per site each) and 120 accumulations.
// Device memory: three gauge fields (the links, the fat links, the transfers' staging) and seven fields of one
// matrix per site (at 64^3 x 16: 3 x 2.4 + 7 x 0.6 GB).
//
// Errors, before any device work: as the oracle's (u0 <= 0 or not finite, epsilon not finite: std::invalid_argument
// from the coefficient functions; Naik links on an extent below 4); no usable GPU: std::runtime_error naming why.
#pragma once

#include "reference/gauge_field.h"
#include "reference/staggered/hisq_links.h"

namespace lqcd::gpu {

GaugeField<double> FatLinkOnGpu(const GaugeField<double>& u, const SmearingCoefficients& c);
GaugeField<double> NaikLinkOnGpu(const GaugeField<double>& u, double c_naik);
SmearedLinks AsqtadLinksOnGpu(const GaugeField<double>& u, double u0);
SmearedLinks HisqLinksOnGpu(const GaugeField<double>& u, double epsilon_naik);

}  // namespace lqcd::gpu
