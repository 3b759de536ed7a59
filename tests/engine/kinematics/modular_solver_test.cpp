// Modular kinematics (structural groups) against the global solver on every driven mechanism,
// TD against 3OT, closed forms chosen where they apply, assembly modes kept along the motion.
#include "kinematics/modular_solver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "simulation/kinematics_run.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::kin {
namespace {

struct Setup {
  Mechanism mechanism;
  ResolvedMechanism resolved;
  NaturalModel natural;
  std::unique_ptr<GlobalData> global;
  ModularModel modular;
};

std::unique_ptr<Setup> setUp(const Mechanism& m) {
  auto s = std::make_unique<Setup>();
  s->mechanism = m;
  Diagnostics d;
  s->resolved = *resolve(s->mechanism, d);
  s->natural = compileNaturalModel(s->resolved);
  s->global = std::make_unique<GlobalData>(s->natural);
  const Status a = assemble(s->natural, *s->global, 0);
  if (!a.ok()) throw std::runtime_error(a.message);
  s->modular = compileModularModel(s->natural, kin::decompose(s->natural), s->global->q);
  return s;
}

Mechanism sample(const std::string& name) { return test::sampleMechanism(name); }

// relative agreement of two state vectors
double relDiff(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

void compareWithGlobal(const std::string& label, const Mechanism& mech, int steps, double dt) {
  const auto s = setUp(mech);
  ASSERT_TRUE(s->modular.ok()) << label << ": " << s->modular.error;
  for (auto method : {AccelerationMethod::TD, AccelerationMethod::ThirdOrderTensor}) {
    GlobalData g(s->natural);
    ASSERT_TRUE(assemble(s->natural, g, 0).ok());
    ModularData md(s->modular);
    md.acceleration = method;
    startModular(s->modular, md, g.q, g.qd, g.qdd, 0);
    for (int k = 1; k <= steps; ++k) {
      const double t = k * dt;
      const Status gs = solveStep(s->natural, g, t), ms = modularStep(s->modular, md, t);
      ASSERT_TRUE(gs.ok()) << label << ": " << gs.message;
      ASSERT_TRUE(ms.ok()) << label << ": " << ms.message;
      ASSERT_LT(relDiff(md.q, g.q), 1e-10) << label << " positions at t = " << t;
      ASSERT_LT(relDiff(md.qd, g.qd), 1e-10) << label << " velocities at t = " << t;
      ASSERT_LT(relDiff(md.qdd, g.qdd), 1e-10) << label << " accelerations at t = " << t;
    }
  }
}

TEST(ModularKinematics, AgreesWithGlobalOnEveryDrivenSample) {
  int driven = 0;
  for (const auto& e : std::filesystem::directory_iterator(LW_SAMPLES_DIR)) {
    if (e.path().extension() != ".json") continue;
    const Mechanism m = sample(e.path().stem().string());
    if (m.drivers.empty()) continue;
    ++driven;
    compareWithGlobal(e.path().stem().string(), m, 60, m.analysis.dt > 0 ? m.analysis.dt : 0.01);
  }
  EXPECT_GE(driven, 6);
}

TEST(ModularKinematics, AgreesWithGlobalOnTheScalableBenchmarks) {
  compareWithGlobal("four-bar chain", generate::fourBarChain(10), 72, 0.005);  // 10° steps
  compareWithGlobal("crank-slider 3D", generate::crankSlider3d(3), 72, 0.005);
}

TEST(ModularKinematics, ClosedFormsAreUsedForCranksAndDyads) {
  auto solvers = [](const std::string& name) {
    const auto s = setUp(sample(name));
    std::vector<GroupSolver> out;
    for (const auto& g : s->modular.groups) out.push_back(g.solver);
    return out;
  };
  EXPECT_EQ(solvers("four-bar"), (std::vector<GroupSolver>{GroupSolver::Crank2D, GroupSolver::RRRDyad}));
  EXPECT_EQ(solvers("slider-crank"), (std::vector<GroupSolver>{GroupSolver::Crank2D, GroupSolver::RRPDyad}));
  EXPECT_EQ(solvers("watt-six-bar"),
            (std::vector<GroupSolver>{GroupSolver::Crank2D, GroupSolver::RRRDyad, GroupSolver::RRRDyad}));
  EXPECT_EQ(solvers("stephenson-six-bar")[1], GroupSolver::Generic);  // the triad: Newton–Raphson
}

TEST(ModularKinematics, KeepsTheAssemblyModeOverManyTurns) {
  // the four-bar mirrored (coupler below the ground line): it must stay below, never flip
  Mechanism m = sample("four-bar");
  for (auto& b : m.bodies) {
    b.angle.value = -b.angle.value;
    if (!b.position.empty()) b.position[1].value = -b.position[1].value;
  }
  const auto s = setUp(m);
  ASSERT_TRUE(s->modular.ok());
  ModularData md(s->modular);
  startModular(s->modular, md, s->global->q, s->global->qd, s->global->qdd, 0);
  const int rocker = s->resolved.findBody("rocker");
  for (int k = 1; k <= 300; ++k) {  // three turns in 12° steps
    ASSERT_TRUE(modularStep(s->modular, md, k / 30.0).ok());
    Eigen::Vector3d C;
    pointKinematics(s->natural, rocker, 1, md.q, md.qd, md.qdd, &C, nullptr, nullptr);
    ASSERT_LT(C.y(), 0) << "flipped to the mirror assembly at step " << k;
  }
  // the global solver keeps it too (its predictor starts every Newton solve on the branch)
  GlobalData g(s->natural);
  ASSERT_TRUE(assemble(s->natural, g, 0).ok());
  for (int k = 1; k <= 300; ++k) {
    ASSERT_TRUE(solveStep(s->natural, g, k / 30.0).ok());
    Eigen::Vector3d C;
    pointKinematics(s->natural, rocker, 1, g.q, g.qd, g.qdd, &C, nullptr, nullptr);
    ASSERT_LT(C.y(), 0) << "global: flipped to the mirror assembly at step " << k;
  }
}

TEST(ModularKinematics, ADyadThatCannotCloseIsReportedWithGroupAndTime) {
  // lengthen the crank of the four-bar until the dyad cannot reach at some angle
  Mechanism m = sample("four-bar");
  m.bodies[0].points[1].value[0] = 2.6;
  const auto s = setUp(m);
  ASSERT_TRUE(s->modular.ok()) << s->modular.error;
  ModularData md(s->modular);
  startModular(s->modular, md, s->global->q, s->global->qd, s->global->qdd, 0);
  Status st;
  for (int k = 1; k <= 100 && st.ok(); ++k) st = modularStep(s->modular, md, k * 0.01);
  ASSERT_FALSE(st.ok());
  EXPECT_GT(st.time, 0);
  EXPECT_NE(st.message.find("in group {coupler, rocker} (RRR dyad)"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("cannot close at t = "), std::string::npos) << st.message;
}

TEST(KinematicsRun, EachBodyKeepsItsOwnShapeWhenTheDrawingIsNotAssembled) {
  // the rocker's C drawn 0.2 m short of the coupler's C: the rocker is 2.8 m long, whatever the
  // coupler's drawing says (the merged joint point once took the coupler's position and the
  // rocker silently became 3 m long)
  Mechanism m = sample("four-bar");
  ASSERT_EQ(m.bodies[2].name, "rocker");
  m.bodies[2].points[1].value[0] = 2.8;
  Diagnostics d;
  const auto res = resolve(m, d);
  ASSERT_TRUE(res);
  for (const auto method : {analysis::KinematicsMethod::ModularTD, analysis::KinematicsMethod::GlobalSparse}) {
    analysis::KinematicsSpec spec;
    spec.method = method;
    spec.tEnd = 1.0;
    spec.dt = 0.05;
    const auto r = analysis::runKinematics(*res, spec);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    auto col = [&](const std::string& name) {
      return static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), name) - r.columns.begin());
    };
    const std::size_t n = r.columns.size();
    for (std::size_t i = 0; i < r.steps(); ++i) {
      auto at = [&](const std::string& p) {
        return Eigen::Vector2d(r.values[i * n + col(p + ".x")], r.values[i * n + col(p + ".y")]);
      };
      EXPECT_NEAR((at("coupler.C") - at("rocker.C")).norm(), 0, 1e-9) << "joint C open at row " << i;
      EXPECT_NEAR((at("rocker.C") - at("rocker.D")).norm(), 2.8, 1e-9) << "row " << i;
      EXPECT_NEAR((at("coupler.C") - at("coupler.B")).norm(), 3.5, 1e-9) << "row " << i;
      EXPECT_NEAR((at("crank.B") - at("crank.A")).norm(), 1.0, 1e-9) << "row " << i;
    }
  }
}

TEST(KinematicsRun, CsvHeaderAndFirstRow) {
  Diagnostics d;
  const Mechanism m = sample("slider-crank");
  const auto res = resolve(m, d);
  analysis::KinematicsSpec spec;
  spec.tEnd = 0.1;
  spec.dt = 0.05;
  const auto r = analysis::runKinematics(*res, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.steps(), 3u);
  const std::string csv = analysis::toCsv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "time,crank.O.x,crank.O.y,crank.B.x,crank.B.y,rod.B.x,rod.B.y,rod.C.x,rod.C.y,slider.P.x,slider.P.y,"
            "crank.O.vx,crank.O.vy,crank.B.vx,crank.B.vy,rod.B.vx,rod.B.vy,rod.C.vx,rod.C.vy,slider.P.vx,slider.P.vy,"
            "crank.O.ax,crank.O.ay,crank.B.ax,crank.B.ay,rod.B.ax,rod.B.ay,rod.C.ax,rod.C.ay,slider.P.ax,slider.P.ay");
  EXPECT_EQ(r.decomposition, "{crank} {rod, slider}");
}

}  // namespace
}  // namespace lw::kin

namespace lw::kin {
namespace {

TEST(KinematicsRun, CancelAndProgress) {
  Diagnostics d;
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/four-bar.json");
  const auto res = resolve(*r.mechanism, d);
  analysis::KinematicsSpec spec;
  spec.tEnd = 10;
  spec.dt = 0.001;
  std::atomic<bool> cancel{false};
  double last = -1;
  int calls = 0;
  const auto result = analysis::runKinematics(*res, spec, [&](double f) {
    EXPECT_GE(f, last);
    last = f;
    if (++calls == 3) cancel = true;  // a user pressing Stop
  }, &cancel);
  EXPECT_EQ(result.status.code, Status::Code::Cancelled);
  EXPECT_LT(result.steps(), 10001u);
  EXPECT_GT(result.steps(), 0u);
}

}  // namespace
}  // namespace lw::kin
