// Adding or changing end stops on a joint (Model > Add Limit..., Change Selected...): the joint,
// its lowest and/or highest coordinate (degrees for a rotation, as the window shows angles; metres
// for a slide; the file keeps radians), the impact law and its restitution. The main window checks
// the result (resolve on a copy) before it goes on the undo stack.
#pragma once

#include <QDialog>

#include "mechanism/mechanism.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace lw::widgets {

class LimitDialog : public QDialog {
  Q_OBJECT
 public:
  /// A new limit (`existing` null) or a change of `existing`.
  LimitDialog(const Mechanism& m, const JointLimit* existing, QWidget* parent = nullptr);
  /// The limit as chosen (bounds in SI: radians or metres); false with the reason naming the field.
  bool limit(JointLimit& out, QString& why) const;

  QComboBox* jointBox() const { return joint_; }
  QCheckBox* minOn() const { return minOn_; }
  QCheckBox* maxOn() const { return maxOn_; }
  QLineEdit* minEdit() const { return min_; }
  QLineEdit* maxEdit() const { return max_; }
  QComboBox* lawBox() const { return law_; }
  QLineEdit* restitutionEdit() const { return restitution_; }
  /// Whether the chosen joint turns (bounds in degrees) or slides (metres).
  bool rotation() const;

 private:
  void update();
  const Mechanism& m_;
  std::string name_;
  QComboBox* joint_;
  QCheckBox *minOn_, *maxOn_;
  QLineEdit *min_, *max_;
  QLabel *minUnit_ = nullptr, *maxUnit_ = nullptr;  // ° or m
  QComboBox* law_;
  QLineEdit* restitution_;
  QLabel* hint_;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace lw::widgets
