// The sketch view (issue 5): a 2D editor for planar linkages on a Qt Graphics View. Tools place
// ground pivots, draw links between points (pins where they start or end on existing points), add
// coupler points on links, put a slider on a link's point, drive a grounded link and delete items; the Select tool drags points
// (the geometry changes, live) or the driven link (the mechanism moves, solved live by the modular
// kinematics, keeping its assembly branch). Grid and point snapping, zoom (wheel) and pan (middle
// button). The DOF count and the structural groups are always shown; links are coloured by group,
// and a sketch that is under- or over-constrained says so, with the bodies concerned in red.
//
// The view never changes the document itself: every edit is emitted as the whole mechanism after
// the edit (the main window checks it and pushes it on the undo stack).
#pragma once

#include <QGraphicsItem>
#include <QGraphicsView>
#include <QFont>
#include <QIcon>
#include <QRect>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "mechanism/mechanism.h"
#include "mechanism/resolved.h"
#include "mechanism/edits.h"
#include "topology/four_bar.h"

class QMenu;
class QTimer;

namespace lw::analysis {
class CrankDrag;
}

namespace lw::widgets {

class SketchView : public QGraphicsView {
  Q_OBJECT
 public:
  enum class Tool { Select, GroundPivot, Link, Point, Slider, Driver, Delete };

  explicit SketchView(QWidget* parent = nullptr);
  ~SketchView() override;

  /// Shows `m` (its resolved form may be null while the sketch does not resolve). The zoom stays
  /// (call fit() for a new document).
  void setMechanism(const Mechanism& m, std::shared_ptr<const ResolvedMechanism> resolved);
  void setTool(Tool t);
  /// Shows the listed bodies (ResolvedMechanism indices) normally and fades the others (the
  /// structure panel stepping through the groups); empty shows every body normally.
  void setHighlightedBodies(const std::vector<int>& bodies);
  /// Link lengths (a plate's edges) and binary links' angles written beside them.
  void setShowDimensions(bool on);
  bool showDimensions() const { return showDimensions_; }
  const std::vector<int>& highlightedBodies() const { return highlighted_; }
  Tool tool() const { return tool_; }

  /// What the banner says: "1 DOF, 1 driven — crank, RRR dyad" or the problem.
  QString summary() const { return summary_; }
  /// The banner shows a fault (red): what cannot run. Free freedoms are no fault (neutral).
  bool showsFault() const { return problem_ && !free_; }
  /// Four-bar loops whose transmission angle falls below this (degrees; 40 by default, as in the
  /// textbooks) are flagged in their line.
  void setTransmissionWarning(double degrees) {
    transmissionWarning_ = degrees;
    viewport()->update();
  }
  double transmissionWarning() const { return transmissionWarning_; }
  /// Where link ends lie on points without a joint (ringed red in the view).
  const std::vector<Eigen::Vector2d>& unjoinedPoints() const { return unjoined_; }
  /// Body poses currently shown (12 per body), e.g. after dragging the crank.
  const std::vector<double>& shownPoses() const { return poses_; }
  /// Scene position of a world point (metres), for tests driving the mouse.
  QPointF toScene(double x, double y) const { return {x, -y}; }
  /// Fits the sketch (or a 10 m square when empty) in the view.
  void fit();
  /// Turns the crank on its own (about a quarter turn per second); at a dead point it turns back,
  /// so a crank that cannot turn fully rocks between its limits.
  void setAnimating(bool on);
  bool animating() const;
  /// Reset Pose (Home): back to the drawn (stored) configuration from a turned or animated pose.
  void resetPose();
  /// The limits found while rocking (degrees), once the crank has met them.
  std::optional<std::pair<double, double>> rockingLimits() const { return rocking_; }
  /// The driven pin's angle shown (degrees, as the outputs measure it), 0 without a crank.
  double crankAngle() const;
  /// One line per four-bar loop: its Grashof type and transmission angle (now and extremes).
  QStringList fourBarLines() const;
  /// What is written over the drawing's top left (banner, group legend, four-bar lines), laid out
  /// once for painting and for fit(), which keeps the drawing below it.
  struct Overlay {
    QFont font;
    QRect banner;
    std::vector<std::pair<int, QString>> groups;     // each group's row: its top y and text
    std::vector<std::pair<QRect, QString>> lines;    // four-bar lines, wrapped in their area
    int bottom = 0;                                  // the overlay's lowest y
    bool collapsible = false, collapsed = false;     // collapsed: the banner alone
    bool warned = false;                             // collapsed over a transmission warning
  };
  Overlay overlay() const;
  int overlayHeight() const;
  /// Collapses the overlay to its banner (true), shows it all (false) or lets the view's height
  /// decide (nullopt, the default: collapsed when it would cover more than 30 % of the view). A
  /// click on the banner toggles it.
  void setOverlayCollapsed(std::optional<bool> collapsed);
  bool overlayCollapsed() const { return overlay().collapsed; }
  /// A link being drawn (Link tool, first end placed) ends `metres` from its start along the
  /// mouse's direction, as if typed and Enter pressed; false if no link is being drawn or the
  /// length is not a positive number.
  bool typeLinkLength(const QString& metres);

  // ---- Add Target Path (right-click a coupler point; sketch_targets.cpp) ----
  /// Starts clicking the positions `body`.`point` should pass through: each left click adds one,
  /// a target dragged moves, Del removes the last, Enter makes the targets cost, Esc cancels.
  void startTargetPath(const std::string& body, const std::string& point);
  bool targetPathActive() const { return targetPoint_.has_value(); }
  const std::vector<Eigen::Vector2d>& pendingTargets() const { return targets_; }
  /// Enter: the targets become a cost (an edit); false (with the reason) if they cannot.
  bool finishTargetPath();
  void cancelTargetPath();
  /// The context menu's actions at a view position, as a right-click there offers them (tests
  /// trigger them by object name: "ParameteriseLength", "AddTargetPath", "FinishTargetPath").
  QMenu* contextMenuAt(const QPoint& viewPos);

 signals:
  /// An edit: the whole mechanism after it, and what it did ("Add link link3").
  void edited(const lw::Mechanism& after, const QString& description);
  /// A hint or a refusal for the status bar.
  void message(const QString& text);
  void animatingChanged(bool on);

 protected:
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void drawBackground(QPainter* p, const QRectF& rect) override;
  void drawForeground(QPainter* p, const QRectF& rect) override;
  void resizeEvent(QResizeEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;
  bool event(QEvent* e) override;

 private:
  void rebuild();
  bool showDimensions_ = false;
  void updatePoses();
  void analyse();
  void updateCurves();
  Eigen::Vector2d world(const QPoint& viewPos) const;
  /// Snapped position and the point snapped to (within 10 px), if any.
  Eigen::Vector2d snap(const QPoint& viewPos, std::optional<edit::SketchPoint>* hit) const;
  /// The link under the mouse (within 6 px of its outline), if any.
  std::optional<std::string> bodyAt(const QPoint& viewPos) const;
  void emitEdit(const Mechanism& after, const edit::EditResult& r);
  std::vector<edit::SketchPoint> currentPoints() const;

  Mechanism m_;
  std::shared_ptr<const ResolvedMechanism> resolved_;
  Tool tool_ = Tool::Select;
  QString summary_;
  bool problem_ = false;
  bool free_ = false;
  std::optional<bool> overlayChoice_;  // the user's: collapsed or not (none: by the view's height)
  double transmissionWarning_ = 40;  // the only "problem" is free freedoms: they run under dynamics
  std::vector<Eigen::Vector2d> unjoined_;  // where link ends lie on points without a joint
  std::vector<topology::FourBarLoop> fourBars_;
  QString typedLength_;  // digits typed while a link is drawn
  bool placeTypedLength();
  QTimer* animation_ = nullptr;
  double direction_ = 1;                                // the animation's sense of turning
  std::optional<std::pair<double, double>> rocking_;   // limits met while animating (degrees)
  void animationTick();
  /// A drag of the driven crank, if the sketch has one to turn.
  bool ensureDrag();
  std::string crankName() const;          // empty without a crank to turn
  Eigen::Vector3d crankPivot() const;
  /// Turns the crank by delta from turned_, or as far as it goes (false: it met a dead point).
  bool turnBy(double delta);
  /// Finds unjoined_ and says so in the banner.
  void markUnjoined();

  std::vector<int> groupOfBody_;          // resolved body → group (−1: none)
  std::vector<QString> groupNames_;
  std::vector<int> problemBodies_;
  std::vector<int> highlighted_;          // empty: all bodies normal
  std::vector<double> poses_;             // shown configuration (12 per body)
  // the items that move with the configuration (updatePoses)
  std::vector<QGraphicsItem*> bodyItems_;  // by body (null: not drawn)
  struct PointItem {
    QGraphicsItem* item;
    int body, point;
  };
  std::vector<PointItem> pointItems_;
  struct JointItem {
    QGraphicsItem* item;
    int joint;
  };
  std::vector<JointItem> jointItems_;
  struct SpringItem {
    QGraphicsPathItem* item;
    int force;
  };
  std::vector<SpringItem> springItems_;
  /// A spring's zigzag between the world points of its two ends at the shown configuration.
  QPainterPath springPath(int force) const;
  std::vector<std::vector<Eigen::Vector3d>> curves_;
  std::unique_ptr<analysis::CrankDrag> drag_;
  // interaction state
  std::optional<edit::SketchPoint> linkStart_;
  std::optional<Eigen::Vector2d> linkStartAt_, rubberEnd_;
  std::optional<edit::SketchPoint> sliderOn_;  // Slider tool: the point pressed, until release
  QPoint sliderPress_;
  Eigen::Vector2d guideDirection(const QPoint& viewPos, Qt::KeyboardModifiers modifiers) const;
  double blockAngle(const ResolvedMechanism& r, std::size_t body) const;
  std::optional<edit::SketchPoint> moving_;   // point dragged (Select tool)
  Mechanism beforeMove_;
  /// m_ with the pose shown stored as its configuration (a turned crank's); false with the reason
  /// when a body that moved has a pose written as an expression.
  bool posedMechanism(Mechanism& out, QString& why) const;
  std::optional<Ref> targetPoint_;            // Add Target Path: the point, while its targets are clicked
  std::vector<Eigen::Vector2d> targets_;      // the targets clicked so far
  int movingTarget_ = -1;                     // a target being dragged
  // a target of the file's targets costs dragged with the Select tool: its cost and index
  std::optional<std::pair<std::size_t, std::size_t>> movingCostTarget_;
  /// The file's targets-cost target within 8 px of `viewPos` (cost index, target index), if any.
  std::optional<std::pair<std::size_t, std::size_t>> costTargetAt(const QPoint& viewPos) const;
  /// Index of the pending target within 8 px of `viewPos`, or −1.
  int targetAt(const QPoint& viewPos) const;
  bool targetPress(QMouseEvent* e);
  bool targetMove(QMouseEvent* e);
  bool targetRelease(QMouseEvent* e);
  bool targetKey(QKeyEvent* e);
  void paintTargets(QPainter* p);
  bool turning_ = false;                  // dragging the driven link
  double turnOffset_ = 0, lastMouseAngle_ = 0, turned_ = 0;
  bool panning_ = false;
  QPoint panFrom_;
  bool fitPending_ = true;  // fit once the view has its size (it may be on a hidden tab)
  bool fitted_ = true;      // the view is the last fit: it refits when resized, until the user zooms or pans
};

/// The toolbar icon of a sketch tool (drawn, so it matches the sketch's own symbols).
QIcon sketchToolIcon(SketchView::Tool t);

}  // namespace lw::widgets
