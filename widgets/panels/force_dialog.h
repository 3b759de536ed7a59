// Adding or changing a force element (Model > Add Force..., Change Selected...): its type, what it
// acts on (points, a joint, a body, a wheel and its ground plane) and its main numbers. A new
// spring's natural length is the drawn distance between its points, so that it starts unloaded.
// The main window checks the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include <QDialog>

#include "mechanism/mechanism.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QWidget;

namespace lw {
struct ResolvedMechanism;
}

namespace lw::widgets {

class ForceDialog : public QDialog {
  Q_OBJECT
 public:
  /// A new force (`existing` null) or a change of `existing`. `drawn` (may be null) gives the
  /// drawn distance between a spring's points.
  ForceDialog(const Mechanism& m, const ResolvedMechanism* drawn, const Force* existing, QWidget* parent = nullptr);
  /// The force as chosen (name and fields the dialog does not show kept from `existing`); false
  /// with the reason (naming the field) when a number is neither a number nor an expression.
  bool force(Force& out, QString& why) const;

  QComboBox* typeBox() const { return type_; }
  QComboBox* pointBox(int i) const { return points_[i]; }
  QLineEdit* field(const char* name) const;  // "stiffness", "damping", "natural_length", "value0"...

 private:
  void update();
  void updateLength();
  const ResolvedMechanism* drawn_;
  Force base_;  // the existing force, or defaults
  int dimension_;
  QFormLayout* form_;
  QComboBox* type_;
  QComboBox* points_[2];  // spring ends; [0] is also a point force's point and a wheel's centre
  QComboBox* joint_;
  QComboBox* body_;
  QComboBox* frame_;
  QComboBox* axis_;       // a wheel's spin axis
  QComboBox* planePoint_;
  QComboBox* planeNormal_;
  QWidget* valueRow_;
  QLineEdit* value_[3];
  QLineEdit *stiffness_, *damping_, *length_, *actuator_, *angle_, *radius_, *friction_;
  bool lengthTyped_ = false;
  QLabel* hint_;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace lw::widgets
