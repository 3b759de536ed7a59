// The global index-1 and penalty formulations (issue 39; seeds 001 §3.5, 003 §1) as formulations
// of the sensitivity methods (formulation.h): the state all the natural coordinates (q, q̇), the
// steps the trapezoidal rule's or Dormand–Prince's (ode_steps.h), f's state partials exact
// (dynamics: globalOdeJacobian), its parameter partials by seed 003's semi-analytical differences
// (GSAM: the mechanism resolved and the natural model compiled again at ρ + δ; LSAM: one element
// at a time) — the natural model has no dual-number route — and the outputs, written in the tree's
// coordinates of (q, q̇, q̈), differentiated by central differences. Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

enum class GlobalKind { Index1, Penalty, Index3 };
/// index-1 with Baumgarte's stabilisation, the global penalty formulation, or the index-3
/// augmented Lagrangian (its own trapezoidal steps; rungeKutta ignored). partials: GSAM or LSAM
/// (AD is not a route here).
std::unique_ptr<Formulation> globalFormulation(const Study& st, GlobalKind kind, bool rungeKutta, Partials partials, double delta);

}  // namespace lw::sens::detail
