// Cost of the gradients against the forward run (issue 20's targets): for each model, the forward
// run alone, then the direct method, the adjoint (its default record), central differences (2p + 1
// runs) and the complex step, each for every cost and parameter of the file. Counters: seconds,
// the ratio to the forward run, parameters. Targets: adjoint ≤ 2× forward whatever p; direct ≤
// (1 + 0.1 p)×; both ≥ 10× faster than differences.
//   build/tests/bench/lw_bench_sensitivity [--benchmark_filter=ten-bar]
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <string>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "sensitivity/sensitivity.h"
#include "support/samples.h"

namespace {

using namespace lw;

struct Case {
  const char* sample;
  double tEnd, dt;
  analysis::Formulation formulation = analysis::Formulation::MatrixR;
  const char* label = "";
  sens::Partials partials = sens::Partials::AutomaticDifferentiation;
  sens::Analysis analysis = sens::Analysis::Dynamics;
  bool impacts = false;  // the file's contacts kept (the other cases run smooth, issue 20)
  bool everyForce = false;  // test::withEveryForce: an open chain's force elements through the τ kernels
};

Mechanism caseMechanism(const Case& c) {
  Mechanism m = c.impacts ? test::sampleMechanism(c.sample) : test::withoutContacts(test::sampleMechanism(c.sample));
  return c.everyForce ? test::withEveryForce(m) : m;
}
const Case kCases[] = {{"ten-bar-chain", 1.0, 1e-3},
                       // the chain with springs, dampers, forces and torques on it (issue 38: every
                       // force element in the open chains' state Jacobians)
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::MatrixR, "-forces", sens::Partials::AutomaticDifferentiation,
                        sens::Analysis::Dynamics, false, true},
                       {"five-bar", 1.0, 1e-3},
                       {"five-bar", 1.0, 1e-3, analysis::Formulation::Penalty, "-penalty"},
                       // issue 38's five-bar through its 10 impacts (5 s at 1 ms; target ≤ 1.5×)
                       {"five-bar", 5.0, 1e-3, analysis::Formulation::MatrixR, "-impacts", sens::Partials::AutomaticDifferentiation,
                        sens::Analysis::Dynamics, true},
                       // the global formulations (issue 39): parameter partials by AD, GSAM, LSAM
                       // (seed 003: GSAM-based DDM 1.18× the AD-based, LSAM 2.08×)
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::Index1, "-index1"},
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::Index1, "-index1-gsam", sens::Partials::GlobalSemiAnalytical},
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::Index1, "-index1-lsam", sens::Partials::LocalSemiAnalytical},
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::PenaltyGlobal, "-penalty-global"},
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::Index3, "-index3"},
                       {"ten-bar-chain", 1.0, 1e-3, analysis::Formulation::Index3, "-index3-gsam", sens::Partials::GlobalSemiAnalytical},
                       {"five-bar", 1.0, 1e-3, analysis::Formulation::Index1, "-index1"},
                       {"four-bar-path", 1.0, 1e-2},
                       {"buggy", 0.2, 1e-3},
                       {"grid-1x15-parameters", 0.5, 1e-2},
                       // a large model in the penalty formulation (45 coordinates, 75 rows, 18
                       // parameters): where the projections' derivatives on dual numbers dominated
                       {"grid-1x15-parameters", 0.05, 1e-3, analysis::Formulation::Penalty, "-penalty"},
                       // a fully driven mechanism's kinematic gradients (issue 38: 13 parameters over
                       // 100 positions, target 5 ms; the forward run the kinematics command's)
                       {"jansen-leg", 1.0, 1e-2, analysis::Formulation::MatrixR, "-kinematics", sens::Partials::AutomaticDifferentiation,
                        sens::Analysis::Kinematics}};

std::map<std::string, double>& forwardSeconds() {
  static std::map<std::string, double> s;
  return s;
}

void forward(benchmark::State& state, const Case& c) {
  const Mechanism m = caseMechanism(c);
  Diagnostics d;
  const auto r = resolve(m, d);
  analysis::SimulationSpec spec;
  spec.tEnd = c.tEnd;
  spec.dt = c.dt;
  spec.outputDt = c.tEnd;
  spec.formulation = c.formulation;
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    lw::Status status;
    if (c.analysis == sens::Analysis::Kinematics) {
      analysis::KinematicsSpec ks;
      ks.tEnd = c.tEnd;
      ks.dt = c.dt;
      status = analysis::runKinematics(*r, ks).status;
    } else {
      status = analysis::runSimulation(*r, spec).status;
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!status.ok()) state.SkipWithError(status.message.c_str());
  }
  forwardSeconds()[std::string(c.sample) + c.label] = seconds;
  state.counters["seconds"] = seconds;
}

void gradient(benchmark::State& state, const Case& c, sens::Method method) {
  const Mechanism m = caseMechanism(c);
  sens::SensitivitySpec spec;
  spec.method = method;
  spec.run.tEnd = c.tEnd;
  spec.run.dt = c.dt;
  spec.run.formulation = c.formulation;
  spec.partials = c.partials;
  spec.analysis = c.analysis;
  double seconds = 0;
  std::size_t parameters = 0;
  for (auto _ : state) {
    const auto res = sens::runSensitivity(m, spec);
    if (!res.status.ok()) {
      state.SkipWithError(res.status.message.c_str());
      return;
    }
    seconds = res.methods.front().seconds;
    parameters = res.parameters.size();
  }
  state.counters["seconds"] = seconds;
  state.counters["parameters"] = static_cast<double>(parameters);
  const auto f = forwardSeconds().find(std::string(c.sample) + c.label);
  if (f != forwardSeconds().end() && f->second > 0) state.counters["x_forward"] = seconds / f->second;
}

// The window's live gradients (issue 38, deliverable 7): what the Parameters panel computes for
// each design while a slider is dragged on a mechanism with dynamics — the first cost's gradient
// by the direct method over the file's own run, contacts and impacts kept (the five-bar: 5 s at
// 1 ms through its impacts). Target: ≥ 5 updates a second.
void live(benchmark::State& state, const char* sample) {
  const Mechanism m = test::sampleMechanism(sample);
  sens::SensitivitySpec spec;
  spec.costs = {m.costs.front().name};
  const RunSpan span = defaultSpan(m, false);
  spec.run.tEnd = span.tEnd;
  spec.run.dt = span.dt;
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = sens::runSensitivity(m, spec);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!res.status.ok()) state.SkipWithError(res.status.message.c_str());
  }
  state.counters["seconds"] = seconds;
  state.counters["updates_per_second"] = seconds > 0 ? 1 / seconds : 0;
}

const bool registered = [] {
  benchmark::RegisterBenchmark("live/five-bar", [](benchmark::State& s) { live(s, "five-bar"); })->Iterations(3)->Unit(benchmark::kMillisecond);
  for (const Case& c : kCases) {
    const std::string name = std::string(c.sample) + c.label;
    benchmark::RegisterBenchmark(("forward/" + name).c_str(), [c](benchmark::State& s) { forward(s, c); })->Iterations(1)->Unit(benchmark::kMillisecond);
    for (auto [label, method] : {std::pair{"ddm", sens::Method::Direct}, std::pair{"avm", sens::Method::Adjoint},
                                 std::pair{"fd", sens::Method::FiniteDifferences}, std::pair{"cs", sens::Method::ComplexStep}})
      benchmark::RegisterBenchmark((std::string(label) + "/" + name).c_str(), [c, method](benchmark::State& s) { gradient(s, c, method); })
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
