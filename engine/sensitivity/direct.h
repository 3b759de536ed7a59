// The direct method (the discrete tangent linear model of seed 000 Algorithm 1): the run's steps
// differentiated as it goes, sensitivities carried beside the state, partials by forward AD or
// seed 003's semi-analytical routes. Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "sensitivity/sensitivity.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

class DirectMethod : public analysis::StepObserver {
 public:
  /// The histories' rows not yet passed on.
  virtual void flush() = 0;
  /// The costs' values and gradients at the end of the run.
  virtual void finish(Gradient& g) const = 0;
  /// What it saw at each impact: dt_e/dρ and the jumps (records left empty).
  virtual const std::vector<ImpactSensitivity>& impacts() const = 0;
};

std::unique_ptr<DirectMethod> directMethod(const Study& st, const SensitivitySpec& spec);

}  // namespace lw::sens::detail
