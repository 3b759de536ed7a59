// Switches whose crossings follow quickly (issue 37, item 2): a point under gravity with a thrust
// switched on when it falls through y = 0 and off when it rises through it. Every crossing must be
// found, at the times the closed form gives; where the crossings accumulate (a sliding mode) the
// run stops naming the switch; it never runs on past a missed crossing with the thrust left on
// (the point used to fly to y = 56.8 m, exit 0, with every integrator).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "support/samples.h"

namespace lw {
namespace {

using test::Loaded;

// 1 kg on a vertical slider from y0 at rest, gravity g = 9.81, a thrust F switched on below y = 0
// and off above it; a damper of rate c to a ground point 10 m above (the mechanism's size)
std::unique_ptr<Loaded> bangBang(double y0, double c, double F) {
  const std::string text = R"({"format": "linkwright-mechanism", "version": 1, "name": "chatter", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0], "top": [0, 10]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "ball", "position": [0, )" + std::to_string(y0) + R"(], "mass": 1, "com": [0, 0], "inertia": 0.001,
                "points": {"C": [0, 0]}, "vectors": {"up": [0, 1]}}],
    "joints": [{"name": "guide", "type": "slider", "points": ["ground.O", "ball.C"], "axes": ["ground.up", "ball.up"]}],
    "forces": [{"name": "damper", "type": "spring", "points": ["ground.top", "ball.C"], "stiffness": 0, "damping": )" +
                           std::to_string(c) + R"(, "natural_length": 0},
               {"name": "thrust", "type": "force", "point": "ball.C", "value": [0, )" + std::to_string(F) + R"(]}],
    "switches": [{"name": "on", "point": "ball.C", "component": "y", "value": 0, "direction": "falling", "enable": ["thrust"]},
                 {"name": "off", "point": "ball.C", "component": "y", "value": 0, "direction": "rising", "disable": ["thrust"]}],
    "outputs": [{"name": "p", "type": "point_position", "point": "ball.C"}]})";
  return test::loadedFromText(text);
}

// The crossing times in closed form: each phase ÿ = a − c ẏ from y = 0 (or y0) with the speed it
// has there is v(s) = v∞ + (v₀ − v∞)e^{−cs}, y(s) = y₀ + v∞s + (v₀ − v∞)(1 − e^{−cs})/c (c = 0: the
// parabola). It turns where v = 0 and then heads back to the line monotonically: its zero is
// bracketed beyond the turning point by doubling and bisected to rounding.
std::vector<double> crossings(double y0, double c, double F, double tEnd) {
  const double g = 9.81;
  std::vector<double> out;
  double t = 0, y = y0, v = 0;
  bool below = false;
  for (;;) {
    const double a = below ? F - g : -g;
    auto pos = [&](double s) { return c == 0 ? y + v * s + 0.5 * a * s * s : y + a / c * s + (v - a / c) * (1 - std::exp(-c * s)) / c; };
    auto vel = [&](double s) { return c == 0 ? v + a * s : a / c + (v - a / c) * std::exp(-c * s); };
    const double turn = v == 0 ? 0 : c == 0 ? -v / a : -std::log((a / c) / (a / c - v)) / c;
    const double side = below ? -1 : 1;  // the sign of y during the phase
    double lo = turn, hi = turn + 1e-9;
    while (side * pos(hi) > 0) {
      lo = hi;
      hi = turn + 2 * (hi - turn);
      if (t + lo > tEnd) return out;
    }
    for (int k = 0; k < 200 && hi - lo > 1e-16 * (t + hi); ++k) {
      const double mid = 0.5 * (lo + hi);
      (side * pos(mid) > 0 ? lo : hi) = mid;
    }
    const double s = 0.5 * (lo + hi);
    if (t + s > tEnd || s < 1e-9 || out.size() > 100000) return out;  // the end, or where the crossings accumulate
    v = vel(s);
    t += s;
    y = 0;
    out.push_back(t);
    below = !below;
  }
}

analysis::SimulationSpec spec(analysis::Formulation f, analysis::Integrator i, double tEnd, double dt) {
  analysis::SimulationSpec s;
  s.formulation = f;
  s.integrator = i;
  s.tEnd = tEnd;
  s.dt = dt;
  s.tol = 1e-12;
  return s;
}

struct Case {
  analysis::Formulation formulation;
  analysis::Integrator integrator;
  const char* name;
};
const Case kCases[] = {{analysis::Formulation::MatrixR, analysis::Integrator::Trapezoidal, "trapezoidal"},
                       {analysis::Formulation::MatrixR, analysis::Integrator::RK45, "rk45"},
                       {analysis::Formulation::Penalty, analysis::Integrator::Trapezoidal, "penalty"}};

double lastY(const analysis::SimulationResult& r) {
  for (std::size_t k = 0; k < r.columns.size(); ++k)
    if (r.columns[k] == "ball.C.y") return r.values[r.values.size() - r.columns.size() + k];
  throw std::runtime_error("no column ball.C.y");
}

// Undamped, 10 µm above the line: a crossing every 2.8 ms, within two or three 1-ms steps of the
// one before, for 0.1 s: all 35 of them at the closed form's times, on and off in turn.
TEST(SwitchChatter, CrossingsAFewStepsApartAreAllFoundAtTheirTimes) {
  const double y0 = 1e-5, F = 20;
  const auto l = bangBang(y0, 0, F);
  const std::vector<double> expected = crossings(y0, 0, F, 0.1);
  ASSERT_GT(expected.size(), 30u);
  for (const Case& k : kCases) {
    const auto r = analysis::runSimulation(l->resolved, spec(k.formulation, k.integrator, 0.1, 1e-3));
    ASSERT_TRUE(r.status.ok()) << k.name << ": " << r.status.message;
    ASSERT_EQ(r.events.size(), expected.size()) << k.name;
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(r.events[i].t, expected[i], 1e-9) << k.name << " crossing " << i;
    EXPECT_LT(std::abs(lastY(r)), 2 * y0) << k.name << ": the point left the line";
  }
}

// Every sign change of y between two rows has a switch event between them: no crossing missed.
void everyCrossingHasItsEvent(const analysis::SimulationResult& r, const char* name) {
  std::size_t col = 0;
  while (col < r.columns.size() && r.columns[col] != "ball.C.y") ++col;
  ASSERT_LT(col, r.columns.size());
  const std::size_t n = r.columns.size(), rows = r.values.size() / n;
  std::size_t e = 0;
  for (std::size_t i = 1; i < rows; ++i) {
    const double t0 = r.values[(i - 1) * n], t1 = r.values[i * n];
    const double y0 = r.values[(i - 1) * n + col], y1 = r.values[i * n + col];
    while (e < r.events.size() && r.events[e].t < t0 - 1e-12) ++e;
    if ((y0 > 1e-12 && y1 < -1e-12) || (y0 < -1e-12 && y1 > 1e-12)) {
      ASSERT_TRUE(e < r.events.size() && r.events[e].t <= t1 + 1e-12)
          << name << ": y crosses 0 between t = " << t0 << " and " << t1 << " s with no event";
    }
  }
}

// The issue's reproducer: damped (c = 2), from 0.5 m, 10 s at 1 ms. The crossings come ever faster
// (0.8 ms apart at the end); before, one at 8.345 s was missed and the point flew to 56.8 m with
// the thrust left on. Now every crossing has its event and the point stays on the line; RK45's 1845
// crossings are the closed form's to its tolerance (the trapezoidal rule's drift by its O(h²)).
TEST(SwitchChatter, TheDampedReproducerMissesNoCrossingAndStaysOnTheLine) {
  const double y0 = 0.5, c = 2, F = 20;
  const auto l = bangBang(y0, c, F);
  const std::vector<double> expected = crossings(y0, c, F, 10);
  for (const Case& k : kCases) {
    const auto r = analysis::runSimulation(l->resolved, spec(k.formulation, k.integrator, 10, 1e-3));
    ASSERT_TRUE(r.status.ok()) << k.name << ": " << r.status.message;
    everyCrossingHasItsEvent(r, k.name);
    EXPECT_LT(std::abs(lastY(r)), 1e-3) << k.name << ": the point left the line";
    ASSERT_GE(r.events.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.events[i].t, expected[i], 1e-6) << k.name;
    if (k.integrator == analysis::Integrator::RK45) {
      ASSERT_EQ(r.events.size(), expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(r.events[i].t, expected[i], 1e-6) << "crossing " << i;
    }
  }
}

// Strongly damped (c = 100) from 1 cm: the crossings accumulate at 0.28 s (a sliding mode: the
// thrust and gravity push the point back to the line from both sides). The run stops where a
// switch fires more often than once a step, naming it; the crossings before are the closed form's.
TEST(SwitchChatter, AccumulatingCrossingsStopTheRunNamingTheSwitch) {
  const double y0 = 0.01, c = 100, F = 20;
  const auto l = bangBang(y0, c, F);
  const std::vector<double> expected = crossings(y0, c, F, 0.3);
  for (const Case& k : kCases) {
    const auto r = analysis::runSimulation(l->resolved, spec(k.formulation, k.integrator, 1, 1e-3));
    ASSERT_FALSE(r.status.ok()) << k.name << ": ran on through a sliding mode";
    EXPECT_NE(r.status.message.find("chatters at t = "), std::string::npos) << k.name << ": " << r.status.message;
    EXPECT_TRUE(r.status.message.find("switch 'on'") != std::string::npos || r.status.message.find("switch 'off'") != std::string::npos)
        << r.status.message;
    everyCrossingHasItsEvent(r, k.name);
    EXPECT_LT(std::abs(lastY(r)), 1e-3) << k.name;
    EXPECT_LT(r.status.time, 0.3) << k.name;
    ASSERT_GE(r.events.size(), 16u);
    EXPECT_NEAR(r.events[0].t, expected[0], 1e-6) << k.name;
    if (k.integrator == analysis::Integrator::RK45) {
      for (std::size_t i = 0; i < r.events.size(); ++i) ASSERT_NEAR(r.events[i].t, expected[i], 1e-6) << "crossing " << i;
    }
  }
}

}  // namespace
}  // namespace lw
