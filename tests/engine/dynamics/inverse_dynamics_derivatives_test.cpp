// The analytic state derivatives of the tree's inverse dynamics (inverse_dynamics_derivatives.h)
// against the dual-number route that stays as the reference (ForceJacobian, dense forward AD of
// GeneralizedForces with the accelerations): τ itself and every column of ∂τ/∂z, ∂τ/∂ż, to 1e-10
// relative, on planar and spatial trees of every joint kind the kernel covers, at a moving,
// accelerating state where no term vanishes (dropping any one term of the kernel fails here).
#include "dynamics/inverse_dynamics_derivatives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dynamics/force_jacobian.h"
#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "dynamics/point_motion.h"
#include "mechanism/generators.h"
#include "mechanism/parameters.h"
#include "numeric/dual.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

// the mechanism with its force elements replaced by a torsion spring on every tree joint that
// turns (the kernel's own force element); `keepForces` keeps them instead
struct Case {
  Mechanism mechanism;
  ResolvedMechanism resolved;
  MatrixRModel model;
};
std::unique_ptr<Case> compiled(Mechanism mech, bool keepForces = false) {
  mech.contacts.clear();
  if (!keepForces) {
    mech.forces.clear();
    mech = test::withEveryForce(mech);
    std::erase_if(mech.forces, [](const Force& f) { return f.type != Force::Type::TorsionSpring; });
  }
  auto c = std::make_unique<Case>();
  Diagnostics d;
  auto first = resolve(mech, d);
  if (!first) return nullptr;  // a sample whose switches or limits name the forces and contacts cleared
  c->resolved = *first;
  c->model = compileMatrixR(c->resolved);
  // torsion springs on cut joints act through the loop's bodies: not the kernel's
  const auto& tree = c->model.tree;
  std::erase_if(mech.forces, [&](const Force& f) {
    if (f.type != Force::Type::TorsionSpring) return false;
    for (std::size_t j = 0; j < c->resolved.joints.size(); ++j)
      if (c->resolved.joints[j].name == f.joint) return tree.treeJointNode[j] < 0;
    return true;
  });
  c->resolved = *resolve(mech, d);
  c->model = compileMatrixR(c->resolved);
  c->mechanism = mech;
  return c;
}

double relativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// τ and ∂τ/∂z, ∂τ/∂ż at (z, ż, z̈, t) against the generalized forces and their dense forward AD
// (the reference K, C = −∂(Q^d − M^d z̈)/∂[z; ż], returned)
void expectEqualDualNumbers(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd,
                            double t, Eigen::MatrixXd& K, Eigen::MatrixXd& C) {
  Eigen::VectorXd tau;
  Eigen::MatrixXd tz, tzd;
  inverseDynamicsDerivatives(tree, tree.numbers, z, zd, zdd, t, tau, tz, tzd);
  GeneralizedForces<double> forces(tree);
  Eigen::VectorXd residual(tree.nz);  // Q^d − M^d z̈
  forces(z.data(), zd.data(), t, residual.data(), zdd.data());
  EXPECT_LT(relativeError(tau, -residual), 1e-12);
  ForceJacobian J(tree, TangentMethod::DenseAD);
  J.compute(z, zd, t, K, C, &zdd);
  EXPECT_LT(relativeError(tz, K), 1e-10) << "∂τ/∂z\n" << tz << "\nreference\n" << K;
  EXPECT_LT(relativeError(tzd, C), 1e-10) << "∂τ/∂ż\n" << tzd << "\nreference\n" << C;
}

TEST(InverseDynamicsDerivatives, EqualDualNumbersOnEveryJointKind) {
  const std::pair<std::string, Mechanism> models[] = {
      {"ten-bar-chain", test::sampleMechanism("ten-bar-chain")},
      {"five-bar", test::sampleMechanism("five-bar")},
      {"slider-crank", test::sampleMechanism("slider-crank")},
      {"four-bar-free", test::sampleMechanism("four-bar-free")},
      {"spatial-four-bar", test::sampleMechanism("spatial-four-bar")},
      {"bouncing-ball", test::sampleMechanism("bouncing-ball")},
      {"double-pendulum-wall", test::sampleMechanism("double-pendulum-wall")},
      {"crank-slider-3d", generate::crankSlider3d(2)},
      {"grid-2x3", generate::grid(2, 3)}};
  int covered = 0;
  for (const auto& [name, mech] : models) {
    SCOPED_TRACE(name);
    const auto c = compiled(mech);
    const RecursiveModel& tree = c->model.tree;
    ++covered;
    const int nz = tree.nz;
    // a generic state: every coordinate off its stored value, moving and accelerating
    const Eigen::VectorXd z = tree.z0 + Eigen::VectorXd::LinSpaced(nz, 0.3, -0.4);
    const Eigen::VectorXd zd = Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    Eigen::MatrixXd K, C;
    expectEqualDualNumbers(tree, z, zd, zdd, 0.3, K, C);
    // the state is generic: both matrices have entries off the diagonal (coupled bodies)
    if (tree.nodes.size() < 2) continue;
    EXPECT_GT((K - Eigen::MatrixXd(K.diagonal().asDiagonal())).cwiseAbs().maxCoeff(), 1e-3);
    EXPECT_GT((C - Eigen::MatrixXd(C.diagonal().asDiagonal())).cwiseAbs().maxCoeff(), 1e-3);
  }
  EXPECT_EQ(covered, 9);
}

// every force element by its law along its bodies' twists (addForceElementDerivatives): springs
// with dampers and an actuator, point forces and torques in world and body axes, a spring between
// two moving bodies, torsion springs on tree and cut joints, tyres (the buggy's chassis on a
// vertical slide: no quaternion) — ∂τ/∂z, ∂τ/∂ż against dense forward AD to 1e-10
// with every force element (and ∂(M^d e)/∂z by the inertial pass alone, inertiaProductDerivatives)
TEST(InverseDynamicsDerivatives, EqualDualNumbersWithEveryForceElement) {
  Mechanism buggy = test::sampleMechanism("buggy");
  buggy.ground.points.push_back({"lift", {Number(0.0), Number(0.0), Number(0.296)}});
  for (Body& b : buggy.bodies)
    if (b.name == "chassis") {
      b.points.push_back({"O", {Number(0.0), Number(0.0), Number(0.0)}});
      b.vectors.push_back({"z", {Number(0.0), Number(0.0), Number(1.0)}});
    }
  Joint lift;
  lift.name = "lift";
  lift.type = JointType::Prismatic;
  lift.points[0] = {"ground", "lift"};
  lift.points[1] = {"chassis", "O"};
  lift.axes = {{"ground", "up"}, {"chassis", "z"}};
  buggy.joints.push_back(lift);
  const std::pair<std::string, Mechanism> models[] = {{"ten-bar-chain", test::sampleMechanism("ten-bar-chain")},
                                                      {"five-bar", test::sampleMechanism("five-bar")},
                                                      {"four-bar-free", test::sampleMechanism("four-bar-free")},
                                                      {"spatial-four-bar", test::sampleMechanism("spatial-four-bar")},
                                                      {"buggy on a slide", buggy}};
  for (const auto& [name, original] : models) {
    SCOPED_TRACE(name);
    Mechanism mech = original;
    mech.contacts.clear();
    mech.switches.clear();
    mech.limits.clear();
    if (name != "buggy on a slide") mech = test::withEveryForce(mech);
    // world-axes twins of the body-axes force and torque, an actuator on a spring
    for (std::size_t k = 0, n = mech.forces.size(); k < n; ++k) {
      Force f = mech.forces[k];
      if (f.type == Force::Type::PointForce || f.type == Force::Type::Torque) {
        f.name += "_world";
        f.frame = Force::Frame::World;
        mech.forces.push_back(f);
      } else if (f.type == Force::Type::Spring) {
        mech.forces[k].actuatorForce = Number::expr("2 + sin(t)");
      }
    }
    Diagnostics d;
    const auto resolved = resolve(mech, d);
    ASSERT_TRUE(resolved) << d.size();
    const MatrixRModel model = compileMatrixR(*resolved);
    const RecursiveModel& tree = model.tree;
    const int nz = tree.nz;
    // near the stored configuration (the buggy's tyres keep touching), moving and accelerating
    const double off = name == "buggy on a slide" ? 0.01 : 0.3;
    const Eigen::VectorXd z = tree.z0 + off * Eigen::VectorXd::LinSpaced(nz, 1.0, -1.3);
    const Eigen::VectorXd zd = off * Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    const double t = 0.3;
    Eigen::MatrixXd K, C;
    expectEqualDualNumbers(tree, z, zd, zdd, t, K, C);
    // ∂(M e)/∂z by the inertial pass alone = τ_z(z, 0, e) − τ_z(z, 0, 0), the elements' and
    // weight's parts cancelling there
    {
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nz);
      Eigen::VectorXd tau;
      Eigen::MatrixXd te, ted, t0, t0d, mine;
      inverseDynamicsDerivatives(tree, tree.numbers, z, zero, zdd, t, tau, te, ted);
      inverseDynamicsDerivatives(tree, tree.numbers, z, zero, zero, t, tau, t0, t0d);
      MotionAtState rest;
      rest.compute(tree, tree.numbers, z.data(), zero.data(), zdd.data(), t);
      inertiaProductDerivatives(tree, tree.numbers, rest, mine);
      EXPECT_GT((te - t0).cwiseAbs().maxCoeff(), 1e-2);
      EXPECT_LT(relativeError(mine, te - t0), 1e-10) << "∂(M e)/∂z\n" << mine << "\nreference\n" << te - t0;
    }
    // the elements weigh in: without them the matrices differ
    Mechanism bare = mech;
    bare.forces.clear();
    const auto bareResolved = resolve(bare, d);
    ASSERT_TRUE(bareResolved);
    const MatrixRModel bareModel = compileMatrixR(*bareResolved);
    Eigen::VectorXd tau;
    Eigen::MatrixXd bz, bzd;
    inverseDynamicsDerivatives(bareModel.tree, bareModel.tree.numbers, z, zd, zdd, t, tau, bz, bzd);
    EXPECT_GT((bz - K).cwiseAbs().maxCoeff(), 1e-2);
    EXPECT_GT((bzd - C).cwiseAbs().maxCoeff(), 1e-2);
  }
}

// the residual on dual numbers whose lanes are design parameters (masses, lengths, the hinge
// points they move): equal to the generalized forces' own parameter derivatives
TEST(InverseDynamicsDerivatives, ParameterPartialsEqualTheForceKernels) {
  using D = num::Dual8;
  for (const char* name : {"ten-bar-chain", "jansen-leg"}) {
    SCOPED_TRACE(name);
    const Mechanism mech = test::sampleMechanism(name);
    Diagnostics d;
    const auto resolved = resolve(mech, d);
    ASSERT_TRUE(resolved);
    const MatrixRModel model = compileMatrixR(*resolved);
    const RecursiveModel& tree = model.tree;
    const ParameterTable& table = *resolved->parameters;
    const std::size_t np = std::min<std::size_t>(table.names().size(), 8);
    ASSERT_GT(np, 0u);
    std::vector<std::size_t> seeded;
    std::vector<D> seeds;
    for (std::size_t k = 0; k < np; ++k) {
      seeded.push_back(k);
      D s(table.values()[k]);
      s.g[k] = 1;
      seeds.push_back(s);
    }
    const std::vector<D> values = table.valuesOn<D>(std::span<const std::size_t>(seeded), std::span<const D>(seeds));
    const TreeNumbers<D> numbers = treeNumbers<D>(tree, numbersOn<D>(mech, *resolved, values));
    const int nz = tree.nz;
    std::vector<D> z(static_cast<std::size_t>(nz)), zd(z), zdd(z), tau(z), residual(z);
    for (int i = 0; i < nz; ++i) {
      z[static_cast<std::size_t>(i)] = D(tree.z0[i] + 0.1 * i - 0.3);
      zd[static_cast<std::size_t>(i)] = D(0.5 - 0.2 * i);
      zdd[static_cast<std::size_t>(i)] = D(-1.0 + 0.3 * i);
    }
    inverseDynamicsOn<D>(tree, numbers, z.data(), zd.data(), zdd.data(), 0.0, tau.data());
    GeneralizedForces<D, D> forces(tree, numbers);
    forces(z.data(), zd.data(), 0.0, residual.data(), zdd.data());
    double largest = 0;
    for (int i = 0; i < nz; ++i) {
      const auto& a = tau[static_cast<std::size_t>(i)];
      const auto& b = residual[static_cast<std::size_t>(i)];
      EXPECT_NEAR(a.v, -b.v, 1e-12 * std::max(1.0, std::abs(b.v)));
      for (std::size_t k = 0; k < np; ++k) {
        EXPECT_NEAR(a.g[k], -b.g[k], 1e-10 * std::max(1.0, std::abs(b.g[k])));
        largest = std::max(largest, std::abs(b.g[k]));
      }
    }
    EXPECT_GT(largest, 1e-2);  // the parameters do move the residual
  }
}

// every body point's position, velocity and acceleration: the values equal the jet kernels'
// (pointState), the analytic partials equal forward AD of the jet-free pass along each coordinate
TEST(PointMotion, PartialsEqualDualNumbers) {
  using D = num::Dual8;
  // rssr and buggy: a spherical tree joint, a free body (quaternion columns)
  for (const char* name : {"ten-bar-chain", "spatial-four-bar", "four-bar-free", "slider-crank", "rssr", "buggy"}) {
    SCOPED_TRACE(name);
    const auto c = compiled(test::sampleMechanism(name));
    const RecursiveModel& tree = c->model.tree;
    const int nz = tree.nz;
    std::vector<ItemIndex> points;
    for (std::size_t b = 1; b < tree.numbers.mech.bodies.size(); ++b)
      for (std::size_t k = 0; k < tree.numbers.mech.bodies[b].points.size(); ++k) points.push_back({static_cast<int>(b), static_cast<int>(k)});
    ASSERT_FALSE(points.empty());
    const Eigen::VectorXd z = tree.z0 + Eigen::VectorXd::LinSpaced(nz, 0.3, -0.4);
    const Eigen::VectorXd zd = Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    const auto np = static_cast<Eigen::Index>(3 * points.size());
    Eigen::VectorXd r(np), v(np), a(np);
    pointMotionOn<double>(tree, tree.numbers, z.data(), zd.data(), zdd.data(), points, r.data(), v.data(), a.data());
    RecursiveData data;
    for (std::size_t k = 0; k < points.size(); ++k) {
      Eigen::Vector3d r0, v0, a0;
      pointState(tree, data, points[k].body, tree.numbers.mech.point(points[k]), z, zd, zdd, &r0, &v0, &a0);
      EXPECT_LT((r.segment<3>(3 * static_cast<Eigen::Index>(k)) - r0).norm(), 1e-12);
      EXPECT_LT((v.segment<3>(3 * static_cast<Eigen::Index>(k)) - v0).norm(), 1e-11);
      EXPECT_LT((a.segment<3>(3 * static_cast<Eigen::Index>(k)) - a0).norm(), 1e-10);
    }
    PointMotionPartials P;
    pointMotionDerivatives(tree, tree.numbers, z, zd, zdd, points, P);
    // reference: lanes along z, ż, z̈ coordinate by coordinate
    TreeNumbers<D> numbers = treeNumbers<D>(tree, numbersOn<D>(test::sampleMechanism(name), c->resolved, std::vector<D>(c->resolved.parameters->values().begin(), c->resolved.parameters->values().end())));
    Eigen::MatrixXd Jr(np, nz), Jv(np, nz), Ja(np, nz), Jvd(np, nz), Jad(np, nz), Jadd(np, nz);
    for (int which = 0; which < 3; ++which)
      for (int first = 0; first < nz; first += 8) {
        std::vector<D> zs(static_cast<std::size_t>(nz)), zds(zs), zdds(zs), rs(static_cast<std::size_t>(np)), vs(rs), as(rs);
        for (int i = 0; i < nz; ++i) {
          zs[static_cast<std::size_t>(i)] = D(z[i]);
          zds[static_cast<std::size_t>(i)] = D(zd[i]);
          zdds[static_cast<std::size_t>(i)] = D(zdd[i]);
          if (i >= first && i < first + 8) (which == 0 ? zs : which == 1 ? zds : zdds)[static_cast<std::size_t>(i)].g[i - first] = 1;
        }
        pointMotionOn<D>(tree, numbers, zs.data(), zds.data(), zdds.data(), points, rs.data(), vs.data(), as.data());
        for (int i = first; i < std::min(nz, first + 8); ++i)
          for (Eigen::Index k = 0; k < np; ++k) {
            const auto u = static_cast<std::size_t>(k);
            if (which == 0) {
              Jr(k, i) = rs[u].g[i - first];
              Jv(k, i) = vs[u].g[i - first];
              Ja(k, i) = as[u].g[i - first];
            } else if (which == 1) {
              Jvd(k, i) = vs[u].g[i - first];
              Jad(k, i) = as[u].g[i - first];
            } else {
              Jadd(k, i) = as[u].g[i - first];
            }
          }
      }
    EXPECT_LT(relativeError(P.J, Jr), 1e-12);
    EXPECT_LT(relativeError(P.J, Jvd), 1e-12);
    EXPECT_LT(relativeError(P.J, Jadd), 1e-12);
    EXPECT_LT(relativeError(P.v_z, Jv), 1e-11);
    EXPECT_LT(relativeError(P.a_z, Ja), 1e-10);
    EXPECT_LT(relativeError(P.a_zd, Jad), 1e-10);
    EXPECT_GT(P.a_z.cwiseAbs().maxCoeff(), 1e-2);
  }
}

// every force element on the jet-free pass (springs with dampers, torsion springs on tree and cut
// joints, body-frame forces and torques of time) equals GeneralizedForces, values and the state's
// partials by dual numbers
TEST(InverseDynamicsOn, EveryForceElementEqualsTheForceKernel) {
  using D = num::Dual8;
  for (const char* name : {"five-bar", "four-bar-free", "spatial-four-bar-swing", "slider-crank", "grid-2x3", "rssr", "crank-slider-3d", "buggy"}) {
    SCOPED_TRACE(name);
    const std::string n = name;
    Mechanism mech = n == "grid-2x3" ? generate::grid(2, 3) : n == "crank-slider-3d" ? generate::crankSlider3d(2) : test::sampleMechanism(name);
    if (n != "buggy") mech = test::withEveryForce(mech);  // the buggy: its tyres in contact
    Diagnostics d;
    const auto resolved = resolve(mech, d);
    ASSERT_TRUE(resolved);
    const MatrixRModel model = compileMatrixR(*resolved);
    const RecursiveModel& tree = model.tree;
    const int nz = tree.nz;
    const Eigen::VectorXd z = tree.z0 + Eigen::VectorXd::LinSpaced(nz, 0.3, -0.4);
    const Eigen::VectorXd zd = Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    const double t = 0.7;
    // state lanes: z_k, ż_k for the first coordinates
    std::vector<D> zs(static_cast<std::size_t>(nz)), zds(zs), zdds(zs), tau(zs), residual(zs);
    for (int i = 0; i < nz; ++i) {
      zs[static_cast<std::size_t>(i)] = D(z[i]);
      zds[static_cast<std::size_t>(i)] = D(zd[i]);
      zdds[static_cast<std::size_t>(i)] = D(zdd[i]);
    }
    for (int k = 0; k < 4 && k < nz; ++k) {
      zs[static_cast<std::size_t>(k)].g[k] = 1;
      zds[static_cast<std::size_t>(nz - 1 - k)].g[4 + k] = 1;
    }
    TreeNumbers<D> numbers = treeNumbers<D>(tree, numbersOn<D>(mech, *resolved, std::vector<D>(resolved->parameters->values().begin(), resolved->parameters->values().end())));
    inverseDynamicsOn<D>(tree, numbers, zs.data(), zds.data(), zdds.data(), t, tau.data());
    GeneralizedForces<D, D> forces(tree, numbers);
    forces(zs.data(), zds.data(), t, residual.data(), zdds.data());
    for (int i = 0; i < nz; ++i) {
      const auto& a = tau[static_cast<std::size_t>(i)];
      const auto& b = residual[static_cast<std::size_t>(i)];
      EXPECT_NEAR(a.v, -b.v, 1e-11 * std::max(1.0, std::abs(b.v))) << "coordinate " << i;
      for (int k = 0; k < 8; ++k) EXPECT_NEAR(a.g[k], -b.g[k], 1e-10 * std::max(1.0, std::abs(b.g[k]))) << "coordinate " << i << " lane " << k;
    }
  }
}

// the tangent pass along the numbers' lanes (inverseDynamicsAlongNumbers) against the dual-number
// motion pass it replaces: random lanes on every field it covers (joint points, stored offsets,
// masses, centres, inertias, body points, gravity, the force elements' numbers, points and
// values), on every joint kind, at a
// moving, accelerating state; τ's lanes and the points' r, v, a lanes to 1e-10 relative
TEST(InverseDynamicsAlongNumbers, LanesEqualTheDualNumberPass) {
  using D = num::Dual8;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  int covered = 0;
  auto cases = test::samplesAndGenerated();
  // every force element kind the pass takes, on an open chain and on a loop's tree (compiled()
  // drops a torsion spring closing the loop: not the pass's), the forces' and torques' values
  // reading a parameter: their time functions' lanes
  for (const char* sample : {"ten-bar-chain", "five-bar"}) {
    Mechanism m = test::withEveryForce(test::sampleMechanism(sample));
    Parameter F0;
    F0.name = "F0";
    F0.value = 1.5;
    m.parameters.push_back(F0);
    for (Force& f : m.forces)
      for (std::size_t k = 0; k < f.value.size(); ++k)
        f.value[k] = Number::expr(f.type == Force::Type::Torque ? "F0 + " + std::to_string(k) + " * t" : "F0 * " + std::to_string(k + 1) + " * sin(2 * t)");
    cases.emplace_back(std::string(sample) + " every force", m);
  }
  for (const auto& [name, mech] : cases) {
    SCOPED_TRACE(name);
    const auto c = compiled(mech, name.ends_with("every force"));
    if (!c) continue;
    const RecursiveModel& tree = c->model.tree;
    // lane l touches the nodes from l·n/8 on (and their bodies): the nodes above a lane's first
    // feel it only through their subtrees' wrenches
    const std::size_t nn = tree.nodes.size();
    auto seedFrom = [&](D& x, std::size_t node) {
      for (int l = 0; l < num::kChunk; ++l) x.g[l] = node >= static_cast<std::size_t>(l) * nn / num::kChunk ? u(rng) : 0.0;
    };
    auto seed = [&](D& x) { seedFrom(x, nn); };
    std::vector<D> parameters(c->resolved.parameters->values().begin(), c->resolved.parameters->values().end());
    for (D& x : parameters) seed(x);  // what the fields seeded below do not overwrite: the time functions'
    TreeNumbers<D> p = treeNumbers<D>(tree, numbersOn<D>(c->mechanism, c->resolved, parameters));
    for (std::size_t k = 0; k < nn; ++k) {
      auto& g = p.nodes[k];
      for (int i = 0; i < 3; ++i) seedFrom(g.point[i], k), seedFrom(g.x0[i], k);
    }
    std::vector<ItemIndex> points;
    for (std::size_t b = 0; b < p.mech.bodies.size(); ++b) {
      auto& B = p.mech.bodies[b];
      const int node = tree.nodeOfBody[b];
      const std::size_t k = node < 0 ? nn : static_cast<std::size_t>(node);
      if (b > 0) {
        seedFrom(B.mass, k);
        for (int i = 0; i < 3; ++i) {
          seedFrom(B.com[i], k);
          for (int j = 0; j <= i; ++j) {
            seedFrom(B.inertia(i, j), k);
            B.inertia(j, i) = B.inertia(i, j);
          }
        }
      }
      for (std::size_t q = 0; q < B.points.size(); ++q) {
        for (int i = 0; i < 3; ++i) seedFrom(B.points[q][i], k);
        points.push_back({static_cast<int>(b), static_cast<int>(q)});
      }
    }
    for (auto& f : p.mech.forces) seed(f.stiffness), seed(f.damping), seed(f.naturalAngle), seed(f.naturalLength);
    for (int i = 0; i < 3; ++i) seed(p.mech.gravity[i]);
    const int nz = tree.nz;
    const Eigen::VectorXd z = tree.z0 + Eigen::VectorXd::LinSpaced(nz, 0.3, -0.4);
    const Eigen::VectorXd zd = Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    const auto np = 3 * points.size();
    std::vector<D> tau(static_cast<std::size_t>(nz)), r(np), v(np), a(np);
    // the state as a run's point takes it: at z̈ = 0, then moved to the accelerations
    MotionAtState state, direct;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nz);
    state.compute(tree, tree.numbers, z.data(), zd.data(), zero.data(), 0.4);
    state.setAccelerations(tree, tree.numbers, zdd.data());
    direct.compute(tree, tree.numbers, z.data(), zd.data(), zdd.data(), 0.4);
    EXPECT_LT((state.tau() - direct.tau()).norm(), 1e-12 * std::max(1.0, direct.tau().norm()));
    {  // the moved accelerations' frames (A_i) too
      Eigen::MatrixXd tz, tzd, tzRef, tzdRef;
      inverseDynamicsDerivatives(tree, tree.numbers, state, tz, tzd);
      inverseDynamicsDerivatives(tree, tree.numbers, direct, tzRef, tzdRef);
      EXPECT_LT(relativeError(tz, tzRef), 1e-12);
      EXPECT_LT(relativeError(tzd, tzdRef), 1e-12);
    }
    const NumbersLanes lanes = numbersLanes(tree, p);
    if (!inverseDynamicsAlongNumbers(tree, tree.numbers, state, lanes, p, tau.data(), points, r.data(), v.data(), a.data())) {
      // only what it does not cover: a quaternion node, a tyre, a torsion spring closing a loop
      bool refused = false;
      for (const Node& n : tree.nodes) refused |= n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial;
      for (const auto& f : c->resolved.forces)
        refused |= f.type == Force::Type::Tyre || (f.type == Force::Type::TorsionSpring && tree.treeJointNode[static_cast<std::size_t>(f.joint)] < 0);
      EXPECT_TRUE(refused);
      continue;
    }
    ++covered;
    std::vector<D> zs(static_cast<std::size_t>(nz)), zds(zs), zdds(zs), tauRef(zs), rRef(np), vRef(np), aRef(np);
    for (int i = 0; i < nz; ++i) {
      zs[static_cast<std::size_t>(i)] = D(z[i]);
      zds[static_cast<std::size_t>(i)] = D(zd[i]);
      zdds[static_cast<std::size_t>(i)] = D(zdd[i]);
    }
    inverseDynamicsWithPoints<D>(tree, p, zs.data(), zds.data(), zdds.data(), 0.4, tauRef.data(), points, rRef.data(), vRef.data(),
                                 aRef.data());
    auto expectEqual = [&](const std::vector<D>& x, const std::vector<D>& ref, const char* what) {
      double scale = 1;
      for (const D& y : ref)
        for (double g : y.g) scale = std::max(scale, std::abs(g));
      for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_NEAR(x[i].v, ref[i].v, 1e-11 * std::max(1.0, std::abs(ref[i].v))) << what << " " << i;
        for (int l = 0; l < num::kChunk; ++l) EXPECT_NEAR(x[i].g[l], ref[i].g[l], 1e-10 * scale) << what << " " << i << " lane " << l;
      }
      return scale;
    };
    EXPECT_GT(expectEqual(tau, tauRef, "tau"), 1.0);
    expectEqual(r, rRef, "r");
    expectEqual(v, vRef, "v");
    expectEqual(a, aRef, "a");
    // without τ: the points' lanes alone, the same
    {
      std::vector<D> r2(np), v2(np), a2(np);
      ASSERT_TRUE(inverseDynamicsAlongNumbers(tree, tree.numbers, state, lanes, p, nullptr, points, r2.data(), v2.data(), a2.data()));
      expectEqual(r2, rRef, "r alone");
      expectEqual(v2, vRef, "v alone");
      expectEqual(a2, aRef, "a alone");
    }
    // the transpose (inverseDynamicsNumbersAdjoint, numbersLanesProducts): random weights on τ and
    // on each of r, v, a alone and together, each lane's product against the weights dotted with
    // the lanes above
    for (int which = 0; which < 4; ++which) {
      std::vector<double> wTau(static_cast<std::size_t>(nz)), wr(np), wv(np), wa(np);
      for (double& x : wTau) x = u(rng);
      for (std::size_t i = 0; i < np; ++i) {
        wr[i] = which == 0 || which == 3 ? u(rng) : 0.0;
        wv[i] = which == 1 || which == 3 ? u(rng) : 0.0;
        wa[i] = which == 2 || which == 3 ? u(rng) : 0.0;
      }
      NumbersAdjoint adjoint;
      inverseDynamicsNumbersAdjoint(tree, tree.numbers, state, wTau.data(), points, wr.data(), wv.data(), wa.data(), adjoint);
      double products[num::kChunk];
      ASSERT_TRUE(numbersLanesProducts(tree, state, lanes, p, adjoint, wTau.data(), points, products));
      for (int l = 0; l < num::kChunk; ++l) {
        double expected = 0, scale = 1;
        for (int i = 0; i < nz; ++i) expected += wTau[static_cast<std::size_t>(i)] * tau[static_cast<std::size_t>(i)].g[l];
        for (std::size_t i = 0; i < np; ++i) expected += wr[i] * r[i].g[l] + wv[i] * v[i].g[l] + wa[i] * a[i].g[l];
        for (int i = 0; i < nz; ++i) scale += std::abs(tau[static_cast<std::size_t>(i)].g[l]);
        for (std::size_t i = 0; i < np; ++i) scale += std::abs(r[i].g[l]) + std::abs(v[i].g[l]) + std::abs(a[i].g[l]);
        EXPECT_NEAR(products[l], expected, 1e-11 * scale) << "weights " << which << " lane " << l;
      }
    }
  }
  EXPECT_GE(covered, 15);
}

// what it refuses: lanes on an axis; a lane that moves a body with an active force element it
// evaluates whole (a torsion spring closing a loop, a tyre) or a quaternion node in the tree
TEST(InverseDynamicsAlongNumbers, RefusesWhatItDoesNotCover) {
  using D = num::Dual8;
  for (const char* what : {"axis", "loop torsion spring", "tyres"}) {
    SCOPED_TRACE(what);
    const std::string kind = what;
    Mechanism mech = kind == "axis" ? test::sampleMechanism("ten-bar-chain")
                     : kind == "tyres" ? test::sampleMechanism("buggy")
                                       : test::withEveryForce(test::sampleMechanism("five-bar"));
    Diagnostics d;
    const auto res = resolve(mech, d);
    const MatrixRModel model = compileMatrixR(*res);
    const RecursiveModel& tree = model.tree;
    TreeNumbers<D> p = treeNumbers<D>(tree, numbersOn<D>(mech, *res, std::vector<D>(res->parameters->values().begin(), res->parameters->values().end())));
    if (kind == "axis") p.nodes[3].axis[2].g[0] = 1;
    else p.nodes[tree.nodes.size() - 1].point[0].g[0] = 1;  // a joint point: its subtree translated
    const int nz = tree.nz;
    const Eigen::VectorXd z = tree.z0, zd = Eigen::VectorXd::Ones(nz), zdd = zd;
    std::vector<D> tau(static_cast<std::size_t>(nz));
    MotionAtState state;
    state.compute(tree, tree.numbers, z.data(), zd.data(), zdd.data(), 0);
    const NumbersLanes lanes = numbersLanes(tree, p);
    EXPECT_EQ(lanes.uncovered.empty(), kind == "loop torsion spring") << lanes.uncovered;
    EXPECT_FALSE(inverseDynamicsAlongNumbers(tree, tree.numbers, state, lanes, p, tau.data(), {}, nullptr, nullptr, nullptr));
  }
}

// where no lane moves a body, the elements the pass evaluates whole on the lanes' numbers (the
// buggy's tyres on its free chassis' quaternion node, the five-bar's torsion spring closing its
// loop) and every other one: τ's lanes against the dual-number pass, and the transpose's
// products against the weights dotted with them, to 1e-10
TEST(InverseDynamicsAlongNumbers, ElementsEvaluatedWholeWhereNoBodyMoves) {
  using D = num::Dual8;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const char* name : {"buggy", "five-bar"}) {
    SCOPED_TRACE(name);
    Mechanism mech = test::sampleMechanism(name);
    mech.contacts.clear();
    mech.switches.clear();
    mech.limits.clear();
    if (std::string(name) == "five-bar") mech = test::withEveryForce(mech);
    Diagnostics d;
    const auto res = resolve(mech, d);
    ASSERT_TRUE(res);
    const MatrixRModel model = compileMatrixR(*res);
    const RecursiveModel& tree = model.tree;
    std::vector<D> parameters(res->parameters->values().begin(), res->parameters->values().end());
    TreeNumbers<D> p = treeNumbers<D>(tree, numbersOn<D>(mech, *res, parameters));
    auto seed = [&](D& x) {
      for (double& g : x.g) g = u(rng);
    };
    bool evaluated = false;
    for (std::size_t fi = 0; fi < p.mech.forces.size(); ++fi) {
      auto& f = p.mech.forces[fi];
      seed(f.stiffness), seed(f.damping), seed(f.naturalAngle), seed(f.naturalLength), seed(f.friction);
      const auto& rf = res->forces[fi];
      evaluated |= rf.type == Force::Type::Tyre || (rf.type == Force::Type::TorsionSpring && tree.treeJointNode[static_cast<std::size_t>(rf.joint)] < 0);
    }
    ASSERT_TRUE(evaluated);
    for (std::size_t b = 1; b < p.mech.bodies.size(); ++b) seed(p.mech.bodies[b].mass);
    // the tyres' wheel centres: a body point's own lane (its body stays)
    for (const auto& f : res->forces)
      if (f.type == Force::Type::Tyre)
        for (int i = 0; i < 3; ++i) seed(p.mech.bodies[static_cast<std::size_t>(f.point.body)].points[static_cast<std::size_t>(f.point.index)][i]);
    const NumbersLanes lanes = numbersLanes(tree, p);
    ASSERT_FALSE(lanes.movesBodies);
    ASSERT_TRUE(numbersLanesCovered(tree, lanes, p)) << lanes.uncovered;
    const int nz = tree.nz;
    // near the stored configuration (the buggy's tyres keep touching), moving and accelerating
    const double off = std::string(name) == "buggy" ? 0.01 : 0.3;
    const Eigen::VectorXd z = tree.z0 + off * Eigen::VectorXd::LinSpaced(nz, 1.0, -1.3);
    const Eigen::VectorXd zd = off * Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    const double t = 0.4;
    MotionAtState state;
    state.compute(tree, tree.numbers, z.data(), zd.data(), zdd.data(), t);
    std::vector<D> tau(static_cast<std::size_t>(nz)), ref(tau);
    ASSERT_TRUE(inverseDynamicsAlongNumbers(tree, tree.numbers, state, lanes, p, tau.data(), {}, nullptr, nullptr, nullptr));
    std::vector<D> zs(tau), zds(tau), zdds(tau);
    for (int i = 0; i < nz; ++i) {
      zs[static_cast<std::size_t>(i)] = D(z[i]);
      zds[static_cast<std::size_t>(i)] = D(zd[i]);
      zdds[static_cast<std::size_t>(i)] = D(zdd[i]);
    }
    inverseDynamicsWithPoints<D>(tree, p, zs.data(), zds.data(), zdds.data(), t, ref.data(), {}, nullptr, nullptr, nullptr);
    double scale = 1;
    for (const D& y : ref)
      for (double g : y.g) scale = std::max(scale, std::abs(g));
    EXPECT_GT(scale, 10.0);
    for (int i = 0; i < nz; ++i)
      for (int l = 0; l < num::kChunk; ++l)
        EXPECT_NEAR(tau[static_cast<std::size_t>(i)].g[l], ref[static_cast<std::size_t>(i)].g[l], 1e-10 * scale) << "tau " << i << " lane " << l;
    // the transpose: weights on τ
    std::vector<double> wTau(static_cast<std::size_t>(nz));
    for (double& x : wTau) x = u(rng);
    NumbersAdjoint adjoint;
    inverseDynamicsNumbersAdjoint(tree, tree.numbers, state, wTau.data(), {}, nullptr, nullptr, nullptr, adjoint);
    double products[num::kChunk];
    ASSERT_TRUE(numbersLanesProducts(tree, state, lanes, p, adjoint, wTau.data(), {}, products));
    for (int l = 0; l < num::kChunk; ++l) {
      double expected = 0;
      for (int i = 0; i < nz; ++i) expected += wTau[static_cast<std::size_t>(i)] * ref[static_cast<std::size_t>(i)].g[l];
      EXPECT_NEAR(products[l], expected, 1e-10 * scale * nz) << "lane " << l;
    }
  }
}

// quaternion nodes (a spherical tree joint, a free body) whose columns turn with the quaternion
// itself: off the unit sphere (|q| ≠ 1, the kernels normalise) and with a radial rate, the buggy
// with its tyres and dampers on the free chassis — ∂τ/∂z, ∂τ/∂ż against dense forward AD to 1e-10
TEST(InverseDynamicsDerivatives, EqualDualNumbersOnQuaternionJoints) {
  const std::pair<std::string, bool> models[] = {{"rssr", false}, {"buggy", false}, {"buggy", true}};
  for (const auto& [name, keepForces] : models) {
    SCOPED_TRACE(name + (keepForces ? " with its forces" : ""));
    const auto c = compiled(test::sampleMechanism(name), keepForces);
    ASSERT_TRUE(c);
    const RecursiveModel& tree = c->model.tree;
    ASSERT_TRUE(std::any_of(tree.nodes.begin(), tree.nodes.end(),
                            [](const Node& n) { return n.kind == NodeKind::Spherical || n.kind == NodeKind::FreeSpatial; }));
    const int nz = tree.nz;
    const double off = keepForces ? 0.01 : 0.3;  // the buggy's tyres keep touching
    const Eigen::VectorXd z = tree.z0 + off * Eigen::VectorXd::LinSpaced(nz, 1.0, -1.3);
    const Eigen::VectorXd zd = Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    Eigen::MatrixXd K, C;
    expectEqualDualNumbers(tree, z, zd, zdd, 0.3, K, C);
  }
}

}  // namespace
}  // namespace lw::dyn
