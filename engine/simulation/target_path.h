// Add Target Path (issue 36): positions a coupler point should pass through, clicked in the
// sketch, become a "targets" cost. The targets are timed in the order they were clicked along the
// point's path in the motion as it stands (the times, increasing from the first click and around
// the loop when the run is one, that put the point nearest to the clicks): the tuning then moves
// the design so that the point is there at those times (path generation with prescribed timing,
// as in four-bar-synthesis). The cost made has free timing: each target counts where the point
// passes nearest to it, so that the tuned curve passes through the clicks; the times are kept for
// a user who switches it to prescribed timing.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "mechanism/edits.h"

namespace lw::analysis {

/// The times of `clicks` along a path sampled at `times`: increasing in click order (around the
/// path from any start when it is a loop: its first and last samples coincide), the sum of
/// squared distances of the clicks from the path at their times least.
std::vector<double> clickTimes(const std::vector<Eigen::Vector2d>& path, const std::vector<double>& times,
                               const std::vector<Eigen::Vector2d>& clicks);

/// Adds to `m` a point-position output of `point` (unless one exists) and a targets cost of it
/// through `positions` ("path1", ...), timed by a kinematic run over [0, tEnd] at dt (the file's
/// analysis span when set, else one second at 0.01 s, which is then stored). Refused: a
/// mechanism that is not fully driven or does not run, fewer than one position, a point of the
/// ground.
edit::EditResult addTargetPath(Mechanism& m, const Ref& point, const std::vector<Eigen::Vector2d>& positions);

}  // namespace lw::analysis
