// The structural diagram (teaching): the structural groups of the mechanism as nodes in solve
// order, each with its name, class and bodies, arrows from the groups (or the frame) it needs.
// Stepping through the solve order selects one group at a time; the main window highlights its
// bodies in the 3D view.
#pragma once

#include <QWidget>
#include <string>
#include <vector>

class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QToolButton;

namespace lw::widgets {

/// What the diagram shows, as plain data (the panel does not run the decomposition).
struct StructureDiagram {
  struct Group {
    std::string name;                 // "crank", "RRR dyad", ...
    std::string kind;                 // "primary element", "Assur group class III", ...
    std::vector<std::string> bodies;  // body names
    std::vector<int> bodyIndices;     // for highlighting
    std::vector<int> inputs;          // earlier groups it needs; -1 = the frame
  };
  bool ok = false;
  bool pending = false;  // being analysed (a large mechanism, on a worker): shown when done
  std::string error;  // why the mechanism cannot be decomposed
  int dof = 0;
  std::vector<Group> groups;  // in solve order
};

class StructurePanel : public QWidget {
  Q_OBJECT
 public:
  explicit StructurePanel(QWidget* parent = nullptr);
  void setDiagram(StructureDiagram d);
  /// -1 = no group selected (the whole mechanism shown normally).
  int currentGroup() const { return current_; }
  QGraphicsScene* scene() const { return scene_; }

 public slots:
  void selectGroup(int index);
  void next();
  void previous();

 signals:
  /// Bodies of the selected group (empty: none selected).
  void highlightBodies(const std::vector<int>& bodies);

 private:
  void redraw();
  StructureDiagram d_;
  int current_ = -1;
  QLabel* summary_;
  QGraphicsScene* scene_;
  QGraphicsView* view_;
  QToolButton *prev_, *next_, *all_;
};

}  // namespace lw::widgets
