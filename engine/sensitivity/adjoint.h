// The adjoint (the discrete adjoint of the run's steps, seed 000 Algorithm 2 on the discrete
// step), written once over the formulation interface (formulation.h): one backward pass carries
// every cost's adjoint through the transposed linearised items, whatever the number of
// parameters; the forward run is kept by its record (run_record.h: a full point every `interval`
// steps, the steps between taken again segment by segment). Internal to engine/sensitivity.
#pragma once

#include <cstddef>
#include <vector>

#include "sensitivity/formulation.h"
#include "sensitivity/run_record.h"

namespace lw::sens::detail {

struct CostSites;  // cost_integrand.h

struct AdjointStats {
  std::size_t recordBytes = 0;    // the recording (checkpoints and step list)
  std::size_t segmentBytes = 0;   // the largest segment's points and partial derivatives
  long recomputedSteps = 0;
};

/// Every chosen cost's gradient by the adjoint over the recorded run (values included). `sites`:
/// where the forward run took the targets', minimum's and maximum's terms (null without such costs).
Status adjointGradient(const Study& st, Formulation& f, const RunRecord& rec, const CostSites* sites, std::vector<double>& values,
                       Eigen::MatrixXd& gradient, AdjointStats& stats);

}  // namespace lw::sens::detail
