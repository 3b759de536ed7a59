// The recursive model: the tree reproduces the stored configuration at z0, the loop constraints
// hold there, and every derivative (Φ_z, Φ_t, the acceleration term, body velocities, partial
// velocities) matches finite differences.
#include "dynamics/recursive_model.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "dynamics/matrix_r.h"
#include "dynamics/recursive_data.h"
#include "dynamics/tree_kernels.h"
#include "dynamics/tree_motion.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

std::vector<std::pair<std::string, Mechanism>> models() { return test::samplesAndGenerated(); }

// a state off the stored configuration: z0 + 0.1 N(0, 1) and ż = N(0, 1)
void randomState(const RecursiveModel& m, std::mt19937& rng, std::normal_distribution<double>& noise, Eigen::VectorXd& z,
                 Eigen::VectorXd& zd) {
  z = m.z0;
  zd.resize(m.nz);
  for (int i = 0; i < m.nz; ++i) {
    z[i] += 0.1 * noise(rng);
    zd[i] = noise(rng);
  }
}

// fn(name, resolved, model, z, zd) for every model compiled, at a random state from `seed`
template <class F>
void atRandomStates(unsigned seed, F&& fn) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 1);
  for (const auto& [name, mech] : models()) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    const RecursiveModel m = compileRecursiveModel(*res);
    Eigen::VectorXd z, zd;
    randomState(m, rng, noise, z, zd);
    fn(name, *res, m, z, zd);
  }
}

TEST(RecursiveModel, StoredConfigurationAtZ0AndLoopsClosed) {
  RecursiveData kd;
  for (const auto& [name, mech] : models()) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    ASSERT_TRUE(res) << name;
    const RecursiveModel m = compileRecursiveModel(*res);
    std::vector<Pose3<double>> poses;
    bodyPoses(m, kd, m.z0, poses);
    for (std::size_t b = 1; b < res->bodies.size(); ++b) {
      const auto& body = res->bodies[b];
      for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(poses[b].x[i], body.position[i], 1e-12) << name << " " << body.name;
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(poses[b].R[3 * i + k], body.rotation(i, k), 1e-12) << name;
      }
    }
    Eigen::VectorXd phi;
    loopConstraints(m, kd, m.z0, 0, phi);
    const double tol = name == "five-bar" ? 1e-3 : 1e-9;  // the seed's truncated lengths
    for (int r = 0; r < m.nrows; ++r) EXPECT_LT(std::abs(phi[r]), tol) << name << ": " << m.describeRow(r);
  }
}

// the loops' rank gives the mobility Grübler–Kutzbach miscounts: each of a grid's 15 rows of
// parallelograms swings on its own (15 freedoms; the formula counts each planar loop's 3 redundant
// rows in space and says −30 for 1×15); the RSSR's rod keeps its passive spin
TEST(RecursiveModel, LoopMobilityIsTheRealNumberOfFreedoms) {
  RecursiveData kd;
  const std::map<std::string, int> known = {{"four-bar", 1}, {"slider-crank", 1}, {"watt-six-bar", 1}, {"stephenson-six-bar", 1},
                                            {"five-bar", 2}, {"four-bar-free", 1}, {"spatial-four-bar", 1}, {"rssr", 2},
                                            {"grid-1x15", 15}, {"grid-2x15", 15}, {"grid-4x15", 15}};
  int checked = 0;
  for (const auto& [name, mech] : models()) {
    const auto it = known.find(name);
    if (it == known.end()) continue;
    Diagnostics d;
    const auto res = resolve(mech, d);
    ASSERT_TRUE(res) << name;
    const RecursiveModel m = compileRecursiveModel(*res);
    EXPECT_EQ(loopMobility(m, kd, m.z0), it->second) << name;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(RecursiveModel, DerivativesMatchFiniteDifferences) {
  RecursiveData kd;
  atRandomStates(11, [&](const std::string& name, const ResolvedMechanism& resolved, const RecursiveModel& m, const Eigen::VectorXd& z,
                         const Eigen::VectorXd& zd) {
    const ResolvedMechanism* res = &resolved;
    const double t = 0.3, h = 1e-6;
    Eigen::MatrixXd J;
    loopJacobian(m, kd, z, t, J);
    Eigen::VectorXd fp, fm, f0;
    for (int j = 0; j < m.nz; ++j) {
      Eigen::VectorXd zp = z, zm = z;
      zp[j] += h;
      zm[j] -= h;
      loopConstraints(m, kd, zp, t, fp);
      loopConstraints(m, kd, zm, t, fm);
      for (int r = 0; r < m.nrows; ++r) {
        const double fd = (fp[r] - fm[r]) / (2 * h);
        ASSERT_TRUE(test::near(J(r, j), fd, 1e-7, 1e-7)) << name << " Φ_z(" << r << "," << j << ")";
        // the structural pattern (the penalty's Φ_zᵀΦ_z, Matrix R's sparse Θ_z) holds every nonzero
        const auto& cols = m.rowColumns[static_cast<std::size_t>(r)];
        if (std::abs(fd) > 1e-9) {
          ASSERT_TRUE(std::binary_search(cols.begin(), cols.end(), j)) << name << ": Φ_z(" << r << "," << j << ") = " << fd << " outside the pattern";
        }
      }
    }
    // the blocks Matrix R reads, some rows only: the wanted rows' entries are Φ_z's
    std::vector<char> wanted(static_cast<std::size_t>(m.nrows));
    for (std::size_t r = 0; r < wanted.size(); ++r) wanted[r] = static_cast<char>(r % 3 != 1);
    std::vector<double> blocks;
    loopJacobianBlocks(m, kd, z, t, blocks, &wanted);
    ASSERT_EQ(static_cast<int>(blocks.size()), m.nblocks);
    for (const LoopConstraint& lc : m.constraints)
      for (int a = 0; a < lc.rows; ++a) {
        if (!wanted[static_cast<std::size_t>(lc.row + a)]) continue;
        const auto& cols = m.rowColumns[static_cast<std::size_t>(lc.row + a)];
        for (std::size_t j = 0; j < cols.size(); ++j)
          ASSERT_EQ(blocks[static_cast<std::size_t>(lc.block) + j * static_cast<std::size_t>(lc.rows) + static_cast<std::size_t>(a)],
                    J(lc.row + a, cols[j]))
              << name << " block of row " << lc.row + a;
      }
    Eigen::VectorXd phiT, c;
    loopRates(m, kd, z, zd, t, phiT, c);
    // Φ and c of the wanted rows alone are those of all rows
    {
      Eigen::VectorXd phiAll, phiWanted, phiTw, cWanted;
      loopConstraints(m, kd, z, t, phiAll);
      loopConstraints(m, kd, z, t, phiWanted, &wanted);
      loopRates(m, kd, z, zd, t, phiTw, cWanted, &wanted);
      for (int r = 0; r < m.nrows; ++r)
        if (wanted[static_cast<std::size_t>(r)]) {
          ASSERT_EQ(phiWanted[r], phiAll[r]) << name << " Φ row " << r;
          ASSERT_EQ(cWanted[r], c[r]) << name << " c row " << r;
        }
    }
    loopConstraints(m, kd, z, t + h, fp);
    loopConstraints(m, kd, z, t - h, fm);
    for (int r = 0; r < m.nrows; ++r) ASSERT_TRUE(test::near(phiT[r], (fp[r] - fm[r]) / (2 * h), 1e-7, 1e-7)) << name;
    const double s = 1e-4;
    loopConstraints(m, kd, z + s * zd, t + s, fp);
    loopConstraints(m, kd, z - s * zd, t - s, fm);
    loopConstraints(m, kd, z, t, f0);
    for (int r = 0; r < m.nrows; ++r)
      ASSERT_TRUE(test::near(-c[r], (fp[r] - 2 * f0[r] + fm[r]) / (s * s), 1e-5, 1e-5)) << name << " c row " << r;
    // body velocities: centre of mass and orientation along z + s ż
    Eigen::VectorXd V, Vd0;
    bodyVelocities(m, kd, z, zd, V, Vd0);
    std::vector<Pose3<double>> pp, pm, p0;
    bodyPoses(m, kd, z + s * zd, pp);
    bodyPoses(m, kd, z - s * zd, pm);
    bodyPoses(m, kd, z, p0);
    for (std::size_t b = 1; b < res->bodies.size(); ++b) {
      auto com = [&](const Pose3<double>& P) {
        Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(P.R);
        return Eigen::Vector3d(Eigen::Vector3d(P.x[0], P.x[1], P.x[2]) + R * res->bodies[b].com);
      };
      const Eigen::Vector3d v = (com(pp[b]) - com(pm[b])) / (2 * s);
      const Eigen::Vector3d a = (com(pp[b]) - 2 * com(p0[b]) + com(pm[b])) / (s * s);
      for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(test::near(V[6 * static_cast<Eigen::Index>(b) + i], v[i], 1e-6, 1e-6)) << name << " body " << b;
        EXPECT_TRUE(test::near(Vd0[6 * static_cast<Eigen::Index>(b) + i], a[i], 1e-4, 1e-4)) << name << " body " << b;
      }
      // ω̃ = Ṙ Rᵀ
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rp(pp[b].R), Rm(pm[b].R), R0(p0[b].R);
      const Eigen::Matrix3d W = (Rp - Rm) / (2 * s) * R0.transpose();
      EXPECT_TRUE(test::near(V[6 * static_cast<Eigen::Index>(b) + 3], W(2, 1), 1e-6, 1e-6)) << name;
      EXPECT_TRUE(test::near(V[6 * static_cast<Eigen::Index>(b) + 5], W(1, 0), 1e-6, 1e-6)) << name;
    }
    // partial velocities: b_k is V_k when only node k's coordinates move
    const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> bk = partialVelocitiesAt(m, kd, z);
    for (std::size_t k = 0; k < m.nodes.size(); ++k)
      for (int i = 0; i < m.nodes[k].nz; ++i) {
        Eigen::VectorXd e = Eigen::VectorXd::Zero(m.nz);
        e[m.nodes[k].z + i] = 1;
        bodyVelocities(m, kd, z, e, V, Vd0);
        const auto body = static_cast<Eigen::Index>(m.nodes[k].body);
        EXPECT_LT((V.segment<6>(6 * body) - bk[k].col(i)).cwiseAbs().maxCoeff(), 1e-12) << name;
      }
    // the output rows' one-pass snapshot: the same Φ, Φ̇ = Φ_z ż + Φ_t, body velocities and poses,
    // and point velocities by differences along z + s ż
    MotionSnapshot snap;
    motionSnapshot(m, kd, z, zd, t, snap);
    bodyVelocities(m, kd, z, zd, V, Vd0);
    loopConstraints(m, kd, z, t, f0);
    ASSERT_EQ(snap.phi.size(), m.nrows);
    if (m.nrows > 0) {  // open chains have no loop rows
      EXPECT_LT((snap.phi - f0).cwiseAbs().maxCoeff(), 1e-14) << name;
      EXPECT_LT((snap.phiDot - (J * zd + phiT)).cwiseAbs().maxCoeff(), 1e-11) << name;
    }
    EXPECT_LT((snap.V - V).cwiseAbs().maxCoeff(), 1e-12) << name;
    for (std::size_t b = 1; b < res->bodies.size(); ++b) {
      for (int i = 0; i < 12; ++i)
        EXPECT_EQ(i < 9 ? snap.poses[b].R[i] : snap.poses[b].x[i - 9], i < 9 ? p0[b].R[i] : p0[b].x[i - 9]) << name;
      for (std::size_t k = 0; k < res->bodies[b].points.size(); ++k) {
        auto at = [&](const Pose3<double>& P) {
          Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(P.R);
          return Eigen::Vector3d(Eigen::Vector3d(P.x[0], P.x[1], P.x[2]) + R * res->bodies[b].points[k]);
        };
        const int bi = static_cast<int>(b), ki = static_cast<int>(k);
        EXPECT_LT((snap.pointPosition(m, bi, ki) - at(p0[b])).norm(), 1e-14) << name;
        // central differences of step s: their truncation error grows with the speed
        const Eigen::Vector3d fd = (at(pp[b]) - at(pm[b])) / (2 * s);
        EXPECT_LT((snap.pointVelocity(bi, ki) - fd).norm(), 1e-6 * std::max(1.0, fd.squaredNorm())) << name;
      }
    }
  });
}

// The shared jet frames of a state (forces, loop rates, output rows) come from the poses and the
// velocity recursion on revolute nodes: they equal the pose recursion on jets, value, rate and
// acceleration, for every joint kind the samples have (planar, spatial, free, spherical).
TEST(RecursiveModel, JetFramesFromVelocitiesEqualThePoseRecursionOnJets) {
  RecursiveData kd;
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0, 1);
  for (const auto& [name, mech] : models()) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    const RecursiveModel m = compileRecursiveModel(*res);
    Eigen::VectorXd z, zd;
    randomState(m, rng, noise, z, zd);
    std::vector<kin::Jet> zj(static_cast<std::size_t>(m.nz));
    for (int i = 0; i < m.nz; ++i) zj[static_cast<std::size_t>(i)] = kin::Jet(z[i], zd[i], 0.0);
    std::vector<detail::Frame<kin::Jet>> expected;
    detail::computeFrames<kin::Jet>(m, zj.data(), expected);
    const auto& f = detail::jetFramesAlong(m, kd, z.data(), zd.data());
    ASSERT_EQ(f.size(), expected.size()) << name;
    const double scale = std::max(1.0, res->lengthScale());
    for (std::size_t b = 0; b < f.size(); ++b) {
      auto check = [&](const kin::Jet& got, const kin::Jet& want, double s, const char* what) {
        EXPECT_EQ(got.v, want.v) << name << " body " << b << " " << what;  // the same poses
        EXPECT_NEAR(got.d, want.d, 1e-12 * s) << name << " body " << b << " " << what;
        EXPECT_NEAR(got.dd, want.dd, 1e-11 * s) << name << " body " << b << " " << what;
      };
      for (int i = 0; i < 9; ++i) check(f[b].R.a[i], expected[b].R.a[i], 1.0, "R");
      for (int i = 0; i < 3; ++i) check(f[b].x[i], expected[b].x[i], scale, "x");
    }
  }
}

TEST(RecursiveModel, SphericalJointsAreCutAndLoopsCounted) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/spatial-four-bar.json");
  Diagnostics d;
  const auto res = resolve(*r.mechanism, d);
  const RecursiveModel m = compileRecursiveModel(*res);
  // tree: crank (R), rod (U on the crank), follower (R); the ball joint C is the cut: 3 equations
  EXPECT_EQ(m.nz, 4);  // z₁..z₄ of seed 004
  EXPECT_EQ(m.nrows, 3);
  EXPECT_TRUE(m.isCut[2]);
}

// The penalty formulation's kernels on the motion (tree_motion.h): M^d by composite bodies in world
// axes equals Matrix R's mass matrix (its own recursion), and Φ_z from the rows along the bodies'
// unit twists equals a jet pass per coordinate, on every sample and generated mechanism (quaternion
// nodes, drivers on tree joints, every joint kind)
TEST(RecursiveModel, MassAndConstraintJacobianFromTheMotionEqualTheirReferences) {
  RecursiveData kd;
  atRandomStates(11, [&](const std::string& name, const ResolvedMechanism&, const RecursiveModel& m, const Eigen::VectorXd& z,
                         const Eigen::VectorXd&) {
    if (m.nz == 0) return;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(m.nz);
    detail::TreeMotion<double> motion;
    detail::treeMotion<double>(m, m.numbers, z.data(), zero.data(), zero.data(), motion);
    Eigen::MatrixXd M, Mref;
    detail::massMatrixFrom<double>(m, m.numbers, motion, M);
    massMatrix(m, kd, z, Mref);
    EXPECT_LT((M - Mref).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, Mref.cwiseAbs().maxCoeff())) << name;
    if (m.nrows == 0) return;  // an open tree: no rows
    const double t = 0.4;
    Eigen::MatrixXd J, Jref(m.nrows, m.nz);
    detail::constraintJacobianFrom<double>(m, m.numbers, motion, z.data(), t, J);
    std::vector<kin::Jet> zj(static_cast<std::size_t>(m.nz)), phi(static_cast<std::size_t>(m.nrows));
    for (int i = 0; i < m.nz; ++i) zj[static_cast<std::size_t>(i)] = kin::Jet(z[i], 0.0, 0.0);
    for (int j = 0; j < m.nz; ++j) {
      zj[static_cast<std::size_t>(j)].d = 1;
      kinematicsOn<kin::Jet, double>(m, m.numbers, zj.data(), kin::Jet(t), phi.data(), {}, nullptr);
      for (int r = 0; r < m.nrows; ++r) Jref(r, j) = phi[static_cast<std::size_t>(r)].d;
      zj[static_cast<std::size_t>(j)].d = 0;
    }
    ASSERT_EQ(J.rows(), Jref.rows()) << name;
    const double scale = std::max(1.0, Jref.cwiseAbs().maxCoeff());
    for (int r = 0; r < m.nrows; ++r)
      for (int j = 0; j < m.nz; ++j) EXPECT_NEAR(J(r, j), Jref(r, j), 1e-10 * scale) << name << ": " << m.describeRow(r) << ", z" << j;
  });
}

}  // namespace
}  // namespace lw::dyn
