// Adding or changing an output (Model > Add Output..., Change Selected...): the item schema's
// output kind in the generic item dialog — a point's position, velocity or acceleration, a joint's
// coordinate or rate, a spring's length, an energy, the constraint residual, a joint's reaction on
// one of its bodies or a driver's effort. Its name heads the run's columns and is what costs read.
// The main window checks the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw::widgets {

class OutputDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new output (`existing` null: a fresh name, a point's position) or a change of `existing`
  /// (its name kept: F2 renames).
  OutputDialog(const Mechanism& m, const Output* existing, QWidget* parent = nullptr);
  /// The output as chosen; false with the reason naming the field.
  bool output(Output& out, QString& why) const;
};

}  // namespace lw::widgets
