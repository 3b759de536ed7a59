// The generic item dialog: a form built from an item kind of the schema (mechanism/schema.h), one
// row per field with its label, unit and help, filled from the item's field texts: a line for a
// name, number, text or list of numbers or names, a list for a choice, a reference (the
// mechanism's points or vectors) or an item's name (its joints, bodies, forces, drivers), two lists
// side by side for a pair, nothing for a constant. A typed kind shows the fields of the type chosen
// only. A check (`problem`: "" when the texts make a valid item) runs as the user types: OK stays
// disabled and the reason shows under the form until it passes. Model > Add Parameter..., Add
// Output... and the dialogs of the other kinds are this form.
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
class QListWidget;

namespace lw::widgets {

class ItemDialog : public QDialog {
  Q_OBJECT
 public:
  using Check = std::function<std::string(const schema::Texts&)>;
  template <class Item>
  using From = bool (*)(const schema::Texts&, Item&, std::string&);
  /// The check that an item kind's reader makes: its reason, "" when the texts read.
  template <class Item>
  static Check readable(From<Item> from) {
    return [from](const schema::Texts& texts) {
      Item x;
      std::string why;
      return from(texts, x, why) ? std::string() : why;
    };
  }
  /// `m`: the mechanism whose points, vectors and items the reference fields offer (null: none).
  ItemDialog(const schema::Kind& kind, const schema::Texts& texts, Check problem, QWidget* parent = nullptr,
             const Mechanism* m = nullptr);
  /// The texts of the fields that belong to the type chosen (and the constants).
  schema::Texts texts() const;
  /// The item the texts make by `from`; false with the reason naming the field.
  template <class Item>
  bool read(From<Item> from, Item& out, QString& why) const {
    std::string reason;
    if (from(texts(), out, reason)) return true;
    why = QString::fromStdString(reason);
    return false;
  }
  /// The editor of field `key` (tests type into it); null for an unknown key or a list field.
  QLineEdit* field(const std::string& key) const;
  /// The list of a choice, reference or item field `key` (of a pair: side 0 or 1); null for others.
  QComboBox* list(const std::string& key, int side = 0) const;
  /// The ticked list of a names field `key` (a switch's forces); null for others.
  QListWidget* checks(const std::string& key) const;
  /// Chooses `value` in the list of field `key` (side of a pair); false when it is not offered.
  bool choose(const std::string& key, const QString& value, int side = 0);
  /// The type chosen ("" for an untyped kind).
  std::string type() const;
  /// Runs the check again (a subclass's own conditions changed).
  void recheck() { update(); }
  /// Leaves field `key` out of the form (its text stays what it was given: a name kept on change).
  void hideField(const std::string& key);
  /// What the check says now ("" when OK is enabled).
  QString problem() const;
  /// The label of field `key`'s row (a subclass names a unit that depends on another field).
  void setFieldLabel(const std::string& key, const QString& label);
  /// The line under the form when the check passes ("Fields marked * are required." by default).
  void setAdvice(const QString& advice);

 protected:
  /// Called when field `key` changes (and once with "" when the form is built), before the check:
  /// a subclass refills a list or renames a unit.
  virtual void changed(const std::string& key) { (void)key; }
  /// Calls changed("") and the check: a subclass's constructor, once its own state is set.
  void refresh();

 private:
  void update();
  void showRows();
  QWidget* row(const std::string& key) const;
  const schema::Kind& kind_;
  Check check_;
  std::map<std::string, QLineEdit*> fields_;
  std::map<std::string, QComboBox*> lists_;
  std::map<std::string, QComboBox*> seconds_;  // a pair's second list
  std::map<std::string, QListWidget*> checks_;
  std::map<std::string, QWidget*> rows_;       // the widget of each field's row
  std::vector<std::string> hidden_;
  QString advice_;
  schema::Texts constants_;
  QLabel* hint_ = nullptr;  // null while the form is built
  QFormLayout* form_;
  QDialogButtonBox* buttons_;
};

/// The names an item field offers: the mechanism's items of list `of` ("joints", "bodies",
/// "forces", "drivers", "outputs").
QStringList itemChoices(const Mechanism& m, const std::string& of);

}  // namespace lw::widgets
