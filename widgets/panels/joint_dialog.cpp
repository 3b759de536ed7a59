#include "panels/joint_dialog.h"

#include <QComboBox>
#include <QSignalBlocker>

#include "panels/item_choices.h"

namespace lw::widgets {

namespace {

schema::Texts startingTexts(const Mechanism& m, const QString& first) {
  Joint fresh;
  fresh.type = m.dimension == 2 ? JointType::Pin : JointType::Revolute;
  schema::Texts t = schema::textsOf(fresh);
  // the first point offered, then another
  const QStringList points = pointChoices(m);
  const QString a = points.contains(first) ? first : points.value(0);
  const QString b = points.value(points.indexOf(a) == 0 ? 1 : 0);
  t["points"] = schema::joinList({a.toStdString(), b.toStdString()});
  return t;
}

std::string jointProblem(const schema::Texts& texts) {
  Joint j;
  std::string why;
  if (!schema::jointFrom(texts, j, why)) return why;
  if (jointNeedsAxes(j.type) && j.axes.empty())
    return "This joint needs an axis (a vector) on each body: add one with Model > Add Vector first.";
  return {};
}

}  // namespace

JointDialog::JointDialog(const Mechanism& m, const QString& first, QWidget* parent)
    : ItemDialog(schema::jointKind(), startingTexts(m, first), jointProblem, parent, &m), m_(m) {
  setObjectName("JointDialog");
  setWindowTitle(tr("Add joint"));
  hideField("name");  // a fresh one for a new joint, kept on a change
  refresh();
}

JointDialog::JointDialog(const Mechanism& m, const Joint& joint, QWidget* parent)
    : ItemDialog(schema::jointKind(), schema::textsOf(joint), jointProblem, parent, &m), m_(m) {
  setWindowTitle(tr("Change joint %1").arg(QString::fromStdString(joint.name)));
  hideField("name");
  refresh();
  for (int s = 0; s < 2 && s < static_cast<int>(joint.axes.size()); ++s)
    choose("axes", QString::fromStdString(joint.axes[static_cast<std::size_t>(s)].str()), s);
}

JointType JointDialog::type() const {
  const std::string chosen = ItemDialog::type();
  for (JointType t : {JointType::Pin, JointType::Slider, JointType::Revolute, JointType::Prismatic, JointType::Cylindrical,
                      JointType::Universal, JointType::Spherical, JointType::Fixed})
    if (chosen == toString(t)) return t;
  return JointType::Pin;
}

Ref JointDialog::point(int side) const { return parseRef(list("points", side)->currentData().toString()); }

std::vector<Ref> JointDialog::axes() const {
  // none offered on a body: no axes, and the resolver says the joint needs them
  if (!jointNeedsAxes(type()) || axisBox(0)->currentData().toString().isEmpty() || axisBox(1)->currentData().toString().isEmpty()) return {};
  return {parseRef(axisBox(0)->currentData().toString()), parseRef(axisBox(1)->currentData().toString())};
}

// each axis list offers the vectors of its point's body; the advice follows the type
void JointDialog::changed(const std::string& key) {
  if (key.empty() || key == "points") {
    for (int s = 0; s < 2; ++s) {
      QComboBox* axes = axisBox(s);
      const QString keep = axes->currentData().toString();
      const QSignalBlocker quiet(axes);
      axes->clear();
      const std::string body = point(s).body;
      if (!body.empty())
        for (const QString& v : vectorChoices(m_, body)) axes->addItem(v, v);
      if (const int at = axes->findData(keep); at >= 0) axes->setCurrentIndex(at);
    }
  }
  setAdvice(jointNeedsAxes(type()) ? tr("The axes must be parallel in the drawn position (perpendicular for a universal joint).")
                                   : tr("The two points should coincide in the drawn position."));
}

}  // namespace lw::widgets
