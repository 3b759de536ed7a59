#include "panels/driver_dialog.h"

#include <QComboBox>

namespace lw::widgets {

namespace {

schema::Texts startingTexts(const Driver* existing) {
  if (existing) return schema::textsOf(*existing);
  Driver fresh;
  fresh.function = Number::expr("2*pi*t");
  schema::Texts t = schema::textsOf(fresh);
  t["joint"] = "";  // the first offered
  return t;
}

}  // namespace

DriverDialog::DriverDialog(const Mechanism& m, const Driver* existing, QWidget* parent)
    : ItemDialog(schema::driverKind(), startingTexts(existing),
                 [&m](const schema::Texts& texts) -> std::string {
                   if (texts.count("joint") && m.joints.empty()) return "There is no joint to drive yet.";
                   Driver d;
                   std::string why;
                   return schema::driverFrom(texts, d, why) ? std::string() : why;
                 },
                 parent, &m) {
  setObjectName("DriverDialog");
  setWindowTitle(existing ? tr("Change driver %1").arg(QString::fromStdString(existing->name)) : tr("Add driver"));
  hideField("name");  // kept on a change, a fresh one for a new driver
  refresh();
}

bool DriverDialog::driver(Driver& out, QString& why) const { return read(&schema::driverFrom, out, why); }

// what the function's value means, for the type chosen
void DriverDialog::changed(const std::string&) {
  const std::string t = type();
  setAdvice(t == "joint"        ? tr("The joint's angle (rad) or slide (m), measured from the drawn position.")
            : t == "coordinate" ? tr("The point's world coordinate (m) at time t.")
                                : tr("The distance between the points (m) at time t: a linear actuator."));
}

}  // namespace lw::widgets
