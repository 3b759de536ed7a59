// The model tree: every item of a mechanism by kind (bodies with their points and vectors,
// joints, drivers, forces, contacts, parameters, outputs, costs), with a one-line summary each.
#pragma once

#include <QTreeWidget>

namespace lw {
struct Mechanism;
}

namespace lw::widgets {

class ModelTree : public QTreeWidget {
  Q_OBJECT
 public:
  explicit ModelTree(QWidget* parent = nullptr);
  /// Rebuilds the tree (cheap: a few hundred items for the largest samples).
  void setMechanism(const Mechanism& m);
  void clearMechanism();
  /// Selects the item with JSON path `path` ("bodies[2]", "joints[0]") and says so (itemSelected).
  void selectPath(const QString& path);

 signals:
  /// The JSON path of the selected item ("bodies[2]", "ground.points.A"); empty for a heading.
  void itemSelected(const QString& path);
};

}  // namespace lw::widgets
