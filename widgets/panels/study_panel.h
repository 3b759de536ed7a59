// The sensitivity study (issue 22): which costs, which design parameters (with their ranges), the
// analysis and the method; Run and Stop on a worker thread with progress (STYLE G12: the engine
// gets a snapshot, a progress callback and a cancel flag). The choices are the file's "study":
// the panel reports every change, the window stores it with the document.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mechanism/mechanism.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace lw::sens {
struct SensitivityResult;
}

namespace lw::widgets {

struct StudyHistories;

class StudyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StudyPanel(QWidget* parent = nullptr);
  ~StudyPanel() override;
  /// The mechanism studied (a snapshot) and its stored study: the choices are set from it.
  void setMechanism(std::shared_ptr<const Mechanism> m);
  /// The choices as they stand (the tuning fields are left as the mechanism had them).
  StudySettings settings() const;
  /// The parameters ticked (all of them when none is).
  std::vector<std::string> chosenParameters() const;
  std::vector<std::string> chosenCosts() const;
  bool running() const { return running_; }
  QListWidget* costList() const { return costs_; }
  QTableWidget* parameterTable() const { return parameters_; }
  QComboBox* analysisChoice() const { return analysis_; }
  /// The dynamics' formulation (matrix-r, penalty, index1, penalty-global as item data).
  QComboBox* formulationChoice() const { return formulation_; }
  QComboBox* methodChoice() const { return method_; }
  QDoubleSpinBox* endTime() const { return tEnd_; }
  QDoubleSpinBox* step() const { return dt_; }
  QPushButton* runButton() const { return run_; }

 public slots:
  void run();
  void stop();

 signals:
  void finished(std::shared_ptr<const sens::SensitivityResult> result);
  /// The direct method's sensitivity histories and the impacts (before `finished`).
  void historiesReady(std::shared_ptr<const StudyHistories> histories);
  /// A cost double-clicked: the window offers to change it.
  void costChangeRequested(const QString& name);
  /// A choice changed (the window stores the study with the document).
  void settingsChanged();
  /// A parameter's range typed in the Range column: its ends as typed (empty: no bound).
  void rangeEdited(const QString& parameter, const QString& min, const QString& max);
  void message(const QString& text);

 private:
  void finish(std::shared_ptr<sens::SensitivityResult> r, std::shared_ptr<StudyHistories> h, unsigned generation, double seconds);
  std::shared_ptr<const Mechanism> mechanism_;
  QListWidget* costs_;
  QTableWidget* parameters_;
  QComboBox *analysis_, *formulation_, *method_;
  QDoubleSpinBox *tEnd_, *dt_;
  QPushButton *run_, *stop_;
  QProgressBar* progress_;
  QLabel* status_;
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool running_ = false, filling_ = false;
  unsigned generation_ = 0;
};

}  // namespace lw::widgets
