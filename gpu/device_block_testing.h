// device_block_testing.h (testonly): what the multi-RHS tests need around a block of right-hand sides: n device
// spinor fields of one subset and precision (each its own padding, so the kernels' per-field strides are
// exercised), pointers to a block's fields, and a bit-for-bit comparison that counts the sites where two results
// differ.
#pragma once

#include <memory>
#include <vector>

#include "gpu/device_spinor_field.h"
#include "gpu/field_views.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu::testing {

// n device fields on `subset` in `precision`, the j-th padded by j * pad_step, poisoned (every bit set: NaN in
// every precision) until the test uploads or a kernel writes them.
struct DeviceBlock {
  std::vector<std::unique_ptr<DeviceSpinorField>> fields;

  DeviceBlock(const Lattice& lattice, Subset subset, Precision precision, int n, int pad_step = 0) {
    for (int j = 0; j < n; ++j) {
      fields.push_back(std::make_unique<DeviceSpinorField>(lattice, subset, precision, pad_step * j));
      fields.back()->FillBytes(0xff);
    }
  }
  std::vector<SpinorView> Views() {
    std::vector<SpinorView> v;
    for (auto& f : fields) v.push_back(f->View());
    return v;
  }
  std::vector<ConstSpinorView> ConstViews() const {
    std::vector<ConstSpinorView> v;
    for (const auto& f : fields) v.push_back(static_cast<const DeviceSpinorField&>(*f).View());
    return v;
  }
};

// Pointers to the fields of a block, as the block operators and solvers take them.
template <typename Field>
std::vector<Field*> Pointers(std::vector<Field>& fields) {
  std::vector<Field*> p;
  for (Field& f : fields) p.push_back(&f);
  return p;
}
template <typename Field>
std::vector<const Field*> ConstPointers(const std::vector<Field>& fields) {
  std::vector<const Field*> p;
  for (const Field& f : fields) p.push_back(&f);
  return p;
}

// The number of sites where a and b differ in any component (0: bit for bit equal).
inline int DifferingSites(const SpinorField<double>& a, const SpinorField<double>& b) {
  int differing = 0;
  for (int i = 0; i < a.sites(); ++i) differing += a[i] == b[i] ? 0 : 1;
  return differing;
}

}  // namespace lqcd::gpu::testing
