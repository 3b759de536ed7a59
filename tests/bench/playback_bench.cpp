// The CPU side of one playback frame per sample: the scene frame from the stored poses, the traced
// paths copied in and the velocity arrows (what PlaybackPresenter::showRow does before VTK draws).
// Playback at 60 fps leaves 16.7 ms per frame for this plus rendering.
//   build/tests/bench/lw_bench_playback
#include <benchmark/benchmark.h>

#include <string>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "scene/scene_builder.h"

namespace {

using namespace lw;

void frames(benchmark::State& state, const std::string& name, bool dynamics) {
  auto loaded = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/" + name + ".json");
  if (!loaded.ok()) return state.SkipWithError("sample does not load");
  Diagnostics d;
  const auto m = resolve(*loaded.mechanism, d);
  std::vector<std::string> columns;
  std::vector<double> values, poses;
  if (dynamics) {
    analysis::SimulationSpec spec;
    spec.tEnd = 0.5;
    spec.dt = 0.005;
    auto r = analysis::runSimulation(*m, spec);
    columns = std::move(r.columns), values = std::move(r.values), poses = std::move(r.poses);
  } else {
    analysis::KinematicsSpec spec;
    spec.tEnd = 1;
    spec.dt = 0.01;
    auto r = analysis::runKinematics(*m, spec);
    columns = std::move(r.columns), values = std::move(r.values), poses = std::move(r.poses);
  }
  const std::size_t n = columns.size(), rows = n ? values.size() / n : 0, perRow = 12 * m->bodies.size();
  if (rows == 0 || poses.size() < rows * perRow) return state.SkipWithError("the run failed");
  const auto paths = scene::tracedPaths(*m, poses.data(), rows);
  const auto points = scene::pointVelocityColumns(columns);
  const double scale = scene::velocityArrowScale(points, values, n);
  std::size_t row = 0;
  for (auto _ : state) {
    scene::SceneFrame f = scene::frameFromPoses(*m, poses.data() + row * perRow, values[row * n]);
    f.paths = paths;
    f.arrows = scene::velocityArrows(points, values.data() + row * n, scale);
    benchmark::DoNotOptimize(f);
    row = (row + 1) % rows;
  }
  state.counters["bodies"] = static_cast<double>(m->bodies.size());
  state.counters["paths"] = static_cast<double>(paths.size());
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* s : {"four-bar", "slider-crank", "watt-six-bar", "stephenson-six-bar", "jansen-leg", "rssr"})
    benchmark::RegisterBenchmark((std::string("frame/kinematics/") + s).c_str(), frames, std::string(s), false)
        ->Unit(benchmark::kMicrosecond);
  for (const char* s : {"five-bar", "four-bar-free", "ten-bar-chain", "spatial-four-bar", "spatial-four-bar-swing", "grid-1x15"})
    benchmark::RegisterBenchmark((std::string("frame/dynamics/") + s).c_str(), frames, std::string(s), true)
        ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
