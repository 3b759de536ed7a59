// Sweeps in the window (issue 40): one or two design parameters over ranges, the variants run in
// the background on every core (engine/sweep) with progress and Stop; the chosen cost plotted
// against one parameter (a line, its exact gradient drawn as short tangents at the points) or two
// (a heat map with gradient arrows). A click on a point asks the window to make that variant the
// mechanism's design (one undoable edit).
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
class QMouseEvent;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace lw::sweep {
struct SweepResult;
}

namespace lw::widgets {

class SweepPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPanel(QWidget* parent = nullptr);
  ~SweepPanel() override;
  /// The mechanism swept (a snapshot): its literal parameters become the choices, their ranges
  /// (or ±20 % of their values) the defaults.
  void setMechanism(std::shared_ptr<const Mechanism> m);
  /// Another document: the last sweep and the choices dropped (a sweep running is stopped).
  void clear();
  /// The run each variant gets: the study's analysis, end and step.
  void setRun(bool kinematics, double tEnd, double dt);
  bool running() const { return running_; }
  /// The last sweep's rows (null before one).
  std::shared_ptr<const sweep::SweepResult> result() const { return result_; }
  /// The variant nearest to the plot's point (x: the first parameter; y: the cost for one
  /// parameter, the second parameter for two), or -1.
  int variantAt(double x, double y) const;
  /// The variant `row` of the last sweep chosen as the design (as a click on its point).
  void choose(int row);

  QComboBox* firstParameter() const { return first_; }
  QDoubleSpinBox* firstFrom() const { return from1_; }
  QDoubleSpinBox* firstTo() const { return to1_; }
  QSpinBox* firstPoints() const { return points1_; }
  QCheckBox* secondOn() const { return secondOn_; }
  QComboBox* secondParameter() const { return second_; }
  QDoubleSpinBox* secondFrom() const { return from2_; }
  QDoubleSpinBox* secondTo() const { return to2_; }
  QSpinBox* secondPoints() const { return points2_; }
  QComboBox* costChoice() const { return cost_; }
  QCheckBox* gradientsOn() const { return gradients_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* stopButton() const { return stop_; }
  QProgressBar* progress() const { return progress_; }
  QLabel* status() const { return status_; }
  QCustomPlot* plot() const { return plot_; }

 public slots:
  void run();
  void stop();

 signals:
  /// A variant was clicked: the window makes it the design (names, values), one undoable edit.
  void designChosen(const std::vector<std::string>& names, const std::vector<double>& values);
  void message(const QString& text);

 private:
  void parameterChosen(int which);
  void finish(std::shared_ptr<sweep::SweepResult> r, unsigned generation);
  void replot();
  void clicked(QMouseEvent* e);
  std::shared_ptr<const Mechanism> mechanism_;
  std::shared_ptr<const sweep::SweepResult> result_;
  bool kinematics_ = false;
  double tEnd_ = 1, dt_ = 1e-3;
  QComboBox *first_, *second_, *cost_;
  QDoubleSpinBox *from1_, *to1_, *from2_, *to2_;
  QSpinBox *points1_, *points2_;
  QCheckBox *secondOn_, *gradients_;
  QPushButton *run_, *stop_;
  QProgressBar* progress_;
  QLabel* status_;
  QCustomPlot* plot_;
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  unsigned generation_ = 0;
};

}  // namespace lw::widgets
