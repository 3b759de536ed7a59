// Sweeps on every core (issue 40's target): 200 five-bar variants with their gradients (the
// direct method, 1 s of its impacts each), on 1 job and on 2; the counter "speedup" is one job's
// time over this run's (target on this 2-core machine: 2 jobs ≥ 1.8×).
//   build/tests/bench/lw_bench_sweep
#include <benchmark/benchmark.h>

#include <chrono>

#include "mechanism/resolved.h"
#include "support/samples.h"
#include "sweep/sweep.h"

namespace {

using namespace lw;

double& oneJobSeconds() {
  static double s = 0;
  return s;
}

void fiveBarSweep(benchmark::State& state) {
  const Mechanism m = test::sampleMechanism("five-bar");
  const sweep::Design d = sweep::fullFactorial({{"L_s1", sweep::evenlySpaced(2.0, 2.4, 20)}, {"m_A1", sweep::evenlySpaced(0.8, 1.2, 10)}});
  sweep::SweepSpec spec;
  spec.study.run.tEnd = 1;
  spec.study.run.dt = 1e-3;
  spec.gradients = true;
  spec.jobs = static_cast<int>(state.range(0));
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = sweep::runSweep(m, d, spec);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.status.ok()) state.SkipWithError(r.status.message.c_str());
    state.counters["failed"] = static_cast<double>(r.failed());
  }
  if (spec.jobs == 1) oneJobSeconds() = seconds;
  state.counters["seconds"] = seconds;
  state.counters["variants"] = static_cast<double>(d.count());
  if (oneJobSeconds() > 0) state.counters["speedup"] = oneJobSeconds() / seconds;
}
BENCHMARK(fiveBarSweep)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
