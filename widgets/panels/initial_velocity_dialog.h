// Setting or changing an initial velocity (Model > Set Initial Velocity..., Change Selected...):
// a joint's rate, one component of a point's velocity, or a body's velocity and angular
// velocity. Dynamics starts from it (projected onto the constraints); kinematics ignores it.
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

namespace lw::widgets {

class InitialVelocityDialog : public QDialog {
  Q_OBJECT
 public:
  /// A new initial velocity (`existing` null) or a change of `existing`.
  InitialVelocityDialog(const Mechanism& m, const InitialVelocity* existing, QWidget* parent = nullptr);
  /// The initial velocity as chosen; false with the reason (naming the field) when a number is
  /// neither a number nor an expression.
  bool velocity(InitialVelocity& out, QString& why) const;

  QComboBox* typeBox() const { return type_; }
  QComboBox* jointBox() const { return joint_; }
  QComboBox* pointBox() const { return point_; }
  QComboBox* componentBox() const { return component_; }
  QComboBox* bodyBox() const { return body_; }
  QLineEdit* valueEdit() const { return value_; }
  /// Components of a body's velocity (x, y, z) and angular velocity (1 in 2D, 3 in 3D).
  QLineEdit* velocityEdit(int i) const { return velocity_[i]; }
  QLineEdit* angularEdit(int i) const { return angular_[i]; }

 private:
  void update();
  int dimension_;
  QFormLayout* form_;
  QComboBox* type_;
  QComboBox* joint_;
  QComboBox* point_;
  QComboBox* component_;
  QComboBox* body_;
  QLineEdit* value_;
  QWidget* velocityRow_;
  QWidget* angularRow_;
  QLineEdit* velocity_[3]{};
  QLineEdit* angular_[3]{};
  QLabel* hint_;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace lw::widgets
