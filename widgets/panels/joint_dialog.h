// Adding or changing a joint (Model > Add Joint..., Change Selected Joint...): its type, the two points it joins and, for the types that
// need them, one axis on each body. The choices come from the mechanism; the main window checks
// the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include <QDialog>
#include <vector>

#include "mechanism/mechanism.h"

class QComboBox;
class QLabel;

namespace lw::widgets {

class JointDialog : public QDialog {
  Q_OBJECT
 public:
  /// `first`: the point to offer first ("body.point"), e.g. of the selected body.
  JointDialog(const Mechanism& m, const QString& first, QWidget* parent = nullptr);
  /// Changing an existing joint: its type, points and axes preselected.
  JointDialog(const Mechanism& m, const Joint& joint, QWidget* parent = nullptr);
  JointType type() const;
  Ref point(int side) const;
  /// Empty when the type needs no axes.
  std::vector<Ref> axes() const;
  QComboBox* typeBox() const { return type_; }
  QComboBox* pointBox(int side) const { return points_[side]; }
  QComboBox* axisBox(int side) const { return axes_[side]; }

 private:
  void update();
  const Mechanism& m_;
  QComboBox* type_;
  QComboBox* points_[2];
  QComboBox* axes_[2];
  QLabel* hint_;
};

}  // namespace lw::widgets
