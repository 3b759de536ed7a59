// The main window's sensitivity study and tuning (issue 22): the Study and Tuning docks beside
// the analysis, the Gradients dock beside the plots, the study kept with the document, the
// tuning's designs drawn as they improve and Apply as one undoable edit.
#include <QDateTime>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QComboBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStyle>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "main_window.h"
#include "live_gradients.h"
#include "simulation/assembly.h"
#include "document.h"
#include "panels/parameters_panel.h"
#include "panels/cost_dialog.h"
#include "panels/model_tree.h"
#include "mechanism/parameters.h"
#include "mechanism/resolved.h"
#include "optimize/optimize.h"
#include "panels/study_panel.h"
#include "panels/tuning_panel.h"
#include "panels/sweep_panel.h"
#include "plots/gradient_plot.h"
#include "plots/history_plot.h"
#include "panels/analysis_panel.h"
#include "plots/plot_panel.h"
#include "scene/scene_builder.h"
#include "sensitivity/sensitivity.h"
#include "sketch/sketch_view.h"

namespace lw::app {
namespace {
bool sameConstraints(const std::vector<TuningConstraint>& a, const std::vector<TuningConstraint>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].expression.text() != b[i].expression.text() || a[i].hasMin != b[i].hasMin ||
        a[i].hasMax != b[i].hasMax || (a[i].hasMin && a[i].min != b[i].min) || (a[i].hasMax && a[i].max != b[i].max))
      return false;
  return true;
}
}  // namespace

void MainWindow::createStudyDocks() {
  auto* analysisDock = findChild<QDockWidget*>("AnalysisDock");
  auto* plotDock = findChild<QDockWidget*>("PlotsDock");
  study_ = new widgets::StudyPanel(this);
  auto* studyDock = new QDockWidget(tr("Study"), this);
  studyDock->setObjectName("StudyDock");
  studyDock->setWidget(study_);
  addDockWidget(Qt::RightDockWidgetArea, studyDock);
  tabifyDockWidget(analysisDock, studyDock);
  tuning_ = new widgets::TuningPanel(this);
  auto* tuningDock = new QDockWidget(tr("Tuning"), this);
  tuningDock->setObjectName("TuningDock");
  tuningDock->setWidget(tuning_);
  addDockWidget(Qt::RightDockWidgetArea, tuningDock);
  tabifyDockWidget(analysisDock, tuningDock);
  sweep_ = new widgets::SweepPanel(this);
  auto* sweepDock = new QDockWidget(tr("Sweep"), this);
  sweepDock->setObjectName("SweepDock");
  sweepDock->setWidget(sweep_);
  addDockWidget(Qt::RightDockWidgetArea, sweepDock);
  tabifyDockWidget(analysisDock, sweepDock);
  analysisDock->raise();
  gradients_ = new widgets::GradientPlot(this);
  auto* gradientDock = new QDockWidget(tr("Gradients"), this);
  gradientDock->setObjectName("GradientsDock");
  gradientDock->setWidget(gradients_);
  addDockWidget(Qt::BottomDockWidgetArea, gradientDock);
  tabifyDockWidget(plotDock, gradientDock);
  histories_ = new widgets::HistoryPlot(this);
  auto* historyDock = new QDockWidget(tr("Sensitivities"), this);
  historyDock->setObjectName("SensitivitiesDock");
  historyDock->setWidget(histories_);
  addDockWidget(Qt::BottomDockWidgetArea, historyDock);
  tabifyDockWidget(plotDock, historyDock);
  plotDock->raise();
  connect(study_, &widgets::StudyPanel::historiesReady, this, [this, historyDock](std::shared_ptr<const widgets::StudyHistories> h) {
    histories_->setHistories(h);
    // a run through impacts: the jumps are the news
    if (!h->impacts.empty()) QTimer::singleShot(0, historyDock, [historyDock] {
      historyDock->show();
      historyDock->raise();
    });
  });
  // an impact clicked in the log: the motion there, if a run of it is shown
  connect(histories_, &widgets::HistoryPlot::timeRequested, this, [this](double t) {
    const auto results = playback_->results();
    if (!results || results->rows == 0) {
      statusBar()->showMessage(tr("Run the analysis (Analysis panel) to see the motion at t = %1 s").arg(t), 8000);
      return;
    }
    std::size_t row = 0;
    for (std::size_t r = 0; r < results->rows; ++r)
      if (std::abs(results->time(r) - t) < std::abs(results->time(row) - t)) row = r;
    playback_->pause();
    playback_->showRow(static_cast<int>(row));
    views_->setCurrentWidget(scene_);
  });

  auto report = [this](const QString& text) {
    log(text);
    statusBar()->showMessage(text, 8000);
  };
  connect(study_, &widgets::StudyPanel::message, this, report);
  connect(tuning_, &widgets::TuningPanel::message, this, report);
  connect(sweep_, &widgets::SweepPanel::message, this, report);
  connect(sweep_, &widgets::SweepPanel::designChosen, this, [this](const std::vector<std::string>& names, const std::vector<double>& values) {
    applyDesign(names, values, tr("Make the swept variant the design"));
  });
  connect(study_, &widgets::StudyPanel::settingsChanged, this, &MainWindow::storeStudy);
  connect(study_, &widgets::StudyPanel::costChangeRequested, this, [this](const QString& name) { changeCost(name); });
  connect(study_, &widgets::StudyPanel::rangeEdited, this, [this](const QString& name, const QString& min, const QString& max) {
    for (std::size_t i = 0; i < mechanism_->parameters.size(); ++i)
      if (mechanism_->parameters[i].name == name.toStdString()) editParameterFields(static_cast<int>(i), {{"min", min}, {"max", max}});
  });
  connect(tuning_, &widgets::TuningPanel::settingsChanged, this, &MainWindow::storeStudy);
  connect(study_->endTime(), &QDoubleSpinBox::valueChanged, this, &MainWindow::storeStudy);
  connect(study_->step(), &QDoubleSpinBox::valueChanged, this, &MainWindow::storeStudy);
  // a study's gradients: the bars, with the parameters' values for the relative view
  connect(study_, &widgets::StudyPanel::finished, this, [this, gradientDock](std::shared_ptr<const sens::SensitivityResult> r) {
    std::vector<double> values;
    Diagnostics d;
    if (const auto table = ParameterTable::build(*mechanism_, d))
      for (const auto& name : r->parameters) {
        const int k = table->find(name);
        values.push_back(k >= 0 ? table->values()[static_cast<std::size_t>(k)] : 0.0);
      }
    gradients_->setResult(r, std::move(values));
    if (r->impacts.empty()) {
      gradientDock->show();
      gradientDock->raise();
    }
  });
  connect(tuning_, &widgets::TuningPanel::designImproved, this, &MainWindow::previewDesign);
  connect(tuning_, &widgets::TuningPanel::tuningStarted, this, [this] {
    if (mechanism_->dimension == 2 && views_->currentWidget() == scene_) views_->setCurrentWidget(sketch_);
  });
  connect(tuning_, &widgets::TuningPanel::tuningFinished, this, [this](bool improved) {
    scene_->setAnimating(false);
    if (improved) statusBar()->showMessage(tr("The views show the tuned design: Apply (Tuning panel) keeps it, any edit returns to the mechanism"), 10000);
  });
  connect(tuning_, &widgets::TuningPanel::applyRequested, this, &MainWindow::applyTunedDesign);
  // teaching: a parameter's slider redraws the design and its gradients as it moves
  live_ = new LiveGradients(this);
  connect(parameters_, &widgets::ParametersPanel::valuePreviewed, this, &MainWindow::previewParameter);
  connect(live_, &LiveGradients::ready, this,
          [this](const QString& cost, double value, const std::vector<double>& gradient, const QString& note) {
            parameters_->setGradients(cost, value, gradient);
            if (!note.isEmpty()) parameters_->costLabel()->setText(note);
          });

}

void MainWindow::previewParameter(int index, double value) {
  sliderPreview_.index = index;
  sliderPreview_.value = value;
  if (sliderPreview_.scheduled) return;
  sliderPreview_.scheduled = true;
  QTimer::singleShot(0, this, &MainWindow::drawPreviewedParameter);
}

void MainWindow::drawPreviewedParameter() {
  sliderPreview_.scheduled = false;
  ++previewsTried_;
  const int index = sliderPreview_.index;
  if (!mechanism_ || index < 0 || static_cast<std::size_t>(index) >= mechanism_->parameters.size()) return;
  auto preview = std::make_shared<Mechanism>(*mechanism_);
  preview->parameters[static_cast<std::size_t>(index)].value = Number(sliderPreview_.value);
  const analysis::AssemblyResult closed = analysis::closeOpenedJoints(*mechanism_, *preview);
  Diagnostics d;
  auto r = closed.ok ? resolve(*preview, d) : std::nullopt;
  if (!r) {
    statusBar()->showMessage(tr("%1 = %2: %3")
                                 .arg(QString::fromStdString(mechanism_->parameters[static_cast<std::size_t>(index)].name))
                                 .arg(sliderPreview_.value)
                                 .arg(closed.ok ? tr("the mechanism is not valid there") : QString::fromStdString(closed.error)),
                             4000);
    return;
  }
  auto resolved = std::make_shared<const ResolvedMechanism>(std::move(*r));
  sketch_->setMechanism(*preview, resolved);
  if (views_->currentWidget() == scene_) {
    scene_->setAnimating(true);  // quick frames while dragging; smoothed again by the edit at release
    scene_->setScene(scene::buildSceneModel(*resolved), scene::storedConfigurationFrame(*resolved));
  }
  live_->request(preview);
  ++previewsDrawn_;
}

void MainWindow::createAnalysisMenu() {
  QMenu* menu = menuBar()->addMenu(tr("&Analysis"));
  auto raise = [this](const char* dock) {
    if (auto* d = findChild<QDockWidget*>(dock)) {
      d->show();
      d->raise();
    }
  };
  auto add = [&](const QString& text, QStyle::StandardPixmap icon, const QKeySequence& key, const QString& tip, const char* name,
                 std::function<void()> run) {
    QAction* a = menu->addAction(style()->standardIcon(icon), text, this, std::move(run));
    a->setShortcut(key);
    a->setToolTip(tip);
    a->setStatusTip(tip);
    a->setObjectName(name);
    return a;
  };
  add(tr("&Run Analysis"), QStyle::SP_MediaPlay, QKeySequence(Qt::CTRL | Qt::Key_R),
      tr("Run the kinematic or dynamic analysis chosen in the Analysis panel"), "RunAnalysis", [this, raise] {
        raise("AnalysisDock");
        analysis_->run();
      });
  add(tr("Run &Study"), QStyle::SP_MediaPlay, QKeySequence(Qt::CTRL | Qt::Key_G),
      tr("Compute the gradients of the costs ticked in the Study panel"), "RunStudy", [this, raise] {
        raise("StudyDock");
        study_->run();
      });
  add(tr("&Tune"), QStyle::SP_BrowserReload, QKeySequence(Qt::CTRL | Qt::Key_T),
      tr("Tune the ticked parameters within their ranges to minimise the Tuning panel's cost"), "RunTuning", [this, raise] {
        raise("TuningDock");
        tuning_->run();
      });
  add(tr("S&weep"), QStyle::SP_MediaSeekForward, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W),
      tr("Run the Sweep panel's variants: a cost over one or two parameters, with its exact gradients"), "RunSweep", [this, raise] {
        raise("SweepDock");
        sweep_->run();
      });
  add(tr("&Apply Tuned Design"), QStyle::SP_DialogApplyButton, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T),
      tr("Make the best design of the last tuning the mechanism's (Ctrl+Z undoes)"), "ApplyTuning", [this] {
        if (!tuning_->bestValues().empty()) applyTunedDesign(tuning_->bestNames(), tuning_->bestValues());
      });
  add(tr("Sto&p"), QStyle::SP_MediaStop, QKeySequence(Qt::CTRL | Qt::Key_Period), tr("Stop the analysis, study or tuning running"),
      "StopJobs", [this] {
        analysis_->stop();
        study_->stop();
        tuning_->stop();
        sweep_->stop();
      });
  menu->addSeparator();
  add(tr("Add &Cost..."), QStyle::SP_FileDialogNewFolder, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K),
      tr("Add a cost: an integral or end value of an expression of outputs, for studies and tuning"), "AddCost", [this] { addCost(); });
}

namespace {
// what a cost's expression may use: the outputs' components and the parameters
QStringList costNames(const Mechanism& m) {
  QStringList names;
  for (const auto& o : m.outputs) {
    const QString n = QString::fromStdString(o.name);
    if (o.type == Output::Type::PointPosition || o.type == Output::Type::PointVelocity || o.type == Output::Type::PointAcceleration) {
      names << n + ".x" << n + ".y";
      if (m.dimension == 3) names << n + ".z";
    } else {
      names << n;
    }
  }
  for (const auto& p : m.parameters) names << QString::fromStdString(p.name);
  return names;
}
}  // namespace

bool MainWindow::changeCost(const QString& name, const std::function<void(widgets::CostDialog&)>& accept) {
  const auto it = std::find_if(mechanism_->costs.begin(), mechanism_->costs.end(), [&](const Cost& c) { return c.name == name.toStdString(); });
  if (it == mechanism_->costs.end()) return false;
  widgets::CostDialog dialog(*mechanism_, costNames(*mechanism_), this);
  dialog.setCost(*it);
  const bool accepted = accept ? (accept(dialog), true) : dialog.exec() == QDialog::Accepted;
  if (!accepted) return false;
  Cost c;
  QString why;
  const QString what = tr("Change cost %1").arg(name);
  if (!dialog.cost(c, why)) {
    refuseEdit(what, why);
    return false;
  }
  Mechanism after = *mechanism_;
  const auto index = static_cast<std::size_t>(it - mechanism_->costs.begin());
  after.costs[index] = c;
  // the study follows a renamed cost
  std::replace(after.study.costs.begin(), after.study.costs.end(), name.toStdString(), c.name);
  if (after.study.tuneCost == name.toStdString()) after.study.tuneCost = c.name;
  if (const QString problem = Document::whyInvalid(after); !problem.isEmpty()) {
    refuseEdit(what, problem);
    return false;
  }
  return applyEdit(after, what);
}

bool MainWindow::makeCost(const QString& column, Cost::Type type, const std::function<void(widgets::CostDialog&)>& accept) {
  Mechanism base = *mechanism_;
  const QString what = tr("Make cost of %1").arg(column);
  // what a cost's expression calls the column: an output's name (or component) as it is; a
  // point's column ("link2.C1.vx") through a point output made for it ("link2_C1_v.x")
  QString expression;
  const std::string c = column.toStdString();
  for (const Output& o : base.outputs)
    if (c == o.name || (c.size() == o.name.size() + 2 && c.rfind(o.name + ".", 0) == 0)) expression = column;
  const QStringList parts = column.split('.');
  if (expression.isEmpty() && parts.size() == 3) {
    const QString tail = parts[2];
    const QString prefix = tail.size() == 2 ? tail.left(1) : QString();
    const QString axis = tail.right(1);
    const bool known = (prefix.isEmpty() || prefix == "v" || prefix == "a") && (axis == "x" || axis == "y" || axis == "z");
    const Ref point{parts[0].toStdString(), parts[1].toStdString()};
    const Output::Type kind = prefix == "v" ? Output::Type::PointVelocity : prefix == "a" ? Output::Type::PointAcceleration : Output::Type::PointPosition;
    if (known) {
      const auto existing = std::find_if(base.outputs.begin(), base.outputs.end(), [&](const Output& o) { return o.type == kind && o.point == point; });
      std::string name = existing != base.outputs.end() ? existing->name : std::string();
      if (existing == base.outputs.end()) {
        name = edit::unusedName(point.body + "_" + point.item + (prefix.isEmpty() ? "" : "_" + prefix.toStdString()), [&](const std::string& n) {
          return std::any_of(base.outputs.begin(), base.outputs.end(), [&](const Output& o) { return o.name == n; });
        });
        Output o;
        o.name = name;
        o.type = kind;
        o.point = point;
        base.outputs.push_back(o);
      }
      expression = QString::fromStdString(name) + "." + axis;
    }
  }
  if (expression.isEmpty()) {
    refuseEdit(what, tr("'%1' is not an output or a point's coordinate: a cost reads outputs (the file's \"outputs\") and points' positions, "
                        "velocities and accelerations").arg(column));
    return false;
  }
  Cost c0;
  c0.type = type;
  c0.expression = Expression::parseOrThrow(expression.toStdString());
  const char* word = type == Cost::Type::Integral ? "integral" : type == Cost::Type::Terminal ? "end" : type == Cost::Type::Minimum ? "least" : "greatest";
  std::string stem = std::string(word) + "_" + expression.toStdString();
  for (char& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  c0.name = edit::unusedName(stem, [&](const std::string& n) {
    return std::any_of(base.costs.begin(), base.costs.end(), [&](const Cost& x) { return x.name == n; });
  });
  widgets::CostDialog dialog(base, costNames(base), this);
  dialog.setCost(c0);
  dialog.setWindowTitle(tr("Add cost"));
  const bool accepted = accept ? (accept(dialog), true) : dialog.exec() == QDialog::Accepted;
  if (!accepted) return false;
  Cost cost;
  QString why;
  if (!dialog.cost(cost, why)) {
    refuseEdit(what, why);
    return false;
  }
  base.costs.push_back(cost);
  if (const QString problem = Document::whyInvalid(base); !problem.isEmpty()) {
    refuseEdit(what, problem);
    return false;
  }
  if (!applyEdit(base, tr("Add cost %1").arg(QString::fromStdString(cost.name)))) return false;
  tree_->selectPath(QStringLiteral("costs[%1]").arg(mechanism_->costs.size() - 1));
  return true;
}

bool MainWindow::addCost(const std::function<void(widgets::CostDialog&)>& accept) {
  QStringList names;
  names = costNames(*mechanism_);
  widgets::CostDialog dialog(*mechanism_, names, this);
  const bool accepted = accept ? (accept(dialog), true) : dialog.exec() == QDialog::Accepted;
  if (!accepted) return false;
  Cost c;
  QString why;
  if (!dialog.cost(c, why)) {
    refuseEdit(tr("Add cost"), why);
    return false;
  }
  Mechanism after = *mechanism_;
  after.costs.push_back(c);
  const QString what = tr("Add cost %1").arg(QString::fromStdString(c.name));
  if (const QString problem = Document::whyInvalid(after); !problem.isEmpty()) {
    refuseEdit(what, problem);
    return false;
  }
  if (mechanism_->outputs.empty()) log(tr("Tip: add outputs (point positions, joint angles) to the file to use them in costs"));
  return applyEdit(after, what);
}

void MainWindow::storeStudy() {
  if (!study_ || !tuning_ || showingStudy_) return;
  StudySettings s = study_->settings();
  tuning_->writeSettings(s);
  tuning_->setStudy(s.parameters, s.analysis == "kinematics", study_->endTime()->value(), study_->step()->value());
  sweep_->setRun(s.analysis == "kinematics", study_->endTime()->value(), study_->step()->value());
  const StudySettings& was = mechanism_->study;
  const bool same = was.present && was.analysis == s.analysis && was.method == s.method && was.costs == s.costs &&
                    was.parameters == s.parameters && was.tuneCost == s.tuneCost && was.hasTarget == s.hasTarget &&
                    (!s.hasTarget || was.target == s.target) && was.algorithm == s.algorithm && was.maxEvaluations == s.maxEvaluations &&
                    sameConstraints(was.constraints, s.constraints);
  if (same) return;
  doc_->setStudy(s);
  setWindowModified(true);
}

void MainWindow::previewDesign(const std::vector<std::string>& names, const std::vector<double>& values) {
  // redrawn at most five times a second while the optimiser runs; the last design always
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  if (tuning_->running() && now - lastPreview_ < 200) return;
  lastPreview_ = now;
  Mechanism preview = *mechanism_;
  if (!opt::setParameters(preview, names, values).ok()) return;
  Diagnostics d;
  auto r = resolve(preview, d);
  if (!r) return;
  auto resolved = std::make_shared<const ResolvedMechanism>(std::move(*r));
  sketch_->setMechanism(preview, resolved);
  // while the optimiser runs, a planar design is redrawn in the sketch (a new 3D scene costs a
  // software renderer 30-120 ms a time: the window would stall); a spatial one in the 3D view's
  // quick frames, as during playback. The 3D view follows when the run ends.
  if (tuning_->running() && preview.dimension == 2) return;
  if (tuning_->running()) scene_->setAnimating(true);
  scene_->setScene(scene::buildSceneModel(*resolved), scene::storedConfigurationFrame(*resolved));
}

bool MainWindow::applyTunedDesign(const std::vector<std::string>& names, const std::vector<double>& values) {
  return applyDesign(names, values, tr("Apply the tuned design"));
}

bool MainWindow::applyDesign(const std::vector<std::string>& names, const std::vector<double>& values, const QString& what) {
  Mechanism after = *mechanism_;
  if (const Status s = opt::setParameters(after, names, values); !s.ok()) {
    refuseEdit(what, QString::fromStdString(s.message));
    showMechanism();
    return false;
  }
  return applyEdit(after, what);
}

}  // namespace lw::app
