#include "panels/contact_dialog.h"

#include <QComboBox>

#include "panels/item_choices.h"

namespace lw::widgets {

namespace {

schema::Texts startingTexts(const Contact* existing) {
  if (existing) return schema::textsOf(*existing);
  Contact fresh;  // a bouncing contact on the ground's "up" normal (where there is one)
  fresh.restitution = 0.8;
  fresh.planeNormal = {kGroundName, "up"};
  schema::Texts t = schema::textsOf(fresh);
  t["point"] = t["plane_point"] = "";
  return t;
}

}  // namespace

ContactDialog::ContactDialog(const Mechanism& m, const Contact* existing, QWidget* parent)
    : ItemDialog(schema::contactKind(), startingTexts(existing),
                 [&m](const schema::Texts& texts) -> std::string {
                   if (movingPointChoices(m).isEmpty()) return "There is no point on a moving body yet.";
                   if (vectorChoices(m).isEmpty())
                     return "The plane needs a normal: add a vector to the ground first (select it, Model > Add Vector to Selected Body).";
                   Contact c;
                   std::string why;
                   return schema::contactFrom(texts, c, why) ? std::string() : why;
                 },
                 parent, &m) {
  setObjectName("ContactDialog");
  setWindowTitle(existing ? tr("Change contact %1").arg(QString::fromStdString(existing->name)) : tr("Add contact"));
  hideField("name");  // kept on a change, a fresh one for a new contact
}

bool ContactDialog::contact(Contact& out, QString& why) const { return read(&schema::contactFrom, out, why); }

}  // namespace lw::widgets
