// Also: a tree joint written child first (its body 2 is the parent) reads, and is driven, the
// same as written parent first.
//
// A joint that closes a loop of the spanning tree (a cut joint) has a coordinate like any other:
// its outputs, its limits and switches, and their sensitivities read it from the bodies. The
// reference is the same joint in the tree: listing a four-bar's joints in reverse order makes the
// tree cut another joint, so each reading is compared with the same joint's tree coordinate on the
// same motion (RK45 at a tight tolerance: both runs follow the exact solution). Planar pins (the
// bodies' turns summed along the tree) and spatial revolutes (the turn from the poses) both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "dynamics/recursive_model.h"
#include "sensitivity/sensitivity.h"
#include "support/costs.h"
#include "support/samples.h"

namespace lw {
namespace {

struct Run {
  Mechanism mechanism;
  ResolvedMechanism resolved;
  analysis::SimulationResult result;
};

// the mechanism with a coordinate and a rate output for every joint, its joints in reverse order
// when asked, run under gravity from rest (drivers removed)
std::unique_ptr<Run> swing(Mechanism m, bool reversed, double tEnd) {
  m.drivers.clear();
  m.outputs.clear();
  for (const auto& j : m.joints) {
    Output q;
    q.name = "q_" + j.name;
    q.type = Output::Type::JointCoordinate;
    q.joint = j.name;
    m.outputs.push_back(q);
    q.name = "w_" + j.name;
    q.type = Output::Type::JointRate;
    m.outputs.push_back(q);
  }
  if (reversed) std::reverse(m.joints.begin(), m.joints.end());
  auto run = std::make_unique<Run>();
  run->mechanism = std::move(m);
  Diagnostics d;
  auto r = resolve(run->mechanism, d);
  if (!r) throw std::runtime_error("the mechanism does not resolve");
  run->resolved = *r;
  analysis::SimulationSpec spec;
  spec.integrator = analysis::Integrator::RK45;
  spec.tEnd = tEnd;
  spec.dt = 0.01;
  spec.tol = 1e-12;
  spec.mechanism = &run->mechanism;  // for its outputs' columns
  run->result = analysis::runSimulation(run->resolved, spec);
  return run;
}

bool isCut(const Run& r, const std::string& joint) {
  const dyn::RecursiveModel tree = dyn::compileRecursiveModel(r.resolved);
  const int j = r.resolved.findJoint(joint);
  return tree.treeJointNode[static_cast<std::size_t>(j)] < 0;
}

// the same motion twice: `joint` cut by the tree, then (joints reversed) in the tree; both runs
// must succeed
std::pair<std::unique_ptr<Run>, std::unique_ptr<Run>> cutAndInTree(const Mechanism& m, const std::string& joint, double tEnd) {
  auto a = swing(m, false, tEnd), b = swing(m, true, tEnd);
  if (!isCut(*a, joint) || isCut(*b, joint)) throw std::runtime_error("joint " + joint + " is not cut in one tree only");
  if (!a->result.status.ok()) throw std::runtime_error(a->result.status.message);
  if (!b->result.status.ok()) throw std::runtime_error(b->result.status.message);
  return {std::move(a), std::move(b)};
}

int column(const analysis::SimulationResult& r, const std::string& name) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), name);
  if (it == r.columns.end()) throw std::runtime_error("no column " + name);
  return static_cast<int>(it - r.columns.begin());
}
double at(const analysis::SimulationResult& r, std::size_t row, int col) { return r.values[row * r.columns.size() + static_cast<std::size_t>(col)]; }

TEST(CutJointCoordinates, ReadTheSameAsTheJointInTheTree) {
  // the planar four-bar (pins) and its spatial model (revolutes)
  for (const char* sample : {"four-bar", "four-bar-free"}) {
    const auto a = swing(test::sampleMechanism(sample), false, 1.0);
    const auto b = swing(test::sampleMechanism(sample), true, 1.0);
    ASSERT_TRUE(a->result.status.ok()) << sample << ": " << a->result.status.message;
    ASSERT_TRUE(b->result.status.ok()) << sample << ": " << b->result.status.message;
    ASSERT_EQ(a->result.rows(), b->result.rows());
    int cutInA = 0;
    for (const auto& j : a->mechanism.joints) {
      // the two trees cut different joints: every joint is compared once as a cut joint
      ASSERT_FALSE(isCut(*a, j.name) && isCut(*b, j.name)) << sample << " " << j.name;
      cutInA += isCut(*a, j.name) ? 1 : 0;
      const int qa = column(a->result, "q_" + j.name), qb = column(b->result, "q_" + j.name);
      const int wa = column(a->result, "w_" + j.name), wb = column(b->result, "w_" + j.name);
      double moved = 0;
      for (std::size_t row = 0; row < a->result.rows(); ++row) {
        EXPECT_NEAR(at(a->result, row, qa), at(b->result, row, qb), 1e-8) << sample << " " << j.name << " row " << row;
        EXPECT_NEAR(at(a->result, row, wa), at(b->result, row, wb), 1e-7) << sample << " " << j.name << " row " << row;
        moved = std::max(moved, std::abs(at(a->result, row, qa) - at(a->result, 0, qa)));
      }
      EXPECT_GT(moved, 0.05) << sample << " " << j.name << ": the joint must turn for the comparison to mean something";
    }
    EXPECT_EQ(cutInA, 1) << sample;
  }
}

TEST(CutJointCoordinates, ALimitOnACutJointStopsItAsInTheTree) {
  // the coupler–rocker pin C of the four-bar closes its loop; reversed, the tree holds it
  Mechanism m = test::sampleMechanism("four-bar");
  JointLimit stop;
  stop.name = "stop";
  stop.joint = "C";
  stop.hasMin = stop.hasMax = true;
  stop.min = Number(1.167 - 0.15);
  stop.max = Number(1.167 + 0.15);
  stop.restitution = Number(0.9);
  m.limits.push_back(stop);
  const auto [a, b] = cutAndInTree(m, "C", 1.0);
  ASSERT_GE(a->result.events.size(), 2u);
  ASSERT_EQ(a->result.events.size(), b->result.events.size());
  for (std::size_t k = 0; k < a->result.events.size(); ++k) {
    const auto& ea = a->result.events[k];
    const auto& eb = b->result.events[k];
    EXPECT_EQ(ea.contacts, eb.contacts);
    EXPECT_NEAR(ea.t, eb.t, 1e-9) << k;
    EXPECT_NEAR(ea.normalBefore[0], eb.normalBefore[0], 1e-7) << k;
    EXPECT_NEAR(ea.normalAfter[0], -0.9 * ea.normalBefore[0], 1e-9 * std::abs(ea.normalBefore[0])) << k;
  }
  const int q = column(a->result, "q_C");
  for (std::size_t row = 0; row < a->result.rows(); ++row) {
    EXPECT_GE(at(a->result, row, q), 1.167 - 0.15 - 1e-9);
    EXPECT_LE(at(a->result, row, q), 1.167 + 0.15 + 1e-9);
  }
}

TEST(CutJointCoordinates, CostsOnThemAreDifferentiated) {
  // was refused ("closes a loop of the spanning tree: not differentiated yet"): the direct method
  // and the adjoint against the complex step, lengths moving the cut joint's stored angle too
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  Output q;
  q.name = "coupler_rocker";
  q.type = Output::Type::JointCoordinate;
  q.joint = "C";
  m.outputs.push_back(q);
  q.name = "coupler_rocker_rate";
  q.type = Output::Type::JointRate;
  m.outputs.push_back(q);
  m.costs = {test::expressionCost("bend", Cost::Type::Integral, "coupler_rocker^2 + 0.1*coupler_rocker_rate^2"),
             test::expressionCost("bend_end", Cost::Type::Terminal, "coupler_rocker")};
  {
    Diagnostics d;
    const auto r = resolve(m, d);
    ASSERT_TRUE(r);
    ASSERT_LT(dyn::compileRecursiveModel(*r).treeJointNode[static_cast<std::size_t>(r->findJoint("C"))], 0);
  }
  sens::SensitivitySpec s;
  s.analysis = sens::Analysis::Dynamics;
  s.run.integrator = analysis::Integrator::Trapezoidal;
  s.run.tEnd = 0.3;
  s.run.dt = 2e-3;
  s.run.tol = 1e-12;
  sens::SensitivityResult r[3];
  const sens::Method methods[3] = {sens::Method::ComplexStep, sens::Method::Direct, sens::Method::Adjoint};
  for (int i = 0; i < 3; ++i) {
    s.method = methods[i];
    r[i] = sens::runSensitivity(m, s);
    ASSERT_TRUE(r[i].status.ok()) << toString(methods[i]) << ": " << r[i].status.message;
  }
  const Eigen::MatrixXd& cs = r[0].methods[0].gradient;
  ASSERT_GT(cs.cwiseAbs().maxCoeff(), 1e-2);
  for (int i = 1; i < 3; ++i)
    for (Eigen::Index k = 0; k < cs.rows(); ++k)
      for (Eigen::Index j = 0; j < cs.cols(); ++j)
        EXPECT_NEAR(r[i].methods[0].gradient(k, j), cs(k, j), 1e-8 * std::max(1.0, cs.row(k).cwiseAbs().maxCoeff()))
            << toString(methods[i]) << " " << r[0].costs[static_cast<std::size_t>(k)] << " d/d" << r[0].parameters[static_cast<std::size_t>(j)];
  // and against central differences of whole runs (a route that does not use the jets)
  s.method = sens::Method::FiniteDifferences;
  const auto fd = sens::runSensitivity(m, s);
  ASSERT_TRUE(fd.status.ok()) << fd.status.message;
  for (Eigen::Index k = 0; k < cs.rows(); ++k)
    for (Eigen::Index j = 0; j < cs.cols(); ++j)
      EXPECT_NEAR(fd.methods[0].gradient(k, j), cs(k, j), 1e-5 * std::max(1.0, cs.row(k).cwiseAbs().maxCoeff()));
}

TEST(CutJointCoordinates, AnInitialRateOnOneIsImposedAndDifferentiated) {
  // was refused ("cannot be imposed: it closes a loop"): the four-bar let go with C turning at
  // 2 rad/s moves as with the same rate on C in the tree; the rate output reads 2 at the start;
  // costs of the motion are differentiated (the rate's row depends on the lengths)
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  InitialVelocity w;
  w.type = InitialVelocity::Type::Joint;
  w.joint = "C";
  w.value = Number(2.0);
  m.initialVelocities.push_back(w);
  m.costs.clear();  // swing() replaces the outputs they read
  const auto [a, b] = cutAndInTree(m, "C", 0.5);
  EXPECT_NEAR(at(a->result, 0, column(a->result, "w_C")), 2.0, 1e-10);
  for (const char* q : {"q_A", "q_B", "q_C", "q_D"})
    for (std::size_t row = 0; row < a->result.rows(); ++row)
      EXPECT_NEAR(at(a->result, row, column(a->result, q)), at(b->result, row, column(b->result, q)), 1e-8) << q << " row " << row;
  Mechanism free = m;
  free.drivers.clear();
  Output q;
  q.name = "coupler_rocker";
  q.type = Output::Type::JointCoordinate;
  q.joint = "C";
  free.outputs.push_back(q);
  free.costs = {test::expressionCost("bend", Cost::Type::Integral, "coupler_rocker^2")};
  sens::SensitivitySpec s;
  s.analysis = sens::Analysis::Dynamics;
  s.run.tEnd = 0.2;
  s.run.dt = 2e-3;
  s.run.tol = 1e-12;
  s.method = sens::Method::ComplexStep;
  const auto cs = sens::runSensitivity(free, s);
  s.method = sens::Method::Direct;
  const auto ddm = sens::runSensitivity(free, s);
  ASSERT_TRUE(cs.status.ok()) << cs.status.message;
  ASSERT_TRUE(ddm.status.ok()) << ddm.status.message;
  const Eigen::MatrixXd& G = cs.methods[0].gradient;
  ASSERT_GT(G.cwiseAbs().maxCoeff(), 1e-2);
  for (Eigen::Index j = 0; j < G.cols(); ++j)
    EXPECT_NEAR(ddm.methods[0].gradient(0, j), G(0, j), 1e-8 * std::max(1.0, G.cwiseAbs().maxCoeff())) << cs.parameters[static_cast<std::size_t>(j)];
  s.method = sens::Method::FiniteDifferences;
  const auto fd = sens::runSensitivity(free, s);
  ASSERT_TRUE(fd.status.ok()) << fd.status.message;
  for (Eigen::Index j = 0; j < G.cols(); ++j)
    EXPECT_NEAR(fd.methods[0].gradient(0, j), G(0, j), 1e-5 * std::max(1.0, G.cwiseAbs().maxCoeff())) << cs.parameters[static_cast<std::size_t>(j)];
}

TEST(CutJointCoordinates, AnInitialRateOnACutBallJointIsRefusedWithTheReason) {
  // a spherical joint has no single coordinate to give a rate to; the tree cuts the spatial
  // four-bar's ball joint C
  Mechanism m = test::sampleMechanism("spatial-four-bar");
  InitialVelocity w;
  w.type = InitialVelocity::Type::Joint;
  w.joint = "C";
  w.value = Number(1.0);
  m.initialVelocities.push_back(w);
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  ASSERT_LT(dyn::compileRecursiveModel(*r).treeJointNode[static_cast<std::size_t>(r->findJoint("C"))], 0);
  analysis::SimulationSpec spec;
  spec.tEnd = 0.1;
  spec.dt = 0.01;
  const auto run = analysis::runSimulation(*r, spec);
  ASSERT_FALSE(run.status.ok());
  EXPECT_NE(run.status.message.find("the initial rate of joint 'C': the joint has no single coordinate"), std::string::npos)
      << run.status.message;
}

TEST(JointCoordinates, ADriverOnAJointWrittenChildFirstTurnsAsInKinematics) {
  // the crank's pin as "crank.A – ground.A": its coordinate is the ground's turn relative to the
  // crank, and the motor drives that (the dynamics turned the crank the other way)
  Mechanism m = test::sampleMechanism("four-bar");
  for (auto& j : m.joints)
    if (j.name == "A") std::swap(j.points[0], j.points[1]);
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  analysis::KinematicsSpec ks;
  ks.tEnd = 0.2;
  ks.dt = 0.01;
  ks.mechanism = &m;
  const auto kin = analysis::runKinematics(*r, ks);
  ASSERT_TRUE(kin.status.ok()) << kin.status.message;
  for (auto formulation : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty}) {
    analysis::SimulationSpec spec;
    spec.formulation = formulation;
    spec.tEnd = 0.2;
    spec.dt = 0.01;
    spec.tol = 1e-12;
    spec.mechanism = &m;
    const auto dyn = analysis::runSimulation(*r, spec);
    ASSERT_TRUE(dyn.status.ok()) << dyn.status.message;
    ASSERT_EQ(dyn.rows(), kin.rows());
    const int xd = column(dyn, "crank.B.x"), qd = column(dyn, "crank_angle");
    const auto kc = std::find(kin.columns.begin(), kin.columns.end(), "crank.B.x") - kin.columns.begin();
    const auto kq = std::find(kin.columns.begin(), kin.columns.end(), "crank_angle") - kin.columns.begin();
    ASSERT_LT(static_cast<std::size_t>(kq), kin.columns.size());
    // the penalty formulation holds its driver to about 1e-7 (its penalty factor)
    const double tol = formulation == analysis::Formulation::Penalty ? 1e-5 : 1e-8;
    for (std::size_t row = 0; row < dyn.rows(); ++row) {
      EXPECT_NEAR(at(dyn, row, xd), kin.values[row * kin.columns.size() + static_cast<std::size_t>(kc)], tol) << row;
      EXPECT_NEAR(at(dyn, row, qd), kin.values[row * kin.columns.size() + static_cast<std::size_t>(kq)], tol) << row;
    }
    // the crank turned: B moved by more than the tolerance
    EXPECT_GT(std::abs(at(dyn, dyn.rows() - 1, xd) - at(dyn, 0, xd)), 0.1);
  }
}

}  // namespace
}  // namespace lw
