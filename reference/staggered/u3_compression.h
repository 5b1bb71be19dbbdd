// u3_compression.h: storing a unitary 3x3 link (U(3), not necessarily SU(3)) in 13 or 9 real numbers, the
// forms HISQ's long (Naik) links can take. The CPU statement of the parametrisation a GPU kernel would use.
//
// Why not 12 or 8 (su3_compression.h): those rebuild the third row as conj(a x b), which is right only for
// det U = 1. HISQ builds its Naik links from the U(3)-projected W (hisq_links.h): L_mu(n) = c_naik X with
// X = W_mu(n) W_mu(n + mu) W_mu(n + 2 mu), a product of unitary matrices of arbitrary determinant, so X is in
// U(3) with det X = e^{i theta}, theta != 0 in general (asqtad's Naik links are c_naik times a product of the
// thin SU(3) links, so 12 and 8 numbers serve there). The scale c_naik is a known coefficient: compress
// X = L / c_naik, and multiply by c_naik where the link is used.
//
// Rows of U are a, b, c. For unitary U the adjugate is adj(U) = det(U) U^dag; the third column of adj(U) is
// the cofactor row a x b (unconjugated cross product), and the third column of U^dag is conj(c)^T, so
// a x b = det(U) conj(c), i.e.
//     c = e^{i theta} conj(a x b),   theta = arg det U        (|det U| = 1; theta = 0 gives SU(3)'s rule).
//
// 13 numbers (Compressed13): the 12 of Compress12 (the first two rows), then theta in (-pi, pi].
//   Reconstruct13: a, b as stored, c = e^{i theta} conj(a x b) in T arithmetic.
// 9 numbers (Compressed9): S = e^{-i theta / 3} U is in SU(3) (det S = e^{-i theta} det U = 1, for any branch of
//   theta / 3 as long as the same one multiplies back); the 8 numbers of Compress8(S) (su3_compression.h, with
//   its singular-point handling), then theta. Reconstruct9: e^{i theta / 3} Reconstruct8(the 8 numbers).
// theta = arg det U is computed in double from the input and stored rounded to T; the phase factors are
// std::cos and std::sin in T of the stored theta (or theta / 3). Errors: the 12- or 8-number reconstruction's
// own (docs/error_bounds.md) plus a few units of T's roundoff for the phase (u3_compression_test.cc derives
// the bounds it checks).
// Input checks: std::invalid_argument for non-finite entries or max |U U^dag - 1| > kMaxLinkDeviation (not
// unitary at any precision we store), and for non-finite stored numbers in Reconstruct*; Compress9 throws as
// Compress8 does at its singular point (std::domain_error).
// Aliasing: none; every function returns a new value.
#pragma once

#include "reference/gauge_field.h"
#include "reference/su3_compression.h"
#include "reference/types.h"

namespace lqcd {

template <typename T>
struct Compressed13 {
  Compressed12<T> rows;  // the first two rows, as Compress12 stores them
  T theta;               // arg det U, in (-pi, pi]
};

template <typename T>
struct Compressed9 {
  Compressed8<T> special;  // Compress8 of e^{-i theta / 3} U
  T theta;                 // arg det U, in (-pi, pi]
};

// arg det U in (-pi, pi], computed in double; std::invalid_argument unless U is finite and unitary within
// kMaxLinkDeviation.
template <typename T>
double DeterminantPhase(const ColorMatrix<T>& u);

template <typename T>
Compressed13<T> Compress13(const ColorMatrix<T>& u);
template <typename T>
ColorMatrix<T> Reconstruct13(const Compressed13<T>& c);

template <typename T>
Compressed9<T> Compress9(const ColorMatrix<T>& u);
template <typename T>
ColorMatrix<T> Reconstruct9(const Compressed9<T>& c);

// How long links are stored: all 18 numbers, or the U(3) forms above.
enum class U3Compression { k18, k13, k9 };

// Long links L = scale X with X unitary (e.g. HISQ's Naik links and scale = HisqNaikCoefficient): every X =
// L / scale compressed and reconstructed, times scale; the field a kernel that stores long links in this form
// sees. k18 returns a copy. std::invalid_argument for a scale that is zero or not finite; Compress*/Reconstruct*
// errors are rethrown naming the site and direction.
template <typename T>
GaugeField<T> CompressAndReconstructU3(const GaugeField<T>& long_links, double scale, U3Compression compression);

}  // namespace lqcd
