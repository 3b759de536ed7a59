#include "panels/switch_dialog.h"

#include <algorithm>

#include "panels/item_choices.h"

namespace lw::widgets {

std::string switchProblem(const Switch& s) {
  if (s.point.empty() == s.joint.empty()) return "Watch a point's coordinate or a joint's coordinate (one of them).";
  for (const auto& n : s.enable)
    if (std::find(s.disable.begin(), s.disable.end(), n) != s.disable.end()) return "Force " + n + " is both enabled and disabled.";
  if (s.enable.empty() && s.disable.empty())
    return "Tick the forces the crossing enables or disables (add forces first: Model > Add Force...).";
  return {};
}

namespace {

schema::Texts startingTexts(const Mechanism& m, const Switch* existing) {
  if (existing) return schema::textsOf(*existing);
  Switch fresh;
  const QStringList points = movingPointChoices(m);
  if (!points.isEmpty()) fresh.point = parseRef(points.front());
  return schema::textsOf(fresh);
}

}  // namespace

SwitchDialog::SwitchDialog(const Mechanism& m, const Switch* existing, QWidget* parent)
    : ItemDialog(schema::switchKind(), startingTexts(m, existing),
                 [](const schema::Texts& texts) -> std::string {
                   Switch s;
                   std::string why;
                   return schema::switchFrom(texts, s, why) ? switchProblem(s) : why;
                 },
                 parent, &m) {
  setObjectName("SwitchDialog");
  setWindowTitle(existing ? tr("Change switch %1").arg(QString::fromStdString(existing->name)) : tr("Add switch"));
  hideField("name");  // kept on a change, a fresh one for a new switch
  setAdvice(tr("At the crossing the forces change and the velocities stay (seed 001 Theorem 4); the event log lists it."));
}

bool SwitchDialog::sw(Switch& out, QString& why) const {
  std::string reason;
  if (!schema::switchFrom(texts(), out, reason) || !(reason = switchProblem(out)).empty()) {
    why = QString::fromStdString(reason);
    return false;
  }
  return true;
}

}  // namespace lw::widgets
