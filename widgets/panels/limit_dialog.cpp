#include "panels/limit_dialog.h"

#include <QComboBox>
#include <QLineEdit>
#include <algorithm>
#include <cstdio>
#include <numbers>

namespace lw::widgets {
namespace {

// the joints with one coordinate an end stop can watch
bool oneCoordinate(JointType t) { return t == JointType::Pin || t == JointType::Slider || t == JointType::Revolute || t == JointType::Prismatic; }

bool turns(const Mechanism& m, const std::string& joint) {
  const auto it = std::find_if(m.joints.begin(), m.joints.end(), [&](const Joint& j) { return j.name == joint; });
  return it == m.joints.end() || !(it->type == JointType::Slider || it->type == JointType::Prismatic);
}

// a bound as the user reads it: degrees for a rotation (an expression: its text, in radians)
std::string shown(const std::string& radians) {
  double v = 0;
  char* end = nullptr;
  v = std::strtod(radians.c_str(), &end);
  if (radians.empty()) return radians;
  if (end != radians.c_str() + radians.size()) return "(" + radians + ")*180/pi";
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v * 180 / std::numbers::pi);
  return text;
}

// the limit the window's texts describe, its bounds in degrees for a rotation (the file's radians)
bool limitFromWindow(const Mechanism& m, schema::Texts texts, JointLimit& out, std::string& why) {
  if (turns(m, texts["joint"]))
    for (const char* key : {"min", "max"}) {
      std::string& t = texts[key];
      if (t.empty()) continue;
      char* end = nullptr;
      const double v = std::strtod(t.c_str(), &end);
      if (end == t.c_str() + t.size()) t = schema::numberText(v * std::numbers::pi / 180);
      else t = "(" + t + ")*pi/180";  // an expression is read in degrees too
    }
  if (!schema::limitFrom(texts, out, why)) return false;
  if (!out.hasMin && !out.hasMax) {
    why = "Give the lowest or the highest bound (or both).";
    return false;
  }
  if (out.hasMin && out.hasMax && out.min.isLiteral() && out.max.isLiteral() && out.min.value >= out.max.value) {
    why = "The lowest bound must be below the highest.";
    return false;
  }
  return true;
}

schema::Texts startingTexts(const Mechanism& m, const JointLimit* existing) {
  JointLimit fresh;
  fresh.restitution = 0.5;
  schema::Texts t = schema::textsOf(existing ? *existing : fresh);
  if (existing && turns(m, existing->joint))
    for (const char* key : {"min", "max"}) t[key] = shown(t[key]);
  return t;
}

}  // namespace

LimitDialog::LimitDialog(const Mechanism& m, const JointLimit* existing, QWidget* parent)
    : ItemDialog(schema::limitKind(), startingTexts(m, existing),
                 [&m](const schema::Texts& texts) -> std::string {
                   if (texts.count("joint") && texts.at("joint").empty())
                     return "The mechanism has no pin, revolute, slider or prismatic joint to stop.";
                   JointLimit l;
                   std::string why;
                   return limitFromWindow(m, texts, l, why) ? std::string() : why;
                 },
                 parent, &m),
      m_(m) {
  setObjectName("LimitDialog");
  setWindowTitle(existing ? tr("Change limit %1").arg(QString::fromStdString(existing->name)) : tr("Add limit"));
  hideField("name");  // kept on a change, a fresh one for a new limit
  // only the joints with one coordinate
  QComboBox* joints = list("joint");
  for (int i = joints->count() - 1; i >= 0; --i) {
    const std::string name = joints->itemData(i).toString().toStdString();
    const auto it = std::find_if(m.joints.begin(), m.joints.end(), [&](const Joint& j) { return j.name == name; });
    if (it == m.joints.end() || !oneCoordinate(it->type)) joints->removeItem(i);
  }
  setAdvice(tr("At a bound the joint's rate reverses, scaled by e (an impact: its time and jumps are in the event log)."));
  refresh();
}

bool LimitDialog::rotation() const { return turns(m_, list("joint")->currentData().toString().toStdString()); }

bool LimitDialog::limit(JointLimit& out, QString& why) const {
  std::string reason;
  if (!limitFromWindow(m_, texts(), out, reason)) {
    why = QString::fromStdString(reason);
    return false;
  }
  return true;
}

// the bounds' unit follows the joint: degrees for a rotation, metres for a slide
void LimitDialog::changed(const std::string&) {
  const QString unit = rotation() ? tr("°") : tr("m");
  setFieldLabel("min", tr("Lowest (%1)").arg(unit));
  setFieldLabel("max", tr("Highest (%1)").arg(unit));
  const QString tip = rotation() ? tr("degrees, as the joint's coordinate counts: the angle from the first body's x axis to the second's (empty: none)")
                                 : tr("metres along the joint's axis (empty: none)");
  minEdit()->setToolTip(tip);
  maxEdit()->setToolTip(tip);
}

}  // namespace lw::widgets
