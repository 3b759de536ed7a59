// The main window's 3D-view interaction: picking selects, right click offers edits, Shift + drag
// moves a joint, a point handle or an axis live (one undo step), handles on the selected body.
// Part of MainWindow (main_window.h).
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
#include <QUndoStack>
#include <QVBoxLayout>

#include "simulation/assembly.h"
#include "document.h"
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
void MainWindow::connectSceneInteraction() {
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
        const auto r = edit::deleteJoint(after, name.toStdString());
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
    const edit::EditResult r =
        pointDrag_.axis ? edit::turnVectorTo(after, *pointDrag_.resolved, pointDrag_.point.body, pointDrag_.point.item,
                                               at - Eigen::Vector3d(pointDrag_.base[0], pointDrag_.base[1], pointDrag_.base[2]))
                        : edit::movePointTo(after, *pointDrag_.resolved, pointDrag_.point.body, pointDrag_.point.item, at);
    QString why = r.ok ? Document::whyInvalid(after) : QString::fromStdString(r.error);
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
  const edit::EditResult r = edit::addPointAt(after, *resolved_, body.name, body.position + body.rotation * local);
  if (!r.ok) {
    log(QString::fromStdString(r.error));
    return false;
  }
  applyEdit(after, QString::fromStdString(r.description));
  tree_->selectPath(QString("bodies[%1].points.%2").arg(p.index - 1).arg(QString::fromStdString(mechanism_->bodies[b - 1].points.back().name)));
  return true;
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

}  // namespace lw::app
