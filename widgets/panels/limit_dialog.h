// Adding or changing end stops on a joint (Model > Add Limit..., Change Selected...): the item
// schema's limit kind in the generic item dialog — the joint (one with one coordinate), its lowest
// and/or highest coordinate (degrees for a rotation, as the window shows angles; metres for a
// slide; the file keeps radians), the impact law and its restitution. The main window checks the
// result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw::widgets {

class LimitDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new limit (`existing` null: both bounds empty, e = 0.5) or a change of `existing`.
  LimitDialog(const Mechanism& m, const JointLimit* existing, QWidget* parent = nullptr);
  /// The limit as chosen (bounds in SI: radians or metres); false with the reason naming the field.
  bool limit(JointLimit& out, QString& why) const;

  QComboBox* jointBox() const { return list("joint"); }
  QLineEdit* minEdit() const { return field("min"); }
  QLineEdit* maxEdit() const { return field("max"); }
  QLineEdit* restitutionEdit() const { return field("restitution"); }
  /// Whether the chosen joint turns (bounds in degrees) or slides (metres).
  bool rotation() const;

 protected:
  void changed(const std::string& key) override;

 private:
  const Mechanism& m_;
};

}  // namespace lw::widgets
