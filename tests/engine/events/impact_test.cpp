// Impacts in forward runs (issue 21, seed 001): the bouncing ball's closed form (impact times,
// velocities, energies: e² per impact), the five-bar's ten bounces on its line with the seed's
// kinematic law (ẏ₂ reverses, ẋ₂ kept, never below the line), Newton's law conserving energy
// for e = 1 through the constrained mass matrix, simultaneous contacts as one impact, the same
// impact times from Matrix R (both integrators) and the penalty formulation, and the refusals:
// a point that starts inside its plane (a ball that comes to rest: resting_contact_test.cpp);
// an impact and a switch at the same instant (the switch, then the impact).
#include <gtest/gtest.h>

#include <cmath>

#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "sensitivity/sensitivity.h"
#include "support/samples.h"

namespace lw {
namespace {

using test::Loaded;
std::unique_ptr<Loaded> load(Mechanism m) { return test::loaded(std::move(m)); }
std::unique_ptr<Loaded> fromText(const std::string& text) { return test::loadedFromText(text); }
int column(const analysis::SimulationResult& r, const std::string& name) {
  for (std::size_t k = 0; k < r.columns.size(); ++k)
    if (r.columns[k] == name) return static_cast<int>(k);
  throw std::runtime_error("no column " + name);
}
double at(const analysis::SimulationResult& r, std::size_t row, int col) { return r.values[row * r.columns.size() + static_cast<std::size_t>(col)]; }

// the ball of seed 001 T1 in the plane: y0 = 1 above the line, at rest, restitution e
std::string ball(double e, double radius = 0) {
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "ball", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "ball", "position": [0, )" + std::to_string(1.0 + radius) + R"(], "mass": 1, "com": [0, 0], "inertia": 0.004,
                "points": {"C": [0, 0]}}],
    "contacts": [{"name": "floor", "type": "point_plane", "point": "ball.C", "plane_point": "ground.O",
                  "plane_normal": "ground.up", "radius": )" + std::to_string(radius) + R"(, "restitution": )" + std::to_string(e) + "}]}";
}

analysis::SimulationSpec spec(analysis::Integrator integrator, double tEnd, double dt = 1e-3) {
  analysis::SimulationSpec s;
  s.integrator = integrator;
  s.tEnd = tEnd;
  s.dt = dt;
  s.tol = 1e-12;
  return s;
}

TEST(Impacts, BouncingBallMatchesTheClosedForm) {
  const auto l = fromText(ball(0.8));
  // seed 001 §8 T1: t₁ = √(2y₀/g), t_{k+1} = t_k + 2eᵏ√(2gy₀)/g
  const double g = 9.81, e = 0.8, tExpected[3] = {0.4515236409857309, 1.1739614665629003, 1.7519117270246358};
  for (auto integrator : {analysis::Integrator::RK45, analysis::Integrator::Trapezoidal}) {
    const auto r = analysis::runSimulation(l->resolved, spec(integrator, 2.0));
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.events.size(), 3u);
    double v = std::sqrt(2 * g);
    for (int k = 0; k < 3; ++k) {
      const auto& ev = r.events[static_cast<std::size_t>(k)];
      EXPECT_NEAR(ev.t, tExpected[k], 1e-8 * tExpected[k]) << k;
      EXPECT_NEAR(ev.normalBefore[0], -v, 1e-8 * v) << k;
      EXPECT_NEAR(ev.normalAfter[0], e * v, 1e-8 * v) << k;
      EXPECT_NEAR(ev.impulse[0], (1 + e) * v, 1e-8 * v) << k;  // 1 kg
      // the energy is all kinetic at the floor: it keeps e² of it
      EXPECT_NEAR(ev.energyAfter, e * e * ev.energyBefore, 1e-8 * std::abs(ev.energyBefore)) << k;
      v *= e;
    }
    // two rows at each impact, the same time: just before (falling) and just after (rising)
    const int ty = column(r, "ball.C.vy");
    int pairs = 0;
    for (std::size_t row = 1; row < r.rows(); ++row)
      if (at(r, row, 0) == at(r, row - 1, 0)) {
        ++pairs;
        EXPECT_LT(at(r, row - 1, ty), 0);
        EXPECT_NEAR(at(r, row, ty), -e * at(r, row - 1, ty), 1e-9);
      }
    EXPECT_EQ(pairs, 3);
    // the energy the impacts take is booked as dissipated: the balance stays at zero
    const int balance = column(r, "energy.balance");
    EXPECT_NEAR(at(r, r.rows() - 1, balance), 0, 1e-9);
  }
}

TEST(Impacts, FiveBarBouncesTenTimesWithTheSeedsLaw) {
  const auto l = test::sampleMechanism("five-bar");
  const auto five = load(l);
  auto s = spec(analysis::Integrator::RK45, 5.0);
  s.tol = 1e-10;
  const auto r = analysis::runSimulation(five->resolved, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.events.size(), 10u);  // seed 001 §7, issue 21: 10 impacts in 5 s
  const int y = column(r, "bar_12.P2.y"), vx = column(r, "bar_12.P2.vx"), vy = column(r, "bar_12.P2.vy");
  for (std::size_t row = 0; row < r.rows(); ++row) EXPECT_GE(at(r, row, y), -2.35 - 1e-9) << at(r, row, 0);
  int pairs = 0;
  for (std::size_t row = 1; row < r.rows(); ++row)
    if (at(r, row, 0) == at(r, row - 1, 0)) {
      ++pairs;
      EXPECT_NEAR(at(r, row, y), -2.35, 1e-9);
      EXPECT_NEAR(at(r, row, vy), -at(r, row - 1, vy), 1e-9);  // kinematic law, e = 1: ẏ₂ reverses
      EXPECT_NEAR(at(r, row, vx), at(r, row - 1, vx), 1e-9);   // ẋ₂ is kept
    }
  EXPECT_EQ(pairs, 10);
  // the seed's law does not conserve energy (guide §2.8: 2.757521 → 2.761035 J of kinetic energy
  // at the first impact of its reconstruction): it gains a few mJ here too
  EXPECT_GT(r.events[0].energyAfter - r.events[0].energyBefore, 1e-3);
  EXPECT_LT(r.events[0].energyAfter - r.events[0].energyBefore, 1e-2);
}

TEST(Impacts, NewtonsLawConservesEnergyThroughTheConstrainedMassMatrix) {
  Mechanism m = test::sampleMechanism("five-bar");
  m.contacts[0].law = Contact::Law::Newton;
  const auto five = load(m);
  auto s = spec(analysis::Integrator::RK45, 2.0);
  const auto r = analysis::runSimulation(five->resolved, s);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_GE(r.events.size(), 2u);
  for (const auto& ev : r.events) {
    EXPECT_NEAR(ev.energyAfter, ev.energyBefore, 1e-10 * std::abs(ev.energyBefore)) << ev.t;
    EXPECT_NEAR(ev.normalAfter[0], -ev.normalBefore[0], 1e-10) << ev.t;
  }
  // restitution 0.5: the normal velocity halves and the energy falls by what the closed form of
  // a one-contact impulse says, ½(1 − e²)·u⁻²/(w M̄⁻¹ w) = ½ (1 − e²) u⁻ P/(1 + e) with P = (1 + e) u⁻/(w M̄⁻¹ w)
  m.contacts[0].restitution = 0.5;
  const auto half = load(m);
  const auto rh = analysis::runSimulation(half->resolved, s);
  ASSERT_TRUE(rh.status.ok()) << rh.status.message;
  for (const auto& ev : rh.events) {
    EXPECT_NEAR(ev.normalAfter[0], -0.5 * ev.normalBefore[0], 1e-10);
    const double lost = 0.5 * (1 - 0.25) * std::abs(ev.normalBefore[0]) * ev.impulse[0] / 1.5;
    EXPECT_NEAR(ev.energyBefore - ev.energyAfter, lost, 1e-9 * std::abs(ev.energyBefore)) << ev.t;
  }
}

TEST(Impacts, MatrixRAndPenaltyFindTheSameImpactTimes) {
  const auto five = load(test::sampleMechanism("five-bar"));
  auto reference = spec(analysis::Integrator::RK45, 1.5);
  reference.tol = 1e-11;
  const auto a = analysis::runSimulation(five->resolved, reference);
  auto penalty = spec(analysis::Integrator::Trapezoidal, 1.5, 2e-4);
  penalty.formulation = analysis::Formulation::Penalty;
  const auto b = analysis::runSimulation(five->resolved, penalty);
  const auto c = analysis::runSimulation(five->resolved, spec(analysis::Integrator::Trapezoidal, 1.5, 2e-4));
  ASSERT_TRUE(a.status.ok() && b.status.ok() && c.status.ok()) << a.status.message << b.status.message << c.status.message;
  ASSERT_EQ(a.events.size(), 3u);
  ASSERT_EQ(b.events.size(), a.events.size());
  ASSERT_EQ(c.events.size(), a.events.size());
  for (std::size_t k = 0; k < a.events.size(); ++k) {
    // the trapezoidal rule's error at h = 2e-4 (O(h²)), the penalty's constraint drift below it
    EXPECT_NEAR(b.events[k].t, a.events[k].t, 2e-6) << k;
    EXPECT_NEAR(c.events[k].t, a.events[k].t, 2e-6) << k;
  }
}

TEST(Impacts, SimultaneousContactsAreOneImpact) {
  // a bar falling flat: both ends reach the floor together, one impulse pair, no spin
  const auto l = fromText(R"({"format": "linkwright-mechanism", "version": 1, "name": "bar", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}, "vectors": {"up": [0, 1]}},
    "bodies": [{"name": "bar", "position": [0, 0.5], "mass": 2, "com": [0, 0], "inertia": 0.3,
                "points": {"L": [-0.5, 0], "R": [0.5, 0]}}],
    "contacts": [{"name": "left", "type": "point_plane", "point": "bar.L", "plane_point": "ground.O", "plane_normal": "ground.up", "restitution": 0.5},
                 {"name": "right", "type": "point_plane", "point": "bar.R", "plane_point": "ground.O", "plane_normal": "ground.up", "restitution": 0.5}]})");
  for (auto integrator : {analysis::Integrator::RK45, analysis::Integrator::Trapezoidal}) {
    const auto r = analysis::runSimulation(l->resolved, spec(integrator, 0.5));
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.events.size(), 1u);
    const auto& ev = r.events[0];
    ASSERT_EQ(ev.contacts.size(), 2u);
    EXPECT_NEAR(ev.t, std::sqrt(2 * 0.5 / 9.81), 1e-9);
    const double v = std::sqrt(2 * 9.81 * 0.5);
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(ev.normalAfter[static_cast<std::size_t>(j)], 0.5 * v, 1e-8);
      EXPECT_NEAR(ev.impulse[static_cast<std::size_t>(j)], 0.5 * 2 * 1.5 * v, 1e-8);  // half the bar's momentum change each
    }
  }
}

// a 1 m, 1 kg bar pinned at O, released horizontal; its pin stops it at `min` radians
std::string doorStop(double min, double e) {
  return R"({"format": "linkwright-mechanism", "version": 1, "name": "door stop", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"O": [0, 0]}},
    "bodies": [{"name": "bar", "mass": 1, "com": [0.5, 0], "inertia": 0.0833333333333333, "points": {"O": [0, 0], "E": [1, 0]}}],
    "joints": [{"name": "O", "type": "pin", "points": ["ground.O", "bar.O"]}],
    "limits": [{"name": "stop", "joint": "O", "min": )" + std::to_string(min) + R"(, "restitution": )" + std::to_string(e) + "}]}";
}

TEST(Impacts, AJointLimitStopsARevoluteCoordinate) {
  // a one-freedom impact: the rate reverses times e, the kinetic energy keeps e² (all of it is
  // in that freedom), the angle never passes the stop; energy conservation gives the rate there
  const auto l = fromText(doorStop(-2.0, 0.5));
  for (auto integrator : {analysis::Integrator::RK45, analysis::Integrator::Trapezoidal}) {
    const auto r = analysis::runSimulation(l->resolved, spec(integrator, 1.5));
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_GE(r.events.size(), 1u);
    const auto& ev = r.events[0];
    EXPECT_EQ(ev.contacts, std::vector<std::string>{"stop (lower)"});
    // ½ J ω² = m g (L/2) sin(2): J = 1/3 about O
    const double omega = std::sqrt(9.81 * std::sin(2.0) / (1.0 / 3.0));
    EXPECT_NEAR(ev.normalBefore[0], -omega, 2e-5 * omega);  // the trapezoidal rule's energy error at 1 ms
    EXPECT_NEAR(ev.normalAfter[0], 0.5 * omega, 2e-5 * omega);
    const double kinetic = 0.5 / 3.0 * omega * omega;
    EXPECT_NEAR(ev.energyBefore - ev.energyAfter, 0.75 * kinetic, 1e-4 * kinetic);
    const int angle = column(r, "dof.joint O");
    for (std::size_t row = 0; row < r.rows(); ++row) EXPECT_GE(at(r, row, angle), -2.0 - 1e-9);
  }
}

TEST(Impacts, ALimitOnASliderIsTheSameImpactAsAContactOnItsStop) {
  // the slider-crank's stop as a limit on its guide (the sample) and as a point-plane contact
  Mechanism limit = test::sampleMechanism("slider-crank-end-stop");
  Mechanism contact = limit;
  contact.limits.clear();
  contact.ground.points.push_back({"S", {Number::expr("x_stop"), Number(0)}});
  contact.ground.vectors.push_back({"back", {Number(-1), Number(0)}});
  Contact c;
  c.name = "stop";
  c.point = {"slider", "P"};
  c.planePoint = {"ground", "S"};
  c.planeNormal = {"ground", "back"};
  c.restitution = Number::expr("e");
  contact.contacts.push_back(c);
  const auto a = load(limit), b = load(contact);
  const auto ra = analysis::runSimulation(a->resolved, spec(analysis::Integrator::Trapezoidal, 2.0));
  const auto rb = analysis::runSimulation(b->resolved, spec(analysis::Integrator::Trapezoidal, 2.0));
  ASSERT_TRUE(ra.status.ok() && rb.status.ok()) << ra.status.message << rb.status.message;
  ASSERT_EQ(ra.events.size(), 3u);
  ASSERT_EQ(rb.events.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(ra.events[k].t, rb.events[k].t, 1e-10);
    EXPECT_NEAR(ra.events[k].normalAfter[0], rb.events[k].normalAfter[0], 1e-9);
  }
}

TEST(Impacts, BadLimitsAndSwitchesAreRefusedWithTheReason) {
  // each refusal names the item and says why (resolve, the single place that validates)
  auto problems = [](Mechanism m) {
    Diagnostics d;
    EXPECT_FALSE(resolve(m, d).has_value());
    std::string all;
    for (const auto& x : d) all += x.path + ": " + x.message + "\n";
    return all;
  };
  const Mechanism door = fromText(doorStop(-2.0, 0.5))->mechanism;
  Mechanism m = door;
  m.limits[0].joint = "nowhere";
  EXPECT_NE(problems(m).find("limits[0].joint: no joint named 'nowhere'"), std::string::npos) << problems(m);
  m = door;
  m.limits[0].hasMax = true;
  m.limits[0].max = -3;
  EXPECT_NE(problems(m).find("must be above the lower one"), std::string::npos) << problems(m);
  m = door;
  m.limits[0].restitution = 1.5;
  EXPECT_NE(problems(m).find("between 0 and 1"), std::string::npos) << problems(m);
  const Mechanism t4 = test::sampleMechanism("switch-t4");
  m = t4;
  m.switches[0].enable = {"nothing"};
  EXPECT_NE(problems(m).find("switches[0].enable[0]: no force named 'nothing'"), std::string::npos) << problems(m);
  m = t4;
  m.switches[0].disable = m.switches[0].enable;  // disable won, silently
  EXPECT_NE(problems(m).find("force 'after' is both enabled and disabled by the switch"), std::string::npos) << problems(m);
  m = t4;
  m.switches[0].joint = "O";
  EXPECT_NE(problems(m).find("give one of them"), std::string::npos) << problems(m);
}

// A switch remembers its side of its value. It used to be treated as a contact: the switch
// sample stopped at 0.588 s with "comes to rest" at its turning point 0.5 m past the value; a
// rising switch never crossed stopped at t = 0; an upward crossing located a hair short of the
// value fired again at once and took a step of 0 s.
TEST(Impacts, ASwitchFiresOnceAtItsCrossingAndWaitsBeyondIt) {
  const Mechanism t4 = test::sampleMechanism("switch-t4");
  auto param = [](Mechanism& m, const char* name, double v) {
    for (auto& p : m.parameters)
      if (p.name == name) p.value = Number(v);
  };
  Mechanism rising = t4;
  rising.switches[0].falling = false;
  Mechanism upward = rising;  // from y = 0 up at 5 m/s, through y = 0.5 rising
  param(upward, "y0", 0);
  param(upward, "v0", 5);
  param(upward, "a2", -20);
  upward.switches[0].value = Number(0.5);
  const double tUp = (5 - std::sqrt(25 - 2 * 9.81 * 0.5)) / 9.81;
  for (auto f : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty}) {
    for (auto integrator : {analysis::Integrator::Trapezoidal, analysis::Integrator::RK45}) {
      if (f == analysis::Formulation::Penalty && integrator == analysis::Integrator::RK45) continue;
      auto s = spec(integrator, 2.0);
      s.formulation = f;
      const char* name = f == analysis::Formulation::Penalty ? "penalty" : integrator == analysis::Integrator::RK45 ? "rk45" : "trapezoidal";
      const auto falling = load(t4);
      const auto r = analysis::runSimulation(falling->resolved, s);
      ASSERT_TRUE(r.status.ok()) << name << ": " << r.status.message;
      EXPECT_EQ(r.events.size(), 1u) << name;
      const auto never = load(rising);
      const auto n = analysis::runSimulation(never->resolved, s);
      ASSERT_TRUE(n.status.ok()) << name << ": " << n.status.message;
      EXPECT_TRUE(n.events.empty()) << name;
      const auto up = load(upward);
      const auto u = analysis::runSimulation(up->resolved, s);
      ASSERT_TRUE(u.status.ok()) << name << ": " << u.status.message;
      ASSERT_EQ(u.events.size(), 1u) << name;
      EXPECT_NEAR(u.events[0].t, tUp, 1e-9) << name;
    }
  }
}

TEST(Impacts, APointStartingInsideItsPlaneIsRefused) {
  const auto l = fromText(ball(0.8, 0.0));
  Mechanism m = l->mechanism;
  m.bodies[0].position = {Number(0), Number(-0.05)};
  // `check` warns already (it passed the file silently)
  const Diagnostics warned = validate(m);
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_EQ(warned[0].path, "contacts[0]");
  EXPECT_NE(warned[0].message.find("the point starts 0.05 m inside the plane in the stored configuration"), std::string::npos) << warned[0].message;
  const auto inside = load(m);
  const auto r = analysis::runSimulation(inside->resolved, spec(analysis::Integrator::Trapezoidal, 0.1));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message.find("contact 'floor': the point starts 0.05 m inside the plane"), std::string::npos) << r.status.message;
  // a joint assembled beyond its limit, and a limit on a joint without a single coordinate
  const auto beyond = fromText(doorStop(0.5, 0.5));
  const auto rb = analysis::runSimulation(beyond->resolved, spec(analysis::Integrator::Trapezoidal, 0.1));
  ASSERT_FALSE(rb.status.ok());
  EXPECT_NE(rb.status.message.find("limit 'stop (lower)': joint 'O' starts 0.5 beyond it"), std::string::npos) << rb.status.message;
  const Diagnostics beyondWarned = validate(beyond->mechanism);  // and `check` says so first
  ASSERT_EQ(beyondWarned.size(), 1u);
  EXPECT_NE(beyondWarned[0].message.find("joint 'O' starts 0.5 beyond the limit in the stored configuration"), std::string::npos)
      << beyondWarned[0].message;
  Mechanism five = test::sampleMechanism("five-bar");
  for (const auto& j : five.joints) {
    JointLimit lim;
    lim.name = "limit_" + j.name;
    lim.joint = j.name;
    lim.hasMax = true;
    lim.max = 100;
    five.limits.push_back(lim);
  }
  // every joint's, also those that close a loop (cut_joint_coordinate_test.cpp): far limits run
  const auto far = load(five);
  const auto rf = analysis::runSimulation(far->resolved, spec(analysis::Integrator::Trapezoidal, 0.1));
  EXPECT_TRUE(rf.status.ok()) << rf.status.message;
  // a limit or a switch on a joint without a single coordinate: resolve says so
  Mechanism spatial = test::sampleMechanism("spatial-four-bar");
  JointLimit cone;
  cone.name = "cone";
  cone.joint = "C";  // spherical
  cone.hasMax = true;
  cone.max = 1;
  spatial.limits.push_back(cone);
  Switch turn;
  turn.name = "turn";
  turn.joint = "B";  // universal
  turn.value = 0.5;
  spatial.switches.push_back(turn);
  Diagnostics d;
  EXPECT_FALSE(resolve(spatial, d));
  std::string all;
  for (const auto& x : d) all += x.format() + "\n";
  EXPECT_NE(all.find("a limit stops a joint of one coordinate (pin, revolute, slider, prismatic), not a spherical joint"), std::string::npos) << all;
  EXPECT_NE(all.find("a switch watches a joint of one coordinate (pin, revolute, slider, prismatic), not a universal joint"), std::string::npos) << all;
}

TEST(Impacts, AnImpactAndASwitchAtOnceAreBothTaken) {
  // the ball of T1 whose floor contact and a switch on its height cross zero together: the switch
  // turns on an upward thrust of 5 N, the impact reverses the velocity times e. Closed form: the
  // first impact at t1 = sqrt(2 y0 / g) with v- = g t1, v+ = e v-; then the ball flies under
  // g' = g - 5 and lands again (switch and impact again) at t1 + 2 v+ / g'
  const double g = 9.81, e = 0.8, t1 = std::sqrt(2.0 / g), gp = g - 5.0, t2 = t1 + 2 * e * g * t1 / gp;
  Mechanism m = fromText(ball(e))->mechanism;
  Force thrust;
  thrust.name = "thrust";
  thrust.type = Force::Type::PointForce;
  thrust.point = {"ball", "C"};
  thrust.value = {Number(0), Number(5)};
  m.forces.push_back(thrust);
  Switch cross;
  cross.name = "cross";
  cross.point = {"ball", "C"};
  cross.component = Component::Y;
  cross.value = Number(0);
  cross.enable = {"thrust"};
  m.switches.push_back(cross);
  const auto l = load(m);
  for (auto formulation : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty}) {
    analysis::SimulationSpec sp = spec(formulation == analysis::Formulation::Penalty ? analysis::Integrator::Trapezoidal : analysis::Integrator::RK45,
                                       std::ceil((t2 + 0.05) * 100) / 100, 1e-3);
    sp.formulation = formulation;
    const auto r = analysis::runSimulation(l->resolved, sp);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    ASSERT_EQ(r.events.size(), 4u);
    const double tol = formulation == analysis::Formulation::Penalty ? 1e-5 : 1e-9;
    for (int k = 0; k < 2; ++k) {
      const auto& sw = r.events[2 * static_cast<std::size_t>(k)];
      const auto& im = r.events[2 * static_cast<std::size_t>(k) + 1];
      EXPECT_EQ(sw.kind, "switch");
      EXPECT_EQ(im.kind, "impact");
      EXPECT_EQ(im.contacts, std::vector<std::string>{"floor"});
      EXPECT_EQ(sw.t, im.t);
      EXPECT_NEAR(im.t, k == 0 ? t1 : t2, tol * 10) << k;
      EXPECT_NEAR(im.normalAfter[0], -e * im.normalBefore[0], 1e-9 * std::abs(im.normalBefore[0])) << k;
    }
    EXPECT_NEAR(r.events[1].normalBefore[0], -g * t1, 1e-4);
  }
  // a sensitivity through the coincidence is refused with the reason (the T1 sample, its contact
  // and parameters, with the same switch and thrust)
  Mechanism t1m = test::sampleMechanism("bouncing-ball-t1");
  t1m.forces.push_back(thrust);
  t1m.switches.push_back(cross);
  sens::SensitivitySpec ss;
  ss.run.tEnd = 1.0;
  ss.run.dt = 1e-3;
  const auto sr = sens::runSensitivity(t1m, ss);
  ASSERT_FALSE(sr.status.ok());
  EXPECT_NE(sr.status.message.find("contact 'floor', switch 'cross' at the same time"), std::string::npos) << sr.status.message;
  EXPECT_NE(sr.status.message.find("the sensitivities through an impact and a switch"), std::string::npos) << sr.status.message;
}

}  // namespace
}  // namespace lw
