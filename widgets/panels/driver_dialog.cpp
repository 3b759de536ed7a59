#include "panels/driver_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "panels/item_choices.h"

namespace lw::widgets {

DriverDialog::DriverDialog(const Mechanism& m, const Driver* existing, QWidget* parent) : QDialog(parent) {
  setWindowTitle(existing ? tr("Change driver %1").arg(QString::fromStdString(existing->name)) : tr("Add driver"));
  form_ = new QFormLayout(this);
  type_ = new QComboBox(this);
  type_->setObjectName("DriverType");
  type_->addItem(tr("Joint coordinate (angle or slide)"), static_cast<int>(Driver::Type::Joint));
  type_->addItem(tr("Point coordinate (x, y or z)"), static_cast<int>(Driver::Type::Coordinate));
  type_->addItem(tr("Distance between two points"), static_cast<int>(Driver::Type::Distance));
  form_->addRow(tr("Drives"), type_);
  joint_ = new QComboBox(this);
  joint_->setObjectName("DriverJoint");
  joint_->addItems(jointChoices(m));
  form_->addRow(tr("Joint"), joint_);
  const QStringList points = pointChoices(m);
  for (int i = 0; i < 2; ++i) {
    points_[i] = new QComboBox(this);
    points_[i]->setObjectName(QString("DriverPoint%1").arg(i + 1));
    points_[i]->addItems(points);
    form_->addRow(i == 0 ? tr("Point") : tr("Second point"), points_[i]);
  }
  if (points.size() > 1) points_[1]->setCurrentIndex(1);
  component_ = new QComboBox(this);
  component_->setObjectName("DriverComponent");
  component_->addItem("x", static_cast<int>(Component::X));
  component_->addItem("y", static_cast<int>(Component::Y));
  if (m.dimension == 3) component_->addItem("z", static_cast<int>(Component::Z));
  form_->addRow(tr("Coordinate"), component_);
  function_ = new QLineEdit("2*pi*t", this);
  function_->setObjectName("DriverFunction");
  function_->setToolTip(tr("A function of time t and the design parameters, e.g. 2*pi*t (one turn per second) or 0.1*sin(2*pi*t)"));
  form_->addRow(tr("Value at time t"), function_);
  buttons_ = addHintAndButtons(this, form_, hint_);
  if (existing) {
    name_ = existing->name;
    type_->setCurrentIndex(type_->findData(static_cast<int>(existing->type)));
    selectText(joint_, QString::fromStdString(existing->joint));
    if (existing->type == Driver::Type::Coordinate) selectText(points_[0], QString::fromStdString(existing->point.str()));
    if (existing->type == Driver::Type::Distance)
      for (int i = 0; i < 2; ++i) selectText(points_[i], QString::fromStdString(existing->points[i].str()));
    component_->setCurrentIndex(std::max(0, component_->findData(static_cast<int>(existing->component))));
    function_->setText(numberText(existing->function));
  }
  connect(type_, &QComboBox::currentIndexChanged, this, &DriverDialog::update);
  connect(function_, &QLineEdit::textChanged, this, &DriverDialog::update);
  update();
}

bool DriverDialog::driver(Driver& out, QString& why) const {
  out = Driver();
  out.name = name_;
  out.type = static_cast<Driver::Type>(type_->currentData().toInt());
  switch (out.type) {
    case Driver::Type::Joint: out.joint = joint_->currentText().toStdString(); break;
    case Driver::Type::Coordinate:
      out.point = parseRef(points_[0]->currentText());
      out.component = static_cast<Component>(component_->currentData().toInt());
      break;
    case Driver::Type::Distance:
      out.points[0] = parseRef(points_[0]->currentText());
      out.points[1] = parseRef(points_[1]->currentText());
      break;
  }
  if (!parseNumber(function_->text(), out.function, why)) {
    why = tr("the function '%1' is not valid: %2").arg(function_->text(), why);
    return false;
  }
  return true;
}

// only the rows of the chosen kind are shown; the hint says what the function means
void DriverDialog::update() {
  const auto type = static_cast<Driver::Type>(type_->currentData().toInt());
  form_->setRowVisible(joint_, type == Driver::Type::Joint);
  form_->setRowVisible(points_[0], type != Driver::Type::Joint);
  form_->setRowVisible(points_[1], type == Driver::Type::Distance);
  form_->setRowVisible(component_, type == Driver::Type::Coordinate);
  Driver d;
  QString why;
  const bool ok = driver(d, why);
  if (!ok) hint_->setText(why);
  else if (type == Driver::Type::Joint)
    hint_->setText(joint_->count() ? tr("The joint's angle (rad) or slide (m), measured from the drawn position.")
                                   : tr("There is no joint to drive yet."));
  else if (type == Driver::Type::Coordinate)
    hint_->setText(tr("The point's world coordinate (m) at time t."));
  else
    hint_->setText(tr("The distance between the points (m) at time t: a linear actuator."));
  if (buttons_) buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace lw::widgets
