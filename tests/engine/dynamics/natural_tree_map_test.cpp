// The natural coordinates and the tree's of one motion (natural_tree_map.h): the stored
// configuration maps onto the stored natural coordinates; a state (position, velocity and
// acceleration) goes to the other model and back unchanged — on an open chain from random tree
// coordinates (angles past ±π continued), on closed loops from natural states the constraints allow.
#include "dynamics/natural_tree_map.h"

#include <gtest/gtest.h>

#include <random>

#include <Eigen/QR>

#include "support/samples.h"

namespace lw::dyn {
namespace {

struct Models {
  std::unique_ptr<test::Loaded> loaded;
  RecursiveModel tree;
  kin::NaturalModel natural;
  NaturalTreeMap map;
};

Models models(const char* sample) {
  Models c;
  c.loaded = test::loaded(test::sampleMechanism(sample));
  c.tree = compileRecursiveModel(c.loaded->resolved);
  c.natural = kin::compileNaturalModel(c.loaded->resolved, {.linearFrames = true});
  std::string why;
  EXPECT_TRUE(compileNaturalTreeMap(c.tree, c.natural, c.map, why)) << sample << ": " << why;
  return c;
}

constexpr const char* kPlanar[] = {"ten-bar-chain", "four-bar", "slider-crank", "watt-six-bar", "jansen-leg",
                                   "stephenson-six-bar", "five-bar", "double-pendulum-wall",
                                   // spatial: revolute, prismatic, universal, spherical and free bodies
                                   "spatial-four-bar", "spatial-four-bar-swing", "four-bar-free", "buggy", "grid-1x15",
                                   // a rod between ball joints: its frame turned by the smallest rotation
                                   "rssr"};

TEST(NaturalTreeMap, TheStoredConfigurationIsTheStoredNaturalCoordinates) {
  for (const char* sample : kPlanar) {
    SCOPED_TRACE(sample);
    const Models c = models(sample);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(c.tree.nz);
    Eigen::VectorXd q, qd, qdd;
    naturalStateOf(c.tree, c.natural, c.map, c.tree.z0, zero, zero, q, qd, &qdd);
    EXPECT_LT((q - c.natural.q0).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_EQ(qd.cwiseAbs().maxCoeff(), 0.0);
    // and back: every tree coordinate zero
    Eigen::VectorXd z = c.tree.z0, zd, zdd;
    treeStateOf(c.tree, c.natural, q, qd, qdd, z, zd, zdd);
    EXPECT_LT((z - c.tree.z0).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(NaturalTreeMap, AnOpenChainsStateGoesThereAndBack) {
  const Models c = models("ten-bar-chain");
  std::mt19937 rng(39);
  std::uniform_real_distribution<double> angle(-6, 6), rate(-3, 3);
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::VectorXd z(c.tree.nz), zd(c.tree.nz), zdd(c.tree.nz);
    for (int i = 0; i < c.tree.nz; ++i) z[i] = angle(rng), zd[i] = rate(rng), zdd[i] = 10 * rate(rng);
    Eigen::VectorXd q, qd, qdd;
    naturalStateOf(c.tree, c.natural, c.map, z, zd, zdd, q, qd, &qdd);
    // from a nearby state: within half a turn of it the angles come back whole (past ±π too)
    Eigen::VectorXd back = z + Eigen::VectorXd::Constant(c.tree.nz, 0.4), backD, backDD;
    treeStateOf(c.tree, c.natural, q, qd, qdd, back, backD, backDD);
    EXPECT_LT((back - z).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((backD - zd).cwiseAbs().maxCoeff(), 1e-11);
    EXPECT_LT((backDD - zdd).cwiseAbs().maxCoeff(), 1e-9);
  }
}

// a state of the natural coordinates the constraints allow: q0, q̇ on Φ_q's null space, q̈ with
// Φ_q q̈ = −γ (a least-squares solution plus a null-space part)
void consistentState(const kin::NaturalModel& m, std::mt19937& rng, Eigen::VectorXd& qd, Eigen::VectorXd& qdd) {
  Eigen::MatrixXd J;
  kin::evaluateJacobianDense(m, m.q0, 0, J);
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(J);
  std::normal_distribution<double> normal;
  Eigen::VectorXd v(m.nq), w(m.nq);
  for (int i = 0; i < m.nq; ++i) v[i] = normal(rng), w[i] = normal(rng);
  qd = v - cod.solve(J * v);
  Eigen::VectorXd gamma(m.nrows), phiT(m.nrows);
  kin::evaluatePhiT(m, m.q0, 0, phiT);
  qd -= cod.solve(phiT);  // a driver's prescribed rate
  kin::evaluateGamma(m, m.q0, qd, 0, gamma);
  qdd = w - cod.solve(J * w) - cod.solve(gamma);
  ASSERT_LT((J * qd + phiT).cwiseAbs().maxCoeff(), 1e-9);
  ASSERT_LT((J * qdd + gamma).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(NaturalTreeMap, AClosedLoopsStateGoesThereAndBack) {
  std::mt19937 rng(7);
  for (const char* sample : kPlanar) {
    SCOPED_TRACE(sample);
    const Models c = models(sample);
    for (int trial = 0; trial < 3; ++trial) {
      Eigen::VectorXd qd, qdd;
      consistentState(c.natural, rng, qd, qdd);
      Eigen::VectorXd z = c.tree.z0, zd, zdd;
      treeStateOf(c.tree, c.natural, c.natural.q0, qd, qdd, z, zd, zdd);
      Eigen::VectorXd q2, qd2, qdd2;
      naturalStateOf(c.tree, c.natural, c.map, z, zd, zdd, q2, qd2, &qdd2);
      const double scale = std::max(1.0, qdd.cwiseAbs().maxCoeff());
      EXPECT_LT((q2 - c.natural.q0).cwiseAbs().maxCoeff(), 1e-11);
      EXPECT_LT((qd2 - qd).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, qd.cwiseAbs().maxCoeff()));
      EXPECT_LT((qdd2 - qdd).cwiseAbs().maxCoeff(), 1e-9 * scale);
    }
  }
}

TEST(NaturalTreeMap, ASpatialModelWithoutLinearFramesIsRefusedWithTheReason) {
  const auto loaded = test::loaded(test::sampleMechanism("spatial-four-bar"));
  const RecursiveModel tree = compileRecursiveModel(loaded->resolved);
  const kin::NaturalModel natural = kin::compileNaturalModel(loaded->resolved);  // kinematics': no third vectors
  NaturalTreeMap map;
  std::string why;
  EXPECT_FALSE(compileNaturalTreeMap(tree, natural, map, why));
  EXPECT_NE(why.find("no linear frame"), std::string::npos) << why;
}

}  // namespace
}  // namespace lw::dyn

