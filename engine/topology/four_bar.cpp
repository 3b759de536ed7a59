#include "topology/four_bar.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace lw::topology {
namespace {

double degrees(double radians) { return radians * 180 / std::numbers::pi; }

// the angle of a triangle's side c opposite the other two (a, b), by the law of cosines: no
// triangle (the linkage folds before) gives 0 or 180
double opposite(double a, double b, double c) {
  return degrees(std::acos(std::clamp((a * a + b * b - c * c) / (2 * a * b), -1.0, 1.0)));
}

Eigen::Vector3d at(const ResolvedMechanism& m, ItemIndex p, const std::vector<double>& poses) {
  if (poses.empty() || p.body == 0) return m.pointWorld(p);
  const double* x = poses.data() + 12 * static_cast<std::size_t>(p.body);
  const Eigen::Matrix3d R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(x);
  return R * m.bodies[static_cast<std::size_t>(p.body)].points[static_cast<std::size_t>(p.index)] + Eigen::Vector3d(x[9], x[10], x[11]);
}

}  // namespace

std::vector<FourBarLoop> fourBarLoops(const ResolvedMechanism& m) {
  std::vector<FourBarLoop> out;
  if (m.dimension != 2) return out;
  // the ground pins: body → (joint, ground point, body point)
  struct Pin {
    int joint;
    ItemIndex ground, body;
  };
  std::vector<std::pair<int, Pin>> grounded;
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const auto& jt = m.joints[j];
    if (jt.type != JointType::Pin || !jt.points[0].valid() || !jt.points[1].valid()) continue;
    for (int side = 0; side < 2; ++side)
      if (jt.points[side].body == 0 && jt.points[1 - side].body != 0)
        grounded.push_back({jt.points[1 - side].body, {static_cast<int>(j), jt.points[side], jt.points[1 - side]}});
  }
  auto driven = [&](int joint) {
    return std::any_of(m.drivers.begin(), m.drivers.end(), [&](const auto& d) { return d.type == lw::Driver::Type::Joint && d.joint == joint; });
  };
  for (std::size_t i = 0; i < grounded.size(); ++i)
    for (std::size_t k = 0; k < grounded.size(); ++k) {
      if (i == k || grounded[i].first == grounded[k].first) continue;
      const auto& [a, pa] = grounded[i];
      const auto& [c, pc] = grounded[k];
      // each loop once: the driven link is the input, else the first listed
      if (driven(pc.joint) && !driven(pa.joint)) continue;
      if (driven(pa.joint) == driven(pc.joint) && i > k) continue;
      for (const auto& jab : m.joints) {
        if (jab.type != JointType::Pin) continue;
        for (int s1 = 0; s1 < 2; ++s1) {
          if (jab.points[s1].body != a || jab.points[1 - s1].body == 0 || jab.points[1 - s1].body == c) continue;
          const int b = jab.points[1 - s1].body;
          for (const auto& jbc : m.joints) {
            if (jbc.type != JointType::Pin) continue;
            for (int s2 = 0; s2 < 2; ++s2) {
              if (jbc.points[s2].body != c || jbc.points[1 - s2].body != b) continue;
              FourBarLoop l;
              l.input = a, l.coupler = b, l.output = c;
              l.inputJoint = pa.joint, l.outputJoint = pc.joint;
              l.groundInput = pa.ground, l.groundOutput = pc.ground;
              l.couplerInput = jab.points[1 - s1], l.couplerOutput = jbc.points[1 - s2];
              l.inputPivot = pa.body, l.inputPin = jab.points[s1];
              l.outputPivot = pc.body, l.outputPin = jbc.points[s2];
              l.ground = (m.pointWorld(pa.ground) - m.pointWorld(pc.ground)).norm();
              l.crank = (m.pointWorld(pa.body) - m.pointWorld(jab.points[s1])).norm();
              l.link = (m.pointWorld(jab.points[1 - s1]) - m.pointWorld(jbc.points[1 - s2])).norm();
              l.rocker = (m.pointWorld(jbc.points[s2]) - m.pointWorld(pc.body)).norm();
              std::array<double, 4> sorted{l.ground, l.crank, l.link, l.rocker};
              std::sort(sorted.begin(), sorted.end());
              const double sl = sorted[0] + sorted[3], pq = sorted[1] + sorted[2];
              const double tol = 1e-9 * sorted[3];
              l.grashof = sl <= pq + tol;
              l.changePoint = std::abs(sl - pq) <= tol;
              const double shortest = sorted[0];
              if (!l.grashof) l.type = "triple-rocker";
              else if (std::abs(l.ground - shortest) <= tol) l.type = "double-crank";
              else if (std::abs(l.crank - shortest) <= tol || std::abs(l.rocker - shortest) <= tol) l.type = "crank-rocker";
              else l.type = "double-rocker";
              // the input collinear with the ground: the diagonal from its pin to the output pivot is d − a or d + a
              l.minTransmission = opposite(l.link, l.rocker, std::abs(l.ground - l.crank));
              l.maxTransmission = opposite(l.link, l.rocker, l.ground + l.crank);
              out.push_back(l);
            }
          }
        }
      }
    }
  return out;
}

double transmissionAngle(const ResolvedMechanism& m, const FourBarLoop& l, const std::vector<double>& poses) {
  const Eigen::Vector3d C = at(m, l.couplerOutput, poses);
  const Eigen::Vector3d u = at(m, l.couplerInput, poses) - C;  // along the coupler
  const Eigen::Vector3d v = at(m, l.groundOutput, poses) - C;  // along the output link
  return degrees(std::acos(std::clamp(u.dot(v) / (u.norm() * v.norm()), -1.0, 1.0)));
}

}  // namespace lw::topology
