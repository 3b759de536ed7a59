#include "simulation/assembly.h"

#include <Eigen/Geometry>
#include <Eigen/QR>
#include <cmath>
#include <map>

#include "core/status.h"
#include "dynamics/matrix_r.h"
#include "mechanism/resolved.h"

namespace lw::analysis {
namespace {

// joint name → how far it is open in the stored configuration
std::map<std::string, double> openings(const ResolvedMechanism& r) {
  std::map<std::string, double> out;
  for (const auto& j : r.joints) out[j.name] = r.storedJointGap(j);
  return out;
}

// A driven pin's relative angle in the plane, held while the joints close: an edit of a length
// must not turn the crank (it would shift the motion's timing, which a study's targets fix)
struct HeldAngle {
  int b1, b2;
  double angle;
};
double planarAngle(const Eigen::Matrix3d& R) { return std::atan2(R(1, 0), R(0, 0)); }
double relativeAngle(const ResolvedMechanism& r, int b1, int b2) {
  const double a = planarAngle(r.bodies[static_cast<std::size_t>(b2)].rotation) - planarAngle(r.bodies[static_cast<std::size_t>(b1)].rotation);
  return std::remainder(a, 2 * M_PI);
}
std::vector<HeldAngle> drivenPins(const ResolvedMechanism& r) {
  std::vector<HeldAngle> out;
  if (r.dimension != 2) return out;
  for (const auto& d : r.drivers) {
    if (d.type != lw::Driver::Type::Joint || d.joint < 0) continue;
    const auto& j = r.joints[static_cast<std::size_t>(d.joint)];
    if (j.type != JointType::Pin) continue;
    out.push_back({j.body(0), j.body(1), relativeAngle(r, j.body(0), j.body(1))});
  }
  return out;
}

// The joints' openings as one vector (ResolvedMechanism::storedJointOffset, three per joint),
// then the held angles' changes times the length scale.
void gaps(const ResolvedMechanism& r, const std::vector<HeldAngle>& held, Eigen::VectorXd& out) {
  const auto nj = static_cast<Eigen::Index>(r.joints.size());
  out.resize(3 * nj + static_cast<Eigen::Index>(held.size()));
  for (std::size_t k = 0; k < r.joints.size(); ++k)
    out.segment<3>(3 * static_cast<Eigen::Index>(k)) = r.storedJointOffset(r.joints[k]);
  for (std::size_t h = 0; h < held.size(); ++h)
    out[3 * nj + static_cast<Eigen::Index>(h)] =
        r.lengthScale() * std::remainder(relativeAngle(r, held[h].b1, held[h].b2) - held[h].angle, 2 * M_PI);
}

// Moves the moving bodies of r's stored configuration by `step`: per body the position, then
// the rotation (the angle about z in 2D, a rotation vector in 3D) times the length scale L, so
// that a least-squares step weighs turning and sliding alike.
void moveBodies(ResolvedMechanism& r, const Eigen::VectorXd& step, double L) {
  const int per = r.dimension == 2 ? 3 : 6;
  for (std::size_t b = 1; b < r.bodies.size(); ++b) {
    const Eigen::VectorXd s = step.segment(per * static_cast<Eigen::Index>(b - 1), per);
    auto& body = r.bodies[b];
    if (r.dimension == 2) {
      body.position.head<2>() += s.head<2>();
      body.rotation = Eigen::AngleAxisd(s[2] / L, Eigen::Vector3d::UnitZ()).toRotationMatrix() * body.rotation;
    } else {
      body.position += s.head<3>();
      const Eigen::Vector3d w = s.tail<3>() / L;
      if (w.norm() > 0) body.rotation = Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix() * body.rotation;
    }
  }
}

// Gauss–Newton on the joints' gaps over the bodies' poses, each step the smallest move (minimum
// norm: the drawing changes as little as it can), damped to keep to the drawn branch; the
// Jacobian by central differences (an edit's mechanism is small). True if every gap < tol.
bool closeJoints(ResolvedMechanism& r, const std::vector<HeldAngle>& held, double tol, Eigen::VectorXd& g) {
  const double L = r.lengthScale();
  const int per = r.dimension == 2 ? 3 : 6;
  const Eigen::Index n = per * static_cast<Eigen::Index>(r.bodies.size() - 1);
  Eigen::MatrixXd J;
  Eigen::VectorXd gp, gm, e(n);
  for (int it = 0; it < 100; ++it) {
    gaps(r, held, g);
    if (g.size() == 0 || g.cwiseAbs().maxCoeff() < tol) return true;
    J.resize(g.size(), n);
    const double h = 1e-6 * L;
    for (Eigen::Index c = 0; c < n; ++c) {
      ResolvedMechanism plus = r, minus = r;
      e.setZero();
      e[c] = h;
      moveBodies(plus, e, L);
      moveBodies(minus, -e, L);
      gaps(plus, held, gp);
      gaps(minus, held, gm);
      J.col(c) = (gp - gm) / (2 * h);
    }
    Eigen::VectorXd step = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(J).solve(-g);
    const double size = step.cwiseAbs().maxCoeff();
    if (!std::isfinite(size)) return false;
    if (size > 0.2 * L) step *= 0.2 * L / size;
    moveBodies(r, step, L);
  }
  gaps(r, held, g);
  return g.cwiseAbs().maxCoeff() < tol;
}

// The poses of `moved`'s bodies stored in `after` where they differ from `stored`'s (`names`: the
// bodies moved). False, with out's error, for a body that would move whose pose is an expression.
bool storePoses(const ResolvedMechanism& stored, const ResolvedMechanism& moved, Mechanism& after, const std::string& what, AssemblyResult& out,
                std::string& names) {
  for (std::size_t b = 1; b < moved.bodies.size(); ++b) {
    const Eigen::Matrix3d& R = moved.bodies[b].rotation;
    const Eigen::Vector3d& x = moved.bodies[b].position;
    const auto& was = stored.bodies[b];
    if ((x - was.position).norm() <= 1e-9 * stored.lengthScale() && (R - was.rotation).norm() <= 1e-9) continue;
    Body& body = after.bodies[b - 1];
    const bool literal = [&] {
      for (const Number& n : body.position)
        if (!n.isLiteral()) return false;
      for (const Number& n : body.rotationAxis)
        if (!n.isLiteral()) return false;
      return body.angle.isLiteral() && body.rotationAngle.isLiteral();
    }();
    if (!literal) {
      out.ok = false;
      out.error = what + ": body " + body.name + " would have to move, but its pose is an expression";
      return false;
    }
    const int dim = after.dimension;
    body.position.assign(static_cast<std::size_t>(dim), Number(0.0));
    for (int k = 0; k < dim; ++k) body.position[static_cast<std::size_t>(k)] = Number(x[k]);
    if (dim == 2) {
      body.angle = Number(std::atan2(R(1, 0), R(0, 0)));
    } else {
      const Eigen::AngleAxisd aa(R);
      if (std::abs(aa.angle()) < 1e-15) {
        body.rotationAxis.clear();
        body.rotationAngle = Number(0.0);
      } else {
        body.rotationAxis = {Number(aa.axis().x()), Number(aa.axis().y()), Number(aa.axis().z())};
        body.rotationAngle = Number(aa.angle());
      }
    }
    names += (names.empty() ? "" : ", ") + body.name;
  }
  return true;
}

}  // namespace

AssemblyResult closeOpenedJoints(const Mechanism& before, Mechanism& after) {
  AssemblyResult out;
  Diagnostics d;
  const auto resolved = resolve(after, d);
  if (!resolved) return out;
  std::map<std::string, double> was;
  {
    Diagnostics ignored;
    if (const auto b = resolve(before, ignored)) was = openings(*b);
  }
  const double tol = 1e-6 * resolved->lengthScale();
  std::string opened;  // the joint that opened most
  double gap = 0;
  for (const auto& [name, now] : openings(*resolved)) {
    const auto w = was.find(name);
    const double then = w == was.end() ? 0.0 : w->second;
    if (now > tol && now > then + tol && now > gap) {
      gap = now;
      opened = name;
    }
  }
  if (opened.empty()) return out;

  const std::string what = "joint " + opened + " opens by " + shortNumber(gap) + " m";
  // the driven pins kept at their angles first; when the loops cannot close so, free to turn
  ResolvedMechanism moved = *resolved;
  Eigen::VectorXd g;
  const std::vector<HeldAngle> held = drivenPins(*resolved);
  bool closed = !held.empty() && closeJoints(moved, held, 1e-10 * resolved->lengthScale(), g);
  if (!closed) {
    moved = *resolved;
    closed = closeJoints(moved, {}, 1e-10 * resolved->lengthScale(), g);
  }
  if (!closed) {
    Eigen::Index worst = 0;
    g.cwiseAbs().maxCoeff(&worst);
    out.ok = false;
    out.error = what + " and the mechanism does not close again: joint " + moved.joints[static_cast<std::size_t>(worst / 3)].name +
                " stays " + shortNumber(g.segment<3>(3 * (worst / 3)).norm()) + " m open";
    return out;
  }
  std::string names;
  if (!storePoses(*resolved, moved, after, what, out, names)) return out;
  // the stored poses must now close every joint the edit opened
  Diagnostics check;
  const auto assembled = resolve(after, check);
  if (!assembled) {
    out.ok = false;
    out.error = what + " and the assembled configuration does not resolve";
    return out;
  }
  for (const auto& j : assembled->joints)
    if (assembled->storedJointGap(j) > tol && j.name == opened) {
      out.ok = false;
      out.error = what + " and the assembly leaves it " + shortNumber(assembled->storedJointGap(j)) + " m open";
      return out;
    }
  out.description = names.empty() ? std::string() : names + " moved to close joint " + opened;
  return out;
}

}  // namespace lw::analysis

namespace lw::analysis {

AssemblyResult storeDynamicsStart(Mechanism& after) {
  AssemblyResult out;
  Diagnostics d;
  const auto resolved = resolve(after, d);
  if (!resolved) return out;
  const dyn::MatrixRModel model = dyn::compileMatrixR(*resolved);
  if (!model.ok()) {
    out.ok = false;
    out.error = model.error;
    return out;
  }
  dyn::MatrixRData data(model);
  if (const Status s = dyn::initialState(model, data); !s.ok()) {
    out.ok = false;
    out.error = s.message;
    return out;
  }
  if (data.z == model.tree.z0) return out;  // assembled as stored
  ResolvedMechanism moved = *resolved;
  std::vector<dyn::Pose3<double>> poses;
  dyn::RecursiveData kernels;
  dyn::bodyPoses(model.tree, kernels, data.z, poses);
  for (std::size_t b = 1; b < moved.bodies.size(); ++b) {
    moved.bodies[b].rotation = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(poses[b].R);
    moved.bodies[b].position = Eigen::Vector3d(poses[b].x[0], poses[b].x[1], poses[b].x[2]);
  }
  std::string names;
  if (!storePoses(*resolved, moved, after, "the assembly", out, names)) return out;
  out.description = names.empty() ? std::string() : names + " moved to assemble the mechanism";
  return out;
}

}  // namespace lw::analysis
