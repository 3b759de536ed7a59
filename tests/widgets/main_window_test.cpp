// GUI tests of the real main window under a display (Xvfb in CI): open the samples, check the 3D
// view is not blank, reject broken files without losing the current document, save atomically.
// Screenshots land in $LW_TEST_ARTIFACTS: look at them.
#include <gtest/gtest.h>

#include "document.h"
#include "panels/model_tree.h"
#include "panels/output_dialog.h"
#include "gui_test_support.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTest>
#include <QTableWidget>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QAction>
#include <QStatusBar>
#include <iostream>

#include "simulation/result_size.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "support/samples.h"
#include "main_window.h"
#include "mechanism/edits.h"
#include "mechanism/generators.h"
#include "panels/analysis_panel.h"
#include "panels/parameters_panel.h"
#include "panels/property_editor.h"
#include "panels/joint_dialog.h"
#include "sketch/sketch_view.h"
#include "panels/structure_panel.h"
#include "plots/plot_panel.h"

#include <qcustomplot.h>
#include "view3d/scene_view.h"
#include "view3d/vtk_host_widget.h"

namespace {

using lw::test::artifacts;

struct Coverage {
  double differsFromBackground = 0;  // fraction of pixels far from the background colour
  double coloured = 0;               // fraction of saturated (body-coloured) pixels
};

// The background is a light vertical gradient: compare each pixel with the background of its own
// row, sampled at the left and right edges.
Coverage coverage(const QImage& img) {
  Coverage c;
  long differ = 0, coloured = 0;
  for (int y = 0; y < img.height(); ++y) {
    const QColor l = img.pixelColor(1, y), r = img.pixelColor(img.width() - 2, y);
    for (int x = 0; x < img.width(); ++x) {
      const QColor p = img.pixelColor(x, y);
      const int d = std::min(std::abs(p.red() - l.red()) + std::abs(p.green() - l.green()) + std::abs(p.blue() - l.blue()),
                             std::abs(p.red() - r.red()) + std::abs(p.green() - r.green()) + std::abs(p.blue() - r.blue()));
      differ += d > 60;
      coloured += p.hsvSaturation() > 120 && p.value() > 60;
    }
  }
  const double n = static_cast<double>(img.width()) * img.height();
  c.differsFromBackground = static_cast<double>(differ) / n;
  c.coloured = static_cast<double>(coloured) / n;
  return c;
}

QImage showAndGrab(lw::app::MainWindow& w) {
  w.show();
  EXPECT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(200);
  return w.sceneView()->grabImage();
}

class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override { QCoreApplication::setOrganizationName("LinkwrightTests"); }
};

// Issue 24: the dialog for an invalid file read "2 is not a valid mechanism: bad.json problems
// found" (its arguments swapped)
TEST_F(MainWindowTest, TheInvalidFileDialogNamesTheFileAndCountsItsProblems) {
  QTemporaryDir dir;
  const QString path = dir.filePath("bad.json");
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"format": "linkwright-mechanism", "version": 1, "name": "x", "dimension": 2,
 "bodies": [{"name": "b", "mass": -1, "com": [0, 0], "inertia": 1, "points": {"P": [0, 0]}},
            {"name": "c", "mass": -2, "com": [0, 0], "inertia": 1, "points": {"P": [0, 0]}}]})");
  f.close();
  lw::app::MainWindow w;
  QString text;
  QTimer::singleShot(0, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      text = box->text();
      box->grab().save(artifacts() + "/invalid_file_dialog.png");
      box->accept();
    }
  });
  EXPECT_FALSE(w.openFile(path, true));
  EXPECT_EQ(text.toStdString(), "bad.json is not a valid mechanism: 2 problems found. The current document is unchanged.");
}

// A sample opened as itself: Enter on the close prompt wrote into the installed samples. It opens
// as an untitled copy; the Analysis dock's end time and step (stored in the file) mark the
// document modified and are saved; the rows' interval (not stored) does not.
TEST_F(MainWindowTest, ASampleOpensAsAnUntitledCopyAndItsSettingsAreKept) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", false));
  EXPECT_TRUE(w.currentFile().isEmpty());
  EXPECT_TRUE(w.sampleOrigin().endsWith("/five-bar.json"));
  EXPECT_TRUE(w.windowTitle().contains("five-bar.json (sample copy)")) << w.windowTitle().toStdString();
  EXPECT_FALSE(w.isWindowModified());
  EXPECT_TRUE(w.suggestedPath(".json").endsWith("/five-bar.json"));
  EXPECT_FALSE(w.suggestedPath(".json").startsWith(QStringLiteral(LW_SAMPLES_DIR))) << "never into the samples";
  w.analysisPanel()->rowsEvery()->setValue(0.05);
  EXPECT_FALSE(w.isWindowModified()) << "the rows' interval is not stored";
  w.analysisPanel()->endTime()->setValue(100);
  EXPECT_TRUE(w.isWindowModified()) << "the end time is stored in the file";
  EXPECT_EQ(w.mechanism()->analysis.tEnd, 100);
  QTemporaryDir dir;
  ASSERT_TRUE(w.saveTo(dir.filePath("mine.json")));
  EXPECT_TRUE(w.sampleOrigin().isEmpty());
  lw::app::MainWindow again;
  ASSERT_TRUE(again.openFile(dir.filePath("mine.json"), false));
  EXPECT_EQ(again.currentFile(), dir.filePath("mine.json"));
  EXPECT_EQ(again.analysisPanel()->endTime()->value(), 100);
  w.undoStack()->setClean();
}

// A grid of 300 × 300 squares grew the window to 8 GB without ever showing it: what cannot fit is
// refused with the reason, the open document kept (the estimate is the window's own, per part)
TEST_F(MainWindowTest, AMechanismTooLargeForTheWindowIsRefusedWithTheReason) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  QTemporaryDir dir;
  const QString grid = dir.filePath("grid-20x20.json");
  std::string error;
  ASSERT_TRUE(lw::io::saveMechanismFile(lw::generate::grid(20, 20), grid.toStdString(), error)) << error;
  w.setMemoryLimit(200e6);  // 820 bodies and 1220 joints: about 230 MB in the window
  EXPECT_FALSE(w.openFile(grid, false));
  EXPECT_EQ(w.mechanism()->name, "Four-bar crank-rocker with coupler point") << "the open document is kept";
  const QString log = w.findChild<QPlainTextEdit*>()->toPlainText();
  EXPECT_TRUE(log.contains("820 bodies and 1220 joints would take about")) << log.toStdString();
  EXPECT_TRUE(log.contains("analyse it with linkwright-cli")) << log.toStdString();
  w.setMemoryLimit(0);  // half this machine's memory: it fits
  EXPECT_TRUE(w.openFile(grid, false));
  EXPECT_EQ(w.mechanism()->bodies.size(), 820u);
}

// Grid 100 × 100 (10⁴ bodies) took 31 s to show, 3.2 GB, and a minute to close (an actor per
// part: 50 200 of them). Parts are drawn as instances, one actor per shape; they are picked and
// selected as before; the structure is analysed on a worker, the window shown first
TEST_F(MainWindowTest, ALargeMechanismIsDrawnAsInstancesAndStillPicked) {
  QTemporaryDir dir;
  const QString grid = dir.filePath("grid-20x20.json");
  std::string error;
  const lw::Mechanism m = lw::generate::grid(20, 20);
  ASSERT_TRUE(lw::io::saveMechanismFile(m, grid.toStdString(), error)) << error;
  lw::app::MainWindow w;
  w.resize(1200, 760);
  ASSERT_TRUE(w.openFile(grid, false));
  EXPECT_TRUE(w.structurePanel()->findChild<QLabel*>()->text().contains("Analysing")) << "on a worker, not in the way";
  const QImage shot = showAndGrab(w);
  shot.save(artifacts() + "/scene_grid_20x20.png");
  EXPECT_GT(coverage(shot).differsFromBackground, 0.02) << "the 3D view looks blank";
  lw::widgets::SceneView* view = w.sceneView();
  EXPECT_LE(view->partActorCount(), 6) << "2040 parts: the shapes of the bars and one joint glyph, not an actor each";
  // drawn as while animating on a software renderer (grid 100 × 100: 2.3 s a frame with
  // multisampling and five lights, 0.8 s without; shown in 6 s instead of 12, 0.8 GB instead of 1.6)
  EXPECT_EQ(view->multiSamples(), view->softwareRenderer() ? 0 : 4);
  if (view->softwareRenderer()) EXPECT_EQ(view->lightsOn(), 1);
  // a body picked where it is drawn: the middle of a bar
  lw::Diagnostics d;
  const auto resolved = lw::resolve(m, d);
  ASSERT_TRUE(resolved);
  int tried = 0, found = 0;
  for (std::size_t b = 1; b < resolved->bodies.size(); b += 97) {
    const auto& body = resolved->bodies[b];
    ASSERT_GE(body.points.size(), 2u);
    const Eigen::Vector3d mid = body.position + body.rotation * (0.5 * (body.points[0] + body.points[1]));
    const QPointF at = view->projectToWidget({mid.x(), mid.y(), mid.z()});
    const auto pick = view->pickAt(at.toPoint());
    ++tried;
    if (pick.kind == lw::widgets::SceneView::Pick::Kind::Body && pick.index == static_cast<int>(b)) ++found;
  }
  EXPECT_GE(found, tried - 1) << found << " of " << tried << " bars picked where they are drawn";
  // a selected instance turns orange where it is drawn (a bar a pixel or two wide at this zoom:
  // its pixels there turn redder, nothing else changes)
  {
    const int b = 201;
    const auto& body = resolved->bodies[static_cast<std::size_t>(b)];
    const Eigen::Vector3d mid = body.position + body.rotation * (0.5 * (body.points[0] + body.points[1]));
    const QPointF at = view->projectToWidget({mid.x(), mid.y(), mid.z()});
    const QImage before = view->grabImage();
    view->setSelection(lw::widgets::SceneView::Pick::Kind::Body, b);
    QTest::qWait(100);
    const QImage selected = view->grabImage();
    selected.save(artifacts() + "/scene_grid_selected.png");
    int near = 0, redder = 0, far = 0;
    const double dpr = selected.devicePixelRatio();
    for (int y = 0; y < selected.height(); ++y)
      for (int x = 0; x < selected.width(); ++x) {
        if (selected.pixel(x, y) == before.pixel(x, y)) continue;
        const bool close = std::hypot(x - at.x() * dpr, y - at.y() * dpr) < 12 * dpr;
        (close ? near : far) += 1;
        const QColor c0 = before.pixelColor(x, y), c1 = selected.pixelColor(x, y);
        redder += c1.red() - c1.blue() > c0.red() - c0.blue() ? 1 : 0;
      }
    EXPECT_GE(near, 3) << "the selected bar's pixels";
    EXPECT_EQ(far, 0) << "only the selected bar changes";
    EXPECT_EQ(redder, near + far) << "towards orange";
  }
  // the structure arrives, and the status bar counts the freedoms by the loops' rank
  QElapsedTimer clock;
  clock.start();
  while (w.structurePanel()->findChild<QLabel*>()->text().contains("Analysing") && clock.elapsed() < 60000) QTest::qWait(50);
  EXPECT_FALSE(w.structurePanel()->findChild<QLabel*>()->text().contains("Analysing"));
  EXPECT_FALSE(w.statusBar()->currentMessage().contains("…")) << w.statusBar()->currentMessage().toStdString();
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("DOF")) << w.statusBar()->currentMessage().toStdString();
}

// It opened at 1400 × 900 on a 1280 × 800 screen (the tests' Xvfb screen), partly off it
TEST_F(MainWindowTest, TheWindowOpensWithinTheScreen) {
  QSettings().remove("window/geometry");
  lw::app::MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  const QRect available = w.screen()->availableGeometry();
  EXPECT_TRUE(available.contains(w.geometry())) << w.width() << " x " << w.height() << " on " << available.width() << " x "
                                                << available.height();
  EXPECT_GE(w.width(), std::min(1400, available.width() - 100)) << "as large as fits";
}

TEST_F(MainWindowTest, OpensTheFiveBarAndDrawsIt) {
  lw::app::MainWindow w;
  w.resize(1200, 760);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", false));
  ASSERT_NE(w.mechanism(), nullptr);
  EXPECT_EQ(w.mechanism()->bodies.size(), 4u);
  const QImage scene = showAndGrab(w);
  w.grab().save(artifacts() + "/main_window_five_bar.png");
  scene.save(artifacts() + "/scene_five_bar.png");
  const Coverage c = coverage(scene);
  EXPECT_GT(c.differsFromBackground, 0.02) << "the 3D view looks blank";
  EXPECT_GT(c.coloured, 0.005) << "no coloured bars in the 3D view";
  EXPECT_TRUE(w.windowTitle().startsWith("five-bar.json"));
}

TEST_F(MainWindowTest, EverySampleOpensAndIsVisible) {
  lw::app::MainWindow w;
  w.resize(1000, 700);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  const QDir dir(QStringLiteral(LW_SAMPLES_DIR));
  int opened = 0;
  for (const QString& f : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    ASSERT_TRUE(w.openFile(dir.filePath(f), false)) << f.toStdString();
    QTest::qWait(50);
    const QImage img = w.sceneView()->grabImage();
    img.save(artifacts() + "/sample_" + QFileInfo(f).baseName() + ".png");
    const Coverage c = coverage(img);
    EXPECT_GT(c.differsFromBackground, 0.005) << f.toStdString() << " looks blank";
    ++opened;
  }
  EXPECT_GE(opened, 13);
}

// Fraction of pixels that differ clearly between two images of the same size.
double changed(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return 1;
  long n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const QColor p = a.pixelColor(x, y), q = b.pixelColor(x, y);
      n += std::abs(p.red() - q.red()) + std::abs(p.green() - q.green()) + std::abs(p.blue() - q.blue()) > 60;
    }
  return static_cast<double>(n) / (static_cast<double>(a.width()) * a.height());
}

// Opens a sample, runs the chosen analysis and waits for it to finish.
// a sample opened in a shown 1400×900 window; `settleMs` lets the first renders finish
bool openShown(lw::app::MainWindow& w, const char* sample, int settleMs = 0) {
  w.resize(1400, 900);
  if (!w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/" + sample, false)) return false;
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return false;
  if (settleMs > 0) QTest::qWait(settleMs);
  return true;
}

// runs the analysis the panel offers at `choice` on the document shown, to its end
std::shared_ptr<const lw::widgets::RunResults> runShown(lw::app::MainWindow& w, int choice) {
  auto* panel = w.analysisPanel();
  panel->analysisChoice()->setCurrentIndex(choice);
  panel->run();
  EXPECT_TRUE(panel->running());
  EXPECT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 20000));
  return w.playbackBar()->results();
}

std::shared_ptr<const lw::widgets::RunResults> openAndRun(lw::app::MainWindow& w, const char* sample, int choice) {
  EXPECT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/" + sample, false));
  showAndGrab(w);
  return runShown(w, choice);
}

// the global formulations in the Analysis dock: the ten-bar chain by index-3 plays as by Matrix R
// (the same columns, the tip within the integration error); the five-bar's floor by index-1 and
// RK45 gives the recursive run's impacts
TEST_F(MainWindowTest, TheGlobalFormulationsRunFromTheAnalysisDock) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "ten-bar-chain.json"));
  auto* choice = w.analysisPanel()->analysisChoice();
  const int index3 = choice->findText("Dynamics: index-3 (global)");
  ASSERT_GE(index3, 0);
  EXPECT_GE(choice->findText("Dynamics: index-1, RK45 (global)"), 0);
  EXPECT_GE(choice->findText("Dynamics: penalty (global)"), 0);
  const auto ref = runShown(w, 2);  // Matrix R, trapezoidal
  ASSERT_TRUE(ref && ref->ok);
  const auto global = runShown(w, index3);
  ASSERT_TRUE(global && global->ok) << (global ? global->message : "no results");
  ASSERT_EQ(global->columns, ref->columns);
  ASSERT_EQ(global->rows, ref->rows);
  const std::size_t last = (global->rows - 1) * global->columns.size();
  double worst = 0;
  for (std::size_t k = 1; k < global->columns.size(); ++k)
    if (global->columns[k].rfind("dof.", 0) == 0) worst = std::max(worst, std::abs(global->values[last + k] - ref->values[last + k]));
  EXPECT_LT(worst, 1e-3);
  EXPECT_TRUE(w.analysisPanel()->statusText().startsWith("Done")) << w.analysisPanel()->statusText().toStdString();
  w.grab().save(artifacts() + "/global_index3_ten_bar.png");
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", false));
  const auto bounced = runShown(w, choice->findText("Dynamics: index-1, RK45 (global)"));
  ASSERT_TRUE(bounced && bounced->ok) << (bounced ? bounced->message : "no results");
  EXPECT_FALSE(bounced->events.empty());
  EXPECT_TRUE(w.analysisPanel()->statusText().contains("impact")) << w.analysisPanel()->statusText().toStdString();
  // the longest label in the dock, at both window sizes
  for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
    w.resize(size);
    QTest::qWait(50);
    EXPECT_GE(choice->width(), choice->fontMetrics().horizontalAdvance(choice->currentText())) << size.width();
    w.grab().save(artifacts() + QString("/global_index1_five_bar_%1.png").arg(size.width()));
  }
}

// Model > Add Output... (the schema's output kind in the generic dialog): only the chosen type's
// fields show; a reaction on the coupler at joint B and a kinetic energy are added, named in the
// tree, run as columns, changed (kinetic -> total), deleted with Delete Selected, and undone
TEST_F(MainWindowTest, OutputsAreAddedChangedAndDeletedInTheWindow) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  showAndGrab(w);
  const std::size_t before = w.document()->mechanism().outputs.size();
  const int edits = w.document()->undoStack()->count();
  // a name that is taken is refused in the dialog, before OK
  EXPECT_FALSE(w.addOutput([](lw::widgets::OutputDialog& d) {
    d.field("name")->setText("P");
    EXPECT_EQ(d.problem(), "Name: there is already an output P");
    d.reject();
  }));
  ASSERT_TRUE(w.addOutput([&](lw::widgets::OutputDialog& d) {
    ASSERT_TRUE(d.choose("type", "joint_reaction"));
    EXPECT_TRUE(d.list("joint")->isVisibleTo(&d));
    EXPECT_TRUE(d.list("on")->isVisibleTo(&d));
    EXPECT_FALSE(d.list("point")->isVisibleTo(&d));  // a point output's field, hidden
    d.field("name")->setText("RB");
    ASSERT_TRUE(d.choose("joint", "B"));
    ASSERT_TRUE(d.choose("on", "coupler"));
    EXPECT_EQ(d.problem(), "");
    EXPECT_EQ(d.texts().count("point"), 0u);  // only the type's own fields are read
    d.grab().save(artifacts() + "/dialog_add_output.png");
  }));
  ASSERT_TRUE(w.addOutput([&](lw::widgets::OutputDialog& d) {
    ASSERT_TRUE(d.choose("type", "energy"));
    ASSERT_TRUE(d.choose("which", "kinetic"));
    d.field("name")->setText("T");
  }));
  const auto& outputs = w.document()->mechanism().outputs;
  ASSERT_EQ(outputs.size(), before + 2);
  EXPECT_EQ(outputs[before].type, lw::Output::Type::JointReaction);
  EXPECT_EQ(outputs[before].joint, "B");
  EXPECT_EQ(outputs[before].on, "coupler");
  EXPECT_EQ(outputs[before + 1].which, lw::Output::Energy::Kinetic);
  EXPECT_EQ(w.propertyEditor()->item(), QString("outputs[%1]").arg(before + 1));
  auto* tree = w.findChild<lw::widgets::ModelTree*>();
  const auto found = tree->findItems("RB", Qt::MatchExactly | Qt::MatchRecursive);
  ASSERT_EQ(found.size(), 1);
  EXPECT_EQ(found[0]->text(1), "joint reaction: joint B on coupler");
  // the reaction is columns of a kinematic run (the energy is a dynamic run's)
  const auto results = runShown(w, 0);
  ASSERT_NE(results, nullptr);
  ASSERT_TRUE(results->ok) << results->message;
  for (const char* column : {"RB.fx", "RB.fy", "RB.m"})
    EXPECT_NE(std::find(results->columns.begin(), results->columns.end(), column), results->columns.end())
        << column << " not among " << ::testing::PrintToString(results->columns);
  // Change Selected... on it: the dialog opens on the output, its name kept
  ASSERT_TRUE(w.changeOutput(static_cast<int>(before + 1), [](lw::widgets::OutputDialog& d) {
    EXPECT_EQ(d.type(), "energy");
    EXPECT_EQ(d.list("which")->currentData().toString(), "kinetic");
    EXPECT_FALSE(d.field("name")->isVisibleTo(&d));
    ASSERT_TRUE(d.choose("which", "total"));
  }));
  EXPECT_EQ(w.document()->mechanism().outputs[before + 1].which, lw::Output::Energy::Total);
  EXPECT_EQ(w.document()->mechanism().outputs[before + 1].name, "T");
  tree->selectPath(QString("outputs[%1]").arg(before));
  w.findChild<QAction*>("DeleteSelected")->trigger();
  ASSERT_EQ(w.document()->mechanism().outputs.size(), before + 1);
  EXPECT_EQ(w.document()->mechanism().outputs[before].name, "T");
  EXPECT_EQ(w.document()->undoStack()->count(), edits + 4);
  for (int i = 0; i < 4; ++i) w.document()->undoStack()->undo();
  EXPECT_EQ(w.document()->mechanism().outputs.size(), before);
}

// a designer sizes the motor and the bearing: Model > Report Force on the driver and on a joint,
// a kinematic run, the torque and the pin force plotted against time; undo takes them back
TEST_F(MainWindowTest, ReportForceAddsTheMotorTorqueAndAPinForceToTheRun) {
  lw::app::MainWindow w;
  w.resize(1280, 800);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  showAndGrab(w);
  auto* tree = w.findChild<lw::widgets::ModelTree*>();
  auto* report = w.findChild<QAction*>("ReportForce");
  ASSERT_NE(report, nullptr);
  tree->selectPath("drivers[0]");
  report->trigger();
  tree->selectPath("joints[1]");
  report->trigger();
  const std::vector<lw::Output> outputs = w.document()->mechanism().outputs;
  ASSERT_GE(outputs.size(), 2u);
  EXPECT_EQ(outputs[outputs.size() - 2].type, lw::Output::Type::DriverEffort);
  EXPECT_EQ(outputs.back().type, lw::Output::Type::JointReaction);
  const std::string torque = outputs[outputs.size() - 2].name;
  const std::string pin = outputs.back().name;
  const auto results = runShown(w, 0);
  ASSERT_NE(results, nullptr);
  ASSERT_TRUE(results->ok) << results->message;
  auto column = [&](const std::string& name) {
    const auto it = std::find(results->columns.begin(), results->columns.end(), name);
    return it == results->columns.end() ? -1 : static_cast<int>(it - results->columns.begin());
  };
  ASSERT_GE(column(torque), 0);
  ASSERT_GE(column(pin + ".fx"), 0);
  double largest = 0;
  for (std::size_t r = 0; r < results->rows; ++r)
    largest = std::max(largest, std::abs(results->values[r * results->columns.size() + static_cast<std::size_t>(column(torque))]));
  EXPECT_GT(largest, 0.1) << "the motor lifts the links against gravity";
  w.plotPanel()->plotColumns("time", QStringList{QString::fromStdString(torque), QString::fromStdString(pin + ".fx"), QString::fromStdString(pin + ".fy")});
  QTest::qWait(100);
  w.grab().save(artifacts() + "/main_window_motor_torque_1280.png");
  w.resize(1920, 1080);
  QTest::qWait(100);
  w.grab().save(artifacts() + "/main_window_motor_torque_1920.png");
  // the same report twice is refused; undo removes the reports
  tree->selectPath("drivers[0]");
  report->trigger();
  EXPECT_EQ(w.document()->mechanism().outputs.size(), outputs.size());
  w.document()->undoStack()->undo();
  w.document()->undoStack()->undo();
  EXPECT_TRUE(std::none_of(w.document()->mechanism().outputs.begin(), w.document()->mechanism().outputs.end(),
                           [](const lw::Output& o) { return o.type == lw::Output::Type::DriverEffort; }));
}

TEST_F(MainWindowTest, KinematicRunPlaysBackTheMotion) {
  lw::app::MainWindow w;
  w.resize(1200, 760);
  const auto results = openAndRun(w, "four-bar.json", 0);  // structural groups
  EXPECT_DOUBLE_EQ(w.analysisPanel()->endTime()->value(), 1.0) << "the file's analysis defaults";
  EXPECT_DOUBLE_EQ(w.analysisPanel()->step()->value(), 0.01);
  ASSERT_NE(results, nullptr);
  ASSERT_EQ(results->rows, 101u);
  EXPECT_TRUE(results->ok) << results->message;
  EXPECT_NEAR(results->time(100), 1.0, 1e-12);
  EXPECT_EQ(w.playbackBar()->currentRow(), 0);

  QTest::qWait(100);
  const QImage first = w.sceneView()->grabImage();
  w.playbackBar()->showRow(30);
  QTest::qWait(100);
  const QImage later = w.sceneView()->grabImage();
  later.save(artifacts() + "/scene_four_bar_row30.png");
  w.grab().save(artifacts() + "/main_window_after_run.png");
  EXPECT_GT(changed(first, later), 0.002) << "the crank turned but the picture did not move";

  // the traced paths (coupler curves) are drawn, and go when switched off
  auto* paths = w.playbackBar()->findChild<QCheckBox*>("ShowPaths");
  ASSERT_NE(paths, nullptr);
  ASSERT_TRUE(paths->isChecked());
  paths->setChecked(false);
  QTest::qWait(100);
  const QImage withoutPaths = w.sceneView()->grabImage();
  EXPECT_GT(changed(later, withoutPaths), 0.001) << "no traced paths in the view";
  paths->setChecked(true);
  auto* velocities = w.playbackBar()->findChild<QCheckBox*>("ShowVelocities");
  ASSERT_NE(velocities, nullptr);
  velocities->setChecked(true);
  QTest::qWait(100);
  const QImage withArrows = w.sceneView()->grabImage();
  withArrows.save(artifacts() + "/scene_four_bar_velocities.png");
  EXPECT_GT(changed(later, withArrows), 0.001) << "no velocity arrows in the view";
  velocities->setChecked(false);

  // play to the end in real time (1 s of motion), then it stops on the last frame
  // (a software renderer drops multisampling and lights with one headlight while it plays, and
  // smooths and lights the last frame fully again)
  EXPECT_EQ(w.sceneView()->multiSamples(), 4);
  const int lights = w.sceneView()->lightsOn();
  EXPECT_GE(lights, 4);  // the light kit's key, fill, back and head lights
  const bool software = w.sceneView()->softwareRenderer();
  w.playbackBar()->play();
  EXPECT_TRUE(w.playbackBar()->playing());
  EXPECT_EQ(w.sceneView()->multiSamples(), software ? 0 : 4);
  EXPECT_EQ(w.sceneView()->lightsOn(), software ? 1 : lights);
  QTest::qWait(300);
  const QImage playing = w.sceneView()->grabImage();
  playing.save(artifacts() + "/scene_four_bar_playing.png");
  EXPECT_GT(changed(withArrows, playing), 0.002) << "nothing drawn while playing";
  EXPECT_TRUE(QTest::qWaitFor([&] { return !w.playbackBar()->playing(); }, 10000));
  EXPECT_EQ(w.playbackBar()->currentRow(), 100);
  EXPECT_EQ(w.sceneView()->multiSamples(), 4);
  EXPECT_EQ(w.sceneView()->lightsOn(), lights);
}

// A switch of the equations of motion is said as a switch (it was "1 impact at t = 0.361 s"), and
// the sample runs past its turning point beyond the switch (it stopped at 0.588 s, "comes to rest")
TEST_F(MainWindowTest, ASwitchIsSaidAsASwitch) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/switch-t4.json", false));
  auto* panel = w.analysisPanel();
  panel->analysisChoice()->setCurrentIndex(2);  // Matrix R, trapezoidal
  panel->endTime()->setValue(1.0);
  panel->step()->setValue(0.001);
  panel->run();
  EXPECT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 20000));
  auto results = w.playbackBar()->results();
  ASSERT_NE(results, nullptr);
  EXPECT_TRUE(results->ok) << results->message;
  bool labelled = false;
  for (auto* label : panel->findChildren<QLabel*>()) labelled = labelled || label->text().contains("; 1 switch at t = 0.36095");
  EXPECT_TRUE(labelled) << "no switch in the analysis panel";
  for (auto [width, height] : {std::pair{1280, 800}, std::pair{1920, 1080}}) {
    w.resize(width, height);
    QApplication::processEvents();
    w.grab().save(artifacts() + QStringLiteral("/switch_run_%1x%2.png").arg(width).arg(height));
  }
}

TEST_F(MainWindowTest, DynamicsKeepsAFrameEveryChosenInterval) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", false));
  auto* panel = w.analysisPanel();
  panel->analysisChoice()->setCurrentIndex(2);  // Matrix R, trapezoidal
  EXPECT_TRUE(panel->rowsEvery()->isEnabled());
  EXPECT_EQ(panel->rowsEvery()->text(), QStringLiteral("every step"));
  panel->endTime()->setValue(0.4);
  panel->step()->setValue(0.001);
  panel->rowsEvery()->setValue(0.01);
  panel->run();
  EXPECT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 20000));
  auto results = w.playbackBar()->results();
  ASSERT_NE(results, nullptr);
  EXPECT_TRUE(results->ok) << results->message;
  // 400 steps, a frame every 10, and two at the impact of point 2 on its floor (t ≈ 0.2836 s):
  // just before and just after, at the same time
  ASSERT_EQ(results->rows, 43u);
  EXPECT_NEAR(results->time(1), 0.01, 1e-12);
  ASSERT_EQ(results->events.size(), 1u);
  EXPECT_NEAR(results->events[0].t, 0.2836, 1e-3);
  std::size_t before = 0;
  while (results->time(before) < results->events[0].t) ++before;
  EXPECT_EQ(results->time(before), results->time(before + 1));
  EXPECT_NEAR(results->time(42), 0.4, 1e-12);
  // issue 21: the impacts are said where the user looks (issue 24: the panel said nothing while
  // point 2 went through its floor; now it bounces off it)
  bool logged = false, labelled = false;
  for (auto* log : w.findChildren<QPlainTextEdit*>()) logged = logged || log->toPlainText().contains("1 impact at t = 0.2836");
  for (auto* label : panel->findChildren<QLabel*>()) labelled = labelled || label->text().contains("1 impact at t = 0.2836");
  EXPECT_TRUE(logged) << "no impact in Messages";
  EXPECT_TRUE(labelled) << "no impact in the analysis panel";
  // the plot of point 2's vertical velocity jumps there (two points at the impact's time), and
  // a dashed line marks the impact
  auto* plots = w.plotPanel();
  plots->plotColumns("time", {"v2.y"});
  ASSERT_EQ(plots->plot()->graphCount(), 1);
  ASSERT_EQ(plots->plot()->itemCount(), 2);  // the cursor and the impact's line
  const auto* data = plots->plot()->graph(0)->data().data();
  int pairs = 0;
  for (int i = 1; i < data->size(); ++i)
    if (data->at(i)->key == data->at(i - 1)->key) {
      ++pairs;
      EXPECT_LT(data->at(i - 1)->value, 0);  // falling onto the line, then rising off it
      EXPECT_GT(data->at(i)->value, 0);
    }
  EXPECT_EQ(pairs, 1);
  w.resize(1280, 800);
  QApplication::processEvents();
  w.grab().save(artifacts() + "/five_bar_impact_1280x800.png");
  // at 1280×800 the plot's axes are tall enough to read (they were 150 px), and its legend sits
  // above them, not over the curve
  plots->plot()->replot();
  const QRect axes = plots->plot()->axisRect()->rect();
  EXPECT_GE(axes.height(), 165) << "the plot's axes are " << axes.height() << " px tall";
  EXPECT_TRUE(plots->plot()->legend->visible());
  EXPECT_FALSE(plots->plot()->legend->outerRect().intersects(axes)) << "the legend covers the axes";
  panel->grab().save(artifacts() + "/analysis_panel_impacts.png");
  // an interval that is not a whole number of steps: the run is refused and says why
  panel->rowsEvery()->setValue(0.0015);
  panel->run();
  EXPECT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 20000));
  bool said = false;
  for (auto* label : panel->findChildren<QLabel*>())
    said = said || label->text().contains("the output interval (0.0015 s) must be a whole number of steps of 0.001 s");
  EXPECT_TRUE(said) << "no message in the analysis panel";
  EXPECT_EQ(w.playbackBar()->results(), results) << "a refused run keeps the last results";
  // kinematics has no separate frame interval
  panel->analysisChoice()->setCurrentIndex(0);
  EXPECT_FALSE(panel->rowsEvery()->isEnabled());
}

TEST_F(MainWindowTest, LongSimulationCanBeStoppedAndKeepsItsFrames) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/grid-1x15.json", false));
  auto* panel = w.analysisPanel();
  panel->analysisChoice()->setCurrentIndex(2);  // Matrix R, trapezoidal
  panel->endTime()->setValue(1000);            // far longer than the test waits
  // the UI stays responsive: a 10 ms timer measures the longest event-loop gap during the run
  QElapsedTimer clock;
  qint64 last = 0, worstGap = 0;
  QTimer probe;
  probe.setInterval(10);
  QObject::connect(&probe, &QTimer::timeout, [&] {
    const qint64 now = clock.elapsed();
    worstGap = std::max(worstGap, now - last);
    last = now;
  });
  panel->run();
  clock.start();
  probe.start();
  QTest::qWait(1500);
  probe.stop();
  ASSERT_TRUE(panel->running());
  std::cout << "longest event-loop gap during a dynamics run: " << worstGap << " ms\n";
  RecordProperty("worst_event_loop_gap_ms", static_cast<int>(worstGap));
  EXPECT_LT(worstGap, 50) << "the UI stalled during a background run";
  panel->stop();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 10000)) << "stop did not stop the run";
  const auto results = w.playbackBar()->results();
  ASSERT_NE(results, nullptr);
  EXPECT_FALSE(results->ok);
  // the dynamics presets plot the energy balance
  auto* energies = w.plotPanel()->findChild<QToolButton*>("EnergiesPreset");
  ASSERT_NE(energies, nullptr);
  ASSERT_TRUE(energies->isEnabled());
  energies->click();
  EXPECT_EQ(w.plotPanel()->plottedColumns(), QStringList({"energy.kinetic", "energy.potential", "energy.total"}));
  EXPECT_EQ(w.plotPanel()->plot()->graphCount(), 3);
  w.show();
  QTest::qWait(150);
  w.grab().save(artifacts() + "/main_window_energies.png");
  EXPECT_NE(results->message.find("cancelled"), std::string::npos) << results->message;
  EXPECT_GT(results->rows, 1u);
  EXPECT_LT(results->time(results->rows - 1), 100.0);
  const auto* log = w.findChild<QPlainTextEdit*>();
  ASSERT_NE(log, nullptr);
  EXPECT_TRUE(log->toPlainText().contains("Stopped")) << log->toPlainText().toStdString();
}

// the status bar counts the freedoms the loops really leave: a grid's 15 rows of parallelograms
// swing each on its own, where Grübler–Kutzbach (6·45 − 300) says −30; where the two agree, the
// formula is shown as before
TEST_F(MainWindowTest, StatusBarCountsTheRealFreedoms) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/grid-1x15.json", false));
  QString status = w.statusBar()->currentMessage();
  EXPECT_TRUE(status.contains("15 DOF (by the rank of the loop equations; Grübler–Kutzbach 6·45 − 300 = -30 counts redundant ones)"))
      << status.toStdString();
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  status = w.statusBar()->currentMessage();
  EXPECT_TRUE(status.contains("1 DOF (Grübler–Kutzbach 3·3 − 8 = 1), 1 driven")) << status.toStdString();
}

TEST_F(MainWindowTest, OpeningAnotherFileDropsTheRunningAnalysis) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/grid-1x15.json", false));
  auto* panel = w.analysisPanel();
  panel->analysisChoice()->setCurrentIndex(2);
  panel->endTime()->setValue(1000);
  panel->run();
  QTest::qWait(200);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 10000));
  QTest::qWait(50);
  // the grid's frames must never be drawn on the four-bar
  EXPECT_EQ(w.playbackBar()->results(), nullptr);
}

TEST_F(MainWindowTest, PlotsShowTheRunAndFollowPlayback) {
  lw::app::MainWindow w;
  w.resize(1400, 900);
  const auto results = openAndRun(w, "four-bar.json", 1);  // global sparse
  ASSERT_NE(results, nullptr);
  auto* plots = w.plotPanel();
  ASSERT_EQ(plots->plottedColumns().size(), 1) << "a first column is plotted by default";
  // the first that moves: not crank.A.x, the ground pivot's flat line
  EXPECT_EQ(plots->plottedColumns().front(), "crank.B.x");
  ASSERT_EQ(plots->plot()->graphCount(), 1);
  EXPECT_EQ(plots->plot()->graph(0)->dataCount(), static_cast<int>(results->rows));

  // the file's outputs are columns: the transmission function, rocker against crank angle
  plots->plotColumns("crank_angle", {"rocker_angle"});
  ASSERT_EQ(plots->plot()->plottableCount(), 1);
  QTest::qWait(50);
  w.grab().save(artifacts() + "/main_window_transmission.png");
  plots->plotColumns("time", {"crank.B.x"});

  // the coupler curve of point C: y against x, as a parametric curve with the run's values
  plots->plotColumns("coupler.C.x", {"coupler.C.y", "rocker.D.y"});
  ASSERT_EQ(plots->plot()->plottableCount(), 2);
  auto* curve = qobject_cast<QCPCurve*>(plots->plot()->plottable(0));
  ASSERT_NE(curve, nullptr);
  ASSERT_EQ(curve->dataCount(), static_cast<int>(results->rows));
  const std::size_t n = results->columns.size();
  std::size_t cx = 0, cy = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (results->columns[c] == "coupler.C.x") cx = c;
    if (results->columns[c] == "coupler.C.y") cy = c;
  }
  ASSERT_GT(cx, 0u);
  for (std::size_t i : {std::size_t{0}, std::size_t{57}, results->rows - 1}) {
    EXPECT_EQ(curve->data()->at(static_cast<int>(i))->key, results->values[i * n + cx]);
    EXPECT_EQ(curve->data()->at(static_cast<int>(i))->value, results->values[i * n + cy]);
  }

  // the cursor follows playback; exports write real files; the CSV is the whole table
  w.playbackBar()->showRow(40);
  auto* cursor = qobject_cast<QCPItemStraightLine*>(plots->plot()->item(0));
  ASSERT_NE(cursor, nullptr);
  EXPECT_TRUE(cursor->visible());
  EXPECT_EQ(cursor->point1->coords().x(), results->values[40 * n + cx]);
  // clicking the plot at a time seeks the playback there
  plots->plotColumns("time", {"coupler.C.y"});
  QTest::qWait(50);
  QCustomPlot* plot = plots->plot();
  const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(0.62)), plot->height() / 2);
  QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
  EXPECT_NEAR(results->time(static_cast<std::size_t>(w.playbackBar()->currentRow())), 0.62, 0.011);
  plots->plotColumns("coupler.C.x", {"coupler.C.y", "rocker.D.y"});
  w.playbackBar()->showRow(40);

  QTemporaryDir dir;
  ASSERT_TRUE(plots->exportPng(dir.filePath("plot.png")));
  ASSERT_TRUE(plots->exportPdf(dir.filePath("plot.pdf")));
  ASSERT_TRUE(plots->exportCsv(dir.filePath("results.csv")));
  EXPECT_GT(QFileInfo(dir.filePath("plot.png")).size(), 2000);
  EXPECT_GT(QFileInfo(dir.filePath("plot.pdf")).size(), 1000);
  QFile csv(dir.filePath("results.csv"));
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
  ASSERT_EQ(static_cast<std::size_t>(lines.size()), results->rows + 1);
  EXPECT_TRUE(lines[0].startsWith("time,"));
  EXPECT_EQ(lines[41].split(',')[cx].toDouble(), results->values[40 * n + cx]);
  QString error;
  EXPECT_FALSE(plots->exportCsv("/nonexistent-dir/results.csv", &error));
  EXPECT_TRUE(error.contains("nonexistent-dir")) << error.toStdString();
  QTest::qWait(100);
  w.grab().save(artifacts() + "/main_window_plots.png");
}

TEST_F(MainWindowTest, StructureDiagramStepsThroughTheGroups) {
  lw::app::MainWindow w;
  w.resize(1400, 900);
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/watt-six-bar.json", false));
  const QImage whole = showAndGrab(w);
  auto* structure = w.structurePanel();
  w.findChild<QDockWidget*>("StructureDock")->raise();
  // the Watt six-bar: a crank and two dyads, three group nodes plus the frame
  int nodes = 0;
  for (QGraphicsItem* item : structure->scene()->items())
    nodes += item->type() == QGraphicsRectItem::Type;
  EXPECT_EQ(nodes, 4);
  std::vector<std::vector<int>> highlighted;
  QObject::connect(structure, &lw::widgets::StructurePanel::highlightBodies,
                   [&](const std::vector<int>& b) { highlighted.push_back(b); });
  structure->next();
  EXPECT_EQ(structure->currentGroup(), 0);
  structure->next();
  structure->next();
  EXPECT_EQ(structure->currentGroup(), 2);
  ASSERT_EQ(highlighted.size(), 3u);
  EXPECT_EQ(highlighted[0].size(), 1u) << "the crank alone";
  EXPECT_EQ(highlighted[1].size(), 2u) << "a dyad";
  QTest::qWait(100);
  const QImage stepped = w.sceneView()->grabImage();
  EXPECT_GT(changed(whole, stepped), 0.002) << "the other bodies were not faded";
  EXPECT_EQ(w.sketchView()->highlightedBodies(), highlighted.back()) << "the sketch shows the same group";
  w.grab().save(artifacts() + "/main_window_structure.png");
  w.views()->setCurrentWidget(w.sketchView());
  QTest::qWait(50);
  w.grab().save(artifacts() + "/main_window_structure_sketch.png");
  structure->selectGroup(-1);
  EXPECT_TRUE(highlighted.back().empty());
  EXPECT_TRUE(w.sketchView()->highlightedBodies().empty());
}

// four-bar-synthesis accepted L1 = 2 outside its range 0.5 ... 1.5, and refused L1 = -1 as "the mass
// is negative": a value outside the range is refused naming it (issue 36, item 2)
TEST_F(MainWindowTest, AValueOutsideItsParametersRangeIsRefusedNamingTheRange) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar-synthesis.json", false));
  QTableWidget* table = w.parametersPanel()->table();
  ASSERT_EQ(table->item(0, 0)->text(), "L1");
  const double before = w.mechanism()->parameters[0].value.value;
  const auto* log = w.findChild<QPlainTextEdit*>();
  for (const char* value : {"2", "-1"}) {
    table->item(0, 1)->setText(value);
    EXPECT_EQ(w.mechanism()->parameters[0].value.value, before) << value;
    EXPECT_TRUE(log->toPlainText().contains(QString("L1 = %1 refused: parameter 'L1' = %1 m is outside its range 0.5 ... 1.5 m").arg(value)))
        << log->toPlainText().toStdString();
  }
  EXPECT_FALSE(log->toPlainText().contains("mass is negative"));
  table->item(0, 1)->setText("1.2");  // within: kept
  EXPECT_EQ(w.mechanism()->parameters[0].value.value, 1.2);
  w.undoStack()->setClean();
}

TEST_F(MainWindowTest, ParameterEditsAreUndoableAndBadOnesRefused) {
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", false));
  showAndGrab(w);
  QTableWidget* table = w.parametersPanel()->table();
  ASSERT_GE(table->rowCount(), 2);
  ASSERT_EQ(table->item(0, 0)->text(), "L_s1");
  EXPECT_EQ(table->item(0, 1)->text(), "2.236");
  const double before = w.mechanism()->parameters[0].value.value;

  table->item(0, 1)->setText("2.5");  // what the item editor does when the user types
  EXPECT_EQ(w.mechanism()->parameters[0].value.value, 2.5);
  EXPECT_TRUE(w.isWindowModified());
  EXPECT_TRUE(w.undoStack()->canUndo());
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->parameters[0].value.value, before);
  EXPECT_EQ(w.parametersPanel()->table()->item(0, 1)->text(), "2.236");
  EXPECT_FALSE(w.isWindowModified()) << "undo back to the saved state";
  w.undoStack()->redo();
  EXPECT_EQ(w.mechanism()->parameters[0].value.value, 2.5);

  // a negative natural length is refused with the reason, and nothing changes
  const auto* log = w.findChild<QPlainTextEdit*>();
  w.parametersPanel()->table()->item(0, 1)->setText("-1");
  EXPECT_EQ(w.mechanism()->parameters[0].value.value, 2.5);
  EXPECT_EQ(w.parametersPanel()->table()->item(0, 1)->text(), "2.5");
  EXPECT_TRUE(log->toPlainText().contains("L_s1 = -1 refused")) << log->toPlainText().toStdString();
  EXPECT_TRUE(log->toPlainText().contains("natural length")) << log->toPlainText().toStdString();
  w.parametersPanel()->table()->item(0, 1)->setText("abc");
  EXPECT_TRUE(log->toPlainText().contains("is not a number"));
  EXPECT_EQ(w.parametersPanel()->table()->item(0, 1)->text(), "2.5");
  EXPECT_EQ(w.undoStack()->count(), 1);
  w.findChild<QDockWidget*>("ParametersDock")->raise();
  QTest::qWait(100);
  w.grab().save(artifacts() + "/main_window_parameters.png");

  // saving marks the state clean; a reload has the new value
  QTemporaryDir dir;
  ASSERT_TRUE(w.saveTo(dir.filePath("five-bar-edited.json")));
  EXPECT_FALSE(w.isWindowModified());
  lw::app::MainWindow w2;
  ASSERT_TRUE(w2.openFile(dir.filePath("five-bar-edited.json"), false));
  EXPECT_EQ(w2.mechanism()->parameters[0].value.value, 2.5);
}

TEST_F(MainWindowTest, AutosaveIsRecoveredAfterACrash) {
  QStandardPaths::setTestModeEnabled(true);  // ~/.qttest, not the user's autosaves
  QDir(lw::app::MainWindow::autosaveDir()).removeRecursively();
  QString written;
  QTemporaryDir own;  // a file of the user's (a sample opens as an untitled copy)
  ASSERT_TRUE(QFile::copy(QStringLiteral(LW_SAMPLES_DIR) + "/five-bar.json", own.filePath("five-bar.json")));
  {
    lw::app::MainWindow w;
    ASSERT_TRUE(w.openFile(own.filePath("five-bar.json"), false));
    EXPECT_TRUE(w.autosaveNow().isEmpty()) << "nothing to autosave before an edit";
    w.parametersPanel()->table()->item(0, 1)->setText("2.4");
    written = w.autosaveNow();
    ASSERT_FALSE(written.isEmpty());
    ASSERT_TRUE(QFileInfo::exists(written));
    EXPECT_TRUE(lw::app::MainWindow::recoverableFiles().isEmpty()) << "this process is still running";
    // a crash: the process that wrote the file is gone (pid 0 never names a user process)
    const QString crashed = QFileInfo(written).dir().filePath("0-" + QFileInfo(written).fileName().section('-', 1));
    ASSERT_TRUE(QFile::rename(written, crashed));
    ASSERT_TRUE(QFile::rename(written + ".origin", crashed + ".origin"));
    written = crashed;
    w.undoStack()->setClean();  // closing must not ask
  }
  ASSERT_EQ(lw::app::MainWindow::recoverableFiles(), QStringList{written});
  lw::app::MainWindow w2;
  ASSERT_TRUE(w2.recover(written));
  EXPECT_EQ(w2.mechanism()->parameters[0].value.value, 2.4);
  EXPECT_TRUE(w2.currentFile().endsWith("five-bar.json"));
  EXPECT_TRUE(w2.isWindowModified()) << "recovered work is unsaved";
  EXPECT_FALSE(QFileInfo::exists(written));
  EXPECT_TRUE(lw::app::MainWindow::recoverableFiles().isEmpty());
  // saving elsewhere removes this session's autosave
  QTemporaryDir dir;
  ASSERT_TRUE(w2.saveTo(dir.filePath("five-bar.json")));
  EXPECT_TRUE(QDir(lw::app::MainWindow::autosaveDir()).entryList(QDir::Files).isEmpty());
  QStandardPaths::setTestModeEnabled(false);
}

TEST_F(MainWindowTest, PropertyEditsAreUndoableAndBadOnesRefused) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "four-bar.json"));
  // select the coupler in the model tree: its numbers appear in the property editor
  auto* tree = w.findChild<QTreeWidget*>();
  ASSERT_NE(tree, nullptr);
  const auto found = tree->findItems("coupler", Qt::MatchExactly | Qt::MatchRecursive);
  ASSERT_EQ(found.size(), 1);
  tree->setCurrentItem(found[0]);
  QTableWidget* table = w.propertyEditor()->table();
  auto row = [&](const QString& field) {
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->item(r, 0)->text() == field) return r;
    return -1;
  };
  ASSERT_GE(row("mass"), 0);
  ASSERT_GE(row("points.P[0]"), 0);
  const double mass = w.mechanism()->bodies[1].mass.value;
  const int before = w.undoStack()->count();
  table->item(row("mass"), 1)->setText("9");
  ASSERT_GE(row("mass"), 0) << "the edited item stays in the editor";
  EXPECT_EQ(w.mechanism()->bodies[1].mass.value, 9);
  EXPECT_EQ(w.undoStack()->count(), before + 1);
  // refused: a negative mass, and an expression that does not parse; the document is kept
  table->item(row("mass"), 1)->setText("-1");
  table->item(row("points.P[0]"), 1)->setText("2*(");
  EXPECT_EQ(w.mechanism()->bodies[1].mass.value, 9);
  EXPECT_EQ(w.undoStack()->count(), before + 1);
  EXPECT_EQ(table->item(row("mass"), 1)->text(), "9") << "the editor shows the document again";
  const QString log = w.findChild<QPlainTextEdit*>()->toPlainText();
  EXPECT_TRUE(log.contains("bodies[1].mass = -1 refused")) << log.toStdString();
  EXPECT_TRUE(log.contains("bodies[1].points.P[0] = 2*( refused")) << log.toStdString();
  // an expression of a new design parameter is refused until the parameter exists
  table->item(row("points.P[0]"), 1)->setText("L_missing");
  EXPECT_TRUE(w.mechanism()->bodies[1].points[2].value[0].isLiteral());
  w.grab().save(artifacts() + "/main_window_properties.png");
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->bodies[1].mass.value, mass);
  w.undoStack()->setClean();
}

TEST_F(MainWindowTest, ClickingABodyInThe3DViewSelectsItForEditing) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "spatial-four-bar-swing.json", 300));
  lw::Diagnostics d;
  const auto r = lw::resolve(*w.mechanism(), d);
  // the middle of each moving body's first two points lies inside its bar
  for (std::size_t b = 1; b < r->bodies.size(); ++b) {
    const auto& body = r->bodies[b];
    const Eigen::Vector3d mid = body.position + body.rotation * (0.5 * (body.points[0] + body.points[1]));
    const QPointF at = w.sceneView()->projectToWidget({mid.x(), mid.y(), mid.z()});
    const auto pick = w.sceneView()->pickAt(at.toPoint());
    ASSERT_EQ(pick.kind, lw::widgets::SceneView::Pick::Kind::Body) << body.name;
    EXPECT_EQ(pick.index, static_cast<int>(b)) << body.name;
    QTest::mouseClick(w.sceneView(), Qt::LeftButton, Qt::NoModifier, at.toPoint());
    QApplication::processEvents();
    EXPECT_EQ(w.propertyEditor()->item(), QString("bodies[%1]").arg(b - 1)) << body.name;
    EXPECT_EQ(w.sceneView()->selectedKind(), lw::widgets::SceneView::Pick::Kind::Body) << "marked in 3D";
    EXPECT_EQ(w.sceneView()->selectedIndex(), static_cast<int>(b)) << body.name;
  }
  EXPECT_GT(w.propertyEditor()->table()->rowCount(), 5);
  w.grab().save(artifacts() + "/main_window_picked.png");
  // a point added where the pick landed (on the rod's surface), in the rod's frame
  {
    const auto& rod = r->bodies[2];
    const Eigen::Vector3d mid = rod.position + rod.rotation * (0.5 * (rod.points[0] + rod.points[1]));
    const auto pick = w.sceneView()->pickAt(w.sceneView()->projectToWidget({mid.x(), mid.y(), mid.z()}).toPoint());
    ASSERT_EQ(pick.index, 2);
    const std::size_t before = w.mechanism()->bodies[1].points.size();
    ASSERT_TRUE(w.addPointAtPick(pick));
    const auto& added = w.mechanism()->bodies[1].points;
    ASSERT_EQ(added.size(), before + 1);
    const Eigen::Vector3d local(added.back().value[0].value, added.back().value[1].value, added.back().value[2].value);
    const Eigen::Vector3d world = rod.position + rod.rotation * local;
    EXPECT_LT((world - Eigen::Vector3d(pick.position[0], pick.position[1], pick.position[2])).norm(), 1e-9);
    EXPECT_LT((world - mid).norm(), 0.2) << "on the rod's surface, near the middle";
    EXPECT_EQ(w.propertyEditor()->item(), QString("bodies[1].points.%1").arg(QString::fromStdString(added.back().name)));
    w.undoStack()->undo();
    EXPECT_EQ(w.mechanism()->bodies[1].points.size(), before);
  }
  // empty space picks nothing
  EXPECT_EQ(w.sceneView()->pickAt(QPoint(3, 3)).kind, lw::widgets::SceneView::Pick::Kind::None);
}

// Deleting joint B of a chain offered "Undo Delete joint C" (the edit read the name from the
// joint it had just erased, and dropped the next joint's dependents)
TEST_F(MainWindowTest, UndoNamesTheJointThatWasDeleted) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "four-bar.json"));
  auto* tree = w.findChild<QTreeWidget*>();
  const std::string deleted = w.mechanism()->joints[1].name, next = w.mechanism()->joints[2].name;
  for (QTreeWidgetItemIterator it(tree); *it; ++it)
    if ((*it)->data(0, Qt::UserRole).toString() == "joints[1]") tree->setCurrentItem(*it);
  QApplication::processEvents();
  w.findChild<QAction*>("DeleteSelected")->trigger();
  EXPECT_EQ(w.undoStack()->undoText().toStdString(), "Delete joint " + deleted);
  ASSERT_EQ(w.mechanism()->joints[1].name, next) << "the next joint is kept";
  w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->joints[1].name, deleted);
}

TEST_F(MainWindowTest, SpatialItemsAreAddedAndDeletedFromTheModelMenu) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "rssr.json"));
  auto* tree = w.findChild<QTreeWidget*>();
  auto select = [&](const QString& path) {
    for (QTreeWidgetItemIterator it(tree); *it; ++it)
      if ((*it)->data(0, Qt::UserRole).toString() == path) tree->setCurrentItem(*it);
    QApplication::processEvents();
  };
  auto trigger = [&](const char* name) {
    auto* a = w.findChild<QAction*>(name);
    ASSERT_NE(a, nullptr) << name;
    a->trigger();
  };
  const std::size_t joints = w.mechanism()->joints.size();
  // delete the spherical joint C: the coupler comes loose (the drivers stay)
  select("joints[2]");
  ASSERT_EQ(w.mechanism()->joints[2].name, "C");
  trigger("DeleteSelected");
  EXPECT_EQ(w.mechanism()->joints.size(), joints - 1);
  // put it back through the joint dialog's choices
  lw::widgets::JointDialog dialog(*w.mechanism(), "coupler.C");
  ASSERT_TRUE(dialog.choose("type", "spherical"));
  dialog.pointBox(1)->setCurrentIndex(dialog.pointBox(1)->findText("rocker.C"));
  EXPECT_EQ(dialog.point(0).str(), "coupler.C");
  EXPECT_TRUE(dialog.axes().empty()) << "a spherical joint has no axes";
  EXPECT_TRUE(w.addJointChecked(dialog.type(), dialog.point(0), dialog.point(1), dialog.axes()));
  EXPECT_EQ(w.mechanism()->joints.size(), joints);
  // a revolute joint between points that do not coincide is refused with the reason
  ASSERT_TRUE(dialog.choose("type", "revolute"));
  dialog.pointBox(1)->setCurrentIndex(dialog.pointBox(1)->findText("rocker.D"));
  EXPECT_TRUE(dialog.axisBox(1)->isVisibleTo(&dialog)) << "a revolute joint asks for its axes";
  EXPECT_EQ(dialog.axisBox(1)->currentText(), "rocker.x");
  EXPECT_FALSE(w.addJointChecked(dialog.type(), dialog.point(0), dialog.point(1), dialog.axes()));
  EXPECT_EQ(w.mechanism()->joints.size(), joints);
  auto messages = [&] { return w.findChild<QPlainTextEdit*>()->toPlainText(); };
  EXPECT_TRUE(messages().contains("The joint was not added: joints[")) << messages().toStdString();
  // a new body with a point, edited in the property editor
  const std::size_t bodies = w.mechanism()->bodies.size();
  trigger("AddBody");
  ASSERT_EQ(w.mechanism()->bodies.size(), bodies + 1);
  select(QString("bodies[%1]").arg(bodies));
  trigger("AddPoint");
  EXPECT_EQ(w.mechanism()->bodies.back().points.size(), 2u);
  trigger("AddVector");
  EXPECT_EQ(w.mechanism()->bodies.back().vectors.size(), 2u);
  // renaming a body updates the joints that name it; a clash is refused
  select("bodies[1]");
  EXPECT_TRUE(w.renameChecked("bodies[1]", "link"));
  EXPECT_EQ(w.mechanism()->joints[1].points[1].body, "link");
  EXPECT_FALSE(w.renameChecked("bodies[0]", "link")) << "two bodies named link";
  EXPECT_TRUE(messages().contains("Not renamed: ")) << messages().toStdString();
  // all of it undoes
  while (w.undoStack()->canUndo()) w.undoStack()->undo();
  EXPECT_EQ(w.mechanism()->bodies.size(), bodies);
  EXPECT_EQ(w.mechanism()->joints.size(), joints);
  EXPECT_EQ(w.mechanism()->joints[2].name, "C");
  EXPECT_EQ(w.mechanism()->bodies[1].name, "coupler");
}

// Shift + drag in the 3D view from `from` to `to` in `moves` mouse moves; released, or cancelled
// with Escape
void shiftDrag(lw::widgets::SceneView* view, QPoint from, QPoint to, int moves, bool cancel = false) {
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, from);
  for (int k = 1; k <= moves; ++k) {
    const QPoint p = from + (to - from) * k / moves;
    QMouseEvent move(QEvent::MouseMove, p, view->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
    QApplication::sendEvent(view, &move);
  }
  if (cancel) QTest::keyClick(view, Qt::Key_Escape);
  else QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, to);
  QApplication::processEvents();
}

// Shift + drag on a joint in the 3D view moves its points (both bodies') in the plane facing the
// camera, live, as one undo step; Escape cancels a drag
TEST_F(MainWindowTest, ShiftDraggingAJointIn3DMovesIt) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "spatial-four-bar-swing.json", 300));
  auto* view = w.sceneView();
  auto jointAt = [&](const std::string& name) {
    lw::Diagnostics d;
    const auto r = lw::resolve(*w.mechanism(), d);
    for (const auto& j : r->joints)
      if (j.name == name) {
        const auto& b = r->bodies[static_cast<std::size_t>(j.points[0].body)];
        const auto& c = r->bodies[static_cast<std::size_t>(j.points[1].body)];
        return std::pair{Eigen::Vector3d(b.position + b.rotation * b.points[static_cast<std::size_t>(j.points[0].index)]),
                         Eigen::Vector3d(c.position + c.rotation * c.points[static_cast<std::size_t>(j.points[1].index)])};
      }
    const Eigen::Vector3d none = Eigen::Vector3d::Constant(NAN);
    return std::pair{none, none};
  };
  const auto [D0, D0b] = jointAt("D");
  const QPoint from = view->projectToWidget({D0.x(), D0.y(), D0.z()}).toPoint();
  ASSERT_EQ(view->pickAt(from, true).kind, lw::widgets::SceneView::Pick::Kind::Joint);
  const int steps = w.undoStack()->count();
  auto drag = [&](QPoint to, bool cancel) { shiftDrag(view, from, to, 5, cancel); };
  // cancelled: nothing changes
  drag(from + QPoint(60, -40), true);
  EXPECT_LT((jointAt("D").first - D0).norm(), 1e-12);
  EXPECT_EQ(w.undoStack()->count(), steps);
  // kept: both points of D sit where the mouse let go, on the plane through D facing the camera
  const QPoint to = from + QPoint(60, -40);
  const auto expected = view->pointOnViewPlane(to, {D0.x(), D0.y(), D0.z()});
  ASSERT_TRUE(expected.has_value());
  drag(to, false);
  const auto [D1, D1b] = jointAt("D");
  EXPECT_LT((D1 - Eigen::Vector3d((*expected)[0], (*expected)[1], (*expected)[2])).norm(), 1e-9);
  EXPECT_LT((D1b - D1).norm(), 1e-9) << "the follower's point went with the ground's";
  EXPECT_GT((D1 - D0).norm(), 0.1);
  const QPointF shown = view->projectToWidget({D1.x(), D1.y(), D1.z()});
  EXPECT_LT(std::hypot(shown.x() - to.x(), shown.y() - to.y()), 1.5) << "under the mouse";
  EXPECT_EQ(w.undoStack()->count(), steps + 1);
  w.grab().save(artifacts() + "/main_window_joint_dragged.png");
  w.undoStack()->undo();
  EXPECT_LT((jointAt("D").first - D0).norm(), 1e-12);
}

// a body selected in 3D shows handles on its points; Shift + drag on one moves that point alone
// (a coupler point here), live and as one undo step; the handles go during playback
TEST_F(MainWindowTest, ShiftDraggingAPointHandleIn3DMovesThePoint) {
  lw::app::MainWindow w;
  ASSERT_TRUE(openShown(w, "spatial-four-bar-swing.json", 300));
  auto* view = w.sceneView();
  lw::Diagnostics d;
  auto r = lw::resolve(*w.mechanism(), d);
  // a coupler point P in the middle of the rod
  const auto& rod = r->bodies[2];
  const Eigen::Vector3d mid = rod.position + rod.rotation * (0.5 * (rod.points[0] + rod.points[1]));
  lw::Mechanism withP = *w.mechanism();
  ASSERT_TRUE(lw::edit::addPointAt(withP, *r, "rod", mid).ok);
  w.applyEdit(withP, "Add P");
  const std::string P = w.mechanism()->bodies[1].points.back().name;
  // selecting the rod (a click on it) puts handles on its three points
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, view->projectToWidget({mid.x(), mid.y(), mid.z()}).toPoint());
  QApplication::processEvents();
  ASSERT_EQ(view->selectedIndex(), 2);
  ASSERT_EQ(view->handleCount(), 4) << "three points and the axis a2";
  w.grab().save(artifacts() + "/main_window_handles.png");
  const QPoint from = view->projectToWidget({mid.x(), mid.y(), mid.z()}).toPoint(), to = from + QPoint(50, 40);
  const auto expected = view->pointOnViewPlane(to, {mid.x(), mid.y(), mid.z()});
  ASSERT_TRUE(expected.has_value());
  const int steps = w.undoStack()->count();
  shiftDrag(view, from, to, 4);
  EXPECT_EQ(w.undoStack()->count(), steps + 1);
  r = lw::resolve(*w.mechanism(), d);
  const auto& moved = r->bodies[2];
  const Eigen::Vector3d at = moved.position + moved.rotation * moved.points.back();
  EXPECT_LT((at - Eigen::Vector3d((*expected)[0], (*expected)[1], (*expected)[2])).norm(), 1e-9);
  EXPECT_LT((moved.points[0] - rod.points[0]).norm(), 1e-12) << "the joints' points stay";
  EXPECT_LT((moved.points[1] - rod.points[1]).norm(), 1e-12);
  EXPECT_EQ(w.mechanism()->bodies[1].points.back().name, P);
  EXPECT_EQ(view->handleCount(), 4) << "the handles follow the edit";
  w.undoStack()->undo();
  r = lw::resolve(*w.mechanism(), d);
  EXPECT_LT((r->bodies[2].position + r->bodies[2].rotation * r->bodies[2].points.back() - mid).norm(), 1e-12);

  // the follower's axis y (revolute D): its green tip turns it, and the ground's y with it
  const auto& follower = r->bodies[3];
  const Eigen::Vector3d fmid = follower.position + follower.rotation * (0.5 * (follower.points[0] + follower.points[1]));
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, view->projectToWidget({fmid.x(), fmid.y(), fmid.z()}).toPoint());
  QApplication::processEvents();
  ASSERT_EQ(view->selectedIndex(), 3);
  ASSERT_EQ(view->handleCount(), 3);
  const Eigen::Vector3d tip = fmid + 0.3 * r->drawingScale() * (follower.rotation * follower.vectors[0]);
  const QPoint tipAt = view->projectToWidget({tip.x(), tip.y(), tip.z()}).toPoint(), tipTo = tipAt + QPoint(40, 0);
  const auto tipExpected = view->pointOnViewPlane(tipTo, {tip.x(), tip.y(), tip.z()});
  ASSERT_TRUE(tipExpected.has_value());
  shiftDrag(view, tipAt, tipTo, 1);
  w.grab().save(artifacts() + "/main_window_axis_turned.png");
  lw::Diagnostics d3;
  r = lw::resolve(*w.mechanism(), d3);
  const Eigen::Vector3d u = (Eigen::Vector3d((*tipExpected)[0], (*tipExpected)[1], (*tipExpected)[2]) - fmid).normalized();
  EXPECT_LT((r->bodies[3].rotation * r->bodies[3].vectors[0] - u).norm(), 1e-9);
  EXPECT_LT((r->bodies[0].vectors[1] - u).norm(), 1e-9) << "the ground's half of joint D turned too";
  EXPECT_GT((u - Eigen::Vector3d::UnitY()).norm(), 0.05);
  w.undoStack()->undo();
  r = lw::resolve(*w.mechanism(), d3);
  EXPECT_LT((r->bodies[0].vectors[1] - Eigen::Vector3d::UnitY()).norm(), 1e-15);
}

TEST_F(MainWindowTest, AMalformedAutosaveIsReportedKeptAsideAndNotOfferedAgain) {
  QStandardPaths::setTestModeEnabled(true);
  QDir(lw::app::MainWindow::autosaveDir()).removeRecursively();
  QDir().mkpath(lw::app::MainWindow::autosaveDir());
  const QString broken = QDir(lw::app::MainWindow::autosaveDir()).filePath("0-broken.json");
  {
    QFile f(broken);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"linkwright-mechanism\", \"version\": 1, \"bodies\": [");  // cut off by the crash
  }
  ASSERT_EQ(lw::app::MainWindow::recoverableFiles(), QStringList{broken});
  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", false));
  EXPECT_FALSE(w.recover(broken));
  EXPECT_EQ(w.mechanism()->bodies.size(), 3u) << "the open document is kept";
  EXPECT_TRUE(lw::app::MainWindow::recoverableFiles().isEmpty()) << "not offered at every start";
  EXPECT_TRUE(QFileInfo::exists(broken + ".unrecoverable")) << "kept for a rescue by hand";
  const QString log = w.findChild<QPlainTextEdit*>()->toPlainText();
  EXPECT_TRUE(log.contains("could not be recovered")) << log.toStdString();
  QDir(lw::app::MainWindow::autosaveDir()).removeRecursively();
  QStandardPaths::setTestModeEnabled(false);
}

TEST_F(MainWindowTest, AnalysisErrorNamesTheGroupAndTimeAndKeepsTheFrames) {
  // a non-Grashof four-bar (rocker 1.4 m): the crank cannot turn past about 154 degrees
  QFile in(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json");
  ASSERT_TRUE(in.open(QIODevice::ReadOnly));
  QByteArray text = in.readAll();
  ASSERT_TRUE(text.contains("\"C\": [3, 0]"));
  text.replace("\"C\": [3, 0]", "\"C\": [1.4, 0]");
  QTemporaryDir dir;
  QFile out(dir.filePath("non-grashof.json"));
  ASSERT_TRUE(out.open(QIODevice::WriteOnly));
  out.write(text);
  out.close();

  lw::app::MainWindow w;
  ASSERT_TRUE(w.openFile(dir.filePath("non-grashof.json"), false));
  showAndGrab(w);
  auto* panel = w.analysisPanel();
  panel->analysisChoice()->setCurrentIndex(0);
  panel->run();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !panel->running(); }, 20000));
  const auto results = w.playbackBar()->results();
  ASSERT_NE(results, nullptr) << "the frames before the failure are kept";
  EXPECT_FALSE(results->ok);
  EXPECT_EQ(results->rows, 26u) << "t = 0 .. 0.25";
  const QString log = w.findChild<QPlainTextEdit*>()->toPlainText();
  EXPECT_TRUE(log.contains("t = 0.26")) << log.toStdString();
  EXPECT_TRUE(log.contains("{coupler, rocker}")) << log.toStdString();
  w.playbackBar()->showRow(static_cast<int>(results->rows) - 1);
  EXPECT_EQ(w.playbackBar()->currentRow(), 25);
}

TEST_F(MainWindowTest, BrokenFileShowsErrorsAndKeepsTheDocument) {
  lw::app::MainWindow w;
  QTemporaryDir tmp;
  ASSERT_TRUE(QFile::copy(QStringLiteral(LW_SAMPLES_DIR) + "/four-bar.json", tmp.filePath("four-bar.json")));
  ASSERT_TRUE(w.openFile(tmp.filePath("four-bar.json"), false));
  const QString broken = tmp.filePath("broken.json");
  QFile f(broken);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"format": "linkwright-mechanism", "version": 1, "name": "x", "dimension": 2,
 "bodies": [{"name": "b", "mass": -1, "com": [0, 0], "inertia": 1, "points": {"P": [0, 0]}}]})");
  f.close();
  EXPECT_FALSE(w.openFile(broken, false));
  ASSERT_NE(w.mechanism(), nullptr);
  EXPECT_EQ(w.mechanism()->name, "Four-bar crank-rocker with coupler point");
  EXPECT_TRUE(w.currentFile().endsWith("four-bar.json"));
  const auto* log = w.findChild<QPlainTextEdit*>();
  ASSERT_NE(log, nullptr);
  EXPECT_TRUE(log->toPlainText().contains("broken.json:2:35: bodies[0].mass: the mass is negative"))
      << log->toPlainText().toStdString();
  EXPECT_TRUE(log->toPlainText().contains("the current document is unchanged"));
}

TEST_F(MainWindowTest, SaveAsWritesACanonicalFileAndReopens) {
  lw::app::MainWindow w;
  const QString sample = QStringLiteral(LW_SAMPLES_DIR) + "/slider-crank.json";
  ASSERT_TRUE(w.openFile(sample, false));
  QTemporaryDir tmp;
  const QString copy = tmp.filePath("copy.json");
  ASSERT_TRUE(w.saveTo(copy));
  QFile a(sample), b(copy);
  ASSERT_TRUE(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
  EXPECT_EQ(a.readAll(), b.readAll());
  EXPECT_TRUE(w.openFile(copy, false));
  EXPECT_EQ(QDir(tmp.path()).entryList(QDir::Files).size(), 1);  // no temporary left behind
}

}  // namespace

