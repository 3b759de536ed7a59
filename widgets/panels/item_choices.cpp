#include "panels/item_choices.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>

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

QStringList jointChoices(const Mechanism& m) {
  QStringList out;
  for (const auto& j : m.joints) out << QString::fromStdString(j.name);
  return out;
}

QStringList bodyChoices(const Mechanism& m) {
  QStringList out;
  for (const auto& b : m.bodies) out << QString::fromStdString(b.name);
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

bool parseNumber(const QString& text, Number& out, QString& why) {
  const QString t = text.trimmed();
  if (t.isEmpty()) {
    why = QObject::tr("a number or an expression is needed");
    return false;
  }
  bool isNumber = false;
  const double v = t.toDouble(&isNumber);
  if (isNumber) {
    out = Number(v);
    return true;
  }
  Expression e;
  ExpressionError error;
  if (!Expression::parse(t.toStdString(), e, error)) {
    why = QString::fromStdString(error.message);
    return false;
  }
  out = Number();
  out.expression = e;
  return true;
}

QString numberText(const Number& n) {
  return n.isLiteral() ? QString::number(n.value, 'g', 12) : QString::fromStdString(n.expression.text());
}

QDialogButtonBox* addHintAndButtons(QDialog* dialog, QFormLayout* form, QLabel*& hint) {
  hint = new QLabel(dialog);
  hint->setWordWrap(true);
  form->addRow(hint);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
  form->addRow(buttons);
  QObject::connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  return buttons;
}

}  // namespace lw::widgets
