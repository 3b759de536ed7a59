#include "panels/joint_dialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>

#include "panels/item_choices.h"

namespace lw::widgets {

JointDialog::JointDialog(const Mechanism& m, const QString& first, QWidget* parent) : QDialog(parent), m_(m) {
  setWindowTitle(tr("Add joint"));
  auto* form = new QFormLayout(this);
  type_ = new QComboBox(this);
  type_->setObjectName("JointType");
  for (JointType t : {JointType::Pin, JointType::Slider, JointType::Revolute, JointType::Prismatic, JointType::Cylindrical,
                      JointType::Universal, JointType::Spherical, JointType::Fixed})
    if (jointAllowedIn(t, m.dimension)) type_->addItem(toString(t), static_cast<int>(t));
  form->addRow(tr("Type"), type_);
  const QStringList points = pointChoices(m);
  for (int s = 0; s < 2; ++s) {
    points_[s] = new QComboBox(this);
    points_[s]->setObjectName(QString("JointPoint%1").arg(s + 1));
    points_[s]->addItems(points);
    axes_[s] = new QComboBox(this);
    axes_[s]->setObjectName(QString("JointAxis%1").arg(s + 1));
    form->addRow(s == 0 ? tr("Point on body 1") : tr("Point on body 2"), points_[s]);
    form->addRow(s == 0 ? tr("Axis on body 1") : tr("Axis on body 2"), axes_[s]);
  }
  if (const auto i = points.indexOf(first); i >= 0) points_[0]->setCurrentIndex(static_cast<int>(i));
  if (points.size() > 1) points_[1]->setCurrentIndex(points_[0]->currentIndex() == 0 ? 1 : 0);
  addHintAndButtons(this, form, hint_);
  for (QComboBox* c : {type_, points_[0], points_[1]}) connect(c, &QComboBox::currentIndexChanged, this, &JointDialog::update);
  update();
}

JointDialog::JointDialog(const Mechanism& m, const Joint& joint, QWidget* parent)
    : JointDialog(m, QString::fromStdString(joint.points[0].str()), parent) {
  setWindowTitle(tr("Change joint %1").arg(QString::fromStdString(joint.name)));
  if (const int i = type_->findData(static_cast<int>(joint.type)); i >= 0) type_->setCurrentIndex(i);
  for (int s = 0; s < 2; ++s) selectText(points_[s], QString::fromStdString(joint.points[s].str()));
  update();
  for (int s = 0; s < 2 && s < static_cast<int>(joint.axes.size()); ++s)
    selectText(axes_[s], QString::fromStdString(joint.axes[static_cast<std::size_t>(s)].str()));
}

JointType JointDialog::type() const { return static_cast<JointType>(type_->currentData().toInt()); }

Ref JointDialog::point(int side) const { return parseRef(points_[side]->currentText()); }

std::vector<Ref> JointDialog::axes() const {
  // none offered on a body: no axes, and the resolver says the joint needs them
  if (!jointNeedsAxes(type()) || axes_[0]->currentText().isEmpty() || axes_[1]->currentText().isEmpty()) return {};
  return {parseRef(axes_[0]->currentText()), parseRef(axes_[1]->currentText())};
}

// the axes offered are the vectors of each point's body
void JointDialog::update() {
  const bool needs = jointNeedsAxes(type());
  for (int s = 0; s < 2; ++s) {
    const std::string body = point(s).body;
    const QString keep = axes_[s]->currentText();
    axes_[s]->clear();
    if (!body.empty()) axes_[s]->addItems(vectorChoices(m_, body));
    selectText(axes_[s], keep);
    axes_[s]->setEnabled(needs);
  }
  if (needs && (axes_[0]->count() == 0 || axes_[1]->count() == 0))
    hint_->setText(tr("This joint needs an axis (a vector) on each body: add one with Model > Add Vector first."));
  else
    hint_->setText(needs ? tr("The axes must be parallel in the drawn position (perpendicular for a universal joint).")
                         : tr("The two points should coincide in the drawn position."));
}

}  // namespace lw::widgets
