// Joint reactions and driver efforts (reactions.h): a pendulum's pin force against its closed
// form; every body of every undriven sample in Newton–Euler balance under its joints' reactions
// and its applied forces (force and moment: the sum equals the momentum rate); a driven
// mechanism's motor torque against virtual power; a pin transmits no moment.
#include "dynamics/reactions.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "dynamics/tree_motion.h"
#include "io/mechanism_io.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

struct Case {
  ResolvedMechanism resolved;
  MatrixRModel model;
  MatrixRData* data = nullptr;
  std::unique_ptr<MatrixRData> own;
};

// a consistent moving state: the assembly with made-up independent rates, its accelerations the
// dynamics' (or the drivers')
std::unique_ptr<Case> moving(const Mechanism& mech, double t = 0.1) {
  auto c = std::make_unique<Case>();
  Diagnostics d;
  c->resolved = *resolve(mech, d);
  c->model = compileMatrixR(c->resolved);
  c->own = std::make_unique<MatrixRData>(c->model);
  c->data = c->own.get();
  EXPECT_TRUE(initialState(c->model, *c->data).ok());
  Eigen::VectorXd zi = c->data->zi, zid = c->data->zid;
  for (Eigen::Index k = 0; k < zid.size(); ++k) zid[k] += 0.4 - 0.15 * static_cast<double>(k);
  EXPECT_TRUE(evaluate(c->model, *c->data, t, zi, zid).ok());
  return c;
}

Eigen::Vector3d vec(const double* w) { return {w[0], w[1], w[2]}; }

TEST(Reactions, APendulumsPinForceHasTheClosedForm) {
  const auto loaded = io::loadMechanismFromString(R"({
    "format": "linkwright-mechanism", "version": 1, "name": "pendulum", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}},
    "bodies": [{"name": "bar", "mass": 2, "com": [0.6, 0], "inertia": 0.24, "points": {"A": [0, 0], "B": [1.2, 0]}}],
    "joints": [{"name": "pin", "type": "pin", "points": ["ground.O", "bar.A"]}]})");
  ASSERT_TRUE(loaded.ok());
  const auto c = moving(*loaded.mechanism);
  const double theta = c->data->z[0], omega = c->data->zd[0], alpha = c->data->zdd[0];
  // the bar: m (α k × r − ω² r) = F + m g, r the centre from the pin; I_O α = (r × m g)_z
  const double m = 2, l = 0.6, IO = 0.24 + m * l * l;
  const Eigen::Vector3d r(l * std::cos(theta), l * std::sin(theta), 0), g(0, -9.81, 0);
  EXPECT_NEAR(alpha, r.cross(m * g).z() / IO, 1e-9);
  const Eigen::Vector3d ac = alpha * Eigen::Vector3d::UnitZ().cross(r) - omega * omega * r;
  const Eigen::Vector3d expected = m * ac - m * g;
  ReactionsOn<double> reactions(c->model.tree, c->model.rows);
  ASSERT_TRUE(reactions.compute(c->model.tree.numbers, c->data->z.data(), c->data->zd.data(), c->data->zdd.data(), 0.1));
  double onBar[6], onGround[6];
  reactions.jointReaction(0, 1, onBar);
  reactions.jointReaction(0, 0, onGround);
  EXPECT_LT((vec(onBar) - expected).norm(), 1e-10 * expected.norm()) << vec(onBar).transpose() << " / " << expected.transpose();
  EXPECT_LT((vec(onGround) + expected).norm(), 1e-10 * expected.norm());
  EXPECT_NEAR(onBar[5], 0, 1e-10);  // a pin carries no moment about its point
  EXPECT_GT(expected.norm(), 1.0);
}

// Σ over a body's joints of their reactions, plus its applied forces, equals its momentum rate:
// force m a_c and moment J ω̇ + ω × J ω about the centre
TEST(Reactions, EveryBodyIsInNewtonEulerBalance) {
  int checked = 0;
  for (const char* name : {"ten-bar-chain", "five-bar", "four-bar-free", "double-pendulum-wall", "spatial-four-bar-swing", "rssr", "grid-1x15",
                           "buggy", "slider-crank-end-stop"}) {
    SCOPED_TRACE(name);
    const auto c = moving(test::withoutContacts(test::sampleMechanism(name)));
    const RecursiveModel& tree = c->model.tree;
    const Eigen::VectorXd &z = c->data->z, &zd = c->data->zd, &zdd = c->data->zdd;
    ReactionsOn<double> reactions(tree, c->model.rows);
    ASSERT_TRUE(reactions.compute(tree.numbers, z.data(), zd.data(), zdd.data(), 0.1));
    GeneralizedForces<double> forces(tree);
    Eigen::VectorXd Qv(6 * static_cast<Eigen::Index>(tree.numbers.mech.bodies.size()));
    forces.bodyWrenches(z.data(), zd.data(), 0.1, Qv.data());
    detail::TreeMotion<double> motion;
    detail::treeMotion<double>(tree, tree.numbers, z.data(), zd.data(), zdd.data(), motion);
    RecursiveData data;
    const auto& joints = c->resolved.joints;
    double largest = 0;
    for (std::size_t k = 0; k < tree.nodes.size(); ++k) {
      const int b = tree.nodes[k].body;
      const auto& body = tree.numbers.mech.bodies[static_cast<std::size_t>(b)];
      Eigen::Vector3d rc, vc, ac;
      pointState(tree, data, b, body.com, z, zd, zdd, &rc, &vc, &ac);
      Eigen::Vector3d force = Qv.segment<3>(6 * b), moment = Qv.segment<3>(6 * b + 3);  // about the centre
      for (std::size_t j = 0; j < joints.size(); ++j)
        for (int side = 0; side < 2; ++side) {
          if (joints[j].body(side) != b || (side == 1 && joints[j].body(0) == b)) continue;
          double w[6];
          reactions.jointReaction(static_cast<int>(j), b, w);
          Eigen::Vector3d P;
          pointState(tree, data, b, tree.numbers.mech.point(joints[j].points[side]), z, zd, zdd, &P, nullptr, nullptr);
          force += vec(w);
          moment += vec(w + 3) + (P - rc).cross(vec(w));
          largest = std::max(largest, vec(w).norm());
        }
      // the motors: a joint driver's couple about body 1's axis, on body 2 and, opposed, on body 1
      for (std::size_t dv = 0; dv < c->resolved.drivers.size(); ++dv) {
        const auto& driver = c->resolved.drivers[dv];
        if (driver.type != lw::Driver::Type::Joint) continue;
        const auto& jt = joints[static_cast<std::size_t>(driver.joint)];
        const int side = jt.body(1) == b ? 1 : jt.body(0) == b ? 0 : -1;
        if (side < 0) continue;
        Eigen::Vector3d u = Eigen::Vector3d::UnitZ();
        if (tree.dimension == 3) {
          const auto& F1 = motion.frames[static_cast<std::size_t>(jt.body(0))].R.a;
          u = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(F1) * tree.numbers.mech.vector(jt.axes[0]);
        }
        moment += (side == 1 ? 1.0 : -1.0) * reactions.driverEffort(static_cast<int>(dv)) * u;
      }
      const Eigen::Matrix3d R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(motion.frames[static_cast<std::size_t>(b)].R.a);
      const Eigen::Vector3d alpha(motion.A[k].w[0], motion.A[k].w[1], motion.A[k].w[2]);
      Eigen::Vector3d rate;
      if (tree.dimension == 2) rate = Eigen::Vector3d(0, 0, body.inertia(2, 2) * alpha.z());
      else rate = R * body.inertia * R.transpose() * alpha;  // ω × Jω is among the applied (Q^v)
      const double scale = std::max(1.0, body.mass * ac.norm() + force.norm());
      EXPECT_LT((force - body.mass * ac).norm(), 1e-8 * scale) << tree.numbers.mech.bodies.size() << " body " << b;
      if (tree.dimension == 2) EXPECT_NEAR(moment.z(), rate.z(), 1e-8 * scale) << "body " << b;
      else EXPECT_LT((moment - rate).norm(), 1e-8 * scale) << "body " << b;
    }
    EXPECT_GT(largest, 1e-3);
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

// a fully driven mechanism: the motor's effort times its rate is the power the bodies take
// (the kinetic energy's rate less gravity's power), by virtual power
TEST(Reactions, AMotorsTorqueIsTheVirtualPowersBalance) {
  for (const char* name : {"slider-crank", "four-bar"}) {
    SCOPED_TRACE(name);
    const auto c = moving(test::sampleMechanism(name), 0.13);
    const RecursiveModel& tree = c->model.tree;
    const Eigen::VectorXd &z = c->data->z, &zd = c->data->zd, &zdd = c->data->zdd;
    ASSERT_EQ(c->data->dofs.size(), 0u);  // driven: the drivers set every coordinate
    ReactionsOn<double> reactions(tree, c->model.rows);
    ASSERT_TRUE(reactions.compute(tree.numbers, z.data(), zd.data(), zdd.data(), 0.13));
    const double effort = reactions.driverEffort(0);
    detail::TreeMotion<double> motion;
    detail::treeMotion<double>(tree, tree.numbers, z.data(), zd.data(), zdd.data(), motion);
    RecursiveData data;
    double power = 0;
    for (std::size_t k = 0; k < tree.nodes.size(); ++k) {
      const int b = tree.nodes[k].body;
      const auto& body = tree.numbers.mech.bodies[static_cast<std::size_t>(b)];
      Eigen::Vector3d rc, vc, ac;
      pointState(tree, data, b, body.com, z, zd, zdd, &rc, &vc, &ac);
      const double w = motion.V[k].w[2], wd = motion.A[k].w[2];
      power += body.mass * (ac - tree.numbers.mech.gravity).dot(vc) + body.inertia(2, 2) * wd * w;
    }
    const double rate = 2 * M_PI;  // the driver: 2π t
    EXPECT_NEAR(effort * rate, power, 1e-9 * std::max(1.0, std::abs(power)));
    EXPECT_GT(std::abs(effort), 1e-2);
    // the driven pin carries the motor's torque, not a reaction moment
    double w[6];
    reactions.jointReaction(c->resolved.findJoint(c->resolved.drivers[0].joint >= 0 ? c->resolved.joints[static_cast<std::size_t>(c->resolved.drivers[0].joint)].name : ""),
                            c->resolved.joints[static_cast<std::size_t>(c->resolved.drivers[0].joint)].body(1), w);
    EXPECT_NEAR(w[5], 0, 1e-9 * std::max(1.0, std::abs(effort)));
  }
}

}  // namespace
}  // namespace lw::dyn
