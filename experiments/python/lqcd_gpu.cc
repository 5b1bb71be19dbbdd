// lqcd_gpu.cc: the submodule `lqcd.gpu`: the GPU fields, operators and solvers (gpu/) from Python. docs/python.md.
//
// Exports (Python names):
//   available(), unavailable_reason(), device()   is there a usable GPU; why not; one line naming it
//   copy_bandwidth(buffer_bytes=2^28, repetitions=20)   the measured copy roofline (gpu/copy_bandwidth.h), GB/s
//   DeviceLinks(u, precision="double", link_reals=18, temporal_gauge_fixed=False)
//                                the links on the device (gpu/device_gauge_field.h, with its checks); .download()
//                                gives them back as the kernels see them (12/8 reals rebuilt)
//   DeviceSpinor(psi, precision="double", basis="degrand-rossi"), DeviceSpinor.zeros(lattice, subset, precision)
//                                a spinor field on the device; .download(basis) copies it back (exact: every
//                                stored value is a double)
//   DeviceClover(clover, precision="double")   T and T^{-1} of a CloverField on the device (gpu/gpu_clover.h)
//   hopping(links, psi, boundary, dagger), hopping_parity(links, psi_p, boundary, dagger), wilson(links, psi, params, dagger),
//   schur(links, psi_p, params, dagger), wilson_clover(links, clover, psi, dagger),
//   clover_schur(links, clover, psi_p, form, dagger)
//                                the operators of the CPU functions of the same names, device fields in and a
//                                new device field out, all in one precision (the links' and the clover term's)
//   time_dslash(links, psi_p, dagger=False, repetitions=50)   one Dslash launch timed by CUDA events, with its
//                                flops and byte model (gpu/wilson_dslash.h WilsonDslashCost)
//   Solver(u)                    the solver factory's GPU solver (experiments/dirac_solver.h): .solve(b, params,
//                                spec, ...), .solve_block(bs, params, spec, ...) and .point_propagator(params, ...),
//                                host fields in and out, the links uploaded once per layout and kept on the device
//
// Memory: a device object owns its device memory until it is garbage collected or .release()d; using a
// released object raises ValueError. Operators allocate their output (and the Schur temporary) per call: fine
// for lessons, not for a solver loop (use Solver, whose solves run entirely in C++).
// Basis: the device holds spinors in the UKQCD basis (gpu/gpu_backend.h); DeviceSpinor converts from and to the
// host field's basis, so results downloaded in a basis equal the CPU operators' in that basis, and the
// operators ignore params.basis.
// Threads: every device call releases the GIL; CUDA work goes to the default stream of the current device.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/fermion_action.h"
#include "experiments/python/module_common.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/event_timer.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/gpu_heatbath.h"
#include "gpu/wilson_dslash.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/observables/propagator.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/precision.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::python {
namespace {

gpu::Precision ParsePrecision(const std::string& s) {
  if (s == "double") return gpu::Precision::kDouble;
  if (s == "single") return gpu::Precision::kSingle;
  if (s == "half") return gpu::Precision::kHalf;
  Fail("precision must be 'double', 'single' or 'half', got '" + s + "'");
}

gpu::Reconstruct ParseLinkReals(int reals) {
  if (reals == 18) return gpu::Reconstruct::k18;
  if (reals == 12) return gpu::Reconstruct::k12;
  if (reals == 8) return gpu::Reconstruct::k8;
  Fail("link_reals must be 18, 12 or 8, got " + std::to_string(reals));
}

// Every entry point checks this first: a clear RuntimeError instead of a CUDA failure deep inside.
void RequireDevice(const char* where) {
  const std::string reason = gpu::NoDeviceReason();
  if (!reason.empty()) throw std::runtime_error(std::string(where) + ": no usable GPU (" + reason + ")");
}

// ---- device objects ----

class DeviceLinks {
 public:
  DeviceLinks(const GaugeField<double>& u, gpu::Precision precision, gpu::Reconstruct reconstruct, bool fixed)
      : field_(std::make_shared<const gpu::DeviceGaugeField>(u, gpu::GaugeLayout{precision, reconstruct, fixed, 0})) {}

  const gpu::DeviceGaugeField& field(const char* where) const { return *shared(where); }
  const std::shared_ptr<const gpu::DeviceGaugeField>& shared(const char* where) const {
    if (!field_) Fail(std::string(where) + ": the DeviceLinks were released");
    return field_;
  }
  void release() { field_.reset(); }
  bool released() const { return !field_; }

 private:
  std::shared_ptr<const gpu::DeviceGaugeField> field_;
};

using AnySpinor =
    std::variant<gpu::GpuSpinorField<double>, gpu::GpuSpinorField<float>, gpu::GpuSpinorField<solvers::Half>>;

class DeviceSpinor {
 public:
  DeviceSpinor(const Lattice& lattice, Subset subset, gpu::Precision precision) {
    switch (precision) {
      case gpu::Precision::kDouble: field_ = std::make_unique<AnySpinor>(std::in_place_index<0>, lattice, subset); break;
      case gpu::Precision::kSingle: field_ = std::make_unique<AnySpinor>(std::in_place_index<1>, lattice, subset); break;
      case gpu::Precision::kHalf: field_ = std::make_unique<AnySpinor>(std::in_place_index<2>, lattice, subset); break;
    }
  }

  AnySpinor& field(const char* where) {
    if (!field_) Fail(std::string(where) + ": the DeviceSpinor was released");
    return *field_;
  }
  gpu::DeviceSpinorField& device(const char* where) {
    return std::visit([](auto& f) -> gpu::DeviceSpinorField& { return f.device(); }, field(where));
  }
  void release() { field_.reset(); }
  bool released() const { return !field_; }

 private:
  std::unique_ptr<AnySpinor> field_;
};

class DeviceClover {
 public:
  DeviceClover(const CloverField<double>& host, gpu::Precision precision) {
    switch (precision) {
      case gpu::Precision::kDouble: term_ = gpu::UploadClover<double>(host); break;
      case gpu::Precision::kSingle: term_ = gpu::UploadClover<float>(host); break;
      case gpu::Precision::kHalf: term_ = gpu::UploadClover<solvers::Half>(host); break;
    }
    precision_ = precision;
  }
  const gpu::GpuCloverTerm& term(const char* where) const {
    if (!term_.field) Fail(std::string(where) + ": the DeviceClover was released");
    return term_;
  }
  gpu::Precision precision() const { return precision_; }
  void release() { term_.field.reset(); }
  bool released() const { return !term_.field; }

 private:
  gpu::GpuCloverTerm term_;
  gpu::Precision precision_ = gpu::Precision::kDouble;
};

// The precision tag of a spinor variant's alternative.
template <typename F>
using TagOf = typename std::decay_t<F>::PrecisionTag;

// Throws ValueError unless the links (and the input) share one precision and lattice.
void RequireMatch(const gpu::DeviceGaugeField& links, const gpu::DeviceSpinorField& in, const char* where) {
  if (links.layout().precision != in.precision()) {
    Fail(std::string(where) + ": the links are " + gpu::ToString(links.layout().precision) + ", the field " +
         gpu::ToString(in.precision()) + " (operators run in one precision: upload both in it)");
  }
  if (links.lattice() != in.lattice()) {
    Fail(std::string(where) + ": the field lives on " + in.lattice().ToString() + ", the links on " +
         links.lattice().ToString());
  }
}

// Applies `op` (built by make_op<P>()) to `in` into a new DeviceSpinor on `out_subset`.
template <typename MakeOp>
DeviceSpinor ApplyOperator(DeviceSpinor& in, Subset out_subset, bool dagger, MakeOp&& make_op) {
  AnySpinor& source = in.field("operator input");
  DeviceSpinor out(in.device("operator input").lattice(), out_subset, in.device("operator input").precision());
  AnySpinor& target = out.field("operator output");
  NoGil([&] {
    std::visit(
        [&](auto& x) {
          using P = TagOf<decltype(x)>;
          auto& y = std::get<gpu::GpuSpinorField<P>>(target);
          const auto op = make_op(static_cast<P*>(nullptr));
          if (dagger) {
            op.ApplyDagger(y, x);
          } else {
            op.Apply(y, x);
          }
        },
        source);
    return 0;
  });
  return out;
}

// A FermionAction (experiments/fermion_action.h) from the Python parameter objects.
experiments::FermionAction ActionOf(const WilsonParams& p) {
  experiments::FermionAction a;
  a.kind = experiments::FermionKind::kWilson;
  a.mass = p.mass;
  a.basis = p.basis;
  a.boundary = p.boundary;
  return a;
}
experiments::FermionAction ActionOf(const CloverParams& p, CloverSchurForm form) {
  experiments::FermionAction a;
  a.kind = experiments::FermionKind::kClover;
  a.mass = p.mass;
  a.c_sw = p.c_sw;
  a.basis = p.basis;
  a.boundary = p.boundary;
  a.schur_form = form;
  a.clover_trace = p.trace;
  return a;
}

// The solver factory's GPU solver on one configuration. Keeps u alive (Python keep_alive on the wrapper).
class GpuSolver {
 public:
  explicit GpuSolver(const GaugeField<double>& u)
      : u_(u),
        solver_(experiments::MakeDiracSolver(
            experiments::ChooseBackend(experiments::BackendKind::kGpu, experiments::VerifyOn::kDevice), u)) {}

  // The action of `params` (WilsonParams or CloverParams) and the spec, validated before any device work.
  std::pair<experiments::FermionAction, solvers::SolverSpec> Prepare(const py::object& params, const std::string& form,
                                                                     const std::string& spec_text, double tolerance,
                                                                     int max_iterations, bool record_history) const {
    experiments::FermionAction action;
    if (py::isinstance<WilsonParams>(params)) {
      action = ActionOf(params.cast<WilsonParams>());
    } else if (py::isinstance<CloverParams>(params)) {
      action = ActionOf(params.cast<CloverParams>(), ParseCloverForm(form));
    } else {
      Fail("Solver: params must be a WilsonParams or a CloverParams");
    }
    action.Validate();
    return {action, ParseSpec(spec_text, tolerance, max_iterations, record_history,
                              experiments::CapabilitiesOf(experiments::BackendKind::kGpu), action.clover())};
  }

  experiments::DiracSolver& solver() { return *solver_; }
  const GaugeField<double>& links() const { return u_; }

 private:
  const GaugeField<double>& u_;
  std::unique_ptr<experiments::DiracSolver> solver_;
};

py::tuple OutcomeTuple(SpinorField<double> x, const experiments::SolveOutcome& o) {
  return py::make_tuple(std::move(x), o.result, o.true_residual);
}

}  // namespace

std::unique_ptr<SweepEngine> MakeGpuSweeps() {
  RequireDevice("generate_quenched(backend='gpu')");
  return std::make_unique<gpu::GpuSweeps>();
}

void BindGpu(py::module_& m) {
  py::module_ g = m.def_submodule(
      "gpu", "The GPU (gpu/): device fields, the Wilson and clover operators, timing, and the solver factory's GPU "
             "solver. Every entry point raises RuntimeError where no usable GPU exists (see available()).");

  g.def("available", [] { return gpu::NoDeviceReason().empty(); }, "Whether a usable CUDA device exists.");
  g.def("unavailable_reason", &gpu::NoDeviceReason, "Why no GPU is usable ('' when one is).");
  g.def("device",
        [] {
          RequireDevice("device");
          return gpu::Describe(gpu::CurrentDeviceInfo());
        },
        "One line: the GPU's name, compute capability, SMs, memory, theoretical bandwidth, driver and runtime.");
  g.def("copy_bandwidth",
        [](std::size_t buffer_bytes, int repetitions) {
          RequireDevice("copy_bandwidth");
          if (buffer_bytes < 16 || repetitions < 1) Fail("copy_bandwidth: need buffer_bytes >= 16 and repetitions >= 1");
          const gpu::CopyBandwidth b = NoGil([&] { return gpu::MeasureCopyBandwidth(buffer_bytes, repetitions); });
          const gpu::DeviceInfo info = gpu::CurrentDeviceInfo();
          py::dict d;
          d["bytes_per_copy"] = b.bytes_per_copy;
          d["kernel_gbs"] = b.kernel_gbs;
          d["memcpy_gbs"] = b.memcpy_gbs;
          d["theoretical_gbs"] = info.theoretical_bandwidth_gbs();
          return d;
        },
        "The bandwidth roofline: the best of `repetitions` device-to-device copies of `buffer_bytes` (read + "
        "write counted) by the copy kernel and by cudaMemcpy, in GB/s (1e9 B/s), with the theoretical DRAM "
        "bandwidth. Use a buffer far larger than the L2 cache.",
        py::arg("buffer_bytes") = std::size_t{1} << 28, py::arg("repetitions") = 20);

  py::class_<DeviceLinks>(g, "DeviceLinks",
                          "Links on the device in one precision with 18, 12 or 8 reals per link "
                          "(gpu/device_gauge_field.h: 12/8 need SU(3) links, half needs |reals| <= 1, "
                          "temporal_gauge_fixed needs links in temporal gauge; ValueError otherwise).")
      .def(py::init([](const GaugeField<double>& u, const std::string& precision, int link_reals, bool fixed) {
             RequireDevice("DeviceLinks");
             const gpu::Precision p = ParsePrecision(precision);
             const gpu::Reconstruct r = ParseLinkReals(link_reals);
             return NoGil([&] { return DeviceLinks(u, p, r, fixed); });
           }),
           py::arg("u"), py::arg("precision") = "double", py::arg("link_reals") = 18,
           py::arg("temporal_gauge_fixed") = false)
      .def_property_readonly("lattice", [](const DeviceLinks& l) { return l.field("lattice").lattice(); })
      .def_property_readonly("precision",
                             [](const DeviceLinks& l) { return gpu::ToString(l.field("precision").layout().precision); })
      .def_property_readonly(
          "link_reals", [](const DeviceLinks& l) { return gpu::RealsPerLink(l.field("link_reals").layout().reconstruct); })
      .def_property_readonly("temporal_gauge_fixed",
                             [](const DeviceLinks& l) { return l.field("temporal_gauge_fixed").layout().temporal_gauge_fixed; })
      .def_property_readonly("bytes", [](const DeviceLinks& l) { return l.field("bytes").bytes(); })
      .def_property_readonly("released", &DeviceLinks::released)
      .def("download", [](const DeviceLinks& l) { return NoGil([&] { return l.field("download").Download(); }); },
           "The links as the kernels see them (12/8 reals rebuilt in the arithmetic precision; exact unit t-links "
           "where gauge fixed), as a GaugeField.")
      .def("release", &DeviceLinks::release, "Frees the device memory now; later use raises ValueError.");

  py::class_<DeviceSpinor>(g, "DeviceSpinor",
                           "A spinor field on the device (full or one parity) in double, single or half precision "
                           "(gpu/device_spinor_field.h); stored in the UKQCD basis.")
      .def(py::init([](const SpinorField<double>& psi, const std::string& precision, const std::string& basis) {
             RequireDevice("DeviceSpinor");
             const gpu::Precision p = ParsePrecision(precision);
             const GammaBasis b = ParseBasis(basis);
             return NoGil([&] {
               DeviceSpinor d(psi.lattice(), psi.subset(), p);
               std::visit([&](auto& f) { f.Upload(psi, b); }, d.field("DeviceSpinor"));
               return d;
             });
           }),
           "Uploads psi (given in `basis`), rounding to `precision` (half: 16-bit fixed point with a norm per site).",
           py::arg("psi"), py::arg("precision") = "double", py::arg("basis") = "degrand-rossi")
      .def_static("zeros",
                  [](const Lattice& lattice, const std::string& subset, const std::string& precision) {
                    RequireDevice("DeviceSpinor.zeros");
                    const Subset s = ParseSubset(subset);
                    const gpu::Precision p = ParsePrecision(precision);
                    return NoGil([&] { return DeviceSpinor(lattice, s, p); });
                  },
                  py::arg("lattice"), py::arg("subset") = "full", py::arg("precision") = "double")
      .def("download",
           [](DeviceSpinor& d, const std::string& basis) {
             const GammaBasis b = ParseBasis(basis);
             return NoGil([&] { return std::visit([&](auto& f) { return f.Download(b); }, d.field("download")); });
           },
           "A host SpinorField in `basis` (exact: every stored value is representable in double).",
           py::arg("basis") = "degrand-rossi")
      .def_property_readonly("lattice", [](DeviceSpinor& d) { return d.device("lattice").lattice(); })
      .def_property_readonly("subset",
                             [](DeviceSpinor& d) {
                               const Subset s = d.device("subset").subset();
                               return std::string(s == Subset::kFull ? "full" : s == Subset::kEven ? "even" : "odd");
                             })
      .def_property_readonly("precision", [](DeviceSpinor& d) { return gpu::ToString(d.device("precision").precision()); })
      .def_property_readonly("bytes", [](DeviceSpinor& d) { return d.device("bytes").bytes(); })
      .def_property_readonly("released", &DeviceSpinor::released)
      .def("release", &DeviceSpinor::release, "Frees the device memory now; later use raises ValueError.");

  py::class_<DeviceClover>(g, "DeviceClover",
                           "T(n) and T(n)^{-1} of a CloverField on the device in one precision (gpu/gpu_clover.h).")
      .def(py::init([](const CloverField<double>& clover, const std::string& precision) {
             RequireDevice("DeviceClover");
             const gpu::Precision p = ParsePrecision(precision);
             return NoGil([&] { return DeviceClover(clover, p); });
           }),
           py::arg("clover"), py::arg("precision") = "double")
      .def_property_readonly("precision", [](const DeviceClover& c) { return gpu::ToString(c.precision()); })
      .def_property_readonly("released", &DeviceClover::released)
      .def("release", &DeviceClover::release, "Frees the device memory now; later use raises ValueError.");

  // ---- operators: device fields in, a new device field out ----

  g.def("hopping_parity",
        [](const DeviceLinks& links, DeviceSpinor& in, const std::string& boundary, bool dagger) {
          const gpu::DeviceGaugeField& u = links.field("hopping_parity");
          const gpu::DeviceSpinorField& x = in.device("hopping_parity");
          RequireMatch(u, x, "hopping_parity");
          const FermionBoundary bc = ParseBoundary(boundary);
          DeviceSpinor out(x.lattice(), OtherSubset(x.subset(), "hopping_parity"), x.precision());
          gpu::DeviceSpinorField& y = out.device("hopping_parity");
          NoGil([&] {
            gpu::ApplyWilsonDslash(y.View(), u, x.View(), ToDagger(dagger), bc);
            return 0;
          });
          return out;
        },
        "D_{p',p} psi_p (or its dagger) on the device: one Dslash launch, from the parity of psi onto the other.",
        py::arg("links"), py::arg("psi"), py::arg("boundary") = "PPPA", py::arg("dagger") = false);
  g.def("hopping",
        [](const DeviceLinks& links, DeviceSpinor& in, const std::string& boundary, bool dagger) {
          const gpu::DeviceGaugeField& u = links.field("hopping");
          const gpu::DeviceSpinorField& x = in.device("hopping");
          RequireMatch(u, x, "hopping");
          if (x.subset() != Subset::kFull) Fail("hopping: input must be a full-lattice field (hopping_parity takes one parity)");
          const FermionBoundary bc = ParseBoundary(boundary);
          DeviceSpinor out(x.lattice(), Subset::kFull, x.precision());
          gpu::DeviceSpinorField& y = out.device("hopping");
          NoGil([&] {
            for (Parity p : {Parity::kEven, Parity::kOdd}) {
              const Parity from = p == Parity::kEven ? Parity::kOdd : Parity::kEven;
              gpu::ApplyWilsonDslash(y.View(p), u, x.View(from), ToDagger(dagger), bc);
            }
            return 0;
          });
          return out;
        },
        "D psi (or D^dag psi) on the full lattice: one Dslash launch per output parity.", py::arg("links"),
        py::arg("psi"), py::arg("boundary") = "PPPA", py::arg("dagger") = false);
  g.def("wilson",
        [](const DeviceLinks& links, DeviceSpinor& in, const WilsonParams& p, bool dagger) {
          const auto& u = links.shared("wilson");
          RequireMatch(*u, in.device("wilson"), "wilson");
          return ApplyOperator(in, Subset::kFull, dagger,
                               [&](auto* tag) { return gpu::GpuWilson<std::remove_pointer_t<decltype(tag)>>(u, p); });
        },
        "M psi = (4 + m) psi - D psi / 2 (or M^dag psi) on the full lattice (gpu/gpu_backend.h GpuWilson).",
        py::arg("links"), py::arg("psi"), py::arg("params"), py::arg("dagger") = false);
  g.def("schur",
        [](const DeviceLinks& links, DeviceSpinor& in, const WilsonParams& p, bool dagger) {
          const auto& u = links.shared("schur");
          RequireMatch(*u, in.device("schur"), "schur");
          const Subset s = in.device("schur").subset();
          const Parity parity = ParityOfSubset(s, "schur");
          return ApplyOperator(in, s, dagger, [&](auto* tag) {
            return gpu::GpuWilsonSchur<std::remove_pointer_t<decltype(tag)>>(u, p, parity);
          });
        },
        "M_pp psi_p = psi_p - kappa^2 D_{p,p'} D_{p',p} psi_p (or its dagger) on the parity of psi: two Dslash "
        "launches (gpu/schur_operator.h).",
        py::arg("links"), py::arg("psi"), py::arg("params"), py::arg("dagger") = false);
  g.def("wilson_clover",
        [](const DeviceLinks& links, const DeviceClover& clover, DeviceSpinor& in, bool dagger) {
          const auto& u = links.shared("wilson_clover");
          RequireMatch(*u, in.device("wilson_clover"), "wilson_clover");
          const gpu::GpuCloverTerm& t = clover.term("wilson_clover");
          if (clover.precision() != u->layout().precision) Fail("wilson_clover: the clover term's precision differs from the links'");
          return ApplyOperator(in, Subset::kFull, dagger, [&](auto* tag) {
            return gpu::GpuClover<std::remove_pointer_t<decltype(tag)>>(u, t);
          });
        },
        "M psi = T psi - D psi / 2 (or M^dag psi) with the clover term T (gpu/gpu_clover.h GpuClover).",
        py::arg("links"), py::arg("clover"), py::arg("psi"), py::arg("dagger") = false);
  g.def("clover_schur",
        [](const DeviceLinks& links, const DeviceClover& clover, DeviceSpinor& in, const std::string& form,
           bool dagger) {
          const auto& u = links.shared("clover_schur");
          RequireMatch(*u, in.device("clover_schur"), "clover_schur");
          const gpu::GpuCloverTerm& t = clover.term("clover_schur");
          if (clover.precision() != u->layout().precision) Fail("clover_schur: the clover term's precision differs from the links'");
          const CloverSchurForm f = ParseCloverForm(form);
          const Subset s = in.device("clover_schur").subset();
          const Parity parity = ParityOfSubset(s, "clover_schur");
          return ApplyOperator(in, s, dagger, [&](auto* tag) {
            return gpu::GpuCloverSchur<std::remove_pointer_t<decltype(tag)>>(u, t, f, parity);
          });
        },
        "The clover Schur operator on the parity of psi: 'complement' T_pp - D T^{-1} D / 4 or 'unit-diagonal' "
        "1 - T_pp^{-1} D T^{-1} D / 4 (gpu/gpu_clover.h GpuCloverSchur).",
        py::arg("links"), py::arg("clover"), py::arg("psi"), py::arg("form") = "complement",
        py::arg("dagger") = false);

  g.def("time_dslash",
        [](const DeviceLinks& links, DeviceSpinor& in, bool dagger, int repetitions) {
          if (repetitions < 1) Fail("time_dslash: repetitions must be >= 1");
          const gpu::DeviceGaugeField& u = links.field("time_dslash");
          const gpu::DeviceSpinorField& x = in.device("time_dslash");
          RequireMatch(u, x, "time_dslash");
          DeviceSpinor out(x.lattice(), OtherSubset(x.subset(), "time_dslash"), x.precision());
          gpu::DeviceSpinorField& y = out.device("time_dslash");
          const FermionBoundary bc = FermionBoundary::AntiperiodicTime();
          const double median_ms = NoGil([&] {
            return gpu::MedianMilliseconds(
                repetitions, [&] { gpu::ApplyWilsonDslash(y.View(), u, x.View(), ToDagger(dagger), bc); });
          });
          gpu::DslashVariant v;
          v.precision = u.layout().precision;
          v.reconstruct = u.layout().reconstruct;
          v.temporal_gauge_fixed = u.layout().temporal_gauge_fixed;
          v.dagger = ToDagger(dagger);
          const gpu::KernelCost cost = gpu::WilsonDslashCost(v, u.lattice().extents());
          py::dict d;
          d["variant"] = v.Name();
          d["microseconds"] = 1e3 * median_ms;
          d["flops"] = cost.flops;
          d["bytes"] = cost.bytes;
          d["minimum_bytes"] = cost.minimum_bytes;
          d["gflops"] = cost.flops / (median_ms * 1e6);
          d["gbs"] = cost.bytes / (median_ms * 1e6);
          return d;
        },
        "One Dslash launch D_{p',p} psi_p (antiperiodic in t), after a warm-up call, timed `repetitions` times "
        "between CUDA events: the median time, the kernel's flops (1320 per site) and bytes under "
        "gpu/wilson_dslash.h's model, and the rates (GFLOPS, GB/s).",
        py::arg("links"), py::arg("psi"), py::arg("dagger") = false, py::arg("repetitions") = 50);

  // ---- the solver factory's GPU solver ----

  py::class_<GpuSolver>(g, "Solver",
                        "The solver factory's GPU solver for one configuration (experiments/dirac_solver.h): host "
                        "fields in and out, every solver spec of the GPU backend, the links uploaded once per "
                        "layout and kept on the device for later solves. Keeps u alive.")
      .def(py::init([](const GaugeField<double>& u) {
             RequireDevice("Solver");
             return std::make_unique<GpuSolver>(u);
           }),
           py::arg("u"), py::keep_alive<1, 2>())
      .def("solve",
           [](GpuSolver& s, const SpinorField<double>& b, const py::object& params, const std::string& spec_text,
              double tolerance, int max_iterations, std::optional<SpinorField<double>> x0, bool record_history,
              const std::string& form) {
             const auto prepared = s.Prepare(params, form, spec_text, tolerance, max_iterations, record_history);
             const experiments::FermionAction& action = prepared.first;
             const solvers::SolverSpec& spec = prepared.second;
             RequireFullOn(b, s.links().lattice(), "Solver.solve: b");
             SpinorField<double> x = x0 ? std::move(*x0) : SpinorField<double>(s.links().lattice(), Subset::kFull);
             RequireFullOn(x, s.links().lattice(), "Solver.solve: x0");
             const experiments::SolveOutcome o = NoGil([&] { return s.solver().Solve(action, spec, b, x); });
             return OutcomeTuple(std::move(x), o);
           },
           "(x, SolveResult, residual): x = M^{-1} b for the Wilson (WilsonParams) or clover (CloverParams, "
           "even-odd in `form`) matrix by a solver spec on the GPU, even-odd preconditioned; tolerance on "
           "|b - M x| / |b|; residual = |b - M x| / |b| of the returned x recomputed in double on the device with "
           "18-real links. '/gf' specs solve on the temporal-gauge-fixed links and transform back.",
           py::arg("b"), py::arg("params"), py::arg("spec") = "bicgstab", py::arg("tolerance") = 1e-10,
           py::arg("max_iterations") = 10000, py::arg("x0") = py::none(), py::arg("record_history") = false,
           py::arg("form") = "complement")
      .def("solve_block",
           [](GpuSolver& s, const std::vector<SpinorField<double>>& bs, const WilsonParams& params,
              const std::string& spec_text, double tolerance, int max_iterations) {
             if (bs.empty()) Fail("Solver.solve_block: no sources");
             const auto prepared = s.Prepare(py::cast(params), "complement", spec_text, tolerance, max_iterations, false);
             const experiments::FermionAction& action = prepared.first;
             const solvers::SolverSpec& spec = prepared.second;
             std::vector<SpinorField<double>> xs;
             std::vector<const SpinorField<double>*> b_ptrs;
             std::vector<SpinorField<double>*> x_ptrs;
             for (const SpinorField<double>& b : bs) {
               RequireFullOn(b, s.links().lattice(), "Solver.solve_block: every b");
               xs.emplace_back(s.links().lattice(), Subset::kFull);
             }
             for (std::size_t k = 0; k < bs.size(); ++k) {
               b_ptrs.push_back(&bs[k]);
               x_ptrs.push_back(&xs[k]);
             }
             const std::vector<experiments::SolveOutcome> o =
                 NoGil([&] { return s.solver().SolveBlock(action, spec, b_ptrs, x_ptrs); });
             py::list out;
             for (std::size_t k = 0; k < bs.size(); ++k) out.append(OutcomeTuple(std::move(xs[k]), o[k]));
             return out;
           },
           "[(x, SolveResult, residual), ...]: the Wilson systems M x_k = b_k as one lockstep block (the links "
           "read once per site for every unconverged system; each stops on its own criterion), zero initial "
           "guesses.",
           py::arg("bs"), py::arg("params"), py::arg("spec") = "bicgstab", py::arg("tolerance") = 1e-10,
           py::arg("max_iterations") = 10000)
      .def("point_propagator",
           [](GpuSolver& s, const py::object& params, int source_site, const std::string& spec_text, double tolerance,
              int max_iterations, const std::string& form, py::object progress) {
             const auto prepared = s.Prepare(params, form, spec_text, tolerance, max_iterations, false);
             const Lattice& lattice = s.links().lattice();
             if (source_site < 0 || source_site >= lattice.volume()) {
               throw std::out_of_range("Solver.point_propagator: source site " + std::to_string(source_site) +
                                       " off the lattice");
             }
             ProgressLines lines(std::move(progress));
             return NoGil([&] {
               return SolvePointPropagator(
                   lattice, source_site, [&](const SpinorField<double>& eta, SpinorField<double>& x) {
                     return s.solver().Solve(prepared.first, prepared.second, eta, x).result;
                   }, lines);
             });
           },
           "The point-source propagator M^{-1} (a PointPropagator) from 12 solves on the GPU, Wilson or clover as "
           "in solve; RuntimeError if one does not converge; progress as for lqcd.point_propagator.",
           py::arg("params"), py::arg("source_site") = 0, py::arg("spec") = "bicgstab", py::arg("tolerance") = 1e-10,
           py::arg("max_iterations") = 10000, py::arg("form") = "complement", py::arg("progress") = py::none());
}

}  // namespace lqcd::python
