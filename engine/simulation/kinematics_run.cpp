#include "simulation/kinematics_run.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <optional>

#include "dynamics/matrix_r.h"
#include "dynamics/reactions.h"
#include "outputs/csv.h"
#include "outputs/outputs.h"
#include "simulation/result_size.h"

#include <Eigen/Geometry>
#include <cmath>
#include <sstream>

#include "kinematics/modular_solver.h"
#include "kinematics/structural_groups.h"

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

// The file's outputs from a row of point columns and the bodies' poses: a point's its columns; a
// joint coordinate absolute as in the dynamics (analysis/outputs.h): planar, the angle of R1ᵀR2;
// spatial, the rotation about the joint's axis since the stored configuration; a slide, the
// distance along body 1's axis; a planar joint's rate from two points of each body.
struct RowOutputs {
  struct Item {
    Output::Type type = Output::Type::PointPosition;
    int column = -1;          // point outputs: the row's column (offset from the row's start)
    int joint = -1;
    bool angle = true;
    int points[2][2] = {{-1, -1}, {-1, -1}};  // spring: (body, point) of each end
    int body = -1, axis = 0, driver = -1;     // a joint's reaction on body (component axis); a driver's effort
  };
  // the joints' reactions and the drivers' efforts: inverse dynamics on the tree at each row (the
  // drivers set every coordinate: Matrix R with no independent coordinate gives z, ż, z̈)
  struct Inverse {
    dyn::MatrixRModel model;
    std::unique_ptr<dyn::MatrixRData> data;
    std::unique_ptr<dyn::ReactionsOn<double>> reactions;
  };
  std::unique_ptr<Inverse> inverse;
  std::vector<std::string> names;
  std::vector<Item> items;
  std::size_t count = 0;                 // moving bodies' points
  std::vector<std::size_t> firstPoint;   // by body: its first point among them
  mutable std::vector<double> last;      // by item: the previous row's value (angles are unwrapped)

  void compile(const Mechanism& mech, const ResolvedMechanism& m) {
    const char* axes = "xyz";
    firstPoint.assign(m.bodies.size(), 0);
    for (std::size_t b = 1; b < m.bodies.size(); ++b) {
      firstPoint[b] = count;
      count += m.bodies[b].points.size();
    }
    auto pointAt = [&](const Ref& ref, int& body, int& index) {
      body = m.findBody(ref.body);
      index = -1;
      if (body < 0) return;
      const auto& pointNames = m.bodies[static_cast<std::size_t>(body)].pointNames;
      const auto it = std::find(pointNames.begin(), pointNames.end(), ref.item);
      if (it != pointNames.end()) index = static_cast<int>(it - pointNames.begin());
    };
    for (const Output& o : mech.outputs) {
      Item item;
      item.type = o.type;
      switch (o.type) {
        case Output::Type::PointPosition:
        case Output::Type::PointVelocity:
        case Output::Type::PointAcceleration: {
          int body = -1, index = -1;
          pointAt(o.point, body, index);
          if (body <= 0 || index < 0) continue;  // the ground's points do not move: not in the rows
          const std::size_t block = o.type == Output::Type::PointPosition ? 0 : o.type == Output::Type::PointVelocity ? 1 : 2;
          for (int k = 0; k < m.dimension; ++k) {
            item.column = static_cast<int>(1 + (block * count + firstPoint[static_cast<std::size_t>(body)] + static_cast<std::size_t>(index)) *
                                                    static_cast<std::size_t>(m.dimension) + static_cast<std::size_t>(k));
            names.push_back(o.name + "." + axes[k]);
            items.push_back(item);
          }
          continue;
        }
        case Output::Type::JointCoordinate:
        case Output::Type::JointRate:
          item.joint = m.findJoint(o.joint);
          if (item.joint < 0) continue;
          {
            const auto& jt = m.joints[static_cast<std::size_t>(item.joint)];
            item.angle = !(jt.type == JointType::Slider || jt.type == JointType::Prismatic);
            if (!item.angle && !jt.axes[0].valid()) continue;
            // a rate from the rows: planar rotations (two points on each moving body); slides along
            // a ground axis, or a planar body's (two points on it)
            if (o.type == Output::Type::JointRate) {
              auto twoPoints = [&](int b) { return b == 0 || m.bodies[static_cast<std::size_t>(b)].points.size() >= 2; };
              const bool measurable = item.angle ? m.dimension == 2 && twoPoints(jt.body(0)) && twoPoints(jt.body(1))
                                                 : jt.body(0) == 0 || (m.dimension == 2 && twoPoints(jt.body(0)));
              if (!measurable) continue;
            }
          }
          break;
        case Output::Type::SpringLength: {
          const auto it = std::find_if(mech.forces.begin(), mech.forces.end(), [&](const Force& f) { return f.name == o.spring; });
          if (it == mech.forces.end()) continue;
          pointAt(it->points[0], item.points[0][0], item.points[0][1]);
          pointAt(it->points[1], item.points[1][0], item.points[1][1]);
          break;
        }
        case Output::Type::Energy:
        case Output::Type::ConstraintResidual: continue;  // the dynamics' columns
        case Output::Type::JointReaction: {
          item.joint = m.findJoint(o.joint);
          item.body = m.findBody(o.on);
          for (const auto& [axis, suffix] : reactionComponents(m.dimension)) {
            item.axis = axis;
            names.push_back(o.name + "." + suffix);
            items.push_back(item);
          }
          needInverse(m);
          continue;
        }
        case Output::Type::DriverEffort:
          for (std::size_t d = 0; d < m.drivers.size(); ++d)
            if (m.drivers[d].name == o.driver) item.driver = static_cast<int>(d);
          needInverse(m);
          break;
      }
      names.push_back(o.name);
      items.push_back(item);
    }
  }

  void needInverse(const ResolvedMechanism& m) {
    if (inverse) return;
    inverse = std::make_unique<Inverse>();
    inverse->model = dyn::compileMatrixR(m);
    inverse->data = std::make_unique<dyn::MatrixRData>(inverse->model);
    if (!inverse->model.ok() || !dyn::initialState(inverse->model, *inverse->data).ok()) return;
    inverse->reactions = std::make_unique<dyn::ReactionsOn<double>>(inverse->model.tree, inverse->model.rows);
  }

  // the tree's state at t and its reactions; false when it cannot be had (the row's reactions NaN)
  bool reactionsAt(double t) const {
    if (!inverse || !inverse->reactions) return false;
    dyn::MatrixRData& d = *inverse->data;
    const Eigen::VectorXd none;
    if (!d.dofs.empty() || !dyn::evaluate(inverse->model, d, t, none, none).ok()) return false;
    return inverse->reactions->compute(inverse->model.tree.numbers, d.z.data(), d.zd.data(), d.zdd.data(), t);
  }

  // `row`: the row's values (time first); `poses`: 12 per body
  void append(const ResolvedMechanism& m, double t, const double* row, const std::vector<double>& poses, std::vector<double>& out) const {
    const bool first = last.empty();
    const bool reactions = inverse && reactionsAt(t);
    last.resize(items.size());
    auto R = [&](int b) { return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(&poses[12 * static_cast<std::size_t>(b)]); };
    auto X = [&](int b) { return Eigen::Map<const Eigen::Vector3d>(&poses[12 * static_cast<std::size_t>(b) + 9]); };
    auto point = [&](int b, int i) { return Eigen::Vector3d(X(b) + R(b) * m.bodies[static_cast<std::size_t>(b)].points[static_cast<std::size_t>(i)]); };
    for (const Item& item : items) {
      double v = std::numeric_limits<double>::quiet_NaN();
      switch (item.type) {
        case Output::Type::PointPosition:
        case Output::Type::PointVelocity:
        case Output::Type::PointAcceleration: v = row[item.column]; break;
        case Output::Type::JointCoordinate: {
          const auto& jt = m.joints[static_cast<std::size_t>(item.joint)];
          const int b1 = jt.body(0), b2 = jt.body(1);
          if (!item.angle) {
            if (jt.axes[0].valid())
              v = (point(b2, jt.points[1].index) - point(b1, jt.points[0].index)).dot(R(b1) * m.bodies[static_cast<std::size_t>(b1)].vectors[static_cast<std::size_t>(jt.axes[0].index)]);
            break;
          }
          const Eigen::Matrix3d rel = R(b1).transpose() * R(b2);
          if (m.dimension == 2) {
            v = std::atan2(rel(1, 0), rel(0, 0));
          } else {  // the turn about body 1's axis since the stored configuration
            const auto& B1 = m.bodies[static_cast<std::size_t>(b1)];
            const auto& B2 = m.bodies[static_cast<std::size_t>(b2)];
            const Eigen::Matrix3d d = rel * (B1.rotation.transpose() * B2.rotation).transpose();
            const Eigen::Vector3d u = jt.axes[0].valid() ? B1.vectors[static_cast<std::size_t>(jt.axes[0].index)] : Eigen::Vector3d::UnitZ();
            const Eigen::Vector3d w(d(2, 1) - d(1, 2), d(0, 2) - d(2, 0), d(1, 0) - d(0, 1));
            v = std::atan2(0.5 * w.dot(u), 0.5 * (d.trace() - 1));
          }
          // continuous through ±π, as the dynamics' stored angle plus coordinate is: a crank that
          // turns reads 60°, 150°, 240°, not −120°
          if (!first) v += 2 * M_PI * std::round((last[static_cast<std::size_t>(&item - items.data())] - v) / (2 * M_PI));
          break;
        }
        case Output::Type::JointRate: {  // planar: ω₂ − ω₁, each from two points' positions and velocities
          const auto& jt = m.joints[static_cast<std::size_t>(item.joint)];
          auto omega = [&](int b) {
            if (b == 0) return 0.0;
            const std::size_t p0 = firstPoint[static_cast<std::size_t>(b)], dim = 2;
            const double* r0 = row + 1 + p0 * dim, *r1 = r0 + dim;
            const double* v0 = row + 1 + (count + p0) * dim, *v1 = v0 + dim;
            const double dx = r1[0] - r0[0], dy = r1[1] - r0[1], dvx = v1[0] - v0[0], dvy = v1[1] - v0[1];
            return (dx * dvy - dy * dvx) / (dx * dx + dy * dy);
          };
          if (item.angle) {
            v = omega(jt.body(1)) - omega(jt.body(0));
            break;
          }
          // a slide s = (p₂ − p₁)·a with a = R₁ a₁: ṡ = (v₂ − v₁)·a + (p₂ − p₁)·(ω₁ × a)
          const int b1 = jt.body(0), b2 = jt.body(1);
          const auto dim = static_cast<std::size_t>(m.dimension);
          auto velocity = [&](int b, int i) {
            Eigen::Vector3d vel = Eigen::Vector3d::Zero();
            if (b == 0) return vel;
            const double* p = row + 1 + (count + firstPoint[static_cast<std::size_t>(b)] + static_cast<std::size_t>(i)) * dim;
            for (std::size_t k = 0; k < dim; ++k) vel[static_cast<Eigen::Index>(k)] = p[k];
            return vel;
          };
          const Eigen::Vector3d a = R(b1) * m.bodies[static_cast<std::size_t>(b1)].vectors[static_cast<std::size_t>(jt.axes[0].index)];
          const Eigen::Vector3d d = point(b2, jt.points[1].index) - point(b1, jt.points[0].index);
          v = (velocity(b2, jt.points[1].index) - velocity(b1, jt.points[0].index)).dot(a) + d.dot(Eigen::Vector3d(0, 0, omega(b1)).cross(a));
          break;
        }
        case Output::Type::SpringLength:
          if (item.points[0][1] >= 0 && item.points[1][1] >= 0)
            v = (point(item.points[1][0], item.points[1][1]) - point(item.points[0][0], item.points[0][1])).norm();
          break;
        case Output::Type::Energy:
        case Output::Type::ConstraintResidual: break;
        case Output::Type::JointReaction:
          if (reactions && item.joint >= 0 && item.body >= 0) {
            double w[6];
            inverse->reactions->jointReaction(item.joint, item.body, w);
            v = w[item.axis];
          }
          break;
        case Output::Type::DriverEffort:
          if (reactions && item.driver >= 0) v = inverse->reactions->driverEffort(item.driver);
          break;
      }
      last[static_cast<std::size_t>(&item - items.data())] = v;
      out.push_back(v);
    }
  }
};

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
  // the stored frame as each body's own stored pose places it (not a merged entity's other side)
  const kin::BodyFrame* body = nullptr;
  auto stored = [&](int e) { return body->ownValue(nm.entities, e); };
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
    body = &f;
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
  RowOutputs outputs;
  if (spec.mechanism) outputs.compile(*spec.mechanism, m);
  // the costs, bound to the rows' outputs by name (energies and residuals are the dynamics')
  CostSet costSet;
  std::optional<CostAccumulator<double>> costs;
  if (spec.mechanism && !spec.mechanism->costs.empty()) {
    OutputComponents named;
    named.names = outputs.names;
    named.problems.assign(named.names.size(), std::string());
    result.costProblem = compileRunCosts(*spec.mechanism, m, named, spec.times.empty() ? spec.tEnd : spec.times.back(), false, costSet);
    if (!costSet.names.empty()) costs.emplace(costSet);
    // a name the rows lack that is an output of the file: an energy or a residual, the dynamics'
    for (const Output& o : spec.mechanism->outputs)
      if ((o.type == Output::Type::Energy || o.type == Output::Type::ConstraintResidual) &&
          result.costProblem.find("'" + o.name + "'") != std::string::npos) {
        result.costProblem += " (a kinematic run has no energies or residuals)";
        break;
      }
  }
  std::vector<double> parameterValues;
  if (m.parameters) parameterValues.assign(m.parameters->values().begin(), m.parameters->values().end());
  const std::size_t pointColumns = result.columns.size();
  for (const auto& n : outputs.names) result.columns.push_back(n);
  std::vector<double> rowPoses;
  // before any solving: a time span that makes no run, or rows that cannot fit, are refused at once
  const bool atTimes = !spec.times.empty();
  std::string spanProblem = atTimes ? timesProblem(spec.times) : timeSpanProblem(spec.tEnd, spec.dt);
  if (spanProblem.empty() && !atTimes) spanProblem = wholeStepsProblem(spec.tEnd, spec.dt);
  if (spanProblem.empty()) spanProblem = driverPrecisionProblem(m, atTimes ? spec.times.back() : spec.tEnd);
  if (!spanProblem.empty()) {
    result.status = lw::failure(lw::Status::Code::BadRequest, 0, spanProblem);
    return result;
  }
  const long steps = atTimes ? static_cast<long>(spec.times.size()) : std::lround(spec.tEnd / spec.dt);
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
    mm = kin::compileModularModel(nm, kin::decompose(nm), global.q);
    if (!mm->ok()) {
      result.status.code = lw::Status::Code::NotDriven;
      result.status.message = mm->error;
      return result;
    }
    result.decomposition = kin::describe(mm->decomposition, m);
    md.emplace(*mm, options);
    md->acceleration = spec.method == KinematicsMethod::Modular3OT ? kin::AccelerationMethod::ThirdOrderTensor
                                                                     : kin::AccelerationMethod::TD;
    kin::startModular(*mm, *md, global.q, global.qd, global.qdd, 0.0);
  }
  if (!streamed) result.values.reserve(static_cast<std::size_t>(steps + 1) * result.columns.size());
  // a streamed run passes its rows on in blocks and keeps none
  auto send = [&] { sendRows(spec.rows, result.columns, result.values, result.sentRows); };
  for (long i = 0; i <= steps; ++i) {
    const double t = atTimes ? (i == 0 ? 0.0 : spec.times[static_cast<std::size_t>(i - 1)]) : static_cast<double>(i) * spec.dt;
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
    if (!outputs.items.empty()) {
      rowPoses.clear();
      appendPoses(m, nm, modular ? md->q : global.q, rowPoses);
      const std::size_t start = result.values.size() - pointColumns;
      std::vector<double> values;
      outputs.append(m, t, result.values.data() + start, rowPoses, values);
      result.values.insert(result.values.end(), values.begin(), values.end());
      if (costs) costs->add(t, values.data(), parameterValues.data());
    }
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
  if (costs) {
    result.costNames = costSet.names;
    result.costValues = costs->values();
    if (auto problems = keepFiniteCosts(*costs, result.costNames, result.costValues); !problems.empty())
      result.costProblem += (result.costProblem.empty() ? "" : "\n") + problems;
  }
  return result;
}

std::string overDriven(const ResolvedMechanism& m) {
  if (m.drivers.empty()) return {};
  const kin::NaturalModel nm = kin::compileNaturalModel(m);
  kin::GlobalData data(nm, {kin::LinearSolverKind::Sparse});
  if (!kin::assemble(nm, data, 0.0).ok()) return {};  // the analysis itself says why it cannot assemble
  const kin::NumericalMobility& mob = data.mobility;
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

std::string driverPrecisionProblem(const ResolvedMechanism& m, double t) {
  const double tolerance = 1e-6 * std::max(1.0, m.lengthScale());
  for (const auto& d : m.drivers) {
    const double rate = std::abs(d.function.rate(t));
    if (!std::isfinite(rate) || rate == 0) continue;  // driverNotFiniteAt says why
    const double rounding = std::nextafter(std::abs(t), INFINITY) - std::abs(t);
    if (rate * rounding <= tolerance) continue;
    // the latest time whose rounding (about 1.1e-16 of it) keeps the driver within the tolerance
    const double latest = tolerance / (rate * std::numeric_limits<double>::epsilon());
    return "at t = " + shortNumber(t) + " s the driver '" + d.name + "' moves by " + shortNumber(rate * rounding) +
           " between neighbouring times in double precision: its value there is unknown; choose times up to about " + shortNumber(latest) +
           " s";
  }
  return {};
}

std::string toCsv(const KinematicsResult& r) { return tableToCsv(r.columns, r.values); }

}  // namespace lw::analysis
