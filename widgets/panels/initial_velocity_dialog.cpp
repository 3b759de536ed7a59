#include "panels/initial_velocity_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "panels/item_choices.h"

namespace lw::widgets {

InitialVelocityDialog::InitialVelocityDialog(const Mechanism& m, const InitialVelocity* existing, QWidget* parent)
    : QDialog(parent), dimension_(m.dimension) {
  setWindowTitle(existing ? tr("Change initial velocity") : tr("Set initial velocity"));
  form_ = new QFormLayout(this);
  type_ = new QComboBox(this);
  type_->setObjectName("VelocityType");
  type_->addItem(tr("Joint rate (angular or sliding)"), static_cast<int>(InitialVelocity::Type::Joint));
  type_->addItem(tr("Velocity of a point along x, y or z"), static_cast<int>(InitialVelocity::Type::PointComponent));
  type_->addItem(tr("Velocity and angular velocity of a body"), static_cast<int>(InitialVelocity::Type::Body));
  form_->addRow(tr("Sets"), type_);
  auto combo = [&](const char* name, const QStringList& items, const QString& label) {
    auto* c = new QComboBox(this);
    c->setObjectName(name);
    c->addItems(items);
    form_->addRow(label, c);
    return c;
  };
  auto edit = [&](const QString& name, const QString& text) {
    auto* e = new QLineEdit(text, this);
    e->setObjectName(name);
    connect(e, &QLineEdit::textChanged, this, &InitialVelocityDialog::update);
    return e;
  };
  joint_ = combo("VelocityJoint", jointChoices(m), tr("Joint"));
  point_ = combo("VelocityPoint", movingPointChoices(m), tr("Point"));
  component_ = combo("VelocityComponent", {}, tr("Along"));
  component_->addItem("x", static_cast<int>(Component::X));
  component_->addItem("y", static_cast<int>(Component::Y));
  if (m.dimension == 3) component_->addItem("z", static_cast<int>(Component::Z));
  body_ = combo("VelocityBody", bodyChoices(m), tr("Body"));
  value_ = edit("VelocityValue", "1");
  value_->setToolTip(tr("rad/s for a revolute joint, m/s for a slide or a point; an expression of the parameters is allowed"));
  form_->addRow(tr("Value"), value_);
  auto row = [&](QLineEdit** edits, int n, const QString& prefix) {
    auto* w = new QWidget(this);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < n; ++i) {
      edits[i] = edit(QString("%1%2").arg(prefix).arg(i), "0");
      h->addWidget(edits[i]);
    }
    return w;
  };
  velocityRow_ = row(velocity_, m.dimension == 3 ? 3 : 2, "BodyVelocity");
  velocityRow_->setToolTip(tr("m/s: the velocity of the body's frame origin, in world axes"));
  form_->addRow(tr("Velocity (m/s)"), velocityRow_);
  angularRow_ = row(angular_, m.dimension == 3 ? 3 : 1, "BodyAngular");
  angularRow_->setToolTip(m.dimension == 3 ? tr("rad/s about the world x, y and z axes") : tr("rad/s, counter-clockwise"));
  form_->addRow(tr("Angular velocity (rad/s)"), angularRow_);
  buttons_ = addHintAndButtons(this, form_, hint_);
  if (existing) {
    type_->setCurrentIndex(type_->findData(static_cast<int>(existing->type)));
    selectText(joint_, QString::fromStdString(existing->joint));
    selectText(point_, QString::fromStdString(existing->point.str()));
    component_->setCurrentIndex(std::max(0, component_->findData(static_cast<int>(existing->component))));
    selectText(body_, QString::fromStdString(existing->body));
    value_->setText(numberText(existing->value));
    for (std::size_t i = 0; i < existing->velocity.size() && i < 3; ++i)
      if (velocity_[i]) velocity_[i]->setText(numberText(existing->velocity[i]));
    for (std::size_t i = 0; i < existing->angularVelocity.size() && i < 3; ++i)
      if (angular_[i]) angular_[i]->setText(numberText(existing->angularVelocity[i]));
  }
  connect(type_, &QComboBox::currentIndexChanged, this, &InitialVelocityDialog::update);
  update();
}

bool InitialVelocityDialog::velocity(InitialVelocity& out, QString& why) const {
  out = InitialVelocity();
  out.type = static_cast<InitialVelocity::Type>(type_->currentData().toInt());
  auto read = [&](QLineEdit* e, const QString& field, Number& n) {
    if (parseNumber(e->text(), n, why)) return true;
    why = tr("the %1 '%2' is not valid: %3").arg(field, e->text(), why);
    return false;
  };
  switch (out.type) {
    case InitialVelocity::Type::Joint:
      out.joint = joint_->currentText().toStdString();
      return read(value_, tr("value"), out.value);
    case InitialVelocity::Type::PointComponent:
      out.point = parseRef(point_->currentText());
      out.component = static_cast<Component>(component_->currentData().toInt());
      return read(value_, tr("value"), out.value);
    case InitialVelocity::Type::Body: {
      out.body = body_->currentText().toStdString();
      const char* axes[3] = {"x", "y", "z"};
      for (int i = 0; i < 3 && velocity_[i]; ++i)
        if (!read(velocity_[i], tr("velocity's %1").arg(axes[i]), out.velocity.emplace_back())) return false;
      for (int i = 0; i < 3 && angular_[i]; ++i)
        if (!read(angular_[i], dimension_ == 3 ? tr("angular velocity's %1").arg(axes[i]) : tr("angular velocity"),
                  out.angularVelocity.emplace_back()))
          return false;
      return true;
    }
  }
  return true;
}

// only the rows of the chosen kind are shown
void InitialVelocityDialog::update() {
  const auto type = static_cast<InitialVelocity::Type>(type_->currentData().toInt());
  form_->setRowVisible(joint_, type == InitialVelocity::Type::Joint);
  form_->setRowVisible(point_, type == InitialVelocity::Type::PointComponent);
  form_->setRowVisible(component_, type == InitialVelocity::Type::PointComponent);
  form_->setRowVisible(value_, type != InitialVelocity::Type::Body);
  form_->setRowVisible(body_, type == InitialVelocity::Type::Body);
  form_->setRowVisible(velocityRow_, type == InitialVelocity::Type::Body);
  form_->setRowVisible(angularRow_, type == InitialVelocity::Type::Body);
  InitialVelocity v;
  QString why;
  bool ok = velocity(v, why);
  const QComboBox* target = type == InitialVelocity::Type::Joint ? joint_ : type == InitialVelocity::Type::Body ? body_ : point_;
  if (ok && target->count() == 0) ok = false, why = tr("There is nothing of this kind to set yet.");
  if (!ok) hint_->setText(why);
  else if (type == InitialVelocity::Type::Body)
    hint_->setText(tr("For a free body (no joints): the velocity of its frame origin and its angular velocity. "
                      "For a jointed body give joint rates."));
  else
    hint_->setText(tr("Dynamics starts from this rate, made consistent with the joints; one per joint, point "
                      "component or body (setting it again replaces it)."));
  if (buttons_) buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace lw::widgets
