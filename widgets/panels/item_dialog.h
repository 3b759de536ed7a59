// The generic item dialog: a form built from an item kind of the schema (mechanism/schema.h), one
// row per field with its label, unit and help, filled from the item's field texts. A check
// (`problem`: "" when the texts make a valid item) runs as the user types: OK stays disabled and
// the reason shows under the form until it passes. Model > Add Parameter... is the schema's
// parameter kind in this dialog.
#pragma once

#include <QDialog>
#include <functional>
#include <map>

#include "mechanism/schema.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace lw::widgets {

class ItemDialog : public QDialog {
  Q_OBJECT
 public:
  using Check = std::function<std::string(const schema::Texts&)>;
  ItemDialog(const schema::Kind& kind, const schema::Texts& texts, Check problem, QWidget* parent = nullptr);
  /// The field texts as they stand.
  schema::Texts texts() const;
  /// The editor of field `key` (tests type into it); null for an unknown key.
  QLineEdit* field(const std::string& key) const;
  /// What the check says now ("" when OK is enabled).
  QString problem() const;

 private:
  void update();
  const schema::Kind& kind_;
  Check check_;
  std::map<std::string, QLineEdit*> fields_;
  QLabel* hint_;
  QDialogButtonBox* buttons_;
};

}  // namespace lw::widgets
