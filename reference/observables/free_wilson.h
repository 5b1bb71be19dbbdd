// free_wilson.h: the free-field (all links = 1) Wilson propagator in closed form, by a sum over the lattice
// momenta: the independent check of the propagator and pion-correlator code (propagator.h), which works
// in position space with the matrix-free operator and a solver.
//
// Derivation (docs/conventions.md, "Propagators and the pion correlator"): with U = 1 a plane wave
// psi(n) = e^{i p.n} u is an eigenvector of the hop, D psi = sum_mu [(1 - gamma_mu) e^{i p_mu} +
// (1 + gamma_mu) e^{-i p_mu}] psi = sum_mu [2 cos p_mu - 2 i gamma_mu sin p_mu] psi, so M = (4 + m) - D/2 acts as
//     M(p) = m + sum_mu (1 - cos p_mu) + i sum_mu gamma_mu sin p_mu  =:  a(p) + i gamma.s(p).
// Since {gamma_mu, gamma_nu} = 2 delta_{mu nu}, M(p) M(p)^dag = a^2 + s^2 =: den(p), hence
//     S(p) = M(p)^{-1} = (a(p) - i gamma.s(p)) / den(p),
//     S(x; x0) = (1/V) sum_p e^{i p.(x - x0)} S(p)  (x) 1_colour,
// summed over the momenta the boundary conditions allow: p_mu = 2 pi (k + theta_mu) / L_mu, k = 0 .. L_mu - 1,
// theta_mu = 0 (periodic) or 1/2 (antiperiodic: e^{i p_mu L_mu} = -1, the sign of a wrapping hop).
// M is normal with singular values sqrt(den(p)), so ||M^{-1}||_2 = max_p den(p)^{-1/2} (FreeWilsonInverseNorm).
// Pion correlator: writing S(x, t) = (1/V_s) sum_{p_s} e^{i p_s.x} F(p_s, t) with
//     F(p_s, t) = (1/L_t) sum_{p_t} e^{i p_t t} S(p) = alpha(p_s, t) - i gamma.beta(p_s, t),
// Parseval over the spatial sites (valid for any shifted momentum set) and tr[gamma_mu gamma_nu] = 4 delta give
//     C(t) = sum_x tr[S S^dag] = (12 / V_s) sum_{p_s} (|alpha(p_s, t)|^2 + sum_mu |beta_mu(p_s, t)|^2),
// with no gamma matrix left: the basis and the sign of gamma in the hop cannot enter.
// Errors: std::invalid_argument if 4 + m <= 0 or some allowed momentum has den(p) = 0 (a zero mode: periodic
// boundary conditions with m = 0).
// Cost: FreeWilsonPropagator O(V) per separation, FreeWilsonPionCorrelator O(V L_t).
#pragma once

#include <array>
#include <vector>

#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/lattice.h"
#include "reference/types.h"

namespace lqcd {

// The allowed momenta of direction mu: 2 pi (k + theta_mu) / L_mu, k = 0 .. L_mu - 1.
std::vector<double> AllowedMomenta(const Lattice& lattice, const FermionBoundary& boundary, int mu);

// S(p) = [m + sum(1 - cos p) + i gamma.sin p]^{-1} (4x4, in `basis`).
SpinMatrix FreeWilsonMomentumPropagator(const std::array<double, kDims>& p, double mass, GammaBasis basis);

// The spin part of S(x; x0) for the separation x - x0 (coordinates, each in (-L_mu, L_mu)); the full
// 12x12 propagator is this (x) 1_colour.
SpinMatrix FreeWilsonPropagator(const Lattice& lattice, double mass, GammaBasis basis, const FermionBoundary& boundary,
                                const Coordinates& separation);

// C(t), t = 0 .. L_t - 1 from the source time slice, of the m-normalised propagator M^{-1} (propagator.h).
std::vector<double> FreeWilsonPionCorrelator(const Lattice& lattice, double mass, const FermionBoundary& boundary);

// ||M^{-1}||_2 = max_p den(p)^{-1/2} for the free Wilson matrix.
double FreeWilsonInverseNorm(const Lattice& lattice, double mass, const FermionBoundary& boundary);

}  // namespace lqcd
