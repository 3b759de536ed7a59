// Scalable benchmark mechanisms, generated rather than stored.
#pragma once

#include "mechanism/mechanism.h"

namespace lw::generate {

/// Seed 002 §3.1: a crank A–B (2 m) followed by `dyads` RRR dyads (rods and rockers 6 m); ground
/// pivots A = (0, 0), D_k = (6k, 0); crank at θ₀ = π/2 driven at 34.96 rad/s; the first loop is a
/// Grashof crank-rocker, the others parallelograms. nEq = 2·dyads + 2. Needs dyads ≥ 1.
Mechanism fourBarChain(int dyads);

/// Seed 002 §3.2: a crank (2 m) about Z at the origin driving `units` rods (6 m, spherical at both
/// ends) and sliders on lines through the origin (a radial engine; line k at azimuth 2πk/units,
/// 30° out of the crank plane). Each rod keeps a passive spin freedom. nEq = 8·units + 6.
Mechanism crankSlider3d(int units);

/// Seed 004 §6.3 as shared/reference/benchmark-mechanisms.md defines it: `columns` × `rows`
/// unit squares of 1 kg, 1 m bars hanging in −Z from ground pivots, parallel X revolute joints,
/// the top vertical of chain 0 starting at π/3 rad/s.
Mechanism grid(int columns, int rows);

/// The grid with design parameters for sensitivity studies (rows + 3 of them): m_v (every
/// vertical bar's mass), m_h_r (the mass of row r's horizontal bars), g (gravity) and w0 (the top
/// vertical's initial rate), at the grid's values, and a cost ψ = ∫ (BL.y² + MID.z²) dt: how far
/// the bottom-left node swings out and the middle node rises.
Mechanism gridWithParameters(int columns, int rows);

}  // namespace lw::generate
