// Add Target Path (issue 36): positions a coupler point should pass through, clicked in the
// sketch, become a "targets" cost. Each target is timed when the point, in the mechanism's motion
// as it stands, passes nearest to it: the tuning then moves the design so that the point is there
// at that time (path generation with prescribed timing, as in four-bar-synthesis).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "mechanism/edits.h"

namespace lw::analysis {

/// Adds to `m` a point-position output of `point` (unless one exists) and a targets cost of it
/// through `positions` ("path1", ...), timed by a kinematic run over [0, tEnd] at dt (the file's
/// analysis span when set, else one second at 0.01 s, which is then stored). Refused: a
/// mechanism that is not fully driven or does not run, fewer than one position, a point of the
/// ground.
edit::EditResult addTargetPath(Mechanism& m, const Ref& point, const std::vector<Eigen::Vector2d>& positions);

}  // namespace lw::analysis
