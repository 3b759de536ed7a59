#include "panels/switch_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <algorithm>

#include "panels/item_choices.h"

namespace lw::widgets {

SwitchDialog::SwitchDialog(const Mechanism& m, const Switch* existing, QWidget* parent) : QDialog(parent) {
  setWindowTitle(existing ? tr("Change switch %1").arg(QString::fromStdString(existing->name)) : tr("Add switch"));
  auto* form = new QFormLayout(this);
  watched_ = new QComboBox(this);
  watched_->setObjectName("SwitchWatched");
  const char* axes[] = {"x", "y", "z"};
  for (const QString& p : movingPointChoices(m))
    for (int k = 0; k < m.dimension; ++k) watched_->addItem(p + "." + axes[k]);
  for (const auto& j : m.joints) watched_->addItem(tr("joint %1").arg(QString::fromStdString(j.name)), QString::fromStdString(j.name));
  watched_->setToolTip(tr("The coordinate watched: a point's world x, y or z, or a joint's coordinate (rad or m)"));
  form->addRow(tr("When"), watched_);
  direction_ = new QComboBox(this);
  direction_->setObjectName("SwitchDirection");
  direction_->addItem(tr("falls through"), true);
  direction_->addItem(tr("rises through"), false);
  form->addRow(QString(), direction_);
  value_ = new QLineEdit("0", this);
  value_->setObjectName("SwitchValue");
  value_->setToolTip(tr("m for a point's coordinate or a slide, rad for a joint's angle; a number or an expression of parameters"));
  form->addRow(tr("Value"), value_);
  auto forces = [&](const char* name, const QString& label, const QString& tip) {
    auto* list = new QListWidget(this);
    list->setObjectName(name);
    list->setToolTip(tip);
    for (const auto& f : m.forces) {
      auto* item = new QListWidgetItem(QString::fromStdString(f.name), list);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Unchecked);
    }
    list->setMaximumHeight(list->sizeHintForRow(0) * std::clamp(static_cast<int>(m.forces.size()), 2, 5) + 6);
    form->addRow(label, list);
    connect(list, &QListWidget::itemChanged, this, &SwitchDialog::update);
    return list;
  };
  enable_ = forces("SwitchEnable", tr("Enable"), tr("Forces that act from the crossing on (they are off before it)"));
  disable_ = forces("SwitchDisable", tr("Disable"), tr("Forces that stop at the crossing"));
  connect(value_, &QLineEdit::textChanged, this, &SwitchDialog::update);
  buttons_ = addHintAndButtons(this, form, hint_);
  if (existing) {
    name_ = existing->name;
    if (!existing->joint.empty()) watched_->setCurrentIndex(std::max(0, watched_->findData(QString::fromStdString(existing->joint))));
    else selectText(watched_, QString::fromStdString(existing->point.str()) + "." + toString(existing->component));
    direction_->setCurrentIndex(existing->falling ? 0 : 1);
    value_->setText(numberText(existing->value));
    auto tick = [](QListWidget* list, const std::vector<std::string>& names) {
      for (int r = 0; r < list->count(); ++r)
        if (std::find(names.begin(), names.end(), list->item(r)->text().toStdString()) != names.end()) list->item(r)->setCheckState(Qt::Checked);
    };
    tick(enable_, existing->enable);
    tick(disable_, existing->disable);
  }
  update();
}

bool SwitchDialog::sw(Switch& out, QString& why) const {
  out = Switch();
  out.name = name_;
  if (watched_->count() == 0) {
    why = tr("There is no moving point or joint to watch yet.");
    return false;
  }
  const QString joint = watched_->currentData().toString();
  if (!joint.isEmpty()) {
    out.joint = joint.toStdString();
  } else {
    // "body.point.y": the point, then its component
    const QString text = watched_->currentText();
    const int dot = static_cast<int>(text.lastIndexOf('.'));
    out.point = parseRef(text.left(dot));
    const QString axis = text.mid(dot + 1);
    out.component = axis == "x" ? Component::X : axis == "y" ? Component::Y : Component::Z;
  }
  out.falling = direction_->currentData().toBool();
  if (!parseNumber(value_->text(), out.value, why)) {
    why = tr("the value '%1' is not valid: %2").arg(value_->text(), why);
    return false;
  }
  for (int r = 0; r < enable_->count(); ++r)
    if (enable_->item(r)->checkState() == Qt::Checked) out.enable.push_back(enable_->item(r)->text().toStdString());
  for (int r = 0; r < disable_->count(); ++r)
    if (disable_->item(r)->checkState() == Qt::Checked) out.disable.push_back(disable_->item(r)->text().toStdString());
  for (const auto& n : out.enable)
    if (std::find(out.disable.begin(), out.disable.end(), n) != out.disable.end()) {
      why = tr("Force %1 is both enabled and disabled.").arg(QString::fromStdString(n));
      return false;
    }
  if (out.enable.empty() && out.disable.empty()) {
    why = tr("Tick the forces the crossing enables or disables (add forces first: Model > Add Force...).");
    return false;
  }
  return true;
}

void SwitchDialog::update() {
  Switch s;
  QString why;
  const bool ok = sw(s, why);
  hint_->setText(ok ? tr("At the crossing the forces change and the velocities stay (seed 001 Theorem 4); the event log lists it.") : why);
  if (buttons_) buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace lw::widgets
