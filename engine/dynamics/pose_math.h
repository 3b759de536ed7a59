// Small conversions between the kernels' poses (row-major arrays) and Eigen, shared by the
// mass-matrix and energy code (internal to dynamics/).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "dynamics/recursive_model.h"

namespace lw::dyn::detail {

inline Eigen::Matrix3d skew(const Eigen::Vector3d& v) {
  Eigen::Matrix3d S;
  S << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return S;
}

inline Eigen::Matrix3d rotationOf(const Pose3<double>& p) {
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(p.R);
}
inline Eigen::Vector3d originOf(const Pose3<double>& p) { return {p.x[0], p.x[1], p.x[2]}; }

/// The world centre of mass of every body.
inline void centres(const ResolvedMechanism& m, const std::vector<Pose3<double>>& poses, std::vector<Eigen::Vector3d>& r) {
  r.assign(poses.size(), Eigen::Vector3d::Zero());
  for (std::size_t b = 1; b < poses.size(); ++b) r[b] = originOf(poses[b]) + rotationOf(poses[b]) * m.bodies[b].com;
}

}  // namespace lw::dyn::detail
