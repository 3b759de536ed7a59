// Adding or changing a driver (Model > Add Driver..., Change Selected...): the item schema's driver
// kind in the generic item dialog — what it drives (a joint's coordinate, a point's x, y or z, or
// the distance between two points) and its function of time. The main window checks the result
// (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw::widgets {

class DriverDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new driver (`existing` null: the first joint offered, one turn per second) or a change of
  /// `existing` (its name kept).
  DriverDialog(const Mechanism& m, const Driver* existing, QWidget* parent = nullptr);
  /// The driver as chosen; false with the reason naming the field.
  bool driver(Driver& out, QString& why) const;

  QComboBox* typeBox() const { return list("type"); }
  QComboBox* jointBox() const { return list("joint"); }
  QLineEdit* functionEdit() const { return field("function"); }

 protected:
  void changed(const std::string& key) override;
};

}  // namespace lw::widgets
