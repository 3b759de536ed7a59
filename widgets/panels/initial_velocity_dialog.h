// Setting or changing an initial velocity (Model > Set Initial Velocity..., Change Selected...):
// the item schema's initial velocity kind in the generic item dialog — a joint's rate, a point's
// velocity along x, y or z, or a free body's velocity and angular velocity. The main window checks
// the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw::widgets {

class InitialVelocityDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new initial velocity (`existing` null: a joint's rate of 1) or a change of `existing`.
  InitialVelocityDialog(const Mechanism& m, const InitialVelocity* existing, QWidget* parent = nullptr);
  /// The velocity as chosen; false with the reason naming the field.
  bool velocity(InitialVelocity& out, QString& why) const;

 protected:
  void changed(const std::string& key) override;

 private:
  int dimension_;
};

}  // namespace lw::widgets
