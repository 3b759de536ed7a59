// Dragging in the sketch view (issue 5 target: a 100-dyad chain at 60 frames per second or better):
// one mouse move = solve + redraw. "Turn" drags the driven link (modular solve, scene rebuilt,
// viewport painted into an image); "Stretch" drags a ground pivot (the geometry changes: resolve,
// structural analysis, coupler curves, scene rebuilt, painted). Runs on Qt's offscreen platform,
// so it measures the CPU side (QPainter raster), not a GPU.
//   QT_QPA_PLATFORM=offscreen build/tests/bench/lw_bench_sketch
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <cmath>

#include "mechanism/generators.h"
#include "sketch/sketch_view.h"

namespace {

using namespace lw;

struct Setup {
  widgets::SketchView view;
  Mechanism mech;
  Setup(int dyads) : mech(generate::fourBarChain(dyads)) {
    Diagnostics d;
    auto r = resolve(mech, d);
    view.resize(1280, 800);
    view.show();
    view.setMechanism(mech, std::make_shared<const ResolvedMechanism>(std::move(*r)));
    view.fit();
  }
  void send(QEvent::Type type, double x, double y) {
    const QPoint p = view.mapFromScene(view.toScene(x, y));
    QMouseEvent e(type, p, view.viewport()->mapToGlobal(p), type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton,
                  type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &e);
  }
  void paint(QImage& img) {
    QPainter p(&img);
    view.render(&p);
  }
};

// the crank of the chain: A = (0, 0), length 2, stored along +y (generators.cpp); grab its middle
void turn(benchmark::State& state, bool paint) {
  Setup s(static_cast<int>(state.range(0)));
  // zoomed on the crank (2 m) so the mouse can take it, as a user would
  s.view.resetTransform();
  s.view.scale(60, 60);
  s.view.centerOn(s.view.toScene(3, 2));
  QImage img(s.view.size(), QImage::Format_ARGB32_Premultiplied);
  s.send(QEvent::MouseButtonPress, 0.0, 1.0);
  double angle = std::acos(0.0);
  for (auto _ : state) {
    angle += 0.02;
    s.send(QEvent::MouseMove, std::cos(angle), std::sin(angle));
    if (paint) s.paint(img);
  }
  s.send(QEvent::MouseButtonRelease, std::cos(angle), std::sin(angle));
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["summary_ok"] = s.view.summary().startsWith("1 DOF") ? 1 : 0;
}

// painting the view alone (the scene as it stands)
void paintOnly(benchmark::State& state) {
  Setup s(static_cast<int>(state.range(0)));
  QImage img(s.view.size(), QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) s.paint(img);
}

// drag the crank's ground pivot a little: every move re-resolves and re-analyses the sketch
void stretch(benchmark::State& state) {
  Setup s(static_cast<int>(state.range(0)));
  QImage img(s.view.size(), QImage::Format_ARGB32_Premultiplied);
  s.send(QEvent::MouseButtonPress, 0.0, 0.0);
  double x = 0;
  int k = 0;
  for (auto _ : state) {
    x = 0.05 * std::sin(0.3 * ++k);
    s.send(QEvent::MouseMove, x, 0.0);
    s.paint(img);
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  benchmark::RegisterBenchmark("SketchDrag/Turn/dyads", turn, true)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("SketchDrag/TurnWithoutPaint/dyads", turn, false)->Arg(100)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("SketchDrag/PaintOnly/dyads", paintOnly)->Arg(100)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("SketchDrag/Stretch/dyads", stretch)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
