"""Tests of `lqcd.gpu` (experiments/python/lqcd_gpu.cc) against the CPU oracle of the same module.

Without a GPU only the first test runs (the module imports, says why there is no GPU, and every entry point
raises RuntimeError); the rest skip. On the GPU machine they run from the Python bundle (docs/python.md,
"On the GPU machine"). Tolerances: the operator bounds below are the per-real first-order bounds of
gpu/oracle_comparison.h (docs/error_bounds.md), taken with the field's largest real instead of each site's;
the solves compare with a sparse LU solution through the condition number.
"""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lqcd  # noqa: E402  (the lqcd.so next to this file)

gpu = lqcd.gpu
needs_gpu = pytest.mark.skipif(not gpu.available(), reason="no usable GPU: " + gpu.unavailable_reason())

U_D = 2.0**-53                                                     # double
U_C = {"double": 2.0**-53, "single": 2.0**-24, "half": 2.0**-24}  # the kernels' arithmetic (half computes in float)
EPS_STORE = {"double": 0.0, "single": 2.0**-24, "half": 1 / 65534 + 6 * 2.0**-24}  # storing a value, per site max
S6 = 16 * math.sqrt(6)  # sum of |terms| of one output real over the 8 hops, per unit of the input's largest real


def max_real(psi):
    return float(np.max(np.abs(np.concatenate([psi.data.real.ravel(), psi.data.imag.ravel()]))))


class Bound:
    """Per-real error of a device result (dev, UKQCD, before the download) and of the oracle's (orc, in
    double), both against exact arithmetic on the same inputs, and the exact result's size R (either basis)."""

    def __init__(self, size, dev=0.0, orc=0.0):
        self.R, self.dev, self.orc = size, dev, orc

    @staticmethod
    def uploaded(psi, precision):
        m = math.sqrt(2) * max_real(psi)                          # bounds the reals in either basis
        return Bound(m, EPS_STORE[precision] * m + 3 * math.sqrt(2) * U_D * m)

    def hop(self, precision):                                    # one Dslash launch (items 3 of the header)
        return Bound(S6 * self.R, S6 * self.dev + S6 * 14 * U_C[precision] * (self.R + self.dev),
                     S6 * self.orc + S6 * 15 * U_D * self.R)

    def block(self, t_max, precision):                           # a 12 x 12 clover block times the field (item 7)
        # Each real is a sum of 24 products; the entries are at most t_max in DeGrand-Rossi and 2 t_max in the
        # device's UKQCD basis (S T S, two entries of 1/sqrt 2 per row of S), so |terms| sum to <= 48 t_max per
        # unit input; depth 24, plus 3 roundings of the basis change of T on the device.
        g = 48 * t_max
        return Bound(g * self.R, g * self.dev + 28 * U_C[precision] * g * (self.R + self.dev),
                     g * self.orc + 25 * U_D * g * self.R)

    def stored(self, precision):                                 # item 5
        return Bound(self.R, self.dev + EPS_STORE[precision] * (self.R + self.dev), self.orc)

    @staticmethod
    def combine(a, x, b, y, precision):                         # a x + b y, item 4
        size = abs(a) * x.R + abs(b) * y.R
        dev = abs(a) * x.dev + abs(b) * y.dev + 4 * U_C[precision] * (abs(a) * (x.R + x.dev) + abs(b) * (y.R + y.dev))
        return Bound(size, dev, abs(a) * x.orc + abs(b) * y.orc + 3 * U_D * size)

    def downloaded(self):                                        # item 6: per DeGrand-Rossi real
        return math.sqrt(2) * self.dev + 3 * math.sqrt(2) * U_D * (self.R + self.dev) + self.orc


def residual_slack(norm_m, x, b):
    """How far two double recomputes of |b - M x| / |b| may differ: each has per-real errors of at most
    30 u (|b| + |M| |x|) (rounding depth of one M application and the subtraction), so the norms differ by at
    most 2 * 30 u (|b| + |M| |x|) / |b|."""
    nb, nx = np.linalg.norm(b.data.ravel()), np.linalg.norm(x.data.ravel())
    return 2 * 30 * U_D * (nb + norm_m * nx) / nb


def max_diff(a, b):
    return float(np.max(np.abs(a.data - b.data)))


@pytest.fixture(scope="module")
def lat():
    return lqcd.Lattice(4, 4, 4, 8)


@pytest.fixture(scope="module")
def hot(lat):
    return lqcd.GaugeField.random(lat, 7)


# ---- without a device ------------------------------------------------------------------------------------------

def test_availability_is_reported_and_every_entry_point_refuses_without_a_device(lat, hot):
    assert isinstance(gpu.available(), bool)
    if gpu.available():
        assert gpu.unavailable_reason() == "" and "sm_" in gpu.device()
        return
    reason = gpu.unavailable_reason()
    assert reason
    psi = lqcd.SpinorField.gaussian(lat, 1)
    calls = [lambda: gpu.device(), lambda: gpu.copy_bandwidth(), lambda: gpu.DeviceLinks(hot),
             lambda: gpu.DeviceSpinor(psi), lambda: gpu.DeviceSpinor.zeros(lat),
             lambda: gpu.DeviceClover(lqcd.CloverField(hot, lqcd.CloverParams(mass=0.1))),
             lambda: gpu.Solver(hot), lambda: lqcd.generate_quenched(lat, 6.0, 1, 1, backend="gpu")]
    for call in calls:
        with pytest.raises(RuntimeError, match="no usable GPU"):
            call()


# ---- device fields -----------------------------------------------------------------------------------------

@needs_gpu
@pytest.mark.parametrize("precision", ["double", "single", "half"])
def test_spinor_round_trip(lat, precision):
    psi = lqcd.SpinorField.gaussian(lat, 2)
    d = gpu.DeviceSpinor(psi, precision)
    assert (d.subset, d.precision, d.lattice.extents) == ("full", precision, lat.extents) and d.bytes > 0
    back = d.download()
    b = Bound.uploaded(psi, precision)
    assert max_diff(back, psi) <= Bound(b.R, b.dev).downloaded()
    if precision == "double":
        # In the device's own basis nothing is converted: the round trip is exact.
        assert np.array_equal(gpu.DeviceSpinor(psi, basis="ukqcd").download(basis="ukqcd").data, psi.data)
    even = psi.extract("even")
    de = gpu.DeviceSpinor(even, precision)
    assert de.subset == "even" and max_diff(de.download(), even) <= Bound(b.R, b.dev).downloaded()
    zero = gpu.DeviceSpinor.zeros(lat, "odd", precision).download()
    assert zero.subset == "odd" and not np.any(zero.data)


@needs_gpu
@pytest.mark.parametrize("precision,reals", [("double", 18), ("double", 12), ("double", 8), ("single", 12),
                                             ("half", 8)])
def test_links_download_as_the_kernels_see_them(hot, precision, reals):
    links = gpu.DeviceLinks(hot, precision, reals)
    assert (links.precision, links.link_reals, links.temporal_gauge_fixed) == (precision, reals, False)
    seen = links.download().links
    if (precision, reals) == ("double", 18):
        assert np.array_equal(seen, hot.links)
    # Rebuilt or rounded links stay within the storage's rounding of SU(3) links (|U_ij| <= 1) plus the
    # 8-real form's 1/N growth, far below 1e-2 for Haar links at N > 0.01 (device_gauge_field.h).
    assert np.max(np.abs(seen - hot.links)) < 1e-2


@needs_gpu
def test_released_objects_raise(lat, hot):
    psi = lqcd.SpinorField.gaussian(lat, 3).extract("even")
    links, d = gpu.DeviceLinks(hot), gpu.DeviceSpinor(psi)
    links.release()
    assert links.released
    with pytest.raises(ValueError, match="released"):
        gpu.hopping_parity(links, d)
    with pytest.raises(ValueError, match="released"):
        links.download()
    d.release()
    with pytest.raises(ValueError, match="released"):
        d.download()
    clover = gpu.DeviceClover(lqcd.CloverField(hot, lqcd.CloverParams(mass=0.1)))
    clover.release()
    with pytest.raises(ValueError, match="released"):
        gpu.wilson_clover(gpu.DeviceLinks(hot), clover, gpu.DeviceSpinor(lqcd.SpinorField.gaussian(lat, 1)))


@needs_gpu
def test_bad_input_raises_before_any_device_work(lat, hot):
    psi = lqcd.SpinorField.gaussian(lat, 4)
    with pytest.raises(ValueError, match="precision must be"):
        gpu.DeviceSpinor(psi, "quad")
    with pytest.raises(ValueError, match="link_reals"):
        gpu.DeviceLinks(hot, "double", 10)
    with pytest.raises(ValueError, match="basis"):
        gpu.DeviceSpinor(psi, basis="chiral")
    with pytest.raises(ValueError):                               # 12 reals need SU(3) links
        gpu.DeviceLinks(lqcd.GaugeField(lat, 1.5 * hot.links), "double", 12)
    with pytest.raises(ValueError):                               # half links need |reals| <= 1
        gpu.DeviceLinks(lqcd.GaugeField(lat, 1.5 * hot.links), "half", 18)
    with pytest.raises(ValueError):                               # not in temporal gauge
        gpu.DeviceLinks(hot, temporal_gauge_fixed=True)
    single_links = gpu.DeviceLinks(hot, "single")
    even = gpu.DeviceSpinor(psi.extract("even"))
    with pytest.raises(ValueError, match="one precision"):
        gpu.hopping_parity(single_links, even)
    with pytest.raises(ValueError, match="one parity"):
        gpu.hopping_parity(gpu.DeviceLinks(hot), gpu.DeviceSpinor(psi))
    with pytest.raises(ValueError, match="one parity"):
        gpu.schur(gpu.DeviceLinks(hot), gpu.DeviceSpinor(psi), lqcd.WilsonParams(mass=0.1))
    other = gpu.DeviceSpinor(lqcd.SpinorField.gaussian(lqcd.Lattice(4, 4, 4, 4), 1).extract("even"))
    with pytest.raises(ValueError, match="lives on"):
        gpu.hopping_parity(gpu.DeviceLinks(hot), other)
    with pytest.raises(ValueError, match="full-lattice|needs full"):
        gpu.wilson(gpu.DeviceLinks(hot), even, lqcd.WilsonParams(mass=0.1))


@needs_gpu
def test_generate_quenched_on_the_gpu_is_the_cpu_chain():
    lat = lqcd.Lattice(4, 4, 4, 8)
    for hot in (False, True):
        cpu, p_cpu = lqcd.generate_quenched(lat, beta=5.8, seed=9, sweeps=3, hot_start=hot)
        lines = []
        gpu_u, p_gpu = lqcd.generate_quenched(lat, beta=5.8, seed=9, sweeps=3, hot_start=hot, backend="gpu",
                                              progress=lines.append)
        assert np.array_equal(cpu.links, gpu_u.links) and p_cpu == p_gpu       # bit for bit
        assert any(line.startswith("sweeps on = GPU") for line in lines)


# ---- operators against the oracle ----------------------------------------------------------------------------

LAYOUTS = [("double", 18), ("double", 12), ("double", 8), ("single", 18), ("single", 12), ("single", 8),
           ("half", 18), ("half", 12), ("half", 8)]


@needs_gpu
@pytest.mark.parametrize("precision,reals", LAYOUTS)
@pytest.mark.parametrize("dagger", [False, True])
def test_hopping_parity_matches_the_oracle(lat, hot, precision, reals, dagger):
    links = gpu.DeviceLinks(hot, precision, reals)
    seen = links.download()            # the oracle runs on the links as the kernels see them: no link error
    for parity, boundary in (("even", "PPPA"), ("odd", "APPP")):
        psi = lqcd.SpinorField.gaussian(lat, 5).extract(parity)
        out = gpu.hopping_parity(links, gpu.DeviceSpinor(psi, precision), boundary, dagger)
        assert out.precision == precision and out.subset != parity
        want = lqcd.hopping_parity(seen, psi, "degrand-rossi", boundary, dagger)
        bound = Bound.uploaded(psi, precision).hop(precision).stored(precision).downloaded()
        assert max_diff(out.download(), want) <= bound, (parity, boundary)


@needs_gpu
@pytest.mark.parametrize("precision,reals", [("double", 18), ("single", 12), ("half", 8)])
def test_full_hopping_matches_the_oracle(lat, hot, precision, reals):
    links = gpu.DeviceLinks(hot, precision, reals)
    psi = lqcd.SpinorField.gaussian(lat, 12)
    bound = Bound.uploaded(psi, precision).hop(precision).stored(precision).downloaded()
    for dagger in (False, True):
        out = gpu.hopping(links, gpu.DeviceSpinor(psi, precision), "PPPA", dagger)
        assert out.subset == "full"
        assert max_diff(out.download(), lqcd.hopping(links.download(), psi, "degrand-rossi", "PPPA", dagger)) <= bound
    with pytest.raises(ValueError, match="full-lattice"):
        gpu.hopping(links, gpu.DeviceSpinor(psi.extract("odd"), precision))


@needs_gpu
@pytest.mark.parametrize("precision", ["double", "single", "half"])
@pytest.mark.parametrize("basis", ["degrand-rossi", "ukqcd"])
def test_wilson_and_schur_match_the_oracle(lat, hot, precision, basis):
    links = gpu.DeviceLinks(hot, precision, 12)
    seen = links.download()
    params = lqcd.WilsonParams(kappa=0.124, basis=basis)
    psi = lqcd.SpinorField.gaussian(lat, 6)
    x = Bound.uploaded(psi, precision)
    for dagger in (False, True):
        # M = (4 + m) - D/2: one xpay launch per parity. Host fields in `basis` on both sides.
        out = gpu.wilson(links, gpu.DeviceSpinor(psi, precision, basis), params, dagger).download(basis)
        want = lqcd.wilson(seen, psi, params, dagger)
        bound = Bound.combine(4 + params.mass, x, -0.5, x.hop(precision), precision).stored(precision).downloaded()
        assert max_diff(out, want) <= bound
        # M_ee = 1 - kappa^2 D_eo D_oe: a stored Dslash, then an xpay Dslash.
        even = psi.extract("even")
        xe = Bound.uploaded(even, precision)
        out = gpu.schur(links, gpu.DeviceSpinor(even, precision, basis), params, dagger).download(basis)
        want = lqcd.schur(seen, even, params, dagger)
        two_hops = xe.hop(precision).stored(precision).hop(precision)
        bound = Bound.combine(1, xe, params.kappa**2, two_hops, precision).stored(precision).downloaded()
        assert out.subset == "even" and max_diff(out, want) <= bound


@needs_gpu
def test_clover_operators_match_the_oracle_in_double(lat, hot):
    params = lqcd.CloverParams(kappa=0.124, c_sw=1.0)
    clover = lqcd.CloverField(hot, params)
    links, dclover = gpu.DeviceLinks(hot), gpu.DeviceClover(clover)
    psi = lqcd.SpinorField.gaussian(lat, 8)
    t = max(max(np.max(np.abs(clover.site_matrix(n))), np.max(np.abs(clover.site_inverse(n))))
            for n in range(lat.volume))
    x = Bound.uploaded(psi, "double")
    for dagger in (False, True):
        out = gpu.wilson_clover(links, dclover, gpu.DeviceSpinor(psi), dagger).download()
        want = lqcd.wilson_clover(hot, clover, psi, dagger)
        bound = Bound.combine(1, x.block(t, "double"), 0.5, x.hop("double"), "double").downloaded()
        assert max_diff(out, want) <= bound
    even = psi.extract("even")
    xe = Bound.uploaded(even, "double")
    inner = xe.hop("double").block(t, "double").hop("double")              # D T^-1 D psi
    forms = {"complement": Bound.combine(1, xe.block(t, "double"), 0.25, inner, "double"),      # T - D T^-1 D / 4
             "unit-diagonal": Bound.combine(1, xe, 0.25, inner.block(t, "double"), "double")}  # 1 - T^-1 D T^-1 D / 4
    for form, bound in forms.items():
        out = gpu.clover_schur(links, dclover, gpu.DeviceSpinor(even), form).download()
        want = lqcd.clover_schur(hot, clover, even, form)
        assert out.subset == "even" and max_diff(out, want) <= bound.downloaded(), form


@needs_gpu
def test_time_dslash_reports_the_kernel_model(lat, hot):
    links = gpu.DeviceLinks(hot, "single", 12)
    psi = gpu.DeviceSpinor(lqcd.SpinorField.gaussian(lat, 9).extract("even"), "single")
    t = gpu.time_dslash(links, psi, repetitions=5)
    assert t["variant"] == "single/12" and t["microseconds"] > 0
    assert t["flops"] == 1320 * lat.half_volume
    assert t["bytes"] >= t["minimum_bytes"] > 0
    assert t["gflops"] == pytest.approx(t["flops"] / (t["microseconds"] * 1e3))
    bw = gpu.copy_bandwidth(1 << 26, 3)
    assert bw["bytes_per_copy"] == 2 * (1 << 26) and bw["kernel_gbs"] > 0 and bw["theoretical_gbs"] > 0


# ---- solves through the solver factory -----------------------------------------------------------------------

# At kappa = 0.12 on links near 1 the hopping term has norm <= 8 kappa = 0.96, so cond(M) <= 1.96 / 0.04 = 49:
# a relative residual r bounds the relative error by 49 r. Both solves stop at r <= 1e-10: |x - x_LU| / |x_LU|
# <= 49e-10 < 1e-8.
SOLVE_SPECS = ["bicgstab", "cg", "bicgstab:double/12", "bicgstab:double/18/gf", "bicgstab-reliable:half/12:0.1",
               "bicgstab-reliable:single/8:0.1", "cg-reliable:half/12:0.1", "bicgstab-dc:single/12:1e-3"]


@pytest.fixture(scope="module")
def system():
    lat = lqcd.Lattice(4, 4, 4, 8)
    u = lqcd.GaugeField.near_unit(lat, 1, 0.3)
    params = lqcd.WilsonParams(kappa=0.12)
    b = lqcd.SpinorField.gaussian(lat, 3)
    return u, params, b, lqcd.DirectSolver(u, params).solve(b)


@needs_gpu
@pytest.mark.parametrize("spec", SOLVE_SPECS)
def test_gpu_solve_meets_tolerance_and_matches_direct_solve(system, spec):
    u, params, b, xd = system
    solver = gpu.Solver(u)
    x, r, residual = solver.solve(b, params, spec=spec, tolerance=1e-10)
    assert r.converged and r.iterations > 0
    assert residual < 1e-10
    assert np.linalg.norm((x.data - xd.data).ravel()) < 1e-8 * np.linalg.norm(xd.data.ravel())
    # The host recompute agrees with the device's (both in double, 18-real links, original gauge).
    host = np.linalg.norm((lqcd.wilson(u, x, params).data - b.data).ravel()) / np.linalg.norm(b.data.ravel())
    assert host == pytest.approx(residual, abs=residual_slack(4 + params.mass + 4, x, b))  # |D| <= 8


@needs_gpu
def test_gpu_solve_keeps_the_links_and_gives_the_same_bits_again(system):
    u, params, b, _ = system
    solver = gpu.Solver(u)
    x1, r1, _ = solver.solve(b, params, spec="bicgstab-reliable:half/12:0.1")
    x2, r2, _ = solver.solve(b, params, spec="bicgstab-reliable:half/12:0.1")
    assert r1.iterations == r2.iterations and np.array_equal(x1.data, x2.data)  # deterministic reductions
    x0, r0, _ = solver.solve(b, params, x0=x1)
    assert r0.converged and r0.iterations <= 2


@needs_gpu
def test_gpu_clover_solve_solves_the_clover_system(system):
    u, _, b, _ = system
    params = lqcd.CloverParams(kappa=0.12, c_sw=1.0)
    clover = lqcd.CloverField(u, params)
    solver = gpu.Solver(u)
    for form in ("complement", "unit-diagonal"):
        x, r, residual = solver.solve(b, params, spec="bicgstab", tolerance=1e-10, form=form)
        assert r.converged and residual < 1e-10
        # The oracle's clover matrix on the host says the same: x solves M x = b (a unique solution).
        host = np.linalg.norm((lqcd.wilson_clover(u, clover, x).data - b.data).ravel()) / np.linalg.norm(b.data.ravel())
        assert host == pytest.approx(residual, abs=residual_slack(clover.max_eigenvalue + 4, x, b))


@needs_gpu
def test_gpu_block_solve_matches_the_single_solves(system):
    u, params, b, _ = system
    lat = u.lattice
    bs = [b, lqcd.SpinorField.gaussian(lat, 11), lqcd.SpinorField.point_source(lat, 0, 1, 2)]
    solver = gpu.Solver(u)
    block = solver.solve_block(bs, params, spec="bicgstab", tolerance=1e-10)
    assert len(block) == 3
    for (x, r, residual), src in zip(block, bs):
        xs, _, _ = solver.solve(src, params, spec="bicgstab", tolerance=1e-10)
        assert r.converged and residual < 1e-10
        assert np.linalg.norm((x.data - xs.data).ravel()) < 1e-8 * np.linalg.norm(xs.data.ravel())


@needs_gpu
def test_gpu_point_propagator_gives_the_oracles_correlator(system):
    u, params, _, _ = system
    lines = []
    prop = gpu.Solver(u).point_propagator(params, source_site=0, tolerance=1e-10, progress=lines.append)
    assert [line.split(" ")[1] for line in lines] == [f"{k}/12" for k in range(1, 13)]
    c_gpu = np.array(lqcd.pion_correlator_of(prop))
    c_cpu = np.array(lqcd.pion_correlator(u, params, tolerance=1e-10))
    # Each column of either propagator is within 49e-10 of the exact one (relative, cond(M) <= 49 above), so
    # the columns differ by dx <= 98e-10 |x| and C(t), a sum of |x|^2 over a time slice, by at most
    # 2 sqrt(C(t)) |dx| + |dx|^2 with |dx|^2 <= (98e-10)^2 sum_t C(t).
    dx = 98e-10 * math.sqrt(c_cpu.sum())
    assert np.all(np.abs(c_gpu - c_cpu) <= 2 * np.sqrt(c_cpu) * dx + dx * dx)
    with pytest.raises(IndexError, match="off the lattice"):
        gpu.Solver(u).point_propagator(params, source_site=u.lattice.volume)


@needs_gpu
def test_gpu_solver_bad_input_raises(system):
    u, params, b, _ = system
    solver = gpu.Solver(u)
    with pytest.raises(ValueError, match="unknown solver 'bogus'"):
        solver.solve(b, params, spec="bogus")
    with pytest.raises(ValueError, match="WilsonParams or a CloverParams"):
        solver.solve(b, 0.12)
    with pytest.raises(ValueError, match="tolerance"):
        solver.solve(b, params, tolerance=2.0)
    with pytest.raises(ValueError, match="full-lattice"):
        solver.solve(b.extract("even"), params)
    with pytest.raises(ValueError, match="no sources"):
        solver.solve_block([], params)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
