// Live dragging of a driven mechanism (issue 5): the user turns the driven joint with the mouse and
// the modular (structural-group) solver follows from the last configuration, so the assembly branch
// is kept. The driver's function is replaced by its value itself ("t" = the joint coordinate), so one
// compiled model serves every mouse move; no allocation per solve.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kinematics/global_solver.h"
#include "mechanism/mechanism.h"
#include "mechanism/resolved.h"

namespace lw::analysis {

/// The coupler points of a mechanism: points of moving bodies that no joint uses (body, point).
std::vector<std::pair<int, int>> couplerPoints(const ResolvedMechanism& m);

class CrankDrag {
 public:
  /// A drag of mechanism `m` by its single joint driver; null with `why` when the mechanism is not
  /// driven by exactly one joint driver, or does not assemble or decompose.
  static std::unique_ptr<CrankDrag> create(const Mechanism& m, std::string* why);
  ~CrankDrag();

  /// Solves at driven-joint coordinate `value` (relative to the stored configuration).
  lw::Status solve(double value);
  /// The value of the last successful solve.
  double value() const { return value_; }
  /// Body poses of the last successful solve (12 numbers per body).
  const std::vector<double>& poses() const { return poses_; }
  const ResolvedMechanism& resolved() const { return *resolved_; }
  /// The driven joint (index into resolved().joints).
  int joint() const { return joint_; }
  /// Paths of the points no joint uses (coupler points) over one turn of the driven joint from
  /// the current configuration (samples per turn; stops at a position the mechanism cannot reach).
  std::vector<std::vector<Eigen::Vector3d>> couplerCurves(int samples = 180);

 private:
  CrankDrag() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<const ResolvedMechanism> resolved_;
  std::vector<double> poses_;
  double value_ = 0;
  int joint_ = -1;
};

}  // namespace lw::analysis
