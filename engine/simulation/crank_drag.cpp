#include "simulation/crank_drag.h"

#include <cmath>
#include <numbers>
#include <optional>

#include "simulation/kinematics_run.h"
#include "kinematics/modular_solver.h"
#include "kinematics/structural_groups.h"

namespace lw::analysis {

std::vector<std::pair<int, int>> couplerPoints(const ResolvedMechanism& m) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t b = 1; b < m.bodies.size(); ++b)
    for (std::size_t p = 0; p < m.bodies[b].points.size(); ++p) {
      bool used = false;
      for (const auto& j : m.joints)
        for (int s = 0; s < 2; ++s)
          if (j.points[s].body == static_cast<int>(b) && j.points[s].index == static_cast<int>(p)) used = true;
      if (!used) out.emplace_back(static_cast<int>(b), static_cast<int>(p));
    }
  return out;
}

struct CrankDrag::Impl {
  kin::NaturalModel nm;
  std::optional<kin::GlobalData> global;
  std::optional<kin::ModularModel> mm;
  std::optional<kin::ModularData> md;
  Eigen::VectorXd lastGood;  // q of the last successful solve (restored after a failure)
};

std::unique_ptr<CrankDrag> CrankDrag::create(const Mechanism& mech, std::string* why) {
  auto fail = [&](const std::string& w) -> std::unique_ptr<CrankDrag> {
    if (why) *why = w;
    return nullptr;
  };
  if (mech.drivers.size() != 1 || mech.drivers[0].type != Driver::Type::Joint)
    return fail("dragging turns the driven joint: the mechanism needs exactly one joint driver");
  Mechanism m = mech;
  m.drivers[0].function = Number::expr("t");  // "time" is the joint coordinate itself
  Diagnostics d;
  auto r = resolve(m, d);
  if (!r) return fail(d.empty() ? "the mechanism does not resolve" : d.front().format());
  std::unique_ptr<CrankDrag> drag(new CrankDrag);
  drag->resolved_ = std::make_shared<const ResolvedMechanism>(std::move(*r));
  drag->joint_ = drag->resolved_->drivers[0].joint;
  drag->impl_ = std::make_unique<Impl>();
  Impl& s = *drag->impl_;
  s.nm = kin::compileNaturalModel(*drag->resolved_);
  kin::KinematicsOptions sparse;
  sparse.solver = kin::LinearSolverKind::Sparse;  // long chains: KLU for the one assembly
  s.global.emplace(s.nm, sparse);
  const lw::Status a = kin::assemble(s.nm, *s.global, 0.0);
  if (!a.ok()) return fail(a.message);
  s.mm.emplace(kin::compileModularModel(s.nm, kin::decompose(s.nm), s.global->q));
  if (!s.mm->ok()) return fail(s.mm->error);
  s.md.emplace(*s.mm);
  kin::startModular(*s.mm, *s.md, s.global->q, s.global->qd, s.global->qdd, 0.0);
  s.lastGood = s.md->q;
  appendPoses(*drag->resolved_, s.nm, s.md->q, drag->poses_);
  return drag;
}

CrankDrag::~CrankDrag() = default;

lw::Status CrankDrag::solve(double value) {
  Impl& s = *impl_;
  // large jumps in one go could land on the other assembly branch: walk there in small turns
  const double maxTurn = 0.1;
  const int pieces = std::max(1, static_cast<int>(std::ceil(std::abs(value - value_) / maxTurn)));
  const double from = value_;
  for (int k = 1; k <= pieces; ++k) {
    const double v = from + (value - from) * k / pieces;
    const lw::Status st = kin::modularStep(*s.mm, *s.md, v);
    if (!st.ok()) {
      s.md->q = s.lastGood;  // stay at the last position the mechanism could reach
      return st;
    }
    s.lastGood = s.md->q;
    value_ = v;
  }
  poses_.clear();
  appendPoses(*resolved_, s.nm, s.md->q, poses_);
  return {};
}

std::vector<std::vector<Eigen::Vector3d>> CrankDrag::couplerCurves(int samples) {
  const ResolvedMechanism& m = *resolved_;
  const std::vector<std::pair<int, int>> traced = couplerPoints(m);
  std::vector<std::vector<Eigen::Vector3d>> curves(traced.size());
  if (traced.empty()) return curves;
  Impl& s = *impl_;
  const Eigen::VectorXd keepQ = s.md->q;
  const double keepValue = value_;
  const std::vector<double> keepPoses = poses_;
  for (int k = 0; k <= samples; ++k) {
    if (k > 0 && !solve(keepValue + 2 * std::numbers::pi * k / samples).ok()) break;
    for (std::size_t c = 0; c < traced.size(); ++c) {
      const auto [b, p] = traced[c];
      const double* pose = &poses_[static_cast<std::size_t>(b) * 12];
      const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(pose);
      curves[c].push_back(Eigen::Vector3d(pose[9], pose[10], pose[11]) + R * m.bodies[static_cast<std::size_t>(b)].points[static_cast<std::size_t>(p)]);
    }
  }
  // back to where the user left it
  s.md->q = keepQ;
  s.lastGood = keepQ;
  value_ = keepValue;
  poses_ = keepPoses;
  kin::startModular(*s.mm, *s.md, keepQ, Eigen::VectorXd::Zero(keepQ.size()), Eigen::VectorXd::Zero(keepQ.size()), keepValue);
  return curves;
}

}  // namespace lw::analysis
