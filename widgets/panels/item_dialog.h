// The generic item dialog: a form built from an item kind of the schema (mechanism/schema.h), one
// row per field with its label, unit and help, filled from the item's field texts: a line for a
// name, number or text, a list for a choice or a reference (the mechanism's points or vectors),
// nothing for a constant. A check
// (`problem`: "" when the texts make a valid item) runs as the user types: OK stays disabled and
// the reason shows under the form until it passes. Model > Add Parameter... is the schema's
// parameter kind in this dialog.
#pragma once

#include <QDialog>
#include <functional>
#include <map>

#include "mechanism/schema.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace lw::widgets {

class ItemDialog : public QDialog {
  Q_OBJECT
 public:
  using Check = std::function<std::string(const schema::Texts&)>;
  /// `m`: the mechanism whose points and vectors the reference fields offer (null: none).
  ItemDialog(const schema::Kind& kind, const schema::Texts& texts, Check problem, QWidget* parent = nullptr,
             const Mechanism* m = nullptr);
  /// The field texts as they stand.
  schema::Texts texts() const;
  /// The editor of field `key` (tests type into it); null for an unknown key or a list field.
  QLineEdit* field(const std::string& key) const;
  /// The list of a choice or reference field `key`; null for other fields.
  QComboBox* list(const std::string& key) const;
  /// Runs the check again (a subclass's own conditions changed).
  void recheck() { update(); }
  /// Leaves field `key` out of the form (its text stays what it was given: a name kept on change).
  void hideField(const std::string& key);
  /// What the check says now ("" when OK is enabled).
  QString problem() const;

 private:
  void update();
  const schema::Kind& kind_;
  Check check_;
  std::map<std::string, QLineEdit*> fields_;
  std::map<std::string, QComboBox*> lists_;
  schema::Texts constants_;
  QLabel* hint_;
  QFormLayout* form_;
  QDialogButtonBox* buttons_;
};

}  // namespace lw::widgets
