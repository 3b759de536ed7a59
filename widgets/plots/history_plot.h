// Sensitivity time histories with impacts (issue 22): any output component's sensitivity to any
// parameter against time, from a study's direct method; every impact a dashed vertical marker
// named by its contact, and the jump of the sensitivity there drawn as a bold vertical segment
// from the value just before to the value just after (the impact-jump plot). Beside it the event
// log (time, contact, normal velocities, energies before and after, dt/dρ); a click on a row asks
// for playback at that impact. qcustomplot.h stays in the .cpp.
#pragma once

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "sensitivity/sensitivity.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace lw::widgets {

/// What a study's direct method leaves for the plot: the rows of sensitivity histories (time,
/// every output component, then d(component)/d(parameter)), possibly thinned out between
/// impacts, and the impacts with their sensitivities.
struct StudyHistories {
  std::vector<std::string> columns;
  std::vector<double> values;  // row-major
  std::vector<std::string> outputs, parameters;
  std::vector<sens::ImpactSensitivity> impacts;
  std::size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
};

class HistoryPlot : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryPlot(QWidget* parent = nullptr);
  void setHistories(std::shared_ptr<const StudyHistories> h);
  void clear();
  /// A jump as drawn: at time t the sensitivity goes from `before` to `after`.
  struct Jump {
    double t, before, after;
  };
  const std::vector<Jump>& jumps() const { return jumps_; }
  /// Shows d(output)/d(parameter) (names as in the study); false if either is unknown.
  bool show(const QString& output, const QString& parameter);
  QComboBox* outputChoice() const { return output_; }
  QComboBox* parameterChoice() const { return parameter_; }
  QTableWidget* eventTable() const { return events_; }
  QCustomPlot* plot() const { return plot_; }

 signals:
  /// A row of the event log was clicked: show the motion at time t.
  void timeRequested(double t);

 private:
  void redraw();
  void fillEvents();
  std::shared_ptr<const StudyHistories> h_;
  std::vector<Jump> jumps_;
  QComboBox *output_, *parameter_;
  QLabel* summary_;
  QCustomPlot* plot_;
  QTableWidget* events_;
};

}  // namespace lw::widgets
