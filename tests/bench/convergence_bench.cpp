// Work–precision study (issue 19): for each model, formulation and integrator setting, one run of
// t_end and its error against an independent reference (the grids: their parallelogram branch as
// an open chain, support/reference_models.h; the smooth samples: RK45 at 1e-12). Counters: the
// error (largest coordinate of the tracked points at t_end, m), wall time, steps, evaluations.
//   build/tests/bench/lw_bench_convergence [--benchmark_filter=grid_1x15]
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simulation/simulation_run.h"
#include "mechanism/generators.h"
#include "support/reference_models.h"
#include "support/samples.h"

namespace {

using namespace lw;
using analysis::Formulation;
using analysis::Integrator;

struct Model {
  ResolvedMechanism mechanism;
  double tEnd;
  std::vector<std::string> points, referencePoints;
  std::string axes;
  analysis::SimulationResult reference;
};

ResolvedMechanism resolved(const Mechanism& m) {
  Diagnostics d;
  return *resolve(m, d);
}

analysis::SimulationResult simulate(const ResolvedMechanism& m, Formulation f, Integrator i, double dt, double tol, double tEnd) {
  analysis::SimulationSpec spec;
  spec.formulation = f;
  spec.integrator = i;
  spec.dt = dt;
  spec.tol = tol;
  spec.tEnd = tEnd;
  spec.outputDt = i == Integrator::RK45 ? tEnd : std::round(tEnd / dt) * dt;  // the first and last rows only
  return analysis::runSimulation(m, spec);
}

double lastValue(const analysis::SimulationResult& r, const std::string& column) {
  for (std::size_t c = 0; c < r.columns.size(); ++c)
    if (r.columns[c] == column) return r.values[(r.rows() - 1) * r.columns.size() + c];
  return NAN;
}

Model& model(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Model>> models;
  auto& slot = models[name];
  if (slot) return *slot;
  slot = std::make_unique<Model>();
  Model& m = *slot;
  if (name.rfind("grid_", 0) == 0) {
    const int columns = name == "grid_1x15" ? 1 : name == "grid_4x15" ? 4 : 7;
    m.mechanism = resolved(generate::grid(columns, 15));
    m.tEnd = 5;
    m.points = {"v_0_15.bottom", "v_0_8.bottom"};
    m.referencePoints = {"L15.bottom", "L8.bottom"};
    m.axes = "yz";
    m.reference = simulate(resolved(test::gridAsChain(columns, 15)), Formulation::MatrixR, Integrator::RK45, 0.1, 1e-12, m.tEnd);
  } else {
    m.mechanism = test::sampleResolved(name);
    m.tEnd = 1;
    m.points = m.referencePoints = name == "four-bar-free" ? std::vector<std::string>{"coupler.C", "crank.B"}
                                                            : std::vector<std::string>{"bar_10.B", "bar_5.B"};
    m.axes = name == "four-bar-free" ? "xz" : "xy";
    m.reference = simulate(m.mechanism, Formulation::MatrixR, Integrator::RK45, 0.1, 1e-12, m.tEnd);
  }
  return m;
}

// setting: the step (trapezoidal, penalty) or the tolerance (RK45)
void workPrecision(benchmark::State& state, const std::string& name, Formulation f, Integrator i, double setting) {
  Model& m = model(name);
  analysis::SimulationResult r;
  const double dt = i == Integrator::RK45 ? 0.01 : setting, tol = i == Integrator::RK45 ? setting : 1e-8;
  for (auto _ : state) {
    r = simulate(m.mechanism, f, i, dt, tol, m.tEnd);
    if (!r.status.ok()) state.SkipWithError(r.status.message.c_str());
  }
  double error = 0;
  for (std::size_t p = 0; p < m.points.size(); ++p)
    for (char k : m.axes)
      error = std::max(error, std::abs(lastValue(r, m.points[p] + "." + k) - lastValue(m.reference, m.referencePoints[p] + "." + k)));
  state.counters["error_m"] = error;
  state.counters["wall_s"] = r.wallSeconds;
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["rejected"] = static_cast<double>(r.rejectedSteps);
  state.counters["evaluations"] = static_cast<double>(r.evaluations);
}

std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void registerAll() {
  for (const std::string name : {"four-bar-free", "ten-bar-chain", "grid_1x15", "grid_4x15"}) {
    for (double h : {2e-3, 1e-3, 5e-4, 2.5e-4}) {
      benchmark::RegisterBenchmark((name + "/matrix-r/trapezoidal/h=" + shortNumber(h)).c_str(), workPrecision, name, Formulation::MatrixR,
                                   Integrator::Trapezoidal, h)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
      // the penalty formulation costs 20–30 times Matrix R per step on the grids: only its two
      // longest steps there
      if (name.rfind("grid_", 0) != 0 || h >= 1e-3)
        benchmark::RegisterBenchmark((name + "/penalty/trapezoidal/h=" + shortNumber(h)).c_str(), workPrecision, name, Formulation::Penalty,
                                     Integrator::Trapezoidal, h)
            ->Unit(benchmark::kMillisecond)
            ->Iterations(1);
    }
    for (double tol : {1e-5, 1e-6, 1e-7, 1e-8, 1e-9})
      benchmark::RegisterBenchmark((name + "/matrix-r/rk45/tol=" + shortNumber(tol)).c_str(), workPrecision, name, Formulation::MatrixR,
                                   Integrator::RK45, tol)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
