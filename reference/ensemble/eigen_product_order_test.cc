// eigen_product_order_test.cc: the order in which Eigen sums the three terms of each entry of a 3x3 complex
// product, as this build compiles it. The GPU sweeps (gpu/gpu_heatbath.h) transcribe heatbath.cc's staple
// expressions with these orders to reproduce the CPU's links bit for bit; if an Eigen upgrade or a compiler
// flag changes an order, this test fails and says which.
//   - A plain (column-major) left factor, A * B and A * B^dag: ((t0 + t1) + t2).
//   - An adjoint (row-major) left factor, A^dag * B and A^dag * B^dag: (t0 + (t1 + t2)).
// t_k = A(i, k) B(k, j) with std::complex<double>'s product; an accumulation `sum += product` adds the finished
// product entry to sum.
#include <gtest/gtest.h>

#include <cstring>

#include "reference/random.h"
#include "reference/types.h"

namespace lqcd {
namespace {

using M = ColorMatrix<double>;
using C = Complex<double>;

M Sequential(const M& a, const M& b) {
  M r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = (a(i, 0) * b(0, j) + a(i, 1) * b(1, j)) + a(i, 2) * b(2, j);
  }
  return r;
}

M Tree(const M& a, const M& b) {
  M r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = a(i, 0) * b(0, j) + (a(i, 1) * b(1, j) + a(i, 2) * b(2, j));
  }
  return r;
}

M Adjoint(const M& a) {
  M r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = std::conj(a(j, i));
  }
  return r;
}

bool Same(const M& a, const M& b) { return std::memcmp(a.data(), b.data(), sizeof(M)) == 0; }

// General complex matrices (not SU(3)): every rounding path is exercised.
M Random(RandomStream& s) {
  M m;
  for (int k = 0; k < 9; ++k) m.data()[k] = C(s.Uniform() - 0.5, s.Uniform() - 0.5);
  return m;
}

TEST(EigenProductOrder, PlainLeftFactorSumsSequentiallyAdjointLeftFactorAsATree) {
  RandomStream stream(7, 1);
  int tree_also_sequential = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const M a = Random(stream), b = Random(stream), c = Random(stream), d = Random(stream);
    ASSERT_TRUE(Same(M(a * b), Sequential(a, b))) << "A * B";
    ASSERT_TRUE(Same(M(a * b.adjoint()), Sequential(a, Adjoint(b)))) << "A * B^dag";
    ASSERT_TRUE(Same(M(a.adjoint() * b), Tree(Adjoint(a), b))) << "A^dag * B";
    ASSERT_TRUE(Same(M(a.adjoint() * b.adjoint()), Tree(Adjoint(a), Adjoint(b)))) << "A^dag * B^dag";
    // heatbath.cc's staple accumulations, exactly as written there.
    M upper = d, lower = d;
    upper.noalias() += (a * b.adjoint()) * c.adjoint();
    lower.noalias() += (a.adjoint() * b.adjoint()) * c;
    const M upper_product = Sequential(Sequential(a, Adjoint(b)), Adjoint(c));
    const M lower_product = Sequential(Tree(Adjoint(a), Adjoint(b)), c);
    M upper_expected, lower_expected;
    for (int k = 0; k < 9; ++k) {
      upper_expected.data()[k] = d.data()[k] + upper_product.data()[k];
      lower_expected.data()[k] = d.data()[k] + lower_product.data()[k];
    }
    ASSERT_TRUE(Same(upper, upper_expected)) << "sum += (A B^dag) C^dag";
    ASSERT_TRUE(Same(lower, lower_expected)) << "sum += (A^dag B^dag) C";
    tree_also_sequential += Same(Tree(a, b), Sequential(a, b));
  }
  // The two orders really differ on these inputs, so the checks above tell them apart.
  EXPECT_LT(tree_also_sequential, 50);
}

}  // namespace
}  // namespace lqcd
