// Adding or changing a joint (Model > Add Joint..., Change Selected Joint...): the item schema's
// joint kind in the generic item dialog — its type (those of the mechanism's dimension), the two
// points it joins and, for the types that need them, one axis on each body (each list offers the
// vectors of its point's body). The main window checks the result (resolve on a copy) before it
// goes on the undo stack.
#pragma once

#include <vector>

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

namespace lw::widgets {

class JointDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// `first`: the point to offer first ("body.point"), e.g. of the selected body.
  JointDialog(const Mechanism& m, const QString& first, QWidget* parent = nullptr);
  /// Changing an existing joint: its type, points and axes preselected.
  JointDialog(const Mechanism& m, const Joint& joint, QWidget* parent = nullptr);
  JointType type() const;
  Ref point(int side) const;
  /// Empty when the type needs no axes (or a body has none to offer).
  std::vector<Ref> axes() const;
  QComboBox* pointBox(int side) const { return list("points", side); }
  QComboBox* axisBox(int side) const { return list("axes", side); }

 protected:
  void changed(const std::string& key) override;

 private:
  const Mechanism& m_;
};

}  // namespace lw::widgets
