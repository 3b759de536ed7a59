// Adding or changing a force element (Model > Add Force..., Change Selected...): the item schema's
// force kind in the generic item dialog — its type, what it acts on (points, a joint, a body, a
// wheel and its ground plane) and its numbers. A new spring's natural length is the drawn distance
// between its points (until typed over), so that it starts unloaded. The main window checks the
// result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw {
struct ResolvedMechanism;
}

namespace lw::widgets {

class ForceDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// A new force (`existing` null) or a change of `existing`. `drawn` (may be null) gives the
  /// drawn distance between a spring's points.
  ForceDialog(const Mechanism& m, const ResolvedMechanism* drawn, const Force* existing, QWidget* parent = nullptr);
  /// The force as chosen (its name kept); false with the reason naming the field.
  bool force(Force& out, QString& why) const;

  QComboBox* typeBox() const { return list("type"); }

 protected:
  void changed(const std::string& key) override;

 private:
  const ResolvedMechanism* drawn_;
  int dimension_;
  bool lengthTyped_ = false;
};

}  // namespace lw::widgets
