// Playback with rendering (issue 5 target: 60 fps for every sample): one frame = the scene frame
// from the stored poses with traced paths, handed to the real main window's 3D view, then rendered
// and read back (grabImage: an upper bound on what the screen needs). Needs a display: run it
// through scripts/with-display.sh, which uses Xvfb (Mesa's software renderer, llvmpipe) when there
// is none; a GPU is faster.
//   scripts/with-display.sh build/tests/bench/lw_bench_playback_render
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QDir>
#include <QTest>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "main_window.h"
#include "scene/scene_builder.h"
#include "view3d/scene_view.h"
#include "view3d/vtk_host_widget.h"

namespace {

using namespace lw;

void playback(benchmark::State& state, const std::string& name) {
  lw::app::MainWindow w;
  w.resize(1400, 900);
  if (!w.openFile(QString(LW_SAMPLES_DIR) + "/" + QString::fromStdString(name) + ".json", false)) return state.SkipWithError("no sample");
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return state.SkipWithError("no window");
  Diagnostics d;
  const auto m = resolve(*w.mechanism(), d);
  std::vector<double> poses, times;
  const bool driven = !m->drivers.empty();
  if (driven) {
    analysis::KinematicsSpec spec;
    spec.tEnd = 1, spec.dt = 0.01;
    const auto r = analysis::runKinematics(*m, spec);
    poses = r.poses;
    for (std::size_t i = 0; i < r.steps(); ++i) times.push_back(r.values[i * r.columns.size()]);
  } else {
    analysis::SimulationSpec spec;
    spec.tEnd = 1, spec.dt = 0.01;
    const auto r = analysis::runSimulation(*m, spec);
    poses = r.poses;
    for (std::size_t i = 0; i < r.rows(); ++i) times.push_back(r.values[i * r.columns.size()]);
  }
  const std::size_t perRow = 12 * m->bodies.size(), rows = times.size();
  if (rows == 0) return state.SkipWithError("the run failed");
  const auto paths = scene::tracedPaths(*m, poses.data(), rows);
  std::size_t row = 0;
  w.sceneView()->setAnimating(true);  // as the playback bar does while playing
  for (auto _ : state) {
    scene::SceneFrame f = scene::frameFromPoses(*m, poses.data() + row * perRow, times[row]);
    f.paths = paths;
    w.sceneView()->showFrame(f);
    benchmark::DoNotOptimize(w.sceneView()->grabImage());
    row = (row + 1) % rows;
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["msaa_samples"] = w.sceneView()->multiSamples();
  state.counters["software_gl"] = w.sceneView()->softwareRenderer() ? 1 : 0;
}

// Opening a mechanism of 10⁴ bodies (issue 37 target: grid 100 × 100 within 10 s and 2 GB): the
// file read, the window filled, shown and its 3D view drawn once (grabImage), then closed; the
// process's peak resident memory as a counter. The time is to the view drawn (the structure's
// analysis goes on on its worker, which closing the window then waits for). One iteration.
void openLarge(benchmark::State& state, int columns, int rows) {
  const std::string file = QDir::temp().filePath(QString("lw-bench-grid-%1x%2.json").arg(columns).arg(rows)).toStdString();
  std::string error;
  if (!io::saveMechanismFile(generate::grid(columns, rows), file, error)) return state.SkipWithError(error.c_str());
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    lw::app::MainWindow w;
    w.resize(1280, 800);
    if (!w.openFile(QString::fromStdString(file), false)) return state.SkipWithError("not opened");
    const auto opened = std::chrono::steady_clock::now();
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return state.SkipWithError("no window");
    const auto shown = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(w.sceneView()->grabImage());
    state.counters["opened_s"] = std::chrono::duration<double>(opened - start).count();
    state.counters["shown_s"] = std::chrono::duration<double>(shown - start).count();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.counters["parts"] = static_cast<double>(2 * columns * rows + columns + rows + 3 * columns * rows + columns + rows);
  std::remove(file.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  lw::widgets::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  for (const char* s : {"four-bar", "slider-crank", "watt-six-bar", "stephenson-six-bar", "jansen-leg", "five-bar", "four-bar-free",
                        "spatial-four-bar", "spatial-four-bar-swing", "rssr", "ten-bar-chain", "buggy", "bouncing-ball", "grid-1x15"})
    benchmark::RegisterBenchmark((std::string("PlaybackRender/") + s).c_str(), playback, std::string(s))
        ->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();
  benchmark::RegisterBenchmark("WindowOpen/grid-100x100", openLarge, 100, 100)->Unit(benchmark::kSecond)->Iterations(1)->UseManualTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
