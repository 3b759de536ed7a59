// Adding or changing a contact (Model > Add Contact..., Change Selected...): a point of a moving
// body (with a radius: a ball or a wheel's rim) against a plane given by a point and a normal,
// with its impact law. The main window checks the result (resolve on a copy) before it goes on
// the undo stack.
#pragma once

#include <QDialog>

#include "mechanism/mechanism.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace lw::widgets {

class ContactDialog : public QDialog {
  Q_OBJECT
 public:
  /// A new contact (`existing` null) or a change of `existing`.
  ContactDialog(const Mechanism& m, const Contact* existing, QWidget* parent = nullptr);
  /// The contact as chosen (name kept from `existing`); false with the reason (naming the field)
  /// when a number is neither a number nor an expression.
  bool contact(Contact& out, QString& why) const;

  QComboBox* pointBox() const { return point_; }
  QComboBox* planePointBox() const { return planePoint_; }
  QComboBox* planeNormalBox() const { return planeNormal_; }
  QComboBox* lawBox() const { return law_; }
  QLineEdit* radiusEdit() const { return radius_; }
  QLineEdit* restitutionEdit() const { return restitution_; }

 private:
  void update();
  std::string name_;
  QComboBox* point_;
  QComboBox* planePoint_;
  QComboBox* planeNormal_;
  QComboBox* law_;
  QLineEdit* radius_;
  QLineEdit* restitution_;
  QLabel* hint_;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace lw::widgets
