// Forward dynamics per sample, formulation and integrator: time per step and real-time factor
// (simulated seconds per wall second). One benchmark iteration = one simulation of t_end.
//   build/tests/bench/lw_bench_dynamics [--benchmark_filter=grid]
#include <benchmark/benchmark.h>

#include <string>

#include "analysis/simulation_run.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"

namespace {

using namespace lw;

void simulate(benchmark::State& state, const Mechanism& mech, analysis::Integrator integ, double tEnd, double dt,
              analysis::Formulation formulation = analysis::Formulation::MatrixR,
              dyn::TangentMethod tangent = dyn::TangentMethod::SparseAD) {
  Diagnostics d;
  const auto res = resolve(mech, d);
  analysis::SimulationSpec spec;
  spec.formulation = formulation;
  spec.tangent = tangent;
  spec.integrator = integ;
  spec.tEnd = tEnd;
  spec.dt = dt;
  spec.tol = 1e-8;
  analysis::SimulationResult r;
  for (auto _ : state) {
    r = analysis::runSimulation(*res, spec);
    if (!r.status.ok()) state.SkipWithError(r.status.message.c_str());
  }
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["us_per_step"] = r.steps ? 1e6 * r.wallSeconds / static_cast<double>(r.steps) : 0;
  state.counters["real_time_factor"] = r.wallSeconds > 0 ? tEnd / r.wallSeconds : 0;
  state.counters["evaluations"] = static_cast<double>(r.evaluations);
  state.counters["tangents"] = static_cast<double>(r.tangents);
  state.counters["dof_switches"] = r.dofSwitches;
}

Mechanism sample(const std::string& name) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/" + name + ".json");
  if (!r.ok()) std::abort();
  return *r.mechanism;
}

}  // namespace

int main(int argc, char** argv) {
  const std::pair<std::string, double> samples[] = {
      {"five-bar", 1.0}, {"four-bar-free", 1.0}, {"spatial-four-bar", 1.0}, {"spatial-four-bar-swing", 1.0},
      {"ten-bar-chain", 1.0}, {"rssr", 1.0}, {"grid-1x15", 0.5}};
  for (const auto& [name, tEnd] : samples) {
    const Mechanism m = sample(name);
    benchmark::RegisterBenchmark(("MatrixR/trapezoidal/" + name).c_str(), [m, tEnd = tEnd](benchmark::State& s) {
      simulate(s, m, analysis::Integrator::Trapezoidal, tEnd, 1e-3);
    })->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("MatrixR/rk45/" + name).c_str(), [m, tEnd = tEnd](benchmark::State& s) {
      simulate(s, m, analysis::Integrator::RK45, tEnd, 1e-2);
    })->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (int cols : {4, 7}) {
    const Mechanism m = generate::grid(cols, 15);
    benchmark::RegisterBenchmark(("MatrixR/trapezoidal/grid-" + std::to_string(cols) + "x15").c_str(),
                                 [m](benchmark::State& s) { simulate(s, m, analysis::Integrator::Trapezoidal, 0.1, 1e-3); })
        ->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  // the penalty formulation (seed 004), trapezoidal h = 1 ms, with each tangent
  for (const auto& [name, tEnd] : samples) {
    const Mechanism m = sample(name);
    benchmark::RegisterBenchmark(("Penalty/sparse-ad/" + name).c_str(), [m, tEnd = tEnd](benchmark::State& s) {
      simulate(s, m, analysis::Integrator::Trapezoidal, tEnd, 1e-3, analysis::Formulation::Penalty);
    })->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (int cols : {1, 4, 7}) {
    const Mechanism m = generate::grid(cols, 15);
    for (auto t : {dyn::TangentMethod::CentralDifferences, dyn::TangentMethod::DenseAD, dyn::TangentMethod::SparseAD})
      benchmark::RegisterBenchmark(("Penalty/" + std::string(dyn::tangentMethodName(t)) + "/grid-" + std::to_string(cols) + "x15").c_str(),
                                   [m, t](benchmark::State& s) {
                                     simulate(s, m, analysis::Integrator::Trapezoidal, 0.1, 1e-3, analysis::Formulation::Penalty, t);
                                   })
          ->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
