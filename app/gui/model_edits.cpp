// The main window's edits of the document: the Model menu, parameters, properties, renames, the
// item dialogs, and the edit guard every one of them passes (applyEdit: a joint an edit opened is
// assembled again or the edit refused). Part of MainWindow (main_window.h).
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
#include <memory>
#include <optional>

#include "simulation/assembly.h"
#include "document.h"
#include "help.h"
#include "playback_presenter.h"
#include "media_export.h"
#include "dynamics/recursive_model.h"
#include "io/mechanism_io.h"
#include "mechanism/parameters.h"
#include "mechanism/resolved.h"
#include "panels/analysis_panel.h"
#include "panels/model_tree.h"
#include "panels/parameters_panel.h"
#include "panels/property_editor.h"
#include "panels/contact_dialog.h"
#include "panels/limit_dialog.h"
#include "panels/switch_dialog.h"
#include "panels/output_dialog.h"
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

void MainWindow::createModelMenu() {
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
  auto apply = [this](Mechanism after, const edit::EditResult& r) {
    if (!r.ok) {
      statusBar()->showMessage(QString::fromStdString(r.error), 8000);
      log(QString::fromStdString(r.error));
      return;
    }
    applyEdit(after, QString::fromStdString(r.description));
  };
  QAction* addBody = model->addAction(tr("Add &Body"), this, [this, apply] {
    Mechanism after = *mechanism_;
    apply(after, edit::addBody(after));
  });
  addBody->setObjectName("AddBody");
  addBody->setStatusTip(tr("Add a body at the origin with one point; set its numbers in Properties"));
  // an item added to the body selected in the tree (or the ground)
  auto addToSelectedBody = [this, model, apply, selectedBody](const QString& text, const char* name,
                                                              edit::EditResult (*add)(Mechanism&, std::string)) {
    model->addAction(text, this, [this, apply, selectedBody, add] {
      Mechanism after = *mechanism_;
      const std::string body = selectedBody();
      if (body.empty()) return statusBar()->showMessage(tr("Select a body (or the ground) in the model tree first"), 8000);
      apply(after, add(after, body));
    })->setObjectName(name);
  };
  addToSelectedBody(tr("Add &Point to Selected Body"), "AddPoint", &edit::addPoint);
  addToSelectedBody(tr("Add &Vector to Selected Body"), "AddVector", &edit::addVector);
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
  QAction* addLimitAction = model->addAction(tr("Add &Limit..."), this, [this] { addLimit(); });
  addLimitAction->setObjectName("AddLimit");
  addLimitAction->setStatusTip(tr("End stops on a joint: its angle or slide kept between bounds, an impact at each"));
  QAction* addSwitchAction = model->addAction(tr("Add S&witch..."), this, [this] { addSwitch(); });
  addSwitchAction->setObjectName("AddSwitch");
  addSwitchAction->setStatusTip(tr("Forces that start or stop when a point's or joint's coordinate crosses a value"));
  QAction* addOutputAction = model->addAction(tr("Add O&utput..."), this, [this] { addOutput(); });
  addOutputAction->setObjectName("AddOutput");
  addOutputAction->setStatusTip(tr("A quantity every run records as columns (a point's path, a joint's angle, a reaction, a motor's torque...): "
                                   "to plot, and for costs"));
  QAction* addVelocityAction = model->addAction(tr("Set &Initial Velocity..."), this, [this] { addInitialVelocity(); });
  addVelocityAction->setObjectName("AddInitialVelocity");
  addVelocityAction->setStatusTip(tr("The velocity dynamics starts from: a joint's rate, a point's velocity or a free body's"));
  model->addSeparator();
  QAction* addParameterAction = model->addAction(tr("Add P&arameter..."), this, [this] { addParameter(); });
  addParameterAction->setObjectName("AddParameter");
  addParameterAction->setStatusTip(tr("A design parameter (name, value, unit, range) to use in fields' expressions, studies and tuning"));
  QAction* parameteriseAction = model->addAction(tr("Parameterise &Length of Selected Link"), this, [this, selectedBody] {
    const std::string body = selectedBody();
    if (body.empty() || body == kGroundName) return statusBar()->showMessage(tr("Select a link in the model tree (or right-click it in the sketch) first"), 8000);
    parameteriseLength(QString::fromStdString(body));
  });
  parameteriseAction->setObjectName("ParameteriseLength");
  parameteriseAction->setStatusTip(tr("The selected link's length becomes a design parameter; the link stays a link when it changes"));
  QAction* reportForceAction = model->addAction(tr("Report &Force in Selected Joint or Driver"), this, [this] { reportForce(properties_->item()); });
  reportForceAction->setObjectName("ReportForce");
  reportForceAction->setStatusTip(tr("Runs report the force and moment in the selected joint (on its second body) or the torque or force the "
                               "selected driver must supply: columns to plot and outputs for costs"));
  model->addSeparator();
  QAction* changeSelected = model->addAction(tr("&Change Selected..."), this, [this] {
    const QString path = properties_->item();
    if (!changeItem(path))
      statusBar()->showMessage(tr("Select a joint, driver, force, contact, limit, switch, initial velocity, output or cost in the model tree (or click a joint in the 3D view) first"), 8000);
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
      if (i < after.joints.size()) apply(after, edit::deleteJoint(after, after.joints[i].name));
    } else if (path.startsWith("drivers[") && !path.contains('.')) {
      if (i < after.drivers.size()) apply(after, edit::deleteDriver(after, after.drivers[i].name));
    } else if (path.startsWith("forces[") && !path.contains('.')) {
      if (i < after.forces.size()) apply(after, edit::deleteForce(after, after.forces[i].name));
    } else if (path.startsWith("contacts[") && !path.contains('.')) {
      if (i < after.contacts.size()) apply(after, edit::deleteContact(after, after.contacts[i].name));
    } else if (path.startsWith("limits[") && !path.contains('.')) {
      if (i < after.limits.size()) apply(after, edit::deleteLimit(after, after.limits[i].name));
    } else if (path.startsWith("switches[") && !path.contains('.')) {
      if (i < after.switches.size()) apply(after, edit::deleteSwitch(after, after.switches[i].name));
    } else if (path.startsWith("initial_velocities[") && !path.contains('.')) {
      apply(after, edit::changeInitialVelocity(after, i, nullptr));
    } else if (path.startsWith("outputs[") && !path.contains('.')) {
      if (i < after.outputs.size()) apply(after, edit::deleteOutput(after, after.outputs[i].name));
    } else if (path.startsWith("bodies[") && !path.contains('.')) {
      apply(after, edit::deleteBody(after, selectedBody()));
    } else if (path.startsWith("parameters[") && !path.contains('.')) {
      deleteParameter(static_cast<int>(i));
    } else if (path.startsWith("costs[") && !path.contains('.')) {
      if (i < after.costs.size()) {
        const std::string name = after.costs[i].name;
        after.costs.erase(after.costs.begin() + static_cast<std::ptrdiff_t>(i));
        std::erase(after.study.costs, name);
        if (after.study.tuneCost == name) after.study.tuneCost.clear();
        applyEdit(after, tr("Delete cost %1").arg(QString::fromStdString(name)));
      }
    } else {
      statusBar()->showMessage(tr("Select a body, joint, driver, force, contact, initial velocity, output, parameter or cost in the model tree"), 8000);
    }
  });
  deleteSelected->setObjectName("DeleteSelected");
  deleteSelected->setShortcut(QKeySequence::Delete);

}

void MainWindow::editParameter(int index, double value) {
  if (index < 0 || static_cast<std::size_t>(index) >= mechanism_->parameters.size()) return;
  const Parameter& p = mechanism_->parameters[static_cast<std::size_t>(index)];
  const QString name = QString::fromStdString(p.name);
  if (!p.value.isLiteral() || p.value.value == value) return;
  // a value outside the parameter's range is refused with the range (it was accepted, or refused
  // by what it broke: L1 = -1 read "bodies[0].mass: the mass is negative")
  if (const std::string outside = outsideRange(p, value); !outside.empty()) {
    refuseEdit(tr("%1 = %2").arg(name).arg(value), QString::fromStdString(outside));
    parameters_->setParameters(mechanism_->parameters);
    return;
  }
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
  doc_->pushParameter(index, value);
}

void MainWindow::editProperty(const QString& path, const QString& text) {
  if (path.startsWith("parameters[")) {  // a parameter's field, as the schema names it
    editParameterField(itemIndex(path), path.mid(path.lastIndexOf('.') + 1), text);
    return;
  }
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
  if (why.isEmpty()) why = Document::whyInvalid(trial);
  if (!why.isEmpty()) {
    log(tr("%1 = %2 refused: %3").arg(path, text, why));
    statusBar()->showMessage(tr("%1 = %2 refused (see Messages)").arg(path, text), 8000);
    properties_->setMechanism(*mechanism_);  // back to the document's value
    return;
  }
  if (!applyEdit(trial, tr("Set %1 = %2").arg(path, text))) properties_->setMechanism(*mechanism_);
}

bool MainWindow::renameChecked(const QString& path, const QString& name) {
  if (path.startsWith("parameters[") && !path.contains('.')) return editParameterField(itemIndex(path), "name", name);
  Mechanism after = *mechanism_;
  const edit::EditResult r = edit::renameItem(after, path.toStdString(), name.toStdString());
  QString why = r.ok ? QString() : QString::fromStdString(r.error);
  if (why.isEmpty() && !after.bodies.empty()) why = Document::whyInvalid(after);  // a sketch of pivots only may not resolve
  if (!why.isEmpty()) {
    log(tr("Not renamed: %1").arg(why));
    statusBar()->showMessage(tr("Not renamed (see Messages)"), 8000);
    return false;
  }
  return applyEdit(after, QString::fromStdString(r.description));
}

bool MainWindow::addJointChecked(JointType type, const Ref& a, const Ref& b, const std::vector<Ref>& axes) {
  Mechanism after = *mechanism_;
  return keepIfValid(after, edit::addJoint(after, type, a, b, axes), tr("The joint was not added"));
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
  else if (path.startsWith("limits[")) changeLimit(i);
  else if (path.startsWith("switches[")) changeSwitch(i);
  else if (path.startsWith("outputs[")) changeOutput(i);
  else if (path.startsWith("initial_velocities[")) changeInitialVelocity(i);
  else if (path.startsWith("costs[") && i >= 0 && static_cast<std::size_t>(i) < mechanism_->costs.size())
    changeCost(QString::fromStdString(mechanism_->costs[static_cast<std::size_t>(i)].name));
  else return false;
  return true;
}

bool MainWindow::keepIfValid(const Mechanism& after, const edit::EditResult& r, const QString& refused) {
  QString why = r.ok ? QString() : QString::fromStdString(r.error);
  if (why.isEmpty()) why = Document::whyInvalid(after);
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
                                const std::function<edit::EditResult(Mechanism&)>& edit, const QString& refused,
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

// A kind of item a dialog adds and changes: its list in the mechanism and in paths, its dialog
// (made on the item or on none) and what the dialog reads, its edits, the refusals' words.
template <class ItemT, class DialogT>
struct ItemKind {
  using Item = ItemT;
  using Dialog = DialogT;
  std::vector<Item> Mechanism::*list;
  const char* path;        // "drivers"
  const char* dialogName;  // "DriverDialog"; a change's is "Change" + it
  const char* noun;        // "driver"
  bool (Dialog::*read)(Item&, QString&) const;
  edit::EditResult (*add)(Mechanism&, Item);
  edit::EditResult (*change)(Mechanism&, std::string, Item);
};

namespace {

template <class Dialog, class Item>
std::unique_ptr<Dialog> makeDialog(const Mechanism& m, const ResolvedMechanism*, const Item* existing, QWidget* parent) {
  return std::make_unique<Dialog>(m, existing, parent);
}
template <>
std::unique_ptr<widgets::ForceDialog> makeDialog<widgets::ForceDialog, Force>(const Mechanism& m, const ResolvedMechanism* drawn, const Force* existing,
                                                                              QWidget* parent) {
  return std::make_unique<widgets::ForceDialog>(m, drawn, existing, parent);  // it picks points on the drawn pose
}

QString capitalised(const char* noun) {
  QString s = QString::fromLatin1(noun);
  s[0] = s[0].toUpper();
  return s;
}

const ItemKind<Driver, widgets::DriverDialog> kDrivers{&Mechanism::drivers, "drivers", "DriverDialog", "driver",
                                                      &widgets::DriverDialog::driver, &edit::addDriver, &edit::changeDriver};
const ItemKind<Force, widgets::ForceDialog> kForces{&Mechanism::forces, "forces", "ForceDialog", "force",
                                                   &widgets::ForceDialog::force, &edit::addForce, &edit::changeForce};
const ItemKind<Contact, widgets::ContactDialog> kContacts{&Mechanism::contacts, "contacts", "ContactDialog", "contact",
                                                         &widgets::ContactDialog::contact, &edit::addContact, &edit::changeContact};
const ItemKind<JointLimit, widgets::LimitDialog> kLimits{&Mechanism::limits, "limits", "LimitDialog", "limit",
                                                        &widgets::LimitDialog::limit, &edit::addLimit, &edit::changeLimit};
const ItemKind<Switch, widgets::SwitchDialog> kSwitches{&Mechanism::switches, "switches", "SwitchDialog", "switch",
                                                       &widgets::SwitchDialog::sw, &edit::addSwitch, &edit::changeSwitch};
const ItemKind<Output, widgets::OutputDialog> kOutputs{&Mechanism::outputs, "outputs", "OutputDialog", "output",
                                                      &widgets::OutputDialog::output, &edit::addOutput, &edit::changeOutput};

}  // namespace

template <class Item, class Dialog>
bool MainWindow::editItem(const ItemKind<Item, Dialog>& kind, int index, const std::function<void(Dialog&)>& accept) {
  const auto& list = (*mechanism_).*kind.list;
  const bool adding = index < 0;
  if (!adding && index >= static_cast<int>(list.size())) return false;
  std::optional<Item> before;  // a copy: the document changes under it when the edit is kept
  if (!adding) before = list[static_cast<std::size_t>(index)];
  const std::string name = before ? before->name : std::string();
  auto dialog = makeDialog<Dialog, Item>(*mechanism_, resolved_.get(), before ? &*before : nullptr, this);
  dialog->setObjectName(adding ? QString(kind.dialogName) : QString("Change") + kind.dialogName);
  Item item;
  const QString refused = adding ? tr("The %1 was not added").arg(kind.noun)
                                 : tr("%1 %2 was not changed").arg(capitalised(kind.noun), QString::fromStdString(name));
  const QString select = QString("%1[%2]").arg(kind.path).arg(adding ? static_cast<int>(list.size()) : index);
  return keepDialogEdit(
      runDialog(*dialog, accept), [&](QString& why) { return ((*dialog).*kind.read)(item, why); },
      [&](Mechanism& m) { return adding ? kind.add(m, item) : kind.change(m, name, item); }, refused, select);
}

bool MainWindow::addDriver(const std::function<void(widgets::DriverDialog&)>& accept) { return editItem(kDrivers, -1, accept); }
bool MainWindow::changeDriver(int index, const std::function<void(widgets::DriverDialog&)>& accept) {
  return index >= 0 && editItem(kDrivers, index, accept);
}
bool MainWindow::addForce(const std::function<void(widgets::ForceDialog&)>& accept) { return editItem(kForces, -1, accept); }
bool MainWindow::changeForce(int index, const std::function<void(widgets::ForceDialog&)>& accept) {
  return index >= 0 && editItem(kForces, index, accept);
}
bool MainWindow::addContact(const std::function<void(widgets::ContactDialog&)>& accept) { return editItem(kContacts, -1, accept); }
bool MainWindow::changeContact(int index, const std::function<void(widgets::ContactDialog&)>& accept) {
  return index >= 0 && editItem(kContacts, index, accept);
}
bool MainWindow::addLimit(const std::function<void(widgets::LimitDialog&)>& accept) { return editItem(kLimits, -1, accept); }
bool MainWindow::changeLimit(int index, const std::function<void(widgets::LimitDialog&)>& accept) {
  return index >= 0 && editItem(kLimits, index, accept);
}
bool MainWindow::addSwitch(const std::function<void(widgets::SwitchDialog&)>& accept) { return editItem(kSwitches, -1, accept); }
bool MainWindow::addOutput(const std::function<void(widgets::OutputDialog&)>& accept) { return editItem(kOutputs, -1, accept); }
bool MainWindow::changeOutput(int index, const std::function<void(widgets::OutputDialog&)>& accept) {
  return index >= 0 && editItem(kOutputs, index, accept);
}
bool MainWindow::changeSwitch(int index, const std::function<void(widgets::SwitchDialog&)>& accept) {
  return index >= 0 && editItem(kSwitches, index, accept);
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
      if (edit::describe(mechanism_->initialVelocities[k]) == edit::describe(v)) at = k;
  return keepDialogEdit(accepted, [&](QString& reason) { return dialog.velocity(v, reason); },
                        [&](Mechanism& m) { return edit::addInitialVelocity(m, v); }, tr("The initial velocity was not set"),
                        QString("initial_velocities[%1]").arg(at));
}

bool MainWindow::changeInitialVelocity(int index, const std::function<void(widgets::InitialVelocityDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->initialVelocities.size())) return false;
  const InitialVelocity before = mechanism_->initialVelocities[static_cast<std::size_t>(index)];
  widgets::InitialVelocityDialog dialog(*mechanism_, &before, this);
  dialog.setObjectName("ChangeInitialVelocityDialog");
  InitialVelocity v;
  return keepDialogEdit(runDialog(dialog, accept), [&](QString& why) { return dialog.velocity(v, why); },
                        [&](Mechanism& m) { return edit::changeInitialVelocity(m, static_cast<std::size_t>(index), &v); },
                        tr("The initial velocity of %1 was not changed").arg(QString::fromStdString(edit::describe(before))),
                        QString("initial_velocities[%1]").arg(index));
}

bool MainWindow::changeJoint(int index, const std::function<void(widgets::JointDialog&)>& accept) {
  if (index < 0 || index >= static_cast<int>(mechanism_->joints.size())) return false;
  const Joint joint = mechanism_->joints[static_cast<std::size_t>(index)];
  widgets::JointDialog dialog(*mechanism_, joint, this);
  dialog.setObjectName("ChangeJointDialog");
  if (!runDialog(dialog, accept)) return false;
  Mechanism after = *mechanism_;
  const edit::EditResult r = edit::changeJoint(after, joint.name, dialog.type(), dialog.point(0), dialog.point(1), dialog.axes());
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
  // the edit guard every path shares (Document::apply): a joint the edit opened is closed by
  // assembling the mechanism again, or the edit is refused (a drawing in progress that does not
  // resolve yet is the sketch's to finish)
  QString assembled;
  if (const QString why = doc_->apply(std::move(after), description, &assembled); !why.isEmpty()) {
    refuseEdit(description, why);
    sketch_->setMechanism(*mechanism_, resolved_);  // the sketch shows the document, not the refused edit
    return false;
  }
  log(assembled.isEmpty() ? description : tr("%1 (assembled: %2)").arg(description, assembled));
  return true;
}

void MainWindow::refuseEdit(const QString& edit, const QString& why) {
  log(tr("%1 refused: %2").arg(edit, why));
  statusBar()->showMessage(tr("%1 refused: %2").arg(edit, why), 10000);
}

void MainWindow::replaceMechanism(const Mechanism& m) { doc_->replace(m); }


bool MainWindow::reportForce(const QString& path) {
  Mechanism after = *mechanism_;
  const auto i = static_cast<std::size_t>(std::max(0, itemIndex(path)));
  auto taken = [&](const std::string& n) {
    return std::any_of(after.outputs.begin(), after.outputs.end(), [&](const Output& o) { return o.name == n; }) ||
           std::any_of(after.parameters.begin(), after.parameters.end(), [&](const Parameter& p) { return p.name == n; });
  };
  Output o;
  QString what;
  if (path.startsWith("joints[") && !path.contains('.') && i < after.joints.size()) {
    const Joint& j = after.joints[i];
    o.type = Output::Type::JointReaction;
    o.joint = j.name;
    o.on = j.points[1].body;  // on the joint's second body: what it holds
    o.name = edit::unusedName(j.name + "_force", taken);
    what = tr("Report the force in joint %1").arg(QString::fromStdString(j.name));
  } else if (path.startsWith("drivers[") && !path.contains('.') && i < after.drivers.size()) {
    o.type = Output::Type::DriverEffort;
    o.driver = after.drivers[i].name;
    o.name = edit::unusedName(o.driver + "_effort", taken);
    what = tr("Report the effort of driver %1").arg(QString::fromStdString(o.driver));
  } else {
    statusBar()->showMessage(tr("Select a joint or a driver in the model tree first"), 8000);
    return false;
  }
  for (const Output& existing : after.outputs)
    if (existing.type == o.type && existing.joint == o.joint && existing.on == o.on && existing.driver == o.driver) {
      statusBar()->showMessage(tr("Already reported as %1: plot it from the run's columns").arg(QString::fromStdString(existing.name)), 8000);
      return false;
    }
  after.outputs.push_back(o);
  if (!applyEdit(after, what)) return false;
  log(tr("%1: the next run's columns %2 (Plots), usable in costs").arg(what, QString::fromStdString(o.type == Output::Type::JointReaction ? o.name + ".fx, " + o.name + ".fy, ..." : o.name)));
  return true;
}
}  // namespace lw::app
