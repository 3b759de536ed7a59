#include "panels/force_dialog.h"

#include <QComboBox>
#include <QLineEdit>
#include <algorithm>
#include <optional>

#include "mechanism/resolved.h"
#include "panels/item_choices.h"

namespace lw::widgets {
namespace {

std::optional<Eigen::Vector3d> drawnPoint(const ResolvedMechanism& r, const Ref& p) {
  const int b = r.findBody(p.body);
  if (b < 0) return std::nullopt;
  const auto& names = r.bodies[static_cast<std::size_t>(b)].pointNames;
  const auto it = std::find(names.begin(), names.end(), p.item);
  if (it == names.end()) return std::nullopt;
  return r.pointWorld({b, static_cast<int>(it - names.begin())});
}

schema::Texts startingTexts(const Force* existing) {
  if (existing) return schema::textsOf(*existing);
  Force fresh;  // defaults a user can start from
  fresh.stiffness = 100;
  schema::Texts t = schema::textsOf(fresh);
  t["points"] = "";  // the first two points offered
  t["radius"] = "0.3";
  t["friction"] = "0.9";
  return t;
}

}  // namespace

ForceDialog::ForceDialog(const Mechanism& m, const ResolvedMechanism* drawn, const Force* existing, QWidget* parent)
    : ItemDialog(schema::forceKind(), startingTexts(existing),
                 readable(&schema::forceFrom),
                 parent, &m),
      drawn_(drawn),
      dimension_(m.dimension),
      lengthTyped_(existing != nullptr) {  // a change keeps the spring's length
  setObjectName("ForceDialog");
  setWindowTitle(existing ? tr("Change force %1").arg(QString::fromStdString(existing->name)) : tr("Add force"));
  hideField("name");  // kept on a change, a fresh one for a new force
  connect(field("natural_length"), &QLineEdit::textEdited, this, [this] { lengthTyped_ = true; });
  refresh();
}

bool ForceDialog::force(Force& out, QString& why) const { return read(&schema::forceFrom, out, why); }

void ForceDialog::changed(const std::string& key) {
  const std::string t = type();
  // a new spring starts unloaded: its natural length follows the chosen points until typed over
  if (!lengthTyped_ && drawn_ && t == "spring" && (key.empty() || key == "points" || key == "type")) {
    const auto a = drawnPoint(*drawn_, parseRef(list("points", 0)->currentData().toString()));
    const auto b = drawnPoint(*drawn_, parseRef(list("points", 1)->currentData().toString()));
    if (a && b) field("natural_length")->setText(QString::number((*b - *a).norm(), 'g', 6));
  }
  // a force's or a torque's components, zero until given
  if (QLineEdit* value = field("value"); value->text().trimmed().isEmpty() && (t == "force" || t == "torque"))
    value->setText(t == "torque" && dimension_ == 2 ? "0" : dimension_ == 2 ? "0, 0" : "0, 0, 0");
  setAdvice(t == "spring"           ? tr("Pulls the points together when stretched beyond the natural length.")
            : t == "torsion_spring" ? tr("Turns the joint back towards its natural angle (a pin, revolute or cylindrical joint).")
            : t == "force"          ? tr("Components (x, y%1) may be functions of time t.").arg(dimension_ == 3 ? ", z" : "")
            : t == "torque"         ? (dimension_ == 2 ? tr("About z (counter-clockwise positive); may be a function of t.")
                                                       : tr("Components (x, y, z) may be functions of time t."))
                                    : tr("The wheel (centre, radius, spin axis) on the plane through the plane point with the given normal."));
}

}  // namespace lw::widgets
