// Matrix R as a formulation of the sensitivity methods (formulation.h): the state in the
// independent coordinates in use (a change of choice is a change of coordinates), the steps the
// trapezoidal rule's or Dormand–Prince's, the partial derivatives by forward AD of the recursive
// kernels (or seed 003's differences for the parameters). Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

std::unique_ptr<Formulation> matrixRFormulation(const Study& st, bool rungeKutta, Partials partials, double delta);

}  // namespace lw::sens::detail
