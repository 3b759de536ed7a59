#include "panels/initial_velocity_dialog.h"

#include <QLineEdit>

namespace lw::widgets {

namespace {

schema::Texts startingTexts(const InitialVelocity* existing) {
  if (existing) return schema::textsOf(*existing);
  InitialVelocity fresh;
  fresh.value = 1;
  return schema::textsOf(fresh);
}

}  // namespace

InitialVelocityDialog::InitialVelocityDialog(const Mechanism& m, const InitialVelocity* existing, QWidget* parent)
    : ItemDialog(schema::initialVelocityKind(), startingTexts(existing),
                 readable(&schema::initialVelocityFrom),
                 parent, &m),
      dimension_(m.dimension) {
  setObjectName("InitialVelocityDialog");
  setWindowTitle(existing ? tr("Change initial velocity") : tr("Set initial velocity"));
  refresh();
}

bool InitialVelocityDialog::velocity(InitialVelocity& out, QString& why) const { return read(&schema::initialVelocityFrom, out, why); }

void InitialVelocityDialog::changed(const std::string&) {
  const bool body = type() == "body";
  // a body's velocities, zero until given
  if (body) {
    if (field("velocity")->text().trimmed().isEmpty()) field("velocity")->setText(dimension_ == 2 ? "0, 0" : "0, 0, 0");
    if (field("angular_velocity")->text().trimmed().isEmpty()) field("angular_velocity")->setText(dimension_ == 2 ? "0" : "0, 0, 0");
  } else if (field("value")->text().trimmed().isEmpty()) {
    field("value")->setText("0");
  }
  setAdvice(body ? tr("For a free body (no joints): the velocity of its frame origin and its angular velocity. "
                      "For a jointed body give joint rates.")
                 : tr("Dynamics starts from this rate, made consistent with the joints; one per joint, point "
                      "component or body (setting it again replaces it)."));
}

}  // namespace lw::widgets
