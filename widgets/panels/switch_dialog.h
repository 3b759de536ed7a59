// Adding or changing a switch of the equations of motion (Model > Add Switch..., Change
// Selected...; seed 001 Theorem 4): when a point's world coordinate or a joint's coordinate
// crosses a value (falling or rising), the forces ticked under "Enable" act from then on and
// those under "Disable" stop; the velocities stay. The main window checks the result (resolve on a
// copy) before it goes on the undo stack.
#pragma once

#include <QDialog>

#include "mechanism/mechanism.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace lw::widgets {

class SwitchDialog : public QDialog {
  Q_OBJECT
 public:
  /// A new switch (`existing` null) or a change of `existing`.
  SwitchDialog(const Mechanism& m, const Switch* existing, QWidget* parent = nullptr);
  /// The switch as chosen; false with the reason naming the field.
  bool sw(Switch& out, QString& why) const;

  /// "point.C.y" (a point's coordinate) or "joint A" (a joint's coordinate).
  QComboBox* watchedBox() const { return watched_; }
  QLineEdit* valueEdit() const { return value_; }
  QComboBox* directionBox() const { return direction_; }
  QListWidget* enableList() const { return enable_; }
  QListWidget* disableList() const { return disable_; }

 private:
  void update();
  std::string name_;
  QComboBox* watched_;
  QLineEdit* value_;
  QComboBox* direction_;
  QListWidget *enable_, *disable_;
  QLabel* hint_;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace lw::widgets
