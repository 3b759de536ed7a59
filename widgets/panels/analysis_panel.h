// Runs a kinematic or dynamic analysis of a snapshot of the mechanism on a worker thread
// (STYLE G12: the engine gets the snapshot, a progress callback and a cancel flag; only this panel
// touches Qt), and a playback bar that turns the results into scene frames.
#pragma once

#include <QElapsedTimer>
#include <QWidget>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "events/event_log.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QTimer;
class QToolButton;
class QCheckBox;

namespace lw {
struct ResolvedMechanism;
struct Mechanism;
}

namespace lw::widgets {

/// What a finished run leaves for playback and plots.
struct RunResults {
  std::vector<std::string> columns;
  std::vector<std::string> units;  // SI, by column (analysis::columnUnits); plots show angles in degrees
  std::vector<double> values;  // row-major
  std::vector<double> poses;   // 12 per body per row
  std::size_t rows = 0;
  bool ok = true;
  std::string message;         // the engine's message when it stopped early
  std::vector<std::string> warnings;  // what the run cannot vouch for (an inaccurate pass of a singular position, ...)
  std::vector<events::EventRecord> events;  // the impacts (two frames at each: just before, just after)
  double time(std::size_t row) const { return values[row * columns.size()]; }
};

class AnalysisPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AnalysisPanel(QWidget* parent = nullptr);
  ~AnalysisPanel() override;
  /// The mechanism the next run analyses (a snapshot: edits never reach a running job).
  /// `source`: the Mechanism `m` was resolved from (a snapshot): a dynamics run then writes its
  /// outputs by name and evaluates its costs.
  void setMechanism(std::shared_ptr<const ResolvedMechanism> m, double tEnd, double dt, std::shared_ptr<const Mechanism> source = {});
  bool running() const { return running_; }
  QComboBox* analysisChoice() const { return choice_; }
  /// What the panel says of the last run ("Done: ...", "Stopped: <reason> ...").
  QString statusText() const;
  QDoubleSpinBox* endTime() const { return tEnd_; }
  QDoubleSpinBox* step() const { return dt_; }
  QDoubleSpinBox* rowsEvery() const { return outputDt_; }

 public slots:
  void run();
  void stop();

 signals:
  void finished(std::shared_ptr<const RunResults> results);
  void message(const QString& text);
  /// The user changed the end time or the step (stored in the file: the document is modified);
  /// not emitted when a mechanism's own values are shown.
  void spanEdited(double tEnd, double dt);

 private:
  void finish(std::shared_ptr<RunResults> r, unsigned generation);
  bool showing_ = false;  // setMechanism is filling the fields
  std::shared_ptr<const ResolvedMechanism> mechanism_;
  std::shared_ptr<const Mechanism> source_;
  QComboBox* choice_;
  QDoubleSpinBox *tEnd_, *dt_, *outputDt_;
  QPushButton *run_, *stop_;
  QProgressBar* progress_;
  QLabel* status_;
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  unsigned generation_ = 0;  // results of a run started before the last setMechanism are dropped
};

/// Play, pause, scrub, speed and loop over the rows of a result.
class PlaybackBar : public QWidget {
  Q_OBJECT
 public:
  explicit PlaybackBar(QWidget* parent = nullptr);
  void setResults(std::shared_ptr<const RunResults> r);
  std::shared_ptr<const RunResults> results() const { return results_; }
  int currentRow() const;
  bool playing() const;
  /// Whether the scene shows the paths traced over the run (coupler curves).
  bool showPaths() const;
  /// Whether the scene shows velocity arrows.
  bool showVelocities() const;

 public slots:
  void play();
  void pause();
  void showRow(int row);

 signals:
  void rowChanged(int row);
  /// Playing or scrubbing (frames follow each other quickly), or still again.
  void animatingChanged(bool animating);
  void showPathsChanged(bool show);
  void showVelocitiesChanged(bool show);

 private:
  void tick();
  std::shared_ptr<const RunResults> results_;
  QToolButton* playButton_;
  QSlider* slider_;
  QLabel* time_;
  QComboBox* speed_;
  QCheckBox* loop_;
  QCheckBox* paths_;
  QCheckBox* velocities_;
  QTimer* timer_;
  double playTime_ = 0;
  QElapsedTimer sinceTick_;  // playback runs on the wall clock: a slow frame skips rows, never slows the motion
};

}  // namespace lw::widgets
