// Every constraint kind's derivatives against finite differences, on every sample (they cover
// pins, sliders, revolute, universal, spherical, prismatic axes, drivers and rigid bodies).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <random>

#include "io/mechanism_io.h"
#include "dynamics/matrix_r.h"
#include "events/resting_contact.h"
#include "kinematics/natural_model.h"
#include "kinematics/natural_numbers.h"
#include "numeric/dual_eigen.h"
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
    ],
    "contacts": [{"name": "touch", "type": "point_plane", "point": "arm.P", "plane_point": "block.B", "plane_normal": "block.u"}],
    "limits": [{"name": "turn", "joint": "O", "min": -1, "max": 2}, {"name": "stop", "joint": "S", "max": 3}]})json");
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
    ],
    "contacts": [{"name": "touch", "type": "point_plane", "point": "tip.Q", "plane_point": "sleeve.S", "plane_normal": "sleeve.u", "radius": 0.1}]})json");
  if (sleeve.ok()) out.emplace_back("sleeve", *sleeve.mechanism);
  else ADD_FAILURE() << sleeve.diagnostics[0].format();
  return out;
}

// every contact and every side of every limit held closed (the rows a resting contact adds,
// kin::HeldGap: a contact's PlaneGap, a stop's joint as a driver holds it at its value), as a
// global run holds them (events::naturalHeldGaps)
std::vector<HeldGap> everythingHeld(const ResolvedMechanism& r) {
  if (r.contacts.empty() && r.limits.empty()) return {};
  const dyn::MatrixRModel model = dyn::compileMatrixR(r);
  if (!model.ok()) return {};
  std::vector<int> gaps;
  const auto sources = events::gapSources(model.tree);
  for (std::size_t j = 0; j < sources.size(); ++j)
    if (!sources[j].isSwitch()) gaps.push_back(static_cast<int>(j));
  return events::naturalHeldGaps(model.tree, model.tree.numbers, gaps);
}

constexpr int kKinds = static_cast<int>(ConstraintKind::PlaneGap) + 1;

// every model compiled with and without linear frames, and with its gaps held when it has any
struct Compiled {
  std::string name;
  std::shared_ptr<const ResolvedMechanism> resolved;
  NaturalModel model;
  bool linearFrames = false;
  std::vector<HeldGap> held;
};
std::vector<Compiled> compiledModels() {
  std::vector<Compiled> out;
  for (const auto& [name, mech] : models())
    for (bool linearFrames : {false, true}) {
      Diagnostics d;
      auto res = resolve(mech, d);
      if (!res) {
        ADD_FAILURE() << name << " does not resolve";
        continue;
      }
      auto r = std::make_shared<const ResolvedMechanism>(std::move(*res));
      out.push_back({name, r, compileNaturalModel(*r, {.linearFrames = linearFrames}), linearFrames, {}});
      const std::vector<HeldGap> held = everythingHeld(*r);
      if (!held.empty()) out.push_back({name + " (held)", r, compileNaturalModel(*r, {.linearFrames = linearFrames}, held), linearFrames, held});
    }
  return out;
}

TEST(Constraints, DerivativesMatchFiniteDifferences) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 1);
  int kinds[kKinds] = {};
  for (const auto& [name, res, m, linearFrames, held] : compiledModels()) {
    if (linearFrames) continue;
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
  for (int k = 0; k < kKinds; ++k) EXPECT_GT(kinds[k], 0) << "constraint kind " << k << " is not covered";
}

// The closed-form blocks and weighted Hessians (constraint_derivatives.cpp) against the jets they
// replace in the Newton matrices: Φ_q column by column, and Σ w_r Φ_r,qq along every column and
// every pair of columns (second-order jets: exact for these polynomials), on every model with and
// without linear frames (the frames' third vector, and the cross product d × d' without it).
TEST(Constraints, ClosedFormBlocksAndHessiansEqualTheJets) {
  std::mt19937 rng(11);
  std::normal_distribution<double> noise(0, 1);
  int kinds[kKinds] = {}, crossCombos = 0, movingAxes = 0;
  for (const auto& [name, res, m, linearFrames, held] : compiledModels()) {
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
  for (int k = 0; k < kKinds; ++k) EXPECT_GT(kinds[k], 0) << "constraint kind " << k << " is not covered";
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

// The model's constants computed again from the mechanism's numbers (natural_numbers.h): on
// doubles the compiled ones, and on dual numbers seeded with a body's point and position their
// derivatives — central differences of the constants of models compiled from the mechanism with
// that point or that body moved; the constraints' rows on those numbers the model's own.
TEST(Constraints, TheModelsNumbersAgainOnDualsAreTheCompiledOnesAndTheirDerivatives) {
  std::mt19937 rng(5);
  int checked = 0, spinFreeAxes = 0;
  for (const auto& [name, res, m, linearFrames, held] : compiledModels()) {
    if (m.nq == 0 || res->bodies.size() < 2) continue;
    const MechanismNumbers<double> plain = numbersOf(*res);
    const NaturalNumbers<double> again = naturalNumbersOn(m, plain);
    for (std::size_t k = 0; k < m.constraints.size(); ++k)
      for (int i = 0; i < 4; ++i)
        ASSERT_NEAR(again.constants[k][static_cast<std::size_t>(i)], m.constraints[k].c[i], 1e-12 * std::max(1.0, std::abs(m.constraints[k].c[i])))
            << name << " " << m.describeRow(m.constraints[k].row) << " constant " << i;
    for (std::size_t e = 0; e < m.entities.size(); ++e)
      ASSERT_LT((again.entity[e] - m.entities[e].value).norm(), 1e-12) << name << " entity " << m.entities[e].name;
    for (std::size_t b = 0; b < m.bodies.size(); ++b)
      for (std::size_t p = 0; p < m.bodies[b].pointCoefficients.size(); ++p)
        ASSERT_LT((again.pointCoefficients[b][p] - m.bodies[b].pointCoefficients[p]).norm(), 1e-10) << name << " body " << b << " point " << p;
    // seeded: lanes 0–2 a body's point, 3–5 the body's position (its points move with it)
    std::uniform_int_distribution<std::size_t> pick(1, res->bodies.size() - 1);
    std::size_t b = pick(rng);
    for (std::size_t k = 1; k < m.bodies.size(); ++k)
      if (m.bodies[k].spinFree) b = k;  // a rod's stored axis, whichever body the draw gave
    if (res->bodies[b].points.empty()) continue;
    const std::size_t p = res->bodies[b].points.size() - 1;
    MechanismNumbers<num::Dual8> seeded;
    {
      const auto cast = [](const Eigen::Vector3d& v) { return Eigen::Matrix<num::Dual8, 3, 1>(v.cast<num::Dual8>()); };
      seeded.gravity = cast(plain.gravity);
      for (const auto& body : plain.bodies) {
        MechanismNumbers<num::Dual8>::Body x;
        x.position = cast(body.position);
        x.rotation = body.rotation.cast<num::Dual8>();
        for (const auto& v : body.points) x.points.push_back(cast(v));
        for (const auto& v : body.vectors) x.vectors.push_back(cast(v));
        seeded.bodies.push_back(x);
      }
      for (const auto& c : plain.contacts) seeded.contacts.push_back({num::Dual8(c.radius), num::Dual8(c.restitution)});
      for (const auto& l : plain.limits) seeded.limits.push_back({num::Dual8(l.min), num::Dual8(l.max), num::Dual8(l.restitution)});
      for (int a = 0; a < 3; ++a) {
        seeded.bodies[b].points[p][a].g[a] = 1;
        seeded.bodies[b].position[a].g[3 + a] = 1;
      }
    }
    const NaturalNumbers<num::Dual8> dual = naturalNumbersOn(m, seeded);
    for (int lane = 0; lane < 6; ++lane) {
      const double h = 1e-6;
      auto moved = [&](double s) {
        ResolvedMechanism r = *res;
        if (lane < 3) r.bodies[b].points[p][lane] += s;
        else r.bodies[b].position[lane - 3] += s;
        return compileNaturalModel(r, {.linearFrames = linearFrames}, held);
      };
      const NaturalModel mp = moved(h), mm = moved(-h);
      ASSERT_EQ(mp.constraints.size(), m.constraints.size()) << name;
      for (std::size_t k = 0; k < m.constraints.size(); ++k)
        for (int i = 0; i < 4; ++i) {
          const double fd = (mp.constraints[k].c[i] - mm.constraints[k].c[i]) / (2 * h);
          ASSERT_NEAR(dual.constants[k][static_cast<std::size_t>(i)].g[lane], fd, 1e-6 * std::max(1.0, std::abs(fd)))
              << name << (linearFrames ? " (linear frames) " : " ") << m.describeRow(m.constraints[k].row) << " constant " << i << " lane " << lane;
        }
      if (m.bodies[b].spinFree) {
        for (int i = 0; i < 3; ++i) {
          const double fd = (mp.bodies[b].axis0[i] - mm.bodies[b].axis0[i]) / (2 * h);
          ASSERT_NEAR(dual.axis0[b][i].g[lane], fd, 1e-6 * std::max(1.0, std::abs(fd))) << name << " axis lane " << lane;
        }
        ++spinFreeAxes;
      }
      for (std::size_t pp = 0; pp < m.bodies[b].pointCoefficients.size(); ++pp)
        for (int i = 0; i < 3; ++i) {
          const double fd = (mp.bodies[b].pointCoefficients[pp][i] - mm.bodies[b].pointCoefficients[pp][i]) / (2 * h);
          ASSERT_NEAR(dual.pointCoefficients[b][pp][i].g[lane], fd, 1e-6 * std::max(1.0, std::abs(fd))) << name << " point " << pp << " lane " << lane;
        }
      ++checked;
    }
    // the rows on the numbers again: the model's own (values and a column)
    Eigen::VectorXd q = m.q0;
    for (int i = 0; i < m.nq; ++i) q[i] += 0.01 * std::sin(1.0 + i);
    Jet a[3];
    BasicJet<double> bj[3];
    for (const Constraint& c : m.constraints) {
      constraintJet(m, c, q, nullptr, c.columns.front(), 0.3, 1.0, a);
      constraintJetOn<double>(m, again, c, q, nullptr, c.columns.front(), 0.3, 1.0, bj);
      for (int r = 0; r < c.rows; ++r) {
        ASSERT_NEAR(bj[r].v, a[r].v, 1e-12) << name << " " << m.describeRow(c.row);
        ASSERT_NEAR(bj[r].d, a[r].d, 1e-12) << name << " " << m.describeRow(c.row);
        ASSERT_NEAR(bj[r].dd, a[r].dd, 1e-12) << name << " " << m.describeRow(c.row);
      }
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(spinFreeAxes, 0);  // a rod between ball joints' stored axis
}

}  // namespace
}  // namespace lw::kin
