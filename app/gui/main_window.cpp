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
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include "analysis/assembly.h"
#include "help.h"
#include "media_export.h"
#include "dynamics/recursive_model.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "panels/analysis_panel.h"
#include "panels/model_tree.h"
#include "panels/parameters_panel.h"
#include "panels/property_editor.h"
#include "panels/contact_dialog.h"
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
#include "scene/scene_view.h"
#include "sketch/sketch_view.h"
#include "kinematics/natural_model.h"
#include "topology/mobility.h"
#include "topology/structural_groups.h"

namespace lw::app {
namespace {
constexpr int kMaxRecent = 8;
// bumped when the docks change: a window state saved with other docks is not restored
// 3: the sketch toolbar; 4: the properties dock; 5: properties under the model, messages under the
// analysis, the side columns full height (the layout at 1280×800)
constexpr int kLayoutVersion = 5;

// The structural groups of a mechanism for the Structure panel.
widgets::StructureDiagram structureDiagram(const ResolvedMechanism& m, int dof) {
  widgets::StructureDiagram d;
  d.dof = dof;
  try {
    const auto dec = topology::decompose(kin::compileNaturalModel(m));
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

// A design parameter's value changed; undo restores the old one.
class SetParameterCommand : public QUndoCommand {
 public:
  SetParameterCommand(MainWindow* w, int index, double before, double after, const QString& name)
      : QUndoCommand(QObject::tr("Set %1 = %2").arg(name).arg(after)), w_(w), index_(index), before_(before), after_(after) {}
  void redo() override { w_->applyParameter(index_, after_); }
  void undo() override { w_->applyParameter(index_, before_); }

 private:
  MainWindow* w_;
  int index_;
  double before_, after_;
};

// any structural edit (the sketch, later the property editor): the whole mechanism before and after
class ReplaceMechanismCommand : public QUndoCommand {
 public:
  ReplaceMechanismCommand(MainWindow* w, Mechanism before, Mechanism after, const QString& text)
      : QUndoCommand(text), w_(w), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { w_->replaceMechanism(after_); }
  void undo() override { w_->replaceMechanism(before_); }

 private:
  MainWindow* w_;
  Mechanism before_, after_;
};

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
  connect(playback_, &widgets::PlaybackBar::rowChanged, this, &MainWindow::showResultRow);
  connect(playback_, &widgets::PlaybackBar::showPathsChanged, this, [this] { showResultRow(playback_->currentRow()); });
  connect(playback_, &widgets::PlaybackBar::showVelocitiesChanged, this, [this] { showResultRow(playback_->currentRow()); });

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
  connect(parameters_, &widgets::ParametersPanel::message, this, &MainWindow::log);
  undo_ = new QUndoStack(this);
  connect(undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
  connect(undo_, &QUndoStack::indexChanged, this, [this] { autosaveDirty_ = true; });
  autosaveTimer_ = new QTimer(this);
  autosaveTimer_->setInterval(30000);
  connect(autosaveTimer_, &QTimer::timeout, this, &MainWindow::autosaveNow);
  autosaveTimer_->start();

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
  // picking in the 3D view selects the body or joint for the property editor
  // a right click on a body: add a point there (then a joint from it), or edit the body or joint
  connect(scene_, &widgets::SceneView::contextPicked, this, [this](widgets::SceneView::Pick p, const QPoint& global) {
    if (!resolved_) return;
    QMenu menu(this);
    if (p.kind == widgets::SceneView::Pick::Kind::Body && p.index > 0) {
      const QString name = QString::fromStdString(resolved_->bodies[static_cast<std::size_t>(p.index)].name);
      menu.addAction(tr("Add a point here on %1").arg(name), this, [this, p] { addPointAtPick(p); });
      menu.addAction(tr("Add a point here and a joint from it..."), this, [this, p] {
        if (!addPointAtPick(p)) return;
        const auto& body = mechanism_->bodies[static_cast<std::size_t>(p.index - 1)];
        widgets::JointDialog dialog(*mechanism_, QString::fromStdString(body.name + "." + body.points.back().name), this);
        if (dialog.exec() == QDialog::Accepted) addJointChecked(dialog.type(), dialog.point(0), dialog.point(1), dialog.axes());
      });
      menu.addAction(tr("Edit %1").arg(name), this, [this, p] { tree_->selectPath(QString("bodies[%1]").arg(p.index - 1)); });
    } else if (p.kind == widgets::SceneView::Pick::Kind::Joint) {
      const QString name = QString::fromStdString(resolved_->joints[static_cast<std::size_t>(p.index)].name);
      menu.addAction(tr("Edit joint %1").arg(name), this, [this, p] { tree_->selectPath(QString("joints[%1]").arg(p.index)); });
      menu.addAction(tr("Change type and connections of %1...").arg(name), this, [this, p] { changeJoint(p.index); });
      menu.addAction(tr("Delete joint %1").arg(name), this, [this, name] {
        Mechanism after = *mechanism_;
        const auto r = sketch::deleteJoint(after, name.toStdString());
        if (r.ok) applyEdit(after, QString::fromStdString(r.description));
      });
    }
    if (!menu.isEmpty()) menu.exec(global);
  });
  // Shift + drag on a point handle or a joint: the point (a joint's on both bodies) moves in the
  // plane facing the camera, live; one undo step
  connect(scene_, &widgets::SceneView::jointDragStarted, this, [this](int joint) {
    if (!resolved_ || joint < 0 || joint >= static_cast<int>(resolved_->joints.size())) return;
    const auto& jt = resolved_->joints[static_cast<std::size_t>(joint)];
    startPointDrag(jt.points[0].body, jt.points[0].index, tr("joint %1").arg(QString::fromStdString(jt.name)));
  });
  connect(scene_, &widgets::SceneView::handleDragStarted, this, [this](int handle) {
    if (!resolved_ || handle < 0 || handle >= static_cast<int>(handles_.size())) return;
    const HandleRef h = handles_[static_cast<std::size_t>(handle)];
    const auto& body = resolved_->bodies[static_cast<std::size_t>(h.body)];
    if (!h.axis) {
      startPointDrag(h.body, h.index, tr("point %1.%2").arg(QString::fromStdString(body.name), QString::fromStdString(body.pointNames[static_cast<std::size_t>(h.index)])));
      return;
    }
    const std::string name = body.vectorNames[static_cast<std::size_t>(h.index)];
    const Eigen::Vector3d tip = Eigen::Vector3d(h.base[0], h.base[1], h.base[2]) +
                                axisHandleLength() * (body.rotation * body.vectors[static_cast<std::size_t>(h.index)]);
    pointDrag_.active = true;
    pointDrag_.point = {body.name, name};
    pointDrag_.axis = true;
    pointDrag_.base = h.base;
    pointDrag_.what = tr("axis %1.%2").arg(QString::fromStdString(body.name), QString::fromStdString(name));
    pointDrag_.before = std::make_unique<Mechanism>(*mechanism_);
    pointDrag_.resolved = resolved_;
    pointDrag_.anchor = {tip.x(), tip.y(), tip.z()};
    pointDrag_.moved = false;
    statusBar()->showMessage(tr("Turning %1: release to keep the new direction, Esc to cancel").arg(pointDrag_.what));
  });
  connect(scene_, &widgets::SceneView::dragMoved, this, [this](const QPoint& pos) {
    if (!pointDrag_.active) return;
    const auto to = scene_->pointOnViewPlane(pos, pointDrag_.anchor);
    if (!to) return;
    Mechanism after = *pointDrag_.before;
    const Eigen::Vector3d at((*to)[0], (*to)[1], (*to)[2]);
    const sketch::EditResult r =
        pointDrag_.axis ? sketch::turnVectorTo(after, *pointDrag_.resolved, pointDrag_.point.body, pointDrag_.point.item,
                                               at - Eigen::Vector3d(pointDrag_.base[0], pointDrag_.base[1], pointDrag_.base[2]))
                        : sketch::movePointTo(after, *pointDrag_.resolved, pointDrag_.point.body, pointDrag_.point.item, at);
    QString why = r.ok ? whyInvalid(after) : QString::fromStdString(r.error);
    if (why.isEmpty()) {  // a point of a joint moved alone: the other body follows, or not there
      const analysis::AssemblyResult assembled = analysis::closeOpenedJoints(*pointDrag_.before, after);
      if (!assembled.ok) why = QString::fromStdString(assembled.error);
    }
    if (!why.isEmpty()) {
      statusBar()->showMessage(tr("Not there: %1").arg(why), 4000);
      return;
    }
    replaceMechanism(after);  // live, outside the undo stack until the release
    pointDrag_.moved = true;
  });
  connect(scene_, &widgets::SceneView::dragFinished, this, [this](bool cancelled) {
    if (!pointDrag_.active) return;
    if (pointDrag_.moved) {
      const Mechanism after = *mechanism_;
      replaceMechanism(*pointDrag_.before);
      if (!cancelled) applyEdit(after, (pointDrag_.axis ? tr("Turn %1") : tr("Move %1")).arg(pointDrag_.what));
    }
    statusBar()->showMessage(cancelled ? tr("Move of %1 cancelled").arg(pointDrag_.what) : QString(), 4000);
    pointDrag_ = {};
  });
  connect(scene_, &widgets::SceneView::picked, this, [this](widgets::SceneView::Pick p) {
    if (!resolved_) return;
    if (p.kind == widgets::SceneView::Pick::Kind::Body && p.index > 0) {  // body 0 is the ground
      tree_->selectPath(QString("bodies[%1]").arg(p.index - 1));
      statusBar()->showMessage(tr("Selected %1: edit it in Properties, or Shift + drag a handle (blue: a point, green: an axis)").arg(QString::fromStdString(resolved_->bodies[static_cast<std::size_t>(p.index)].name)), 5000);
    } else if (p.kind == widgets::SceneView::Pick::Kind::Joint) {
      tree_->selectPath(QString("joints[%1]").arg(p.index));
      statusBar()->showMessage(tr("Selected joint %1").arg(QString::fromStdString(resolved_->joints[static_cast<std::size_t>(p.index)].name)), 5000);
    }
  });
  connect(properties_, &widgets::PropertyEditor::edited, this, &MainWindow::editProperty);
  // smooth edges cost a software renderer 3-4× per frame: dropped while the motion plays
  connect(playback_, &widgets::PlaybackBar::animatingChanged, scene_, &widgets::SceneView::setAnimating);
  connect(properties_, &widgets::PropertyEditor::changeRequested, this, &MainWindow::changeItem);
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

  messages_ = new QPlainTextEdit(this);
  messages_->setReadOnly(true);
  messages_->setMaximumBlockCount(2000);
  auto* logDock = new QDockWidget(tr("Messages"), this);
  logDock->setObjectName("MessagesDock");
  logDock->setWidget(messages_);
  addDockWidget(Qt::RightDockWidgetArea, logDock);
  splitDockWidget(analysisDock, logDock, Qt::Vertical);

  plots_ = new widgets::PlotPanel(this);
  auto* plotDock = new QDockWidget(tr("Plots"), this);
  plotDock->setObjectName("PlotsDock");
  plotDock->setWidget(plots_);
  addDockWidget(Qt::BottomDockWidgetArea, plotDock);
  // the side columns run the full height; the plots sit under the views
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  connect(playback_, &widgets::PlaybackBar::rowChanged, plots_, &widgets::PlotPanel::setCursorRow);
  connect(plots_, &widgets::PlotPanel::rowRequested, playback_, [this](int row) {
    playback_->pause();
    playback_->showRow(row);
  });
  connect(plots_, &widgets::PlotPanel::message, this, [this](const QString& text) {
    log(text);
    statusBar()->showMessage(text, 8000);
  });

  resizeDocks({treeDock, analysisDock}, {290, 280}, Qt::Horizontal);
  resizeDocks({treeDock, propertiesDock}, {480, 320}, Qt::Vertical);
  resizeDocks({analysisDock, logDock}, {270, 530}, Qt::Vertical);
  resizeDocks({plotDock}, {230}, Qt::Vertical);

  createActions();
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undoAction = undo_->createUndoAction(this, tr("&Undo"));
  undoAction->setShortcut(QKeySequence::Undo);
  QAction* redoAction = undo_->createRedoAction(this, tr("&Redo"));
  redoAction->setShortcut(QKeySequence::Redo);
  edit->addAction(undoAction);
  edit->addAction(redoAction);
  // adding and deleting items (the sketch draws planar linkages; this works in 3D too)
  QMenu* model = menuBar()->addMenu(tr("&Model"));
  auto selectedBody = [this]() -> std::string {  // the body selected in the model tree (or of its point)
    const QString path = properties_->item();
    if (path.startsWith("ground.")) return kGroundName;
    const auto open = path.indexOf('['), close = path.indexOf(']');
    if (!path.startsWith("bodies[") || close < 0) return {};
    const auto i = static_cast<std::size_t>(path.mid(open + 1, close - open - 1).toInt());
    return i < mechanism_->bodies.size() ? mechanism_->bodies[i].name : std::string();
  };
  auto apply = [this](Mechanism after, const sketch::EditResult& r) {
    if (!r.ok) {
      statusBar()->showMessage(QString::fromStdString(r.error), 8000);
      log(QString::fromStdString(r.error));
      return;
    }
    applyEdit(after, QString::fromStdString(r.description));
  };
  QAction* addBody = model->addAction(tr("Add &Body"), this, [this, apply] {
    Mechanism after = *mechanism_;
    apply(after, sketch::addBody(after));
  });
  addBody->setObjectName("AddBody");
  addBody->setStatusTip(tr("Add a body at the origin with one point; set its numbers in Properties"));
  // an item added to the body selected in the tree (or the ground)
  auto addToSelectedBody = [this, model, apply, selectedBody](const QString& text, const char* name,
                                                              sketch::EditResult (*add)(Mechanism&, const std::string&)) {
    model->addAction(text, this, [this, apply, selectedBody, add] {
      Mechanism after = *mechanism_;
      const std::string body = selectedBody();
      if (body.empty()) return statusBar()->showMessage(tr("Select a body (or the ground) in the model tree first"), 8000);
      apply(after, add(after, body));
    })->setObjectName(name);
  };
  addToSelectedBody(tr("Add &Point to Selected Body"), "AddPoint", &sketch::addPoint);
  addToSelectedBody(tr("Add &Vector to Selected Body"), "AddVector", &sketch::addVector);
  QAction* addJoint = model->addAction(tr("Add &Joint..."), this, [this, selectedBody] {
    const std::string body = selectedBody();
    QString first;
    for (const auto& b : mechanism_->bodies)
      if (b.name == body && !b.points.empty()) first = QString::fromStdString(b.name + "." + b.points.front().name);
    widgets::JointDialog dialog(*mechanism_, first, this);
    dialog.setObjectName("JointDialog");
    if (dialog.exec() != QDialog::Accepted) return;
    addJointChecked(dialog.type(), dialog.point(0), dialog.point(1), dialog.axes());
  });
  addJoint->setObjectName("AddJoint");
  addJoint->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
  QAction* addDriverAction = model->addAction(tr("Add &Driver..."), this, [this] { addDriver(); });
  addDriverAction->setObjectName("AddDriver");
  addDriverAction->setStatusTip(tr("Drive a joint, a point's coordinate or the distance between two points as a function of time"));
  QAction* addForceAction = model->addAction(tr("Add F&orce..."), this, [this] { addForce(); });
  addForceAction->setObjectName("AddForce");
  addForceAction->setStatusTip(tr("Add a spring-damper, a torsion spring, a force on a point, a torque or a tyre"));
  QAction* addContactAction = model->addAction(tr("Add Co&ntact..."), this, [this] { addContact(); });
  addContactAction->setObjectName("AddContact");
  addContactAction->setStatusTip(tr("A point (a ball, a wheel's rim) that bounces on a plane, with its coefficient of restitution"));
  QAction* addVelocityAction = model->addAction(tr("Set &Initial Velocity..."), this, [this] { addInitialVelocity(); });
  addVelocityAction->setObjectName("AddInitialVelocity");
  addVelocityAction->setStatusTip(tr("The velocity dynamics starts from: a joint's rate, a point's velocity or a free body's"));
  QAction* changeSelected = model->addAction(tr("&Change Selected..."), this, [this] {
    const QString path = properties_->item();
    if (!changeItem(path))
      statusBar()->showMessage(tr("Select a joint, driver, force, contact or initial velocity in the model tree (or click a joint in the 3D view) first"), 8000);
  });
  changeSelected->setObjectName("ChangeSelected");
  changeSelected->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
  changeSelected->setStatusTip(tr("Change the selected joint, driver, force, contact or initial velocity: its type and what it connects (e.g. a pin into a slider)"));
  QAction* rename = model->addAction(tr("&Rename Selected..."), this, [this] {
    const QString path = properties_->item();
    if (path.isEmpty()) return statusBar()->showMessage(tr("Select an item in the model tree first"), 8000);
    const QString current = tree_->currentItem() ? tree_->currentItem()->text(0) : QString();
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename"), tr("New name for %1:").arg(current), QLineEdit::Normal, current, &ok);
    if (ok && !name.isEmpty() && name != current) renameChecked(path, name);
  });
  rename->setObjectName("RenameSelected");
  rename->setShortcut(QKeySequence(Qt::Key_F2));
  model->addSeparator();
  QAction* deleteSelected = model->addAction(tr("&Delete Selected"), this, [this, apply, selectedBody] {
    const QString path = properties_->item();
    Mechanism after = *mechanism_;
    const auto i = static_cast<std::size_t>(std::max(0, itemIndex(path)));
    if (path.startsWith("joints[")) {
      if (i < after.joints.size()) apply(after, sketch::deleteJoint(after, after.joints[i].name));
    } else if (path.startsWith("drivers[") && !path.contains('.')) {
      if (i < after.drivers.size()) apply(after, sketch::deleteDriver(after, after.drivers[i].name));
    } else if (path.startsWith("forces[") && !path.contains('.')) {
      if (i < after.forces.size()) apply(after, sketch::deleteForce(after, after.forces[i].name));
    } else if (path.startsWith("contacts[") && !path.contains('.')) {
      if (i < after.contacts.size()) apply(after, sketch::deleteContact(after, after.contacts[i].name));
    } else if (path.startsWith("initial_velocities[") && !path.contains('.')) {
      apply(after, sketch::changeInitialVelocity(after, i, nullptr));
    } else if (path.startsWith("bodies[") && !path.contains('.')) {
      apply(after, sketch::deleteBody(after, selectedBody()));
    } else {
      statusBar()->showMessage(tr("Select a body, joint, driver, force, contact or initial velocity in the model tree"), 8000);
    }
  });
  deleteSelected->setObjectName("DeleteSelected");
  deleteSelected->setShortcut(QKeySequence::Delete);

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
  QAction* reset = view->addAction(tr("&Reset Camera"), scene_, &widgets::SceneView::resetCamera);
  reset->setShortcut(Qt::Key_Home);
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

  QMenu* help = addHelpMenu(this, [this] { showStartPage(); });
  connect(welcome_, &widgets::WelcomePage::helpRequested, help->actions().front(), &QAction::trigger);

  resize(1400, 900);
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray(), kLayoutVersion);
  statusBar()->showMessage(tr("Open a mechanism (Ctrl+O) or a sample (File > Samples)"));
  newDocument();
}

MainWindow::~MainWindow() = default;

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
  QAction* animate = tools->addAction(tr("Animate"));
  animate->setObjectName("SketchAnimate");
  animate->setCheckable(true);
  animate->setShortcut(QKeySequence(Qt::Key_M));
  animate->setToolTip(tr("Turn the crank on its own (M); a crank that cannot turn fully rocks between its limits"));
  connect(animate, &QAction::toggled, this, [this](bool on) {
    if (on) views_->setCurrentWidget(sketch_);
    sketch_->setAnimating(on);
  });
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

void MainWindow::setDocument(std::unique_ptr<Mechanism> m, const QString& path) {
  discardAutosave();  // the previous document was saved or discarded (maybeSave)
  mechanism_ = std::move(m);
  path_ = path;
  setWindowModified(false);
  const QString title = path.isEmpty() ? tr("Untitled") : QFileInfo(path).fileName();
  setWindowTitle(title + "[*] — Linkwright");
  undo_->clear();  // edits of another document cannot be undone here
  // every view starts afresh: a selection, a plot's columns or a filter of the last document
  // would point at the wrong items of this one
  paths_.reset();
  playback_->setResults(nullptr);
  plots_->reset();
  tree_->setCurrentItem(nullptr);
  properties_->showItem(QString());
  scene_->setSelection(widgets::SceneView::Pick::Kind::None, -1);
  showMechanism();
  scene_->resetCamera();
  sketch_->fit();
  views_->setCurrentWidget(scene_);  // an opened mechanism is shown in 3D (New switches to the sketch)
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
  analysis_->setMechanism(resolved_, mechanism_->analysis.tEnd, mechanism_->analysis.dt, std::make_shared<const Mechanism>(*mechanism_));
  sketch_->setMechanism(*mechanism_, resolved_);
  if (!resolved_) {  // an empty new document, or a sketch that is not a mechanism yet
    scene_->clear();
    structure_->setDiagram({});
    statusBar()->showMessage(sketch_->summary());
    return;
  }
  scene_->setScene(scene::buildSceneModel(*resolved_), scene::storedConfigurationFrame(*resolved_));
  updateHandles();
  // the loops' rank counts the freedoms Grübler–Kutzbach miscounts (parallel axes in space,
  // overconstrained grids); the formula is kept beside it
  const auto mob = topology::grueblerKutzbach(*resolved_);
  const dyn::RecursiveModel tree = dyn::compileRecursiveModel(*resolved_);
  const int dof = dyn::loopMobility(tree, tree.z0);
  structure_->setDiagram(structureDiagram(*resolved_, dof));
  const QString formula = dof == mob.grueblerKutzbach
                              ? tr("Grübler–Kutzbach %1").arg(QString::fromStdString(mob.formula))
                              : tr("by the rank of the loop equations; Grübler–Kutzbach %1 counts redundant ones")
                                    .arg(QString::fromStdString(mob.formula));
  statusBar()->showMessage(tr("%1 — %2, %3 bodies, %4 joints, %5 DOF (%6)%7")
                               .arg(QString::fromStdString(mechanism_->name))
                               .arg(mechanism_->dimension == 2 ? tr("planar") : tr("spatial"))
                               .arg(mechanism_->bodies.size())
                               .arg(mechanism_->joints.size())
                               .arg(dof)
                               .arg(formula)
                               .arg(mob.drivers ? tr(", %1 driven").arg(mob.drivers) : QString()));
}

void MainWindow::showResults(std::shared_ptr<const widgets::RunResults> results) {
  // keep the whole motion in view (unless the user has placed the camera), then play from row 0
  paths_.reset();
  velocityColumns_.reset();
  if (resolved_ && results && results->rows > 0) {
    const std::size_t perRow = 12 * resolved_->bodies.size();
    if (results->poses.size() >= results->rows * perRow) {
      if (scene_->fitsOnResize()) {
        std::vector<scene::SceneFrame> sample;
        const std::size_t samples = std::min<std::size_t>(results->rows, 60);
        for (std::size_t k = 0; k < samples; ++k) {
          const std::size_t row = samples > 1 ? k * (results->rows - 1) / (samples - 1) : 0;
          sample.push_back(scene::frameFromPoses(*resolved_, results->poses.data() + row * perRow, results->time(row)));
        }
        scene_->fitMotion(sample, sample.front());
      }
      paths_ = std::make_shared<const std::vector<scene::Path>>(scene::tracedPaths(*resolved_, results->poses.data(), results->rows));
    }
    auto columns = std::make_shared<std::vector<scene::PointColumns>>(scene::pointVelocityColumns(results->columns));
    velocityScale_ = scene::velocityArrowScale(*columns, results->values, results->columns.size());
    velocityColumns_ = std::move(columns);
  }
  plots_->setResults(results);
  playback_->setResults(std::move(results));
  updateHandles();  // the bodies move: point handles only on the stored configuration
}

void MainWindow::showResultRow(int row) {
  const auto results = playback_->results();
  if (!results || !resolved_ || row < 0 || static_cast<std::size_t>(row) >= results->rows) return;
  const std::size_t perRow = 12 * resolved_->bodies.size();
  if (results->poses.size() < (static_cast<std::size_t>(row) + 1) * perRow) return;
  scene::SceneFrame frame = scene::frameFromPoses(*resolved_, results->poses.data() + row * perRow,
                                                 results->time(static_cast<std::size_t>(row)));
  if (paths_ && playback_->showPaths()) frame.paths = *paths_;  // the view re-sends only changed paths
  if (velocityColumns_ && playback_->showVelocities())
    frame.arrows = scene::velocityArrows(*velocityColumns_, results->values.data() + row * results->columns.size(), velocityScale_);
  scene_->showFrame(frame);
}

void MainWindow::editParameter(int index, double value) {
  if (index < 0 || static_cast<std::size_t>(index) >= mechanism_->parameters.size()) return;
  const Parameter& p = mechanism_->parameters[static_cast<std::size_t>(index)];
  const QString name = QString::fromStdString(p.name);
  if (!p.value.isLiteral() || p.value.value == value) return;
  // try it on a copy: an edit that breaks the mechanism is refused and the document kept
  Mechanism trial = *mechanism_;
  trial.parameters[static_cast<std::size_t>(index)].value = Number(value);
  Diagnostics d;
  if (!resolve(trial, d)) {
    for (const auto& x : d)
      if (x.isError()) log(tr("%1 = %2 refused: %3").arg(name).arg(value).arg(QString::fromStdString(x.format())));
    statusBar()->showMessage(tr("%1 = %2 refused (see Messages)").arg(name).arg(value), 8000);
    parameters_->setParameters(mechanism_->parameters);
    return;
  }
  // a length that opens a joint: the mechanism is assembled again (one undo step with the moved
  // bodies) or the value refused
  Mechanism assembledTrial = trial;
  const analysis::AssemblyResult assembled = analysis::closeOpenedJoints(*mechanism_, assembledTrial);
  if (!assembled.ok) {
    refuseEdit(tr("%1 = %2").arg(name).arg(value), QString::fromStdString(assembled.error));
    parameters_->setParameters(mechanism_->parameters);
    return;
  }
  if (!assembled.description.empty()) {
    applyEdit(trial, tr("Set %1 = %2").arg(name).arg(value));  // assembles it again, and says so
    return;
  }
  undo_->push(new SetParameterCommand(this, index, p.value.value, value, name));
}

void MainWindow::applyParameter(int index, double value) {
  mechanism_->parameters[static_cast<std::size_t>(index)].value = Number(value);
  // results of the old geometry no longer describe this mechanism
  paths_.reset();
  playback_->setResults(nullptr);
  plots_->setResults(nullptr);
  showMechanism();
}

void MainWindow::newDocument() {
  if (!maybeSave()) return;
  setDocument(std::make_unique<Mechanism>(sketch::emptyPlanar("Untitled")), {});
  views_->setCurrentWidget(sketch_);  // a new mechanism is drawn
}

QString MainWindow::whyInvalid(const Mechanism& m) {
  Diagnostics d;
  if (resolve(m, d)) return {};
  for (const auto& x : d)
    if (x.isError()) return QString::fromStdString(x.format());
  return tr("the mechanism does not resolve");
}

void MainWindow::editProperty(const QString& path, const QString& text) {
  Mechanism trial = *mechanism_;
  Number* field = numberAt(trial, path.toStdString());
  if (!field) return;
  bool isNumber = false;
  const double v = text.toDouble(&isNumber);
  QString why;
  try {
    *field = isNumber ? Number(v) : Number::expr(text.toStdString());
  } catch (const std::exception& e) {
    why = QString::fromUtf8(e.what());
  }
  // try it on a copy: an edit that breaks the mechanism is refused and the document kept
  if (why.isEmpty()) why = whyInvalid(trial);
  if (!why.isEmpty()) {
    log(tr("%1 = %2 refused: %3").arg(path, text, why));
    statusBar()->showMessage(tr("%1 = %2 refused (see Messages)").arg(path, text), 8000);
    properties_->setMechanism(*mechanism_);  // back to the document's value
    return;
  }
  if (!applyEdit(trial, tr("Set %1 = %2").arg(path, text))) properties_->setMechanism(*mechanism_);
}

bool MainWindow::renameChecked(const QString& path, const QString& name) {
  Mechanism after = *mechanism_;
  const sketch::EditResult r = sketch::renameItem(after, path.toStdString(), name.toStdString());
  QString why = r.ok ? QString() : QString::fromStdString(r.error);
  if (why.isEmpty() && !after.bodies.empty()) why = whyInvalid(after);  // a sketch of pivots only may not resolve
  if (!why.isEmpty()) {
    log(tr("Not renamed: %1").arg(why));
    statusBar()->showMessage(tr("Not renamed (see Messages)"), 8000);
    return false;
  }
  return applyEdit(after, QString::fromStdString(r.description));
}

bool MainWindow::addPointAtPick(const widgets::SceneView::Pick& p) {
  if (!resolved_ || p.kind != widgets::SceneView::Pick::Kind::Body || p.index <= 0) return false;
  const auto b = static_cast<std::size_t>(p.index);
  const auto& body = resolved_->bodies[b];
  // the picked point in the body's frame, from the pose shown (a playback frame or the drawing)
  Eigen::Matrix3d R = body.rotation;
  Eigen::Vector3d x = body.position;
  const auto results = playback_->results();
  const int row = playback_->currentRow();
  const std::size_t perRow = 12 * resolved_->bodies.size();
  if (results && row >= 0 && results->poses.size() >= (static_cast<std::size_t>(row) + 1) * perRow) {
    const double* pose = results->poses.data() + static_cast<std::size_t>(row) * perRow + 12 * b;
    R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(pose);
    x = Eigen::Vector3d(pose[9], pose[10], pose[11]);
  }
  Eigen::Vector3d picked(p.position[0], p.position[1], p.position[2]);
  if (resolved_->dimension == 2) picked.z() = x.z();  // planar bodies are drawn in layers: no depth
  const Eigen::Vector3d local = R.transpose() * (picked - x);
  Mechanism after = *mechanism_;
  const sketch::EditResult r = sketch::addPointAt(after, *resolved_, body.name, body.position + body.rotation * local);
  if (!r.ok) {
    log(QString::fromStdString(r.error));
    return false;
  }
  applyEdit(after, QString::fromStdString(r.description));
  tree_->selectPath(QString("bodies[%1].points.%2").arg(p.index - 1).arg(QString::fromStdString(mechanism_->bodies[b - 1].points.back().name)));
  return true;
}

bool MainWindow::addJointChecked(JointType type, const Ref& a, const Ref& b, const std::vector<Ref>& axes) {
  Mechanism after = *mechanism_;
  return keepIfValid(after, sketch::addJoint(after, type, a, b, axes), tr("The joint was not added"));
}

void MainWindow::startPointDrag(int b, int point, const QString& what) {
  const auto& body = resolved_->bodies[static_cast<std::size_t>(b)];
  // where it is in the stored configuration (an edit's frame; playback results are dropped by it)
  const Eigen::Vector3d at = body.position + body.rotation * body.points[static_cast<std::size_t>(point)];
  pointDrag_.active = true;
  pointDrag_.point = {body.name, body.pointNames[static_cast<std::size_t>(point)]};
  pointDrag_.what = what;
  pointDrag_.before = std::make_unique<Mechanism>(*mechanism_);
  pointDrag_.resolved = resolved_;
  pointDrag_.anchor = {at.x(), at.y(), at.z()};
  pointDrag_.moved = false;
  statusBar()->showMessage(tr("Moving %1: release to keep the new position, Esc to cancel").arg(what));
}

double MainWindow::axisHandleLength() const { return resolved_ ? 0.3 * resolved_->drawingScale() : 1.0; }

void MainWindow::updateHandles() {
  handles_.clear();
  std::vector<widgets::SceneView::Handle> shown;
  const int b = scene_->selectedKind() == widgets::SceneView::Pick::Kind::Body ? scene_->selectedIndex() : -1;
  // on the stored configuration only: during playback the bodies are elsewhere
  const bool stored = !playback_->results();
  if (resolved_ && stored && b > 0 && b < static_cast<int>(resolved_->bodies.size())) {
    const auto& body = resolved_->bodies[static_cast<std::size_t>(b)];
    Eigen::Vector3d centre = Eigen::Vector3d::Zero();
    for (std::size_t i = 0; i < body.points.size(); ++i) {
      const Eigen::Vector3d w = body.position + body.rotation * body.points[i];
      centre += w / static_cast<double>(body.points.size());
      shown.push_back({{w.x(), w.y(), w.z()}, false, {}});
      handles_.push_back({b, static_cast<int>(i), false, {}});
    }
    if (body.points.empty()) centre = body.position;
    // axes: a stem from the points' centre along each vector
    for (std::size_t i = 0; i < body.vectors.size(); ++i) {
      const Eigen::Vector3d tip = centre + axisHandleLength() * (body.rotation * body.vectors[i]);
      const std::array<double, 3> base{centre.x(), centre.y(), centre.z()};
      shown.push_back({{tip.x(), tip.y(), tip.z()}, true, base});
      handles_.push_back({b, static_cast<int>(i), true, base});
    }
  }
  scene_->setHandles(shown);
}

int MainWindow::itemIndex(const QString& path) {
  const auto open = path.indexOf('['), close = path.indexOf(']');
  if (open < 0 || close < open) return -1;
  bool ok = false;
  const int i = path.mid(open + 1, close - open - 1).toInt(&ok);
  return ok ? i : -1;
}

bool MainWindow::changeItem(const QString& path) {
  if (!path.endsWith(']') || path.count('[') != 1) return false;
  const int i = itemIndex(path);
  if (path.startsWith("joints[")) changeJoint(i);
  else if (path.startsWith("drivers[")) changeDriver(i);
  else if (path.startsWith("forces[")) changeForce(i);
  else if (path.startsWith("contacts[")) changeContact(i);
  else if (path.startsWith("initial_velocities[")) changeInitialVelocity(i);
  else return false;
  return true;
}

bool MainWindow::keepIfValid(const Mechanism& after, const sketch::EditResult& r, const QString& refused) {
  QString why = r.ok ? QString() : QString::fromStdString(r.error);
  if (why.isEmpty()) why = whyInvalid(after);
  if (!why.isEmpty()) {
    log(tr("%1: %2").arg(refused, why));
    statusBar()->showMessage(tr("%1 (see Messages)").arg(refused), 8000);
    return false;
  }
  return applyEdit(after, QString::fromStdString(r.description));
}

namespace {

// a dialog accepted by the user, or by `accept` standing in for the user (tests)
template <class Dialog>
bool runDialog(Dialog& dialog, const std::function<void(Dialog&)>& accept) {
  if (!accept) return dialog.exec() == QDialog::Accepted;
  accept(dialog);
  return true;
}

}  // namespace

bool MainWindow::keepDialogEdit(bool accepted, const std::function<bool(QString&)>& read,
                                const std::function<sketch::EditResult(Mechanism&)>& edit, const QString& refused,
                                const QString& select) {
  if (!accepted) return false;
  QString why;
  if (!read(why)) {
    log(tr("%1: %2").arg(refused, why));
    return false;
  }
  Mechanism after = *mechanism_;
  if (!keepIfValid(after, edit(after), refused)) return false;
  tree_->selectPath(select);
  return true;
}

bool MainWindow::addDriver(const std::function<void(widgets::DriverDialog&)>& accept) {
  widgets::DriverDialog dialog(*mechanism_, nullptr, this);
  dialog.setObjectName("DriverDialog");
  Driver d;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.driver(d, why); },
                        [&](Mechanism& m) { return sketch::addDriver(m, d); }, tr("The driver was not added"),
                        QString("drivers[%1]").arg(mechanism_->drivers.size()));
}

bool MainWindow::changeDriver(int index, const std::function<void(widgets::DriverDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->drivers.size())) return false;
  const Driver before = mechanism_->drivers[static_cast<std::size_t>(index)];
  widgets::DriverDialog dialog(*mechanism_, &before, this);
  dialog.setObjectName("ChangeDriverDialog");
  Driver d;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.driver(d, why); },
                        [&](Mechanism& m) { return sketch::changeDriver(m, before.name, d); },
                        tr("Driver %1 was not changed").arg(QString::fromStdString(before.name)), QString("drivers[%1]").arg(index));
}

bool MainWindow::addForce(const std::function<void(widgets::ForceDialog&)>& accept) {
  widgets::ForceDialog dialog(*mechanism_, resolved_.get(), nullptr, this);
  dialog.setObjectName("ForceDialog");
  Force f;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.force(f, why); },
                        [&](Mechanism& m) { return sketch::addForce(m, f); }, tr("The force was not added"),
                        QString("forces[%1]").arg(mechanism_->forces.size()));
}

bool MainWindow::changeForce(int index, const std::function<void(widgets::ForceDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->forces.size())) return false;
  const Force before = mechanism_->forces[static_cast<std::size_t>(index)];
  widgets::ForceDialog dialog(*mechanism_, resolved_.get(), &before, this);
  dialog.setObjectName("ChangeForceDialog");
  Force f;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.force(f, why); },
                        [&](Mechanism& m) { return sketch::changeForce(m, before.name, f); },
                        tr("Force %1 was not changed").arg(QString::fromStdString(before.name)), QString("forces[%1]").arg(index));
}

bool MainWindow::addContact(const std::function<void(widgets::ContactDialog&)>& accept) {
  widgets::ContactDialog dialog(*mechanism_, nullptr, this);
  dialog.setObjectName("ContactDialog");
  Contact c;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.contact(c, why); },
                        [&](Mechanism& m) { return sketch::addContact(m, c); }, tr("The contact was not added"),
                        QString("contacts[%1]").arg(mechanism_->contacts.size()));
}

bool MainWindow::changeContact(int index, const std::function<void(widgets::ContactDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->contacts.size())) return false;
  const Contact before = mechanism_->contacts[static_cast<std::size_t>(index)];
  widgets::ContactDialog dialog(*mechanism_, &before, this);
  dialog.setObjectName("ChangeContactDialog");
  Contact c;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.contact(c, why); },
                        [&](Mechanism& m) { return sketch::changeContact(m, before.name, c); },
                        tr("Contact %1 was not changed").arg(QString::fromStdString(before.name)), QString("contacts[%1]").arg(index));
}

bool MainWindow::addInitialVelocity(const std::function<void(widgets::InitialVelocityDialog&)>& accept) {
  widgets::InitialVelocityDialog dialog(*mechanism_, nullptr, this);
  dialog.setObjectName("InitialVelocityDialog");
  const bool accepted = runDialog(dialog, accept);
  InitialVelocity v;
  QString why;
  // where it lands: one for the same joint, point component or body is replaced
  std::size_t at = mechanism_->initialVelocities.size();
  if (accepted && dialog.velocity(v, why))
    for (std::size_t k = 0; k < mechanism_->initialVelocities.size(); ++k)
      if (sketch::describe(mechanism_->initialVelocities[k]) == sketch::describe(v)) at = k;
  return keepDialogEdit(accepted, [&](QString& reason) { return dialog.velocity(v, reason); },
                        [&](Mechanism& m) { return sketch::addInitialVelocity(m, v); }, tr("The initial velocity was not set"),
                        QString("initial_velocities[%1]").arg(at));
}

bool MainWindow::changeInitialVelocity(int index, const std::function<void(widgets::InitialVelocityDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->initialVelocities.size())) return false;
  const InitialVelocity before = mechanism_->initialVelocities[static_cast<std::size_t>(index)];
  widgets::InitialVelocityDialog dialog(*mechanism_, &before, this);
  dialog.setObjectName("ChangeInitialVelocityDialog");
  InitialVelocity v;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.velocity(v, why); },
                        [&](Mechanism& m) { return sketch::changeInitialVelocity(m, static_cast<std::size_t>(index), &v); },
                        tr("The initial velocity of %1 was not changed").arg(QString::fromStdString(sketch::describe(before))),
                        QString("initial_velocities[%1]").arg(index));
}

bool MainWindow::changeJoint(int index, const std::function<void(widgets::JointDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->joints.size())) return false;
  const Joint joint = mechanism_->joints[static_cast<std::size_t>(index)];
  widgets::JointDialog dialog(*mechanism_, joint, this);
  dialog.setObjectName("ChangeJointDialog");
  if (!runDialog(dialog, accept)) return false;
  Mechanism after = *mechanism_;
  const sketch::EditResult r = sketch::changeJoint(after, joint.name, dialog.type(), dialog.point(0), dialog.point(1), dialog.axes());
  if (!keepIfValid(after, r, tr("Joint %1 was not changed").arg(QString::fromStdString(joint.name)))) return false;
  logJointWarnings(after, joint.name);
  tree_->selectPath(QString("joints[%1]").arg(index));
  return true;
}

// a joint accepted with warnings (axes not parallel in the drawn position: the assembly will turn
// a body to line them up) says so where the user looks
void MainWindow::logJointWarnings(const Mechanism& m, const std::string& joint) {
  Diagnostics d;
  (void)resolve(m, d);
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    if (m.joints[j].name != joint) continue;
    const std::string prefix = "joints[" + std::to_string(j) + "]";
    for (const auto& x : d)
      if (!x.isError() && x.path.rfind(prefix, 0) == 0) {
        log(tr("Warning: %1").arg(QString::fromStdString(x.format())));
        statusBar()->showMessage(tr("Warning: %1").arg(QString::fromStdString(x.message)), 10000);
      }
  }
}

bool MainWindow::applyEdit(Mechanism after, const QString& description) {
  // the edit guard every path shares: a joint the edit opened is closed by assembling the
  // mechanism again, or the edit is refused (a drawing in progress that does not resolve yet is
  // the sketch's to finish)
  const analysis::AssemblyResult assembled = analysis::closeOpenedJoints(*mechanism_, after);
  if (!assembled.ok) {
    refuseEdit(description, QString::fromStdString(assembled.error));
    sketch_->setMechanism(*mechanism_, resolved_);  // the sketch shows the document, not the refused edit
    return false;
  }
  undo_->push(new ReplaceMechanismCommand(this, *mechanism_, after, description));
  log(assembled.description.empty() ? description
                                    : tr("%1 (assembled: %2)").arg(description, QString::fromStdString(assembled.description)));
  return true;
}

void MainWindow::refuseEdit(const QString& edit, const QString& why) {
  log(tr("%1 refused: %2").arg(edit, why));
  statusBar()->showMessage(tr("%1 refused: %2").arg(edit, why), 10000);
}

void MainWindow::replaceMechanism(const Mechanism& m) {
  *mechanism_ = m;
  // results of the old mechanism no longer describe this one
  paths_.reset();
  playback_->setResults(nullptr);
  plots_->setResults(nullptr);
  showMechanism();
}

bool MainWindow::openFile(const QString& path, bool interactive) {
  const io::LoadResult r = io::loadMechanismFile(path.toStdString());
  const QString name = QFileInfo(path).fileName();
  if (!r.ok()) {
    QStringList lines;
    int errors = 0;
    for (const auto& d : r.diagnostics) {
      lines << QString::fromStdString(d.format(name.toStdString()));
      errors += d.isError();
    }
    for (const QString& l : lines) log(l);
    log(tr("%1 was not opened; the current document is unchanged").arg(name));
    if (interactive) {
      QMessageBox box(QMessageBox::Warning, tr("Cannot open %1").arg(name),
                      (r.ioError ? tr("The file could not be read.")
                                 : errors == 1 ? tr("%1 is not a valid mechanism: 1 problem found.").arg(name)
                                               : tr("%1 is not a valid mechanism: %2 problems found.").arg(name).arg(errors)) +
                          tr(" The current document is unchanged."),
                      QMessageBox::Ok, this);
      box.setInformativeText(lines.mid(0, 5).join("\n"));
      box.setDetailedText(lines.join("\n"));
      box.exec();
    }
    return false;
  }
  for (const auto& d : r.diagnostics) log(QString::fromStdString(d.format(name.toStdString())));
  setDocument(std::make_unique<Mechanism>(*r.mechanism), path);
  addRecent(QFileInfo(path).absoluteFilePath());
  log(tr("Opened %1").arg(path));
  return true;
}

void MainWindow::showStartPage() { views_->setCurrentWidget(welcome_); }

bool MainWindow::exportImage(const QString& file) {
  const bool sketch = views_->currentWidget() == sketch_;
  QString path = file;
  if (path.isEmpty()) {
    const QString base = QFileInfo(path_.isEmpty() ? tr("mechanism") : path_).completeBaseName();
    path = QFileDialog::getSaveFileName(this, tr("Export Image"), base + ".png",
                                        sketch ? tr("PNG image (*.png);;SVG drawing (*.svg)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return false;
  }
  QString error;
  const bool ok = sketch ? exportSketchImage(*sketch_, path, &error) : exportSceneImage(*scene_, path, &error);
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
    const QString base = QFileInfo(path_.isEmpty() ? tr("mechanism") : path_).completeBaseName();
    path = QFileDialog::getSaveFileName(this, tr("Export Animation"), base + ".gif",
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

void MainWindow::open() {
  if (!maybeSave()) return;
  const QString dir = path_.isEmpty() ? samplesDir() : QFileInfo(path_).absolutePath();
  const QString file = QFileDialog::getOpenFileName(this, tr("Open mechanism"), dir,
                                                    tr("Linkwright mechanisms (*.json);;All files (*)"));
  if (!file.isEmpty()) openFile(file);
}

void MainWindow::showSamples() {
  if (!maybeSave()) return;
  widgets::SamplesGallery gallery(samplesDir(), this);
  if (gallery.exec() == QDialog::Accepted && !gallery.selectedFile().isEmpty())
    openFile(gallery.selectedFile());
}

bool MainWindow::saveTo(const QString& path) {
  if (!mechanism_ || mechanism_->bodies.empty()) {
    QMessageBox::information(this, tr("Nothing to save"), tr("The mechanism is empty."));
    return false;
  }
  std::string err;
  if (!io::saveMechanismFile(*mechanism_, path.toStdString(), err)) {
    log(QString::fromStdString(err));
    QMessageBox::critical(this, tr("Cannot save"), QString::fromStdString(err));
    return false;
  }
  discardAutosave();  // under the old name
  path_ = path;
  undo_->setClean();
  setWindowModified(false);
  setWindowTitle(QFileInfo(path).fileName() + "[*] — Linkwright");
  addRecent(QFileInfo(path).absoluteFilePath());
  log(tr("Saved %1").arg(path));
  return true;
}

bool MainWindow::save() { return path_.isEmpty() ? saveAs() : saveTo(path_); }

bool MainWindow::saveAs() {
  const QString file = QFileDialog::getSaveFileName(this, tr("Save mechanism"), path_,
                                                    tr("Linkwright mechanisms (*.json)"));
  if (file.isEmpty()) return false;
  return saveTo(file.endsWith(".json") ? file : file + ".json");
}

QString MainWindow::autosaveDir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave";
}

QString MainWindow::autosaveFile() const {
  const QString base = path_.isEmpty() ? QStringLiteral("untitled") : QFileInfo(path_).completeBaseName();
  return autosaveDir() + "/" + QString::number(QCoreApplication::applicationPid()) + "-" + base + ".json";
}

QString MainWindow::autosaveNow() {
  if (!mechanism_ || mechanism_->bodies.empty() || !isWindowModified() || !autosaveDirty_) return {};
  QDir().mkpath(autosaveDir());
  const QString file = autosaveFile();
  std::string err;
  if (!io::saveMechanismFile(*mechanism_, file.toStdString(), err)) {
    log(tr("Autosave failed: %1").arg(QString::fromStdString(err)));
    return {};
  }
  QFile origin(file + ".origin");  // where the document belongs, for recovery
  if (origin.open(QIODevice::WriteOnly | QIODevice::Truncate)) origin.write(path_.toUtf8());
  autosaveDirty_ = false;
  return file;
}

void MainWindow::discardAutosave() {
  QDir dir(autosaveDir());
  const QString prefix = QString::number(QCoreApplication::applicationPid()) + "-";
  for (const QString& f : dir.entryList({prefix + "*"}, QDir::Files)) dir.remove(f);
  autosaveDirty_ = true;  // the next modification autosaves again
}

QStringList MainWindow::recoverableFiles() {
  QStringList out;
  const QDir dir(autosaveDir());
  for (const QFileInfo& f : dir.entryInfoList({"*.json"}, QDir::Files, QDir::Time)) {
    const QString pid = f.fileName().section('-', 0, 0);
    const bool running = pid == QString::number(QCoreApplication::applicationPid()) || QFileInfo::exists("/proc/" + pid);
    if (!running) out << f.absoluteFilePath();
  }
  return out;
}

bool MainWindow::recover(const QString& autosave) {
  io::LoadResult r = io::loadMechanismFile(autosave.toStdString());
  if (!r.ok()) {
    // kept for a rescue by hand, but not offered again at every start
    const QString kept = autosave + ".unrecoverable";
    QFile::remove(kept);
    QFile::rename(autosave, kept);
    for (const auto& d : r.diagnostics) log(QString::fromStdString(d.format(autosave.toStdString())));
    log(tr("%1 could not be recovered; it is kept as %2").arg(autosave, kept));
    statusBar()->showMessage(tr("The autosave could not be recovered (see Messages)"), 8000);
    return false;
  }
  QFile origin(autosave + ".origin");
  const QString path = origin.open(QIODevice::ReadOnly) ? QString::fromUtf8(origin.readAll()) : QString();
  origin.close();
  setDocument(std::make_unique<Mechanism>(*r.mechanism), path);
  undo_->resetClean();  // unsaved: the file on disk is older
  autosaveDirty_ = true;
  autosaveNow();        // under this process, before the old copy goes
  QFile::remove(autosave);
  QFile::remove(autosave + ".origin");
  log(tr("Recovered %1 from %2").arg(path.isEmpty() ? tr("an untitled mechanism") : path, autosave));
  return true;
}

bool MainWindow::offerRecovery() {
  const QStringList files = recoverableFiles();
  if (files.isEmpty()) return false;
  const auto answer = QMessageBox::question(
      this, tr("Recover unsaved work"),
      tr("Linkwright did not close normally. Recover the unsaved mechanism (%1 found)?\n"
         "No keeps the files in %2.").arg(files.size()).arg(autosaveDir()));
  return answer == QMessageBox::Yes && recover(files.first());
}

bool MainWindow::maybeSave() {
  if (!isWindowModified()) return true;
  const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                           tr("The mechanism has unsaved changes. Save them?"),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  settings.setValue("recentFiles", files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = QSettings().value("recentFiles").toStringList();
  for (const QString& f : files) {
    QAction* a = recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] {
      if (maybeSave()) openFile(f);
    });
    a->setStatusTip(f);
  }
  recentMenu_->setEnabled(!files.isEmpty());
  welcome_->setRecentFiles(files);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  discardAutosave();
  setStartPageMode(false);  // the docks as the user arranged them, not hidden by the Start page
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState(kLayoutVersion));
  event->accept();
}

}  // namespace lw::app
