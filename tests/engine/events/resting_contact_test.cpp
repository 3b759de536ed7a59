// Sustained contact (issue 37 item 1): a body at rest on its floor or end stop stays there (it
// fell through: y = −19.62 m after 2 s), a bouncing ball comes to rest at the Zeno point of its
// closed form t∞ = t₁(1 + 2e/(1 − e)) and stays, a held contact opens when its force would pull
// (an upward force growing through the weight: at t = 1 s, then y = g(t − 1)³/6), a slider rests on
// its stop, the five-bar comes to rest on its floor and leaves it; Matrix R with both integrators,
// the penalty formulation and the three global formulations.
#include <gtest/gtest.h>

#include <cmath>

#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "events/resting_contact.h"
#include "events/contact_gaps.h"
#include "dynamics/matrix_r.h"
#include "support/samples.h"

namespace lw {
namespace {

using test::Loaded;
std::unique_ptr<Loaded> fromText(const std::string& text) { return test::loadedFromText(text); }
int column(const analysis::SimulationResult& r, const std::string& name) {
  for (std::size_t k = 0; k < r.columns.size(); ++k)
    if (r.columns[k] == name) return static_cast<int>(k);
  throw std::runtime_error("no column " + name);
}
double at(const analysis::SimulationResult& r, std::size_t row, int col) { return r.values[row * r.columns.size() + static_cast<std::size_t>(col)]; }
std::string number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// a 1 kg ball whose centre starts at height y0 above the line y = 0, with an optional world force
std::string ball(double y0, double e, const std::string& force = "") {
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "ball", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "ball", "position": [0, )" + number(y0) + R"(], "mass": 1, "com": [0, 0], "inertia": 0.004, "points": {"C": [0, 0]}}],
    "contacts": [{"name": "floor", "type": "point_plane", "point": "ball.C", "plane_point": "ground.O",
                  "plane_normal": "ground.up", "restitution": )" + number(e) + "}]" +
         (force.empty() ? "" : R"(, "forces": [{"name": "lift", "type": "force", "point": "ball.C", "value": [0, ")" + force + R"("], "frame": "world"}])") +
         R"(, "outputs": [{"name": "c", "type": "point_position", "point": "ball.C"}]})";
}

analysis::SimulationSpec spec(analysis::Integrator integrator, double tEnd, double dt = 1e-3) {
  analysis::SimulationSpec s;
  s.integrator = integrator;
  s.tEnd = tEnd;
  s.dt = dt;
  s.tol = 1e-10;
  return s;
}

// with the file's outputs as columns
analysis::SimulationResult run(const Loaded& l, analysis::SimulationSpec s) {
  s.mechanism = &l.mechanism;
  return analysis::runSimulation(l.resolved, s);
}

// Matrix R with both integrators, and the penalty formulation (its constraints, the held
// contacts' too, yield by the force over the penalty factor: 1e-7 m for the ball's weight)
struct Route {
  analysis::Formulation formulation;
  analysis::Integrator integrator;
  double position;  // how close it holds a point on its plane
  const char* name;
};
// The global formulations hold a resting contact as a row of their natural model (index-3 to its
// Newton tolerance; index-1 by Baumgarte's terms from r = ṙ = 0, to the trapezoidal rule's drift
// on a turning coupler, 2e-8 m on the five-bar; the global penalty yielding by its force over
// the penalty factor).
constexpr Route kRoutes[] = {{analysis::Formulation::MatrixR, analysis::Integrator::RK45, 1e-12, "Matrix R, RK45"},
                             {analysis::Formulation::MatrixR, analysis::Integrator::Trapezoidal, 1e-12, "Matrix R, trapezoidal"},
                             {analysis::Formulation::Penalty, analysis::Integrator::Trapezoidal, 2e-7, "penalty"},
                             {analysis::Formulation::Index3, analysis::Integrator::Trapezoidal, 1e-12, "index-3"},
                             {analysis::Formulation::Index1, analysis::Integrator::Trapezoidal, 5e-8, "index-1, trapezoidal"},
                             {analysis::Formulation::Index1, analysis::Integrator::RK45, 1e-12, "index-1, RK45"},
                             {analysis::Formulation::PenaltyGlobal, analysis::Integrator::Trapezoidal, 2e-7, "global penalty, trapezoidal"},
                             {analysis::Formulation::PenaltyGlobal, analysis::Integrator::RK45, 2e-7, "global penalty, RK45"}};
analysis::SimulationSpec spec(const Route& route, double tEnd) {
  analysis::SimulationSpec s = spec(route.integrator, tEnd);
  s.formulation = route.formulation;
  return s;
}

double lowestY(const analysis::SimulationResult& r, double from = 0) {
  const int y = column(r, "c.y"), t = column(r, "time");
  double least = INFINITY;
  for (std::size_t k = 0; k < r.rows(); ++k)
    if (at(r, k, t) >= from) least = std::min(least, at(r, k, y));
  return least;
}
double highestY(const analysis::SimulationResult& r, double from = 0) {
  const int y = column(r, "c.y"), t = column(r, "time");
  double most = -INFINITY;
  for (std::size_t k = 0; k < r.rows(); ++k)
    if (at(r, k, t) >= from) most = std::max(most, at(r, k, y));
  return most;
}

// The held gaps' kernels against differences (the five-bar's contact point rides on a turning
// coupler: r_zz is not zero): the penalty's rows r, r_z (central differences of the gap) and
// c = −żᵀ r_zz ż (of the rate along ż); and Matrix R's held accelerations meet their target
// r̈ = −2ωṙ − ω²r (W and r̈_free consistent)
TEST(RestingContact, TheHeldGapsKernelsAgreeWithDifferences) {
  const auto l = test::loaded(test::sampleMechanism("five-bar"));
  const dyn::MatrixRModel model = dyn::compileMatrixR(l->resolved);
  const dyn::RecursiveModel& tree = model.tree;
  dyn::MatrixRData data(model);
  ASSERT_TRUE(dyn::initialState(model, data).ok());
  // a moving state: the independent rates set, the dependent ones from the velocity problem
  Eigen::VectorXd zid = Eigen::VectorXd::LinSpaced(data.zid.size(), 0.7, -1.3);
  ASSERT_TRUE(dyn::evaluate(model, data, 0.0, data.zi, zid).ok());
  const Eigen::VectorXd z = data.z, zd = data.zd;
  events::RestingContacts held(tree, 30.0);
  held.hold(0);  // the floor
  Eigen::VectorXd phi, c;
  Eigen::MatrixXd J;
  held.evaluate(z, zd, phi, J, c);
  Eigen::VectorXd gap, rate;
  events::contactGaps(tree, z, zd, gap, rate);
  EXPECT_NEAR(phi[0], gap[0], 1e-15);
  const double h = 1e-6;
  double scale = J.cwiseAbs().maxCoeff();
  ASSERT_GT(scale, 0.1);
  for (int i = 0; i < tree.nz; ++i) {
    Eigen::VectorXd up = z, down = z, g1, g0, r;
    up[i] += h, down[i] -= h;
    events::contactGaps(tree, up, zd, g1, r);
    events::contactGaps(tree, down, zd, g0, r);
    EXPECT_NEAR(J(0, i), (g1[0] - g0[0]) / (2 * h), 1e-8 * scale) << i;
  }
  {
    Eigen::VectorXd r1, r0, g;
    events::contactGaps(tree, z + h * zd, zd, g, r1);
    events::contactGaps(tree, z - h * zd, zd, g, r0);
    const double curvature = (r1[0] - r0[0]) / (2 * h);  // żᵀ r_zz ż
    ASSERT_GT(std::abs(curvature), 1e-3);
    EXPECT_NEAR(c[0], -curvature, 1e-7 * std::max(1.0, std::abs(curvature)));
  }
  // Matrix R: the accelerations with the held force give the gap its target acceleration
  ASSERT_TRUE(held.apply(model, data).ok());
  Eigen::VectorXd accel;
  events::contactAccelerations(tree, data.z, data.zd, data.zdd, accel);
  const double target = -2 * 30.0 * rate[0] - 900.0 * gap[0];
  EXPECT_NEAR(accel[0], target, 1e-9 * std::max(1.0, std::abs(target)));
  EXPECT_NE(held.forces()[0], 0.0);
  // without the Baumgarte terms (the penalty's measure): r̈ = 0
  ASSERT_TRUE(dyn::evaluate(model, data, 0.0, data.zi, zid).ok());
  ASSERT_TRUE(held.apply(model, data, false).ok());
  events::contactAccelerations(tree, data.z, data.zd, data.zdd, accel);
  EXPECT_NEAR(accel[0], 0.0, 1e-9);
}

TEST(RestingContact, ABallAtRestOnItsFloorStaysThere) {
  // exactly on it, a gap of 1e-300, and 1e-15 inside (the assembly's round-off)
  for (double y0 : {0.0, 1e-300, -1e-15})
    for (const Route& route : kRoutes) {
      SCOPED_TRACE(route.name);
      const auto l = fromText(ball(y0, 0.8));
      const auto r = run(*l, spec(route, 2.0));
      ASSERT_TRUE(r.status.ok()) << y0 << ": " << r.status.message;
      EXPECT_NEAR(at(r, r.rows() - 1, column(r, "time")), 2.0, 1e-12);
      EXPECT_GT(lowestY(r), -route.position) << y0;  // it fell to −19.62
      EXPECT_LT(highestY(r), 1e-12) << y0;
      ASSERT_EQ(r.events.size(), 1u) << y0;
      EXPECT_EQ(r.events[0].kind, "closes");
      EXPECT_EQ(r.events[0].t, 0.0);
      EXPECT_EQ(r.events[0].contacts, std::vector<std::string>{"floor"});
    }
}

TEST(RestingContact, ABouncingBallRestsFromItsZenoPoint) {
  // t₁ = √(2y₀/g), each flight e times the last: t∞ = t₁ (1 + 2e/(1 − e))
  const double g = 9.81, y0 = 1;
  for (double e : {0.8, 0.5}) {
    const double t1 = std::sqrt(2 * y0 / g), tInf = t1 * (1 + 2 * e / (1 - e));
    const auto l = fromText(ball(y0, e));
    for (const Route& route : kRoutes) {
      SCOPED_TRACE(route.name);
      const double tEnd = std::ceil((tInf + 1.0) * 1000) / 1000;
      const auto r = run(*l, spec(route, tEnd));
      ASSERT_TRUE(r.status.ok()) << r.status.message;  // it stopped: "resting contact is not simulated"
      ASSERT_FALSE(r.events.empty());
      const auto& last = r.events.back();
      EXPECT_EQ(last.kind, "closes");
      for (std::size_t k = 0; k + 1 < r.events.size(); ++k) EXPECT_EQ(r.events[k].kind, "impact");
      // the bounces left after the last one would rise less than 1e-10 m (ImpactSpeeds): the rest
      // begins within their flights' sum of the Zeno point, 3e-5 s (e = 0.8)
      EXPECT_NEAR(last.t, tInf, 1e-4) << e;
      EXPECT_LT(last.t, tInf) << e;
      EXPECT_EQ(last.normalAfter[0], 0.0);
      EXPECT_NEAR(last.energyAfter, 0.0, 1e-9 + 9.81 * route.position);  // all of it dissipated: kinetic 0, potential 0
      EXPECT_GT(lowestY(r), -1e-9 - route.position);
      EXPECT_LT(highestY(r, tInf + 1e-6), 1e-9);
      EXPECT_NEAR(at(r, r.rows() - 1, column(r, "time")), tEnd, 1e-9);
    }
  }
}

TEST(RestingContact, AHeldContactOpensWhenItsForceWouldPull) {
  // the lift 9.81 t N equals the weight at t = 1 s: the floor's force m g (1 − t) falls through
  // zero there, and then ÿ = g (t − 1): y = g (t − 1)³ / 6
  const auto l = fromText(ball(0, 0.5, "9.81*t"));
  for (const Route& route : kRoutes) {
    SCOPED_TRACE(route.name);
    const auto r = run(*l, spec(route, 2.0));
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.events.size(), 2u);
    EXPECT_EQ(r.events[0].kind, "closes");
    EXPECT_EQ(r.events[1].kind, "opens");
    EXPECT_NEAR(r.events[1].t, 1.0, 1e-8);
    EXPECT_EQ(r.events[1].contacts, std::vector<std::string>{"floor"});
    EXPECT_LT(highestY(r) , 9.81 / 6 * (1 + 1e-6));
    const int y = column(r, "c.y");
    const double yEnd = at(r, r.rows() - 1, y);
    EXPECT_NEAR(yEnd, 9.81 / 6, route.integrator == analysis::Integrator::RK45 ? 1e-7 : 1e-5);
    EXPECT_LT(std::abs(at(r, r.rows() / 2 - 10, y)), 1e-9 + route.position);  // still on the floor before t = 1
  }
}

// a 1 kg block on a vertical guide with an end stop at 0 (its coordinate: the slide up)
std::string block(double y0, double e) {
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "block", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "block", "position": [0, )" + number(y0) + R"(], "mass": 1, "com": [0, 0], "inertia": 0.01,
                "points": {"P": [0, 0]}, "vectors": {"up": [0, 1]}}],
    "joints": [{"name": "guide", "type": "slider", "points": ["ground.O", "block.P"], "axes": ["ground.up", "block.up"]}],
    "limits": [{"name": "stop", "joint": "guide", "min": 0, "restitution": )" + number(e) + R"(}],
    "outputs": [{"name": "c", "type": "point_position", "point": "block.P"}]})";
}

// the run ends at rest on the lower side of 'stop', never below `value` in column `name`, at
// it in the end
void expectRestingOnTheStop(const analysis::SimulationResult& r, const Route& route, const std::string& name, double value) {
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_FALSE(r.events.empty());
  EXPECT_EQ(r.events.back().kind, "closes");
  EXPECT_EQ(r.events.back().contacts, std::vector<std::string>{"stop (lower)"});
  const int c = column(r, name);
  double least = INFINITY;
  for (std::size_t k = 0; k < r.rows(); ++k) least = std::min(least, at(r, k, c));
  EXPECT_GT(least, value - 1e-9 - route.position);  // the slider passed its stop by 0.297 m
  EXPECT_NEAR(at(r, r.rows() - 1, c), value, 1e-9 + route.position);
}

TEST(RestingContact, ASliderRestsOnItsStop) {
  for (double y0 : {0.0, 0.2}) {
    const auto l = fromText(block(y0, 0.5));
    for (const Route& route : kRoutes) {
      SCOPED_TRACE(route.name + std::string(y0 > 0 ? ", from 0.2 m" : ", from the stop"));
      expectRestingOnTheStop(run(*l, spec(route, 3.0)), route, "c.y", 0.0);
    }
  }
}

// a 1 m, 1 kg bar pinned at O, stored turned 0.3 rad, with a stop at −0.5 rad (the joint's
// coordinate as the outputs measure it, not its turn from the stored pose)
std::string pendulumOnAStop(double e) {
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "pendulum", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}},
    "bodies": [{"name": "bar", "angle": 0.3, "mass": 1, "com": [0.5, 0], "inertia": 0.0833, "points": {"O": [0, 0], "B": [1, 0]}}],
    "joints": [{"name": "O", "type": "pin", "points": ["ground.O", "bar.O"]}],
    "limits": [{"name": "stop", "joint": "O", "min": -0.5, "restitution": )" + number(e) + R"(}],
    "outputs": [{"name": "theta", "type": "joint_coordinate", "joint": "O"}]})";
}

TEST(RestingContact, APendulumRestsOnItsPinStop) {
  // it swings down onto the stop, bounces less each time and stays there, gravity holding it:
  // every route at the stop's angle (a held pin's row is the driven angle's, offset by the stored one)
  const auto l = fromText(pendulumOnAStop(0.5));
  for (const Route& route : kRoutes) {
    SCOPED_TRACE(route.name);
    expectRestingOnTheStop(run(*l, spec(route, 3.0)), route, "theta", -0.5);
  }
}

// a 1 kg box on a table that a driver shakes up and down, y = A sin ωt (its plane and normal the
// table's: a held row over a moving plane), restitution 0: it rests on the table from the start
std::string boxOnAShakingTable(double amplitude, double omega) {
  const std::string shake = number(amplitude) + "*sin(" + number(omega) + "*t)";
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "table", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0], "G": [0.2, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [
      {"name": "table", "mass": 5, "com": [0, 0], "inertia": 0.5, "points": {"P": [0, 0], "S": [0.5, 0]}, "vectors": {"up": [0, 1], "n": [0, 1]}},
      {"name": "box", "position": [0.2, 0.3], "mass": 1, "com": [0, 0], "inertia": 0.01, "points": {"C": [0, 0]}, "vectors": {"up": [0, 1]}}],
    "joints": [{"name": "lift", "type": "slider", "points": ["ground.O", "table.P"], "axes": ["ground.up", "table.up"]},
               {"name": "rail", "type": "slider", "points": ["ground.G", "box.C"], "axes": ["ground.up", "box.up"]}],
    "drivers": [{"name": "shake", "type": "joint", "joint": "lift", "function": ")" + shake + R"("}],
    "contacts": [{"name": "top", "type": "point_plane", "point": "box.C", "plane_point": "table.S", "plane_normal": "table.n",
                  "radius": 0.3, "restitution": 0}],
    "outputs": [{"name": "c", "type": "point_position", "point": "box.C"}]})";
}

TEST(RestingContact, ABoxLeavesItsShakingTableWhenItFallsFasterThanGravity) {
  // gently (A ω² = 1.25 m/s² < g) it stays on the table; shaken at A ω² = 12.8 m/s² the table
  // falls away faster than g from t = asin(g/Aω²)/ω, and the box's force there falls through zero
  const double A = 0.05;
  for (const Route& route : kRoutes) {
    SCOPED_TRACE(route.name);
    const auto gentle = run(*fromText(boxOnAShakingTable(A, 5)), spec(route, 1.5));
    ASSERT_TRUE(gentle.status.ok()) << gentle.status.message;
    ASSERT_EQ(gentle.events.size(), 1u);
    EXPECT_EQ(gentle.events[0].kind, "closes");
    const double omega = 16;
    const auto shaken = run(*fromText(boxOnAShakingTable(A, omega)), spec(route, 0.2));
    ASSERT_TRUE(shaken.status.ok()) << shaken.status.message;
    ASSERT_EQ(shaken.events.size(), 2u);
    EXPECT_EQ(shaken.events[1].kind, "opens");
    EXPECT_NEAR(shaken.events[1].t, std::asin(9.81 / (A * omega * omega)) / omega, 5e-5);
  }
}

TEST(RestingContact, TheFiveBarComesToRestOnItsFloorAndLeavesIt) {
  // its contact with Newton's law and e = 0.5, its springs damped, the line raised to y = −2.3
  // (where the springs would hold the coupler's point below it): bursts of bounces that end at
  // rest, the point held on the line until the springs' swing lifts it off, again and again as
  // the damping takes the energy; both integrators the same, never below the line
  Mechanism m = test::sampleMechanism("five-bar");
  m.contacts[0].law = Contact::Law::Newton;
  m.contacts[0].restitution = 0.5;
  for (auto& f : m.forces) f.damping = 5;
  bool raised = false;
  for (auto& p : m.ground.points)
    if (p.name == "F") {
      p.value[1] = -2.3;
      raised = true;
    }
  ASSERT_TRUE(raised);
  m.outputs.push_back({});
  m.outputs.back().name = "tip";
  m.outputs.back().type = Output::Type::PointPosition;
  m.outputs.back().point = {"bar_12", "P2"};
  Diagnostics d;
  const auto resolved = resolve(m, d);
  ASSERT_TRUE(resolved);
  std::vector<std::vector<double>> restTimes;
  for (const Route& route : kRoutes) {
    SCOPED_TRACE(route.name);
    auto sp = spec(route, 8.0);
    sp.mechanism = &m;
    const auto r = analysis::runSimulation(*resolved, sp);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
    std::vector<double> times;
    std::string last;
    for (const auto& ev : r.events) {
      if (ev.kind == "closes" || ev.kind == "opens") {
        EXPECT_NE(ev.kind, last) << ev.t;  // a rest, then an opening, alternately
        last = ev.kind;
        times.push_back(ev.t);
      }
    }
    ASSERT_GE(times.size(), 4u);
    restTimes.push_back(times);
    const int y = column(r, "tip.y");
    double least = INFINITY;
    for (std::size_t k = 0; k < r.rows(); ++k) least = std::min(least, at(r, k, y));
    EXPECT_GT(least, -2.3 - 1e-9 - route.position) << least + 2.3;
  }
  for (std::size_t route = 1; route < restTimes.size(); ++route) {
    ASSERT_EQ(restTimes[0].size(), restTimes[route].size()) << route;
    // (the routes' motions agree to 1e-5 s; whether a burst's last bounce, 2.7 ms long, still
    // flies is a threshold on its rebound speed that such a difference can tip)
    for (std::size_t k = 0; k < restTimes[0].size(); ++k) EXPECT_NEAR(restTimes[0][k], restTimes[route][k], 3e-3) << route << " " << k;
  }
}

}  // namespace
}  // namespace lw
