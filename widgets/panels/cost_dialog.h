// Add Cost (issue 22): a cost's name, type (integral over the run or the value at its end) and
// expression of output components, initial(...), parameters and t, the names completed as they
// are typed. The window checks the cost like any edit (an unknown name is refused with it).
#pragma once

#include <QDialog>
#include <QStringList>

class QComboBox;
class QCompleter;
class QLabel;
class QLineEdit;

namespace lw {
struct Mechanism;
struct Cost;
}

namespace lw::widgets {

class CostDialog : public QDialog {
  Q_OBJECT
 public:
  /// `names`: what an expression may use (output components, parameters), offered as completions.
  CostDialog(const Mechanism& m, const QStringList& names, QWidget* parent = nullptr);
  QLineEdit* nameEdit() const { return name_; }
  QComboBox* typeChoice() const { return type_; }
  QLineEdit* expressionEdit() const { return expression_; }
  QCompleter* completer() const { return completer_; }
  /// The cost as entered; false with the reason (an empty name or expression, text that does not parse).
  bool cost(Cost& out, QString& why) const;
  /// Pre-filled with `c` (Change Cost): its name, type and expression.
  void setCost(const Cost& c);
  /// The word being typed before the cursor replaced by `completion` (what choosing one does).
  void complete(const QString& completion);

 private:
  QString wordBeforeCursor() const;
  QLineEdit *name_, *expression_;
  QComboBox* type_;
  QCompleter* completer_;
  QLabel* hint_;
};

}  // namespace lw::widgets
