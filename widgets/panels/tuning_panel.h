// Tuning in the window (issue 22): a cost minimised (or driven to a target) over the study's
// parameters within their ranges by an optimiser of engine/optimize (NLopt, exact gradients), on
// a worker thread. A live plot of the cost and the gradient norm per evaluation; every better
// design is announced (the window redraws it); Stop keeps the best; Apply hands the best design
// to the window, which makes it one undoable edit.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mechanism/mechanism.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace lw::opt {
struct Evaluation;
struct OptimizeResult;
}

namespace lw::widgets {

class TuningPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TuningPanel(QWidget* parent = nullptr);
  ~TuningPanel() override;
  /// The mechanism tuned (a snapshot) and its stored tuning choices.
  void setMechanism(std::shared_ptr<const Mechanism> m);
  /// The study's choices the tuning follows: the parameters (empty: every one with a range),
  /// the analysis, the run's end and step.
  void setStudy(const std::vector<std::string>& parameters, bool kinematics, double tEnd, double dt);
  /// `s` with the tuning's choices written in.
  void writeSettings(StudySettings& s) const;
  bool running() const { return running_; }
  /// The best design of the last run (empty before one).
  const std::vector<std::string>& bestNames() const { return names_; }
  const std::vector<double>& bestValues() const { return best_; }
  /// Evaluations received so far in this run, and the longest gap between UI updates.
  int evaluations() const { return static_cast<int>(costs_.size()); }
  QComboBox* costChoice() const { return cost_; }
  QComboBox* algorithmChoice() const { return algorithm_; }
  QSpinBox* maxEvaluations() const { return maxEvaluations_; }
  QCheckBox* targetOn() const { return targetOn_; }
  QDoubleSpinBox* target() const { return target_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* applyButton() const { return apply_; }
  QCustomPlot* plot() const { return plot_; }
  QLabel* status() const { return status_; }
  /// The constraints: name, expression of parameters, min, max (an empty bound: none).
  QTableWidget* constraintTable() const { return constraints_; }
  /// The constraints as entered; false with the row and the reason when one cannot be read.
  bool readConstraints(std::vector<TuningConstraint>& out, QString& why) const;
  /// Adds a constraint row (the Add button; tests fill it in).
  void addConstraintRow(const QString& name = {}, const QString& expression = {}, const QString& min = {}, const QString& max = {});
  /// Adds (or replaces, by name) every four-bar loop's limits: the input turns fully (`turns`)
  /// and/or the transmission angle within [deg, 180 − deg] (`minTransmissionDeg` > 0). False with
  /// the reason when the mechanism has no four-bar loop.
  bool addFourBarLimits(bool turns, double minTransmissionDeg, QString& why);
  QPushButton* fourBarButton() const { return fourBar_; }

 public slots:
  void run();
  void stop();

 signals:
  /// Tune was pressed: the run starts.
  void tuningStarted();
  /// A better design was found (names, values): the window shows it, nothing is committed.
  void designImproved(const std::vector<std::string>& names, const std::vector<double>& values);
  /// The run ended (the best design stays shown until Apply or another edit).
  void tuningFinished(bool improved);
  /// Apply: the window makes the best design one undoable edit.
  void applyRequested(const std::vector<std::string>& names, const std::vector<double>& values);
  void settingsChanged();
  void message(const QString& text);

 private:
  void received(const opt::Evaluation& e, unsigned generation);
  void finish(std::shared_ptr<opt::OptimizeResult> r, unsigned generation);
  void replot();
  std::shared_ptr<const Mechanism> mechanism_;
  std::vector<std::string> parameters_;
  bool kinematics_ = false;
  double tEnd_ = 1, dt_ = 0.01;
  QComboBox *cost_, *algorithm_;
  QSpinBox* maxEvaluations_;
  QCheckBox* targetOn_;
  QDoubleSpinBox* target_;
  QPushButton *run_, *stop_, *apply_, *fourBar_;
  QTableWidget* constraints_;
  QLabel* status_;
  QCustomPlot* plot_;
  QTimer* replotTimer_;
  QString progressText_;  // the last evaluation, shown with the next replot
  std::vector<double> costs_, norms_;
  std::vector<std::string> names_;
  std::vector<double> best_;
  double bestCost_ = 0, initialCost_ = 0;
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool running_ = false, filling_ = false, dirty_ = false;
  unsigned generation_ = 0;
};

}  // namespace lw::widgets
