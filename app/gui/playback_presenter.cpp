#include "playback_presenter.h"

#include <algorithm>

#include "mechanism/resolved.h"
#include "panels/analysis_panel.h"
#include "plots/plot_panel.h"
#include "scene/scene_builder.h"
#include "view3d/scene_view.h"

namespace lw::app {

PlaybackPresenter::PlaybackPresenter(widgets::SceneView* scene, widgets::PlaybackBar* playback, widgets::PlotPanel* plots,
                                     QObject* parent)
    : QObject(parent), scene_(scene), playback_(playback), plots_(plots) {
  connect(playback_, &widgets::PlaybackBar::rowChanged, this, &PlaybackPresenter::showRow);
  connect(playback_, &widgets::PlaybackBar::showPathsChanged, this, [this] { showRow(playback_->currentRow()); });
  connect(playback_, &widgets::PlaybackBar::showVelocitiesChanged, this, [this] { showRow(playback_->currentRow()); });
}

void PlaybackPresenter::clear(bool resetPlots) {
  paths_.reset();
  velocityColumns_.reset();
  playback_->setResults(nullptr);
  if (resetPlots) plots_->reset();
  else plots_->setResults(nullptr);
}

void PlaybackPresenter::showResults(std::shared_ptr<const widgets::RunResults> results) {
  // keep the whole motion in view (unless the user has placed the camera), then play from row 0
  paths_.reset();
  velocityColumns_.reset();
  if (mechanism_ && results && results->rows > 0) {
    const ResolvedMechanism& m = *mechanism_;
    const std::size_t perRow = 12 * m.bodies.size();
    if (results->poses.size() >= results->rows * perRow) {
      if (scene_->fitsOnResize()) {
        std::vector<scene::SceneFrame> sample;
        const std::size_t samples = std::min<std::size_t>(results->rows, 60);
        for (std::size_t k = 0; k < samples; ++k) {
          const std::size_t row = samples > 1 ? k * (results->rows - 1) / (samples - 1) : 0;
          sample.push_back(scene::frameFromPoses(m, results->poses.data() + row * perRow, results->time(row)));
        }
        scene_->fitMotion(sample, sample.front());
      }
      paths_ = std::make_shared<const std::vector<scene::Path>>(scene::tracedPaths(m, results->poses.data(), results->rows));
    }
    auto columns = std::make_shared<std::vector<scene::PointColumns>>(scene::pointVelocityColumns(results->columns));
    velocityScale_ = scene::velocityArrowScale(*columns, results->values, results->columns.size());
    velocityColumns_ = std::move(columns);
  }
  plots_->setResults(results);
  playback_->setResults(std::move(results));
}

void PlaybackPresenter::showRow(int row) {
  const auto results = playback_->results();
  if (!results || !mechanism_ || row < 0 || static_cast<std::size_t>(row) >= results->rows) return;
  const std::size_t perRow = 12 * mechanism_->bodies.size();
  if (results->poses.size() < (static_cast<std::size_t>(row) + 1) * perRow) return;
  scene::SceneFrame frame = scene::frameFromPoses(*mechanism_, results->poses.data() + row * perRow,
                                                 results->time(static_cast<std::size_t>(row)));
  if (paths_ && playback_->showPaths()) frame.paths = *paths_;  // the view re-sends only changed paths
  if (velocityColumns_ && playback_->showVelocities())
    frame.arrows = scene::velocityArrows(*velocityColumns_, results->values.data() + row * results->columns.size(), velocityScale_);
  addImpactMarkers(frame, row);
  scene_->showFrame(frame);
}

void PlaybackPresenter::addImpactMarkers(scene::SceneFrame& frame, int row) const {
  // an impact flashes at its contact point for a tenth of a second of the motion: an orange arrow
  // along the contact's normal, shrinking as the flash fades
  constexpr double kFlash = 0.1;
  const auto results = playback_->results();
  const ResolvedMechanism& m = *mechanism_;
  const double t = results->time(static_cast<std::size_t>(row));
  const double* poses = results->poses.data() + static_cast<std::size_t>(row) * 12 * m.bodies.size();
  auto world = [&](int body, const Eigen::Vector3d& local, bool direction) {
    const double* p = poses + 12 * static_cast<std::size_t>(body);
    Eigen::Matrix3d R;
    R << p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8];
    Eigen::Vector3d w = R * local;
    if (!direction) w += Eigen::Vector3d(p[9], p[10], p[11]);
    return w;
  };
  const double size = 0.25 * m.lengthScale();
  for (const auto& e : results->events) {
    const double age = t - e.t;
    if (age < 0 || age > kFlash || e.kind == "opens") continue;  // a contact letting go strikes nothing
    for (const auto& name : e.contacts) {
      const auto c = std::find_if(m.contacts.begin(), m.contacts.end(), [&](const ResolvedMechanism::Contact& x) { return x.name == name; });
      if (c == m.contacts.end() || !c->point.valid() || !c->planeNormal.valid()) continue;
      const auto& pb = m.bodies[static_cast<std::size_t>(c->point.body)];
      const auto& nb = m.bodies[static_cast<std::size_t>(c->planeNormal.body)];
      const Eigen::Vector3d at = world(c->point.body, pb.points[static_cast<std::size_t>(c->point.index)], false);
      const Eigen::Vector3d n = world(c->planeNormal.body, nb.vectors[static_cast<std::size_t>(c->planeNormal.index)], true).normalized();
      scene::Arrow a;
      a.from = {at.x(), at.y(), at.z()};
      const double length = size * (1 - 0.6 * age / kFlash);
      a.vector = {n.x() * length, n.y() * length, n.z() * length};
      a.color = {1.0, 0.55, 0.0};
      frame.arrows.push_back(a);
    }
  }
}

}  // namespace lw::app
