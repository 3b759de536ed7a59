// The direct method (the discrete tangent linear model of seed 000 Algorithm 1), written once
// over the formulation interface (formulation.h): the run's items differentiated as it goes,
// sensitivities carried beside the state, partials by forward AD or seed 003's semi-analytical
// routes (the formulation's). Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

class DirectMethod : public PointObserver {
 public:
  /// The histories' rows not yet passed on.
  virtual void flush() = 0;
  /// The costs' values and gradients at the end of the run.
  virtual void finish(Gradient& g) const = 0;
  /// What it saw at each impact: dt_e/dρ and the jumps (records left empty).
  virtual const std::vector<ImpactSensitivity>& impacts() const = 0;
};

std::unique_ptr<DirectMethod> directMethod(const Study& st, Formulation& f, const SensitivitySpec& spec, std::vector<double> steps);

}  // namespace lw::sens::detail
