// GUI tests of the sketch view with simulated mouse input on the real main window: draw a four-bar
// from scratch (pivots, links, driver), check its DOF and groups, drag the crank and compare the
// positions with the engine's solution, undo and redo the drawing, drag a pivot (the geometry
// changes). Screenshots land in $LW_TEST_ARTIFACTS: look at them.
#include <gtest/gtest.h>

#include "gui_test_support.h"
#include "sketch_mouse.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QListWidget>
#include <QMenu>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QDir>
#include <QInputDialog>
#include <QTimer>
#include <QTabWidget>
#include <QStatusBar>
#include <QTest>
#include <QUndoStack>
#include <cmath>
#include <numbers>
#include <tuple>

#include "simulation/crank_drag.h"
#include "io/mechanism_io.h"
#include "mechanism/edits.h"
#include "kinematics/natural_model.h"
#include "mechanism/resolved.h"
#include "topology/four_bar.h"
#include "simulation/simulation_run.h"
#include "panels/contact_dialog.h"
#include "panels/limit_dialog.h"
#include "panels/switch_dialog.h"
#include "panels/driver_dialog.h"
#include "panels/initial_velocity_dialog.h"
#include "panels/force_dialog.h"
#include "panels/item_choices.h"
#include "panels/property_editor.h"
#include "panels/joint_dialog.h"
#include "kinematics/structural_groups.h"
#include "main_window.h"
#include "view3d/vtk_host_widget.h"
#include "sketch/sketch_view.h"

namespace {

using lw::test::artifacts;

class SketchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    QCoreApplication::setOrganizationName("LinkwrightTests");
    QCoreApplication::setApplicationName("linkwright-sketch-test");
  }
};

using lw::test::at;
using lw::test::click;
using lw::test::trigger;

// a four-bar drawn with the mouse: pivots A (0, 0) and D (4, 0); crank to B, coupler to C, rocker to D
void drawFourBar(lw::app::MainWindow& w) {
  auto* v = w.sketchView();
  trigger(w, "ToolGroundPivot");
  click(v, 0, 0);
  click(v, 4, 0);
  trigger(w, "ToolLink");
  click(v, 0, 0), click(v, 0.5, 0.9);      // crank A–B (B snaps to the 0.1 m grid)
  click(v, 0.5, 0.9), click(v, 3.5, 2.0);  // coupler B–C: starts on B (pin)
  click(v, 3.5, 2.0), click(v, 4, 0);      // rocker C–D: pins at both ends
  trigger(w, "ToolDriver");
  click(v, 0.25, 0.45);  // on the crank
}

// a new document on the sketch tab at 100 px per metre around (cx, cy)
lw::widgets::SketchView* newSketch(lw::app::MainWindow& w, double cx, double cy) {
  w.resize(1400, 900);
  w.show();
  EXPECT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.newDocument();
  auto* v = w.sketchView();
  v->resetTransform();
  v->scale(100, 100);
  v->centerOn(v->toScene(cx, cy));
  QApplication::processEvents();
  return v;
}

// a slider-crank's pivot and links: crank (0, 0)–(0.3, 0.4), rod to (2.2, 0)
void drawCrankAndRod(lw::app::MainWindow& w, lw::widgets::SketchView* v) {
  trigger(w, "ToolGroundPivot");
  click(v, 0, 0);
  trigger(w, "ToolLink");
  click(v, 0, 0), click(v, 0.3, 0.4);
  click(v, 0.3, 0.4), click(v, 2.2, 0.0);
}

// Select-drags the crank of drawCrankAndRod half a turn with the mouse
void turnCrankHalfATurn(lw::app::MainWindow& w, lw::widgets::SketchView* v) {
  trigger(w, "ToolSelect");
  QTest::mousePress(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, 0.15, 0.2));
  for (int k = 1; k <= 18; ++k) {
    const double a = std::atan2(0.4, 0.3) + std::numbers::pi * k / 18;
    const QPoint p = at(v, 0.25 * std::cos(a), 0.25 * std::sin(a));
    QMouseEvent move(QEvent::MouseMove, p, v->viewport()->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(v->viewport(), &move);
  }
  QTest::mouseRelease(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, -0.15, -0.2));
}

TEST_F(SketchTest, DrawAFourBarFromScratchDragItAndUndo) {
  lw::app::MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.newDocument();
  ASSERT_EQ(w.views()->currentWidget(), w.sketchView());
  auto* v = w.sketchView();
  // a known zoom: 100 px per metre around the drawing (the grid snaps to 0.1 m)
  v->resetTransform();
  v->scale(100, 100);
  v->centerOn(v->toScene(2, 1));
  QApplication::processEvents();

  drawFourBar(w);
  const lw::Mechanism* m = w.mechanism();
  ASSERT_EQ(m->bodies.size(), 3u);
  ASSERT_EQ(m->joints.size(), 4u) << v->summary().toStdString();
  ASSERT_EQ(m->drivers.size(), 1u) << v->summary().toStdString();
  EXPECT_TRUE(v->summary().startsWith("1 DOF, 1 driven")) << v->summary().toStdString();
  EXPECT_TRUE(v->summary().contains("crank") && v->summary().contains("RRR dyad")) << v->summary().toStdString();
  w.grab().save(artifacts() + "/sketch_four_bar_drawn.png");

  // drag the crank a quarter turn anticlockwise with the mouse: B moves from (0.5, 0.9) around A
  trigger(w, "ToolSelect");
  ASSERT_NEAR(m->bodies[0].angle.value, std::atan2(0.9, 0.5), 1e-12);  // B snapped to (0.5, 0.9)
  const double r = std::hypot(0.5, 0.9), a0 = std::atan2(0.9, 0.5);
  QTest::mousePress(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, 0.25, 0.45));
  for (int k = 1; k <= 12; ++k) {
    const double a = a0 + (std::numbers::pi / 2) * k / 12;
    QMouseEvent move(QEvent::MouseMove, at(v, r * 0.5 * std::cos(a), r * 0.5 * std::sin(a)), v->viewport()->mapToGlobal(at(v, r * 0.5 * std::cos(a), r * 0.5 * std::sin(a))),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(v->viewport(), &move);
  }
  QTest::mouseRelease(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, r * 0.5 * std::cos(a0 + std::numbers::pi / 2), r * 0.5 * std::sin(a0 + std::numbers::pi / 2)));
  QApplication::processEvents();
  // the engine at the same crank angle (pixel rounding of the mouse: within a degree)
  const auto& poses = v->shownPoses();
  ASSERT_EQ(poses.size(), 4u * 12);
  const double crankAngle = std::atan2(poses[12 + 3], poses[12 + 0]);  // body 1's rotation
  EXPECT_NEAR(crankAngle, a0 + std::numbers::pi / 2, 0.03);  // the mouse moves in whole pixels
  auto drag = lw::analysis::CrankDrag::create(*m, nullptr);
  ASSERT_TRUE(drag);
  ASSERT_TRUE(drag->solve(crankAngle - a0).ok());
  for (std::size_t i = 0; i < poses.size(); ++i) EXPECT_NEAR(poses[i], drag->poses()[i], 1e-6) << i;
  // the document did not change: dragging the crank only moves the view
  EXPECT_EQ(w.undoStack()->count(), 6);  // 2 pivots, 3 links, 1 driver
  w.grab().save(artifacts() + "/sketch_four_bar_dragged.png");

  // undo everything, then redo it: the same mechanism
  const lw::Mechanism drawn = *w.mechanism();
  while (w.undoStack()->canUndo()) w.undoStack()->undo();
  EXPECT_TRUE(w.mechanism()->bodies.empty());
  EXPECT_TRUE(w.mechanism()->ground.points.empty());
  while (w.undoStack()->canRedo()) w.undoStack()->redo();
  ASSERT_EQ(w.mechanism()->bodies.size(), drawn.bodies.size());
  EXPECT_EQ(w.mechanism()->joints.size(), drawn.joints.size());
  EXPECT_TRUE(v->summary().startsWith("1 DOF, 1 driven"));

  // Shift + drag the rocker's pivot D from (4, 0) to (4.5, 0): the rocker and the ground change
  QTest::mousePress(v->viewport(), Qt::LeftButton, Qt::ShiftModifier, at(v, 4, 0));
  for (int k = 1; k <= 5; ++k) {
    QMouseEvent move(QEvent::MouseMove, at(v, 4 + 0.1 * k, 0), v->viewport()->mapToGlobal(at(v, 4 + 0.1 * k, 0)), Qt::NoButton,
                     Qt::LeftButton, Qt::ShiftModifier);
    QApplication::sendEvent(v->viewport(), &move);
  }
  QTest::mouseRelease(v->viewport(), Qt::LeftButton, Qt::ShiftModifier, at(v, 4.5, 0));
  QApplication::processEvents();
  EXPECT_EQ(w.undoStack()->count(), 7);
  bool moved = false;
  for (const auto& p : w.mechanism()->ground.points)
    if (std::abs(p.value[0].value - 4.5) < 1e-9 && std::abs(p.value[1].value) < 1e-9) moved = true;
  EXPECT_TRUE(moved);
  EXPECT_TRUE(v->summary().startsWith("1 DOF, 1 driven")) << v->summary().toStdString();
  w.grab().save(artifacts() + "/sketch_four_bar_pivot_moved.png");

  // deleting the driver leaves a free degree of freedom: no fault (it runs under dynamics), said
  // in the neutral colour with how to move it by hand (it read "under-constrained", in red)
  w.undoStack()->undo();
  lw::Mechanism undriven = *w.mechanism();
  undriven.drivers.clear();
  w.applyEdit(undriven, "Remove the driver");
  EXPECT_TRUE(v->summary().startsWith("1 DOF, free: runs under dynamics")) << v->summary().toStdString();
  EXPECT_FALSE(v->showsFault());
  // a fault stays red: a link end on a point without a joint
}

// The five-bar (2 DOF, no driver: a dynamics sample) was shown as broken in red
TEST_F(SketchTest, AFreeMechanismIsNoFault) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", false));
  w.views()->setCurrentWidget(w.sketchView());
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(100);
  auto* v = w.sketchView();
  EXPECT_TRUE(v->summary().startsWith("2 DOF, free: runs under dynamics")) << v->summary().toStdString();
  EXPECT_FALSE(v->showsFault());
  w.grab().save(artifacts() + "/sketch_five_bar_free_1280x800.png");
}

TEST_F(SketchTest, DrawASliderCrank) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 1.2, 0.3);
  drawCrankAndRod(w, v);
  // a link started by mistake is dropped with Escape
  click(v, 1.0, 1.0);
  QTest::keyClick(v, Qt::Key_Escape);
  click(v, 1.5, 1.0);
  EXPECT_EQ(w.mechanism()->bodies.size(), 2u) << "no link from the cancelled start";
  trigger(w, "ToolSlider");
  click(v, 2.2, 0.0);
  trigger(w, "ToolDriver");
  click(v, 0.15, 0.2);
  EXPECT_TRUE(v->summary().startsWith("1 DOF, 1 driven")) << v->summary().toStdString();
  EXPECT_TRUE(v->summary().contains("crank") && v->summary().contains("RRP dyad")) << v->summary().toStdString();
  // turn the crank half a turn: the block stays on its guide (y = 0)
  turnCrankHalfATurn(w, v);
  const auto& poses = v->shownPoses();
  ASSERT_EQ(poses.size(), 4u * 12);
  EXPECT_NEAR(poses[3 * 12 + 10], 0.0, 1e-9) << "the block left its guide";
  EXPECT_LT(poses[3 * 12 + 9], 2.2 - 0.3) << "the block did not move";
  w.grab().save(artifacts() + "/sketch_slider_crank.png");
}

// Model > Change Selected Joint...: the rocker's ground pin becomes a slider (with an axis on each
// body), the rocker then translates and the groups follow; a change the resolver refuses leaves
// the model as it was; undo brings the pin back
TEST_F(SketchTest, ChangeTheRockerPivotIntoASlider) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  ASSERT_TRUE(v->summary().contains("RRR dyad")) << v->summary().toStdString();
  int pivot = -1;
  for (std::size_t j = 0; j < w.mechanism()->joints.size(); ++j)
    if (w.mechanism()->joints[j].points[0].str() == "ground.O2" || w.mechanism()->joints[j].points[1].str() == "ground.O2")
      pivot = static_cast<int>(j);
  ASSERT_GE(pivot, 0);
  const std::string name = w.mechanism()->joints[static_cast<std::size_t>(pivot)].name;
  // no vectors yet: a slider needs axes, so the change is refused and nothing changes
  const lw::Mechanism before = *w.mechanism();
  auto toSlider = [](lw::widgets::JointDialog& d) {
    ASSERT_TRUE(d.choose("type", "slider"));
    for (int s = 0; s < 2; ++s)
      if (d.axisBox(s)->count() > 0) d.axisBox(s)->setCurrentIndex(0);
  };
  EXPECT_FALSE(w.changeJoint(pivot, toSlider));
  EXPECT_TRUE(w.findChild<QPlainTextEdit*>()->toPlainText().contains("needs \"axes\": one vector on each body"))
      << w.findChild<QPlainTextEdit*>()->toPlainText().toStdString();
  EXPECT_EQ(w.mechanism()->joints[static_cast<std::size_t>(pivot)].type, lw::JointType::Pin);
  EXPECT_EQ(w.undoStack()->count(), 6);
  // with the ground's x and a parallel vector on the (tilted) rocker it goes through
  lw::Mechanism withAxes = *w.mechanism();
  ASSERT_TRUE(lw::edit::addVector(withAxes, "ground").ok);
  ASSERT_TRUE(lw::edit::addVector(withAxes, "link3").ok);
  const double tilt = withAxes.bodies[2].angle.value;
  withAxes.bodies[2].vectors.back().value = {lw::Number(std::cos(tilt)), lw::Number(-std::sin(tilt))};
  w.applyEdit(withAxes, "Add axes");
  ASSERT_TRUE(w.changeJoint(pivot, toSlider));
  const auto& changed = w.mechanism()->joints[static_cast<std::size_t>(pivot)];
  EXPECT_EQ(changed.name, name);
  EXPECT_EQ(changed.type, lw::JointType::Slider);
  ASSERT_EQ(changed.axes.size(), 2u);
  EXPECT_TRUE(v->summary().startsWith("1 DOF, 1 driven")) << v->summary().toStdString();
  EXPECT_TRUE(v->summary().contains("RRP dyad")) << v->summary().toStdString();
  // turning the crank moves the rocker without turning it
  auto drag = lw::analysis::CrankDrag::create(*w.mechanism(), nullptr);
  ASSERT_TRUE(drag);
  ASSERT_TRUE(drag->solve(1.5).ok());
  const double* rocker = &drag->poses()[12 * 3];
  EXPECT_NEAR(rocker[3], std::sin(tilt), 1e-9) << "the rocker turned on its slider";
  EXPECT_NEAR(rocker[10], 2.0, 1e-9) << "the rocker left its guide";
  EXPECT_GT(std::abs(rocker[9] - 3.5), 0.05) << "the rocker did not move";
  auto messages = [&] { return w.findChild<QPlainTextEdit*>()->toPlainText(); };
  EXPECT_FALSE(messages().contains("Warning")) << messages().toStdString();
  // the joint selected in the tree offers the change in Properties
  auto* tree = w.findChild<QTreeWidget*>();
  for (QTreeWidgetItemIterator it(tree); *it; ++it)
    if ((*it)->data(0, Qt::UserRole).toString() == QString("joints[%1]").arg(pivot)) tree->setCurrentItem(*it);
  QApplication::processEvents();
  auto* button = w.findChild<QPushButton*>("ChangeItemButton");
  ASSERT_NE(button, nullptr);
  EXPECT_TRUE(button->isVisible());
  w.grab().save(artifacts() + "/sketch_changed_joint.png");
  // axes that are not parallel in the drawing: accepted (the assembly lines them up) with a warning
  lw::Mechanism tilted = *w.mechanism();
  ASSERT_TRUE(lw::edit::addVector(tilted, "link3").ok);
  w.applyEdit(tilted, "Add a tilted vector");
  ASSERT_TRUE(w.changeJoint(pivot, [](lw::widgets::JointDialog& d) { d.axisBox(1)->setCurrentIndex(1); }));
  EXPECT_TRUE(messages().contains("Warning") && messages().contains("parallel")) << messages().toStdString();
  w.undoStack()->undo();
  w.undoStack()->undo();
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->joints[static_cast<std::size_t>(pivot)].type, lw::JointType::Pin);
  EXPECT_TRUE(v->summary().contains("RRR dyad")) << v->summary().toStdString();
  EXPECT_EQ(w.mechanism()->joints[static_cast<std::size_t>(pivot)].axes.size(), 0u);
  (void)before;
}

// the Slider tool dragged from the point sets the guide's direction (snapped to 15°): the block
// then stays on the inclined guide while the crank turns
TEST_F(SketchTest, DragTheSliderToolToInclineTheGuide) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 1.2, 0.3);
  drawCrankAndRod(w, v);
  trigger(w, "ToolSlider");
  QTest::mousePress(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, 2.2, 0.0));
  // 31° by the mouse: snapped to 30°
  const double a = 31 * std::numbers::pi / 180;
  const QPoint to = at(v, 2.2 + 0.8 * std::cos(a), 0.8 * std::sin(a));
  QMouseEvent move(QEvent::MouseMove, to, v->viewport()->mapToGlobal(to), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(v->viewport(), &move);
  w.grab().save(artifacts() + "/sketch_slider_guide_drag.png");
  QTest::mouseRelease(v->viewport(), Qt::LeftButton, Qt::NoModifier, to);
  const auto& g = w.mechanism()->ground;
  ASSERT_EQ(g.vectors.size(), 1u);
  EXPECT_NEAR(g.vectors[0].value[0].value, std::cos(std::numbers::pi / 6), 1e-12);
  EXPECT_NEAR(g.vectors[0].value[1].value, 0.5, 1e-12);
  trigger(w, "ToolDriver");
  click(v, 0.15, 0.2);
  EXPECT_TRUE(v->summary().contains("RRP dyad")) << v->summary().toStdString();
  turnCrankHalfATurn(w, v);
  const auto& poses = v->shownPoses();
  ASSERT_EQ(poses.size(), 4u * 12);
  const double x = poses[3 * 12 + 9] - 2.2, y = poses[3 * 12 + 10];
  EXPECT_GT(std::hypot(x, y), 0.1) << "the block did not move";
  EXPECT_NEAR(x * 0.5 - y * std::cos(std::numbers::pi / 6), 0.0, 1e-9) << "the block left its 30° guide";
  w.grab().save(artifacts() + "/sketch_slider_inclined.png");
}

}  // namespace


namespace {

void selectInTree(lw::app::MainWindow& w, const QString& path) {
  auto* tree = w.findChild<QTreeWidget*>();
  for (QTreeWidgetItemIterator it(tree); *it; ++it)
    if ((*it)->data(0, Qt::UserRole).toString() == path) tree->setCurrentItem(*it);
  QApplication::processEvents();
}

// the dialog as the user sees it, saved beside the window's screenshots
template <class Dialog>
void saveDialog(Dialog& d, const QString& file) {
  d.show();
  QApplication::processEvents();
  d.grab().save(artifacts() + "/" + file);
  d.hide();
}

}  // namespace

// Model > Change Selected... on the crank's driver moves it to the rocker (the rocker becomes the
// crank of the decomposition); Add Force... puts a spring from pivot A to C that starts unloaded
// (natural length = the drawn distance); the spring becomes a force on C, is deleted, and undo
// brings each step back. A function that does not parse is refused with the reason.
TEST_F(SketchTest, DriversAndForcesThroughTheirDialogs) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  ASSERT_EQ(w.mechanism()->drivers.size(), 1u);
  std::string rockerPivot;
  for (const auto& j : w.mechanism()->joints)
    if (j.points[0].str() == "ground.O2" || j.points[1].str() == "ground.O2") rockerPivot = j.name;
  ASSERT_FALSE(rockerPivot.empty());
  auto messages = [&] { return w.findChild<QPlainTextEdit*>()->toPlainText(); };
  const int edits = w.undoStack()->count();

  // the driver selected in the tree offers its change in Properties
  selectInTree(w, "drivers[0]");
  auto* button = w.findChild<QPushButton*>("ChangeItemButton");
  ASSERT_NE(button, nullptr);
  EXPECT_TRUE(button->isVisible());
  // a function that does not parse: refused, nothing changes
  EXPECT_FALSE(w.changeDriver(0, [](lw::widgets::DriverDialog& d) { d.functionEdit()->setText("2*pi*"); }));
  EXPECT_TRUE(messages().contains("Driver motor1 was not changed: the function '2*pi*' is not valid")) << messages().toStdString();
  EXPECT_EQ(w.undoStack()->count(), edits);
  // onto the rocker's pivot, half a turn per second
  ASSERT_TRUE(w.changeDriver(0, [&](lw::widgets::DriverDialog& d) {
    ASSERT_TRUE(lw::widgets::selectText(d.jointBox(), QString::fromStdString(rockerPivot)));
    d.functionEdit()->setText("pi*t");
    saveDialog(d, "dialog_change_driver.png");
  }));
  EXPECT_EQ(w.mechanism()->drivers[0].joint, rockerPivot);
  EXPECT_EQ(w.mechanism()->drivers[0].function.expression.text(), "pi*t");
  {
    lw::Diagnostics d;
    const auto r = lw::resolve(*w.mechanism(), d);
    ASSERT_TRUE(r.has_value());
    const auto groups = lw::kin::decompose(lw::kin::compileNaturalModel(*r));
    ASSERT_TRUE(groups.ok) << groups.error;
    EXPECT_EQ(lw::kin::describe(groups, *r), "{link3} {link1, link2}");
  }
  EXPECT_TRUE(v->summary().startsWith("1 DOF, 1 driven")) << v->summary().toStdString();

  // a spring from A to C: unloaded at the drawn position
  ASSERT_TRUE(w.addForce([](lw::widgets::ForceDialog& d) {
    ASSERT_TRUE(d.choose("points", "ground.O1", 0));
    ASSERT_TRUE(d.choose("points", "link2.P2", 1));
    d.field("stiffness")->setText("50");
    saveDialog(d, "dialog_add_spring.png");
  }));
  ASSERT_EQ(w.mechanism()->forces.size(), 1u);
  const lw::Force& spring = w.mechanism()->forces[0];
  EXPECT_EQ(spring.type, lw::Force::Type::Spring);
  EXPECT_EQ(spring.points[1].str(), "link2.P2");
  EXPECT_EQ(spring.stiffness.value, 50.0);
  EXPECT_NEAR(spring.naturalLength.value, std::hypot(3.5, 2.0), 1e-5) << "a new spring should start unloaded";
  EXPECT_EQ(w.propertyEditor()->item(), "forces[0]");
  EXPECT_TRUE(w.findChild<QPushButton*>("ChangeItemButton")->isVisible());
  w.grab().save(artifacts() + "/sketch_spring_added.png");

  // the spring becomes a downward force on C that grows with time
  ASSERT_TRUE(w.changeForce(0, [](lw::widgets::ForceDialog& d) {
    ASSERT_TRUE(d.choose("type", "force"));
    ASSERT_TRUE(d.choose("point", "link2.P2"));
    EXPECT_EQ(d.field("value")->text(), "0, 0");  // zero until given
    d.field("value")->setText("0, -10*t");
    saveDialog(d, "dialog_change_force.png");
  }));
  EXPECT_EQ(w.mechanism()->forces[0].type, lw::Force::Type::PointForce);
  EXPECT_EQ(w.mechanism()->forces[0].point.str(), "link2.P2");
  ASSERT_EQ(w.mechanism()->forces[0].value.size(), 2u);
  EXPECT_EQ(w.mechanism()->forces[0].value[1].expression.text(), "-10*t");
  // a number that does not parse names the field
  EXPECT_FALSE(w.changeForce(0, [](lw::widgets::ForceDialog& d) { d.field("value")->setText("3 +, 0"); }));
  EXPECT_TRUE(messages().contains("Force spring1 was not changed: the value '3 +' is not valid")) << messages().toStdString();

  // Delete Selected removes it; undo brings back each step
  selectInTree(w, "forces[0]");
  trigger(w, "DeleteSelected");
  EXPECT_TRUE(w.mechanism()->forces.empty());
  EXPECT_EQ(w.undoStack()->count(), edits + 4);
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->forces[0].type, lw::Force::Type::PointForce);
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->forces[0].type, lw::Force::Type::Spring);
  w.undoStack()->undo();
  EXPECT_TRUE(w.mechanism()->forces.empty());
  w.undoStack()->undo();
  EXPECT_NE(w.mechanism()->drivers[0].joint, rockerPivot);
  EXPECT_EQ(w.mechanism()->drivers[0].function.expression.text(), "2*pi*t");
}

// Set Initial Velocity... gives the ball a new throw (it replaces the sample's one: one per body),
// which a simulation then follows; Change Selected... on the floor contact changes its
// restitution, and a restitution outside [0, 1] or one that does not parse is refused with the
// reason; Add Contact... adds a second plane, Delete Selected removes it, and undo steps back.
TEST_F(SketchTest, ContactsAndInitialVelocitiesThroughTheirDialogs) {
  lw::app::MainWindow w;
  w.resize(1200, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/bouncing-ball.json", false));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  auto messages = [&] { return w.findChild<QPlainTextEdit*>()->toPlainText(); };
  const int edits = w.undoStack()->count();
  ASSERT_EQ(w.mechanism()->initialVelocities.size(), 1u);

  // a throw at 3 m/s along x and 2 m/s up
  ASSERT_TRUE(w.addInitialVelocity([](lw::widgets::InitialVelocityDialog& d) {
    ASSERT_TRUE(d.choose("type", "body"));
    ASSERT_TRUE(d.choose("body", "ball"));
    EXPECT_EQ(d.field("angular_velocity")->text(), "0");  // zero until given
    d.field("velocity")->setText("3, 2");
    saveDialog(d, "dialog_initial_velocity.png");
  }));
  ASSERT_EQ(w.mechanism()->initialVelocities.size(), 1u) << "one initial velocity per body";
  EXPECT_EQ(w.propertyEditor()->item(), "initial_velocities[0]");
  EXPECT_TRUE(w.findChild<QPushButton*>("ChangeItemButton")->isVisible());
  {
    lw::Diagnostics d;
    const auto r = lw::resolve(*w.mechanism(), d);
    ASSERT_TRUE(r.has_value());
    lw::analysis::SimulationSpec spec;
    spec.tEnd = 0.2;
    spec.dt = 1e-3;
    const auto run = lw::analysis::runSimulation(*r, spec);
    ASSERT_TRUE(run.status.ok()) << run.status.message;
    const auto col = [&](const char* name) {
      return static_cast<std::size_t>(std::find(run.columns.begin(), run.columns.end(), name) - run.columns.begin());
    };
    const std::size_t last = (run.rows() - 1) * run.columns.size();
    ASSERT_LT(col("ball.C.y"), run.columns.size());
    // free flight from (0, 1): x = 3 t, y = 1 + 2 t − g t²/2 (no bounce before t = 0.2)
    const double t = run.values[last];
    EXPECT_NEAR(run.values[last + col("ball.C.x")], 3 * t, 1e-6);
    EXPECT_NEAR(run.values[last + col("ball.C.y")], 1 + 2 * t - 9.81 * t * t / 2, 1e-6);
  }

  // the floor's restitution: refused when it does not parse or lies outside [0, 1]
  EXPECT_FALSE(w.changeContact(0, [](lw::widgets::ContactDialog& d) { d.restitutionEdit()->setText("0.5 *"); }));
  EXPECT_TRUE(messages().contains("Contact floor was not changed: the restitution '0.5 *' is not valid")) << messages().toStdString();
  EXPECT_FALSE(w.changeContact(0, [](lw::widgets::ContactDialog& d) { d.restitutionEdit()->setText("1.5"); }));
  EXPECT_TRUE(messages().contains("between 0 and 1 (found 1.5)")) << messages().toStdString();
  ASSERT_TRUE(w.changeContact(0, [](lw::widgets::ContactDialog& d) {
    d.restitutionEdit()->setText("0.5");
    saveDialog(d, "dialog_change_contact.png");
  }));
  EXPECT_EQ(w.mechanism()->contacts[0].restitution.value, 0.5);
  EXPECT_EQ(w.mechanism()->contacts[0].name, "floor");

  // a second plane through the same point, then deleted
  ASSERT_TRUE(w.addContact([](lw::widgets::ContactDialog& d) {
    ASSERT_TRUE(lw::widgets::selectText(d.pointBox(), "ball.C"));
    ASSERT_TRUE(lw::widgets::selectText(d.planeNormalBox(), "ground.up"));
    d.radiusEdit()->setText("0.1");
  }));
  ASSERT_EQ(w.mechanism()->contacts.size(), 2u);
  EXPECT_EQ(w.mechanism()->contacts[1].name, "contact1");
  EXPECT_EQ(w.propertyEditor()->item(), "contacts[1]");
  w.grab().save(artifacts() + "/main_window_contacts.png");
  selectInTree(w, "contacts[1]");
  trigger(w, "DeleteSelected");
  EXPECT_EQ(w.mechanism()->contacts.size(), 1u);
  selectInTree(w, "initial_velocities[0]");
  trigger(w, "DeleteSelected");
  EXPECT_TRUE(w.mechanism()->initialVelocities.empty());
  EXPECT_EQ(w.undoStack()->count(), edits + 5);
  for (int i = 0; i < 5; ++i) w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->contacts.size(), 1u);
  EXPECT_EQ(w.mechanism()->contacts[0].restitution.value, 0.8);
  ASSERT_EQ(w.mechanism()->initialVelocities.size(), 1u);
  EXPECT_EQ(w.mechanism()->initialVelocities[0].velocity[0].value, 1.0);
}

// Issue 24 (no dialog for limits): Model > Add Limit... puts end stops on a joint, in degrees for
// a pin (the file keeps radians); bounds in the wrong order are refused with the reason; Change
// Selected... shows the degrees again and changes the restitution; Delete and Undo step back.
TEST_F(SketchTest, JointLimitsThroughTheirDialog) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  auto messages = [&] { return w.findChild<QPlainTextEdit*>()->toPlainText(); };
  const int edits = w.undoStack()->count();
  EXPECT_FALSE(w.addLimit([](lw::widgets::LimitDialog& d) {
    ASSERT_TRUE(lw::widgets::selectText(d.jointBox(), "D"));
    d.minEdit()->setText("170");
    d.maxEdit()->setText("-170");
  }));
  EXPECT_TRUE(messages().contains("The limit was not added: The lowest bound must be below the highest")) << messages().toStdString();
  ASSERT_TRUE(w.addLimit([](lw::widgets::LimitDialog& d) {
    ASSERT_TRUE(lw::widgets::selectText(d.jointBox(), "D"));
    EXPECT_TRUE(d.rotation());
    d.minEdit()->setText("-170");
    d.maxEdit()->setText("170");
    d.restitutionEdit()->setText("0.6");
    saveDialog(d, "dialog_add_limit.png");
  }));
  ASSERT_EQ(w.mechanism()->limits.size(), 1u);
  const auto& l = w.mechanism()->limits[0];
  EXPECT_EQ(l.name, "limit1");
  EXPECT_EQ(l.joint, "D");
  EXPECT_NEAR(l.min.value, -170 * M_PI / 180, 1e-15);
  EXPECT_NEAR(l.max.value, 170 * M_PI / 180, 1e-15);
  EXPECT_EQ(l.restitution.value, 0.6);
  EXPECT_EQ(w.propertyEditor()->item(), "limits[0]");
  ASSERT_TRUE(w.changeLimit(0, [](lw::widgets::LimitDialog& d) {
    EXPECT_EQ(d.minEdit()->text(), "-170");
    EXPECT_EQ(d.maxEdit()->text(), "170");
    d.maxEdit()->clear();  // no highest bound
    d.restitutionEdit()->setText("0.9");
  }));
  EXPECT_FALSE(w.mechanism()->limits[0].hasMax);
  EXPECT_EQ(w.mechanism()->limits[0].restitution.value, 0.9);
  selectInTree(w, "limits[0]");
  trigger(w, "DeleteSelected");
  EXPECT_TRUE(w.mechanism()->limits.empty());
  EXPECT_EQ(w.undoStack()->count(), edits + 3);
  w.undoStack()->undo();
  ASSERT_EQ(w.mechanism()->limits.size(), 1u);
  EXPECT_EQ(w.mechanism()->limits[0].restitution.value, 0.9);
}

// Issue 24 (no dialog for switches): Model > Add Switch... on the T4 sample's point: its forces
// ticked to enable and disable at a crossing; a force both enabled and disabled, or none ticked,
// is refused with the reason; Change Selected... shows the choices again; Delete and Undo.
TEST_F(SketchTest, SwitchesThroughTheirDialog) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/switch-t4.json", false));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  auto messages = [&] { return w.findChild<QPlainTextEdit*>()->toPlainText(); };
  const int edits = w.undoStack()->count();
  ASSERT_EQ(w.mechanism()->switches.size(), 1u);
  auto tick = [](QListWidget* list, const QString& name) {
    for (int r = 0; r < list->count(); ++r)
      if (list->item(r)->text() == name) list->item(r)->setCheckState(Qt::Checked);
  };
  EXPECT_FALSE(w.addSwitch([&](lw::widgets::SwitchDialog& d) {
    tick(d.enableList(), "before");
    tick(d.disableList(), "before");
  }));
  EXPECT_TRUE(messages().contains("The switch was not added: Force before is both enabled and disabled")) << messages().toStdString();
  ASSERT_TRUE(w.addSwitch([&](lw::widgets::SwitchDialog& d) {
    ASSERT_TRUE(d.choose("point", "point.C"));
    ASSERT_TRUE(d.choose("component", "x"));
    ASSERT_TRUE(d.choose("direction", "rising"));
    d.valueEdit()->setText("0.5");
    tick(d.enableList(), "before");
    tick(d.disableList(), "after");
    saveDialog(d, "dialog_add_switch.png");
  }));
  ASSERT_EQ(w.mechanism()->switches.size(), 2u);
  const auto& s = w.mechanism()->switches[1];
  EXPECT_EQ(s.name, "switch1");
  EXPECT_EQ(s.point.str(), "point.C");
  EXPECT_EQ(s.component, lw::Component::X);
  EXPECT_FALSE(s.falling);
  EXPECT_EQ(s.value.value, 0.5);
  EXPECT_EQ(s.enable, std::vector<std::string>{"before"});
  EXPECT_EQ(s.disable, std::vector<std::string>{"after"});
  EXPECT_EQ(w.propertyEditor()->item(), "switches[1]");
  // the sample's own switch, shown as it is, then falling at 0.1
  ASSERT_TRUE(w.changeSwitch(0, [](lw::widgets::SwitchDialog& d) {
    EXPECT_EQ(d.list("point")->currentData().toString(), "point.C");
    EXPECT_EQ(d.list("component")->currentData().toString(), "y");
    EXPECT_EQ(d.list("joint")->currentData().toString(), "");  // (none)
    EXPECT_EQ(d.list("direction")->currentData().toString(), "falling");
    EXPECT_EQ(d.enableList()->item(1)->checkState(), Qt::Checked);  // "after"
    d.valueEdit()->setText("0.1");
  }));
  EXPECT_EQ(w.mechanism()->switches[0].value.value, 0.1);
  selectInTree(w, "switches[1]");
  trigger(w, "DeleteSelected");
  EXPECT_EQ(w.mechanism()->switches.size(), 1u);
  EXPECT_EQ(w.undoStack()->count(), edits + 3);
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->switches.size(), 2u);
}

// Issue 24 defect 1: at the default zoom (60 px per metre, a 0.5 m grid) a link end clicked
// 13 px from a pivot was put on it by the grid snap but not joined to it: the drawing looked
// closed while the banner said 3 DOF. The point now wins within the grid's reach, and an end
// lying on a point without a joint is ringed and named in the banner.
TEST_F(SketchTest, AnEndSnappedOntoAPointIsJoinedToIt) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 1, 0.5);
  v->resetTransform();
  v->scale(60, 60);
  v->centerOn(v->toScene(1, 0.5));
  QApplication::processEvents();
  trigger(w, "ToolGroundPivot");
  click(v, 0, 0);
  click(v, 2, 0);
  trigger(w, "ToolLink");
  click(v, 0, 0), click(v, 0.5, 1.0);
  click(v, 0.5, 1.0), click(v, 1.5, 1.0);
  click(v, 1.5, 1.0);
  // the last end 13 px from pivot (2, 0): (2 + 0.2, 0 + 0.1) m at 60 px per metre
  QTest::mouseClick(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, 2.2, 0.1));
  QApplication::processEvents();
  const lw::Mechanism* m = w.mechanism();
  ASSERT_EQ(m->bodies.size(), 3u);
  EXPECT_EQ(m->joints.size(), 4u) << "the rocker's end is pinned to the pivot: " << v->summary().toStdString();
  EXPECT_TRUE(v->summary().startsWith("1 DOF")) << v->summary().toStdString();
  EXPECT_TRUE(v->unjoinedPoints().empty());

  // a drawing whose end lies on a point without a joint says so and rings it
  lw::Mechanism open = *m;
  open.joints.pop_back();
  w.replaceMechanism(open);
  ASSERT_EQ(v->unjoinedPoints().size(), 1u);
  EXPECT_NEAR(v->unjoinedPoints()[0].x(), 2.0, 1e-12);
  EXPECT_TRUE(v->summary().startsWith("A link end lies on a point without a joint")) << v->summary().toStdString();
  QTest::qWait(50);
  w.grab().save(artifacts() + "/sketch_unjoined_end.png");
}

// Issue 24 defect 6: a crank dragged by its end had its geometry edited (a mid-link grab turned
// it); a crank that could not go further reported "t = −3.239"; a non-Grashof crank could not be
// rocked; nothing said the Grashof type or the transmission angle.
TEST_F(SketchTest, ACrankTurnsByAnyPartRocksBetweenItsLimitsAndSaysItsType) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  ASSERT_TRUE(v->summary().startsWith("1 DOF, 1 driven")) << v->summary().toStdString();
  const QStringList lines = v->fourBarLines();
  ASSERT_EQ(lines.size(), 1);
  EXPECT_TRUE(lines[0].contains("Grashof crank-rocker")) << lines[0].toStdString();
  EXPECT_TRUE(lines[0].contains("transmission angle")) << lines[0].toStdString();
  // flagged below the user's threshold (40° by default), from the loop's extremes over the motion
  // (a four-bar falling to 4° was not flagged)
  {
    const auto loops = lw::topology::fourBarLoops(lw::resolve(*w.mechanism(), *std::make_unique<lw::Diagnostics>()).value());
    ASSERT_EQ(loops.size(), 1u);
    const double worst = std::min(loops[0].minTransmission, 180 - loops[0].maxTransmission);
    v->setTransmissionWarning(worst + 1);
    EXPECT_TRUE(v->fourBarLines()[0].contains("transmits force poorly")) << v->fourBarLines()[0].toStdString();
    v->setTransmissionWarning(worst - 1);
    EXPECT_FALSE(v->fourBarLines()[0].contains("transmits force poorly")) << v->fourBarLines()[0].toStdString();
    v->setTransmissionWarning(40);
    EXPECT_EQ(v->fourBarLines()[0].contains("transmits force poorly"), worst < 40);
  }
  // the crank's end B (0.5, 0.9) dragged a quarter turn round A: it turns, nothing is edited
  const int edits = w.undoStack()->count();
  const double before = v->crankAngle();
  trigger(w, "ToolSelect");
  QTest::mousePress(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, 0.5, 0.9));
  const double a0 = std::atan2(0.9, 0.5);
  for (int k = 1; k <= 9; ++k) {
    const double a = a0 + std::numbers::pi / 2 * k / 9;
    const QPoint p = at(v, std::hypot(0.5, 0.9) * std::cos(a), std::hypot(0.5, 0.9) * std::sin(a));
    QMouseEvent move(QEvent::MouseMove, p, v->viewport()->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(v->viewport(), &move);
  }
  QTest::mouseRelease(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, 0, 0));
  EXPECT_EQ(w.undoStack()->count(), edits) << "dragging the crank's end edited the geometry";
  EXPECT_NEAR(v->crankAngle() - before, 90.0, 3.0);

  // a non-Grashof four-bar (ground 4, crank 3, coupler 3.0, rocker 3.4: s + l > p + q) rocks
  lw::app::MainWindow w2;
  auto* v2 = newSketch(w2, 2, 1.5);
  trigger(w2, "ToolGroundPivot");
  click(v2, 0, 0);
  click(v2, 4, 0);
  trigger(w2, "ToolLink");
  click(v2, 0, 0), click(v2, 0, 3);
  click(v2, 0, 3), click(v2, 3, 3.3);
  click(v2, 3, 3.3), click(v2, 4, 0);
  trigger(w2, "ToolDriver");
  click(v2, 0, 1.5);
  ASSERT_TRUE(v2->summary().startsWith("1 DOF, 1 driven")) << v2->summary().toStdString();
  ASSERT_EQ(v2->fourBarLines().size(), 1);
  EXPECT_TRUE(v2->fourBarLines()[0].contains("non-Grashof")) << v2->fourBarLines()[0].toStdString();
  EXPECT_TRUE(v2->unjoinedPoints().empty()) << v2->unjoinedPoints()[0].transpose();
  // turned by hand past its limit: the message gives the crank angle, not a time
  QString said;
  QObject::connect(v2, &lw::widgets::SketchView::message, [&](const QString& m) { said = m; });
  trigger(w2, "ToolSelect");
  QTest::mousePress(v2->viewport(), Qt::LeftButton, Qt::NoModifier, at(v2, 0, 1.5));
  for (int k = 1; k <= 30; ++k) {
    const double a = std::numbers::pi / 2 + std::numbers::pi * k / 30;  // anticlockwise, away from the rocker: s + l > p + q
    const QPoint p = at(v2, 1.5 * std::cos(a), 1.5 * std::sin(a));
    QMouseEvent move(QEvent::MouseMove, p, v2->viewport()->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(v2->viewport(), &move);
  }
  QTest::mouseRelease(v2->viewport(), Qt::LeftButton, Qt::NoModifier, at(v2, 1, 0));
  EXPECT_TRUE(said.startsWith("The crank stops at")) << said.toStdString();
  EXPECT_FALSE(said.contains("t =")) << said.toStdString();
  // Animate: it swings between its two limits
  trigger(w2, "SketchAnimate");
  ASSERT_TRUE(v2->animating());
  // (each tick turns it 0.05 rad: under a loaded software renderer ticks come late, hence the
  // generous wait, which ends as soon as both limits are met)
  EXPECT_TRUE(QTest::qWaitFor([&] { return v2->rockingLimits() && v2->rockingLimits()->second - v2->rockingLimits()->first > 5; }, 30000));
  ASSERT_TRUE(v2->rockingLimits().has_value());
  EXPECT_GT(v2->rockingLimits()->second - v2->rockingLimits()->first, 5.0);
  w2.grab().save(artifacts() + "/sketch_rocking_triple_rocker.png");
  trigger(w2, "SketchAnimate");
  EXPECT_FALSE(v2->animating());
}

// Issue 24 defect 10: typed lengths for sketched links, as CAD users expect: the first end
// clicked, the mouse giving the direction, "1.25" and Enter
TEST_F(SketchTest, ALinkTakesATypedLength) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 1, 0.5);
  trigger(w, "ToolGroundPivot");
  click(v, 0, 0);
  trigger(w, "ToolLink");
  click(v, 0, 0);
  const QPoint towards = at(v, 1, 1);  // 45°
  QMouseEvent move(QEvent::MouseMove, towards, v->viewport()->mapToGlobal(towards), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(v->viewport(), &move);
  v->setFocus();
  QTest::keyClicks(v, "1.25");
  QTest::keyClick(v, Qt::Key_Return);
  ASSERT_EQ(w.mechanism()->bodies.size(), 1u);
  lw::Diagnostics d;
  const auto r = lw::resolve(*w.mechanism(), d);
  ASSERT_TRUE(r.has_value());
  const auto& link = r->bodies[1];
  const Eigen::Vector3d a = link.position + link.rotation * link.points[0], b = link.position + link.rotation * link.points[1];
  EXPECT_NEAR((b - a).norm(), 1.25, 1e-12);
  EXPECT_NEAR(b.x(), b.y(), 1e-9) << "along the mouse's direction";
  EXPECT_EQ(w.mechanism()->joints.size(), 1u) << "pinned at its start";
}

namespace {

// Geometry edits in any pose (issue 36 item 5): after the crank was turned, Shift + drag of a
// point was refused ("Turn the crank back..."), even with the crank back. Now the edit is of the
// pose shown, which becomes the stored configuration; Reset Pose (Home) returns to the drawing.
TEST_F(SketchTest, TheGeometryIsEditedInThePoseShownAndResetPoseReturns) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  trigger(w, "ToolSelect");
  // turn the crank by hand about 40° round A, from its end B (0.5, 0.9)
  const double start = std::atan2(0.9, 0.5);
  auto turnCrank = [&] {
    std::vector<std::pair<double, double>> through{{0.5, 0.9}};
    for (int k = 1; k <= 8; ++k) through.emplace_back(1.03 * std::cos(start + 0.7 * k / 8), 1.03 * std::sin(start + 0.7 * k / 8));
    lw::test::drag(v, through);
  };
  turnCrank();
  const std::vector<double> turned = v->shownPoses();
  const double crankTurned = std::atan2(turned[12 + 3], turned[12 + 0]);
  ASSERT_GT(std::abs(crankTurned - std::atan2(0.9, 0.5)), 0.3);
  // Reset Pose: the drawing as stored
  trigger(w, "SketchResetPose");
  {
    lw::Diagnostics d;
    const auto r = lw::resolve(*w.mechanism(), d);
    const double stored = std::atan2(r->bodies[1].rotation(1, 0), r->bodies[1].rotation(0, 0));
    EXPECT_NEAR(std::atan2(v->shownPoses()[12 + 3], v->shownPoses()[12 + 0]), stored, 1e-12);
  }
  // turned again, then Shift + drag pivot D (4, 0) to (4.3, 0): accepted in the pose shown
  turnCrank();
  const double crankBefore = std::atan2(v->shownPoses()[12 + 3], v->shownPoses()[12 + 0]);
  const int edits = w.undoStack()->count();
  lw::test::drag(v, {{4, 0}, {4.1, 0}, {4.2, 0}, {4.3, 0}}, Qt::ShiftModifier);
  ASSERT_EQ(w.undoStack()->count(), edits + 1) << w.statusBar()->currentMessage().toStdString();
  const lw::Mechanism& m = *w.mechanism();
  EXPECT_NEAR(m.ground.points[1].value[0].value, 4.3, 1e-9);
  // the stored crank is where it was turned to (the edit's pose), every joint closed
  lw::Diagnostics d;
  const auto r = lw::resolve(m, d);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(std::atan2(r->bodies[1].rotation(1, 0), r->bodies[1].rotation(0, 0)), crankBefore, 1e-6);
  for (const auto& j : r->joints) EXPECT_LT(r->storedJointGap(j), 1e-8) << j.name;
  // Undo: the drawing and the pivot as before
  w.undoStack()->undo();
  EXPECT_NEAR(w.mechanism()->ground.points[1].value[0].value, 4.0, 1e-12);
  // a body whose stored pose is an expression cannot take the pose shown: the edit is refused
  // with the reason (and how to edit it: Reset Pose), nothing changed
  {
    lw::Mechanism withExpression = *w.mechanism();
    lw::Parameter p;
    p.name = "coupler_angle";
    p.value = withExpression.bodies[1].angle;
    withExpression.parameters.push_back(p);
    withExpression.bodies[1].angle = lw::Number::expr("coupler_angle");
    w.replaceMechanism(withExpression);
  }
  turnCrank();
  const std::string before = lw::io::mechanismToString(*w.mechanism());
  const int index = w.undoStack()->index();  // (count() keeps the undone step above it)
  lw::test::drag(v, {{4, 0}, {4.1, 0}, {4.2, 0}, {4.3, 0}}, Qt::ShiftModifier);
  EXPECT_EQ(w.undoStack()->index(), index);
  EXPECT_EQ(lw::io::mechanismToString(*w.mechanism()), before);
  const QString said = w.statusBar()->currentMessage();
  EXPECT_TRUE(said.contains(QString::fromStdString(w.mechanism()->bodies[1].name) + "'s pose is an expression")) << said.toStdString();
  EXPECT_TRUE(said.contains("Reset Pose (Home)")) << said.toStdString();
  // Reset Pose, then the same edit is made in the drawn position
  trigger(w, "SketchResetPose");
  lw::test::drag(v, {{4, 0}, {4.1, 0}, {4.2, 0}, {4.3, 0}}, Qt::ShiftModifier);
  EXPECT_EQ(w.undoStack()->index(), index + 1) << w.statusBar()->currentMessage().toStdString();
  EXPECT_NEAR(w.mechanism()->ground.points[1].value[0].value, 4.3, 1e-9);
  EXPECT_EQ(w.mechanism()->bodies[1].angle.expression.text(), "coupler_angle") << "the expression kept";
}

}  // namespace

namespace {

using lw::test::pickAction;

// The drawn four-bar's coupler point made an output, and a targets cost of it: (t, x, y) each
void addCouplerTargetsCost(lw::app::MainWindow& w, const std::string& name, lw::Cost::Timing timing,
                           const std::vector<std::tuple<double, double, double>>& targets) {
  lw::Mechanism m = *w.mechanism();
  lw::Output o;
  o.name = "coupler";
  o.type = lw::Output::Type::PointPosition;
  o.point = {m.bodies[1].name, m.bodies[1].points[1].name};
  m.outputs.push_back(o);
  lw::Cost c;
  c.name = name;
  c.type = lw::Cost::Type::Targets;
  c.timing = timing;
  c.output = "coupler";
  for (const auto& [t, x, y] : targets) {
    lw::Cost::Target target;
    target.t = t;
    target.at = {x, y};
    c.targets.push_back(target);
  }
  m.costs.push_back(c);
  w.replaceMechanism(m);
}

// A timed (prescribed) targets cost could not get a target in the sketch (it needs its time,
// issue 36): the right-click asks for it (one spacing after the last by default), the target goes
// in time order, one undo step; a time that is taken is refused with the reason
TEST_F(SketchTest, ATimedTargetIsAddedWithTheTimeTheUserGives) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  addCouplerTargetsCost(w, "timed", lw::Cost::Timing::Prescribed, {{0.2, 1.0, 2.5}, {0.4, 2.0, 2.8}});
  trigger(w, "ToolSelect");
  // the free-timing action is not offered for it: the timed one is
  QMenu* menu = v->contextMenuAt(at(v, 2.5, 3.2));
  EXPECT_EQ(menu->findChild<QAction*>("AddCostTarget"), nullptr);
  menu->deleteLater();
  // answer the time dialog as a user would: its default, then another time
  double offered = -1;
  auto answer = [&](double t) {
    QTimer::singleShot(0, [&offered, t] {
      auto* d = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      ASSERT_NE(d, nullptr);
      offered = d->doubleValue();
      if (t >= 0) d->setDoubleValue(t);
      d->accept();
    });
  };
  const int index = w.undoStack()->index();
  answer(-1);
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 2.5, 3.2)), "AddTimedCostTarget"));
  EXPECT_NEAR(offered, 0.6, 1e-12);  // one spacing (0.2 s) after the last
  ASSERT_EQ(w.mechanism()->costs[0].targets.size(), 3u);
  EXPECT_NEAR(w.mechanism()->costs[0].targets[2].t, 0.6, 1e-12);
  EXPECT_NEAR(w.mechanism()->costs[0].targets[2].at[0], 2.5, 0.01);
  EXPECT_EQ(w.undoStack()->index(), index + 1);
  // one between the others goes in time order
  answer(0.3);
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 3.0, 3.0)), "AddTimedCostTarget"));
  ASSERT_EQ(w.mechanism()->costs[0].targets.size(), 4u);
  EXPECT_NEAR(w.mechanism()->costs[0].targets[1].t, 0.3, 1e-12);
  EXPECT_NEAR(w.mechanism()->costs[0].targets[1].at[0], 3.0, 0.01);
  // a time that is taken: refused, said, nothing changed
  answer(0.4);
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 1.5, 3.4)), "AddTimedCostTarget"));
  EXPECT_EQ(w.mechanism()->costs[0].targets.size(), 4u);
  EXPECT_EQ(w.undoStack()->index(), index + 2);
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("has a target at t = 0.4 s already")) << w.statusBar()->currentMessage().toStdString();
  w.undoStack()->undo();
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->costs[0].targets.size(), 2u);
}

// A targets cost's targets could only be dragged (issue 36): a cross is removed from its context
// menu (not the last: the cost keeps one), and a target is added where the user right-clicks, to
// a cost with free timing; each one undo step
TEST_F(SketchTest, TargetsAreAddedToAndRemovedFromACostInTheSketch) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  addCouplerTargetsCost(w, "path", lw::Cost::Timing::Free, {{0, 1.0, 2.5}, {0, 2.0, 2.8}, {0, 3.0, 2.6}});
  trigger(w, "ToolSelect");
  const int index = w.undoStack()->index();
  // remove the middle one
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 2.0, 2.8)), "RemoveCostTarget"));
  ASSERT_EQ(w.mechanism()->costs[0].targets.size(), 2u);
  EXPECT_EQ(w.mechanism()->costs[0].targets[1].at[0], 3.0);
  EXPECT_EQ(w.undoStack()->index(), index + 1);
  // add one at (2.5, 3.2), where nothing is
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 2.5, 3.2)), "AddCostTarget"));
  ASSERT_EQ(w.mechanism()->costs[0].targets.size(), 3u);
  const auto& added = w.mechanism()->costs[0].targets[2].at;
  EXPECT_NEAR(added[0], 2.5, 0.01);
  EXPECT_NEAR(added[1], 3.2, 0.01);
  // the last one cannot be removed: the action is there, disabled, with the reason
  w.undoStack()->undo();
  w.undoStack()->undo();
  ASSERT_EQ(w.mechanism()->costs[0].targets.size(), 3u);
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 1.0, 2.5)), "RemoveCostTarget"));
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 2.0, 2.8)), "RemoveCostTarget"));
  ASSERT_EQ(w.mechanism()->costs[0].targets.size(), 1u);
  QMenu* menu = v->contextMenuAt(at(v, 3.0, 2.6));
  auto* last = menu->findChild<QAction*>("RemoveCostTarget");
  ASSERT_NE(last, nullptr);
  EXPECT_FALSE(last->isEnabled());
  EXPECT_TRUE(last->toolTip().contains("delete the cost itself")) << last->toolTip().toStdString();
  menu->deleteLater();
}

// The ground's link could not be made a parameter (issue 36): right-click a ground pivot >
// Parameterise Distance from O1 to O2; a new value moves the pivot, the mechanism assembled onto it
TEST_F(SketchTest, TheGroundLinksLengthIsParameterisedFromItsPivot) {
  lw::app::MainWindow w;
  auto* v = newSketch(w, 2, 1);
  drawFourBar(w);
  trigger(w, "ToolSelect");
  ASSERT_TRUE(pickAction(v->contextMenuAt(at(v, 4.0, 0.0)), "ParameteriseGroundDistance"));
  const lw::Mechanism& m = *w.mechanism();
  ASSERT_EQ(m.parameters.size(), 1u);
  const std::string name = m.parameters[0].name;
  EXPECT_EQ(name, "ground_" + m.ground.points[0].name + "_" + m.ground.points[1].name);
  EXPECT_NEAR(m.parameters[0].value.value, 4.0, 1e-12);
  ASSERT_TRUE(w.editParameterField(0, "value", "4.4"));
  lw::Diagnostics d;
  const auto r = lw::resolve(*w.mechanism(), d);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(r->bodies[0].points[1].x(), 4.4, 1e-12);
  for (const auto& j : r->joints) EXPECT_LT(r->storedJointGap(j), 1e-8) << j.name;
  w.undoStack()->undo();
  w.undoStack()->undo();
  EXPECT_TRUE(w.mechanism()->parameters.empty());
  EXPECT_TRUE(w.mechanism()->ground.points[1].value[0].isLiteral());
}

// The Jansen leg at 1280×800 was drawn 130 px tall under 180 px of banner, group legend and
// four-bar lines (issue 36 item 8): the overlay collapses to its banner in a short view, and a
// click on the banner shows it all again.
TEST_F(SketchTest, ATallOverlayCollapsesToItsBannerInAShortView) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR "/jansen-leg.json"), false));
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  auto* v = w.sketchView();
  w.views()->setCurrentWidget(v);
  v->fit();
  QTest::qWait(50);
  auto drawnHeight = [&] {
    lw::Diagnostics d;
    const auto r = lw::resolve(*w.mechanism(), d);
    double low = INFINITY, high = -INFINITY;
    for (const auto& body : r->bodies)
      for (const auto& p : body.points) {
        const double y = v->mapFromScene(v->toScene((body.position + body.rotation * p).x(), (body.position + body.rotation * p).y())).y();
        low = std::min(low, y), high = std::max(high, y);
      }
    return high - low;
  };
  ASSERT_TRUE(v->overlayCollapsed());
  const double collapsed = drawnHeight();
  w.grab().save(artifacts() + "/sketch_jansen_collapsed_1280x800.png");
  // a click on the banner: the legend and the four-bar lines, the drawing below them
  QTest::mouseClick(v->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(40, 20));
  EXPECT_FALSE(v->overlayCollapsed());
  const double expanded = drawnHeight();
  std::printf("Jansen leg drawn %.0f px tall with the overlay collapsed, %.0f px with it shown\n", collapsed, expanded);
  EXPECT_GT(collapsed, 1.4 * expanded);
  EXPECT_GT(collapsed, 250);
  w.grab().save(artifacts() + "/sketch_jansen_expanded_1280x800.png");
  // the four-bar keeps its overlay (it fits)
  lw::app::MainWindow small;
  small.resize(1280, 800);
  ASSERT_TRUE(small.openFile(QStringLiteral(LW_SAMPLES_DIR "/four-bar.json"), false));
  small.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&small));
  small.views()->setCurrentWidget(small.sketchView());
  QTest::qWait(50);
  EXPECT_FALSE(small.sketchView()->overlayCollapsed());
}

}  // namespace
