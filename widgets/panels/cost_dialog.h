// Add Cost, Change Cost, Make Cost (issue 22, 36): the item schema's cost kind in the generic item
// dialog — a name, a type (integral over the run, value at its end, least or greatest value, or
// through target points) and an expression of output components, initial(...), parameters and t
// whose names are completed as they are typed (or a point output and its targets). The window
// checks the cost like any edit (an unknown name is refused with it).
#pragma once

#include <QStringList>

#include "mechanism/mechanism.h"
#include "panels/item_dialog.h"

class QCompleter;

namespace lw::widgets {

class CostDialog : public ItemDialog {
  Q_OBJECT
 public:
  /// `names`: what an expression may use (output components, parameters), offered as completions.
  CostDialog(const Mechanism& m, const QStringList& names, QWidget* parent = nullptr);
  QLineEdit* nameEdit() const { return field("name"); }
  QComboBox* typeChoice() const { return list("type"); }
  QLineEdit* expressionEdit() const { return field("expression"); }
  QCompleter* completer() const { return completer_; }
  /// The cost as entered; false with the reason naming the field.
  bool cost(Cost& out, QString& why) const;
  /// Pre-filled with `c` (Change Cost, Make Cost): its name, type and expression or targets.
  void setCost(const Cost& c);
  /// The word being typed before the cursor replaced by `completion` (what choosing one does).
  void complete(const QString& completion);

 private:
  QString wordBeforeCursor() const;
  QCompleter* completer_;
};

}  // namespace lw::widgets
