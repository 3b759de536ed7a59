// Sensitivities through resting contacts (issue 37 item 1): a contact that comes to rest closes by
// an impact with e = 0 (seed 001 Theorems 1–3 with the plastic law) and is then held by its force;
// one that opens lets go where that force falls through zero, a switching surface across which the
// state and its accelerations are continuous (Theorem 4 with a zero jump). Checked against closed
// forms (the Zeno point of a bouncing ball, the integral of its height, the rise of a ball lifted
// off its floor) and against the complex step and the adjoint on the five-bar's rests; Matrix R
// with both integrators, the penalty formulation and the three global formulations.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "sensitivity/sensitivity.h"
#include "support/gradients.h"
#include "support/samples.h"

namespace lw {
namespace {

using sens::Method;

// a formulation and integrator
struct Route {
  const char* name;
  analysis::Formulation formulation;
  analysis::Integrator integrator;
};
const Route kMatrixR{"matrix-r trapezoidal", analysis::Formulation::MatrixR, analysis::Integrator::Trapezoidal};
const Route kMatrixRRk45{"matrix-r rk45", analysis::Formulation::MatrixR, analysis::Integrator::RK45};
const Route kPenalty{"penalty", analysis::Formulation::Penalty, analysis::Integrator::Trapezoidal};
// the global formulations: a rest is a row of the natural model (kin::HeldGap), the closing an
// impact into the model with it, the opening a change to the model without it
const Route kIndex3{"index-3", analysis::Formulation::Index3, analysis::Integrator::Trapezoidal};
const Route kIndex1{"index-1", analysis::Formulation::Index1, analysis::Integrator::Trapezoidal};
const Route kPenaltyGlobal{"global penalty", analysis::Formulation::PenaltyGlobal, analysis::Integrator::Trapezoidal};

sens::SensitivitySpec study(Method method, const Route& route, double tEnd) {
  sens::SensitivitySpec s;
  s.method = method;
  s.run.formulation = route.formulation;
  s.run.integrator = route.integrator;
  s.run.tEnd = tEnd;
  s.run.dt = 1e-3;
  s.run.tol = 1e-10;
  return s;
}

std::size_t indexOf(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return k;
  throw std::runtime_error("no " + name);
}

// the seed 001 T1 ball (y0 = 1 m, v0 = 0, e = 0.8, g = 9.81) with restitution e
Mechanism t1Ball(double e) {
  Mechanism m = test::sampleMechanism("bouncing-ball-t1");
  for (auto& p : m.parameters)
    if (p.name == "e") p.value = Number(e);
  return m;
}

// The Zeno point t∞ = t₁ + (2eV/g)/(1 − e), t₁ = (v₀ + V)/g, V = √(v₀² + 2gy₀), and the integral
// of the height: the first fall's ∫(y₀ + v₀t − gt²/2) dt, then each flight's (2/3)V_k³/g² with
// V_k = eᵏV
struct Zeno {
  double y0, v0, e, g;
  double V() const { return std::sqrt(v0 * v0 + 2 * g * y0); }
  double t1() const { return (v0 + V()) / g; }
  double tInf() const { return t1() + 2 * e * V() / (g * (1 - e)); }
  double intY() const {
    const double t = t1();
    const double e3 = e * e * e;
    return y0 * t + v0 * t * t / 2 - g * t * t * t / 6 + (2.0 / 3.0) * std::pow(V(), 3) / (g * g) * e3 / (1 - e3);
  }
};
// d(f)/d(parameter k of y0, v0, e, g) of a closed form, by central differences of it
double closedFormDerivative(const Zeno& z, int k, const std::function<double(const Zeno&)>& f) {
  const double h = 1e-6;
  Zeno a = z, b = z;
  double* pa[] = {&a.y0, &a.v0, &a.e, &a.g};
  double* pb[] = {&b.y0, &b.v0, &b.e, &b.g};
  *pa[k] += h;
  *pb[k] -= h;
  return (f(a) - f(b)) / (2 * h);
}

TEST(RestingSensitivity, TheZenoPointsSensitivitiesAreItsClosedFormsAndTheComplexSteps) {
  // the ball bounces ~60 times and rests from t∞ ≈ 4.06 s (e = 0.8): the contact's closing time
  // and the costs' gradients through every bounce, the closing and the rest after it
  const char* names[] = {"y0", "v0", "e", "g"};
  for (double e : {0.8, 0.5}) {
    const Mechanism m = t1Ball(e);
    const Zeno z{1.0, 0.0, e, 9.81};
    for (const Route& route : {kMatrixR, kMatrixRRk45, kPenalty, kIndex3, kIndex1, kPenaltyGlobal}) {
      if (std::string(route.name) != kMatrixR.name && e != 0.8) continue;  // (the suite's time)
      SCOPED_TRACE(std::string(route.name) + " " + std::to_string(e));
      std::vector<std::vector<double>> eventTimes;  // the closing's dt/dρ by ddm, cs
      std::vector<sens::Gradient> gradients;
      sens::SensitivityResult r;
      for (Method method : {Method::Direct, Method::ComplexStep, Method::Adjoint}) {
        r = sens::runSensitivity(m, study(method, route, 5.0));
        ASSERT_TRUE(r.status.ok()) << r.status.message;  // refused: "the sensitivities through a resting contact are not computed"
        ASSERT_FALSE(r.impacts.empty());
        const auto& closing = r.impacts.back();
        EXPECT_EQ(closing.record.kind, "closes");
        for (std::size_t k = 0; k + 1 < r.impacts.size(); ++k) EXPECT_EQ(r.impacts[k].record.kind, "impact");
        // it rests once its bounces would be below 1e-10 m: within 1e-4 s of the Zeno point
        EXPECT_NEAR(closing.record.t, z.tInf(), 1e-4);
        EXPECT_LT(closing.record.t, z.tInf());
        if (method != Method::Adjoint) eventTimes.push_back(closing.eventTime);
        gradients.push_back(r.methods.front());
      }
      // ∂t∞/∂(y0, v0, e, g): the run's own closing time against the closed form (the rest begins
      // at most 3e-5 s before t∞, its derivative as close) and against the complex step
      for (int k = 0; k < 4; ++k) {
        const std::size_t col = indexOf(r.parameters, names[k]);
        const double exact = closedFormDerivative(z, k, [](const Zeno& q) { return q.tInf(); });
        ASSERT_EQ(eventTimes[0].size(), r.parameters.size());
        EXPECT_NEAR(eventTimes[0][col], exact, 1e-3 * std::abs(exact)) << names[k];
        // (the late bounces' ṙ⁻ ~ 1e-5 m/s divides the round-off of ~60 jumps: 1e-7 here)
        EXPECT_NEAR(eventTimes[1][col], eventTimes[0][col], 1e-6 * std::abs(exact)) << names[k];
      }
      // the costs: direct = complex step = adjoint, and ∫y dt its closed form
      const sens::Gradient &ddm = gradients[0], &cs = gradients[1], &avm = gradients[2];
      for (Eigen::Index c = 0; c < ddm.gradient.rows(); ++c)
        for (Eigen::Index k = 0; k < ddm.gradient.cols(); ++k) {
          const double scale = 1e-7 * std::max(1.0, std::abs(cs.gradient(c, k)));
          EXPECT_NEAR(ddm.gradient(c, k), cs.gradient(c, k), scale) << r.costs[static_cast<std::size_t>(c)] << " " << r.parameters[static_cast<std::size_t>(k)];
          EXPECT_NEAR(avm.gradient(c, k), cs.gradient(c, k), scale) << r.costs[static_cast<std::size_t>(c)] << " " << r.parameters[static_cast<std::size_t>(k)];
        }
      const auto intY = static_cast<Eigen::Index>(indexOf(r.costs, "int_y"));
      EXPECT_NEAR(ddm.values[static_cast<std::size_t>(intY)], z.intY(), 1e-5 * z.intY());
      for (int k = 0; k < 4; ++k) {
        const double exact = closedFormDerivative(z, k, [](const Zeno& q) { return q.intY(); });
        EXPECT_NEAR(ddm.gradient(intY, static_cast<Eigen::Index>(indexOf(r.parameters, names[k]))), exact, 2e-4 * std::max(0.1, std::abs(exact)))
            << names[k];
      }
      // at rest on the floor at the end: its height and velocity depend on nothing (but the
      // global penalty's floor, which yields by the weight over its penalty: dy/dg ≈ 1e-9 s²)
      const double still = route.formulation == analysis::Formulation::PenaltyGlobal ? 1e-7 : 1e-8;
      for (const char* cost : {"y_T", "v_T"})
        for (Eigen::Index k = 0; k < ddm.gradient.cols(); ++k)
          EXPECT_NEAR(ddm.gradient(static_cast<Eigen::Index>(indexOf(r.costs, cost)), k), 0.0, still) << cost;
    }
  }
}

// a 1 kg ball resting on the line y = 0 from the start, lifted by a world force k·t (k = 9.81 N/s):
// the floor's force m g − k t falls through zero at t_o = m g/k, then ÿ = (k/m)(t − t_o) and
// y(T) = k (T − t_o)³/6, so dy_T/dk = (T − t_o)³/6 + (T − t_o)² t_o/2 and dy_T/dg = −(T − t_o)²/2
std::string liftedBall() {
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "lifted ball", "dimension": 2, "gravity": [0, "-g"],
    "parameters": [{"name": "k", "value": 9.81}, {"name": "g", "value": 9.81}],
    "ground": {"points": {"O": [0, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "ball", "position": [0, 0], "mass": 1, "com": [0, 0], "inertia": 0.004, "points": {"C": [0, 0]}}],
    "contacts": [{"name": "floor", "type": "point_plane", "point": "ball.C", "plane_point": "ground.O", "plane_normal": "ground.up", "restitution": 0.5}],
    "forces": [{"name": "lift", "type": "force", "point": "ball.C", "value": [0, "k*t"], "frame": "world"}],
    "outputs": [{"name": "c", "type": "point_position", "point": "ball.C"}],
    "costs": [{"name": "y_T", "type": "terminal", "expression": "c.y"}, {"name": "int_y", "type": "integral", "expression": "c.y"}]})";
}

TEST(RestingSensitivity, AContactThatOpensHasTheSensitivitiesOfItsClosedForm) {
  const auto l = test::loadedFromText(liftedBall());
  const double T = 2, k = 9.81, g = 9.81, to = g / k;
  const double dYdk = std::pow(T - to, 3) / 6 + std::pow(T - to, 2) * to / 2, dYdg = -std::pow(T - to, 2) / 2;
  // ∫y dt = k (T − t_o)⁴/24: d/dk = (T − t_o)⁴/24 + (T − t_o)³ t_o/6, d/dg = −(T − t_o)³/6
  const double dIdk = std::pow(T - to, 4) / 24 + std::pow(T - to, 3) * to / 6, dIdg = -std::pow(T - to, 3) / 6;
  for (const Route& route : {kMatrixR, kMatrixRRk45, kPenalty, kIndex3, kIndex1, kPenaltyGlobal}) {
    const bool rk = route.integrator == analysis::Integrator::RK45;
    std::vector<sens::Gradient> gradients;
    for (Method method : {Method::Direct, Method::Adjoint, Method::ComplexStep}) {
      SCOPED_TRACE(std::string(route.name) + " " + sens::toString(method));
      const auto r = sens::runSensitivity(l->mechanism, study(method, route, T));
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      ASSERT_EQ(r.impacts.size(), 2u);
      EXPECT_EQ(r.impacts[0].record.kind, "closes");
      EXPECT_EQ(r.impacts[1].record.kind, "opens");
      EXPECT_NEAR(r.impacts[1].record.t, to, 1e-8);
      const sens::Gradient& gr = r.methods.front();
      const auto y = static_cast<Eigen::Index>(indexOf(r.costs, "y_T")), in = static_cast<Eigen::Index>(indexOf(r.costs, "int_y"));
      const auto pk = static_cast<Eigen::Index>(indexOf(r.parameters, "k")), pg = static_cast<Eigen::Index>(indexOf(r.parameters, "g"));
      // the run's own error: 1e-7 (RK45), O(h²) for the trapezoidal rule
      const double tol = rk ? 1e-6 : 1e-4;
      EXPECT_NEAR(gr.gradient(y, pk), dYdk, tol);
      EXPECT_NEAR(gr.gradient(y, pg), dYdg, tol);
      EXPECT_NEAR(gr.gradient(in, pk), dIdk, tol);
      EXPECT_NEAR(gr.gradient(in, pg), dIdg, tol);
      gradients.push_back(gr);
    }
    for (std::size_t m = 1; m < gradients.size(); ++m) EXPECT_LT((gradients[m].gradient - gradients[0].gradient).cwiseAbs().maxCoeff(), 1e-8) << m;
  }
}

TEST(RestingSensitivity, AtRestOnAStopTheCoordinateFollowsTheStopAlone) {
  // a block dropped onto its guide's stop s and a pendulum stored turned a₀ swung onto its pin stop
  // lo, both with e = 0: at rest, the coordinate is the stop's value whatever the start, so
  // d/d(stop) = 1 and d/d(start) = 0 (a held stop's row follows both: its value, less the joint's
  // stored coordinate)
  const auto l = test::loadedFromText(R"({"format": "linkwright-mechanism", "version": 1, "name": "stops", "dimension": 2,
    "gravity": [0, -9.81], "parameters": [{"name": "s", "value": 0.05}, {"name": "y0", "value": 0.2}, {"name": "lo", "value": -0.5},
                                          {"name": "a0", "value": 0.3}],
    "ground": {"points": {"O": [0, 0], "Q": [2, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "block", "position": [0, "y0"], "mass": 1, "com": [0, 0], "inertia": 0.01, "points": {"P": [0, 0]}, "vectors": {"up": [0, 1]}},
               {"name": "bar", "position": [2, 0], "angle": "a0", "mass": 1, "com": [0.5, 0], "inertia": 0.0833, "points": {"O": [0, 0]}}],
    "joints": [{"name": "guide", "type": "slider", "points": ["ground.O", "block.P"], "axes": ["ground.up", "block.up"]},
               {"name": "pin", "type": "pin", "points": ["ground.Q", "bar.O"]}],
    "limits": [{"name": "stop", "joint": "guide", "min": "s", "restitution": 0}, {"name": "rest", "joint": "pin", "min": "lo", "restitution": 0}],
    "outputs": [{"name": "y", "type": "joint_coordinate", "joint": "guide"}, {"name": "theta", "type": "joint_coordinate", "joint": "pin"}],
    "costs": [{"name": "y_T", "type": "terminal", "expression": "y"}, {"name": "theta_T", "type": "terminal", "expression": "theta"}]})");
  for (const Route& route : {kMatrixR, kPenalty, kIndex3, kIndex1, kPenaltyGlobal})
    for (Method method : {Method::Direct, Method::ComplexStep}) {
      SCOPED_TRACE(std::string(route.name) + " " + sens::toString(method));
      const auto r = sens::runSensitivity(l->mechanism, study(method, route, 0.6));
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      int rests = 0;
      for (const auto& i : r.impacts) rests += i.record.kind == "closes";
      EXPECT_EQ(rests, 2);
      const sens::Gradient& g = r.methods.front();
      auto d = [&](const char* cost, const char* parameter) {
        return g.gradient(static_cast<Eigen::Index>(indexOf(r.costs, cost)), static_cast<Eigen::Index>(indexOf(r.parameters, parameter)));
      };
      // (the global penalty's held row yields by the weight over its penalty)
      const double tol = route.formulation == analysis::Formulation::PenaltyGlobal || route.formulation == analysis::Formulation::Penalty ? 1e-6 : 1e-9;
      EXPECT_NEAR(d("y_T", "s"), 1.0, tol);
      EXPECT_NEAR(d("y_T", "y0"), 0.0, tol);
      EXPECT_NEAR(d("theta_T", "lo"), 1.0, tol);
      EXPECT_NEAR(d("theta_T", "a0"), 0.0, tol);
    }
}

TEST(RestingSensitivity, TheFiveBarsRestsAndOpeningsDifferentiateAlike) {
  // the five-bar on a raised floor (Newton's law, e = 0.5) with damped springs: bursts of bounces
  // that end at rest, openings when the springs lift the point off; its five parameters through
  // them: the direct method, the adjoint and the complex step agree
  Mechanism m = test::sampleMechanism("five-bar");
  m.contacts[0].law = Contact::Law::Newton;
  m.contacts[0].restitution = 0.5;
  for (auto& f : m.forces) f.damping = 5;
  for (auto& p : m.ground.points)
    if (p.name == "F") p.value[1] = -2.3;
  for (const Route& route : {kMatrixR, kMatrixRRk45, kPenalty, kIndex3, kIndex1, kPenaltyGlobal}) {
    SCOPED_TRACE(route.name);
    std::vector<sens::Gradient> gradients;
    int rests = 0, openings = 0;
    for (Method method : {Method::Direct, Method::Adjoint, Method::ComplexStep}) {
      sens::SensitivitySpec s = study(method, route, 2.0);  // a rest from 1.41 s, an opening at 1.92 s
      s.parameters = {"L_A1", "m_A1"};                           // a length that moves the assembly, a mass
      const auto r = sens::runSensitivity(m, s);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      rests = openings = 0;
      for (const auto& i : r.impacts) {
        rests += i.record.kind == "closes";
        openings += i.record.kind == "opens";
      }
      gradients.push_back(r.methods.front());
    }
    EXPECT_GE(rests, 1);
    EXPECT_GE(openings, 1);
    // (the penalty's held row, stiff by α, amplifies round-off in the accelerations' integral z2:
    // the three agree to 2e-6 there, 1e-7 elsewhere)
    const double tol = route.formulation == analysis::Formulation::Penalty ? 1e-5 : 1e-6;
    const Eigen::MatrixXd& cs = gradients[2].gradient;
    for (std::size_t k = 0; k < 2; ++k)
      for (Eigen::Index c = 0; c < cs.rows(); ++c)
        for (Eigen::Index p = 0; p < cs.cols(); ++p)
          EXPECT_NEAR(gradients[k].gradient(c, p), cs(c, p), tol * std::max(1.0, std::abs(cs(c, p)))) << k << " " << c << " " << p;
  }
}

}  // namespace
}  // namespace lw
