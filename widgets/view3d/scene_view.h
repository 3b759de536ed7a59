// SceneView: the 3D view of a mechanism. Maps the plain-data lw::scene::SceneModel (shapes,
// built once) and lw::scene::SceneFrame (poses, changing every frame) onto VTK actors.
// Planar models (dimension 2) are drawn as stacked layers (ground at the back) seen down -Z
// with a parallel projection; spatial models from an isometric direction, Y up.
#pragma once

#include "view3d/vtk_host_widget.h"

#include <QPointF>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace lw::scene {
struct SceneModel;
struct SceneFrame;
}  // namespace lw::scene

namespace lw::widgets {

class SceneView : public VtkHostWidget {
  Q_OBJECT

 public:
  explicit SceneView(QWidget* parent = nullptr);
  ~SceneView() override;

  /// Replaces the scene: builds one actor per body (its primitives in the body frame), one
  /// glyph per joint, one coil per spring, then shows `frame`; refits the camera unless the
  /// user has moved it since the last fit.
  /// Cost: proportional to the geometry; call once per compiled model.
  void setScene(const scene::SceneModel& model, const scene::SceneFrame& frame);

  /// Moves the existing actors to `frame` (body poses, joint and spring placements, paths) and
  /// schedules a repaint. Builds no actors (except the first time a path index appears), so it
  /// is cheap enough for 60 fps playback. Arrays shorter than the model's leave the rest as is.
  void showFrame(const scene::SceneFrame& frame);

  /// Where the camera looks from, with the screen's up against gravity (SceneModel::up): the
  /// front (planar: onto the drawing plane), the top, the side (from +x when y or z is up), or
  /// isometric between the three.
  enum class StandardView { Front, Top, Side, Iso };
  /// Fits the camera to the scene from the model's default view: planar models onto their
  /// plane with a parallel projection, spatial ones isometric in perspective. The fit is kept
  /// through resizes until the user turns or zooms the view.
  void resetCamera();
  /// Fits the camera from `view` (kept through edits and resizes until the next reset).
  void setStandardView(StandardView view);
  [[nodiscard]] StandardView standardView() const { return view_; }
  /// The camera's view-up and direction of projection (world), for tests.
  [[nodiscard]] std::array<double, 3> viewUp() const;
  [[nodiscard]] std::array<double, 3> viewDirection() const;

  /// Fits the camera so that the bodies stay in view through all of `frames` (a sample of a
  /// motion), then shows `current`. The envelope is kept for later fits until the next setScene.
  void fitMotion(const std::vector<scene::SceneFrame>& frames, const scene::SceneFrame& current);

  /// Shows the listed bodies (ResolvedMechanism indices) normally and fades the other moving
  /// bodies; an empty list shows every body normally. The ground stays as it is.
  void setHighlightedBodies(const std::vector<int>& bodies);

  /// Removes every actor of the scene (the view shows the background only).
  void clear();

  [[nodiscard]] bool hasScene() const;
  /// True until the user turns or zooms the view after the last fit.
  [[nodiscard]] bool fitsOnResize() const { return fitOnResize_; }

  /// Shows or hides the reference grid and origin axes (shown by default).
  void setGridVisible(bool visible);

  /// Where the world point p_W appears, in widget (logical) pixels, origin top left.
  [[nodiscard]] QPointF projectToWidget(const std::array<double, 3>& p_W) const;

  /// What is under widget position `pos`: a body (ResolvedMechanism index) or a joint, or nothing.
  struct Pick {
    enum class Kind { None, Body, Joint } kind = Kind::None;
    int index = -1;
    std::array<double, 3> position{0, 0, 0};  // the picked world point (stored configuration at rest)
  };
  /// `jointsOnly`: the joint glyphs alone (seen through the bodies), as Shift + drag picks.
  [[nodiscard]] Pick pickAt(const QPoint& pos, bool jointsOnly = false);

  /// The world point under widget position `pos` on the plane through `through` that faces the
  /// camera (planar models: the drawing plane), or nothing when the view ray misses it.
  [[nodiscard]] std::optional<std::array<double, 3>> pointOnViewPlane(const QPointF& pos, const std::array<double, 3>& through) const;

  /// A handle Shift + drag moves: a body's point (blue), or the tip of one of its axes (green, on
  /// a stem from `base`).
  struct Handle {
    std::array<double, 3> at{0, 0, 0};
    bool axis = false;
    std::array<double, 3> base{0, 0, 0};
  };
  /// Shows `handles` (the selected body's points and axes); empty removes them.
  void setHandles(const std::vector<Handle>& handles);
  [[nodiscard]] int handleCount() const;
  /// The actors drawing the bodies and joints: one each, or one per shape when the mechanism is
  /// large enough to draw them as instances (thousands of parts).
  [[nodiscard]] int partActorCount() const;
  /// Arrows drawn in the last frame (velocities, impact markers).
  [[nodiscard]] int arrowsShown() const;

  /// Marks the selected item (a body glows, a joint's glyph grows); Kind::None clears it. Kept
  /// through setScene.
  void setSelection(Pick::Kind kind, int index);
  [[nodiscard]] Pick::Kind selectedKind() const { return selectedKind_; }
  [[nodiscard]] int selectedIndex() const { return selectedIndex_; }

 signals:
  /// A click (press and release without dragging) on a body or a joint: select it for editing.
  void picked(lw::widgets::SceneView::Pick what);
  /// A right click (not a zoom drag) on a body or joint: the window offers what can be done there.
  void contextPicked(lw::widgets::SceneView::Pick what, const QPoint& globalPos);
  /// Shift + drag on a point handle or a joint moves it (the camera stays): started on handle
  /// `handle` or on `joint`, the mouse at `pos`, then released (or cancelled with Escape).
  void handleDragStarted(int handle);
  void jointDragStarted(int joint);
  void dragMoved(const QPoint& pos);
  void dragFinished(bool cancelled);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  // Until the user moves the camera, a resize (docks opening, the window first shown) refits
  // the view: a fit made at another aspect ratio crops the mechanism.
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> s_;
  void applySelection();
  int handleAt(const QPoint& pos);
  // picking among instanced bodies and joints (display coordinates in device pixels)
  Pick pickInstance(double x, double y, bool jointsOnly);
  /// Fits the camera to the scene from the current standard view.
  void fitCamera();
  bool fitOnResize_ = true;
  StandardView view_ = StandardView::Front;
  bool viewChosen_ = false;  // by setStandardView; else the model's default view
  QPoint pressPos_;  // to tell a click (pick) from a camera drag
  bool dragging_ = false;
  Pick::Kind selectedKind_ = Pick::Kind::None;
  int selectedIndex_ = -1;
};

}  // namespace lw::widgets
