// lqcd_module.cc: the Python module `lqcd` over the CPU oracle (reference/); docs/python.md. The submodule
// lqcd.gpu is lqcd_gpu.cc.
//
// Exports (Python names; every field is double precision):
//   Lattice(lx, ly, lz, lt)      extents, volume, half_volume, index(x, y, z, t), coords(site), parity(site),
//                                full_index(parity, cb), forward(site, mu), backward(site, mu)
//   GaugeField(lattice[, links]) unit links, or a copy of `links`; .links is a numpy VIEW of the C++ links,
//                                shape (V, 4, 3, 3) complex128, [site][mu][row][col], site lexicographic
//                                (x fastest). GaugeField.random(lattice, seed) (Haar "hot start"),
//                                GaugeField.near_unit(lattice, seed, epsilon).
//   SpinorField(lattice, subset="full"[, data])
//                                zero, or a copy of `data`; .data is a numpy VIEW, shape (sites, 4, 3)
//                                complex128, [site][spin][colour]; sites = V ("full", lexicographic index) or
//                                V/2 ("even"/"odd", checkerboard index site // 2). .extract(parity) and
//                                .insert(part) copy between a full field and one parity; .site_index(i);
//                                SpinorField.gaussian(lattice, seed, subset), SpinorField.point_source(...).
//   plaquette(u) -> Plaquette(total, spatial, temporal, plane 4x4), link_trace(u)
//   gamma(mu, basis), gamma5(basis), degrand_rossi_to_ukqcd()        4x4 complex128 arrays (copies)
//   WilsonParams(mass=0 | kappa=..., basis="degrand-rossi", boundary="PPPA")
//   hopping(u, psi, basis, boundary, dagger)        D psi (full lattice)
//   hopping_parity(u, psi_p, basis, boundary, dagger)  D_{p',p} psi_p (onto the other parity)
//   wilson(u, psi, params, dagger)                  M psi = (4 + m) psi - D psi / 2
//   wilson_normal(u, psi, params)                   M^dag M psi
//   schur(u, psi_p, params, dagger)                 M_pp psi_p = psi_p - kappa^2 D_{p,p'} D_{p',p} psi_p
//   schur_normal(u, psi_p, params)                  M_pp^dag M_pp psi_p
//   prepare_schur_source(u, b, params, parity), reconstruct_solution(u, x_p, b, params)
//   DirectSolver(u, params, parity=None, dagger=False).solve(b)   SparseLU ground truth (sparse_wilson.h)
//   solve(u, b, params, spec="bicgstab", tolerance=1e-10, max_iterations=10000, x0=None) -> (x, SolveResult)
//                                a SolverSpec (solvers/solver_spec.h) run on the CPU backend
//                                (solvers/cpu_spec_solver.h); "/gf" specs solve on the temporal-gauge-fixed
//                                links and transform back. SolveResult mirrors solvers/solve_result.h.
//   read_gauge(path, unitarity_tolerance=0, verify_checksums=True) -> (GaugeField, GaugeFileInfo)
//                                any format reference/io knows (NERSC, LIME, MILC), detected from the bytes
//   write_gauge(path, u, format="nersc", precision="double", byte_order="big-endian", two_rows=False)
//                                NERSC (either precision, 2 or 3 rows), LIME, MILC (float32 only)
//   generate_quenched(lattice, beta, seed, sweeps, hot_start=False, overrelaxation_steps=4, ..., progress=None)
//                                -> (GaugeField, plaquette history) (reference/ensemble/quenched_generator.h)
//   pion_correlator(u, params, source_site=0, spec="bicgstab", tolerance=1e-10, progress=None)
//                                C(t) from the 12 point-source solves (reference/observables/propagator.h)
// Progress: the long calls (the generator, point_propagator, pion_correlator) take progress=None or a
// callable, given one line per sweep or solve as it ends (ProgressLines), the GIL taken only for the call.
// The operators are those of reference/wilson.h, with its conventions (docs/conventions.md). The GPU half,
// lqcd.gpu, is lqcd_gpu.cc.
//
// Memory: the views alias the C++ storage and keep their field alive (the array's base is the Python
// field object). Eigen stores each 3x3 link and each 4x3 spinor column-major, so the views are strided
// (not C-contiguous); np.ascontiguousarray makes a copy. Arrays handed IN (constructors) must be
// complex128 of the exact shape, either C-contiguous or with the views' own strides; anything else raises
// ValueError naming the problem (no silent conversion).
// Errors: C++ exceptions become Python exceptions with the C++ message (std::invalid_argument -> ValueError,
// std::out_of_range -> IndexError, std::runtime_error and GaugeFileError -> RuntimeError).
// Threads: every operator application, generator and solve releases the GIL; the fields it reads must not
// be modified from another Python thread meanwhile.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/clover.h"
#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/ensemble/quenched_generator.h"
#include "reference/gauge_field.h"
#include "reference/gauge_transform.h"
#include "reference/io/gauge_io.h"
#include "reference/io/lime_io.h"
#include "reference/io/milc_io.h"
#include "reference/io/nersc_io.h"
#include "reference/lattice.h"
#include "reference/observables/propagator.h"
#include "reference/plaquette.h"
#include "reference/sparse_wilson.h"
#include "reference/spinor_field.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"
#include "solvers/cpu_spec_solver.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"
#include "experiments/python/module_common.h"

namespace lqcd::python {
namespace {

using C = std::complex<double>;
constexpr py::ssize_t kC = sizeof(C);

// The views rely on there being no padding between the fixed-size Eigen matrices in a std::vector.
static_assert(sizeof(ColorMatrix<double>) == 9 * sizeof(C), "3x3 link must be 9 packed complex numbers");
static_assert(sizeof(SiteSpinor<double>) == 12 * sizeof(C), "site spinor must be 12 packed complex numbers");
static_assert(!ColorMatrix<double>::IsRowMajor && !SiteSpinor<double>::IsRowMajor, "views assume column-major");

// Strides (bytes) of the views: element (row, col) of a column-major matrix sits at row + rows * col.
std::vector<py::ssize_t> LinkStrides() { return {4 * 9 * kC, 9 * kC, kC, 3 * kC}; }
std::vector<py::ssize_t> SpinorStrides() { return {12 * kC, kC, 4 * kC}; }

// Checks dtype, shape and layout of an array handed in; returns whether it has the views' (Eigen) strides
// rather than C order.
bool CheckArray(const py::array& a, const std::vector<py::ssize_t>& shape, const std::vector<py::ssize_t>& native,
                const std::string& what) {
  if (!a.dtype().is(py::dtype::of<C>())) {
    Fail(what + ": dtype must be complex128, got " + std::string(py::str(a.dtype())));
  }
  std::vector<py::ssize_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape) {
    auto text = [](const std::vector<py::ssize_t>& s) {
      std::string t = "(";
      for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
      return t + (s.size() == 1 ? ",)" : ")");
    };
    Fail(what + ": shape must be " + text(shape) + ", got " + text(got));
  }
  if (a.flags() & py::array::c_style) return false;
  std::vector<py::ssize_t> strides(a.strides(), a.strides() + a.ndim());
  if (strides == native) return true;
  Fail(what + ": array must be contiguous (C order, or the strides of a field's own view); "
              "pass np.ascontiguousarray(a)");
}

// Copies a checked array (C order or native strides) into packed column-major matrices of R x Cc.
template <int R, int Cc, typename Matrix>
void CopyIn(const py::array& a, bool native, std::vector<Matrix>& out) {
  const C* src = static_cast<const C*>(a.data());
  if (native) {
    std::memcpy(static_cast<void*>(out.data()), src, out.size() * sizeof(Matrix));
    return;
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    for (int r = 0; r < R; ++r) {
      for (int c = 0; c < Cc; ++c) out[k](r, c) = src[(k * R + r) * Cc + c];
    }
  }
}

py::array SpinMatrixArray(const SpinMatrix& m) {
  py::array_t<C> out({4, 4});
  auto w = out.mutable_unchecked<2>();
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) w(i, j) = m(i, j);
  }
  return std::move(out);
}

// A 12 x 12 spin-colour matrix (index 3 spin + colour) as a new numpy array.
py::array SpinColorMatrixArray(const SpinColorMatrix<double>& m) {
  py::array_t<C> out({12, 12});
  auto w = out.mutable_unchecked<2>();
  for (int i = 0; i < 12; ++i) {
    for (int j = 0; j < 12; ++j) w(i, j) = m(i, j);
  }
  return std::move(out);
}

CloverTrace ParseCloverTrace(const std::string& s) {
  if (s == "traceless") return CloverTrace::kTraceless;
  if (s == "with-trace") return CloverTrace::kWithTrace;
  Fail("clover trace must be 'traceless' or 'with-trace', got '" + s + "'");
}

// Throws ValueError unless the clover field was built on u's lattice.
void RequireCloverOn(const CloverField<double>& clover, const GaugeField<double>& u, const char* where) {
  if (clover.lattice() != u.lattice()) {
    Fail(std::string(where) + ": the clover field lives on " + clover.lattice().ToString() + ", the links on " +
         u.lattice().ToString());
  }
}

// The output field of an operator: full, or the parity `subset`.
SpinorField<double> Like(const SpinorField<double>& in, Subset subset) { return SpinorField<double>(in.lattice(), subset); }



// x = M^{-1} b by `spec` on the CPU backend; x holds the initial guess on entry. For a "/gf" spec the solve
// runs on the temporal-gauge-fixed links with source and guess transformed, and x is transformed back (as
// experiments/dirac_solver.cc does); the result's true residual is then that of the fixed system.
solvers::SolveResult SpecSolve(const solvers::SolverSpec& spec, const GaugeField<double>& u, const WilsonParams& p,
                               SpinorField<double>& x, const SpinorField<double>& b) {
  if (!spec.temporal_gauge) return solvers::SolveWithSpecOnCpu(spec, u, p, x, b);
  const TemporalGauge<double> fixed = TemporalGaugeFix(u);
  GaugeTransformation<double> inverse(u.lattice());
  for (int site = 0; site < u.lattice().volume(); ++site) inverse[site] = fixed.transformation[site].adjoint();
  const SpinorField<double> b_fixed = ApplyGaugeTransformation(fixed.transformation, b);
  SpinorField<double> x_fixed = ApplyGaugeTransformation(fixed.transformation, x);
  solvers::SolveResult r = solvers::SolveWithSpecOnCpu(spec, fixed.field, p, x_fixed, b_fixed);
  x = ApplyGaugeTransformation(inverse, x_fixed);
  return r;
}

FloatPrecision ParseFloatPrecision(const std::string& s) {
  if (s == "double") return FloatPrecision::kDouble;
  if (s == "single") return FloatPrecision::kSingle;
  Fail("precision must be 'double' or 'single', got '" + s + "'");
}

ByteOrder ParseByteOrder(const std::string& s) {
  if (s == "big-endian") return ByteOrder::kBigEndian;
  if (s == "little-endian") return ByteOrder::kLittleEndian;
  Fail("byte_order must be 'big-endian' or 'little-endian', got '" + s + "'");
}

std::string FormatName(GaugeFileFormat f) {
  switch (f) {
    case GaugeFileFormat::kNersc: return "nersc";
    case GaugeFileFormat::kLime: return "lime";
    case GaugeFileFormat::kMilc: return "milc";
  }
  return "unknown";
}

}  // namespace
}  // namespace lqcd::python

using namespace lqcd;          // NOLINT: the module body names the oracle's types throughout
using namespace lqcd::python;  // NOLINT

PYBIND11_MODULE(lqcd, m) {
  m.doc() = "lqcd: the CPU oracle of the lattice QCD library (reference/) from Python. See docs/python.md.";

  py::class_<Lattice>(m, "Lattice", "Periodic 4-d lattice; extents (Lx, Ly, Lz, Lt), each even and >= 2.")
      .def(py::init<int, int, int, int>(), py::arg("lx"), py::arg("ly"), py::arg("lz"), py::arg("lt"))
      .def_property_readonly("extents", [](const Lattice& l) { return l.extents(); })
      .def_property_readonly("volume", &Lattice::volume)
      .def_property_readonly("half_volume", &Lattice::half_volume)
      .def("index", [](const Lattice& l, int x, int y, int z, int t) { return l.Index({x, y, z, t}); },
           "Lexicographic site index x + Lx (y + Ly (z + Lz t)); IndexError off the lattice.", py::arg("x"),
           py::arg("y"), py::arg("z"), py::arg("t"))
      .def("coords",
           [](const Lattice& l, int site) {
             if (site < 0 || site >= l.volume()) throw std::out_of_range("site " + std::to_string(site) + " off the lattice");
             return l.Coords(site);
           },
           "(x, y, z, t) of a lexicographic site index.", py::arg("site"))
      .def("parity",
           [](const Lattice& l, int site) {
             if (site < 0 || site >= l.volume()) throw std::out_of_range("site " + std::to_string(site) + " off the lattice");
             return std::string(ToString(l.SiteParity(site)));
           },
           "'even' or 'odd': (x + y + z + t) mod 2.", py::arg("site"))
      .def("full_index",
           [](const Lattice& l, const std::string& parity, int cb) {
             if (cb < 0 || cb >= l.half_volume()) throw std::out_of_range("checkerboard index " + std::to_string(cb) + " off the lattice");
             return l.FullIndex(ParseParity(parity), cb);
           },
           "Lexicographic index of checkerboard index cb of a parity (inverse of site // 2).", py::arg("parity"),
           py::arg("cb"))
      .def("forward",
           [](const Lattice& l, int site, int mu) {
             if (site < 0 || site >= l.volume() || mu < 0 || mu >= kDims) throw std::out_of_range("site or mu out of range");
             return l.Forward(site, mu);
           },
           py::arg("site"), py::arg("mu"))
      .def("backward",
           [](const Lattice& l, int site, int mu) {
             if (site < 0 || site >= l.volume() || mu < 0 || mu >= kDims) throw std::out_of_range("site or mu out of range");
             return l.Backward(site, mu);
           },
           py::arg("site"), py::arg("mu"))
      .def("__eq__", [](const Lattice& a, const Lattice& b) { return a == b; })
      .def("__repr__", [](const Lattice& l) { return "lqcd.Lattice(" + l.ToString() + ")"; });

  py::class_<GaugeField<double>>(m, "GaugeField", "SU(3) links U_mu(n) in double; a new field has unit links.")
      .def(py::init<const Lattice&>(), py::arg("lattice"))
      .def(py::init([](const Lattice& lattice, const py::array& links) {
             GaugeField<double> u(lattice);
             const bool native = CheckArray(links, {lattice.volume(), kDims, 3, 3}, LinkStrides(), "GaugeField links");
             CopyIn<3, 3>(links, native, u.links());
             return u;
           }),
           "A copy of `links`: complex128, shape (V, 4, 3, 3), [site][mu][row][col].", py::arg("lattice"),
           py::arg("links"))
      .def_static("random",
                  [](const Lattice& lattice, std::uint64_t seed) {
                    return NoGil([&] { return RandomGaugeField<double>(lattice, seed); });
                  },
                  "Every link an independent Haar-random SU(3) matrix (su3_random.h).", py::arg("lattice"),
                  py::arg("seed"))
      .def_static("near_unit",
                  [](const Lattice& lattice, std::uint64_t seed, double epsilon) {
                    return NoGil([&] { return RandomNearUnitGaugeField<double>(lattice, seed, epsilon); });
                  },
                  "Every link exp(i epsilon H), H random traceless Hermitian (su3_random.h).", py::arg("lattice"),
                  py::arg("seed"), py::arg("epsilon"))
      .def_property_readonly("lattice", [](const GaugeField<double>& u) { return u.lattice(); })
      .def_property_readonly(
          "links",
          [](py::object self) {
            auto& u = self.cast<GaugeField<double>&>();
            return py::array_t<C>({static_cast<py::ssize_t>(u.lattice().volume()), py::ssize_t{kDims}, py::ssize_t{3}, py::ssize_t{3}},
                                  LinkStrides(), u.links().front().data(), self);
          },
          "Writable view of the links, shape (V, 4, 3, 3), [site][mu][row][col]; aliases the C++ field.")
      .def("copy", [](const GaugeField<double>& u) { return u; });

  py::class_<SpinorField<double>>(m, "SpinorField",
                                  "Quark field, 4 spins x 3 colours per site, on the full lattice or one parity.")
      .def(py::init([](const Lattice& lattice, const std::string& subset) {
             return SpinorField<double>(lattice, ParseSubset(subset));
           }),
           py::arg("lattice"), py::arg("subset") = "full")
      .def(py::init([](const Lattice& lattice, const std::string& subset, const py::array& data) {
             SpinorField<double> f(lattice, ParseSubset(subset));
             const bool native = CheckArray(data, {f.sites(), 4, 3}, SpinorStrides(), "SpinorField data");
             CopyIn<4, 3>(data, native, f.data());
             return f;
           }),
           "A copy of `data`: complex128, shape (sites, 4, 3), [site][spin][colour].", py::arg("lattice"),
           py::arg("subset"), py::arg("data"))
      .def_static("gaussian",
                  [](const Lattice& lattice, std::uint64_t seed, const std::string& subset) {
                    SpinorField<double> f(lattice, ParseSubset(subset));
                    FillGaussian(f, seed);
                    return f;
                  },
                  "Every real component standard normal; stream per lexicographic site (spinor_field.h).",
                  py::arg("lattice"), py::arg("seed"), py::arg("subset") = "full")
      .def_static("point_source", &PointSource<double>, "1 at (site, spin, colour), zero elsewhere (full lattice).",
                  py::arg("lattice"), py::arg("site"), py::arg("spin"), py::arg("colour"))
      .def_property_readonly("lattice", [](const SpinorField<double>& f) { return f.lattice(); })
      .def_property_readonly("subset", [](const SpinorField<double>& f) { return std::string(ToString(f.subset())); })
      .def_property_readonly("sites", &SpinorField<double>::sites)
      .def_property_readonly(
          "data",
          [](py::object self) {
            auto& f = self.cast<SpinorField<double>&>();
            return py::array_t<C>({static_cast<py::ssize_t>(f.sites()), py::ssize_t{4}, py::ssize_t{3}}, SpinorStrides(),
                                  f.data().front().data(), self);
          },
          "Writable view, shape (sites, 4, 3), [site][spin][colour]; aliases the C++ field.")
      .def("site_index", &SpinorField<double>::SiteIndex, "Lexicographic site of local index i.", py::arg("i"))
      .def("extract", [](const SpinorField<double>& f, const std::string& parity) { return Extract(f, ParseParity(parity)); },
           "Copy of the sites of one parity of a full field.", py::arg("parity"))
      .def("insert", [](SpinorField<double>& f, const SpinorField<double>& part) { Insert(f, part); },
           "Writes a single-parity field into this full field.", py::arg("part"))
      .def("copy", [](const SpinorField<double>& f) { return f; });

  py::class_<PlaquetteAverages>(m, "Plaquette", "<Re Tr U_p> / 3 averages (plaquette.h); 1 for the free field.")
      .def_readonly("total", &PlaquetteAverages::total)
      .def_readonly("spatial", &PlaquetteAverages::spatial)
      .def_readonly("temporal", &PlaquetteAverages::temporal)
      .def_readonly("plane", &PlaquetteAverages::plane)
      .def("__repr__", [](const PlaquetteAverages& p) {
        return "lqcd.Plaquette(total=" + std::to_string(p.total) + ", spatial=" + std::to_string(p.spatial) +
               ", temporal=" + std::to_string(p.temporal) + ")";
      });
  m.def("plaquette", [](const GaugeField<double>& u) { return NoGil([&] { return MeasurePlaquette(u); }); },
        py::arg("u"));
  m.def("link_trace", [](const GaugeField<double>& u) { return LinkTrace(u); }, "<Re Tr U_mu(n)> / 3.", py::arg("u"));

  m.def("gamma",
        [](int mu, const std::string& basis) {
          if (mu < 0 || mu >= kDims) throw std::out_of_range("gamma: mu must be 0..3 (x, y, z, t)");
          return SpinMatrixArray(Gamma(ParseBasis(basis), mu));
        },
        "gamma_mu, mu = 0..3 (x, y, z, t), in 'degrand-rossi' or 'ukqcd'.", py::arg("mu"),
        py::arg("basis") = "degrand-rossi");
  m.def("gamma5", [](const std::string& basis) { return SpinMatrixArray(Gamma5(ParseBasis(basis))); },
        py::arg("basis") = "degrand-rossi");
  m.def("degrand_rossi_to_ukqcd", [] { return SpinMatrixArray(DeGrandRossiToUkqcd()); },
        "S with psi(UKQCD) = S psi(DeGrand-Rossi).");

  py::class_<WilsonParams>(m, "WilsonParams", "Wilson mass (or kappa), gamma basis and fermion boundary.")
      .def(py::init([](std::optional<double> mass, std::optional<double> kappa, const std::string& basis,
                       const std::string& boundary) {
             if (mass && kappa) Fail("WilsonParams: give mass or kappa, not both");
             if (kappa) return WilsonParams::FromKappa(*kappa, ParseBasis(basis), ParseBoundary(boundary));
             WilsonParams p;
             p.mass = mass.value_or(0.0);
             p.basis = ParseBasis(basis);
             p.boundary = ParseBoundary(boundary);
             p.kappa();  // validates 4 + m > 0
             return p;
           }),
           py::kw_only(), py::arg("mass") = py::none(), py::arg("kappa") = py::none(),
           py::arg("basis") = "degrand-rossi", py::arg("boundary") = "PPPA")
      .def_readonly("mass", &WilsonParams::mass)
      .def_property_readonly("kappa", &WilsonParams::kappa)
      .def_property_readonly("basis", [](const WilsonParams& p) { return BasisName(p.basis); })
      .def_property_readonly("boundary", [](const WilsonParams& p) { return p.boundary.ToString(); });

  m.def("hopping",
        [](const GaugeField<double>& u, const SpinorField<double>& in, const std::string& basis,
           const std::string& boundary, bool dagger) {
          const GammaBasis b = ParseBasis(basis);
          const FermionBoundary bc = ParseBoundary(boundary);
          SpinorField<double> out = Like(in, Subset::kFull);
          NoGil([&] { ApplyHopping(out, u, in, b, bc, ToDagger(dagger)); return 0; });
          return out;
        },
        "D psi (or D^dag psi) on the full lattice (wilson.h).", py::arg("u"), py::arg("psi"),
        py::arg("basis") = "degrand-rossi", py::arg("boundary") = "PPPA", py::arg("dagger") = false);
  m.def("hopping_parity",
        [](const GaugeField<double>& u, const SpinorField<double>& in, const std::string& basis,
           const std::string& boundary, bool dagger) {
          const GammaBasis b = ParseBasis(basis);
          const FermionBoundary bc = ParseBoundary(boundary);
          SpinorField<double> out = Like(in, OtherSubset(in.subset(), "hopping_parity"));
          NoGil([&] { ApplyHoppingParity(out, u, in, b, bc, ToDagger(dagger)); return 0; });
          return out;
        },
        "D_{p',p} psi_p: the hop from the parity of psi onto the other one (D_eo for an odd psi).", py::arg("u"),
        py::arg("psi"), py::arg("basis") = "degrand-rossi", py::arg("boundary") = "PPPA", py::arg("dagger") = false);
  m.def("wilson",
        [](const GaugeField<double>& u, const SpinorField<double>& in, const WilsonParams& p, bool dagger) {
          SpinorField<double> out = Like(in, Subset::kFull);
          NoGil([&] { ApplyWilson(out, u, in, p, ToDagger(dagger)); return 0; });
          return out;
        },
        "M psi = (4 + m) psi - D psi / 2 (or M^dag psi), full lattice.", py::arg("u"), py::arg("psi"),
        py::arg("params"), py::arg("dagger") = false);
  m.def("wilson_normal",
        [](const GaugeField<double>& u, const SpinorField<double>& in, const WilsonParams& p) {
          SpinorField<double> out = Like(in, Subset::kFull);
          NoGil([&] { ApplyWilsonNormal(out, u, in, p); return 0; });
          return out;
        },
        "M^dag M psi.", py::arg("u"), py::arg("psi"), py::arg("params"));
  m.def("schur",
        [](const GaugeField<double>& u, const SpinorField<double>& in, const WilsonParams& p, bool dagger) {
          ParityOfSubset(in.subset(), "schur");  // ValueError for a full-lattice field
          SpinorField<double> out = Like(in, in.subset());
          NoGil([&] { ApplySchur(out, u, in, p, ToDagger(dagger)); return 0; });
          return out;
        },
        "M_pp psi_p = psi_p - kappa^2 D_{p,p'} D_{p',p} psi_p on the parity of psi (M_ee for even).", py::arg("u"),
        py::arg("psi"), py::arg("params"), py::arg("dagger") = false);
  m.def("schur_normal",
        [](const GaugeField<double>& u, const SpinorField<double>& in, const WilsonParams& p) {
          ParityOfSubset(in.subset(), "schur_normal");  // ValueError for a full-lattice field
          SpinorField<double> out = Like(in, in.subset());
          NoGil([&] { ApplySchurNormal(out, u, in, p); return 0; });
          return out;
        },
        "M_pp^dag M_pp psi_p.", py::arg("u"), py::arg("psi"), py::arg("params"));
  m.def("prepare_schur_source",
        [](const GaugeField<double>& u, const SpinorField<double>& b, const WilsonParams& p, const std::string& parity) {
          const Parity par = ParseParity(parity);
          return NoGil([&] { return PrepareSchurSource(u, b, p, par); });
        },
        "b'_p = 2 kappa (b_p + kappa D_{p,p'} b_{p'}) from a full source b.", py::arg("u"), py::arg("b"),
        py::arg("params"), py::arg("parity") = "even");
  m.def("reconstruct_solution",
        [](const GaugeField<double>& u, const SpinorField<double>& x_p, const SpinorField<double>& b,
           const WilsonParams& p) { return NoGil([&] { return ReconstructSolution(u, x_p, b, p); }); },
        "The full x from the Schur solution x_p and the full source b.", py::arg("u"), py::arg("x_p"), py::arg("b"),
        py::arg("params"));

  // ---- Wilson-clover (reference/clover.h) ----

  py::class_<CloverParams>(m, "CloverParams",
                           "Clover mass (or kappa), c_sw, gamma basis, fermion boundary and field-strength trace.")
      .def(py::init([](std::optional<double> mass, std::optional<double> kappa, double c_sw, const std::string& basis,
                       const std::string& boundary, const std::string& trace) {
             if (mass && kappa) Fail("CloverParams: give mass or kappa, not both");
             CloverParams p = kappa ? CloverParams::FromKappa(*kappa, c_sw, ParseBasis(basis), ParseBoundary(boundary))
                                    : CloverParams{};
             if (!kappa) {
               p.mass = mass.value_or(0.0);
               p.c_sw = c_sw;
               p.basis = ParseBasis(basis);
               p.boundary = ParseBoundary(boundary);
             }
             p.trace = ParseCloverTrace(trace);
             p.kappa();  // validates 4 + m > 0
             if (!std::isfinite(p.c_sw)) Fail("CloverParams: c_sw must be finite");
             return p;
           }),
           py::kw_only(), py::arg("mass") = py::none(), py::arg("kappa") = py::none(), py::arg("c_sw") = 1.0,
           py::arg("basis") = "degrand-rossi", py::arg("boundary") = "PPPA", py::arg("trace") = "traceless")
      .def_static("from_milc",
                  [](double kappa, double clov_c, double u0, const std::string& basis, const std::string& boundary) {
                    return CloverParams::FromMilc(kappa, clov_c, u0, ParseBasis(basis), ParseBoundary(boundary));
                  },
                  "MILC's clover action (kappa, clov_c, u0): c_sw = clov_c / u0^3, field strength with its trace.",
                  py::arg("kappa"), py::arg("clov_c"), py::arg("u0"), py::arg("basis") = "degrand-rossi",
                  py::arg("boundary") = "PPPA")
      .def_static("from_chroma",
                  [](double mass, double clov_coeff, const std::string& basis, const std::string& boundary) {
                    return CloverParams::FromChroma(mass, clov_coeff, ParseBasis(basis), ParseBoundary(boundary));
                  },
                  "Chroma's isotropic clover action (Mass, clovCoeff): field strength with its trace.",
                  py::arg("mass"), py::arg("clov_coeff"), py::arg("basis") = "degrand-rossi",
                  py::arg("boundary") = "PPPA")
      .def_readonly("mass", &CloverParams::mass)
      .def_readonly("c_sw", &CloverParams::c_sw)
      .def_property_readonly("kappa", &CloverParams::kappa)
      .def_property_readonly("basis", [](const CloverParams& p) { return BasisName(p.basis); })
      .def_property_readonly("boundary", [](const CloverParams& p) { return p.boundary.ToString(); })
      .def_property_readonly("trace", [](const CloverParams& p) { return std::string(ToString(p.trace)); })
      .def_property_readonly("wilson", &CloverParams::wilson);

  py::class_<CloverField<double>>(m, "CloverField",
                                  "T(n) = (4 + m) + A(n) and its inverse at every site (reference/clover.h); "
                                  "ValueError for a singular or ill-conditioned T(n).")
      .def(py::init([](const GaugeField<double>& u, const CloverParams& p) {
             return NoGil([&] { return CloverField<double>(u, p); });
           }),
           py::arg("u"), py::arg("params"))
      .def_property_readonly("lattice", &CloverField<double>::lattice)
      .def_property_readonly("params", &CloverField<double>::params)
      .def("site_matrix", [](const CloverField<double>& c, int site) {
             if (site < 0 || site >= c.lattice().volume()) throw py::index_error("site " + std::to_string(site));
             return SpinColorMatrixArray(c.SiteMatrix(site));
           },
           "T(n) as a 12 x 12 array (index 3 spin + colour) in params.basis (a copy).", py::arg("site"))
      .def("site_inverse", [](const CloverField<double>& c, int site) {
             if (site < 0 || site >= c.lattice().volume()) throw py::index_error("site " + std::to_string(site));
             return SpinColorMatrixArray(c.SiteInverse(site));
           },
           "T(n)^{-1} as a 12 x 12 array (a copy).", py::arg("site"))
      .def_property_readonly("max_condition", &CloverField<double>::max_condition)
      .def_property_readonly("min_eigenvalue", &CloverField<double>::min_eigenvalue)
      .def_property_readonly("max_eigenvalue", &CloverField<double>::max_eigenvalue);

  m.def("clover_apply",
        [](const CloverField<double>& c, const SpinorField<double>& in, bool inverse) {
          if (in.lattice() != c.lattice()) Fail("clover_apply: psi is not on the clover field's lattice");
          SpinorField<double> out = Like(in, in.subset());
          NoGil([&] {
            if (inverse) {
              ApplyCloverInverseBlocks(out, c, in);
            } else {
              ApplyCloverBlocks(out, c, in);
            }
            return 0;
          });
          return out;
        },
        "T psi (or T^{-1} psi) site by site, on the sites of psi (full or one parity).", py::arg("clover"),
        py::arg("psi"), py::arg("inverse") = false);
  m.def("wilson_clover",
        [](const GaugeField<double>& u, const CloverField<double>& c, const SpinorField<double>& in, bool dagger) {
          RequireCloverOn(c, u, "wilson_clover");
          SpinorField<double> out = Like(in, Subset::kFull);
          NoGil([&] { ApplyWilsonClover(out, u, c, in, ToDagger(dagger)); return 0; });
          return out;
        },
        "M psi = T psi - D psi / 2 (or M^dag psi), full lattice.", py::arg("u"), py::arg("clover"), py::arg("psi"),
        py::arg("dagger") = false);
  m.def("wilson_clover_normal",
        [](const GaugeField<double>& u, const CloverField<double>& c, const SpinorField<double>& in) {
          RequireCloverOn(c, u, "wilson_clover_normal");
          SpinorField<double> out = Like(in, Subset::kFull);
          NoGil([&] { ApplyWilsonCloverNormal(out, u, c, in); return 0; });
          return out;
        },
        "M^dag M psi, full lattice.", py::arg("u"), py::arg("clover"), py::arg("psi"));
  m.def("clover_schur",
        [](const GaugeField<double>& u, const CloverField<double>& c, const SpinorField<double>& in,
           const std::string& form, bool dagger) {
          RequireCloverOn(c, u, "clover_schur");
          ParityOfSubset(in.subset(), "clover_schur");  // ValueError for a full-lattice field
          const CloverSchurForm f = ParseCloverForm(form);
          SpinorField<double> out = Like(in, in.subset());
          NoGil([&] { ApplyCloverSchur(out, u, c, in, f, ToDagger(dagger)); return 0; });
          return out;
        },
        "The even-odd clover operator on the parity of psi: form 'complement' S_pp = T_pp - D T^{-1} D / 4, or "
        "'unit-diagonal' Mhat_pp = 1 - T_pp^{-1} D T^{-1} D / 4 (or their daggers).",
        py::arg("u"), py::arg("clover"), py::arg("psi"), py::arg("form") = "complement", py::arg("dagger") = false);
  m.def("prepare_clover_schur_source",
        [](const GaugeField<double>& u, const CloverField<double>& c, const SpinorField<double>& b,
           const std::string& parity, const std::string& form) {
          RequireCloverOn(c, u, "prepare_clover_schur_source");
          const Parity par = ParseParity(parity);
          const CloverSchurForm f = ParseCloverForm(form);
          return NoGil([&] { return PrepareCloverSchurSource(u, c, b, par, f); });
        },
        "The right-hand side on one parity for the chosen form, from a full source b.", py::arg("u"),
        py::arg("clover"), py::arg("b"), py::arg("parity") = "even", py::arg("form") = "complement");
  m.def("reconstruct_clover_solution",
        [](const GaugeField<double>& u, const CloverField<double>& c, const SpinorField<double>& x_p,
           const SpinorField<double>& b) {
          RequireCloverOn(c, u, "reconstruct_clover_solution");
          return NoGil([&] { return ReconstructCloverSolution(u, c, x_p, b); });
        },
        "The full x from the Schur solution x_p and the full source b (either form).", py::arg("u"),
        py::arg("clover"), py::arg("x_p"), py::arg("b"));

  py::class_<DirectWilsonSolver>(m, "DirectSolver",
                                 "SparseLU of M (or of M_pp with parity=...), the oracle's ground-truth solver. "
                                 "Factorises once (about 1 s at 4^4); do not use beyond ~10^4 unknowns.")
      .def(py::init([](const GaugeField<double>& u, const WilsonParams& p, std::optional<std::string> parity,
                       bool dagger) {
             if (parity) {
               const Parity par = ParseParity(*parity);
               return NoGil([&] { return DirectWilsonSolver(u, p, par, ToDagger(dagger)); });
             }
             return NoGil([&] { return DirectWilsonSolver(u, p, ToDagger(dagger)); });
           }),
           py::arg("u"), py::arg("params"), py::arg("parity") = py::none(), py::arg("dagger") = false)
      .def("solve", [](const DirectWilsonSolver& s, const SpinorField<double>& b) { return NoGil([&] { return s.Solve(b); }); },
           "x = M^{-1} b (full b) or x_p = M_pp^{-1} b_p.", py::arg("b"))
      .def_property_readonly("subset", [](const DirectWilsonSolver& s) { return std::string(ToString(s.subset())); })
      .def_property_readonly("factor_nonzeros", &DirectWilsonSolver::FactorNonZeros);

  // ---- Krylov solvers (solvers/) on the CPU backend ----

  py::class_<solvers::ResidualUpdate>(m, "ResidualUpdate", "One high-precision residual recomputation.")
      .def_readonly("iteration", &solvers::ResidualUpdate::iteration)
      .def_readonly("iterated_residual", &solvers::ResidualUpdate::iterated_residual)
      .def_readonly("true_residual", &solvers::ResidualUpdate::true_residual);

  py::class_<solvers::SolveResult>(m, "SolveResult", "The record of one solve (solvers/solve_result.h).")
      .def_property_readonly("status", [](const solvers::SolveResult& r) { return std::string(solvers::ToString(r.status)); })
      .def_property_readonly("converged", &solvers::SolveResult::converged)
      .def_readonly("reason", &solvers::SolveResult::reason)
      .def_readonly("solver", &solvers::SolveResult::solver)
      .def_readonly("system", &solvers::SolveResult::system)
      .def_readonly("iterations", &solvers::SolveResult::iterations)
      .def_readonly("krylov_iterations", &solvers::SolveResult::krylov_iterations)
      .def_readonly("restarts", &solvers::SolveResult::restarts)
      .def_readonly("high_precision_updates", &solvers::SolveResult::high_precision_updates)
      .def_readonly("true_residual", &solvers::SolveResult::true_residual)
      .def_readonly("iterated_residual", &solvers::SolveResult::iterated_residual)
      .def_readonly("residual_history", &solvers::SolveResult::residual_history)
      .def_readonly("updates", &solvers::SolveResult::updates)
      .def_readonly("operator_applications", &solvers::SolveResult::operator_applications)
      .def_readonly("low_precision_applications", &solvers::SolveResult::low_precision_applications)
      .def_readonly("flops", &solvers::SolveResult::flops)
      .def_readonly("seconds", &solvers::SolveResult::seconds)
      .def("summary", &solvers::SolveResult::Summary)
      .def("__repr__", [](const solvers::SolveResult& r) { return "lqcd.SolveResult(" + r.Summary() + ")"; });

  m.def("spec_name",
        [](const std::string& spec) { return solvers::SolverSpec::Parse(spec).Name(); },
        "The canonical text of a solver spec (solvers/solver_spec.h); ValueError for a bad one.", py::arg("spec"));
  m.def("solve",
        [](const GaugeField<double>& u, const SpinorField<double>& b, const WilsonParams& p, const std::string& spec_text,
           double tolerance, int max_iterations, std::optional<SpinorField<double>> x0, bool record_history) {
          const solvers::SolverSpec spec =
              ParseSpec(spec_text, tolerance, max_iterations, record_history, solvers::CpuCapabilities(), false);
          RequireFullOn(b, u.lattice(), "solve: b");
          SpinorField<double> x = x0 ? std::move(*x0) : SpinorField<double>(u.lattice(), Subset::kFull);
          RequireFullOn(x, u.lattice(), "solve: x0");
          solvers::SolveResult r = NoGil([&] { return SpecSolve(spec, u, p, x, b); });
          return py::make_tuple(std::move(x), std::move(r));
        },
        "(x, SolveResult): x = M^{-1} b by a solver spec ('bicgstab', 'cg', 'bicgstab-reliable:single:0.1', ...; "
        "solvers/solver_spec.h) on the CPU backend, even-odd preconditioned; tolerance on |b - M x| / |b|; "
        "record_history keeps every iteration's residual in SolveResult.residual_history.",
        py::arg("u"), py::arg("b"), py::arg("params"), py::arg("spec") = "bicgstab", py::arg("tolerance") = 1e-10,
        py::arg("max_iterations") = 10000, py::arg("x0") = py::none(), py::arg("record_history") = false);

  m.def("solve_clover",
        [](const GaugeField<double>& u, const SpinorField<double>& b, const CloverParams& p, const std::string& form,
           const std::string& spec_text, double tolerance, int max_iterations, std::optional<SpinorField<double>> x0,
           bool record_history) {
          const solvers::SolverSpec spec =
              ParseSpec(spec_text, tolerance, max_iterations, record_history, solvers::CpuCapabilities(), true);
          if (spec.temporal_gauge) Fail("solve_clover: '/gf' specs are not offered for clover here");
          const CloverSchurForm f = ParseCloverForm(form);
          RequireFullOn(b, u.lattice(), "solve_clover: b");
          SpinorField<double> x = x0 ? std::move(*x0) : SpinorField<double>(u.lattice(), Subset::kFull);
          RequireFullOn(x, u.lattice(), "solve_clover: x0");
          solvers::SolveResult r = NoGil([&] { return solvers::SolveWithSpecOnCpu(spec, u, p, f, x, b); });
          return py::make_tuple(std::move(x), std::move(r));
        },
        "(x, SolveResult): x = M^{-1} b for the clover matrix M = (4 + m) + A - D/2 by a solver spec on the CPU "
        "backend, even-odd in `form` ('complement' or 'unit-diagonal'); tolerance on |b - M x| / |b|.",
        py::arg("u"), py::arg("b"), py::arg("params"), py::arg("form") = "complement", py::arg("spec") = "bicgstab",
        py::arg("tolerance") = 1e-10, py::arg("max_iterations") = 10000, py::arg("x0") = py::none(),
        py::arg("record_history") = false);

  // ---- Configuration files (reference/io/) ----

  py::class_<GaugeFileMetadata>(m, "GaugeFileInfo", "What a reader checked besides the links (gauge_file_common.h).")
      .def_property_readonly("format", [](const GaugeFileMetadata& d) { return FormatName(d.format); })
      .def_readonly("source", &GaugeFileMetadata::source)
      .def_property_readonly("precision", [](const GaugeFileMetadata& d) {
        return std::string(d.precision == FloatPrecision::kDouble ? "double" : "single");
      })
      .def_property_readonly("byte_order", [](const GaugeFileMetadata& d) { return std::string(ToString(d.byte_order)); })
      .def_readonly("stored_rows", &GaugeFileMetadata::stored_rows)
      .def_readonly("extents", &GaugeFileMetadata::extents)
      .def_readonly("header", &GaugeFileMetadata::header)
      .def_property_readonly("checksums",
                             [](const GaugeFileMetadata& d) {
                               py::dict out;
                               for (const auto& c : d.checksums) out[py::str(c.name)] = c.value;
                               return out;
                             })
      .def_readonly("max_unitarity_deviation", &GaugeFileMetadata::max_unitarity_deviation)
      .def_readonly("max_determinant_deviation", &GaugeFileMetadata::max_determinant_deviation)
      .def("describe", &GaugeFileMetadata::Describe);

  m.def("read_gauge",
        [](const std::string& path, double unitarity_tolerance, bool verify_checksums) {
          GaugeReadOptions options;
          options.unitarity_tolerance = unitarity_tolerance;
          options.verify_checksums = verify_checksums;
          GaugeConfiguration c = NoGil([&] { return ReadGaugeConfiguration(path, options); });
          return py::make_tuple(std::move(c.field), std::move(c.metadata));
        },
        "(GaugeField, GaugeFileInfo) from a NERSC, LIME (ILDG/SciDAC) or MILC v5 file, the format detected from "
        "its first bytes (gauge_io.h). RuntimeError (GaugeFileError's message) for any malformed file.",
        py::arg("path"), py::arg("unitarity_tolerance") = 0.0, py::arg("verify_checksums") = true);
  m.def("write_gauge",
        [](const std::string& path, const GaugeField<double>& u, const std::string& format, const std::string& precision,
           const std::string& byte_order, bool two_rows) {
          const FloatPrecision prec = ParseFloatPrecision(precision);
          const ByteOrder order = ParseByteOrder(byte_order);
          if (format == "nersc") {
            NerscWriteOptions o;
            o.storage = two_rows ? NerscStorage::kTwoRows : NerscStorage::kThreeRows;
            o.precision = prec;
            o.byte_order = order;
            NoGil([&] { WriteNersc(path, u, o); return 0; });
            return;
          }
          if (two_rows) Fail("write_gauge: two_rows is a NERSC option");
          if (format == "lime") {
            if (order != ByteOrder::kBigEndian) Fail("write_gauge: LIME files are big-endian");
            LimeWriteOptions o;
            o.precision = prec;
            NoGil([&] { WriteLime(path, u, o); return 0; });
            return;
          }
          if (format == "milc") {
            if (prec != FloatPrecision::kSingle) Fail("write_gauge: the MILC writer stores float32; pass precision='single'");
            NoGil([&] { WriteFileBytes(path, WriteMilcToBytes(u, order, "written by lqcd python")); return 0; });
            return;
          }
          Fail("write_gauge: format must be 'nersc', 'lime' or 'milc', got '" + format + "'");
        },
        "Writes u as NERSC (3 or 2 rows, double or single, either byte order), LIME (ILDG/SciDAC, big-endian, "
        "double or single) or MILC v5 (float32, either byte order).",
        py::arg("path"), py::arg("u"), py::arg("format") = "nersc", py::arg("precision") = "double",
        py::arg("byte_order") = "big-endian", py::arg("two_rows") = false);

  // ---- Quenched generator (reference/ensemble/) ----

  m.def("generate_quenched",
        [](const Lattice& lattice, double beta, std::uint64_t seed, int sweeps, bool hot_start,
           int overrelaxation_steps, std::optional<GaugeField<double>> initial_field, long first_sweep,
           py::object progress, int progress_every, const std::string& backend) {
          if (backend != "cpu" && backend != "gpu") Fail("generate_quenched: backend must be 'cpu' or 'gpu', got '" + backend + "'");
          QuenchedOptions o;
          o.extents = lattice.extents();
          o.beta = beta;
          o.seed = seed;
          o.hot_start = hot_start;
          o.thermalisation_sweeps = sweeps;
          o.configurations = 0;
          o.overrelaxation_steps = overrelaxation_steps;
          o.progress_every = progress.is_none() ? 0 : progress_every;
          o.first_sweep = first_sweep;
          ValidateQuenchedOptions(o);
          if (initial_field) {
            if (hot_start) Fail("generate_quenched: give initial_field or hot_start, not both");
            if (initial_field->lattice() != lattice) {
              Fail("generate_quenched: initial_field lives on " + initial_field->lattice().ToString() + ", not " +
                   lattice.ToString());
            }
          }
          GaugeField<double> u(lattice);
          const std::unique_ptr<SweepEngine> engine = backend == "gpu" ? MakeGpuSweeps() : nullptr;
          ProgressLines lines(progress);
          QuenchedSummary summary = NoGil([&] {
            std::ostream log(&lines);
            return GenerateQuenched(o, log, ConfigurationSink(), &u, initial_field ? &*initial_field : nullptr,
                                    engine.get());
          });
          std::vector<double> history;
          for (const SweepRecord& r : summary.history) history.push_back(r.plaquette);
          return py::make_tuple(std::move(u), std::move(history));
        },
        "(GaugeField, plaquettes): the field after `sweeps` Wilson-action sweeps (one heatbath + "
        "`overrelaxation_steps` overrelaxation sweeps each) from a cold (or hot) start, and <Re Tr U_p>/3 of "
        "the starting field and after every sweep (quenched_generator.h). A function of the arguments alone. "
        "Continuing a chain: initial_field (instead of a cold or hot start) and first_sweep, the number of the "
        "first sweep (sweep s uses random stream s): n sweeps, then m more from that field with first_sweep = n, "
        "give the field of n + m sweeps bit for bit. progress: None, or a callable given each line of the "
        "generator's log (its parameters, a line every `progress_every` sweeps, the summary). backend='gpu' runs "
        "the sweeps on the GPU (gpu/gpu_heatbath.h): the same field bit for bit, RuntimeError without a GPU.",
        py::arg("lattice"), py::arg("beta"), py::arg("seed"), py::arg("sweeps"), py::arg("hot_start") = false,
        py::arg("overrelaxation_steps") = 4, py::arg("initial_field") = py::none(), py::arg("first_sweep") = 0,
        py::arg("progress") = py::none(), py::arg("progress_every") = 1, py::arg("backend") = "cpu");

  // ---- Pion correlator (reference/observables/) ----

  py::class_<PointPropagator>(m, "PointPropagator",
                              "The 12 columns of S(x; x0) for a point source at x0 (reference/observables/propagator.h).")
      .def(py::init<const Lattice&, int>(), py::arg("lattice"), py::arg("source_site"))
      .def_property_readonly("lattice", &PointPropagator::lattice)
      .def_property_readonly("source_site", &PointPropagator::source_site)
      .def_property_readonly("source_time", &PointPropagator::source_time)
      .def("column", [](const PointPropagator& s, int spin, int colour) { return s.Column(spin, colour); },
           "Column (spin, colour) = M^{-1} of that point source (a copy).", py::arg("spin"), py::arg("colour"))
      .def("set_column", [](PointPropagator& s, int spin, int colour, const SpinorField<double>& column) {
             s.SetColumn(spin, colour, column);
           },
           "Sets column (spin, colour) to a copy of `column` (full lattice, the propagator's lattice).", py::arg("spin"),
           py::arg("colour"), py::arg("column"))
      .def("at", [](const PointPropagator& s, int site) {
             if (site < 0 || site >= s.lattice().volume()) throw py::index_error("site " + std::to_string(site));
             return SpinColorMatrixArray(s.At(site));
           },
           "S(x; x0) at site x as a 12 x 12 array: row 3 s' + c' (sink), column 3 s + c (source).", py::arg("site"));
  m.def("point_propagator",
        [](const GaugeField<double>& u, const WilsonParams& p, int source_site, const std::string& spec_text,
           double tolerance, int max_iterations, py::object progress) {
          const solvers::SolverSpec spec =
              ParseSpec(spec_text, tolerance, max_iterations, false, solvers::CpuCapabilities(), false);
          if (source_site < 0 || source_site >= u.lattice().volume()) {
            throw std::out_of_range("point_propagator: source site " + std::to_string(source_site) + " off the lattice");
          }
          ProgressLines lines(progress);
          return NoGil([&] {
            return SolvePointPropagator(
                u.lattice(), source_site, [&](const SpinorField<double>& eta, SpinorField<double>& x) {
                  return SpecSolve(spec, u, p, x, eta);
                }, lines);
          });
        },
        "The point-source propagator M^{-1} (12 solves by `spec`); RuntimeError if a solve does not converge. "
        "progress: None, or a callable given one line per solve ('solve k/12 (spin s, colour c): <record>').",
        py::arg("u"), py::arg("params"), py::arg("source_site") = 0, py::arg("spec") = "bicgstab",
        py::arg("tolerance") = 1e-10, py::arg("max_iterations") = 10000, py::arg("progress") = py::none());
  m.def("pion_correlator_of", [](const PointPropagator& s) { return PionCorrelator(s); },
        "C(t) = sum_x tr[S S^dag] from the source time slice (the m-normalised correlator if S = M^{-1}).",
        py::arg("propagator"));
  m.def("pion_correlator_from_contraction",
        [](const PointPropagator& s, const PointPropagator& dagger_propagator, const std::string& basis) {
          return PionCorrelatorFromContraction(s, dagger_propagator, ParseBasis(basis));
        },
        "C(t) from tr[gamma_5 S(x; x0) gamma_5 S(x0; x)], S(x0; x) from the propagator of M^dag (complex).",
        py::arg("propagator"), py::arg("dagger_propagator"), py::arg("basis") = "degrand-rossi");
  m.def("kappa_normalised_correlator", &KappaNormalisedCorrelator, "C(t) / (4 kappa^2).", py::arg("c"),
        py::arg("kappa"));
  m.def("fold_correlator", &FoldCorrelator, "(C(t) + C(L_t - t)) / 2.", py::arg("c"));
  m.def("log_effective_mass", &LogEffectiveMass, "log C(t) / C(t + 1), t = 0 .. L_t - 2 (NaN where undefined).",
        py::arg("c"));
  m.def("cosh_effective_mass", &CoshEffectiveMass,
        "m(t) solving C(t) / C(t + 1) = cosh(m (t - L_t/2)) / cosh(m (t + 1 - L_t/2)) (NaN where none).", py::arg("c"));

  m.def("pion_correlator",
        [](const GaugeField<double>& u, const WilsonParams& p, int source_site, const std::string& spec_text,
           double tolerance, int max_iterations, py::object progress) {
          const solvers::SolverSpec spec =
              ParseSpec(spec_text, tolerance, max_iterations, false, solvers::CpuCapabilities(), false);
          if (source_site < 0 || source_site >= u.lattice().volume()) {
            throw std::out_of_range("pion_correlator: source site " + std::to_string(source_site) + " off the lattice");
          }
          ProgressLines lines(progress);
          return NoGil([&] {
            return PionCorrelator(SolvePointPropagator(
                u.lattice(), source_site, [&](const SpinorField<double>& eta, SpinorField<double>& x) {
                  return SpecSolve(spec, u, p, x, eta);
                }, lines));
          });
        },
        "C(t), t = 0 .. L_t - 1 from the source time slice: the m-normalised zero-momentum pion correlator of "
        "the 12 point-source solves by `spec` (reference/observables/propagator.h). RuntimeError if a solve "
        "does not converge. progress: as for point_propagator.",
        py::arg("u"), py::arg("params"), py::arg("source_site") = 0, py::arg("spec") = "bicgstab",
        py::arg("tolerance") = 1e-10, py::arg("max_iterations") = 10000, py::arg("progress") = py::none());

  BindGpu(m);
}
