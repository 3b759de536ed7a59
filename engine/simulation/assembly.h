// The edit guard's assembly (issue 24): an edit that changes a length or a point so that a joint
// opens in the stored configuration is closed again by the kinematic equations themselves — a
// least-squares Newton from the drawing, taking the smallest move of the points — and the
// assembled body poses are stored in the mechanism. When the loops cannot close (a link too short
// to reach), the edit is refused with the joint and the gap. Never is an open mechanism run as is.
#pragma once

#include <string>

#include "mechanism/mechanism.h"

namespace lw::analysis {

struct AssemblyResult {
  bool ok = true;           // false: the edit must be refused for `error`
  std::string error;        // "joint J1 opens by 2.41 m and the mechanism does not close again: ..."
  std::string description;  // when bodies moved: "bar_A1, bar_12 moved to close joint J1"
};

/// Closes the joints that `after` opened with respect to `before` (same joint names; a joint new
/// in `after` counts as closed before) by moving the bodies of `after`'s stored configuration.
/// A mechanism that does not resolve is left to the caller's checks (ok, nothing done). Refused:
/// loops that do not close, and a body that would move whose pose is an expression.
AssemblyResult closeOpenedJoints(const Mechanism& before, Mechanism& after);

/// Stores in `after` the configuration its dynamics starts from (Matrix R's assembly: the
/// smallest correction of the tree's coordinates from the stored configuration that closes every
/// loop, dyn::initialState): a run of the stored file then starts where a run of `after` does —
/// what a study's gradients and a tuning differentiate. Refused: a mechanism the dynamics cannot
/// assemble, a body that would move whose pose is an expression. Not resolving: nothing done.
AssemblyResult storeDynamicsStart(Mechanism& after);

}  // namespace lw::analysis
