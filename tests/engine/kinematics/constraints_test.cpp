// Every constraint kind's derivatives against finite differences, on every sample (they cover
// pins, sliders, revolute, universal, spherical, prismatic axes, drivers and rigid bodies).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "io/mechanism_io.h"
#include "kinematics/natural_model.h"
#include "mechanism/generators.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::kin {
namespace {

std::vector<std::pair<std::string, Mechanism>> models() {
  auto out = test::samplesAndGenerated();
  // the driver kinds no sample uses: a distance driver (a jack), a coordinate driver, a slider
  // driven by its joint coordinate
  const auto r = io::loadMechanismFromString(R"json({
    "format": "linkwright-mechanism", "version": 1, "name": "drivers", "dimension": 2,
    "ground": {"points": {"O": [0, 0], "J": [2, 0], "S": [0, -1], "T": [0, -2]}, "vectors": {"x": [1, 0]}},
    "bodies": [
      {"name": "arm", "mass": 1, "com": [0.5, 0], "inertia": 0.1, "points": {"O": [0, 0], "P": [1, 1]}},
      {"name": "block", "position": [1, -1], "mass": 1, "com": [0, 0], "inertia": 0.1,
       "points": {"B": [0, 0]}, "vectors": {"u": [1, 0]}},
      {"name": "cart", "position": [0.5, -2], "mass": 1, "com": [0, 0], "inertia": 0.1,
       "points": {"C": [0, 0]}, "vectors": {"u": [1, 0]}}
    ],
    "joints": [
      {"name": "O", "type": "pin", "points": ["ground.O", "arm.O"]},
      {"name": "S", "type": "slider", "points": ["ground.S", "block.B"], "axes": ["ground.x", "block.u"]},
      {"name": "T", "type": "slider", "points": ["ground.T", "cart.C"], "axes": ["ground.x", "cart.u"]}
    ],
    "drivers": [
      {"name": "jack", "type": "distance", "points": ["ground.J", "arm.P"], "function": "sqrt(2) + 0.1*t"},
      {"name": "push", "type": "coordinate", "point": "block.B", "component": "x", "function": "1 + 0.2*sin(t)"},
      {"name": "slide", "type": "joint", "joint": "T", "function": "0.3*t"}
    ]})json");
  if (r.ok()) out.emplace_back("drivers", *r.mechanism);
  else ADD_FAILURE() << r.diagnostics[0].format();
  // a cylindrical joint between two moving bodies (the samples' prismatic axes are ground's)
  const auto sleeve = io::loadMechanismFromString(R"json({
    "format": "linkwright-mechanism", "version": 1, "name": "sleeve", "dimension": 3,
    "ground": {"points": {"O": [0, 0, 0]}},
    "bodies": [
      {"name": "arm", "mass": 1, "com": [0.5, 0, 0], "inertia": [0.1, 0.1, 0.1],
       "points": {"O": [0, 0, 0], "P": [1, 0, 0], "Q": [0.2, 0.3, 0.7]}, "vectors": {"u": [0.6, 0.8, 0]}},
      {"name": "sleeve", "position": [1.3, 0.4, 0], "mass": 1, "com": [0, 0, 0], "inertia": [0.1, 0.1, 0.1],
       "points": {"S": [0, 0, 0]}, "vectors": {"u": [0.6, 0.8, 0]}},
      {"name": "tip", "position": [0.2, 0.3, 0.7], "mass": 1, "com": [0, 0, 0.2], "inertia": [0.1, 0.1, 0.1],
       "points": {"Q": [0, 0, 0]}, "vectors": {"v": [0, 0, 1], "w": [1, 0, 0]}}
    ],
    "joints": [
      {"name": "O", "type": "spherical", "points": ["ground.O", "arm.O"]},
      {"name": "C", "type": "cylindrical", "points": ["arm.P", "sleeve.S"], "axes": ["arm.u", "sleeve.u"]},
      {"name": "T", "type": "spherical", "points": ["arm.Q", "tip.Q"]}
    ]})json");
  if (sleeve.ok()) out.emplace_back("sleeve", *sleeve.mechanism);
  else ADD_FAILURE() << sleeve.diagnostics[0].format();
  return out;
}

TEST(Constraints, DerivativesMatchFiniteDifferences) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 1);
  int kinds[10] = {};
  for (const auto& [name, mech] : models()) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    ASSERT_TRUE(res) << name;
    const NaturalModel m = compileNaturalModel(*res);
    for (const auto& c : m.constraints) kinds[static_cast<int>(c.kind)]++;
    if (m.nq == 0) continue;
    // a perturbed configuration (constraints need not hold for derivative checks)
    Eigen::VectorXd q = m.q0, qd(m.nq);
    for (int i = 0; i < m.nq; ++i) {
      q[i] += 0.05 * noise(rng);
      qd[i] = noise(rng);
    }
    const double t = 0.37, h = 1e-6;
    Eigen::MatrixXd J;
    evaluateJacobianDense(m, q, t, J);
    Eigen::VectorXd fp(m.nrows), fm(m.nrows), f0(m.nrows);
    for (int j = 0; j < m.nq; ++j) {
      Eigen::VectorXd qp = q, qm = q;
      qp[j] += h;
      qm[j] -= h;
      evaluateConstraints(m, qp, t, fp);
      evaluateConstraints(m, qm, t, fm);
      const Eigen::VectorXd fd = (fp - fm) / (2 * h);
      for (int r = 0; r < m.nrows; ++r)
        ASSERT_TRUE(test::near(J(r, j), fd[r], 1e-7, 1e-7)) << name << " Φ_q(" << r << ", " << j << ") " << m.describeRow(r);
    }
    // Φ_t
    Eigen::VectorXd phiT(m.nrows);
    evaluatePhiT(m, q, t, phiT);
    evaluateConstraints(m, q, t + h, fp);
    evaluateConstraints(m, q, t - h, fm);
    for (int r = 0; r < m.nrows; ++r)
      ASSERT_TRUE(test::near(phiT[r], (fp[r] - fm[r]) / (2 * h), 1e-7, 1e-7)) << name << " Φ_t row " << r;
    // γ = Φ̇_q q̇ + Φ̇_t = d²/ds² Φ(q + s q̇, t + s)
    Eigen::VectorXd gamma(m.nrows);
    evaluateGamma(m, q, qd, t, gamma);
    const double s = 1e-4;
    evaluateConstraints(m, q + s * qd, t + s, fp);
    evaluateConstraints(m, q - s * qd, t - s, fm);
    evaluateConstraints(m, q, t, f0);
    for (int r = 0; r < m.nrows; ++r)
      ASSERT_TRUE(test::near(gamma[r], (fp[r] - 2 * f0[r] + fm[r]) / (s * s), 1e-5, 1e-5))
          << name << " γ row " << r << " " << m.describeRow(r);
  }
  // the samples exercise every kind of constraint
  for (int k = 0; k < 10; ++k) EXPECT_GT(kinds[k], 0) << "constraint kind " << k << " is not covered";
}

// The closed-form blocks and weighted Hessians (constraint_derivatives.cpp) against the jets they
// replace in the Newton matrices: Φ_q column by column, and Σ w_r Φ_r,qq along every column and
// every pair of columns (second-order jets: exact for these polynomials), on every model with and
// without linear frames (the frames' third vector, and the cross product d × d' without it).
TEST(Constraints, ClosedFormBlocksAndHessiansEqualTheJets) {
  std::mt19937 rng(11);
  std::normal_distribution<double> noise(0, 1);
  int kinds[10] = {}, crossCombos = 0, movingAxes = 0;
  for (const auto& [name, mech] : models())
    for (bool linearFrames : {false, true}) {
      Diagnostics d;
      const auto res = resolve(mech, d);
      ASSERT_TRUE(res) << name;
      const NaturalModel m = compileNaturalModel(*res, {.linearFrames = linearFrames});
      if (m.nq == 0) continue;
      Eigen::VectorXd q = m.q0, dir = Eigen::VectorXd::Zero(m.nq);
      for (int i = 0; i < m.nq; ++i) q[i] += 0.05 * noise(rng);
      const double t = 0.37;
      for (const Constraint& c : m.constraints) {
        kinds[static_cast<int>(c.kind)]++;
        if (c.kind == ConstraintKind::Combo && m.dimension == 3 && c.d[1].a >= 0 && c.d[2].a < 0 && c.c[2] != 0) ++crossCombos;
        if (c.kind == ConstraintKind::AxisLine3D && !m.entities[static_cast<std::size_t>(c.e[2])].fixed() &&
            !m.entities[static_cast<std::size_t>(c.e[3])].fixed())
          ++movingAxes;
        const int nc = static_cast<int>(c.columns.size());
        std::vector<double> J(static_cast<std::size_t>(nc * c.rows)), H(static_cast<std::size_t>(nc * nc));
        const double w[3] = {noise(rng), noise(rng), noise(rng)};
        constraintBlock(m, c, q, t, J.data());
        constraintHessian(m, c, q, t, w, H.data());
        auto weighted = [&](const Jet* out) {
          double v = 0;
          for (int r = 0; r < c.rows; ++r) v += w[r] * out[r].dd;
          return v;
        };
        Jet out[3];
        for (int a = 0; a < nc; ++a) {
          const int ja = c.columns[static_cast<std::size_t>(a)];
          double column[3];
          detail::constraintColumn(m, c, q, t, ja, column);
          for (int r = 0; r < c.rows; ++r)
            ASSERT_TRUE(test::near(J[static_cast<std::size_t>(a * c.rows + r)], column[r], 1e-13, 1e-13))
                << name << " " << m.describeRow(c.row + r) << " column " << ja;
          for (int b = a; b < nc; ++b) {
            const int jb = c.columns[static_cast<std::size_t>(b)];
            dir[ja] += 1;
            dir[jb] += 1;
            constraintJet(m, c, q, &dir, -1, t, 0, out);
            dir[ja] = dir[jb] = 0;
            // along e_a + e_b: H_aa + 2 H_ab + H_bb (along 2 e_a: 4 H_aa)
            const double hab = H[static_cast<std::size_t>(b * nc + a)], hba = H[static_cast<std::size_t>(a * nc + b)];
            ASSERT_EQ(hab, hba) << name << " " << m.describeRow(c.row) << " columns " << ja << ", " << jb;
            const double expected = a == b ? 4 * hab : H[static_cast<std::size_t>(a * nc + a)] + 2 * hab + H[static_cast<std::size_t>(b * nc + b)];
            ASSERT_TRUE(test::near(expected, weighted(out), 1e-12, 1e-12))
                << name << " " << m.describeRow(c.row) << " Hessian at columns " << ja << ", " << jb;
          }
        }
      }
    }
  for (int k = 0; k < 10; ++k) EXPECT_GT(kinds[k], 0) << "constraint kind " << k << " is not covered";
  EXPECT_GT(crossCombos, 0);
  EXPECT_GT(movingAxes, 0);
}

TEST(Constraints, StoredConfigurationsSatisfyTheirConstraints) {
  for (const auto& [name, mech] : models()) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    const NaturalModel m = compileNaturalModel(*res);
    Eigen::VectorXd phi(m.nrows);
    evaluateConstraints(m, m.q0, 0, phi);
    // five-bar uses the seed's truncated lengths: a 1e-4 m mismatch is expected there
    const double tol = name == "five-bar" ? 1e-3 : 1e-9;
    for (int r = 0; r < m.nrows; ++r) EXPECT_LT(std::abs(phi[r]), tol) << name << ": " << m.describeRow(r);
  }
}

}  // namespace
}  // namespace lw::kin
