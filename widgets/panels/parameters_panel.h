// The design parameters of the mechanism as an editable table (name, value, unit, description).
// The panel only reports edits; the main window validates them, applies them through the undo
// stack and shows the accepted values again.
#pragma once

#include <QWidget>
#include <vector>

class QTableWidget;

namespace lw {
struct Parameter;
}

namespace lw::widgets {

class ParametersPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ParametersPanel(QWidget* parent = nullptr);
  void setParameters(const std::vector<Parameter>& parameters);
  QTableWidget* table() const { return table_; }

 signals:
  /// The user typed a new value for parameter `index` (a literal parameter).
  void valueEdited(int index, double value);
  void message(const QString& text);

 private:
  QTableWidget* table_;
  bool filling_ = false;
};

}  // namespace lw::widgets
