// Matrix R as a formulation of the sensitivity methods (formulation.h): the state in the
// independent coordinates in use (a change of choice is a change of coordinates), the steps the
// trapezoidal rule's or Dormand–Prince's, the partial derivatives by forward AD of the recursive
// kernels (or seed 003's differences for the parameters). Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

/// analytic: the tree's analytic derivative kernels where they cover the model (else, and when
/// false, forward AD of the whole pipeline).
std::unique_ptr<Formulation> matrixRFormulation(const Study& st, bool rungeKutta, Partials partials, double delta, bool analytic = true);

/// Its run on complex numbers (matrix_r_complex.cpp): `dofSets` the formulation's coordinate sets
/// (outliving the run), parameter a table index seeded by eps i.
std::unique_ptr<ComplexRun> matrixRComplexRun(const Study& st, const std::vector<std::vector<dyn::Dof>>& dofSets, bool rungeKutta,
                                              std::size_t parameter, double eps);

}  // namespace lw::sens::detail
