// The complex step (the reference), written once over the formulation interface: the recorded run
// (every point kept) again on complex numbers, one parameter at a time (h = 1e-30 i), the same
// steps, choices of coordinates and events; each cost's gradient the imaginary part of its value
// over h. Internal to engine/sensitivity.
#pragma once

#include "sensitivity/formulation.h"
#include "sensitivity/run_record.h"

namespace lw::sens::detail {

/// One parameter's gradient of every cost by the complex step over `rec` (recorded with every
/// point saved: interval 1); with `eventTimes`, each impact's dt_e/dρ (the event time's imaginary
/// move over h), in the record's order.
Status complexStepGradient(const Study& st, Formulation& f, const RunRecord& rec, std::size_t parameter, std::vector<double>& gradient,
                           std::vector<double>* eventTimes = nullptr);

}  // namespace lw::sens::detail
