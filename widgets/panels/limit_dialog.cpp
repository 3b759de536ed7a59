#include "panels/limit_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "panels/item_choices.h"

namespace lw::widgets {
namespace {

// the joints with one coordinate an end stop can watch
bool oneCoordinate(JointType t) { return t == JointType::Pin || t == JointType::Slider || t == JointType::Revolute || t == JointType::Prismatic; }

// a bound as the user reads it: degrees for a rotation (an expression: its text, in radians)
QString shown(const Number& n, bool rotation) {
  if (!rotation) return numberText(n);
  if (!n.isLiteral()) return "(" + numberText(n) + ")*180/pi";
  return QString::number(n.value * 180 / std::numbers::pi, 'g', 10);
}

}  // namespace

LimitDialog::LimitDialog(const Mechanism& m, const JointLimit* existing, QWidget* parent) : QDialog(parent), m_(m) {
  setWindowTitle(existing ? tr("Change limit %1").arg(QString::fromStdString(existing->name)) : tr("Add limit"));
  auto* form = new QFormLayout(this);
  joint_ = new QComboBox(this);
  joint_->setObjectName("LimitJoint");
  for (const auto& j : m.joints)
    if (oneCoordinate(j.type)) joint_->addItem(QString::fromStdString(j.name));
  joint_->setToolTip(tr("The joint whose coordinate is stopped: a pin or revolute's angle, a slider or prismatic joint's slide"));
  form->addRow(tr("Joint"), joint_);
  auto bound = [&](const char* check, const char* edit, const QString& label, QCheckBox*& on, QLineEdit*& e, QLabel*& unit) {
    on = new QCheckBox(label, this);
    on->setObjectName(check);
    e = new QLineEdit(this);
    e->setObjectName(edit);
    unit = new QLabel(this);
    unit->setMinimumWidth(unit->fontMetrics().horizontalAdvance("m") + 4);
    auto* row = new QHBoxLayout;
    row->addWidget(on);
    row->addWidget(e, 1);
    row->addWidget(unit);
    form->addRow(row);
    connect(on, &QCheckBox::toggled, this, &LimitDialog::update);
    connect(e, &QLineEdit::textChanged, this, &LimitDialog::update);
  };
  bound("LimitMinOn", "LimitMin", tr("Lowest"), minOn_, min_, minUnit_);
  bound("LimitMaxOn", "LimitMax", tr("Highest"), maxOn_, max_, maxUnit_);
  law_ = new QComboBox(this);
  law_->setObjectName("LimitLaw");
  law_->addItem(tr("Newton: v⁺ = −e v⁻"), static_cast<int>(Contact::Law::Newton));
  law_->addItem(tr("Kinematic (energetic) restitution"), static_cast<int>(Contact::Law::Kinematic));
  form->addRow(tr("Impact law"), law_);
  restitution_ = new QLineEdit("0.5", this);
  restitution_->setObjectName("LimitRestitution");
  restitution_->setToolTip(tr("0 (plastic) to 1 (elastic)"));
  form->addRow(tr("Restitution e"), restitution_);
  connect(restitution_, &QLineEdit::textChanged, this, &LimitDialog::update);
  connect(joint_, &QComboBox::currentIndexChanged, this, &LimitDialog::update);
  buttons_ = addHintAndButtons(this, form, hint_);
  if (existing) {
    name_ = existing->name;
    selectText(joint_, QString::fromStdString(existing->joint));
    minOn_->setChecked(existing->hasMin);
    maxOn_->setChecked(existing->hasMax);
    if (existing->hasMin) min_->setText(shown(existing->min, rotation()));
    if (existing->hasMax) max_->setText(shown(existing->max, rotation()));
    law_->setCurrentIndex(std::max(0, law_->findData(static_cast<int>(existing->law))));
    restitution_->setText(numberText(existing->restitution));
  } else {
    minOn_->setChecked(true);
    maxOn_->setChecked(true);
  }
  update();
}

bool LimitDialog::rotation() const {
  const std::string name = joint_->currentText().toStdString();
  const auto it = std::find_if(m_.joints.begin(), m_.joints.end(), [&](const Joint& j) { return j.name == name; });
  return it == m_.joints.end() || !(it->type == JointType::Slider || it->type == JointType::Prismatic);
}

bool LimitDialog::limit(JointLimit& out, QString& why) const {
  out = JointLimit();
  out.name = name_;
  out.joint = joint_->currentText().toStdString();
  if (out.joint.empty()) {
    why = tr("The mechanism has no pin, revolute, slider or prismatic joint to stop.");
    return false;
  }
  const bool degrees = rotation();
  auto read = [&](const QLineEdit* e, const QString& which, Number& n) {
    if (!parseNumber(e->text(), n, why)) {
      why = tr("the %1 bound '%2' is not valid: %3").arg(which, e->text(), why);
      return false;
    }
    // the window's degrees to the file's radians (an expression is read in degrees too)
    if (degrees) n = n.isLiteral() ? Number(n.value * std::numbers::pi / 180) : Number::expr("(" + n.expression.text() + ")*pi/180");
    return true;
  };
  out.hasMin = minOn_->isChecked();
  out.hasMax = maxOn_->isChecked();
  if (!out.hasMin && !out.hasMax) {
    why = tr("Tick the lowest or the highest bound (or both).");
    return false;
  }
  if (out.hasMin && !read(min_, tr("lowest"), out.min)) return false;
  if (out.hasMax && !read(max_, tr("highest"), out.max)) return false;
  if (out.hasMin && out.hasMax && out.min.isLiteral() && out.max.isLiteral() && out.min.value >= out.max.value) {
    why = tr("The lowest bound must be below the highest.");
    return false;
  }
  out.law = static_cast<Contact::Law>(law_->currentData().toInt());
  if (!parseNumber(restitution_->text(), out.restitution, why)) {
    why = tr("the restitution '%1' is not valid: %2").arg(restitution_->text(), why);
    return false;
  }
  return true;
}

void LimitDialog::update() {
  const QString unit = rotation() ? tr("°") : tr("m");
  min_->setEnabled(minOn_->isChecked());
  max_->setEnabled(maxOn_->isChecked());
  minUnit_->setText(unit);
  maxUnit_->setText(unit);
  min_->setToolTip(rotation() ? tr("degrees, as the joint's coordinate counts: the angle from the first body's x axis to the second's")
                              : tr("metres along the joint's axis"));
  max_->setToolTip(min_->toolTip());
  JointLimit l;
  QString why;
  const bool ok = limit(l, why);
  hint_->setText(ok ? tr("At a bound the joint's rate reverses, scaled by e (an impact: its time and jumps are in the event log).") : why);
  if (buttons_) buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace lw::widgets
