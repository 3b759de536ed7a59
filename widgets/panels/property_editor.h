// The property editor: every numeric field of the item selected in the model tree (a body's mass,
// centre of mass, inertia and points; a joint's, driver's, force's or contact's numbers), each as
// a number or an expression of the design parameters (and of t where time is allowed); a design
// parameter's fields as the item schema lists them (value, unit, range, description). A right-click
// on a number offers Make Design Parameter. An edit is
// emitted with the field's path; the main window tries it on a copy and pushes it on the undo
// stack, or refuses it with the reason.
#pragma once

#include <QString>
#include <QWidget>

#include "mechanism/mechanism.h"

class QLabel;
class QMenu;
class QPushButton;
class QTableWidget;

namespace lw::widgets {

class PropertyEditor : public QWidget {
  Q_OBJECT
 public:
  explicit PropertyEditor(QWidget* parent = nullptr);
  /// The document (kept as a copy); the shown item keeps its path.
  void setMechanism(const Mechanism& m);
  /// Shows the fields under `path` ("bodies[2]"); empty shows a hint.
  void showItem(const QString& path);
  QString item() const { return path_; }
  QTableWidget* table() const { return table_; }
  /// The context menu of row `row` (Make Design Parameter on a number), as a right-click there
  /// offers it; the caller owns it (tests trigger its actions by object name).
  QMenu* contextMenuAt(int row);

 signals:
  /// A field edited: its full path ("bodies[2].mass") and the text typed.
  void edited(const QString& path, const QString& text);
  /// The shown joint, driver or force ("joints[3]", "drivers[0]", "forces[1]") is to be changed:
  /// its type and what it connects or acts on (its "Change..." button).
  void changeRequested(const QString& item);
  /// Make Design Parameter on a field's context menu: the literal number at `path` is to become a
  /// new design parameter.
  void makeParameterRequested(const QString& path);

 private:
  void refill();
  void fillParameter(std::size_t index);
  void showContextMenu(const QPoint& at);
  Mechanism m_;
  QString path_;
  QLabel* title_;
  QTableWidget* table_;
  QPushButton* change_;
  bool filling_ = false;
};

}  // namespace lw::widgets
