// The playback presenter (issue 24 structure): a run's results shown in the window — the camera
// fitted to the whole motion (unless the user placed it), the traced paths and velocity arrows
// computed once, the plots and the playback bar given the results, and each playback row drawn in
// the 3D view. The main window owns one; it holds no document state of its own.
#pragma once

#include <QObject>
#include <memory>
#include <vector>

namespace lw {
struct ResolvedMechanism;
}
namespace lw::scene {
struct Path;
struct SceneFrame;
struct PointColumns;
}  // namespace lw::scene
namespace lw::widgets {
class PlaybackBar;
class PlotPanel;
class SceneView;
struct RunResults;
}  // namespace lw::widgets

namespace lw::app {

class PlaybackPresenter : public QObject {
  Q_OBJECT
 public:
  PlaybackPresenter(widgets::SceneView* scene, widgets::PlaybackBar* playback, widgets::PlotPanel* plots, QObject* parent);
  /// The mechanism the next results belong to (null: none).
  void setMechanism(std::shared_ptr<const ResolvedMechanism> m) { mechanism_ = std::move(m); }
  /// Shows a run: camera, paths, arrows, plots, playback from row 0.
  void showResults(std::shared_ptr<const widgets::RunResults> results);
  /// No results (another document, an edit: the old run no longer describes the mechanism).
  /// `resetPlots`: the plot's columns, filter and axes too (another document).
  void clear(bool resetPlots = false);
  /// Draws playback row `row` in the 3D view.
  void showRow(int row);

 private:
  /// The impacts of the last tenth of a second before `row`'s time, as arrows at their contact points.
  void addImpactMarkers(scene::SceneFrame& frame, int row) const;
  widgets::SceneView* scene_;
  widgets::PlaybackBar* playback_;
  widgets::PlotPanel* plots_;
  std::shared_ptr<const ResolvedMechanism> mechanism_;
  std::shared_ptr<const std::vector<scene::Path>> paths_;  // traced over the shown run
  std::shared_ptr<const std::vector<scene::PointColumns>> velocityColumns_;
  double velocityScale_ = 0;  // arrow length per unit speed for the shown run
};

}  // namespace lw::app
