// GUI tests of the Sweep panel (issue 40), driving the real widgets: a sweep of one parameter
// drawn as a line with its exact gradient as tangents, equal to the engine's sweep; a click on a
// point makes that variant the design in one undoable edit; two parameters drawn as a heat map
// with an arrow per variant; Stop; another document drops the sweep. Screenshots at 1280×800 and
// 1920×1080 land in $LW_TEST_ARTIFACTS: look at them.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <cstring>
#include <qcustomplot.h>

#include "gui_test_support.h"
#include "main_window_support.h"
#include "main_window.h"
#include "panels/sweep_panel.h"
#include "sweep/sweep.h"

namespace {

using lw::test::artifacts;

using SweepTest = lw::test::MainWindowTest;
using lw::test::openShown;

bool waitUntilDone(lw::widgets::SweepPanel* p, int ms = 120000) {
  QElapsedTimer clock;
  clock.start();
  while (p->running() && clock.elapsed() < ms) QTest::qWait(10);
  QTest::qWait(50);
  return !p->running();
}

TEST_F(SweepTest, OneParameterIsALineWithItsGradientsAndAClickMakesTheDesign) {
  lw::app::MainWindow w;
  openShown(w, "four-bar-synthesis");
  auto* panel = w.sweepPanel();
  w.findChild<QDockWidget*>("SweepDock")->raise();
  QTest::qWait(50);
  panel->firstParameter()->setCurrentText("L1");
  // the parameter's range is the sweep's default
  EXPECT_EQ(panel->firstFrom()->value(), 0.5);
  EXPECT_EQ(panel->firstTo()->value(), 1.5);
  panel->firstFrom()->setValue(0.6);
  panel->firstTo()->setValue(1.2);
  panel->firstPoints()->setValue(13);
  ASSERT_TRUE(panel->runButton()->isEnabled());
  QTest::mouseClick(panel->runButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntilDone(panel));
  const auto r = panel->result();
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->rows(), 13u) << panel->status()->text().toStdString();
  EXPECT_TRUE(panel->status()->text().contains("13 variants")) << panel->status()->text().toStdString();
  // the rows are the engine's sweep of the same design (the study's kinematic run)
  lw::sweep::SweepSpec spec;
  spec.study.analysis = lw::sens::Analysis::Kinematics;
  spec.study.run.tEnd = 1;
  spec.study.run.dt = 0.01;
  spec.gradients = true;
  const auto engine = lw::sweep::runSweep(*w.mechanism(), lw::sweep::fullFactorial({{"L1", lw::sweep::evenlySpaced(0.6, 1.2, 13)}}), spec);
  ASSERT_EQ(engine.table.size(), r->table.size());
  EXPECT_EQ(std::memcmp(engine.table.data(), r->table.data(), engine.table.size() * sizeof(double)), 0);
  // the line through every variant that ran, and a tangent (two points and a gap) at each
  auto* plot = panel->plot();
  ASSERT_GE(plot->graphCount(), 1);
  const int ok = static_cast<int>(r->rows() - r->failed());
  EXPECT_EQ(plot->graph(0)->dataCount(), ok);
  QCPCurve* tangents = nullptr;
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (auto* c = qobject_cast<QCPCurve*>(plot->plottable(i))) tangents = c;
  ASSERT_NE(tangents, nullptr);
  EXPECT_EQ(tangents->dataCount(), 3 * ok);
  // each tangent's slope is its row's gradient
  const auto first = tangents->data()->at(0), second = tangents->data()->at(1);
  ASSERT_TRUE(r->errors[0].empty());
  EXPECT_NEAR((second->value - first->value) / (second->key - first->key), r->table[2], 1e-9 * std::abs(r->table[2]) + 1e-12);
  w.grab().save(artifacts() + "/sweep_one_parameter_1280x800.png");

  // a click on the fifth point: that variant becomes the design, one undoable edit
  const lw::Mechanism before = *w.mechanism();
  const int steps = w.undoStack()->count();
  const double x = r->table[4 * r->columns.size()], y = r->table[4 * r->columns.size() + 1];
  const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(x)), static_cast<int>(plot->yAxis->coordToPixel(y)));
  QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
  QTest::qWait(50);
  ASSERT_EQ(w.undoStack()->count(), steps + 1);
  EXPECT_TRUE(w.undoStack()->undoText().contains("swept variant")) << w.undoStack()->undoText().toStdString();
  for (const auto& p : w.mechanism()->parameters)
    if (p.name == "L1") {
      EXPECT_EQ(p.value.value, x);
    }
  // the sweep stays to pick another point
  EXPECT_EQ(panel->result(), r);
  w.undoStack()->undo();
  for (std::size_t i = 0; i < before.parameters.size(); ++i)
    EXPECT_EQ(w.mechanism()->parameters[i].value.value, before.parameters[i].value.value);

  w.resize(1920, 1080);
  QTest::qWait(150);
  w.grab().save(artifacts() + "/sweep_one_parameter_1920x1080.png");
}

TEST_F(SweepTest, TwoParametersAreAHeatMapWithAnArrowPerVariant) {
  lw::app::MainWindow w;
  openShown(w, "four-bar-synthesis");
  auto* panel = w.sweepPanel();
  w.findChild<QDockWidget*>("SweepDock")->raise();
  panel->firstParameter()->setCurrentText("L1");
  panel->firstFrom()->setValue(0.6);
  panel->firstTo()->setValue(1.2);
  panel->firstPoints()->setValue(9);
  panel->secondOn()->setChecked(true);
  panel->secondParameter()->setCurrentText("L3");
  panel->secondFrom()->setValue(2.6);
  panel->secondTo()->setValue(3.8);
  panel->secondPoints()->setValue(7);
  QTest::mouseClick(panel->runButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntilDone(panel));
  const auto r = panel->result();
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->rows(), 63u);
  auto* plot = panel->plot();
  QCPColorMap* map = nullptr;
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (auto* m = qobject_cast<QCPColorMap*>(plot->plottable(i))) map = m;
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->data()->keySize(), 9);
  EXPECT_EQ(map->data()->valueSize(), 7);
  // the cell of (L1 = 0.75, L3 = 3.0) is that row's cost
  const std::size_t row = 2 * 7 + 2;
  EXPECT_EQ(map->data()->cell(2, 2), r->table[row * r->columns.size() + 2]);
  EXPECT_EQ(plot->itemCount(), static_cast<int>(r->rows() - r->failed()));
  w.grab().save(artifacts() + "/sweep_two_parameters_1280x800.png");
  w.resize(1920, 1080);
  QTest::qWait(150);
  w.grab().save(artifacts() + "/sweep_two_parameters_1920x1080.png");
}

TEST_F(SweepTest, StopEndsASweepAndAnotherDocumentDropsIt) {
  lw::app::MainWindow w;
  openShown(w, "five-bar");
  auto* panel = w.sweepPanel();
  w.findChild<QDockWidget*>("SweepDock")->raise();
  panel->firstParameter()->setCurrentText("L_s1");
  panel->firstFrom()->setValue(2.0);
  panel->firstTo()->setValue(2.4);
  panel->firstPoints()->setValue(60);
  QTest::mouseClick(panel->runButton(), Qt::LeftButton);
  ASSERT_TRUE(panel->running());
  QTest::qWait(300);
  QTest::mouseClick(panel->stopButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntilDone(panel, 30000));
  ASSERT_NE(panel->result(), nullptr);
  EXPECT_TRUE(panel->status()->text().contains("stopped")) << panel->status()->text().toStdString();
  EXPECT_GT(panel->result()->failed(), 0u);  // the variants not run say "cancelled"
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar-synthesis.json", false));
  QTest::qWait(50);
  EXPECT_EQ(panel->result(), nullptr);
  EXPECT_EQ(panel->plot()->plottableCount(), 0);
  EXPECT_EQ(panel->firstParameter()->currentText(), "L1");
}

}  // namespace
