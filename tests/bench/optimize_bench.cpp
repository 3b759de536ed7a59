// Tuning (issue 22 target: the four-bar coupler-curve synthesis, a coupler point through five
// target points, converges in under 2 s from the sample's starting design). Reports the
// evaluations and the final cost beside the time.
#include <benchmark/benchmark.h>

#include "io/mechanism_io.h"
#include "optimize/optimize.h"

namespace {

void couplerCurveSynthesis(benchmark::State& state, lw::opt::Algorithm algorithm) {
  const auto loaded = lw::io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/four-bar-synthesis.json");
  if (!loaded.ok()) {
    state.SkipWithError("four-bar-synthesis.json does not load");
    return;
  }
  std::string error;
  lw::opt::OptimizeSpec spec = lw::opt::specFromStudy(*loaded.mechanism, error);
  spec.algorithm = algorithm;
  if (!lw::opt::usesGradient(algorithm)) spec.maxEvaluations = 400;
  lw::opt::OptimizeResult r;
  for (auto _ : state) r = lw::opt::optimize(*loaded.mechanism, spec);
  if (!r.status.ok()) state.SkipWithError(r.status.message.c_str());
  state.counters["evaluations"] = static_cast<double>(r.history.size());
  state.counters["initial_cost"] = r.initialCost;
  state.counters["final_cost"] = r.bestCost;
  state.counters["ms_per_evaluation"] = 1e3 * r.seconds / static_cast<double>(r.history.size());
}

}  // namespace

BENCHMARK_CAPTURE(couplerCurveSynthesis, slsqp, lw::opt::Algorithm::Slsqp)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(couplerCurveSynthesis, mma, lw::opt::Algorithm::Mma)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(couplerCurveSynthesis, cobyla, lw::opt::Algorithm::Cobyla)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
