// Adding or changing a switch of the equations of motion (Model > Add Switch..., Change
// Selected...; seed 001 Theorem 4): the item schema's switch kind in the generic item dialog. When
// a point's world coordinate or a joint's coordinate crosses a value (falling or rising), the
// forces ticked under "Enable" act from then on and those under "Disable" stop; the velocities
// stay. The main window checks the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw::widgets {

class SwitchDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new switch (`existing` null: the first moving point's y) or a change of `existing`.
  SwitchDialog(const Mechanism& m, const Switch* existing, QWidget* parent = nullptr);
  /// The switch as chosen; false with the reason naming the field.
  bool sw(Switch& out, QString& why) const;

  QLineEdit* valueEdit() const { return field("value"); }
  QListWidget* enableList() const { return checks("enable"); }
  QListWidget* disableList() const { return checks("disable"); }
};

/// What is wrong with a switch the resolver would not say as plainly ("" when nothing): neither a
/// point nor a joint watched, or both; a force both enabled and disabled; no force ticked.
std::string switchProblem(const Switch& s);

}  // namespace lw::widgets
