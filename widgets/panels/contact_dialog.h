// Adding or changing a contact (Model > Add Contact..., Change Selected...): the item schema's
// contact kind in the generic item dialog — a point of a moving body (with a radius: a ball or a
// wheel's rim) against a plane given by a point and a normal, with its impact law. The main window
// checks the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

class QComboBox;
class QLineEdit;

namespace lw::widgets {

class ContactDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new contact (`existing` null) or a change of `existing`.
  ContactDialog(const Mechanism& m, const Contact* existing, QWidget* parent = nullptr);
  /// The contact as chosen (name kept from `existing`); false with the reason (naming the field)
  /// when a number is neither a number nor an expression.
  bool contact(Contact& out, QString& why) const;

  QComboBox* pointBox() const { return list("point"); }
  QComboBox* planePointBox() const { return list("plane_point"); }
  QComboBox* planeNormalBox() const { return list("plane_normal"); }
  QComboBox* lawBox() const { return list("law"); }
  QLineEdit* radiusEdit() const { return field("radius"); }
  QLineEdit* restitutionEdit() const { return field("restitution"); }
};

}  // namespace lw::widgets
