// Matrix R on the differentiation scalars: on double it equals the fast pipeline; on dual numbers
// its derivatives along the state and the design parameters equal a complex step of the same
// function to round-off and central differences to their truncation error.
#include "dynamics/matrix_r_derivatives.h"

#include <gtest/gtest.h>

#include <complex>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

struct Case {
  Mechanism mechanism;
  ResolvedMechanism resolved;
  MatrixRModel model;
  std::unique_ptr<MatrixRData> data;
};

std::unique_ptr<Case> assembled(const Mechanism& m) {
  auto c = std::make_unique<Case>();
  c->mechanism = m;
  Diagnostics d;
  c->resolved = *resolve(m, d);
  c->model = compileMatrixR(c->resolved);
  c->data = std::make_unique<MatrixRData>(c->model);
  EXPECT_TRUE(initialState(c->model, *c->data).ok());
  return c;
}

// the tree's numbers on S with parameter k (all of them when k < 0 and S is dual: lane j = parameter j)
template <class S>
TreeNumbers<S> numbersWith(const Case& c, const std::vector<std::size_t>& seeded, const std::vector<S>& seeds) {
  const auto& table = *c.resolved.parameters;
  const auto values = table.valuesOn<S>(seeded, seeds);
  return treeNumbers<S>(c.model.tree, numbersOn<S>(c.mechanism, c.resolved, values));
}

// the tree's numbers on dual numbers with the first (up to) eight parameters seeded, lane k =
// parameter k; `count`: how many
TreeNumbers<num::Dual8> withFirstParameters(const Case& c, std::size_t& count) {
  count = std::min<std::size_t>(8, c.resolved.parameters->names().size());
  std::vector<std::size_t> seeded;
  std::vector<num::Dual8> seeds;
  for (std::size_t k = 0; k < count; ++k) {
    seeded.push_back(k);
    num::Dual8 s(c.resolved.parameters->values()[k]);
    s.g[k] = 1;
    seeds.push_back(s);
  }
  return numbersWith<num::Dual8>(c, seeded, seeds);
}

TEST(MatrixROn, OnDoubleItEqualsTheFastPipeline) {
  for (const char* name : {"five-bar", "four-bar", "ten-bar-chain", "spatial-four-bar-swing", "rssr", "slider-crank", "buggy"}) {
    SCOPED_TRACE(name);
    auto c = assembled(test::sampleMechanism(name));
    MatrixRData& d = *c->data;
    // a moving state: the start with made-up independent rates
    Eigen::VectorXd zi = d.zi, zid = d.zid;
    for (Eigen::Index k = 0; k < zid.size(); ++k) zid[k] += 0.3 + 0.1 * static_cast<double>(k);
    ASSERT_TRUE(evaluate(c->model, d, 0.1, zi, zid).ok());
    MatrixROn<double> out;
    ASSERT_TRUE(evaluateOn<double>(c->model, c->model.tree.numbers, d.dofs, 0.1, zi, zid, d.z, out).ok());
    const double scale = d.zidd.size() ? std::max(1.0, d.zidd.cwiseAbs().maxCoeff()) : 1.0;
    // the double pipeline's position problem stops at its tolerance: 1e-8 of the accelerations
    for (Eigen::Index k = 0; k < zi.size(); ++k) EXPECT_TRUE(test::near(out.zidd[k], d.zidd[k], 1e-8 * scale, 0)) << k;
    for (Eigen::Index k = 0; k < d.z.size(); ++k) {
      EXPECT_TRUE(test::near(out.z[k], d.z[k], 1e-11, 0));
      EXPECT_TRUE(test::near(out.zd[k], d.zd[k], 1e-9 * std::max(1.0, d.zd.cwiseAbs().maxCoeff()), 0));
      EXPECT_TRUE(test::near(out.zdd[k], d.zdd[k], 1e-9 * std::max(1.0, d.zdd.cwiseAbs().maxCoeff()), 0));
    }
  }
}

// z̈ⁱ's derivative along a state direction (δzⁱ, δżⁱ) and a parameter, by dual numbers (one lane),
// against a complex step and central differences of the double pipeline on S = double
// (`differences`: also against central differences; a rod between two ball joints spins
// passively with almost no inertia about its axis, and its accelerations curve too sharply for them)
void checkDirectionalDerivative(const char* name, int parameter, bool differences = true) {
  SCOPED_TRACE(name);
  auto c = assembled(test::sampleMechanism(name));
  MatrixRData& d = *c->data;
  const auto& table = *c->resolved.parameters;
  const Eigen::Index n = d.zi.size();
  Eigen::VectorXd zi = d.zi, zid = d.zid, dzi(n), dzid(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    zid[k] += 0.2 + 0.05 * static_cast<double>(k);
    dzi[k] = 0.3 - 0.07 * static_cast<double>(k);
    dzid[k] = -0.5 + 0.11 * static_cast<double>(k);
  }
  const double t = 0.05;
  std::vector<std::size_t> seeded;
  double p0 = 0;
  if (parameter >= 0) {
    seeded.push_back(static_cast<std::size_t>(parameter));
    p0 = table.values()[static_cast<std::size_t>(parameter)];
  }
  // dual: lane 0
  num::Dual8 ps(p0);
  ps.g[0] = 1;
  const auto pd = numbersWith<num::Dual8>(*c, seeded, parameter >= 0 ? std::vector<num::Dual8>{ps} : std::vector<num::Dual8>{});
  VectorOn<num::Dual8> xi(n), vi(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    xi[k] = zi[k];
    xi[k].g[0] = dzi[k];
    vi[k] = zid[k];
    vi[k].g[0] = dzid[k];
  }
  MatrixROn<num::Dual8> dual;
  ASSERT_TRUE(evaluateOn<num::Dual8>(c->model, pd, d.dofs, t, xi, vi, d.z, dual).ok());
  // complex step
  const double h = 1e-30;
  const auto pc = numbersWith<std::complex<double>>(*c, seeded, parameter >= 0 ? std::vector<std::complex<double>>{{p0, h}}
                                                                                 : std::vector<std::complex<double>>{});
  VectorOn<std::complex<double>> xc(n), vc(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    xc[k] = {zi[k], h * dzi[k]};
    vc[k] = {zid[k], h * dzid[k]};
  }
  MatrixROn<std::complex<double>> cs;
  ASSERT_TRUE(evaluateOn<std::complex<double>>(c->model, pc, d.dofs, t, xc, vc, d.z, cs).ok());
  // central differences on double
  const double e = 1e-6;
  auto at = [&](double s) {
    const double pv = p0 + s;
    const auto p = numbersWith<double>(*c, seeded, parameter >= 0 ? std::vector<double>{pv} : std::vector<double>{});
    MatrixROn<double> o;
    EXPECT_TRUE(evaluateOn<double>(c->model, p, d.dofs, t, Eigen::VectorXd(zi + s * dzi), Eigen::VectorXd(zid + s * dzid), d.z, o).ok());
    return o.zidd;
  };
  const Eigen::VectorXd fd = (at(e) - at(-e)) / (2 * e);
  double scale = 0;
  for (Eigen::Index k = 0; k < n; ++k) scale = std::max(scale, std::abs(cs.zidd[k].imag() / h));
  ASSERT_GT(scale, 0);
  for (Eigen::Index k = 0; k < n; ++k) {
    const double ad = dual.zidd[k].g[0], c2 = cs.zidd[k].imag() / h;
    EXPECT_TRUE(test::near(ad, c2, 1e-9 * scale, 0)) << "coordinate " << k;
    if (differences) {
      EXPECT_TRUE(test::near(ad, fd[k], 1e-5 * scale, 0)) << "coordinate " << k;
    }
    EXPECT_NEAR(dual.zidd[k].v, cs.zidd[k].real(), 1e-9 * std::max(1.0, std::abs(cs.zidd[k].real())));
  }
}

TEST(MatrixROn, DerivativesAlongTheStateMatchComplexStepAndDifferences) {
  for (const char* name : {"five-bar", "four-bar-free", "spatial-four-bar-swing", "grid-1x15"}) checkDirectionalDerivative(name, -1);
  checkDirectionalDerivative("rssr", -1, false);
}
TEST(MatrixROn, DerivativesAlongEachParameterOfTheFiveBarMatchComplexStepAndDifferences) {
  for (int k = 0; k < 5; ++k) checkDirectionalDerivative("five-bar", k);
}
TEST(MatrixROn, DerivativesAlongParametersOfTheTenBarChainAndBuggyMatchComplexStep) {
  for (int k : {0, 1, 10, 19}) checkDirectionalDerivative("ten-bar-chain", k);
  for (int k = 0; k < 5; ++k) checkDirectionalDerivative("buggy", k);
}

TEST(MatrixROn, TheInitialStateOnDoubleIsTheAssembledOne) {
  for (const char* name : {"five-bar", "four-bar", "ten-bar-chain", "spatial-four-bar-swing", "grid-1x15"}) {
    SCOPED_TRACE(name);
    auto c = assembled(test::sampleMechanism(name));
    VectorOn<double> zi, zid;
    ASSERT_TRUE(initialStateOn<double>(c->model, c->model.tree.numbers, c->data->dofs, c->data->z, zi, zid).ok());
    for (Eigen::Index k = 0; k < zi.size(); ++k) {
      EXPECT_NEAR(zi[k], c->data->zi[k], 1e-10);
      EXPECT_NEAR(zid[k], c->data->zid[k], 1e-9 * std::max(1.0, c->data->zid.cwiseAbs().maxCoeff()));
    }
  }
}

}  // namespace
}  // namespace lw::dyn

namespace lw::dyn {
namespace {

// A change of independent coordinates moves nothing physical: mapped through the dependent state
// (what a sensitivity does at a switch), the same dependent positions, velocities and
// accelerations follow from the new coordinates, derivatives with respect to the parameters
// included. The five-bar's file chooses point 2's x and y; the tree's own coordinates are the other
// choice.
TEST(MatrixROn, AChangeOfIndependentCoordinatesCarriesTheSensitivitiesExactly) {
  auto c = assembled(test::sampleMechanism("five-bar"));
  MatrixRData& d = *c->data;
  const std::vector<Dof> pointDofs = d.dofs;
  ASSERT_EQ(pointDofs.front().kind, Dof::Kind::PointComponent);
  const_cast<MatrixRModel&>(c->model).userDofs = false;  // let the QR choose tree coordinates
  ASSERT_TRUE(chooseDofs(c->model, d).ok());
  const std::vector<Dof> treeDofs = d.dofs;
  ASSERT_EQ(treeDofs.front().kind, Dof::Kind::Coordinate);
  // every parameter seeded, one per lane, and a moving state
  const auto& table = *c->resolved.parameters;
  std::vector<std::size_t> seeded;
  std::vector<num::Dual8> seeds;
  for (std::size_t k = 0; k < table.names().size(); ++k) {
    seeded.push_back(k);
    num::Dual8 s(table.values()[k]);
    s.g[k] = 1;
    seeds.push_back(s);
  }
  const auto p = numbersWith<num::Dual8>(*c, seeded, seeds);
  VectorOn<num::Dual8> zi, zid;
  ASSERT_TRUE(initialStateOn<num::Dual8>(c->model, p, pointDofs, d.z, zi, zid).ok());
  zid[0] = zid[0] + 0.4;
  zid[1] = zid[1] - 0.3;
  MatrixROn<num::Dual8> before;
  ASSERT_TRUE(evaluateOn<num::Dual8>(c->model, p, pointDofs, 0.0, zi, zid, d.z, before).ok());
  VectorOn<num::Dual8> xi, vi, ai;
  independentOn<num::Dual8>(c->model, p, treeDofs, before.z, before.zd, &before.zdd, xi, vi, &ai);
  MatrixROn<num::Dual8> after;
  ASSERT_TRUE(evaluateOn<num::Dual8>(c->model, p, treeDofs, 0.0, xi, vi, d.z, after).ok());
  int moved = 0;
  for (Eigen::Index i = 0; i < before.z.size(); ++i)
    for (int k = 0; k < static_cast<int>(seeded.size()); ++k) {
      EXPECT_NEAR(after.z[i].g[k], before.z[i].g[k], 1e-10) << i << " " << k;
      EXPECT_NEAR(after.zd[i].g[k], before.zd[i].g[k], 1e-9) << i << " " << k;
      EXPECT_NEAR(after.zdd[i].g[k], before.zdd[i].g[k], 1e-7 * std::max(1.0, std::abs(before.zdd[i].g[k]))) << i << " " << k;
      if (std::abs(before.zdd[i].g[k]) > 1e-3) ++moved;
    }
  EXPECT_GT(moved, 0);
  // and the new coordinates' accelerations are those the mapping gave
  for (Eigen::Index i = 0; i < ai.size(); ++i)
    for (int k = 0; k < static_cast<int>(seeded.size()); ++k)
      EXPECT_NEAR(after.zidd[i].g[k], ai[i].g[k], 1e-7 * std::max(1.0, std::abs(ai[i].g[k])));
}

}  // namespace
}  // namespace lw::dyn

namespace lw::dyn {
namespace {

// A sample assembled and set moving (its independent rates raised), evaluated at t = 0.15, and
// the tangent set there: what the tangent's tests compare at
struct Moving {
  std::unique_ptr<Case> c;
  Eigen::VectorXd zi, zid;
  double t = 0.15;
  MatrixROn<double> e;
  MatrixRTangent tangent;
};
std::unique_ptr<Moving> moving(const Mechanism& mech) {
  auto s = std::make_unique<Moving>();
  s->c = assembled(mech);
  const MatrixRData& data = *s->c->data;
  const MatrixRModel& m = s->c->model;
  s->zi = data.zi;
  s->zid = data.zid;
  for (Eigen::Index k = 0; k < s->zid.size(); ++k) s->zid[k] += 0.3 + 0.1 * static_cast<double>(k);
  if (!evaluateOn<double>(m, m.tree.numbers, data.dofs, s->t, s->zi, s->zid, data.z, s->e).ok()) return nullptr;
  if (!s->tangent.at(m, m.tree.numbers, data.dofs, s->t, s->e).ok()) return nullptr;
  return s;
}

// The tangent by jet-free passes (MatrixRTangent) against the whole pipeline on dual numbers
// (evaluateOn<Dual8>, the reference): the lanes of z̈ⁱ and of the dependent z, ż, z̈ along the
// independent positions and rates and along the design parameters, to 1e-10 relative, on loops
// with drivers, sliders, spatial revolutes, ball joints and a free body (quaternions), every force
// element, tyres, and point coordinates as the independent coordinates.
TEST(MatrixRTangent, EqualsThePipelineOnDualNumbers) {
  using D = num::Dual8;
  const std::pair<std::string, Mechanism> models[] = {{"five-bar", test::withEveryForce(test::sampleMechanism("five-bar"))},
                                                      {"four-bar-free", test::withEveryForce(test::sampleMechanism("four-bar-free"))},
                                                      {"spatial-four-bar-swing", test::withEveryForce(test::sampleMechanism("spatial-four-bar-swing"))},
                                                      {"slider-crank", test::sampleMechanism("slider-crank")},
                                                      {"stephenson-six-bar", test::sampleMechanism("stephenson-six-bar")},
                                                      {"grid-1x15-parameters", test::sampleMechanism("grid-1x15-parameters")},
                                                      {"ten-bar-chain", test::sampleMechanism("ten-bar-chain")},
                                                      {"rssr", test::withEveryForce(test::sampleMechanism("rssr"))},
                                                      {"buggy", test::sampleMechanism("buggy")}};
  for (const auto& [name, mech] : models) {
    SCOPED_TRACE(name);
    const auto point = moving(mech);
    ASSERT_TRUE(point);
    const Case* c = point->c.get();
    const MatrixRData& data = *c->data;
    const MatrixRModel& m = c->model;
    const int d = static_cast<int>(data.dofs.size()), nz = m.tree.nz;
    const Eigen::VectorXd &zi = point->zi, &zid = point->zid;
    const double t = point->t;
    const MatrixRTangent& tangent = point->tangent;
    // the rssr's rod spins freely about its own axis (a nearly massless freedom: M̄'s condition
    // near 1e7), which both routes' rounding shows in its dependent accelerations
    const double tolerance = name == "rssr" ? 1e-8 : 1e-10;
    auto compare = [&](const VectorOn<D>& mine, const VectorOn<D>& ref, const char* what) {
      ASSERT_EQ(mine.size(), ref.size());
      double scale = 1;
      for (Eigen::Index i = 0; i < ref.size(); ++i)
        for (int l = 0; l < 8; ++l) scale = std::max(scale, std::abs(ref[i].g[l]));
      for (Eigen::Index i = 0; i < ref.size(); ++i)
        for (int l = 0; l < 8; ++l) EXPECT_NEAR(mine[i].g[l], ref[i].g[l], tolerance * scale) << what << " " << i << " lane " << l;
    };
    // the state: lanes along zⁱ_k and żⁱ_k (the first four of each)
    VectorOn<D> dx = VectorOn<D>::Zero(d), dv = VectorOn<D>::Zero(d), x(d), v(d);
    for (int k = 0; k < d; ++k) {
      x[k] = D(zi[k]);
      v[k] = D(zid[k]);
      if (k < 4) {
        dx[k].g[k] = 1;
        x[k].g[k] = 1;
        dv[k].g[4 + k] = 1;
        v[k].g[4 + k] = 1;
      }
    }
    const TreeNumbers<D> plain = numbersWith<D>(*c, {}, {});
    VectorOn<D> zidd, z, zd, zdd;
    tangent.along(plain, false, dx, dv, zidd, z, zd, zdd);
    MatrixROn<D> ref;
    ASSERT_TRUE(evaluateOn<D>(m, plain, data.dofs, t, x, v, data.z, ref, &m.tree.numbers).ok());
    compare(zidd, ref.zidd, "z̈ⁱ along the state");
    compare(z, ref.z, "z along the state");
    compare(zd, ref.zd, "ż along the state");
    compare(zdd, ref.zdd, "z̈ along the state");
    // what an impact's jump reads (velocitiesAlong): z, ż, R^Φ and M̄ = R^Φᵀ M^d R^Φ
    using MatrixD = Eigen::Matrix<D, Eigen::Dynamic, Eigen::Dynamic>;
    auto compareMatrix = [&](const MatrixD& mine, const MatrixD& reference, const char* what) {
      ASSERT_EQ(mine.rows(), reference.rows());
      ASSERT_EQ(mine.cols(), reference.cols());
      for (Eigen::Index k = 0; k < reference.cols(); ++k) compare(mine.col(k), reference.col(k), what);
    };
    MatrixD R, Md;
    auto velocities = [&](const TreeNumbers<D>& numbers, bool seeded, const VectorOn<D>& ddx, const VectorOn<D>& ddv, const MatrixROn<D>& reference,
                          const char* along) {
      SCOPED_TRACE(along);
      tangent.velocitiesAlong(numbers, seeded, ddx, ddv, z, zd, R, Md);
      compare(z, reference.z, "z (velocitiesAlong)");
      compare(zd, reference.zd, "ż (velocitiesAlong)");
      compareMatrix(R, reference.R, "R^Φ (velocitiesAlong)");
      compareMatrix(MatrixD(R.transpose() * (Md * R)), reference.Mbar, "M̄ (velocitiesAlong)");
    };
    velocities(plain, false, dx, dv, ref, "the state");
    // the parameters: lanes from the numbers alone
    std::size_t np = 0;
    const TreeNumbers<D> withParameters = withFirstParameters(*c, np);
    if (np == 0) continue;
    const VectorOn<D> none = VectorOn<D>::Zero(d);
    tangent.along(withParameters, true, none, none, zidd, z, zd, zdd);
    ASSERT_TRUE(evaluateOn<D>(m, withParameters, data.dofs, t, zi.cast<D>(), zid.cast<D>(), data.z, ref, &m.tree.numbers).ok());
    compare(zidd, ref.zidd, "z̈ⁱ along the parameters");
    compare(zdd, ref.zdd, "z̈ along the parameters");
    velocities(withParameters, true, none, none, ref, "the parameters");
    (void)nz;
  }
}

// The state Jacobians by products (MatrixRTangent::stateJacobians: the loops' Θ̇, Θ̈ and the
// multipliers' turn in closed form, τ's derivatives) against the tangent's lanes along every
// direction of the state, to 1e-10 relative: pins, planar revolutes, every force element, points'
// components (the five-bar's) and coordinates as independent coordinates, an open chain; the
// spatial four-bar (its ball joint cut); the buggy's free chassis (a quaternion and its unit row),
// the RSSR without its motor and with a ball at D (ball joints in the tree, a ball joint cut: the
// rows' rates through quaternion columns); drivers of a tree joint and of a point's component
// (the RSSR's motor, a five-bar's crank or point), refused: a distance driver's row. And
// the parameters' lanes on doubles from them (alongNumbers) against the dual-number lanes.
TEST(MatrixRTangent, StateJacobiansByProductsEqualTheLanes) {
  using D = num::Dual8;
  struct Model {
    std::string name;
    Mechanism mechanism;
    bool covered;
  };
  const Model models[] = {{"five-bar", test::withEveryForce(test::sampleMechanism("five-bar")), true},
                          {"four-bar-free", test::withEveryForce(test::sampleMechanism("four-bar-free")), true},
                          {"grid-1x15-parameters", test::sampleMechanism("grid-1x15-parameters"), true},
                          {"ten-bar-chain", test::withEveryForce(test::sampleMechanism("ten-bar-chain")), true},
                          {"double-pendulum-wall", test::sampleMechanism("double-pendulum-wall"), true},
                          {"rssr", test::withEveryForce(test::rssrEvenInertias()), true},  // its motor: a tree joint's driver
                          {"five-bar, its crank driven", test::withEveryForce(test::fiveBarDriven("joint")), true},
                          {"five-bar, a point's height driven", test::withEveryForce(test::fiveBarDriven("coordinate")), true},
                          {"five-bar, a distance driven", test::fiveBarDriven("distance"), false},  // refused: the rates of a distance
                          {"rssr without its motor", test::withEveryForce(test::rssrWithoutMotor()), true},
                          {"spatial-four-bar-swing", test::withEveryForce(test::sampleMechanism("spatial-four-bar-swing")), true},
                          {"buggy", test::sampleMechanism("buggy"), true},  // its free chassis' quaternion
                          {"rssr, its last joint a ball", test::withEveryForce(test::rssrBallAtD()), true},
                          {"five-bar springs", test::sampleMechanism("five-bar"), true}};
  int parametersCovered = 0;  // models whose parameters the lanes kernel takes
  for (const auto& [name, mech, covered] : models) {
    SCOPED_TRACE(name);
    const auto point = moving(mech);
    ASSERT_TRUE(point);
    const Case* c = point->c.get();
    const MatrixRModel& m = c->model;
    const int d = static_cast<int>(c->data->dofs.size());
    const double t = point->t;
    const MatrixROn<double>& e = point->e;
    const MatrixRTangent& tangent = point->tangent;
    MotionAtState state;
    state.compute(m.tree, m.tree.numbers, e.z.data(), e.zd.data(), e.zdd.data(), t);
    MatrixRTangent::StateJacobians J;
    ASSERT_EQ(tangent.stateJacobians(m.tree.numbers, state, J), covered);
    if (!covered) continue;
    const double tolerance = 1e-10;
    const TreeNumbers<D> plain = numbersWith<D>(*c, {}, {});
    // the lanes along the 2d directions of (zⁱ, żⁱ), eight a pass
    for (int first = 0; first < 2 * d; first += 8) {
      VectorOn<D> dx = VectorOn<D>::Zero(d), dv = VectorOn<D>::Zero(d), zidd, z, zd, zdd;
      for (int l = 0; l < 8 && first + l < 2 * d; ++l) {
        const int k = first + l;
        (k < d ? dx[k] : dv[k - d]).g[l] = 1;
      }
      tangent.along(plain, false, dx, dv, zidd, z, zd, zdd);
      auto compare = [&](const VectorOn<D>& lanes, const Eigen::MatrixXd& byX, const Eigen::MatrixXd* byV, const char* what) {
        double scale = 1;
        for (Eigen::Index i = 0; i < lanes.size(); ++i)
          for (int l = 0; l < 8; ++l) scale = std::max(scale, std::abs(lanes[i].g[l]));
        for (int l = 0; l < 8 && first + l < 2 * d; ++l) {
          const int k = first + l;
          for (Eigen::Index i = 0; i < lanes.size(); ++i) {
            const double mine = k < d ? byX(i, k) : byV ? (*byV)(i, k - d) : 0.0;
            EXPECT_NEAR(mine, lanes[i].g[l], tolerance * scale) << what << " " << i << " along " << (k < d ? "x" : "v") << k % d;
          }
        }
      };
      compare(zidd, J.fx, &J.fv, "z̈ⁱ");
      compare(z, J.zx, nullptr, "z");
      compare(zd, J.zdx, &J.zdv, "ż");
      compare(zdd, J.zddx, &J.zddv, "z̈");
    }
    // the parameters' lanes on doubles (alongNumbers: the lanes kernel chained through the state
    // Jacobians' parts) against the tangent's dual-number lanes, where the lanes kernel takes them
    std::size_t np = 0;
    const TreeNumbers<D> withParameters = withFirstParameters(*c, np);
    if (np == 0) continue;
    const NumbersLanes lanes = numbersLanes(m.tree, withParameters);
    MatrixRTangent::NumbersAlong along;
    const bool numbersCovered = numbersLanesCovered(m.tree, lanes, withParameters);
    ASSERT_EQ(tangent.alongNumbers(m.tree.numbers, state, J, lanes, withParameters, {}, along), numbersCovered);
    if (!numbersCovered) continue;
    ++parametersCovered;
    const VectorOn<D> none = VectorOn<D>::Zero(d);
    VectorOn<D> zidd, z, zd, zdd;
    tangent.along(withParameters, true, none, none, zidd, z, zd, zdd);
    auto compareLanes = [&](const VectorOn<D>& lanes, const Eigen::MatrixXd& mine, const char* what) {
      double scale = 1;
      for (Eigen::Index i = 0; i < lanes.size(); ++i)
        for (std::size_t l = 0; l < np; ++l) scale = std::max(scale, std::abs(lanes[i].g[l]));
      ASSERT_EQ(mine.rows(), lanes.size());
      for (Eigen::Index i = 0; i < lanes.size(); ++i)
        for (std::size_t l = 0; l < np; ++l)
          EXPECT_NEAR(mine(i, static_cast<Eigen::Index>(l)), lanes[i].g[l], 1e-10 * scale)
              << what << " " << i << " along " << c->resolved.parameters->names()[l];
    };
    compareLanes(zidd, along.zidd, "z̈ⁱ (alongNumbers)");
    compareLanes(z, along.z, "z (alongNumbers)");
    compareLanes(zd, along.zd, "ż (alongNumbers)");
    compareLanes(zdd, along.zdd, "z̈ (alongNumbers)");
  }
  EXPECT_GE(parametersCovered, 3);
}

}  // namespace
}  // namespace lw::dyn
