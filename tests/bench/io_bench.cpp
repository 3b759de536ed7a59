// Loading cost: parse + validate + evaluate, for a sample and for large generated chains (the
// editor reloads on every structural edit, so this must stay far below a frame).
#include <benchmark/benchmark.h>

#include "simulation/kinematics_run.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "mechanism/resolved.h"

namespace {

void BM_LoadFiveBar(benchmark::State& state) {
  std::string text, err;
  lw::io::readFile(std::string(LW_SAMPLES_DIR) + "/five-bar.json", text, err);
  for (auto _ : state) benchmark::DoNotOptimize(lw::io::loadMechanismFromString(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_LoadFiveBar);

void BM_LoadFourBarChain(benchmark::State& state) {
  const std::string text = lw::io::mechanismToString(lw::generate::fourBarChain(static_cast<int>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(lw::io::loadMechanismFromString(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_LoadFourBarChain)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_ResolveFourBarChain(benchmark::State& state) {
  const lw::Mechanism m = lw::generate::fourBarChain(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    lw::Diagnostics d;
    benchmark::DoNotOptimize(lw::resolve(m, d));
  }
}
BENCHMARK(BM_ResolveFourBarChain)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// What `linkwright-cli check` does: load (parse, validate, resolve), then the mobility and the
// over-driven test (the sparse rank of Φ_q). Targets (issue 37): 10 000 dyads under 5 s, 100 000
// under a minute (a dense QR took 136 s at 2 000 and ran out of memory at 10 000).
void BM_CheckFourBarChain(benchmark::State& state) {
  const std::string text = lw::io::mechanismToString(lw::generate::fourBarChain(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    const auto r = lw::io::loadMechanismFromString(text);
    lw::Diagnostics d;
    const auto res = lw::resolve(*r.mechanism, d);
    benchmark::DoNotOptimize(lw::analysis::overDriven(*res));
  }
}
BENCHMARK(BM_CheckFourBarChain)->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
