// Seed 003's semi-analytical partials (internal to engine/sensitivity): the model's numbers with
// each chosen parameter moved by δ_k, all of the system at once (global, GSAM) or one element at
// a time with the others nominal (local, LSAM: a body, a force, a driver, a contact, an initial
// velocity, the gravity). A direct method takes a parameter's partial of any system-level term as
// Σ over its sets (f(moved) − f(nominal)) / δ_k, at the frozen state.
#pragma once

#include <memory>
#include <vector>

#include "sensitivity/sensitivity.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

struct MovedNumbers {
  std::vector<double> deltas;  // by chosen parameter: δ_k = delta · max(1, |ρ_k|)
  std::vector<std::vector<std::unique_ptr<NumbersOn<double>>>> moved;  // by chosen parameter: GSAM one set, LSAM one per element
};
MovedNumbers movedNumbers(const Study& st, Partials partials, double delta);

/// The same moves on the resolved mechanism, set for set as movedNumbers' (what a model compiled
/// from it rather than from the numbers — the global formulations' natural model — differences):
/// GSAM the mechanism resolved again with ρ_k + δ_k, LSAM the nominal one with the element's
/// part taken from that. Empty with AD.
std::vector<std::vector<std::shared_ptr<const ResolvedMechanism>>> movedMechanisms(const Study& st, Partials partials, double delta);

}  // namespace lw::sens::detail
