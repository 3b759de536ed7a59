// GUI tests of the sensitivity study and tuning (issue 22), driving the real widgets of the main
// window: the gradient bars equal the engine's gradients, the event loop is never held for a run's
// length while a study or a tuning runs, Apply and Undo restore exactly, the study reopens with its
// file. The stall bounds are checks that the work is off the GUI thread, not timings: a
// software-rendered frame beside a busy worker on two cores pauses the loop for 50-100 ms on its
// own (they failed CI at 52 and 70 ms against 50): a stall must stay below half the run; the figures are printed.
// Screenshots land in $LW_TEST_ARTIFACTS: look at them.
#include <gtest/gtest.h>

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <cmath>
#include <functional>

#include "gui_test_support.h"
#include "main_window_support.h"
#include "main_window.h"
#include "mechanism/parameters.h"
#include "optimize/optimize.h"
#include "panels/study_panel.h"
#include "panels/tuning_panel.h"
#include "plots/gradient_plot.h"
#include "plots/history_plot.h"
#include "panels/analysis_panel.h"
#include "panels/parameters_panel.h"
#include "live_gradients.h"
#include "help.h"
#include "mechanism/schema.h"
#include "panels/cost_dialog.h"
#include <QCompleter>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include "simulation/assembly.h"
#include "sketch/sketch_view.h"
#include <QSlider>
#include <QTabWidget>
#include "sensitivity/sensitivity.h"
#include "support/samples.h"
#include "topology/four_bar.h"
#include "mechanism/resolved.h"

namespace {

using lw::test::artifacts;

using StudyTest = lw::test::MainWindowTest;
using lw::test::openShown;

// Runs the event loop until `done`, measuring the longest gap between two ticks of a 2 ms timer:
// how long the user would have waited for the window to answer. With `end` (a time on `clock`,
// negative until it is set: when a run's result arrives) a gap counts only up to it: a hold of
// the loop for the run shows in full, the result's own handling after it not.
// the loop was not held for a run that took `tookMs`: its longest stall under half of it, or
// under the 100 ms a software-rendered frame beside a busy worker on two cores pauses it on its
// own (a run shorter than that says nothing either way: 34 ms of a 63 ms study failed CI once)
bool notHeldFor(double stall, double tookMs) { return stall < std::max(100.0, tookMs / 2); }

double longestStallWhile(const std::function<bool()>& done, int timeoutMs = 60000, const QElapsedTimer* clock = nullptr,
                         const qint64* end = nullptr) {
  QElapsedTimer own;
  own.start();
  const QElapsedTimer& c = clock ? *clock : own;
  const qint64 start = c.elapsed();
  qint64 last = start, longest = 0;
  QTimer tick;
  tick.setInterval(2);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = c.elapsed(), until = end && *end >= 0 ? std::min(now, *end) : now;
    longest = std::max(longest, until - last);
    if (qEnvironmentVariableIsSet("LW_STALLS") && now - last > 15)
      std::fprintf(stderr, "gap %lld ms (%lld counted) ending at %lld ms\n", static_cast<long long>(now - last), static_cast<long long>(until - last), static_cast<long long>(now));
    last = now;
  });
  tick.start();
  while (!done() && c.elapsed() - start < timeoutMs) QTest::qWait(1);
  return static_cast<double>(longest);
}

// calls `f` at every paint of the watched widget
class PaintWatch : public QObject {
 public:
  explicit PaintWatch(std::function<void()> f) : f_(std::move(f)) {}
  bool eventFilter(QObject* o, QEvent* e) override {
    if (e->type() == QEvent::Paint) f_();
    return QObject::eventFilter(o, e);
  }

 private:
  std::function<void()> f_;
};

// ticks exactly the parameters `names`, as a user clicks the check boxes
void tickOnly(QTableWidget* t, const QStringList& names) {
  for (int r = 0; r < t->rowCount(); ++r) t->item(r, 0)->setCheckState(names.contains(t->item(r, 1)->text()) ? Qt::Checked : Qt::Unchecked);
}

TEST_F(StudyTest, TenBarStudyShowsTwentyBarsEqualToTheEngine) {
  lw::app::MainWindow w;
  openShown(w, "ten-bar-chain");
  auto* study = w.studyPanel();
  study->endTime()->setValue(1.0);
  study->step()->setValue(0.001);
  study->methodChoice()->setCurrentIndex(study->methodChoice()->findData("ddm"));
  w.findChild<QDockWidget*>("StudyDock")->raise();
  // from the result's arrival on the UI thread to the gradient plot's first paint after it
  QElapsedTimer clock;
  clock.start();
  qint64 arrived = -1, painted = -1;
  QObject::connect(study, &lw::widgets::StudyPanel::finished, study, [&] { arrived = clock.elapsed(); }, Qt::DirectConnection);
  PaintWatch watch([&] {
    if (arrived >= 0 && painted < 0) painted = clock.elapsed();
  });
  w.gradientPlot()->plot()->installEventFilter(&watch);
  const qint64 clicked = clock.elapsed();
  QTest::mouseClick(study->runButton(), Qt::LeftButton);
  const double stall = longestStallWhile([&] { return !study->running() && painted >= 0; }, 60000, &clock, &arrived);
  std::printf("longest event-loop stall during the ten-bar study: %.0f ms of %lld ms; gradient plot painted %lld ms after the result\n", stall,
              static_cast<long long>(arrived - clicked), static_cast<long long>(painted - arrived));
  // the study runs beside the window: no stall near its length (a software-rendered 3D view
  // beside a busy worker on two cores has paused the loop for up to 80 ms on its own); the
  // result's handling once it arrives is bounded below
  const qint64 took = arrived - clicked;
  EXPECT_TRUE(notHeldFor(stall, static_cast<double>(took))) << "the loop is never held for the run: " << stall << " ms of " << took;
  ASSERT_GE(painted, 0) << "the gradient plot was not painted after the study";
  EXPECT_LT(painted - arrived, 100);
  const auto& bars = w.gradientPlot()->bars();
  ASSERT_EQ(bars.size(), 20u);
  // the engine's gradients, the same study
  lw::sens::SensitivitySpec spec;
  spec.run.tEnd = 1.0;
  spec.run.dt = 0.001;
  const auto engine = lw::sens::runSensitivity(*w.mechanism(), spec);
  ASSERT_TRUE(engine.status.ok());
  for (const auto& b : bars) {
    const auto k = std::find(engine.parameters.begin(), engine.parameters.end(), b.parameter) - engine.parameters.begin();
    ASSERT_LT(k, 20);
    EXPECT_DOUBLE_EQ(b.values[0], engine.methods[0].gradient(0, k)) << b.parameter;
  }
  // sorted by magnitude, and the hover text shows the value
  for (std::size_t i = 1; i < bars.size(); ++i) EXPECT_GE(std::abs(bars[i - 1].values[0]), std::abs(bars[i].values[0]));
  EXPECT_TRUE(w.gradientPlot()->barText(0).contains(QString::number(bars[0].values[0], 'g', 10))) << w.gradientPlot()->barText(0).toStdString();
  w.grab().save(artifacts() + "/study_ten_bar_1280x800.png");
  w.grab().save(artifacts() + "/readme_study.png");
  // relative: ρ/ψ · ∂ψ/∂ρ
  const double psi = engine.methods[0].values[0];
  w.gradientPlot()->relative()->setChecked(true);
  lw::Diagnostics d;
  const auto table = lw::ParameterTable::build(*w.mechanism(), d);
  for (const auto& b : w.gradientPlot()->bars()) {
    const auto k = std::find(engine.parameters.begin(), engine.parameters.end(), b.parameter) - engine.parameters.begin();
    const double rho = table->values()[static_cast<std::size_t>(table->find(b.parameter))];
    EXPECT_NEAR(b.values[0], engine.methods[0].gradient(0, k) * rho / psi, 1e-12 * (1 + std::abs(b.values[0]))) << b.parameter;
  }
  w.grab().save(artifacts() + "/study_ten_bar_relative_1280x800.png");
}

// the global formulations' gradients from the Study panel (issue 39): the index-1 formulation's,
// as the engine computes them, close to Matrix R's (the same motion)
TEST_F(StudyTest, TheIndex1FormulationsGradientsFromThePanel) {
  lw::app::MainWindow w;
  openShown(w, "ten-bar-chain");
  auto* study = w.studyPanel();
  study->endTime()->setValue(0.2);
  study->step()->setValue(0.001);
  study->methodChoice()->setCurrentIndex(study->methodChoice()->findData("ddm"));
  EXPECT_TRUE(study->formulationChoice()->isEnabled());
  study->formulationChoice()->setCurrentIndex(study->formulationChoice()->findData("index1"));
  w.findChild<QDockWidget*>("StudyDock")->raise();
  QTest::mouseClick(study->runButton(), Qt::LeftButton);
  longestStallWhile([&] { return !study->running(); });
  const auto& bars = w.gradientPlot()->bars();
  ASSERT_EQ(bars.size(), 20u);
  lw::sens::SensitivitySpec spec;
  spec.run.tEnd = 0.2;
  spec.run.dt = 0.001;
  spec.run.formulation = lw::analysis::Formulation::Index1;
  const auto index1 = lw::sens::runSensitivity(*w.mechanism(), spec);
  spec.run.formulation = lw::analysis::Formulation::MatrixR;
  const auto matrixR = lw::sens::runSensitivity(*w.mechanism(), spec);
  ASSERT_TRUE(index1.status.ok() && matrixR.status.ok());
  const double largest = matrixR.methods[0].gradient.cwiseAbs().maxCoeff();
  for (const auto& b : bars) {
    const auto k = std::find(index1.parameters.begin(), index1.parameters.end(), b.parameter) - index1.parameters.begin();
    ASSERT_LT(k, 20);
    EXPECT_DOUBLE_EQ(b.values[0], index1.methods[0].gradient(0, k)) << b.parameter;
    EXPECT_NEAR(b.values[0], matrixR.methods[0].gradient(0, k), 1e-4 * largest) << b.parameter;
  }
  w.grab().save(artifacts() + "/study_index1_1280x800.png");
  w.resize(1920, 1080);
  QTest::qWait(50);
  w.grab().save(artifacts() + "/study_index1_1920x1080.png");
  // every method on the global formulation, the complex step the reference: a bar each, the direct
  // method and the adjoint on it to round-off
  study->endTime()->setValue(0.05);
  study->methodChoice()->setCurrentIndex(study->methodChoice()->findData("compare"));
  QTest::mouseClick(study->runButton(), Qt::LeftButton);
  longestStallWhile([&] { return !study->running(); });
  const auto& compared = w.gradientPlot()->bars();
  ASSERT_EQ(compared.size(), 20u);
  ASSERT_EQ(compared[0].values.size(), 4u);  // direct, adjoint, complex step, differences
  double scale = 0;
  for (const auto& b : compared) scale = std::max(scale, std::abs(b.values[2]));
  for (const auto& b : compared) {
    EXPECT_NEAR(b.values[0], b.values[2], 1e-9 * scale) << b.parameter;
    EXPECT_NEAR(b.values[1], b.values[2], 1e-9 * scale) << b.parameter;
  }
  w.grab().save(artifacts() + "/study_index1_compare_1920x1080.png");
  // kinematics has no formulation to choose
  study->analysisChoice()->setCurrentIndex(1);
  EXPECT_FALSE(study->formulationChoice()->isEnabled());
}

TEST_F(StudyTest, ComparedMethodsShowABarEachAndTheirDifferences) {
  lw::app::MainWindow w;
  openShown(w, "four-bar-synthesis", {1920, 1080});
  auto* study = w.studyPanel();
  EXPECT_EQ(study->analysisChoice()->currentData().toString(), "kinematics");  // from the file's study
  study->methodChoice()->setCurrentIndex(study->methodChoice()->findData("compare"));
  QTest::mouseClick(study->runButton(), Qt::LeftButton);
  longestStallWhile([&] { return !study->running(); });
  const auto& bars = w.gradientPlot()->bars();
  ASSERT_EQ(bars.size(), 5u);
  ASSERT_EQ(bars[0].values.size(), 4u);  // direct, adjoint, complex step, differences
  for (const auto& b : bars) {
    EXPECT_NEAR(b.values[0], b.values[2], 1e-10 * std::abs(b.values[2])) << b.parameter;
    EXPECT_NEAR(b.values[1], b.values[2], 1e-10 * std::abs(b.values[2])) << b.parameter << " (the adjoint of a targets cost)";
  }
  EXPECT_TRUE(w.gradientPlot()->barText(0).contains("rel. diff.")) << w.gradientPlot()->barText(0).toStdString();
  // under the legend row the value axis is short: its tick labels stay a label's height apart
  QCustomPlot* plot = w.gradientPlot()->plot();
  plot->replot();
  const QVector<double> ticks = plot->yAxis->tickVector();
  ASSERT_GE(ticks.size(), 2);
  const double apart = std::abs(plot->yAxis->coordToPixel(ticks[1]) - plot->yAxis->coordToPixel(ticks[0]));
  EXPECT_GE(apart, QFontMetrics(plot->yAxis->tickLabelFont()).height()) << ticks.size() << " ticks on " << plot->axisRect()->height() << " px";
  w.grab().save(artifacts() + "/study_compare_1920x1080.png");
}

TEST_F(StudyTest, TuningTheSynthesisSampleThenApplyAndUndo) {
  lw::app::MainWindow w;
  openShown(w, "four-bar-synthesis");
  const lw::Mechanism before = *w.mechanism();
  auto* tuning = w.tuningPanel();
  w.findChild<QDockWidget*>("TuningDock")->raise();
  QTest::qWait(50);
  ASSERT_TRUE(tuning->runButton()->isEnabled());
  QTest::mouseClick(tuning->runButton(), Qt::LeftButton);
  QElapsedTimer ran;
  ran.start();
  const double stall = longestStallWhile([&] { return !tuning->running(); });
  std::printf("longest event-loop stall while tuning: %.0f ms of %lld ms, %d evaluations\n", stall, static_cast<long long>(ran.elapsed()),
              tuning->evaluations());
  // the loop is never held for the run (software frames pause it on their own)
  EXPECT_TRUE(notHeldFor(stall, static_cast<double>(ran.elapsed()))) << stall << " ms";
  ASSERT_EQ(tuning->bestNames().size(), 5u) << tuning->status()->text().toStdString();
  ASSERT_TRUE(tuning->applyButton()->isEnabled());
  // the history plot shows every evaluation the panel's summary counts
  const auto* history = tuning->findChild<QCustomPlot*>("TuningHistory");
  ASSERT_NE(history, nullptr);
  EXPECT_EQ(history->graph(0)->dataCount(), tuning->evaluations());
  EXPECT_TRUE(tuning->status()->text().contains(QString("in %1 evaluations").arg(tuning->evaluations())))
      << tuning->status()->text().toStdString();
  // the best design's cost, by the engine: at least 10× below the start's
  lw::Mechanism tuned = before;
  ASSERT_TRUE(lw::opt::setParameters(tuned, tuning->bestNames(), tuning->bestValues()).ok());
  lw::sens::SensitivitySpec s;
  s.analysis = lw::sens::Analysis::Kinematics;
  s.run.tEnd = 1;
  s.run.dt = 0.01;
  const double start = lw::sens::runSensitivity(before, s).methods[0].values[0];
  const double end = lw::sens::runSensitivity(tuned, s).methods[0].values[0];
  EXPECT_LT(end, start / 10);
  // the README's picture of tuning (readme_*.png, copied to resources/screenshots/ when it changes)
  w.grab().save(artifacts() + "/tuning_synthesis_1280x800.png");
  w.grab().save(artifacts() + "/readme_tuning.png");
  // Apply: one undo step with exactly the tuned values; Undo: exactly the design before
  const int steps = w.undoStack()->count();
  QTest::mouseClick(tuning->applyButton(), Qt::LeftButton);
  ASSERT_EQ(w.undoStack()->count(), steps + 1);
  for (std::size_t i = 0; i < tuning->bestNames().size(); ++i) {
    for (const auto& p : w.mechanism()->parameters) {
      if (p.name == tuning->bestNames()[i]) {
        EXPECT_EQ(p.value.value, tuning->bestValues()[i]) << p.name;
      }
    }
  }
  // the sketch's dimensions show what the tuning changed: the crank 1 m at its 60°, the coupler 3.5 m
  w.findChild<QAction*>("SketchDimensions")->trigger();
  QStringList texts;
  for (QGraphicsItem* item : w.sketchView()->scene()->items())
    if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item)) texts << t->text();
  EXPECT_TRUE(texts.contains(QString::fromUtf8("1 m · 60.0°"))) << texts.join(" | ").toStdString();
  EXPECT_TRUE(texts.contains("3.5 m")) << texts.join(" | ").toStdString();
  QTest::qWait(50);
  w.grab().save(artifacts() + "/tuning_applied_dimensions_1280x800.png");
  w.undoStack()->undo();
  for (std::size_t i = 0; i < before.parameters.size(); ++i)
    EXPECT_EQ(w.mechanism()->parameters[i].value.value, before.parameters[i].value.value) << before.parameters[i].name;
  for (std::size_t b = 0; b < before.bodies.size(); ++b) EXPECT_EQ(w.mechanism()->bodies[b].angle.value, before.bodies[b].angle.value);
}

TEST_F(StudyTest, BouncingBallSensitivitiesJumpAtEachImpactAsTheEngineSays) {
  lw::app::MainWindow w;
  openShown(w, "bouncing-ball-t1");
  auto* study = w.studyPanel();
  EXPECT_EQ(study->analysisChoice()->currentData().toString(), "dynamics");
  EXPECT_DOUBLE_EQ(study->endTime()->value(), 2.0);
  QTest::mouseClick(study->runButton(), Qt::LeftButton);
  QElapsedTimer ran;
  ran.start();
  const double stall = longestStallWhile([&] { return !study->running(); });
  std::printf("longest event-loop stall during the bouncing-ball study: %.0f ms of %lld ms\n", stall, static_cast<long long>(ran.elapsed()));
  EXPECT_TRUE(notHeldFor(stall, static_cast<double>(ran.elapsed()))) << stall << " ms";
  // the engine, the same study
  lw::sens::SensitivitySpec spec;
  spec.run.tEnd = 2;
  spec.run.dt = 0.001;
  const auto engine = lw::sens::runSensitivity(*w.mechanism(), spec);
  ASSERT_TRUE(engine.status.ok());
  ASSERT_EQ(engine.impacts.size(), 3u);
  auto* plot = w.historyPlot();
  ASSERT_EQ(plot->eventTable()->rowCount(), 3);
  // p.y is the ball's independent coordinate y (body ball[1]); v.y its rate
  for (int k = 0; k < 4; ++k) {
    const QString parameter = QString::fromStdString(engine.parameters[static_cast<std::size_t>(k)]);
    ASSERT_TRUE(plot->show("p.y", parameter));
    ASSERT_EQ(plot->jumps().size(), 3u) << parameter.toStdString();
    for (std::size_t i = 0; i < 3; ++i) {
      const auto& j = plot->jumps()[i];
      EXPECT_DOUBLE_EQ(j.t, engine.impacts[i].record.t);
      EXPECT_NEAR(j.after - j.before, engine.impacts[i].positionJump(1, k), 1e-9 * (1 + std::abs(engine.impacts[i].positionJump(1, k))))
          << "d(p.y)/d(" << parameter.toStdString() << ") at impact " << i;
    }
    ASSERT_TRUE(plot->show("v.y", parameter));
    for (std::size_t i = 0; i < 3; ++i) {
      const auto& j = plot->jumps()[i];
      EXPECT_NEAR(j.after - j.before, engine.impacts[i].velocityJump(1, k), 1e-9 * (1 + std::abs(engine.impacts[i].velocityJump(1, k))))
          << "d(v.y)/d(" << parameter.toStdString() << ") at impact " << i;
    }
  }
  // dt/dρ in the log, for the parameter shown
  ASSERT_TRUE(plot->show("v.y", "y0"));
  EXPECT_EQ(plot->eventTable()->item(0, 4)->text(), QString::number(engine.impacts[0].eventTime[0], 'g', 6));
  w.findChild<QDockWidget*>("SensitivitiesDock")->raise();
  QTest::qWait(50);
  w.grab().save(artifacts() + "/impact_jumps_1280x800.png");
  w.grab().save(artifacts() + "/readme_impact_jumps.png");
  // every column of the impact log is seen at 1280×800 without scrolling sideways (it showed 4 of 7)
  auto* log = plot->eventTable();
  int widths = 0;
  for (int c = 0; c < log->columnCount(); ++c) widths += log->columnWidth(c);
  EXPECT_LE(widths, log->viewport()->width()) << "the impact log's columns are " << widths << " px wide in " << log->viewport()->width();
  const QString tip = log->item(0, 2)->toolTip();
  EXPECT_TRUE(tip.contains(QString::number(engine.impacts[0].record.normalBefore[0], 'g', 10))) << tip.toStdString();
  // a click on an impact of the log shows the motion there (after a run)
  w.analysisPanel()->run();
  longestStallWhile([&] { return !w.analysisPanel()->running(); });
  QTest::mouseClick(plot->eventTable()->viewport(), Qt::LeftButton, {}, plot->eventTable()->visualItemRect(plot->eventTable()->item(1, 0)).center());
  const auto results = w.playbackBar()->results();
  ASSERT_TRUE(results);
  EXPECT_NEAR(results->time(static_cast<std::size_t>(w.playbackBar()->currentRow())), engine.impacts[1].record.t, 1e-9);
  // the 3D view marks the impact at the contact point (velocity arrows are off): it flashes
  EXPECT_EQ(w.sceneView()->arrowsShown(), 1);
  QTest::qWait(50);
  w.grab().save(artifacts() + "/impact_flash_1280x800.png");
  // and not a tenth of a second later
  int later = w.playbackBar()->currentRow();
  while (later + 1 < static_cast<int>(results->rows) && results->time(static_cast<std::size_t>(later)) < engine.impacts[1].record.t + 0.2) ++later;
  w.playbackBar()->showRow(later);
  EXPECT_EQ(w.sceneView()->arrowsShown(), 0);
}

// Issue 37: the study goes on through the ball's rest at its Zeno point t∞ ≈ 4.06 s (it stopped
// there with "the sensitivities through a resting contact are not computed"); the log names the
// rest, and its dt/dρ is the closed form's ∂t∞/∂y0 = t∞/(2 y0)
TEST_F(StudyTest, TheBallsStudyGoesOnThroughItsRest) {
  lw::app::MainWindow w;
  openShown(w, "bouncing-ball-t1");
  auto* study = w.studyPanel();
  study->endTime()->setValue(5.0);
  study->methodChoice()->setCurrentIndex(study->methodChoice()->findData("ddm"));
  w.findChild<QDockWidget*>("StudyDock")->raise();
  QTest::mouseClick(study->runButton(), Qt::LeftButton);
  longestStallWhile([&] { return !study->running(); });
  lw::sens::SensitivitySpec spec;
  spec.run.tEnd = 5;
  spec.run.dt = 0.001;
  const auto engine = lw::sens::runSensitivity(*w.mechanism(), spec);
  ASSERT_TRUE(engine.status.ok()) << engine.status.message;
  const auto& bars = w.gradientPlot()->bars();
  ASSERT_EQ(bars.size(), engine.parameters.size());
  for (const auto& b : bars) {
    const auto k = std::find(engine.parameters.begin(), engine.parameters.end(), b.parameter) - engine.parameters.begin();
    ASSERT_LT(k, static_cast<long>(engine.parameters.size()));
    EXPECT_DOUBLE_EQ(b.values[0], engine.methods[0].gradient(0, k)) << b.parameter;
  }
  auto* plot = w.historyPlot();
  ASSERT_TRUE(plot->show("p.y", "y0"));
  auto* log = plot->eventTable();
  ASSERT_EQ(log->rowCount(), static_cast<int>(engine.impacts.size()));
  const int last = log->rowCount() - 1;
  EXPECT_TRUE(log->item(last, 1)->text().contains("(rests)")) << log->item(last, 1)->text().toStdString();
  const double t1 = std::sqrt(2 / 9.81), tInf = t1 * (1 + 2 * 0.8 / 0.2);
  EXPECT_NEAR(log->item(last, 4)->text().toDouble(), tInf / 2, 1e-3 * tInf);
  log->scrollToBottom();
  w.findChild<QDockWidget*>("SensitivitiesDock")->raise();
  QTest::qWait(50);
  w.grab().save(artifacts() + "/study_rest_1280x800.png");
  w.resize(1920, 1080);
  QTest::qWait(50);
  w.grab().save(artifacts() + "/study_rest_1920x1080.png");
}

// The Parameters panel's gradient column and cost label are the engine's study `spec` of the design
// `before` with parameter k at the slider's value (the joints closed as the preview closes them)
static void expectPanelShowsTheEngine(const lw::Mechanism& before, int k, const lw::sens::SensitivitySpec& spec, lw::widgets::ParametersPanel* panel) {
  lw::Mechanism shown = before;
  shown.parameters[static_cast<std::size_t>(k)].value = lw::Number(panel->sliderValue());
  ASSERT_TRUE(lw::analysis::closeOpenedJoints(before, shown).ok);
  const auto engine = lw::sens::runSensitivity(shown, spec);
  ASSERT_TRUE(engine.status.ok()) << engine.status.message;
  QTableWidget* table = panel->table();
  int gradientColumn = -1;
  for (int c = 0; c < table->columnCount(); ++c)
    if (table->horizontalHeaderItem(c)->text() == QString::fromUtf8("∂ψ/∂ρ")) gradientColumn = c;
  ASSERT_GE(gradientColumn, 0);
  for (int r = 0; r < table->rowCount(); ++r)
    EXPECT_EQ(table->item(r, gradientColumn)->text(), QString::number(engine.methods[0].gradient(0, r), 'g', 3)) << table->item(r, 0)->text().toStdString();
  EXPECT_TRUE(panel->costLabel()->text().contains(QString::number(engine.methods[0].values[0], 'g', 6)));
}

// Teaching: dragging a parameter's slider on the Jansen leg redraws the leg, its foot path and the
// gradients of foot_height; the frame rate is measured (target 30 per second) and printed
TEST_F(StudyTest, JansenLegSliderRedrawsTheLegAndItsGradientsLive) {
  lw::app::MainWindow w;
  openShown(w, "jansen-leg");
  w.views()->setCurrentWidget(w.sketchView());
  w.findChild<QDockWidget*>("ParametersDock")->raise();
  auto* panel = w.parametersPanel();
  int k = -1;
  for (std::size_t i = 0; i < w.mechanism()->parameters.size(); ++i)
    if (w.mechanism()->parameters[i].name == "k") k = static_cast<int>(i);
  ASSERT_GE(k, 0);
  const lw::Mechanism before = *w.mechanism();
  const lw::Parameter& p = before.parameters[static_cast<std::size_t>(k)];
  // the gradient column at the opened design
  longestStallWhile([&] { return !w.liveGradients()->busy(); });
  QTest::qWait(20);
  EXPECT_TRUE(panel->costLabel()->text().startsWith("foot_height = ")) << panel->costLabel()->text().toStdString();
  // 40 positions across the range, each drawn before the next (the rate a hand can drag at)
  QElapsedTimer clock;
  clock.start();
  constexpr int kFrames = 40;
  double last = p.value.value;
  for (int f = 1; f <= kFrames; ++f) {
    last = p.min + (p.max - p.min) * f / (kFrames + 1.0);
    const int tried = w.previewsTried();
    panel->dragSliderTo(k, last);
    for (int wait = 0; w.previewsTried() == tried && wait < 1000; ++wait) QTest::qWait(1);
    QCoreApplication::processEvents();  // painted
  }
  const double seconds = static_cast<double>(clock.elapsed()) / 1000.0;
  EXPECT_EQ(w.previewsDrawn(), kFrames);  // every position of the range is a leg that turns
  const int gradients = w.liveGradients()->delivered();
  longestStallWhile([&] { return !w.liveGradients()->busy(); });
  QTest::qWait(20);
  std::printf("Jansen leg slider: %.0f previews per second (leg and foot path redrawn), %d gradient updates over %.2f s\n",
              kFrames / seconds, gradients, seconds);
  EXPECT_EQ(w.mechanism()->parameters[static_cast<std::size_t>(k)].value.value, p.value.value);  // a preview changes nothing
  // the gradients shown are the engine's at the last design previewed
  lw::sens::SensitivitySpec spec;
  spec.analysis = lw::sens::Analysis::Kinematics;
  spec.costs = {"foot_height"};
  spec.run.tEnd = 1;
  spec.run.dt = 0.01;
  expectPanelShowsTheEngine(before, k, spec, panel);
  w.grab().save(artifacts() + "/slider_jansen_1280x800.png");
  // letting go is one edit; Undo returns exactly
  panel->releaseSlider();
  QTest::qWait(20);
  EXPECT_NEAR(w.mechanism()->parameters[static_cast<std::size_t>(k)].value.value, panel->sliderValue(), 1e-12);
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->parameters[static_cast<std::size_t>(k)].value.value, p.value.value);
}

// A mechanism that runs under dynamics (the five-bar, 5 s through ten impacts) gets live gradients
// too: the dynamics' by the direct method (a few tenths of a second each: lw_bench_sensitivity's
// live/five-bar); a computation of an older design gives way to the newer one, and when the slider
// rests the gradients shown are the engine's there
TEST_F(StudyTest, FiveBarSliderShowsTheDynamicsGradientsWhenTheSliderRests) {
  lw::app::MainWindow w;
  openShown(w, "five-bar");
  w.findChild<QDockWidget*>("ParametersDock")->raise();
  auto* panel = w.parametersPanel();
  int k = -1;
  for (std::size_t i = 0; i < w.mechanism()->parameters.size(); ++i)
    if (w.mechanism()->parameters[i].name == "L_s1") k = static_cast<int>(i);
  ASSERT_GE(k, 0);
  const lw::Mechanism before = *w.mechanism();
  const lw::Parameter& p = before.parameters[static_cast<std::size_t>(k)];
  const double lo = p.hasMin ? p.min : 0.9 * p.value.value, hi = p.hasMax ? p.max : 1.1 * p.value.value;
  // a drag across part of the range, faster than a dynamic study: the older designs give way
  for (int f = 1; f <= 10; ++f) {
    const int tried = w.previewsTried();
    panel->dragSliderTo(k, lo + (hi - lo) * (0.3 + 0.02 * f));
    for (int wait = 0; w.previewsTried() == tried && wait < 1000; ++wait) QTest::qWait(1);
    QTest::qWait(30);
  }
  longestStallWhile([&] { return !w.liveGradients()->busy(); });
  QTest::qWait(20);
  const int delivered = w.liveGradients()->delivered();
  std::printf("Five-bar slider: %d dynamics gradient updates for 10 positions\n", delivered);
  EXPECT_GE(delivered, 1);
  EXPECT_LT(delivered, 10);  // not one study per position: the older designs gave way
  EXPECT_TRUE(panel->costLabel()->text().startsWith("psi1 = ")) << panel->costLabel()->text().toStdString();
  lw::sens::SensitivitySpec spec;
  spec.costs = {"psi1"};
  spec.run.tEnd = 5;
  spec.run.dt = 1e-3;
  expectPanelShowsTheEngine(before, k, spec, panel);
  w.grab().save(artifacts() + "/slider_five_bar_1280x800.png");
}

TEST_F(StudyTest, AddCostCompletesNamesAndIsOneEdit) {
  lw::app::MainWindow w;
  openShown(w, "jansen-leg");
  const std::size_t before = w.mechanism()->costs.size();
  ASSERT_TRUE(w.addCost([](lw::widgets::CostDialog& d) {
    d.nameEdit()->setText("sweep");
    d.typeChoice()->setCurrentIndex(d.typeChoice()->findData("integral"));
    // typing "(fo": the completer offers the output's components
    QTest::keyClicks(d.expressionEdit(), "(fo");
    EXPECT_EQ(d.completer()->completionPrefix(), "fo");
    EXPECT_GE(d.completer()->completionCount(), 2);  // foot.x, foot.y
    d.complete("foot.x");
    QTest::keyClicks(d.expressionEdit(), " + 0.3)^2");
    EXPECT_EQ(d.expressionEdit()->text(), "(foot.x + 0.3)^2");
  }));
  ASSERT_EQ(w.mechanism()->costs.size(), before + 1);
  EXPECT_EQ(w.mechanism()->costs.back().expression.text(), "(foot.x + 0.3)^2");
  EXPECT_EQ(w.studyPanel()->costList()->count(), static_cast<int>(before + 1));  // the study offers it
  // changed in place (a double-click in the Study panel): renamed, made an end value
  ASSERT_TRUE(w.changeCost("sweep", [](lw::widgets::CostDialog& d) {
    EXPECT_EQ(d.expressionEdit()->text(), "(foot.x + 0.3)^2");  // pre-filled
    d.nameEdit()->setText("sweep_end");
    d.typeChoice()->setCurrentIndex(d.typeChoice()->findData("terminal"));
  }));
  EXPECT_EQ(w.mechanism()->costs.back().name, "sweep_end");
  EXPECT_EQ(w.mechanism()->costs.back().type, lw::Cost::Type::Terminal);
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->costs.back().name, "sweep");
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->costs.size(), before);
  // an unknown name is refused with it, the document unchanged
  EXPECT_FALSE(w.addCost([](lw::widgets::CostDialog& d) { d.expressionEdit()->setText("knee.y^2"); }));
  EXPECT_EQ(w.mechanism()->costs.size(), before);
  EXPECT_TRUE(w.findChild<QPlainTextEdit*>()->toPlainText().contains("knee.y")) << w.findChild<QPlainTextEdit*>()->toPlainText().toStdString();
}

// a targets cost opens in the same dialog (it was refused: "edited in the sketch"): its point
// output, timing and target points; made free (path generation), a point moved, undone
TEST_F(StudyTest, ATargetsCostIsChangedInTheCostDialog) {
  lw::app::MainWindow w;
  openShown(w, "four-bar-synthesis");
  const auto it = std::find_if(w.mechanism()->costs.begin(), w.mechanism()->costs.end(),
                               [](const lw::Cost& c) { return c.type == lw::Cost::Type::Targets; });
  ASSERT_NE(it, w.mechanism()->costs.end());
  const lw::Cost before = *it;
  const auto index = it - w.mechanism()->costs.begin();
  ASSERT_TRUE(w.changeCost(QString::fromStdString(before.name), [&](lw::widgets::CostDialog& d) {
    EXPECT_EQ(d.type(), "targets");
    EXPECT_FALSE(d.expressionEdit()->isVisibleTo(&d));  // an expression cost's field
    EXPECT_EQ(d.list("output")->currentData().toString().toStdString(), before.output);
    EXPECT_EQ(d.field("targets")->text().toStdString(), lw::schema::targetsText(before.targets));
    ASSERT_TRUE(d.choose("timing", "free"));
    // the first target moved to (1, 2.5)
    QString targets = d.field("targets")->text();
    targets.replace(0, targets.indexOf(';'), QString("%1: 1, 2.5").arg(before.targets[0].t));
    d.field("targets")->setText(targets);
    EXPECT_EQ(d.problem(), "");
    d.grab().save(artifacts() + "/dialog_change_targets_cost.png");
  }));
  const lw::Cost& after = w.mechanism()->costs[static_cast<std::size_t>(index)];
  EXPECT_EQ(after.timing, lw::Cost::Timing::Free);
  ASSERT_EQ(after.targets.size(), before.targets.size());
  EXPECT_EQ(after.targets[0].at, (std::vector<double>{1, 2.5}));
  EXPECT_EQ(after.targets[1].at, before.targets[1].at);
  // a target that is not a time and a point is refused in the dialog, before OK
  EXPECT_FALSE(w.changeCost(QString::fromStdString(before.name), [](lw::widgets::CostDialog& d) {
    d.field("targets")->setText("0.2: 1");
    EXPECT_EQ(d.problem(), "the target '0.2: 1' is not a time and a point: write t: x, y");
  }));
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->costs[static_cast<std::size_t>(index)].timing, before.timing);
  EXPECT_EQ(w.mechanism()->costs[static_cast<std::size_t>(index)].targets[0].at, before.targets[0].at);
}

TEST_F(StudyTest, EveryAnalysisActionHasAnIconATipAndAKeyListedInHelp) {
  lw::app::MainWindow w;
  const QString keys = lw::app::shortcutsMarkdown(&w);
  for (const char* name : {"RunAnalysis", "RunStudy", "RunTuning", "ApplyTuning", "StopJobs", "AddCost"}) {
    auto* a = w.findChild<QAction*>(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_FALSE(a->icon().isNull()) << name;
    EXPECT_FALSE(a->toolTip().isEmpty()) << name;
    ASSERT_FALSE(a->shortcut().isEmpty()) << name;
    QString text = a->text();
    text.remove('&');
    EXPECT_TRUE(keys.contains("| " + text + " | " + a->shortcut().toString(QKeySequence::NativeText) + " |")) << name;
  }
  // every key that works is listed, also a button's own (Space plays and pauses: it was missing)
  EXPECT_TRUE(keys.contains("| Play / pause | Space |")) << keys.toStdString();
  EXPECT_TRUE(keys.contains("| 3D view | R | resets the camera |")) << keys.toStdString();
}

TEST_F(StudyTest, TuningKeepsAConstraintEnteredInThePanelAndSavesIt) {
  QTemporaryDir dir;
  const QString path = dir.path() + "/constrained.json";
  {
    lw::app::MainWindow w;
    openShown(w, "four-bar-synthesis");
    auto* tuning = w.tuningPanel();
    tuning->addConstraintRow("length_sum", "L1 + L3", "", "3.8");
    QTest::mouseClick(tuning->runButton(), Qt::LeftButton);
    longestStallWhile([&] { return !tuning->running(); });
    ASSERT_EQ(tuning->bestNames().size(), 5u) << tuning->status()->text().toStdString();
    const double sum = tuning->bestValues()[0] + tuning->bestValues()[2];
    EXPECT_LE(sum, 3.8 + 1e-8);
    EXPECT_GT(sum, 3.8 - 1e-6);  // active: the targets pull it to 4
    w.findChild<QDockWidget*>("TuningDock")->raise();
    QTest::qWait(50);
    w.grab().save(artifacts() + "/tuning_constrained_1280x800.png");
    ASSERT_TRUE(w.saveTo(path));
  }
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(path, false));
  ASSERT_EQ(w.mechanism()->study.constraints.size(), 1u);
  EXPECT_EQ(w.mechanism()->study.constraints[0].expression.text(), "L1 + L3");
  EXPECT_EQ(w.tuningPanel()->constraintTable()->rowCount(), 1);
  EXPECT_EQ(w.tuningPanel()->constraintTable()->item(0, 3)->text(), "3.8");
  // a constraint that cannot be read is refused with its name before any run
  w.tuningPanel()->addConstraintRow("broken", "L1 +", "", "1");
  w.tuningPanel()->run();
  EXPECT_FALSE(w.tuningPanel()->running());
  EXPECT_TRUE(w.tuningPanel()->status()->text().contains("constraint broken")) << w.tuningPanel()->status()->text().toStdString();
}

TEST_F(StudyTest, FourBarLimitsFromThePanelHoldAtTheTunedDesign) {
  lw::app::MainWindow w;
  openShown(w, "four-bar-synthesis");
  auto* tuning = w.tuningPanel();
  w.findChild<QDockWidget*>("TuningDock")->raise();
  ASSERT_TRUE(tuning->fourBarButton()->isEnabled());
  // the menu's two entries, as a user picks them (the angle typed into the dialog it opens)
  const auto actions = tuning->fourBarButton()->menu()->actions();
  ASSERT_EQ(actions.size(), 2);
  actions[0]->trigger();
  EXPECT_EQ(tuning->constraintTable()->rowCount(), 2);
  QTimer::singleShot(50, [] {
    auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
    ASSERT_NE(dialog, nullptr);
    dialog->setDoubleValue(60);
    dialog->accept();
  });
  actions[1]->trigger();
  ASSERT_EQ(tuning->constraintTable()->rowCount(), 4);
  EXPECT_EQ(tuning->constraintTable()->item(2, 0)->text(), "mu_folded");
  EXPECT_EQ(tuning->constraintTable()->item(2, 3)->text(), "0.5");  // cos 60°
  // every name whole in the 1280x800 dock (they were cut to "crank…s_sum"), the bounds in view
  QTest::qWait(50);
  auto* table = tuning->constraintTable();
  for (int r = 0; r < table->rowCount(); ++r) {
    const int text = table->fontMetrics().horizontalAdvance(table->item(r, 0)->text());
    EXPECT_GE(table->columnWidth(0), text) << table->item(r, 0)->text().toStdString();
  }
  EXPECT_LE(table->columnViewportPosition(3) + table->columnWidth(3), table->viewport()->width());
  // asked again: replaced by name, not doubled
  QString why;
  ASSERT_TRUE(tuning->addFourBarLimits(true, 60, why)) << why.toStdString();
  EXPECT_EQ(tuning->constraintTable()->rowCount(), 4);
  QTest::mouseClick(tuning->runButton(), Qt::LeftButton);
  longestStallWhile([&] { return !tuning->running(); });
  ASSERT_EQ(tuning->bestNames().size(), 5u) << tuning->status()->text().toStdString();
  // the tuned linkage, by the engine's own four-bar analysis: a crank-rocker within 60°–120°
  lw::Mechanism tuned = *w.mechanism();
  ASSERT_TRUE(lw::opt::setParameters(tuned, tuning->bestNames(), tuning->bestValues()).ok());
  lw::Diagnostics d;
  const auto resolved = lw::resolve(tuned, d);
  ASSERT_TRUE(resolved.has_value());
  const auto loops = lw::topology::fourBarLoops(*resolved);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].type, "crank-rocker");
  EXPECT_GE(loops[0].minTransmission, 60 - 1e-2);
  EXPECT_LE(loops[0].maxTransmission, 120 + 1e-2);
  QTest::qWait(50);
  w.grab().save(artifacts() + "/tuning_four_bar_limits_1280x800.png");
  // a mechanism without a four-bar loop: the button is off and says why
  openShown(w, "five-bar");
  EXPECT_FALSE(tuning->fourBarButton()->isEnabled());
  EXPECT_TRUE(tuning->fourBarButton()->toolTip().contains("no four-bar loop")) << tuning->fourBarButton()->toolTip().toStdString();
}

TEST_F(StudyTest, TheStudyIsSavedWithTheFileAndReopens) {
  QTemporaryDir dir;
  const QString path = dir.path() + "/study.json";
  {
    lw::app::MainWindow w;
    openShown(w, "ten-bar-chain");
    auto* study = w.studyPanel();
    EXPECT_EQ(study->chosenParameters().size(), 20u);  // a study without a list: every parameter
    tickOnly(study->parameterTable(), {"l_1", "m_3"});
    study->methodChoice()->setCurrentIndex(study->methodChoice()->findData("avm"));
    study->formulationChoice()->setCurrentIndex(study->formulationChoice()->findData("index1"));
    w.tuningPanel()->algorithmChoice()->setCurrentIndex(w.tuningPanel()->algorithmChoice()->findData("mma"));
    w.tuningPanel()->maxEvaluations()->setValue(37);
    EXPECT_TRUE(w.isWindowModified());
    ASSERT_TRUE(w.saveTo(path));
    EXPECT_FALSE(w.isWindowModified());
  }
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(path, false));
  auto* study = w.studyPanel();
  EXPECT_EQ(study->chosenParameters(), (std::vector<std::string>{"l_1", "m_3"}));
  EXPECT_EQ(study->methodChoice()->currentData().toString(), "avm");
  EXPECT_EQ(study->formulationChoice()->currentData().toString(), "index1");
  EXPECT_EQ(w.mechanism()->study.formulation, "index1");
  EXPECT_EQ(w.tuningPanel()->algorithmChoice()->currentData().toString(), "mma");
  EXPECT_EQ(w.tuningPanel()->maxEvaluations()->value(), 37);
  EXPECT_FALSE(w.isWindowModified());
}

}  // namespace

namespace {

// The five-bar's ten floor impacts: their names under the sensitivity plot overlapped (issue 36
// item 8). A name that would overlap the one before is left out; the log lists every impact.
TEST_F(StudyTest, ImpactNamesUnderASensitivityPlotDoNotOverlap) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  openShown(w, "five-bar");
  auto* study = w.studyPanel();
  study->run();
  longestStallWhile([&] { return !study->running(); });
  auto* plot = w.historyPlot();
  ASSERT_GE(plot->eventTable()->rowCount(), 5);
  ASSERT_TRUE(plot->show("p2.y", "L_s1"));
  w.findChild<QDockWidget*>("SensitivitiesDock")->raise();
  QTest::qWait(50);
  auto* chart = plot->findChild<QCustomPlot*>();
  ASSERT_NE(chart, nullptr);
  chart->replot();
  std::vector<QRectF> shown;
  int hidden = 0;
  for (int k = 0; k < chart->itemCount(); ++k)
    if (auto* text = qobject_cast<QCPItemText*>(chart->item(k))) {
      if (!text->visible()) {
        ++hidden;
        continue;
      }
      const QPointF at = text->position->pixelPosition();
      const double width = QFontMetrics(text->font()).horizontalAdvance(text->text());
      shown.emplace_back(at.x() - width / 2, at.y(), width, 10);
    }
  std::printf("%zu impact names shown, %d left out (the log has %d impacts)\n", shown.size(), hidden, plot->eventTable()->rowCount());
  ASSERT_FALSE(shown.empty());
  EXPECT_EQ(static_cast<int>(shown.size()) + hidden, plot->eventTable()->rowCount());
  for (std::size_t a = 0; a < shown.size(); ++a)
    for (std::size_t b = a + 1; b < shown.size(); ++b) EXPECT_FALSE(shown[a].intersects(shown[b])) << a << " and " << b;
  w.grab().save(artifacts() + "/five_bar_impact_names_1280x800.png");
}

}  // namespace
