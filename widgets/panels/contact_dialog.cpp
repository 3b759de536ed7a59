#include "panels/contact_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "panels/item_choices.h"

namespace lw::widgets {

ContactDialog::ContactDialog(const Mechanism& m, const Contact* existing, QWidget* parent) : QDialog(parent) {
  setWindowTitle(existing ? tr("Change contact %1").arg(QString::fromStdString(existing->name)) : tr("Add contact"));
  auto* form = new QFormLayout(this);
  auto combo = [&](const char* name, const QStringList& items, const QString& label, const QString& tip) {
    auto* c = new QComboBox(this);
    c->setObjectName(name);
    c->addItems(items);
    c->setToolTip(tip);
    form->addRow(label, c);
    return c;
  };
  auto number = [&](const char* name, const QString& text, const QString& label, const QString& tip) {
    auto* e = new QLineEdit(text, this);
    e->setObjectName(name);
    e->setToolTip(tip);
    form->addRow(label, e);
    connect(e, &QLineEdit::textChanged, this, &ContactDialog::update);
    return e;
  };
  // the contact point is on a moving body, the plane usually on the ground
  point_ = combo("ContactPoint", movingPointChoices(m), tr("Point"), tr("The centre of the ball or wheel that touches the plane"));
  radius_ = number("ContactRadius", "0", tr("Radius"), tr("m: the contact happens when the point is this far from the plane"));
  planePoint_ = combo("ContactPlanePoint", pointChoices(m), tr("Plane point"), tr("A point of the plane (a line in a planar model)"));
  planeNormal_ = combo("ContactPlaneNormal", vectorChoices(m), tr("Plane normal"),
                       tr("A vector of the same body, pointing to the side where the point stays"));
  law_ = combo("ContactLaw", {}, tr("Impact law"), tr("How the normal velocity changes at an impact"));
  law_->addItem(tr("Newton: v⁺ = −e v⁻"), static_cast<int>(Contact::Law::Newton));
  law_->addItem(tr("Kinematic (energetic) restitution"), static_cast<int>(Contact::Law::Kinematic));
  restitution_ = number("ContactRestitution", "0.8", tr("Restitution e"), tr("0 (plastic) to 1 (elastic)"));
  buttons_ = addHintAndButtons(this, form, hint_);
  if (existing) {
    name_ = existing->name;
    selectText(point_, QString::fromStdString(existing->point.str()));
    selectText(planePoint_, QString::fromStdString(existing->planePoint.str()));
    selectText(planeNormal_, QString::fromStdString(existing->planeNormal.str()));
    law_->setCurrentIndex(std::max(0, law_->findData(static_cast<int>(existing->law))));
    radius_->setText(numberText(existing->radius));
    restitution_->setText(numberText(existing->restitution));
  } else {
    selectText(planeNormal_, "ground.up");
  }
  update();
}

bool ContactDialog::contact(Contact& out, QString& why) const {
  out = Contact();
  out.name = name_;
  out.point = parseRef(point_->currentText());
  out.planePoint = parseRef(planePoint_->currentText());
  out.planeNormal = parseRef(planeNormal_->currentText());
  out.law = static_cast<Contact::Law>(law_->currentData().toInt());
  if (!parseNumber(radius_->text(), out.radius, why)) {
    why = tr("the radius '%1' is not valid: %2").arg(radius_->text(), why);
    return false;
  }
  if (!parseNumber(restitution_->text(), out.restitution, why)) {
    why = tr("the restitution '%1' is not valid: %2").arg(restitution_->text(), why);
    return false;
  }
  return true;
}

void ContactDialog::update() {
  Contact c;
  QString why;
  bool ok = contact(c, why);
  if (point_->count() == 0) ok = false, why = tr("There is no point on a moving body yet.");
  else if (planeNormal_->count() == 0)
    ok = false, why = tr("The plane needs a normal: add a vector to the ground first (select it, Model > Add Vector to Selected Body).");
  hint_->setText(ok ? tr("The point stays on the normal's side of the plane; at an impact its normal velocity reverses, scaled by e.") : why);
  if (buttons_) buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace lw::widgets
