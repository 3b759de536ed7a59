// What the sketch's three files share (internal to sketch/): group colours, the snap distance, and
// the stored configuration's poses and points.
#pragma once

#include <QColor>
#include <Eigen/Core>
#include <vector>

#include "mechanism/resolved.h"

namespace lw::widgets::detail {

// group colours (colour-blind friendly); problems in red
inline const QColor kGroupColours[] = {QColor("#0072b2"), QColor("#e69f00"), QColor("#009e73"), QColor("#cc79a7"),
                                       QColor("#56b4e9"), QColor("#d55e00"), QColor("#7f7f7f"), QColor("#f0e442")};
inline const QColor kProblem("#d62728");
inline constexpr double kSnapPixels = 10;

inline QColor groupColour(int g) { return g < 0 ? QColor("#505050") : kGroupColours[g % 8]; }

// stored-configuration poses of a resolved mechanism (12 per body)
inline std::vector<double> storedPoses(const ResolvedMechanism& r) {
  std::vector<double> out;
  for (const auto& b : r.bodies) {
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) out.push_back(b.rotation(i, k));
    for (int i = 0; i < 3; ++i) out.push_back(b.position[i]);
  }
  return out;
}

inline Eigen::Vector2d worldPoint(const std::vector<double>& poses, int body, const Eigen::Vector3d& local) {
  const double* p = &poses[static_cast<std::size_t>(body) * 12];
  return {p[9] + p[0] * local.x() + p[1] * local.y() + p[2] * local.z(), p[10] + p[3] * local.x() + p[4] * local.y() + p[5] * local.z()};
}

}  // namespace lw::widgets::detail
