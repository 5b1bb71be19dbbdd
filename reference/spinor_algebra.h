// spinor_algebra.h: the vector operations of the CPU oracle on spinor fields: Norm2, Dot, Axpy, Xpay, Scale,
// Difference, RelativeDeviation, MaxAbsDifference, written once for every site field in field_algebra.h
// (conventions, accumulation in double, aliasing: there).
#pragma once

#include "reference/field_algebra.h"
#include "reference/spinor_field.h"

namespace lqcd {

template <typename T>
struct IsSiteField<SpinorField<T>> : std::true_type {};

}  // namespace lqcd
