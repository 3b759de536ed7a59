#include "analysis/kinematics_run.h"

#include "analysis/csv.h"
#include "analysis/result_size.h"

#include <Eigen/Geometry>
#include <cmath>
#include <sstream>

#include "kinematics/modular_solver.h"
#include "topology/structural_groups.h"

namespace lw::analysis {

const char* toString(KinematicsMethod m) {
  switch (m) {
    case KinematicsMethod::GlobalDense: return "global-dense";
    case KinematicsMethod::GlobalSparse: return "global-sparse";
    case KinematicsMethod::ModularTD: return "modular-td";
    case KinematicsMethod::Modular3OT: return "modular-3ot";
  }
  return "?";
}

bool parseKinematicsMethod(const std::string& s, KinematicsMethod& out) {
  for (auto m : {KinematicsMethod::GlobalDense, KinematicsMethod::GlobalSparse, KinematicsMethod::ModularTD,
                 KinematicsMethod::Modular3OT})
    if (s == toString(m)) {
      out = m;
      return true;
    }
  return false;
}

namespace {

void appendRow(const ResolvedMechanism& m, const kin::NaturalModel& nm, double t, const Eigen::VectorXd& q,
               const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, std::vector<double>& out) {
  const int dim = m.dimension;
  out.push_back(t);
  const std::size_t start = out.size();
  std::size_t count = 0;
  for (std::size_t b = 1; b < m.bodies.size(); ++b) count += m.bodies[b].points.size();
  out.resize(start + 3 * count * static_cast<std::size_t>(dim));
  std::size_t k = 0;
  Eigen::Vector3d r, v, a;
  for (std::size_t b = 1; b < m.bodies.size(); ++b)
    for (std::size_t p = 0; p < m.bodies[b].points.size(); ++p, ++k) {
      kin::pointKinematics(nm, static_cast<int>(b), static_cast<int>(p), q, qd, qdd, &r, &v, &a);
      for (int i = 0; i < dim; ++i) {
        out[start + k * static_cast<std::size_t>(dim) + static_cast<std::size_t>(i)] = r[i];
        out[start + (count + k) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(i)] = v[i];
        out[start + (2 * count + k) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(i)] = a[i];
      }
    }
}

}  // namespace

// Body poses from the natural coordinates: the rotation that carries the body's stored base
// directions to the current ones, the position from its origin entity.
void appendPoses(const ResolvedMechanism& m, const kin::NaturalModel& nm, const Eigen::VectorXd& q,
                 std::vector<double>& out) {
  auto value = [&](int e) {
    const auto& en = nm.entities[static_cast<std::size_t>(e)];
    if (en.fixed()) return Eigen::Vector3d(en.value);
    Eigen::Vector3d v = Eigen::Vector3d::Zero();
    v.head(nm.dimension) = q.segment(en.offset, nm.dimension);
    return v;
  };
  auto stored = [&](int e) { return Eigen::Vector3d(nm.entities[static_cast<std::size_t>(e)].value); };
  auto dir = [&](const kin::Direction& d, bool now) {
    const Eigen::Vector3d a = now ? value(d.a) : stored(d.a);
    return d.b < 0 ? a : Eigen::Vector3d(a - (now ? value(d.b) : stored(d.b)));
  };
  auto frame = [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {  // orthonormal, columns
    const Eigen::Vector3d e1 = a.normalized(), e3 = a.cross(b).normalized(), e2 = e3.cross(e1);
    Eigen::Matrix3d F;
    F << e1, e2, e3;
    return F;
  };
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    Eigen::Matrix3d R = m.bodies[b].rotation;
    Eigen::Vector3d x = m.bodies[b].position;
    const auto& f = nm.bodies[b];
    if (b > 0 && f.origin >= 0) {
      Eigen::Matrix3d delta = Eigen::Matrix3d::Identity();
      const Eigen::Vector3d a0 = dir(f.d[0], false), a1 = dir(f.d[0], true);
      if (nm.dimension == 2) {
        delta = Eigen::AngleAxisd(std::atan2(a1.y(), a1.x()) - std::atan2(a0.y(), a0.x()), Eigen::Vector3d::UnitZ()).toRotationMatrix();
      } else if (f.spinFree) {
        delta = Eigen::Quaterniond::FromTwoVectors(a0, a1).toRotationMatrix();
      } else {
        delta = frame(a1, dir(f.d[1], true)) * frame(a0, dir(f.d[1], false)).transpose();
      }
      R = delta * m.bodies[b].rotation;
      const Eigen::Vector3d originLocal = m.bodies[b].rotation.transpose() * (stored(f.origin) - m.bodies[b].position);
      x = value(f.origin) - R * originLocal;
    }
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) out.push_back(R(i, k));
    for (int i = 0; i < 3; ++i) out.push_back(x[i]);
  }
}


KinematicsResult runKinematics(const ResolvedMechanism& m, const KinematicsSpec& spec, const Progress& progress,
                               const std::atomic<bool>* cancel) {
  KinematicsResult result;
  const char* axes[] = {"x", "y", "z"};
  result.columns.push_back("time");
  for (const char* prefix : {"", "v", "a"})
    for (std::size_t b = 1; b < m.bodies.size(); ++b)
      for (const auto& p : m.bodies[b].pointNames)
        for (int k = 0; k < m.dimension; ++k)
          result.columns.push_back(m.bodies[b].name + "." + p + "." + prefix + axes[k]);
  // before any solving: a time span that makes no run, or rows that cannot fit, are refused at once
  if (auto problem = timeSpanProblem(spec.tEnd, spec.dt); !problem.empty()) {
    result.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return result;
  }
  const long steps = std::lround(spec.tEnd / spec.dt);
  const bool streamed = static_cast<bool>(spec.rows);
  if (auto problem = streamed ? std::string() : resultSizeProblem(static_cast<double>(steps + 1),
                                       static_cast<double>(result.columns.size() + 12 * m.bodies.size()), spec.maxResultBytes,
                                       "use a longer time step, or shorten the run");
      !problem.empty()) {
    result.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return result;
  }

  if (auto problem = overDriven(m); !problem.empty()) {
    result.status = lw::failure(lw::Status::Code::Overdriven, 0, problem);
    return result;
  }
  const kin::NaturalModel nm = kin::compileNaturalModel(m);
  kin::KinematicsOptions options;
  options.solver = spec.method == KinematicsMethod::GlobalDense ? kin::LinearSolverKind::Dense : kin::LinearSolverKind::Sparse;
  kin::GlobalData global(nm, options);
  result.status = kin::assemble(nm, global, 0.0);
  if (!result.status.ok()) return result;

  const bool modular = spec.method == KinematicsMethod::ModularTD || spec.method == KinematicsMethod::Modular3OT;
  std::optional<kin::ModularModel> mm;
  std::optional<kin::ModularData> md;
  if (modular) {
    mm = kin::compileModularModel(nm, topology::decompose(nm), global.q);
    if (!mm->ok()) {
      result.status.code = lw::Status::Code::NotDriven;
      result.status.message = mm->error;
      return result;
    }
    result.decomposition = topology::describe(mm->decomposition, m);
    md.emplace(*mm, options);
    md->acceleration = spec.method == KinematicsMethod::Modular3OT ? kin::AccelerationMethod::ThirdOrderTensor
                                                                     : kin::AccelerationMethod::TD;
    kin::startModular(*mm, *md, global.q, global.qd, global.qdd, 0.0);
  }
  if (!streamed) result.values.reserve(static_cast<std::size_t>(steps + 1) * result.columns.size());
  // a streamed run passes its rows on in blocks and keeps none
  auto send = [&] { sendRows(spec.rows, result.columns, result.values, result.sentRows); };
  for (long i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) * spec.dt;
    // a driver whose function is not finite at t (1/(t − 0.02) at 0.02) is named as such, not
    // found later as a dyad whose points are "nan m apart"
    if (auto problem = driverNotFiniteAt(m, t); !problem.empty()) {
      result.status = lw::failure(lw::Status::Code::BadRequest, t, problem);
      break;
    }
    if (i > 0) {
      result.status = modular ? kin::modularStep(*mm, *md, t) : kin::solveStep(nm, global, t);
      if (!result.status.ok()) break;
    }
    if (modular) appendRow(m, nm, t, md->q, md->qd, md->qdd, result.values);
    else appendRow(m, nm, t, global.q, global.qd, global.qdd, result.values);
    if (auto problem = nonFiniteInLastRow(result.columns, result.values); !problem.empty()) {
      result.values.resize(result.values.size() - result.columns.size());
      result.status = lw::failure(lw::Status::Code::NotConverged, t, problem);
      break;
    }
    if (!streamed) appendPoses(m, nm, modular ? md->q : global.q, result.poses);
    if (result.values.size() >= 256 * result.columns.size()) send();
    if (progress && (i % 64 == 0 || i == steps)) progress(steps ? static_cast<double>(i) / static_cast<double>(steps) : 1.0);
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      result.status.code = lw::Status::Code::Cancelled;
      result.status.message = "cancelled at t = " + std::to_string(t);
      result.status.time = t;
      break;
    }
  }
  send();
  return result;
}

std::string overDriven(const ResolvedMechanism& m) {
  if (m.drivers.empty()) return {};
  const kin::NaturalModel nm = kin::compileNaturalModel(m);
  kin::GlobalData data(nm);
  if (!kin::assemble(nm, data, 0.0).ok()) return {};  // the analysis itself says why it cannot assemble
  const kin::NumericalMobility mob = kin::numericalMobility(nm, data.q);
  if (mob.rankWithDrivers >= mob.rank + mob.drivers) return {};
  std::string names;
  for (std::size_t i = 0; i < m.drivers.size(); ++i) names += (i ? ", '" : "'") + m.drivers[i].name + "'";
  return "over-driven: " + std::to_string(mob.drivers) + " driver(s) (" + names + ") for " + std::to_string(mob.dof) +
         " DOF; " + std::to_string(mob.rank + mob.drivers - mob.rankWithDrivers) +
         " of them repeat or contradict the others: remove or free one";
}

std::string driverNotFiniteAt(const ResolvedMechanism& m, double t) {
  for (const auto& d : m.drivers) {
    const double v = d.function.value(t), r = d.function.rate(t), a = d.function.acceleration(t);
    if (std::isfinite(v) && std::isfinite(r) && std::isfinite(a)) continue;
    std::ostringstream s;
    s << "the driver '" << d.name << "' is not finite at t = " << t << ": its function " << d.function.expression().text() << " gives "
      << (std::isfinite(v) ? (std::isfinite(r) ? "an acceleration of " : "a rate of ") : "") << (std::isfinite(v) ? (std::isfinite(r) ? a : r) : v);
    return s.str();
  }
  return {};
}

std::string toCsv(const KinematicsResult& r) { return tableToCsv(r.columns, r.values); }

}  // namespace lw::analysis
