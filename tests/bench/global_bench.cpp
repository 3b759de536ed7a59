// The global formulations (issue 39) against Matrix R on the same planar models: time per step of
// the index-3 augmented Lagrangian (trapezoidal, 1 ms), of the index-1 and penalty formulations
// with RK45, and of Matrix R with each integrator. One iteration = 0.5 s of motion.
//   build/tests/bench/lw_bench_global [--benchmark_filter=ten-bar]
#include <benchmark/benchmark.h>

#include <chrono>

#include "dynamics/natural_dynamics.h"
#include "integrators/integrators.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace {

using namespace lw;

constexpr double kEnd = 0.5, kStep = 1e-3;

struct Planar {
  std::shared_ptr<const ResolvedMechanism> resolved;
  kin::NaturalModel model;
  dyn::NaturalInertia inertia;
};

Planar planar(const char* sample) {
  Diagnostics d;
  Planar p;
  p.resolved = std::make_shared<const ResolvedMechanism>(*resolve(test::sampleMechanism(sample), d));
  p.model = kin::compileNaturalModel(*p.resolved);
  std::string error;
  dyn::naturalInertia(p.model, p.inertia, error);
  return p;
}

void index3(benchmark::State& state, const char* sample) {
  const Planar p = planar(sample);
  long steps = 0;
  double seconds = 0;
  for (auto _ : state) {
    dyn::Index3State s;
    s.q = p.model.q0;
    s.qd = Eigen::VectorXd::Zero(p.model.nq);
    dyn::index3Start(p.model, p.inertia, {}, s);
    dyn::Index3Data d(p.model);
    const auto start = std::chrono::steady_clock::now();
    while (s.t < kEnd - kStep / 2) {
      if (!dyn::index3Step(p.model, p.inertia, {}, kStep, d, s).ok()) state.SkipWithError("index-3 step failed");
      ++steps;
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["us_per_step"] = 1e6 * seconds / static_cast<double>(steps);
  state.counters["nq"] = p.model.nq;
}

struct Ode final : integ::SecondOrderSystem {
  const Planar& p;
  bool penalty;
  dyn::GlobalOdeData d;
  Ode(const Planar& planar, bool usePenalty) : p(planar), penalty(usePenalty), d(planar.model) {}
  Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    if (penalty) return dyn::globalPenaltyAcceleration(p.model, p.inertia, {}, t, x, v, d, a);
    return dyn::index1Acceleration(p.model, p.inertia, {}, t, x, v, d, a);
  }
};

void ode(benchmark::State& state, const char* sample, bool penalty) {
  const Planar p = planar(sample);
  long steps = 0;
  double seconds = 0;
  for (auto _ : state) {
    Ode system(p, penalty);
    integ::State s;
    s.x = p.model.q0;
    s.v = Eigen::VectorXd::Zero(p.model.nq);
    system.acceleration(0, s.x, s.v, s.a);
    integ::DormandPrince rk(p.model.nq, {1e-8, 1e-10, 0});
    const auto start = std::chrono::steady_clock::now();
    if (!rk.advance(system, s, kEnd).ok()) state.SkipWithError("RK45 failed");
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    steps += rk.acceptedSteps;
  }
  state.counters["us_per_step"] = 1e6 * seconds / static_cast<double>(steps);
  state.counters["steps"] = static_cast<double>(steps) / static_cast<double>(state.iterations());
}

void matrixR(benchmark::State& state, const char* sample, analysis::Integrator integrator) {
  Diagnostics d;
  const auto r = resolve(test::sampleMechanism(sample), d);
  analysis::SimulationSpec spec;
  spec.integrator = integrator;
  spec.tEnd = kEnd;
  spec.dt = kStep;
  spec.tol = 1e-8;
  analysis::SimulationResult res;
  for (auto _ : state) res = analysis::runSimulation(*r, spec);
  state.counters["us_per_step"] = res.steps ? 1e6 * res.wallSeconds / static_cast<double>(res.steps) : 0;
  state.counters["steps"] = static_cast<double>(res.steps);
}

// whole runs (rows, outputs) by a formulation, with a reaction output on every joint's second
// body and an effort on every driver, or with none: what recording the reactions adds (issue 39:
// at most 10 %)
void reactions(benchmark::State& state, const char* sample, analysis::Formulation formulation, bool record) {
  Mechanism mech = test::withoutContacts(test::sampleMechanism(sample));
  mech.outputs.clear();
  mech.costs.clear();
  if (record) {
    for (const auto& j : mech.joints) {
      Output o;
      o.name = "R_" + j.name;
      o.type = Output::Type::JointReaction;
      o.joint = j.name;
      o.on = j.points[1].body;
      mech.outputs.push_back(o);
    }
    for (const auto& dr : mech.drivers) {
      Output o;
      o.name = "tau_" + dr.name;
      o.type = Output::Type::DriverEffort;
      o.driver = dr.name;
      mech.outputs.push_back(o);
    }
  }
  Diagnostics d;
  const auto r = resolve(mech, d);
  analysis::SimulationSpec spec;
  spec.formulation = formulation;
  spec.tEnd = kEnd;
  spec.dt = kStep;
  spec.mechanism = &mech;
  analysis::SimulationResult res;
  for (auto _ : state) res = analysis::runSimulation(*r, spec);
  if (!res.status.ok()) state.SkipWithError(res.status.message.c_str());
  state.counters["us_per_step"] = res.steps ? 1e6 * res.wallSeconds / static_cast<double>(res.steps) : 0;
  state.counters["columns"] = static_cast<double>(res.columns.size());
}

// the grids (spatial, redundant loops) by index-3 beside Matrix R, whole runs at 1 ms: the
// issue's target is grid 7x15 by index-3 faster than real time
void grid(benchmark::State& state, int columns, int rows, analysis::Formulation formulation) {
  const Mechanism mech = generate::grid(columns, rows);
  Diagnostics d;
  const auto r = resolve(mech, d);
  analysis::SimulationSpec spec;
  spec.formulation = formulation;
  // 0.25 s: long enough that the run's set-up (assembly, the start's accelerations, the sparse
  // pattern's analysis) stops weighing on the step's figure
  spec.tEnd = 0.25;
  spec.dt = 1e-3;
  analysis::SimulationResult res;
  for (auto _ : state) res = analysis::runSimulation(*r, spec);
  if (!res.status.ok()) state.SkipWithError(res.status.message.c_str());
  state.counters["ms_per_step"] = res.steps ? 1e3 * res.wallSeconds / static_cast<double>(res.steps) : 0;
  state.counters["real_time_factor"] = res.wallSeconds > 0 ? spec.tEnd / res.wallSeconds : 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (auto [columns, rows] : {std::pair{15, 1}, std::pair{15, 7}})
    for (auto f : {analysis::Formulation::MatrixR, analysis::Formulation::Index3})
      benchmark::RegisterBenchmark(("grid_" + std::to_string(rows) + "x" + std::to_string(columns) + "/" + analysis::toString(f)).c_str(), grid,
                                   columns, rows, f)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
  for (const char* sample : {"ten-bar-chain", "slider-crank", "five-bar"})
    for (auto f : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty, analysis::Formulation::Index3})
      for (bool record : {false, true})
        benchmark::RegisterBenchmark((std::string("run_") + analysis::toString(f) + (record ? "_reactions/" : "_plain/") + sample).c_str(),
                                     reactions, sample, f, record)
            ->Unit(benchmark::kMillisecond);
  for (const char* sample : {"ten-bar-chain", "five-bar", "double-pendulum-wall"}) {
    const std::string s = sample;
    benchmark::RegisterBenchmark(("index3_trapezoidal/" + s).c_str(), index3, sample)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("index1_rk45/" + s).c_str(), ode, sample, false)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("penalty_global_rk45/" + s).c_str(), ode, sample, true)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("matrix_r_trapezoidal/" + s).c_str(), matrixR, sample, analysis::Integrator::Trapezoidal)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("matrix_r_rk45/" + s).c_str(), matrixR, sample, analysis::Integrator::RK45)->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
