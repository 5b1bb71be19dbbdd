"""Tests of the `lqcd` Python module (experiments/python/lqcd_module.cc) against the CPU oracle's own
results, known values (unit fields, free-field plane waves) and an independent 10-line numpy Dslash.
Run by Bazel (`bazel test //experiments/python:lqcd_test`) through pytest; fails loudly.
"""

import gc
import os
import sys
import threading

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lqcd  # noqa: E402  (the lqcd.so next to this file)

BASES = ["degrand-rossi", "ukqcd"]


def numpy_dslash(links, psi, extents, basis, boundary="PPPA", dagger=False):
    """D psi = sum_mu (1 - g_mu) U_mu(n) psi(n + mu) + (1 + g_mu) U_mu(n - mu)^dag psi(n - mu), from the formula."""
    lx, ly, lz, lt = extents
    u = links.reshape(lt, lz, ly, lx, 4, 3, 3)
    f = psi.reshape(lt, lz, ly, lx, 4, 3)
    out = np.zeros_like(f)
    for mu in range(4):
        axis, g = 3 - mu, (-1 if dagger else 1) * lqcd.gamma(mu, basis)
        sign = np.ones(extents[mu]); sign[-1] = -1 if boundary[mu] == "A" else 1
        shape = [1, 1, 1, 1]; shape[axis] = extents[mu]; sign = sign.reshape(shape + [1, 1])
        fwd = sign * np.roll(f, -1, axis)                      # psi(n + mu), sign where the hop wraps
        bwd = np.flip(sign, axis) * np.roll(f, 1, axis)        # psi(n - mu), sign where the hop wraps
        ub = np.roll(u[..., mu, :, :], 1, axis).conj().swapaxes(-1, -2)  # U_mu(n - mu)^dag
        out += np.einsum("st,...ab,...tb->...sa", np.eye(4) - g, u[..., mu, :, :], fwd)
        out += np.einsum("st,...ab,...tb->...sa", np.eye(4) + g, ub, bwd)
    return out.reshape(psi.shape)


def norm(a):
    return np.linalg.norm(np.asarray(a).ravel())


@pytest.fixture(scope="module")
def lat():
    return lqcd.Lattice(4, 4, 4, 4)


@pytest.fixture(scope="module")
def hot(lat):
    return lqcd.GaugeField.random(lat, 7)


# ---- lattice ------------------------------------------------------------------------------------------------

def test_lattice_geometry():
    lat = lqcd.Lattice(2, 4, 6, 8)
    assert lat.extents == [2, 4, 6, 8] and lat.volume == 384 and lat.half_volume == 192
    for site in range(lat.volume):
        x, y, z, t = lat.coords(site)
        assert lat.index(x, y, z, t) == site == x + 2 * (y + 4 * (z + 6 * t))
        assert lat.parity(site) == ("odd" if (x + y + z + t) % 2 else "even")
        assert lat.full_index(lat.parity(site), site // 2) == site
        assert lat.coords(lat.forward(site, 3))[3] == (t + 1) % 8
        assert lat.backward(lat.forward(site, 1), 1) == site


def test_lattice_errors():
    with pytest.raises(ValueError, match="Lx = 3 is odd"):
        lqcd.Lattice(3, 4, 4, 4)
    with pytest.raises(IndexError):
        lqcd.Lattice(4, 4, 4, 4).index(4, 0, 0, 0)
    with pytest.raises(IndexError):
        lqcd.Lattice(4, 4, 4, 4).coords(256)


# ---- gauge field, views, observables -----------------------------------------------------------------------

def test_unit_field_plaquette_is_one(lat):
    u = lqcd.GaugeField(lat)
    p = lqcd.plaquette(u)
    assert p.total == pytest.approx(1, abs=1e-15) and p.spatial == p.temporal == 1.0
    assert lqcd.link_trace(u) == 1.0
    assert u.links.shape == (256, 4, 3, 3) and u.links.dtype == np.complex128
    assert np.array_equal(u.links, np.broadcast_to(np.eye(3), (256, 4, 3, 3)))


def test_random_field_is_su3_and_plaquette_matches_numpy(lat, hot):
    v = hot.links
    assert np.allclose(v @ v.conj().swapaxes(-1, -2), np.eye(3), atol=1e-13)
    assert np.allclose(np.linalg.det(v), 1, atol=1e-13)
    u = v.reshape(4, 4, 4, 4, 4, 3, 3)  # [t][z][y][x][mu]
    total = 0
    for mu in range(4):
        for nu in range(mu + 1, 4):
            a, b = 3 - mu, 3 - nu
            up = (u[..., mu, :, :] @ np.roll(u[..., nu, :, :], -1, a)
                  @ np.roll(u[..., mu, :, :], -1, b).conj().swapaxes(-1, -2) @ u[..., nu, :, :].conj().swapaxes(-1, -2))
            total += np.trace(up, axis1=-2, axis2=-1).real.mean() / 3 / 6
    assert abs(lqcd.plaquette(hot).total - total) < 1e-14
    assert abs(lqcd.link_trace(hot) - np.trace(v, axis1=-2, axis2=-1).real.mean() / 3) < 1e-15


def test_gauge_view_aliases_the_cpp_field(lat):
    u = lqcd.GaugeField(lat)
    view = u.links
    assert np.shares_memory(view, u.links)
    view[5, 2] = np.diag([1j, -1j, 1])           # written through the view ...
    expected = (4 * 256 - 1 + 1 / 3) / (4 * 256)  # ... seen by the C++ link trace
    assert abs(lqcd.link_trace(u) - expected) < 1e-15
    assert u.links[5, 2, 0, 0] == 1j


def test_gauge_view_keeps_field_alive(lat):
    view = lqcd.GaugeField.random(lat, 3).links
    gc.collect()
    assert np.allclose(view[0, 0] @ view[0, 0].conj().T, np.eye(3))
    assert view.base is not None


def test_gauge_field_from_array_copies_row_major(lat, hot):
    c_order = np.ascontiguousarray(hot.links)
    u = lqcd.GaugeField(lat, c_order)
    assert np.array_equal(u.links, hot.links) and not np.shares_memory(u.links, c_order)
    assert lqcd.plaquette(u).total == lqcd.plaquette(hot).total
    assert np.array_equal(lqcd.GaugeField(lat, hot.links).links, hot.links)  # a view's own strides work too
    w = hot.copy(); w.links[0, 0] = np.eye(3)
    assert not np.array_equal(w.links[0, 0], hot.links[0, 0])


def test_gauge_bad_input_raises(lat, hot):
    good = np.ascontiguousarray(hot.links)
    with pytest.raises(ValueError, match=r"shape must be \(256, 4, 3, 3\)"):
        lqcd.GaugeField(lat, good[:10])
    with pytest.raises(ValueError, match="dtype must be complex128"):
        lqcd.GaugeField(lat, good.astype(np.complex64))
    with pytest.raises(ValueError, match="dtype must be complex128"):
        lqcd.GaugeField(lat, good.real.copy())
    big = np.zeros((256, 4, 3, 6), np.complex128)
    with pytest.raises(ValueError, match="contiguous"):
        lqcd.GaugeField(lat, big[..., ::2])
    with pytest.raises(ValueError, match="epsilon"):
        lqcd.GaugeField.near_unit(lat, 1, -1.0)


# ---- spinor fields -----------------------------------------------------------------------------------------

def test_spinor_view_aliases_and_even_odd(lat):
    psi = lqcd.SpinorField(lat)
    assert psi.data.shape == (256, 4, 3) and psi.sites == 256 and psi.subset == "full"
    psi.data[17, 2, 1] = 3 - 1j
    src = lqcd.SpinorField.point_source(lat, 17, 2, 1)
    assert np.array_equal(psi.data, 3 * src.data - 1j * src.data)
    g = lqcd.SpinorField.gaussian(lat, 5)
    odd = g.extract("odd")
    assert odd.subset == "odd" and odd.sites == 128
    for i in range(odd.sites):
        assert lat.parity(odd.site_index(i)) == "odd"
        assert np.array_equal(odd.data[i], g.data[odd.site_index(i)])
    assert np.array_equal(lqcd.SpinorField.gaussian(lat, 5, "odd").data, odd.data)
    back = lqcd.SpinorField(lat)
    back.insert(odd); back.insert(g.extract("even"))
    assert np.array_equal(back.data, g.data)
    copy = lqcd.SpinorField(lat, "full", np.ascontiguousarray(g.data))
    assert np.array_equal(copy.data, g.data)


def test_spinor_bad_input_raises(lat):
    with pytest.raises(ValueError, match=r"shape must be \(128, 4, 3\)"):
        lqcd.SpinorField(lat, "even", np.zeros((256, 4, 3), complex))
    with pytest.raises(ValueError, match="dtype"):
        lqcd.SpinorField(lat, "full", np.zeros((256, 4, 3), np.float64))
    with pytest.raises(ValueError, match="contiguous"):
        lqcd.SpinorField(lat, "full", np.zeros((512, 4, 3), complex)[::2])
    transposed = np.zeros((256, 3, 4), complex).swapaxes(1, 2)  # exactly the views' own (Eigen) strides
    assert lqcd.SpinorField(lat, "full", transposed).sites == 256
    with pytest.raises(ValueError, match="subset must be"):
        lqcd.SpinorField(lat, "all")
    with pytest.raises(ValueError, match="full"):
        lqcd.SpinorField(lat, "even").extract("odd")


# ---- gamma matrices ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("basis", BASES)
def test_gamma_algebra(basis):
    g = [lqcd.gamma(mu, basis) for mu in range(4)]
    for mu in range(4):
        assert np.allclose(g[mu], g[mu].conj().T)
        for nu in range(4):
            assert np.allclose(g[mu] @ g[nu] + g[nu] @ g[mu], 2 * (mu == nu) * np.eye(4))
    assert np.allclose(lqcd.gamma5(basis), g[0] @ g[1] @ g[2] @ g[3])
    s = lqcd.degrand_rossi_to_ukqcd()
    assert np.allclose(lqcd.gamma(3, "ukqcd"), s @ lqcd.gamma(3, "degrand-rossi") @ s.conj().T)
    with pytest.raises(ValueError, match="basis must be"):
        lqcd.gamma(0, "chiral")


# ---- Wilson operator ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("basis", BASES)
@pytest.mark.parametrize("dagger", [False, True])
@pytest.mark.parametrize("boundary", ["PPPA", "APPP"])
def test_hopping_matches_numpy_dslash(lat, hot, basis, dagger, boundary):
    psi = lqcd.SpinorField.gaussian(lat, 11)
    out = lqcd.hopping(hot, psi, basis, boundary, dagger)
    ref = numpy_dslash(hot.links, psi.data, lat.extents, basis, boundary, dagger)
    assert norm(out.data - ref) < 1e-13 * norm(ref)


@pytest.mark.parametrize("basis", BASES)
def test_free_wilson_on_plane_wave_matches_eigenvalue_formula(basis):
    lat = lqcd.Lattice(4, 4, 6, 8)
    m = 0.3
    k = np.array([1, 3, 2, 5])
    p = 2 * np.pi * k / np.array(lat.extents)
    p[3] = (2 * k[3] + 1) * np.pi / lat.extents[3]  # antiperiodic in time
    n = np.array([lat.coords(s) for s in range(lat.volume)])
    chi = np.random.default_rng(1).normal(size=(4, 3)) + 1j * np.random.default_rng(2).normal(size=(4, 3))
    psi = lqcd.SpinorField(lat, "full", np.exp(1j * n @ p)[:, None, None] * chi)
    out = lqcd.wilson(lqcd.GaugeField(lat), psi, lqcd.WilsonParams(mass=m, basis=basis))
    mp = (m + np.sum(1 - np.cos(p))) * np.eye(4) + 1j * sum(np.sin(p[mu]) * lqcd.gamma(mu, basis) for mu in range(4))
    assert norm(out.data - np.einsum("st,ntc->nsc", mp, psi.data)) < 1e-13 * norm(psi.data)


def test_wilson_pieces_and_gamma5_hermiticity(lat, hot):
    params = lqcd.WilsonParams(kappa=0.12, basis="ukqcd")
    assert abs(params.mass - (1 / 0.24 - 4)) < 1e-15 and params.kappa == pytest.approx(0.12, abs=1e-16)
    psi, phi = lqcd.SpinorField.gaussian(lat, 1), lqcd.SpinorField.gaussian(lat, 2)
    mpsi = lqcd.wilson(hot, psi, params)
    d = lqcd.hopping(hot, psi, "ukqcd")
    assert norm(mpsi.data - ((4 + params.mass) * psi.data - d.data / 2)) < 1e-13 * norm(mpsi.data)
    g5 = lqcd.gamma5("ukqcd")
    mdag = lqcd.wilson(hot, psi, params, dagger=True)
    g5mg5 = np.einsum("st,ntc->nsc", g5, lqcd.wilson(hot, lqcd.SpinorField(lat, "full", np.einsum("st,ntc->nsc", g5, psi.data)), params).data)
    assert norm(mdag.data - g5mg5) < 1e-13 * norm(mdag.data)
    assert abs(np.vdot(phi.data, mpsi.data) - np.vdot(lqcd.wilson(hot, phi, params, dagger=True).data, psi.data)) < 1e-10
    normal = lqcd.wilson_normal(hot, psi, params)
    assert norm(normal.data - lqcd.wilson(hot, mpsi, params, dagger=True).data) < 1e-13 * norm(normal.data)


def test_even_odd_pieces(lat, hot):
    params = lqcd.WilsonParams(mass=0.1)
    k = params.kappa
    psi = lqcd.SpinorField.gaussian(lat, 4)
    d = lqcd.hopping(hot, psi)
    e, o = psi.extract("even"), psi.extract("odd")
    d_eo_o, d_oe_e = lqcd.hopping_parity(hot, o), lqcd.hopping_parity(hot, e)
    assert d_eo_o.subset == "even" and d_oe_e.subset == "odd"
    assert norm(d_eo_o.data - d.extract("even").data) < 1e-13 * norm(d.data)
    assert norm(d_oe_e.data - d.extract("odd").data) < 1e-13 * norm(d.data)
    mee = lqcd.schur(hot, e, params)
    assert mee.subset == "even"
    ref = e.data - k * k * lqcd.hopping_parity(hot, lqcd.hopping_parity(hot, e)).data
    assert norm(mee.data - ref) < 1e-13 * norm(ref)
    phi = lqcd.SpinorField.gaussian(lat, 9, "even")
    lhs = np.vdot(phi.data, mee.data)
    rhs = np.vdot(lqcd.schur(hot, phi, params, dagger=True).data, e.data)
    assert abs(lhs - rhs) < 1e-11 * abs(lhs)
    sn = lqcd.schur_normal(hot, e, params)
    assert norm(sn.data - lqcd.schur(hot, mee, params, dagger=True).data) < 1e-13 * norm(sn.data)


def test_operator_errors(lat, hot):
    with pytest.raises(ValueError, match="4 \\+ m > 0"):
        lqcd.WilsonParams(mass=-5)
    with pytest.raises(ValueError, match="not both"):
        lqcd.WilsonParams(mass=0.1, kappa=0.1)
    with pytest.raises(ValueError, match="boundary"):
        lqcd.WilsonParams(boundary="PPPX")
    with pytest.raises(ValueError, match="one parity"):
        lqcd.schur(hot, lqcd.SpinorField(lat), lqcd.WilsonParams())
    with pytest.raises(ValueError):  # the C++ message: fields on different lattices
        lqcd.hopping(hot, lqcd.SpinorField(lqcd.Lattice(4, 4, 4, 8)))
    with pytest.raises(ValueError, match="full-lattice"):
        lqcd.hopping(hot, lqcd.SpinorField(lat, "even"))


# ---- solves ------------------------------------------------------------------------------------------------

def test_direct_solve_full_and_schur():
    lat = lqcd.Lattice(2, 2, 4, 4)
    u = lqcd.GaugeField.random(lat, 21)
    params = lqcd.WilsonParams(mass=0.2)
    b = lqcd.SpinorField.gaussian(lat, 3)
    x = lqcd.DirectSolver(u, params).solve(b)
    assert norm(lqcd.wilson(u, x, params).data - b.data) < 1e-12 * norm(b.data)
    # The even-odd route: M_ee x_e = b'_e, then x_o from the reconstruction, is the same solution.
    bp = lqcd.prepare_schur_source(u, b, params, "even")
    schur = lqcd.DirectSolver(u, params, parity="even")
    assert schur.subset == "even" and schur.factor_nonzeros > 0
    xe = schur.solve(bp)
    assert norm(lqcd.schur(u, xe, params).data - bp.data) < 1e-12 * norm(bp.data)
    full = lqcd.reconstruct_solution(u, xe, b, params)
    assert norm(full.data - x.data) < 1e-11 * norm(x.data)
    xdag = lqcd.DirectSolver(u, params, dagger=True).solve(b)
    assert norm(lqcd.wilson(u, xdag, params, dagger=True).data - b.data) < 1e-12 * norm(b.data)


def test_pion_correlator_of_free_field_is_time_symmetric():
    # The docs/python.md example on a small free field: C(t) = sum_x sum_columns |psi(x, t)|^2.
    lat = lqcd.Lattice(2, 2, 2, 8)
    solver = lqcd.DirectSolver(lqcd.GaugeField(lat), lqcd.WilsonParams(mass=0.5))
    lt = lat.extents[3]
    c = np.zeros(lt)
    for spin in range(4):
        for colour in range(3):
            psi = solver.solve(lqcd.SpinorField.point_source(lat, 0, spin, colour)).data
            c += (np.abs(psi) ** 2).sum(axis=(1, 2)).reshape(lt, -1).sum(axis=1)
    assert np.all(c > 0) and np.all(np.diff(c[: lt // 2 + 1]) < 0)
    assert np.allclose(c[1:], c[1:][::-1], rtol=1e-12)


# ---- Krylov solves by spec (solvers/) -----------------------------------------------------------------------

SPECS = ["bicgstab", "cg", "bicgstab:double/18/gf", "bicgstab-reliable:single:0.1", "cg-dc:half:1e-2"]


@pytest.mark.parametrize("spec", SPECS)
def test_spec_solve_meets_tolerance_and_matches_direct_solve(spec):
    lat = lqcd.Lattice(4, 4, 4, 4)
    u = lqcd.GaugeField.near_unit(lat, 1, 0.3)
    params = lqcd.WilsonParams(kappa=0.12)
    b = lqcd.SpinorField.gaussian(lat, 3)
    x, r = lqcd.solve(u, b, params, spec=spec, tolerance=1e-10)
    assert r.converged and r.status == "converged" and r.iterations > 0
    # The true residual, recomputed here with the oracle's M: below tolerance and equal to the record's
    # (for /gf the record's is that of the gauge-fixed system: equal up to the transformation's rounding).
    res = norm(lqcd.wilson(u, x, params).data - b.data) / norm(b.data)
    assert res < 1e-10 and r.true_residual < 1e-10
    assert res == pytest.approx(r.true_residual, rel=1e-6)
    assert r.flops > 0 and r.seconds >= 0 and r.operator_applications > 0
    assert (r.low_precision_applications > 0) == (":" in spec and "double" not in spec)
    # The C++ CPU solve is deterministic: the same call gives the same iterations and bit-identical x.
    x2, r2 = lqcd.solve(u, b, params, spec=spec, tolerance=1e-10)
    assert r2.iterations == r.iterations and np.array_equal(x2.data, x.data)
    xd = lqcd.DirectSolver(u, params).solve(b)
    assert norm(x.data - xd.data) < 1e-8 * norm(xd.data)


def test_spec_solve_initial_guess_and_budget(lat, hot):
    params = lqcd.WilsonParams(mass=0.5)
    b = lqcd.SpinorField.gaussian(lat, 4)
    x, r = lqcd.solve(hot, b, params)
    again, r0 = lqcd.solve(hot, b, params, x0=x)       # start at the solution: nothing left to do
    assert r0.converged and r0.iterations <= 2
    _, short = lqcd.solve(hot, b, params, spec="cg", max_iterations=3)
    assert not short.converged and short.status == "max-iterations" and short.iterations <= 3
    assert lqcd.spec_name("bicgstab-reliable:half:0.1") == "bicgstab-reliable:half:0.1"


def test_spec_solve_records_the_residual_history_on_request(lat, hot):
    params = lqcd.WilsonParams(mass=0.5)
    b = lqcd.SpinorField.gaussian(lat, 5)
    for spec in ("bicgstab", "bicgstab-reliable:half:0.1", "cg-dc:single:1e-3"):
        x, quiet = lqcd.solve(hot, b, params, spec=spec)
        y, loud = lqcd.solve(hot, b, params, spec=spec, record_history=True)
        assert quiet.residual_history == [] and len(loud.residual_history) == loud.krylov_iterations > 0
        assert loud.iterations == quiet.iterations and np.array_equal(x.data, y.data)  # recording changes nothing


def test_spec_solve_bad_input_raises(lat, hot):
    params = lqcd.WilsonParams(mass=0.5)
    b = lqcd.SpinorField.gaussian(lat, 4)
    with pytest.raises(ValueError, match="unknown solver 'bogus'"):
        lqcd.solve(hot, b, params, spec="bogus")
    with pytest.raises(ValueError, match="cpu"):                 # compressed links: the GPU backend's only
        lqcd.solve(hot, b, params, spec="bicgstab:double/12")
    with pytest.raises(ValueError, match="tolerance"):
        lqcd.solve(hot, b, params, tolerance=2.0)
    with pytest.raises(ValueError, match="full-lattice"):
        lqcd.solve(hot, b.extract("even"), params)
    with pytest.raises(ValueError):
        lqcd.spec_name("cg-dc:single")                          # eps_in missing


# ---- configuration files (reference/io/) ----------------------------------------------------------------------

@pytest.mark.parametrize("fmt,precision,order", [("nersc", "double", "big-endian"),
                                                 ("nersc", "double", "little-endian"),
                                                 ("lime", "double", "big-endian")])
def test_gauge_file_round_trip_is_bit_exact(tmp_path, hot, fmt, precision, order):
    path = str(tmp_path / ("config." + fmt))
    lqcd.write_gauge(path, hot, format=fmt, precision=precision, byte_order=order)
    u, info = lqcd.read_gauge(path)
    assert info.format == fmt and info.precision == "double" and info.extents == [4, 4, 4, 4]
    assert info.byte_order == order and info.stored_rows == 3 and info.checksums
    assert np.array_equal(u.links, hot.links)
    assert fmt in info.describe().lower() or "LIME" in info.describe()


@pytest.mark.parametrize("fmt,extra", [("nersc", {}), ("nersc", {"two_rows": True}), ("lime", {}),
                                       ("milc", {}), ("milc", {"byte_order": "little-endian"})])
def test_gauge_file_single_precision_round_trip(tmp_path, hot, fmt, extra):
    # Storing in float32 rounds each real once: the read field is within 2^-24 of the original, and writing
    # it again and reading that back is bit-exact (float32 -> double is exact).
    path, path2 = str(tmp_path / "a"), str(tmp_path / "b")
    lqcd.write_gauge(path, hot, format=fmt, precision="single", **extra)
    u, info = lqcd.read_gauge(path)
    assert info.format == fmt and info.precision == "single"
    assert info.stored_rows == (2 if extra.get("two_rows") else 3)
    assert np.max(np.abs(u.links - hot.links)) < 1e-6
    if not extra.get("two_rows"):   # two-row storage recomputes row 2 in double: not a fixed point
        lqcd.write_gauge(path2, u, format=fmt, precision="single", **extra)
        v, _ = lqcd.read_gauge(path2)
        assert np.array_equal(v.links, u.links)


def test_gauge_file_errors(tmp_path, hot):
    with pytest.raises(RuntimeError, match="nowhere"):
        lqcd.read_gauge(str(tmp_path / "nowhere"))
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a configuration file")
    with pytest.raises(RuntimeError, match="junk"):
        lqcd.read_gauge(str(junk))
    with pytest.raises(ValueError, match="format"):
        lqcd.write_gauge(str(tmp_path / "x"), hot, format="ildg")
    with pytest.raises(ValueError, match="MILC"):
        lqcd.write_gauge(str(tmp_path / "x"), hot, format="milc")
    # A flipped byte in the data fails the checksum (or the SU(3) check).
    path = tmp_path / "c"
    lqcd.write_gauge(str(path), hot)
    data = bytearray(path.read_bytes())
    data[-100] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError):
        lqcd.read_gauge(str(path))


# ---- quenched generator (reference/ensemble/) ------------------------------------------------------------------

def test_quenched_generator_is_reproducible_and_plausible():
    lat = lqcd.Lattice(4, 4, 4, 4)
    u, history = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=3)
    v, again = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=3)
    w, other = lqcd.generate_quenched(lat, beta=6.0, seed=6, sweeps=3)
    assert np.array_equal(u.links, v.links) and history == again          # same seed: bit-identical
    assert not np.array_equal(u.links, w.links) and other[-1] != history[-1]
    assert len(history) == 4 and history[0] == pytest.approx(1.0, abs=1e-15)  # cold start, 3 sweeps
    # The generator's own record of its last sweep is the plaquette of the field it returned.
    assert history[-1] == lqcd.plaquette(u).total
    assert all(0 < p < 1 for p in history[1:])
    # A continuation: more sweeps from the same seed pass through the same fields (sweep s uses stream s).
    _, longer = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=5)
    assert longer[:4] == history
    with pytest.raises(ValueError, match="sweeps"):
        lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=-1)


def test_quenched_generator_continues_a_chain_bit_for_bit():
    lat = lqcd.Lattice(4, 4, 4, 4)
    whole, history = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=5)
    first, head = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=3)
    rest, tail = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=2, initial_field=first, first_sweep=3)
    assert np.array_equal(rest.links, whole.links)                  # 3 + 2 sweeps = 5 sweeps
    assert tail[0] == head[-1] and head + tail[1:] == history       # the continuation's start is the head's end
    # Restarting with the wrong sweep number reuses streams 0 and 1: a different chain.
    other, _ = lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=2, initial_field=first)
    assert not np.array_equal(other.links, whole.links)
    with pytest.raises(ValueError, match="not both"):
        lqcd.generate_quenched(lat, beta=6.0, seed=5, sweeps=2, initial_field=first, hot_start=True)
    with pytest.raises(ValueError, match="initial_field lives on"):
        lqcd.generate_quenched(lqcd.Lattice(4, 4, 4, 8), beta=6.0, seed=5, sweeps=2, initial_field=first)


# ---- pion correlator (reference/observables/) ----------------------------------------------------------------

def test_pion_correlator_matches_direct_solves():
    # The docs/python.md example: C(t) from 12 DirectSolver solves in numpy against propagator.h's
    # PionCorrelator over 12 BiCGstab solves.
    lat = lqcd.Lattice(4, 4, 4, 8)
    u = lqcd.GaugeField.near_unit(lat, seed=1, epsilon=0.3)
    params = lqcd.WilsonParams(kappa=0.12)
    solver = lqcd.DirectSolver(u, params)
    lt = lat.extents[3]
    corr = np.zeros(lt)
    for spin in range(4):
        for colour in range(3):
            x = solver.solve(lqcd.SpinorField.point_source(lat, 0, spin, colour))
            corr += (np.abs(x.data) ** 2).sum(axis=(1, 2)).reshape(lt, -1).sum(axis=1)
    c = np.array(lqcd.pion_correlator(u, params, source_site=0, tolerance=1e-12))
    assert c.shape == (lt,)
    assert np.max(np.abs(c - corr) / corr) < 1e-10
    with pytest.raises(IndexError):
        lqcd.pion_correlator(u, params, source_site=lat.volume)
    with pytest.raises(RuntimeError, match="did not converge"):
        lqcd.pion_correlator(u, params, max_iterations=2)


def test_long_calls_release_the_gil(lat, hot):
    psi = lqcd.SpinorField.gaussian(lat, 1)
    results = [None] * 4
    def work(i):
        results[i] = lqcd.hopping(hot, psi).data.copy()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    assert all(np.array_equal(r, results[0]) for r in results)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))


def test_long_calls_report_progress_and_pass_on_the_callbacks_errors(lat, hot):
    lines = []
    _, history = lqcd.generate_quenched(lqcd.Lattice(4, 4, 4, 4), beta=6.0, seed=3, sweeps=4, progress=lines.append,
                                        progress_every=2)
    sweeps = [line for line in lines if line.startswith("sweep")]
    assert len(sweeps) == 2 and len(history) == 5                 # sweeps 2 and 4; history: start + 4 sweeps
    quiet, _ = lqcd.generate_quenched(lqcd.Lattice(4, 4, 4, 4), beta=6.0, seed=3, sweeps=4)
    loud, _ = lqcd.generate_quenched(lqcd.Lattice(4, 4, 4, 4), beta=6.0, seed=3, sweeps=4, progress=lambda _: None)
    assert np.array_equal(quiet.links, loud.links)               # reporting changes nothing
    solves = []
    c = lqcd.pion_correlator(hot, lqcd.WilsonParams(mass=0.5), progress=solves.append)
    assert [s.split(" ")[1] for s in solves] == [f"{k}/12" for k in range(1, 13)]
    assert all("converged" in s for s in solves)
    assert np.array_equal(c, lqcd.pion_correlator(hot, lqcd.WilsonParams(mass=0.5)))

    with pytest.raises(ValueError, match="backend must be"):
        lqcd.generate_quenched(lqcd.Lattice(4, 4, 4, 4), beta=6.0, seed=3, sweeps=1, backend="tpu")

    class Stop(Exception):
        pass

    def stop(_):
        raise Stop("stop here")
    with pytest.raises(Stop, match="stop here"):                 # the callback's own exception, unchanged
        lqcd.point_propagator(hot, lqcd.WilsonParams(mass=0.5), progress=stop)


# ---- Wilson-clover ----

U = 2.0**-53  # unit roundoff of double


def test_clover_with_zero_csw_is_the_wilson_operator(lat, hot):
    params = lqcd.CloverParams(mass=0.1, c_sw=0.0)
    clover = lqcd.CloverField(hot, params)
    psi = lqcd.SpinorField.gaussian(lat, 21)
    got = lqcd.wilson_clover(hot, clover, psi).data
    want = lqcd.wilson(hot, psi, params.wilson).data
    # T = (4 + m) exactly (A = 0); the two sums differ at most by their last rounding.
    assert np.max(np.abs(got - want)) <= 4 * U * np.max(np.abs(want))


def test_clover_term_matches_its_site_matrices(lat, hot):
    params = lqcd.CloverParams(kappa=0.11, c_sw=1.3)
    clover = lqcd.CloverField(hot, params)
    psi = lqcd.SpinorField.gaussian(lat, 22)
    a_psi = lqcd.wilson_clover(hot, clover, psi).data - lqcd.wilson(hot, psi, params.wilson).data
    t_psi = lqcd.clover_apply(clover, psi).data
    for site in range(0, lat.volume, 37):
        t = clover.site_matrix(site)
        assert np.allclose(t, t.conj().T, rtol=0, atol=16 * U * np.abs(t).max())       # Hermitian
        v = psi.data[site].reshape(12)                                                   # index 3 spin + colour
        ref = t @ v
        scale = np.abs(t).max() * np.abs(v).sum()                                        # |sum_j t_ij v_j| terms
        assert np.max(np.abs(t_psi[site].reshape(12) - ref)) <= 24 * U * scale
        # M psi - M_wilson psi = (T - (4 + m)) psi: the same terms plus the two operators' final roundings.
        ref_a = ref - (4 + params.mass) * v
        bound = 24 * U * scale + 4 * U * np.abs(lqcd.wilson(hot, psi, params.wilson).data[site]).max()
        assert np.max(np.abs(a_psi[site].reshape(12) - ref_a)) <= bound
        # T^{-1} T = 1 to the inverse's accuracy: condition number times a few ulps per element.
        inv = clover.site_inverse(site)
        assert np.max(np.abs(inv @ t - np.eye(12))) <= 100 * clover.max_condition * U
    back = lqcd.clover_apply(clover, lqcd.clover_apply(clover, psi), inverse=True).data
    assert norm(back - psi.data) <= 100 * clover.max_condition * U * norm(psi.data)


def test_clover_gamma5_hermiticity_and_schur_forms(lat, hot):
    params = lqcd.CloverParams(kappa=0.11, c_sw=1.0)
    clover = lqcd.CloverField(hot, params)
    phi, psi = lqcd.SpinorField.gaussian(lat, 23), lqcd.SpinorField.gaussian(lat, 24)
    lhs = np.vdot(phi.data.ravel(), lqcd.wilson_clover(hot, clover, psi).data.ravel())
    rhs = np.vdot(lqcd.wilson_clover(hot, clover, phi, dagger=True).data.ravel(), psi.data.ravel())
    assert abs(lhs - rhs) <= 1e3 * U * norm(phi.data) * norm(psi.data) * 8
    # Both even-odd forms reproduce M x = b through the library's prepare / solve / reconstruct steps.
    b = lqcd.SpinorField.gaussian(lat, 25)
    for form in ("complement", "unit-diagonal"):
        x, r = lqcd.solve_clover(hot, b, params, form=form, tolerance=1e-11, record_history=True)
        assert r.converged and r.true_residual <= 1e-11 and len(r.residual_history) == r.krylov_iterations
        residual = norm(lqcd.wilson_clover(hot, clover, x).data - b.data) / norm(b.data)
        assert residual <= 1e-11 + 1e3 * U                     # the oracle's own recompute, independent
        b_e = lqcd.prepare_clover_schur_source(hot, clover, b, parity="even", form=form)
        assert b_e.subset == "even"
        x_full = lqcd.reconstruct_clover_solution(hot, clover, x.extract("even"), b)
        assert norm(x_full.data - x.data) <= 1e3 * U * norm(x.data)   # the odd half rebuilt from the even one
    _, mixed = lqcd.solve_clover(hot, b, params, spec="bicgstab-reliable:half:0.1", tolerance=1e-10)
    assert mixed.converged and mixed.true_residual <= 1e-10


def test_clover_bad_input_raises(lat, hot):
    params = lqcd.CloverParams(mass=0.1, c_sw=1.0)
    clover = lqcd.CloverField(hot, params)
    psi = lqcd.SpinorField.gaussian(lat, 26)
    with pytest.raises(ValueError, match="mass or kappa"):
        lqcd.CloverParams(mass=0.1, kappa=0.1)
    with pytest.raises(ValueError, match="trace"):
        lqcd.CloverParams(mass=0.1, trace="full")
    with pytest.raises(ValueError, match="c_sw must be finite"):
        lqcd.CloverParams(mass=0.1, c_sw=float("nan"))
    with pytest.raises(ValueError, match="Schur form"):
        lqcd.clover_schur(hot, clover, psi.extract("even"), form="half-way")
    with pytest.raises(ValueError, match="one parity"):
        lqcd.clover_schur(hot, clover, psi)
    other = lqcd.GaugeField(lqcd.Lattice(4, 4, 4, 8))
    with pytest.raises(ValueError, match="clover field lives on"):
        lqcd.wilson_clover(other, clover, lqcd.SpinorField(other.lattice))
    with pytest.raises(IndexError):
        clover.site_matrix(lat.volume)
    with pytest.raises(ValueError, match="gf"):
        lqcd.solve_clover(hot, psi, params, spec="bicgstab:double/gf")
    assert lqcd.CloverParams.from_chroma(0.1, 1.2).trace == "with-trace"
    assert abs(lqcd.CloverParams.from_milc(0.12, 1.0, 0.9).c_sw - 1.0 / 0.9**3) <= 4 * U


# ---- propagators ----

def test_point_propagator_and_its_correlators(lat, hot):
    params = lqcd.WilsonParams(kappa=0.12)
    s = lqcd.point_propagator(hot, params, source_site=5, tolerance=1e-12)
    assert s.source_site == 5 and s.source_time == lat.coords(5)[3]
    c = np.array(lqcd.pion_correlator_of(s))
    assert np.array_equal(c, lqcd.pion_correlator(hot, params, source_site=5, tolerance=1e-12))   # the same solves
    for site in (0, 5, 77):
        m = s.at(site)
        for spin in range(4):
            for colour in range(3):
                assert np.array_equal(m[:, 3 * spin + colour], s.column(spin, colour).data[site].reshape(12))
    # M^dag's propagator gives the same C(t) through the gamma_5 contraction (Wilson is gamma_5-Hermitian in
    # DeGrand-Rossi), to the solves' accuracy: each of the 24 columns is within 1e-12 / m of the exact one
    # (|M^{-1}| <= 1 / m, |b| = 1), and C(t) is bilinear in them; 200 x that covers the 24 columns' terms.
    # A wrong contraction or basis would differ by O(1).
    dagger = lqcd.PointPropagator(lat, 5)
    for spin in range(4):
        for colour in range(3):
            b = lqcd.SpinorField.point_source(lat, 5, spin, colour)
            x, r = lqcd.solve(hot, b, params, tolerance=1e-12)
            assert r.converged
            # solve M^dag x = b as gamma_5 M gamma_5 x = b: x = gamma_5 M^{-1} gamma_5 b
            g5 = lqcd.gamma5()
            bg = lqcd.SpinorField(lat, "full", np.einsum("st,ntc->nsc", g5, b.data))
            y, r2 = lqcd.solve(hot, bg, params, tolerance=1e-12)
            dagger.set_column(spin, colour, lqcd.SpinorField(lat, "full", np.einsum("st,ntc->nsc", g5, y.data)))
    contraction = np.array(lqcd.pion_correlator_from_contraction(s, dagger))
    mass = 1 / (2 * params.kappa) - 4
    assert np.allclose(contraction.real, c, rtol=200 * 1e-12 / mass, atol=0)
    assert np.max(np.abs(contraction.imag)) <= 200 * 1e-12 / mass * np.max(c)


def test_correlator_helpers_on_exact_forms():
    lt, m = 16, 0.37
    t = np.arange(lt)
    c = np.cosh(m * (t - lt / 2))                     # a pure cosh: every cosh effective mass is m
    cosh_mass = np.array(lqcd.cosh_effective_mass(c))
    assert np.allclose(cosh_mass[np.isfinite(cosh_mass)], m, rtol=1e-12)
    e = np.exp(-m * t)                                # a pure exponential: every log effective mass is m
    assert np.allclose(lqcd.log_effective_mass(e), m, rtol=1e-13)
    folded = np.array(lqcd.fold_correlator(e))
    assert folded[0] == e[0] and np.allclose(folded[1:], folded[1:][::-1], rtol=0, atol=0)
    assert np.allclose(lqcd.kappa_normalised_correlator(e, 0.125), e / (4 * 0.125**2), rtol=1e-15)
