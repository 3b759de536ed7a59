#include "panels/force_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <algorithm>
#include <optional>

#include "mechanism/resolved.h"
#include "panels/item_choices.h"

namespace lw::widgets {
namespace {

std::optional<Eigen::Vector3d> drawnPoint(const ResolvedMechanism& r, const Ref& p) {
  const int b = r.findBody(p.body);
  if (b < 0) return std::nullopt;
  const auto& names = r.bodies[static_cast<std::size_t>(b)].pointNames;
  const auto it = std::find(names.begin(), names.end(), p.item);
  if (it == names.end()) return std::nullopt;
  return r.pointWorld({b, static_cast<int>(it - names.begin())});
}

}  // namespace

ForceDialog::ForceDialog(const Mechanism& m, const ResolvedMechanism* drawn, const Force* existing, QWidget* parent)
    : QDialog(parent), drawn_(drawn), dimension_(m.dimension) {
  setWindowTitle(existing ? tr("Change force %1").arg(QString::fromStdString(existing->name)) : tr("Add force"));
  if (existing) {
    base_ = *existing;
  } else {  // defaults a user can start from
    base_.stiffness = 100;
    base_.radius = 0.3;
    base_.friction = 0.9;
  }
  form_ = new QFormLayout(this);
  type_ = new QComboBox(this);
  type_->setObjectName("ForceType");
  type_->addItem(tr("Spring-damper between two points"), static_cast<int>(Force::Type::Spring));
  type_->addItem(tr("Torsion spring on a joint"), static_cast<int>(Force::Type::TorsionSpring));
  type_->addItem(tr("Force on a point"), static_cast<int>(Force::Type::PointForce));
  type_->addItem(tr("Torque on a body"), static_cast<int>(Force::Type::Torque));
  if (m.dimension == 3) type_->addItem(tr("Tyre on a ground plane"), static_cast<int>(Force::Type::Tyre));
  form_->addRow(tr("Type"), type_);
  auto combo = [&](const char* name, const QStringList& items) {
    auto* c = new QComboBox(this);
    c->setObjectName(name);
    c->addItems(items);
    return c;
  };
  auto number = [&](const char* name, const Number& n, const QString& tip) {
    auto* e = new QLineEdit(numberText(n), this);
    e->setObjectName(name);
    e->setToolTip(tip);
    connect(e, &QLineEdit::textChanged, this, &ForceDialog::update);
    return e;
  };
  const QStringList points = pointChoices(m), vectors = vectorChoices(m);
  points_[0] = combo("ForcePoint1", points);
  points_[1] = combo("ForcePoint2", points);
  if (points.size() > 1) points_[1]->setCurrentIndex(1);
  form_->addRow(tr("Point"), points_[0]);
  form_->addRow(tr("Second point"), points_[1]);
  joint_ = combo("ForceJoint", jointChoices(m));
  form_->addRow(tr("Joint"), joint_);
  body_ = combo("ForceBody", bodyChoices(m));
  form_->addRow(tr("Body"), body_);
  axis_ = combo("ForceAxis", vectors);
  form_->addRow(tr("Spin axis"), axis_);
  planePoint_ = combo("ForcePlanePoint", points);
  form_->addRow(tr("Plane point"), planePoint_);
  planeNormal_ = combo("ForcePlaneNormal", vectors);
  form_->addRow(tr("Plane normal"), planeNormal_);
  stiffness_ = number("stiffness", base_.stiffness, tr("N/m for a spring or a tyre, N·m/rad for a torsion spring"));
  form_->addRow(tr("Stiffness"), stiffness_);
  damping_ = number("damping", base_.damping, tr("N·s/m, or N·m·s/rad for a torsion spring"));
  form_->addRow(tr("Damping"), damping_);
  length_ = number("natural_length", base_.naturalLength, tr("m; a new spring starts with the drawn distance, unloaded"));
  connect(length_, &QLineEdit::textEdited, this, [this] { lengthTyped_ = true; });
  form_->addRow(tr("Natural length"), length_);
  actuator_ = number("force", base_.actuatorForce, tr("N along the line, pushing the points apart; may be a function of t"));
  form_->addRow(tr("Actuator force"), actuator_);
  angle_ = number("natural_angle", base_.naturalAngle, tr("rad, measured like the joint coordinate"));
  form_->addRow(tr("Natural angle"), angle_);
  radius_ = number("radius", base_.radius, tr("m"));
  form_->addRow(tr("Wheel radius"), radius_);
  friction_ = number("friction", base_.friction, tr("Coulomb friction coefficient μ"));
  form_->addRow(tr("Friction"), friction_);
  valueRow_ = new QWidget(this);
  auto* row = new QHBoxLayout(valueRow_);
  row->setContentsMargins(0, 0, 0, 0);
  for (int i = 0; i < 3; ++i) {
    const Number v = i < static_cast<int>(base_.value.size()) ? base_.value[static_cast<std::size_t>(i)] : Number(0);
    value_[i] = number(i == 0 ? "value0" : i == 1 ? "value1" : "value2", v, tr("N (force) or N·m (torque); may be a function of t"));
    row->addWidget(value_[i]);
  }
  form_->addRow(tr("Value"), valueRow_);
  frame_ = new QComboBox(this);
  frame_->setObjectName("ForceFrame");
  frame_->addItem(tr("world axes"), static_cast<int>(Force::Frame::World));
  frame_->addItem(tr("body axes"), static_cast<int>(Force::Frame::Body));
  form_->addRow(tr("Axes"), frame_);
  buttons_ = addHintAndButtons(this, form_, hint_);
  if (existing) {
    lengthTyped_ = true;  // a change keeps the spring's length
    type_->setCurrentIndex(std::max(0, type_->findData(static_cast<int>(existing->type))));
    switch (existing->type) {
      case Force::Type::Spring:
        for (int i = 0; i < 2; ++i) selectText(points_[i], QString::fromStdString(existing->points[i].str()));
        break;
      case Force::Type::PointForce: selectText(points_[0], QString::fromStdString(existing->point.str())); break;
      case Force::Type::Tyre:
        selectText(points_[0], QString::fromStdString(existing->point.str()));
        selectText(axis_, QString::fromStdString(existing->axis.str()));
        selectText(planePoint_, QString::fromStdString(existing->planePoint.str()));
        selectText(planeNormal_, QString::fromStdString(existing->planeNormal.str()));
        break;
      case Force::Type::TorsionSpring: selectText(joint_, QString::fromStdString(existing->joint)); break;
      case Force::Type::Torque: selectText(body_, QString::fromStdString(existing->body)); break;
    }
    frame_->setCurrentIndex(existing->frame == Force::Frame::Body ? 1 : 0);
  }
  connect(type_, &QComboBox::currentIndexChanged, this, &ForceDialog::update);
  for (QComboBox* c : {points_[0], points_[1]}) connect(c, &QComboBox::currentIndexChanged, this, &ForceDialog::updateLength);
  updateLength();
  update();
}

QLineEdit* ForceDialog::field(const char* name) const { return findChild<QLineEdit*>(name); }

// a new spring starts unloaded: its natural length follows the chosen points until typed over
void ForceDialog::updateLength() {
  if (lengthTyped_ || !drawn_) return;
  const auto a = drawnPoint(*drawn_, parseRef(points_[0]->currentText()));
  const auto b = drawnPoint(*drawn_, parseRef(points_[1]->currentText()));
  if (a && b) length_->setText(QString::number((*b - *a).norm(), 'g', 6));
}

bool ForceDialog::force(Force& out, QString& why) const {
  out = base_;
  out.type = static_cast<Force::Type>(type_->currentData().toInt());
  out.frame = static_cast<Force::Frame>(frame_->currentData().toInt());
  auto read = [&](QLineEdit* e, const QString& what, Number& n) {
    QString reason;
    if (parseNumber(e->text(), n, reason)) return true;
    why = tr("%1 '%2' is not valid: %3").arg(what, e->text(), reason);
    return false;
  };
  auto readValue = [&](int count) {
    out.value.assign(static_cast<std::size_t>(count), Number(0));
    for (int i = 0; i < count; ++i)
      if (!read(value_[i], tr("value component %1").arg(i + 1), out.value[static_cast<std::size_t>(i)])) return false;
    return true;
  };
  switch (out.type) {
    case Force::Type::Spring:
      out.points[0] = parseRef(points_[0]->currentText());
      out.points[1] = parseRef(points_[1]->currentText());
      return read(stiffness_, tr("stiffness"), out.stiffness) && read(damping_, tr("damping"), out.damping) &&
             read(length_, tr("natural length"), out.naturalLength) && read(actuator_, tr("actuator force"), out.actuatorForce);
    case Force::Type::TorsionSpring:
      out.joint = joint_->currentText().toStdString();
      return read(stiffness_, tr("stiffness"), out.stiffness) && read(damping_, tr("damping"), out.damping) &&
             read(angle_, tr("natural angle"), out.naturalAngle);
    case Force::Type::PointForce:
      out.point = parseRef(points_[0]->currentText());
      return readValue(dimension_);
    case Force::Type::Torque:
      out.body = body_->currentText().toStdString();
      return readValue(dimension_ == 2 ? 1 : 3);
    case Force::Type::Tyre:
      out.point = parseRef(points_[0]->currentText());
      out.axis = parseRef(axis_->currentText());
      out.planePoint = parseRef(planePoint_->currentText());
      out.planeNormal = parseRef(planeNormal_->currentText());
      return read(radius_, tr("radius"), out.radius) && read(stiffness_, tr("stiffness"), out.stiffness) &&
             read(damping_, tr("damping"), out.damping) && read(friction_, tr("friction"), out.friction);
  }
  return false;
}

// only the rows of the chosen type are shown; the hint says what is wrong or what it does
void ForceDialog::update() {
  using T = Force::Type;
  const auto type = static_cast<T>(type_->currentData().toInt());
  const bool spring = type == T::Spring, torsion = type == T::TorsionSpring, tyre = type == T::Tyre;
  form_->setRowVisible(points_[0], spring || type == T::PointForce || tyre);
  form_->setRowVisible(points_[1], spring);
  form_->setRowVisible(joint_, torsion);
  form_->setRowVisible(body_, type == T::Torque);
  form_->setRowVisible(axis_, tyre);
  form_->setRowVisible(planePoint_, tyre);
  form_->setRowVisible(planeNormal_, tyre);
  form_->setRowVisible(stiffness_, spring || torsion || tyre);
  form_->setRowVisible(damping_, spring || torsion || tyre);
  form_->setRowVisible(length_, spring);
  form_->setRowVisible(actuator_, spring);
  form_->setRowVisible(angle_, torsion);
  form_->setRowVisible(radius_, tyre);
  form_->setRowVisible(friction_, tyre);
  form_->setRowVisible(valueRow_, type == T::PointForce || type == T::Torque);
  form_->setRowVisible(frame_, type == T::PointForce || type == T::Torque);
  const int components = type == T::PointForce ? dimension_ : (dimension_ == 2 ? 1 : 3);
  for (int i = 0; i < 3; ++i) value_[i]->setVisible(i < components);
  if (auto* label = qobject_cast<QLabel*>(form_->labelForField(points_[0])))
    label->setText(tyre ? tr("Wheel centre") : spring ? tr("First point") : tr("Point"));
  Force f;
  QString why;
  const bool ok = force(f, why);
  if (!ok) hint_->setText(why);
  else if (spring) hint_->setText(tr("Pulls the points together when stretched beyond the natural length."));
  else if (torsion) hint_->setText(tr("Turns the joint back towards its natural angle (a pin, revolute or cylindrical joint)."));
  else if (type == T::PointForce) hint_->setText(tr("Components may be functions of time t."));
  else if (type == T::Torque) hint_->setText(dimension_ == 2 ? tr("About z (counter-clockwise positive); may be a function of t.") : tr("Components may be functions of time t."));
  else hint_->setText(tr("The wheel (centre, radius, spin axis) on the plane through the plane point with the given normal."));
  if (buttons_) buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace lw::widgets
