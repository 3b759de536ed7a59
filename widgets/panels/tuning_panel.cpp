#include "panels/tuning_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMetaObject>
#include <QPushButton>
#include <QSpinBox>
#include <QHeaderView>
#include <QLocale>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "optimize/four_bar_limits.h"
#include "optimize/optimize.h"
#include "panels/background_job.h"

namespace lw::widgets {
namespace {

struct AlgorithmChoice {
  const char* label;
  const char* key;
  const char* tip;
};
const AlgorithmChoice kAlgorithms[] = {
    {"SLSQP (gradients)", "slsqp", "Sequential quadratic programming with the exact gradients: fast, takes constraints"},
    {"MMA (gradients)", "mma", "Method of moving asymptotes with the exact gradients: robust, takes constraints"},
    {"CCSA-Q (gradients)", "ccsaq", "Conservative convex separable approximations with the exact gradients; takes constraints"},
    {"L-BFGS (gradients)", "lbfgs", "Quasi-Newton with the exact gradients; no constraints"},
    {"COBYLA (no gradients)", "cobyla", "Derivative-free, linear approximations; takes constraints (for comparison)"},
    {"BOBYQA (no gradients)", "bobyqa", "Derivative-free, quadratic approximations; no constraints (for comparison)"},
    {"Nelder–Mead (no gradients)", "neldermead", "Derivative-free simplex; no constraints (for comparison)"},
    {"Subplex (no gradients)", "sbplx", "Derivative-free Subplex; no constraints (for comparison)"},
};

}  // namespace

TuningPanel::TuningPanel(QWidget* parent) : QWidget(parent) {
  cost_ = new QComboBox(this);
  cost_->setObjectName("TuneCost");
  cost_->setToolTip(tr("The cost to minimise"));
  algorithm_ = new QComboBox(this);
  algorithm_->setObjectName("TuneAlgorithm");
  for (const auto& a : kAlgorithms) {
    algorithm_->addItem(tr(a.label), a.key);
    algorithm_->setItemData(algorithm_->count() - 1, tr(a.tip), Qt::ToolTipRole);
  }
  algorithm_->setToolTip(tr("The optimiser (NLopt); the gradient-based ones use the exact gradients of the study"));
  maxEvaluations_ = new QSpinBox(this);
  maxEvaluations_->setRange(1, 100000);
  maxEvaluations_->setValue(200);
  maxEvaluations_->setToolTip(tr("The most runs the optimiser may make"));
  targetOn_ = new QCheckBox(tr("Drive to"), this);
  targetOn_->setToolTip(tr("Drive the cost to a value instead of minimising it"));
  target_ = new QDoubleSpinBox(this);
  target_->setRange(-1e12, 1e12);
  target_->setDecimals(6);
  target_->setEnabled(false);
  connect(targetOn_, &QCheckBox::toggled, target_, &QWidget::setEnabled);
  run_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Tune"), this);
  run_->setObjectName("RunTuning");
  run_->setToolTip(tr("Tune the ticked parameters of the study within their ranges, in the background (Ctrl+T)"));
  // its key (Ctrl+T) is the Analysis menu's action, listed in Help > Keyboard Shortcuts
  stop_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"), this);
  stop_->setToolTip(tr("Stop tuning; the best design so far is kept"));
  stop_->setEnabled(false);
  apply_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogApplyButton), tr("Apply"), this);
  apply_->setObjectName("ApplyTuning");
  apply_->setToolTip(tr("Make the best design the mechanism's (one step: Undo returns to the design before)"));
  apply_->setEnabled(false);
  status_ = new QLabel(tr("No mechanism"), this);
  status_->setWordWrap(true);
  // two lines kept whatever the dock's height: the plot gives way, not the result
  status_->setMinimumHeight(2 * status_->fontMetrics().lineSpacing() + 2);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("TuningHistory");
  plot_->setMinimumHeight(180);
  plot_->addGraph();
  plot_->graph(0)->setName(tr("cost"));
  plot_->graph(0)->setPen(QPen(QColor(48, 128, 192), 2));
  plot_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
  plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  plot_->graph(1)->setName(tr("gradient norm"));
  plot_->graph(1)->setPen(QPen(QColor(208, 64, 48), 1, Qt::DashLine));
  plot_->xAxis->setLabel(tr("evaluation"));
  // evaluations are counted: whole-number ticks
  QSharedPointer<QCPAxisTickerFixed> whole(new QCPAxisTickerFixed);
  whole->setTickStep(1);
  whole->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot_->xAxis->setTicker(whole);
  plot_->yAxis->setLabel(tr("cost"));
  plot_->yAxis2->setVisible(true);
  for (QCPAxis* axis : {plot_->yAxis, plot_->yAxis2}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  }
  // the legend in a row above the axes: inside them it hid the points of one curve or the other
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->simplify();
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setVisible(true);
  plot_->legend->setFont(QFont(font().family(), 8));
  // the plot is redrawn at most ten times a second however fast evaluations come
  replotTimer_ = new QTimer(this);
  replotTimer_->setInterval(100);
  replotTimer_->setSingleShot(true);
  connect(replotTimer_, &QTimer::timeout, this, &TuningPanel::replot);

  constraints_ = new QTableWidget(0, 4, this);
  constraints_->setObjectName("TuneConstraints");
  constraints_->setHorizontalHeaderLabels({tr("Constraint"), tr("Expression"), tr("Min"), tr("Max")});
  constraints_->verticalHeader()->hide();
  constraints_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // a narrow dock: every column in view
  // the names as wide as they are (up to 150 px: a long one elides in the middle), the
  // expression takes the rest
  constraints_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
  constraints_->setColumnWidth(0, 96);
  constraints_->setTextElideMode(Qt::ElideMiddle);
  constraints_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  for (int c : {2, 3}) {
    constraints_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Fixed);
    constraints_->setColumnWidth(c, 46);
  }
  constraints_->setMaximumHeight(90);
  constraints_->setToolTip(tr("Keep expressions of the parameters within bounds while tuning, e.g. a Grashof condition "
                              "L1 + L3 - L2 - 4 with Max 0, or a sum of lengths (SLSQP, MMA, CCSA-Q, COBYLA)"));
  auto* addConstraint = new QPushButton(style()->standardIcon(QStyle::SP_FileDialogNewFolder), tr("Add constraint"), this);
  addConstraint->setObjectName("AddConstraint");
  addConstraint->setToolTip(tr("Add a constraint: an expression of parameters kept at least Min and/or at most Max"));
  auto* removeConstraint = new QPushButton(style()->standardIcon(QStyle::SP_TrashIcon), tr("Remove"), this);
  removeConstraint->setToolTip(tr("Remove the selected constraint"));
  connect(addConstraint, &QPushButton::clicked, this, [this] { addConstraintRow(); });
  // what four-bar designers constrain first, written out as expressions of the parameters
  fourBar_ = new QPushButton(style()->standardIcon(QStyle::SP_FileDialogContentsView), tr("Four-bar limits"), this);
  fourBar_->setObjectName("FourBarLimits");
  fourBar_->setToolTip(tr("Add the constraints of every four-bar loop: its input turns fully (Grashof), and its "
                          "transmission angle stays within bounds over the whole turn"));
  auto* fourBarMenu = new QMenu(fourBar_);
  auto report = [this](bool ok, const QString& why) {
    if (!ok) emit message(tr("Four-bar limits: %1").arg(why));
  };
  fourBarMenu->addAction(tr("Input turns fully (Grashof)"), this, [this, report] {
    QString why;
    report(addFourBarLimits(true, 0, why), why);
  });
  fourBarMenu->addAction(tr("Transmission angle at least…"), this, [this, report] {
    bool ok = false;
    const double deg = QInputDialog::getDouble(this, tr("Transmission angle"), tr("Keep the transmission angle within [μ, 180° − μ]; μ in degrees:"),
                                               40, 1, 89, 1, &ok);
    if (!ok) return;
    QString why;
    report(addFourBarLimits(false, deg, why), why);
  });
  fourBar_->setMenu(fourBarMenu);
  connect(removeConstraint, &QPushButton::clicked, this, [this] {
    if (constraints_->currentRow() >= 0) {
      constraints_->removeRow(constraints_->currentRow());
      if (!filling_) emit settingsChanged();
    }
  });
  connect(constraints_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    // a name or an expression cut by the narrow dock reads whole in its tooltip
    if (item->column() <= 1 && item->toolTip() != item->text()) item->setToolTip(item->text());
    if (!filling_) emit settingsChanged();
  });
  auto* form = new QFormLayout;
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  form->addRow(tr("Minimise"), cost_);
  auto* targetRow = new QHBoxLayout;
  targetRow->addWidget(targetOn_);
  targetRow->addWidget(target_, 1);
  form->addRow(QString(), targetRow);
  form->addRow(tr("Algorithm"), algorithm_);
  form->addRow(tr("At most"), maxEvaluations_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(stop_);
  buttons->addWidget(apply_);
  auto* constraintButtons = new QHBoxLayout;
  constraintButtons->addWidget(addConstraint);
  constraintButtons->addWidget(removeConstraint);
  constraintButtons->addWidget(fourBar_);
  constraintButtons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(constraints_);
  layout->addLayout(constraintButtons);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(plot_, 1);

  connect(run_, &QPushButton::clicked, this, &TuningPanel::run);
  connect(stop_, &QPushButton::clicked, this, &TuningPanel::stop);
  connect(apply_, &QPushButton::clicked, this, [this] {
    if (!best_.empty()) emit applyRequested(names_, best_);
  });
  auto changed = [this] {
    if (!filling_) emit settingsChanged();
  };
  connect(cost_, &QComboBox::currentIndexChanged, this, changed);
  connect(algorithm_, &QComboBox::currentIndexChanged, this, changed);
  connect(maxEvaluations_, &QSpinBox::valueChanged, this, changed);
  connect(targetOn_, &QCheckBox::toggled, this, changed);
  connect(target_, &QDoubleSpinBox::valueChanged, this, changed);
  run_->setEnabled(false);
}

TuningPanel::~TuningPanel() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void TuningPanel::setMechanism(std::shared_ptr<const Mechanism> m) {
  stop();
  ++generation_;
  mechanism_ = std::move(m);
  filling_ = true;
  cost_->clear();
  if (mechanism_) {
    for (const auto& c : mechanism_->costs) cost_->addItem(QString::fromStdString(c.name));
    const StudySettings& s = mechanism_->study;
    const int cost = cost_->findText(QString::fromStdString(s.tuneCost));
    if (cost >= 0) cost_->setCurrentIndex(cost);
    const int algorithm = algorithm_->findData(QString::fromStdString(s.algorithm));
    algorithm_->setCurrentIndex(algorithm >= 0 ? algorithm : 0);
    maxEvaluations_->setValue(s.maxEvaluations);
    targetOn_->setChecked(s.hasTarget);
    target_->setValue(s.target);
    constraints_->setRowCount(0);
    for (const auto& c : s.constraints)
      addConstraintRow(QString::fromStdString(c.name), QString::fromStdString(c.expression.text()),
                       c.hasMin ? QString::number(c.min, 'g', QLocale::FloatingPointShortest) : QString(),
                       c.hasMax ? QString::number(c.max, 'g', QLocale::FloatingPointShortest) : QString());
  }
  filling_ = false;
  apply_->setEnabled(false);
  names_.clear();
  best_.clear();
  run_->setEnabled(mechanism_ && !mechanism_->costs.empty() && !running_);
  std::string noLoop;
  fourBar_->setEnabled(mechanism_ && !opt::fourBarLimits(*mechanism_, 0, noLoop).empty());
  fourBar_->setToolTip(fourBar_->isEnabled() ? fourBar_->toolTip().section('\n', 0, 0)
                                             : fourBar_->toolTip().section('\n', 0, 0) + "\n" + QString::fromStdString(noLoop));
  status_->setText(!mechanism_ ? tr("No mechanism")
                   : mechanism_->costs.empty() ? tr("The mechanism has no costs to minimise")
                                               : tr("Ready: tunes the parameters ticked in the Study panel within their ranges"));
}

void TuningPanel::setStudy(const std::vector<std::string>& parameters, bool kinematics, double tEnd, double dt) {
  parameters_ = parameters;
  kinematics_ = kinematics;
  tEnd_ = tEnd;
  dt_ = dt;
}

bool TuningPanel::addFourBarLimits(bool turns, double minTransmissionDeg, QString& why) {
  if (!mechanism_) {
    why = tr("no mechanism");
    return false;
  }
  std::string error;
  const auto limits = opt::fourBarLimits(*mechanism_, minTransmissionDeg, error);
  if (limits.empty()) {
    why = QString::fromStdString(error);
    return false;
  }
  auto number = [](bool has, double v) { return has ? QString::number(v, 'g', QLocale::FloatingPointShortest) : QString(); };
  for (const auto& l : limits) {
    std::vector<TuningConstraint> chosen = turns ? l.turns : std::vector<TuningConstraint>{};
    chosen.insert(chosen.end(), l.transmission.begin(), l.transmission.end());
    for (const auto& k : chosen) {
      const QString name = QString::fromStdString(k.name);
      for (int r = constraints_->rowCount() - 1; r >= 0; --r)
        if (constraints_->item(r, 0) && constraints_->item(r, 0)->text() == name) constraints_->removeRow(r);
      addConstraintRow(name, QString::fromStdString(k.expression.text()), number(k.hasMin, k.min), number(k.hasMax, k.max));
      const bool transmission = std::find_if(l.transmission.begin(), l.transmission.end(), [&](const auto& t) { return t.name == k.name; }) !=
                                l.transmission.end();
      constraints_->item(constraints_->rowCount() - 1, 1)
          ->setToolTip(QString::fromStdString(k.expression.text()) + "\n" +
                       (transmission ? tr("Loop %1: the cosine of the transmission angle where the input lines up with the ground; "
                                         "within ±cos %2° = ±%3")
                                          .arg(QString::fromStdString(l.loop))
                                          .arg(minTransmissionDeg)
                                          .arg(k.max)
                                    : tr("Loop %1: with the other condition, the input link turns fully (Grashof)").arg(QString::fromStdString(l.loop))));
      constraints_->item(constraints_->rowCount() - 1, 0)->setToolTip(name);
    }
  }
  return true;
}

void TuningPanel::addConstraintRow(const QString& name, const QString& expression, const QString& min, const QString& max) {
  const bool was = filling_;
  filling_ = true;
  const int r = constraints_->rowCount();
  constraints_->insertRow(r);
  for (const auto& [column, text] : {std::pair{0, name.isEmpty() ? QStringLiteral("c%1").arg(r + 1) : name}, std::pair{1, expression}}) {
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);  // whole, where the narrow dock cuts it
    constraints_->setItem(r, column, item);
  }
  constraints_->setItem(r, 2, new QTableWidgetItem(min));
  constraints_->setItem(r, 3, new QTableWidgetItem(max));
  constraints_->resizeColumnToContents(0);
  constraints_->setColumnWidth(0, std::clamp(constraints_->columnWidth(0), 96, 150));
  filling_ = was;
  if (!filling_) emit settingsChanged();
}

bool TuningPanel::readConstraints(std::vector<TuningConstraint>& out, QString& why) const {
  out.clear();
  for (int r = 0; r < constraints_->rowCount(); ++r) {
    auto text = [&](int c) { return constraints_->item(r, c) ? constraints_->item(r, c)->text().trimmed() : QString(); };
    TuningConstraint k;
    k.name = text(0).toStdString();
    const QString expression = text(1);
    if (expression.isEmpty()) continue;  // a row being written
    ExpressionError error;
    if (!Expression::parse(expression.toStdString(), k.expression, error)) {
      why = tr("constraint %1: the expression does not parse at character %2 (%3)").arg(text(0)).arg(error.offset + 1).arg(QString::fromStdString(error.message));
      return false;
    }
    bool ok = true;
    if (!text(2).isEmpty()) k.hasMin = true, k.min = text(2).toDouble(&ok);
    if (ok && !text(3).isEmpty()) k.hasMax = true, k.max = text(3).toDouble(&ok);
    if (!ok) {
      why = tr("constraint %1: Min and Max are numbers (or empty)").arg(text(0));
      return false;
    }
    if (!k.hasMin && !k.hasMax) {
      why = tr("constraint %1 has neither a Min nor a Max").arg(text(0));
      return false;
    }
    out.push_back(std::move(k));
  }
  return true;
}

void TuningPanel::writeSettings(StudySettings& s) const {
  QString why;
  std::vector<TuningConstraint> constraints;
  if (readConstraints(constraints, why)) s.constraints = std::move(constraints);
  s.tuneCost = cost_->currentText().toStdString();
  s.algorithm = algorithm_->currentData().toString().toStdString();
  s.maxEvaluations = maxEvaluations_->value();
  s.hasTarget = targetOn_->isChecked();
  s.target = target_->value();
}

void TuningPanel::run() {
  if (!mechanism_ || running_) return;
  if (worker_.joinable()) worker_.join();
  std::string problem;
  opt::OptimizeSpec spec = opt::specFromStudy(*mechanism_, problem);
  spec.cost = cost_->currentText().toStdString();
  spec.parameters = parameters_;
  opt::parseAlgorithm(algorithm_->currentData().toString().toStdString(), spec.algorithm);
  spec.maxEvaluations = maxEvaluations_->value();
  spec.hasTarget = targetOn_->isChecked();
  spec.target = target_->value();
  spec.sensitivity.analysis = kinematics_ ? sens::Analysis::Kinematics : sens::Analysis::Dynamics;
  spec.sensitivity.run.tEnd = tEnd_;
  spec.sensitivity.run.dt = dt_;
  QString why;
  if (!readConstraints(spec.constraints, why)) {
    status_->setText(tr("Not tuned: %1").arg(why));
    emit message(tr("Tuning: %1").arg(why));
    return;
  }
  cancel_ = false;
  running_ = true;
  costs_.clear();
  norms_.clear();
  progressText_.clear();
  names_.clear();
  best_.clear();
  run_->setEnabled(false);
  stop_->setEnabled(true);
  apply_->setEnabled(false);
  status_->setText(tr("Tuning..."));
  replot();
  emit tuningStarted();
  auto mech = mechanism_;
  const unsigned generation = ++generation_;
  worker_ = std::thread([this, spec, mech, generation] {
    runInBackground();
    auto told = [this, generation](const opt::Evaluation& e) {
      QMetaObject::invokeMethod(this, [this, e, generation] { received(e, generation); }, Qt::QueuedConnection);
    };
    auto r = std::make_shared<opt::OptimizeResult>(opt::optimize(*mech, spec, told, &cancel_));
    QMetaObject::invokeMethod(this, [this, r, generation] { finish(r, generation); }, Qt::QueuedConnection);
  });
}

void TuningPanel::stop() {
  if (running_) cancel_ = true;
}

void TuningPanel::received(const opt::Evaluation& e, unsigned generation) {
  if (generation != generation_) return;
  if (!e.failed) {
    costs_.push_back(e.cost);
    norms_.push_back(e.gradientNorm);
    if (costs_.size() == 1) initialCost_ = e.cost;
  }
  if (e.best) {
    bestCost_ = e.cost;
    best_ = e.parameters;
    names_ = e.names;
  }
  progressText_ = tr("Evaluation %1: cost %2 (best %3)").arg(e.index).arg(e.cost, 0, 'g', 6).arg(bestCost_, 0, 'g', 6);
  if (!replotTimer_->isActive()) replotTimer_->start();  // the text and the plot together, ten times a second
  if (e.best && !names_.empty()) emit designImproved(names_, best_);
}

void TuningPanel::replot() {
  if (running_ && !progressText_.isEmpty()) status_->setText(progressText_);
  QVector<double> x, c, g;
  for (std::size_t i = 0; i < costs_.size(); ++i) {
    x << static_cast<double>(i + 1);
    c << std::max(costs_[i], 1e-300);
    g << std::max(norms_[i], 1e-300);
  }
  plot_->graph(0)->setData(x, c, true);
  plot_->graph(1)->setData(x, g, true);
  plot_->xAxis->setRange(0.5, std::max(2.0, static_cast<double>(costs_.size()) + 0.5));
  plot_->graph(0)->rescaleValueAxis(false, true);
  plot_->graph(1)->rescaleValueAxis(false, true);
  // while tuning, at most one redraw per event-loop turn; at the end, drawn at once (a grab or a
  // screenshot right after shows every evaluation)
  plot_->replot(running_ ? QCustomPlot::rpQueuedReplot : QCustomPlot::rpRefreshHint);
}

void TuningPanel::finish(std::shared_ptr<opt::OptimizeResult> r, unsigned generation) {
  if (worker_.joinable()) worker_.join();
  running_ = false;
  run_->setEnabled(mechanism_ != nullptr);
  stop_->setEnabled(false);
  if (generation != generation_) return;
  replot();
  if (!r->status.ok()) {
    const QString why = QString::fromStdString(r->status.message);
    status_->setText(tr("Not tuned: %1").arg(why));
    emit message(tr("Tuning: %1").arg(why));
    emit tuningFinished(false);
    return;
  }
  names_ = r->parameters;
  best_ = r->best;
  bestCost_ = r->bestCost;
  // an infeasible result is no design to apply: the panel says why instead
  const bool improved = r->feasible && r->bestCost < r->initialCost;
  apply_->setEnabled(improved);
  if (!r->feasible) {
    status_->setText(tr("No feasible design: %1").arg(QString::fromStdString(r->stopReason)));
    status_->setToolTip(QString());
    emit message(tr("Tuning: %1 (%2 evaluations)").arg(QString::fromStdString(r->stopReason)).arg(r->history.size()));
    emit tuningFinished(false);
    return;
  }
  QStringList design;
  for (std::size_t i = 0; i < names_.size(); ++i)
    design << QStringLiteral("%1 = %2").arg(QString::fromStdString(names_[i])).arg(best_[i], 0, 'g', 6);
  // the panel says it short; Messages keeps the whole account
  status_->setText(tr("Cost %1 → %2 in %3 evaluations (%4 s)%5")
                       .arg(r->initialCost, 0, 'g', 4)
                       .arg(r->bestCost, 0, 'g', 4)
                       .arg(r->history.size())
                       .arg(r->seconds, 0, 'g', 3)
                       .arg(improved ? tr(": Apply keeps it") : QString()));
  status_->setToolTip(design.join("\n"));
  const QString summary = tr("%1: cost %2 → %3 in %4 evaluations (%5 s). Best: %6%7")
                              .arg(QString::fromStdString(r->stopReason))
                              .arg(r->initialCost, 0, 'g', 4)
                              .arg(r->bestCost, 0, 'g', 4)
                              .arg(r->history.size())
                              .arg(r->seconds, 0, 'g', 3)
                              .arg(design.join(", "))
                              .arg(improved ? tr(". Apply to keep it.") : QString());
  emit message(tr("Tuning: %1").arg(summary));
  for (const auto& n : r->notes) emit message(tr("Note: %1").arg(QString::fromStdString(n)));
  if (improved) emit designImproved(names_, best_);
  emit tuningFinished(improved);
}

}  // namespace lw::widgets
