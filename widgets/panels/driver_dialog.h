// Adding or changing a driver (Model > Add Driver..., Change Selected...): what it drives — a
// joint's coordinate, a point's x, y or z, or the distance between two points — and its function
// of time. The main window checks the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include <QDialog>

#include "mechanism/mechanism.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace lw::widgets {

class DriverDialog : public QDialog {
  Q_OBJECT
 public:
  /// A new driver (`existing` null: the first joint offered) or a change of `existing`.
  DriverDialog(const Mechanism& m, const Driver* existing, QWidget* parent = nullptr);
  /// The driver as chosen (name kept from `existing`, empty for a new one); false with the reason
  /// when the function is not a number or an expression.
  bool driver(Driver& out, QString& why) const;

  QComboBox* typeBox() const { return type_; }
  QComboBox* jointBox() const { return joint_; }
  QComboBox* pointBox(int i) const { return points_[i]; }
  QComboBox* componentBox() const { return component_; }
  QLineEdit* functionEdit() const { return function_; }

 private:
  void update();
  std::string name_;
  QFormLayout* form_;
  QComboBox* type_;
  QComboBox* joint_;
  QComboBox* points_[2];
  QComboBox* component_;
  QLineEdit* function_;
  QLabel* hint_;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace lw::widgets
