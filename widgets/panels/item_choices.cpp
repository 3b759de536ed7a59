#include "panels/item_choices.h"

#include <QComboBox>

namespace lw::widgets {

QStringList pointChoices(const Mechanism& m) {
  QStringList out;
  for (const auto& p : m.ground.points) out << QString("%1.%2").arg(kGroundName, QString::fromStdString(p.name));
  for (const auto& b : m.bodies)
    for (const auto& p : b.points) out << QString::fromStdString(b.name + "." + p.name);
  return out;
}

QStringList movingPointChoices(const Mechanism& m) {
  QStringList out;
  for (const auto& b : m.bodies)
    for (const auto& p : b.points) out << QString::fromStdString(b.name + "." + p.name);
  return out;
}

QStringList vectorChoices(const Mechanism& m, const std::string& body) {
  QStringList out;
  if (body.empty() || body == kGroundName)
    for (const auto& v : m.ground.vectors) out << QString("%1.%2").arg(kGroundName, QString::fromStdString(v.name));
  for (const auto& b : m.bodies)
    if (body.empty() || b.name == body)
      for (const auto& v : b.vectors) out << QString::fromStdString(b.name + "." + v.name);
  return out;
}

Ref parseRef(const QString& s) {
  const auto dot = s.indexOf('.');
  if (dot < 0) return {};
  return {s.left(dot).toStdString(), s.mid(dot + 1).toStdString()};
}

bool selectText(QComboBox* box, const QString& text) {
  const int i = box->findText(text);
  if (i < 0) return false;
  box->setCurrentIndex(i);
  return true;
}

}  // namespace lw::widgets
