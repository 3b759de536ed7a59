// Impacts (issue 21): what watching contacts adds to a run without impacts (target: at most 5 %),
// what each located impact costs (evaluations beyond the same run without its contacts; target: a
// few steps' worth), and the gradients through the five-bar's 10 impacts in 5 s against the
// forward run (targets: direct (1 + 0.1 p)×, adjoint 2×).
//   build/tests/bench/lw_bench_events
#include <benchmark/benchmark.h>

#include <chrono>

#include "simulation/simulation_run.h"
#include "sensitivity/sensitivity.h"
#include "support/samples.h"

namespace {

using namespace lw;

analysis::SimulationResult run(const ResolvedMechanism& m, analysis::Integrator integrator, double tEnd) {
  analysis::SimulationSpec spec;
  spec.integrator = integrator;
  spec.tEnd = tEnd;
  spec.dt = 1e-3;
  spec.tol = 1e-10;
  return analysis::runSimulation(m, spec);
}

// the five-bar's first 0.25 s (its first impact is at 0.28 s) with its contact watched, or without
void watching(benchmark::State& state, bool contacts, analysis::Integrator integrator) {
  Diagnostics d;
  Mechanism mech = test::sampleMechanism("five-bar");
  if (!contacts) mech.contacts.clear();
  const auto m = resolve(mech, d);
  analysis::SimulationResult r;
  for (auto _ : state) r = run(*m, integrator, 0.25);
  if (!r.events.empty()) state.SkipWithError("an impact in the window");
  state.counters["us_per_step"] = 1e6 * r.wallSeconds / static_cast<double>(r.steps);
  state.counters["evaluations"] = static_cast<double>(r.evaluations);
}

// a run's evaluations with its impacts less those of the same steps without contacts, per impact
void perImpact(benchmark::State& state, const std::string& sample, double tEnd, analysis::Integrator integrator) {
  Diagnostics d;
  const Mechanism with = test::sampleMechanism(sample);
  const auto a = resolve(with, d), b = resolve(test::withoutContacts(with), d);
  analysis::SimulationResult r, plain;
  for (auto _ : state) r = run(*a, integrator, tEnd);
  plain = run(*b, integrator, tEnd);
  const double impacts = static_cast<double>(r.events.size());
  state.counters["impacts"] = impacts;
  state.counters["evaluations_per_impact"] = impacts > 0 ? static_cast<double>(r.evaluations - plain.evaluations) / impacts : 0;
  state.counters["evaluations_per_step"] = static_cast<double>(plain.evaluations) / static_cast<double>(plain.steps);
  state.counters["ms"] = 1e3 * r.wallSeconds;
}

// a gradient through the five-bar's 10 impacts, against its forward run
void gradient(benchmark::State& state, sens::Method method, analysis::Integrator integrator) {
  const Mechanism m = test::sampleMechanism("five-bar");
  sens::SensitivitySpec spec;
  spec.method = method;
  spec.run.tEnd = 5;
  spec.run.dt = 1e-3;
  spec.run.tol = 1e-10;
  spec.run.integrator = integrator;
  sens::SensitivityResult r;
  for (auto _ : state) r = sens::runSensitivity(m, spec);
  if (!r.status.ok()) state.SkipWithError(r.status.message.c_str());
  Diagnostics d;
  const auto res = resolve(m, d);
  const auto forward = run(*res, integrator, 5);
  state.counters["impacts"] = static_cast<double>(r.impacts.size());
  state.counters["parameters"] = static_cast<double>(r.parameters.size());
  state.counters["seconds"] = r.methods.front().seconds;
  state.counters["forward_seconds"] = forward.wallSeconds;
  state.counters["times_forward"] = r.methods.front().seconds / forward.wallSeconds;
}

}  // namespace

int main(int argc, char** argv) {
  for (auto integrator : {analysis::Integrator::Trapezoidal, analysis::Integrator::RK45}) {
    const std::string in = integrator == analysis::Integrator::RK45 ? "rk45" : "trapezoidal";
    for (bool contacts : {false, true})
      benchmark::RegisterBenchmark(("Watching/" + in + "/five-bar-0.25s/" + (contacts ? "contact" : "none")).c_str(),
                                   [=](benchmark::State& s) { watching(s, contacts, integrator); })
          ->MinTime(2)->Unit(benchmark::kMillisecond);
    for (const auto& [sample, tEnd] : {std::pair<std::string, double>{"five-bar", 5.0}, {"bouncing-ball", 3.0}})
      benchmark::RegisterBenchmark(("PerImpact/" + in + "/" + sample).c_str(),
                                   [=](benchmark::State& s) { perImpact(s, sample, tEnd, integrator); })
          ->Iterations(1)->Unit(benchmark::kMillisecond);
    for (auto method : {sens::Method::Direct, sens::Method::Adjoint})
      benchmark::RegisterBenchmark(("Gradient/" + in + "/five-bar-5s/" + sens::toString(method)).c_str(),
                                   [=](benchmark::State& s) { gradient(s, method, integrator); })
          ->Iterations(1)->Unit(benchmark::kSecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
