#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTime>
#include <QTimer>
#include <Eigen/Core>
#include <QActionGroup>
#include <QTreeWidgetItem>
#include <QLineEdit>
#include <QInputDialog>
#include <QMenu>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "simulation/assembly.h"
#include "document.h"
#include "help.h"
#include "playback_presenter.h"
#include "media_export.h"
#include "dynamics/recursive_model.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "panels/analysis_panel.h"
#include "live_gradients.h"
#include "panels/study_panel.h"
#include "panels/tuning_panel.h"
#include "panels/sweep_panel.h"
#include <QDoubleSpinBox>
#include "panels/model_tree.h"
#include "panels/parameters_panel.h"
#include "panels/property_editor.h"
#include "panels/contact_dialog.h"
#include "panels/limit_dialog.h"
#include "panels/switch_dialog.h"
#include "panels/driver_dialog.h"
#include "panels/initial_velocity_dialog.h"
#include "panels/force_dialog.h"
#include "panels/joint_dialog.h"
#include "mechanism/fields.h"
#include "panels/samples_gallery.h"
#include "panels/welcome_page.h"
#include "panels/structure_panel.h"
#include "plots/plot_panel.h"
#include "scene/scene_builder.h"
#include "view3d/scene_view.h"
#include "sketch/sketch_view.h"
#include "kinematics/natural_model.h"
#include "topology/mobility.h"
#include "kinematics/structural_groups.h"

namespace lw::app {
namespace {
// The structural groups of a mechanism for the Structure panel.
widgets::StructureDiagram structureDiagram(const ResolvedMechanism& m, int dof) {
  widgets::StructureDiagram d;
  d.dof = dof;
  try {
    const auto dec = kin::decompose(kin::compileNaturalModel(m));
    d.ok = dec.ok;
    d.error = dec.error;
    for (const auto& g : dec.groups) {
      widgets::StructureDiagram::Group group{g.name, g.kind, {}, g.bodies, g.inputs};
      for (int b : g.bodies) group.bodies.push_back(m.bodies[static_cast<std::size_t>(b)].name);
      d.groups.push_back(std::move(group));
    }
  } catch (const std::exception& e) {  // the diagram is optional: say why, keep the document
    d.ok = false;
    d.error = e.what();
  }
  return d;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("MainWindow");
  auto* central = new QWidget(this);
  scene_ = new widgets::SceneView(central);
  scene_->setObjectName("SceneView");
  playback_ = new widgets::PlaybackBar(central);
  playback_->setObjectName("PlaybackBar");
  auto* centralLayout = new QVBoxLayout(central);
  centralLayout->setContentsMargins(0, 0, 0, 0);
  centralLayout->setSpacing(0);
  views_ = new QTabWidget(central);
  views_->setObjectName("Views");
  views_->setDocumentMode(true);
  views_->setTabPosition(QTabWidget::South);
  sketch_ = new widgets::SketchView(views_);
  sketch_->setObjectName("SketchView");
  views_->addTab(scene_, tr("3D view"));
  views_->addTab(sketch_, tr("Sketch"));
  views_->setTabToolTip(0, tr("The mechanism in 3D: play back analyses here (Ctrl+1)"));
  views_->setTabToolTip(1, tr("Draw and edit planar linkages; drag them to see them move (Ctrl+2)"));
  // the Start page: what the application shows when it opens without a file
  welcome_ = new widgets::WelcomePage(samplesDir(), views_);
  welcome_->setObjectName("WelcomePage");
  views_->addTab(welcome_, tr("Start"));
  views_->setTabToolTip(2, tr("New, open, recent files and the samples (Help > Start Page)"));
  connect(welcome_, &widgets::WelcomePage::openRequested, this, [this](const QString& path) {
    if (maybeSave()) openFile(path);
  });
  connect(welcome_, &widgets::WelcomePage::newRequested, this, &MainWindow::newDocument);
  connect(welcome_, &widgets::WelcomePage::openDialogRequested, this, &MainWindow::open);
  connect(views_, &QTabWidget::currentChanged, this, [this] { setStartPageMode(views_->currentWidget() == welcome_); });
  centralLayout->addWidget(views_, 1);
  centralLayout->addWidget(playback_);
  connect(sketch_, &widgets::SketchView::edited, this, &MainWindow::applyEdit);
  connect(sketch_, &widgets::SketchView::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  setCentralWidget(central);

  tree_ = new widgets::ModelTree(this);
  auto* treeDock = new QDockWidget(tr("Model"), this);
  treeDock->setObjectName("ModelDock");
  treeDock->setWidget(tree_);
  addDockWidget(Qt::LeftDockWidgetArea, treeDock);

  parameters_ = new widgets::ParametersPanel(this);
  auto* parametersDock = new QDockWidget(tr("Parameters"), this);
  parametersDock->setObjectName("ParametersDock");
  parametersDock->setWidget(parameters_);
  addDockWidget(Qt::LeftDockWidgetArea, parametersDock);
  connect(parameters_, &widgets::ParametersPanel::valueEdited, this, &MainWindow::editParameter);
  connect(parameters_, &widgets::ParametersPanel::fieldEdited, this, &MainWindow::editParameterField);
  connect(parameters_, &widgets::ParametersPanel::message, this, &MainWindow::log);
  doc_ = new Document(this);
  mechanism_ = &doc_->mechanism();
  // an edit, undo or redo: results of the old mechanism no longer describe this one
  connect(doc_, &Document::changed, this, [this] {
    presenter_->clear();
    showMechanism();
  });
  connect(doc_, &Document::modifiedChanged, this, &QWidget::setWindowModified);
  connect(doc_, &Document::message, this, &MainWindow::log);

  structure_ = new widgets::StructurePanel(this);
  auto* structureDock = new QDockWidget(tr("Structure"), this);
  structureDock->setObjectName("StructureDock");
  structureDock->setWidget(structure_);
  addDockWidget(Qt::LeftDockWidgetArea, structureDock);

  properties_ = new widgets::PropertyEditor(this);
  auto* propertiesDock = new QDockWidget(tr("Properties"), this);
  propertiesDock->setObjectName("PropertiesDock");
  propertiesDock->setWidget(properties_);
  addDockWidget(Qt::LeftDockWidgetArea, propertiesDock);
  // the selected item's numbers under the tree (split before tabifying: a split of a tabbed dock
  // would only add a tab)
  splitDockWidget(treeDock, propertiesDock, Qt::Vertical);
  tabifyDockWidget(treeDock, structureDock);
  tabifyDockWidget(treeDock, parametersDock);
  treeDock->raise();
  connect(tree_, &widgets::ModelTree::itemSelected, properties_, &widgets::PropertyEditor::showItem);
  // the item selected in the tree (or picked) is marked in the 3D view: its body, or its joint
  connect(tree_, &widgets::ModelTree::itemSelected, this, [this](const QString& path) {
    const auto close = path.indexOf(']');
    const int index = close > 0 ? path.mid(path.indexOf('[') + 1, close - path.indexOf('[') - 1).toInt() : -1;
    if (path.startsWith("bodies[")) scene_->setSelection(widgets::SceneView::Pick::Kind::Body, index + 1);
    else if (path.startsWith("joints[")) scene_->setSelection(widgets::SceneView::Pick::Kind::Joint, index);
    else scene_->setSelection(widgets::SceneView::Pick::Kind::None, -1);
    updateHandles();
  });
  connectSceneInteraction();  // picking, context menus, Shift + drags (scene_interaction.cpp)
  connect(properties_, &widgets::PropertyEditor::edited, this, &MainWindow::editProperty);
  // smooth edges cost a software renderer 3-4× per frame: dropped while the motion plays
  connect(playback_, &widgets::PlaybackBar::animatingChanged, scene_, &widgets::SceneView::setAnimating);
  connect(properties_, &widgets::PropertyEditor::changeRequested, this, &MainWindow::changeItem);
  connect(properties_, &widgets::PropertyEditor::makeParameterRequested, this, &MainWindow::makeDesignParameter);
  connect(structure_, &widgets::StructurePanel::highlightBodies, scene_, &widgets::SceneView::setHighlightedBodies);
  connect(structure_, &widgets::StructurePanel::highlightBodies, sketch_, &widgets::SketchView::setHighlightedBodies);

  analysis_ = new widgets::AnalysisPanel(this);
  auto* analysisDock = new QDockWidget(tr("Analysis"), this);
  analysisDock->setObjectName("AnalysisDock");
  analysisDock->setWidget(analysis_);
  addDockWidget(Qt::RightDockWidgetArea, analysisDock);
  connect(analysis_, &widgets::AnalysisPanel::message, this, [this](const QString& text) {
    log(text);
    statusBar()->showMessage(text, 8000);
  });
  connect(analysis_, &widgets::AnalysisPanel::finished, this, &MainWindow::showResults);
  // the end time and step are the file's analysis block: kept with the document (a 100 s setting
  // was lost on quit without a prompt)
  connect(analysis_, &widgets::AnalysisPanel::spanEdited, doc_, &Document::setAnalysisSpan);

  messages_ = new QPlainTextEdit(this);
  messages_->setReadOnly(true);
  messages_->setMaximumBlockCount(2000);
  auto* logDock = new QDockWidget(tr("Messages"), this);
  logDock->setObjectName("MessagesDock");
  logDock->setWidget(messages_);
  addDockWidget(Qt::RightDockWidgetArea, logDock);
  splitDockWidget(analysisDock, logDock, Qt::Vertical);

  plots_ = new widgets::PlotPanel(this);
  presenter_ = new PlaybackPresenter(scene_, playback_, plots_, this);
  auto* plotDock = new QDockWidget(tr("Plots"), this);
  plotDock->setObjectName("PlotsDock");
  plotDock->setWidget(plots_);
  addDockWidget(Qt::BottomDockWidgetArea, plotDock);
  // the side columns run the full height; the plots sit under the views
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  connect(playback_, &widgets::PlaybackBar::rowChanged, plots_, &widgets::PlotPanel::setCursorRow);
  connect(plots_, &widgets::PlotPanel::costRequested, this,
          [this](const QString& column, int type) { makeCost(column, static_cast<Cost::Type>(type)); });
  connect(plots_, &widgets::PlotPanel::rowRequested, playback_, [this](int row) {
    playback_->pause();
    playback_->showRow(row);
  });
  connect(plots_, &widgets::PlotPanel::message, this, [this](const QString& text) {
    log(text);
    statusBar()->showMessage(text, 8000);
  });

  createStudyDocks();  // Study and Tuning beside the analysis, Gradients beside the plots (study_views.cpp)
  resizeDocks({treeDock, analysisDock}, {290, 280}, Qt::Horizontal);
  resizeDocks({treeDock, propertiesDock}, {480, 320}, Qt::Vertical);
  resizeDocks({analysisDock, logDock}, {620, 180}, Qt::Vertical);
  // the plots about as tall as they are useful at 1280×800 (230 px left 150 px of axes), the view above
  resizeDocks({plotDock}, {290}, Qt::Vertical);

  createActions();
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undoAction = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undoAction->setShortcut(QKeySequence::Undo);
  QAction* redoAction = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  redoAction->setShortcut(QKeySequence::Redo);
  edit->addAction(undoAction);
  edit->addAction(redoAction);
  createModelMenu();  // adding, changing and deleting items (model_edits.cpp)
  QMenu* view = menuBar()->addMenu(tr("&View"));
  QAction* show3d = view->addAction(tr("&3D View"), this, [this] { views_->setCurrentWidget(scene_); });
  show3d->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
  QAction* showSketch = view->addAction(tr("&Sketch"), this, [this] { views_->setCurrentWidget(sketch_); });
  showSketch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
  view->addSeparator();
  view->addAction(treeDock->toggleViewAction());
  view->addAction(structureDock->toggleViewAction());
  view->addAction(parametersDock->toggleViewAction());
  view->addAction(propertiesDock->toggleViewAction());
  view->addAction(logDock->toggleViewAction());
  view->addAction(analysisDock->toggleViewAction());
  view->addAction(plotDock->toggleViewAction());
  for (const char* name : {"StudyDock", "TuningDock", "GradientsDock", "SensitivitiesDock"})
    if (auto* d = findChild<QDockWidget*>(name)) view->addAction(d->toggleViewAction());
  QAction* reset = view->addAction(tr("&Reset Camera"), scene_, &widgets::SceneView::resetCamera);
  reset->setShortcut(Qt::Key_Home);
  // the sketch flags four-bars whose transmission angle falls below this (kept between sessions)
  sketch_->setTransmissionWarning(QSettings().value("sketch/transmissionWarning", 40.0).toDouble());
  QAction* warnAt = view->addAction(tr("Transmission Angle &Warning..."), this, [this] {
    bool ok = false;
    const double degrees = QInputDialog::getDouble(this, tr("Transmission angle warning"),
                                                   tr("Flag four-bar loops whose transmission angle falls below (degrees):"),
                                                   sketch_->transmissionWarning(), 0, 90, 0, &ok);
    if (!ok) return;
    sketch_->setTransmissionWarning(degrees);
    QSettings().setValue("sketch/transmissionWarning", degrees);
  });
  warnAt->setObjectName("TransmissionWarning");
  warnAt->setStatusTip(tr("The sketch's four-bar lines flag a transmission angle below this (40° by default, as in the textbooks)"));
  // standard views, up against gravity (a grid hanging along -z is seen hanging)
  QMenu* standard = view->addMenu(tr("Standard &Views"));
  using SV = widgets::SceneView::StandardView;
  const struct {
    SV view;
    const char* text;
    const char* name;
    Qt::Key key;
  } views[] = {{SV::Front, "&Front", "ViewFront", Qt::Key_1},
               {SV::Top, "&Top", "ViewTop", Qt::Key_2},
               {SV::Side, "&Side", "ViewSide", Qt::Key_3},
               {SV::Iso, "&Isometric", "ViewIso", Qt::Key_4}};
  for (const auto& v : views) {
    QAction* a = standard->addAction(tr(v.text), this, [this, sv = v.view] {
      views_->setCurrentWidget(scene_);
      scene_->setStandardView(sv);
    });
    a->setObjectName(v.name);
    a->setShortcut(QKeySequence(Qt::ALT | v.key));
  }

  createAnalysisMenu();  // study_views.cpp
  QMenu* help = addHelpMenu(this, [this] { showStartPage(); });
  connect(welcome_, &widgets::WelcomePage::helpRequested, help->actions().front(), &QAction::trigger);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray(), kLayoutVersion);
  // 1400 × 900 where it fits, else within the screen's available area (a 1280 × 800 laptop),
  // also when a geometry restored from a larger screen would not fit
  const QRect available = screen()->availableGeometry();
  const QSize wanted = settings.contains("window/geometry") ? size() : QSize(1400, 900);
  const QSize fitted = wanted.boundedTo(available.size() - QSize(16, 48));  // the frame and title bar around it
  if (fitted != size()) resize(fitted);
  if (!available.contains(frameGeometry())) move(available.topLeft());
  statusBar()->showMessage(tr("Open a mechanism (Ctrl+O) or a sample (File > Samples)"));
  newDocument();
}

MainWindow::~MainWindow() {
  if (structureWorker_.joinable()) structureWorker_.join();  // its result is posted to a window still alive
}

QString MainWindow::samplesDir() {
  const QString installed = QCoreApplication::applicationDirPath() + "/../share/linkwright/samples";
  if (QDir(installed).exists()) return QDir(installed).canonicalPath();
  return QStringLiteral(LW_SAMPLES_DIR);
}

void MainWindow::createActions() {
  // the sketch tools: one checked at a time; choosing one shows the sketch
  QToolBar* tools = addToolBar(tr("Sketch tools"));
  tools->setObjectName("SketchToolBar");
  tools->setIconSize(QSize(28, 28));
  auto* toolGroup = new QActionGroup(this);
  struct ToolEntry {
    widgets::SketchView::Tool tool;
    const char* name;
    const char* text;
    Qt::Key key;
    const char* tip;
  };
  const ToolEntry entries[] = {
      {widgets::SketchView::Tool::Select, "Select", "Select and drag", Qt::Key_S, "Drag points to change the geometry, drag the driven link to move the mechanism"},
      {widgets::SketchView::Tool::GroundPivot, "GroundPivot", "Ground pivot", Qt::Key_P, "Place a fixed pivot on the ground"},
      {widgets::SketchView::Tool::Link, "Link", "Link", Qt::Key_L, "Draw a link between two points; ends on existing points are pinned"},
      {widgets::SketchView::Tool::Point, "Point", "Coupler point", Qt::Key_C, "Add a point on a link (its path is traced)"},
      {widgets::SketchView::Tool::Slider, "Slider", "Slider", Qt::Key_K, "Put a slider block on a link's point, guided along the ground's x axis"},
      {widgets::SketchView::Tool::Driver, "Driver", "Driver", Qt::Key_D, "Drive a grounded link: it becomes the crank, one turn per second"},
      {widgets::SketchView::Tool::Delete, "Delete", "Delete", Qt::Key_X, "Delete a link or a ground pivot (and what depends on it)"}};
  for (const auto& e : entries) {
    QAction* t = tools->addAction(widgets::sketchToolIcon(e.tool), tr(e.text));
    t->setObjectName(QString("Tool") + e.name);
    t->setCheckable(true);
    t->setShortcut(QKeySequence(e.key));
    t->setToolTip(tr("%1 (%2)").arg(tr(e.text), QKeySequence(e.key).toString()));
    t->setStatusTip(tr(e.tip));
    toolGroup->addAction(t);
    t->setChecked(e.tool == widgets::SketchView::Tool::Select);
    const auto tool = e.tool;
    connect(t, &QAction::triggered, this, [this, tool] {
      views_->setCurrentWidget(sketch_);
      sketch_->setTool(tool);
    });
  }
  tools->addSeparator();
  QAction* fitSketch = tools->addAction(tr("Fit"), this, [this] { sketch_->fit(); });
  fitSketch->setObjectName("SketchFit");
  fitSketch->setShortcut(QKeySequence(Qt::Key_F));
  fitSketch->setToolTip(tr("Fit the sketch in the view (F)"));
  QAction* dimensions = tools->addAction(tr("Dimensions"));
  dimensions->setObjectName("SketchDimensions");
  dimensions->setCheckable(true);
  dimensions->setShortcut(QKeySequence(Qt::Key_N));
  dimensions->setToolTip(tr("Show link lengths and angles in the sketch (N): see what an edit or a tuning changed"));
  connect(dimensions, &QAction::toggled, this, [this](bool on) {
    views_->setCurrentWidget(sketch_);
    sketch_->setShowDimensions(on);
  });
  QAction* animate = tools->addAction(tr("Animate"));
  animate->setObjectName("SketchAnimate");
  animate->setCheckable(true);
  animate->setShortcut(QKeySequence(Qt::Key_M));
  animate->setToolTip(tr("Turn the crank on its own (M); a crank that cannot turn fully rocks between its limits"));
  connect(animate, &QAction::toggled, this, [this](bool on) {
    if (on) views_->setCurrentWidget(sketch_);
    sketch_->setAnimating(on);
  });
  QAction* resetPose = tools->addAction(tr("Reset Pose"), this, [this] {
    views_->setCurrentWidget(sketch_);
    sketch_->resetPose();
  });
  resetPose->setObjectName("SketchResetPose");
  resetPose->setShortcut(QKeySequence(Qt::Key_Home));
  resetPose->setToolTip(tr("Back to the drawn position after turning or animating the crank (Home)"));
  connect(sketch_, &widgets::SketchView::animatingChanged, animate, [animate](bool on) {
    const QSignalBlocker quiet(animate);
    animate->setChecked(on);
  });

  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* a = file->addAction(tr("&New"), this, &MainWindow::newDocument);
  a->setShortcut(QKeySequence::New);
  a->setStatusTip(tr("Start an empty planar mechanism"));
  a = file->addAction(tr("&Open..."), this, &MainWindow::open);
  a->setShortcut(QKeySequence::Open);
  a->setStatusTip(tr("Open a Linkwright mechanism file"));
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  a = file->addAction(tr("Sa&mples..."), this, &MainWindow::showSamples);
  a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  a->setStatusTip(tr("Browse the mechanisms shipped with Linkwright"));
  file->addSeparator();
  saveAction_ = file->addAction(tr("&Save"), this, &MainWindow::save);
  saveAction_->setShortcut(QKeySequence::Save);
  saveAsAction_ = file->addAction(tr("Save &As..."), this, &MainWindow::saveAs);
  saveAsAction_->setShortcut(QKeySequence::SaveAs);
  file->addSeparator();
  a = file->addAction(tr("Export &Image..."), this, [this] { exportImage(); });
  a->setObjectName("ExportImage");
  a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  a->setStatusTip(tr("Save the 3D view (PNG) or the sketch (PNG or SVG) as a picture"));
  a = file->addAction(tr("Export &Animation..."), this, [this] { exportAnimation(); });
  a->setObjectName("ExportAnimation");
  a->setStatusTip(tr("Save the playback of the last run as an animated GIF or a video (MP4, WebM; made by ffmpeg)"));
  file->addSeparator();
  a = file->addAction(tr("&Quit"), this, &QWidget::close);
  a->setShortcut(QKeySequence::Quit);
  updateRecentMenu();
}

void MainWindow::log(const QString& line) {
  messages_->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + line);
}

void MainWindow::showMechanism() {
  tree_->setMechanism(*mechanism_);
  parameters_->setParameters(mechanism_->parameters);
  properties_->setMechanism(*mechanism_);
  saveAction_->setEnabled(!mechanism_->bodies.empty());
  saveAsAction_->setEnabled(!mechanism_->bodies.empty());

  Diagnostics d;
  auto resolved = resolve(*mechanism_, d);
  resolved_ = resolved ? std::make_shared<const ResolvedMechanism>(std::move(*resolved)) : nullptr;
  presenter_->setMechanism(resolved_);
  const auto snapshot = std::make_shared<const Mechanism>(*mechanism_);
  analysis_->setMechanism(resolved_, mechanism_->analysis.tEnd, mechanism_->analysis.dt, snapshot);
  live_->request(snapshot);  // the Parameters panel's gradient column at this design
  showingStudy_ = true;
  study_->setMechanism(snapshot);
  tuning_->setMechanism(snapshot);
  showingStudy_ = false;
  const StudySettings chosen = study_->settings();
  tuning_->setStudy(chosen.parameters, chosen.analysis == "kinematics", study_->endTime()->value(), study_->step()->value());
  sweep_->setMechanism(snapshot);
  sweep_->setRun(chosen.analysis == "kinematics", study_->endTime()->value(), study_->step()->value());
  sketch_->setMechanism(*mechanism_, resolved_);
  if (!resolved_) {  // an empty new document, or a sketch that is not a mechanism yet
    scene_->clear();
    structure_->setDiagram({});
    statusBar()->showMessage(sketch_->summary());
    return;
  }
  scene_->setScene(scene::buildSceneModel(*resolved_), scene::storedConfigurationFrame(*resolved_));
  if (!playback_->playing()) scene_->setAnimating(false);  // after a slider's quick previews: smoothed again
  updateHandles();
  // the loops' rank counts the freedoms Grübler–Kutzbach miscounts (parallel axes in space,
  // overconstrained grids); the formula is kept beside it. Both it and the structural groups take
  // seconds on a mechanism of thousands of bodies: found on a worker there, the window shown first
  auto analyse = [](const ResolvedMechanism& m) {
    const dyn::RecursiveModel tree = dyn::compileRecursiveModel(m);
    dyn::RecursiveData kernels;
    const int dof = dyn::loopMobility(tree, kernels, tree.z0);
    return std::make_pair(dof, structureDiagram(m, dof));
  };
  const int generation = ++structureGeneration_;
  if (structureWorker_.joinable()) structureWorker_.join();
  if (resolved_->bodies.size() + resolved_->joints.size() <= 1500) {
    auto [dof, diagram] = analyse(*resolved_);
    showStructure(dof, std::move(diagram));
    return;
  }
  widgets::StructureDiagram pending;
  pending.pending = true;
  structure_->setDiagram(pending);
  showStructure(-1, pending);
  structureWorker_ = std::thread([this, m = resolved_, generation, analyse] {
    auto result = analyse(*m);
    QMetaObject::invokeMethod(
        this,
        [this, generation, result = std::move(result)]() mutable {
          if (generation == structureGeneration_) showStructure(result.first, std::move(result.second));
        },
        Qt::QueuedConnection);
  });
}

void MainWindow::showStructure(int dof, widgets::StructureDiagram diagram) {
  if (!resolved_ || !mechanism_) return;
  const auto mob = topology::grueblerKutzbach(*resolved_);
  if (!diagram.pending) structure_->setDiagram(std::move(diagram));
  const QString formula = dof < 0 ? tr("counting them by the rank of the loop equations…")
                          : dof == mob.grueblerKutzbach
                              ? tr("Grübler–Kutzbach %1").arg(QString::fromStdString(mob.formula))
                              : tr("by the rank of the loop equations; Grübler–Kutzbach %1 counts redundant ones")
                                    .arg(QString::fromStdString(mob.formula));
  statusBar()->showMessage(tr("%1 — %2, %3 bodies, %4 joints, %5 DOF (%6)%7")
                               .arg(QString::fromStdString(mechanism_->name))
                               .arg(mechanism_->dimension == 2 ? tr("planar") : tr("spatial"))
                               .arg(mechanism_->bodies.size())
                               .arg(mechanism_->joints.size())
                               .arg(dof < 0 ? QStringLiteral("…") : QString::number(dof))
                               .arg(formula)
                               .arg(mob.drivers ? tr(", %1 driven").arg(mob.drivers) : QString()));
}

void MainWindow::showResults(std::shared_ptr<const widgets::RunResults> results) {
  presenter_->showResults(std::move(results));
  updateHandles();  // the bodies move: point handles only on the stored configuration
}

void MainWindow::showStartPage() {
  views_->setCurrentWidget(welcome_);
  statusBar()->showMessage(tr("Click a sample to open it, or New sketch to draw a linkage (F1: getting started)"));
}

bool MainWindow::exportImage(const QString& file, int scale) {
  const bool sketch = views_->currentWidget() == sketch_;
  QString path = file;
  if (scale <= 0 && path.isEmpty()) {  // the size first: a slide wants 2×, a paper 3× or 4×
    const QSize shown = (sketch ? sketch_->viewport()->size() : scene_->size()) * devicePixelRatio();
    QStringList sizes;
    for (int k = 1; k <= 4; ++k) sizes << tr("%1× the view: %2 × %3 pixels").arg(k).arg(shown.width() * k).arg(shown.height() * k);
    bool ok = false;
    const QString chosen = QInputDialog::getItem(this, tr("Export Image"), tr("Size (an SVG drawing scales to any size):"), sizes, 1, false, &ok);
    if (!ok) return false;
    scale = static_cast<int>(sizes.indexOf(chosen)) + 1;
  }
  scale = std::clamp(scale, 1, 8);
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Export Image"), suggestedPath(".png"),
                                        sketch ? tr("PNG image (*.png);;SVG drawing (*.svg)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return false;
  }
  QString error;
  const bool ok = sketch ? exportSketchImage(*sketch_, path, &error, scale) : exportSceneImage(*scene_, path, &error, scale);
  log(ok ? tr("Exported %1").arg(path) : error);
  statusBar()->showMessage(ok ? tr("Exported %1").arg(path) : error, 8000);
  return ok;
}

bool MainWindow::exportAnimation(const QString& file) {
  if (!playback_->results()) {
    statusBar()->showMessage(tr("Run an analysis first: the animation is its playback"), 8000);
    return false;
  }
  QString path = file;
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Export Animation"), suggestedPath(".gif"),
                                        tr("Animated GIF (*.gif);;MP4 video (*.mp4);;WebM video (*.webm)"));
    if (path.isEmpty()) return false;
  }
  views_->setCurrentWidget(scene_);
  QProgressDialog progress(tr("Exporting %1...").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 100, this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  QString error;
  const bool ok = app::exportAnimation(*scene_, *playback_, path, {}, [&](int done, int total) {
    progress.setMaximum(total);
    progress.setValue(done);
    QCoreApplication::processEvents();
    return !progress.wasCanceled();
  }, &error);
  log(ok ? tr("Exported %1").arg(path) : error);
  statusBar()->showMessage(ok ? tr("Exported %1").arg(path) : error, 8000);
  return ok;
}

void MainWindow::setStartPageMode(bool on) {
  if (on == startPageMode_) return;
  startPageMode_ = on;
  if (on) {  // the Start page has the window: the docks and the playback bar step aside
    dockState_ = saveState(kLayoutVersion);
    for (auto* dock : findChildren<QDockWidget*>()) dock->hide();
    playback_->hide();
  } else {
    restoreState(dockState_, kLayoutVersion);
    playback_->show();
  }
}

}  // namespace lw::app
