#include "panels/sweep_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

#include "panels/background_job.h"
#include "plots/axis_ticks.h"
#include "sweep/sweep.h"

namespace lw::widgets {
namespace {

QDoubleSpinBox* valueBox(QWidget* parent, const char* name) {
  auto* b = new QDoubleSpinBox(parent);
  b->setObjectName(name);
  b->setDecimals(4);
  b->setRange(-1e9, 1e9);
  b->setSingleStep(0.01);
  b->setMinimumWidth(70);
  return b;
}

QSpinBox* pointsBox(QWidget* parent, const char* name, int value) {
  auto* b = new QSpinBox(parent);
  b->setObjectName(name);
  b->setRange(1, 500);
  b->setValue(value);
  b->setToolTip(QObject::tr("Values of this parameter (both ends included)"));
  return b;
}

}  // namespace

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
  first_ = new QComboBox(this);
  first_->setObjectName("SweepFirst");
  second_ = new QComboBox(this);
  second_->setObjectName("SweepSecond");
  from1_ = valueBox(this, "SweepFrom1");
  to1_ = valueBox(this, "SweepTo1");
  from2_ = valueBox(this, "SweepFrom2");
  to2_ = valueBox(this, "SweepTo2");
  points1_ = pointsBox(this, "SweepPoints1", 11);
  points2_ = pointsBox(this, "SweepPoints2", 7);
  secondOn_ = new QCheckBox(tr("and"), this);
  secondOn_->setObjectName("SweepSecondOn");
  secondOn_->setToolTip(tr("Sweep a second parameter too: every combination, drawn as a heat map"));
  cost_ = new QComboBox(this);
  cost_->setObjectName("SweepCost");
  cost_->setToolTip(tr("The cost plotted (every cost of the file is computed)"));
  gradients_ = new QCheckBox(tr("Exact gradients"), this);
  gradients_->setObjectName("SweepGradients");
  gradients_->setChecked(true);
  gradients_->setToolTip(tr("Also each cost's exact gradient at every variant (drawn as tangents or arrows)"));
  run_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Sweep"), this);
  run_->setObjectName("SweepRun");
  run_->setToolTip(tr("Run every variant in the background, on every core"));
  stop_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"), this);
  stop_->setObjectName("SweepStop");
  stop_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setObjectName("SweepProgress");
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(true);
  progress_->setFormat(tr("%v of %m variants"));
  status_ = new QLabel(tr("Choose a parameter and its range, then Sweep. Click a point to make it the design."), this);
  status_->setObjectName("SweepStatus");
  status_->setWordWrap(true);

  auto* grid = new QGridLayout;
  grid->addWidget(new QLabel(tr("Vary"), this), 0, 0);
  grid->addWidget(first_, 0, 1);
  grid->addWidget(from1_, 0, 2);
  grid->addWidget(to1_, 0, 3);
  grid->addWidget(points1_, 0, 4);
  grid->addWidget(secondOn_, 1, 0);
  grid->addWidget(second_, 1, 1);
  grid->addWidget(from2_, 1, 2);
  grid->addWidget(to2_, 1, 3);
  grid->addWidget(points2_, 1, 4);
  grid->setColumnStretch(1, 1);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Cost"), this));
  row->addWidget(cost_, 1);
  row->addWidget(gradients_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(stop_);
  buttons->addWidget(progress_, 1);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("SweepPlot");
  plot_->setMinimumHeight(200);
  plot_->setToolTip(tr("Click a point to make that variant the mechanism's design (Ctrl+Z undoes)"));
  fitTicksToHeight(plot_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(grid);
  layout->addLayout(row);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(plot_, 1);

  auto enableSecond = [this] {
    const bool on = secondOn_->isChecked();
    for (QWidget* w : std::initializer_list<QWidget*>{second_, from2_, to2_, points2_}) w->setEnabled(on);
  };
  connect(secondOn_, &QCheckBox::toggled, this, enableSecond);
  enableSecond();
  connect(first_, &QComboBox::currentIndexChanged, this, [this] { parameterChosen(0); });
  connect(second_, &QComboBox::currentIndexChanged, this, [this] { parameterChosen(1); });
  connect(cost_, &QComboBox::currentIndexChanged, this, &SweepPanel::replot);
  connect(run_, &QPushButton::clicked, this, &SweepPanel::run);
  connect(stop_, &QPushButton::clicked, this, &SweepPanel::stop);
  connect(plot_, &QCustomPlot::mousePress, this, &SweepPanel::clicked);
}

SweepPanel::~SweepPanel() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void SweepPanel::setMechanism(std::shared_ptr<const Mechanism> m) {
  mechanism_ = std::move(m);
  const QString keep1 = first_->currentText(), keep2 = second_->currentText(), keepCost = cost_->currentText();
  const QSignalBlocker b1(first_), b2(second_), b3(cost_);
  first_->clear();
  second_->clear();
  cost_->clear();
  if (mechanism_) {
    for (const auto& p : mechanism_->parameters)
      if (p.value.isLiteral()) {
        first_->addItem(QString::fromStdString(p.name));
        second_->addItem(QString::fromStdString(p.name));
      }
    for (const auto& c : mechanism_->costs) cost_->addItem(QString::fromStdString(c.name));
  }
  // the choices kept across edits (a swept design applied keeps its sweep's ranges); a parameter
  // that is gone, or a first choice, gets its range as the default
  if (int i = first_->findText(keep1); i >= 0 && !keep1.isEmpty()) first_->setCurrentIndex(i);
  else parameterChosen(0);
  if (int i = second_->findText(keep2); i >= 0 && !keep2.isEmpty()) second_->setCurrentIndex(i);
  else {
    if (second_->count() > 1) second_->setCurrentIndex(1);
    parameterChosen(1);
  }
  if (int i = cost_->findText(keepCost); i >= 0) cost_->setCurrentIndex(i);
  const bool can = first_->count() > 0 && cost_->count() > 0;
  run_->setEnabled(can && !running_);
  if (!mechanism_ || first_->count() == 0)
    status_->setText(tr("This mechanism has no design parameter with a value to sweep: add one (Model > Add Parameter)."));
  else if (cost_->count() == 0) status_->setText(tr("This mechanism has no cost to sweep: add one (Model > Add Cost)."));
  else if (!result_) status_->setText(tr("Choose a parameter and its range, then Sweep. Click a point to make it the design."));
}

void SweepPanel::clear() {
  stop();
  ++generation_;  // a sweep still running belongs to the last document: its rows are dropped
  running_ = false;
  stop_->setEnabled(false);
  progress_->setValue(0);
  result_.reset();
  first_->clear();
  second_->clear();
  cost_->clear();
  replot();
}

void SweepPanel::setRun(bool kinematics, double tEnd, double dt) {
  kinematics_ = kinematics;
  tEnd_ = tEnd;
  dt_ = dt;
}

// a parameter chosen: its range (or ±20 % of its value) as the sweep's
void SweepPanel::parameterChosen(int which) {
  if (!mechanism_) return;
  const QString name = (which == 0 ? first_ : second_)->currentText();
  for (const auto& p : mechanism_->parameters)
    if (QString::fromStdString(p.name) == name) {
      const double v = p.value.value, span = std::max(0.2 * std::abs(v), 1e-3);
      (which == 0 ? from1_ : from2_)->setValue(p.hasMin ? p.min : v - span);
      (which == 0 ? to1_ : to2_)->setValue(p.hasMax ? p.max : v + span);
    }
}

void SweepPanel::run() {
  if (!mechanism_ || running_ || first_->count() == 0) return;
  if (worker_.joinable()) worker_.join();
  std::vector<sweep::Axis> axes = {{first_->currentText().toStdString(), sweep::evenlySpaced(from1_->value(), to1_->value(), points1_->value())}};
  if (secondOn_->isChecked())
    axes.push_back({second_->currentText().toStdString(), sweep::evenlySpaced(from2_->value(), to2_->value(), points2_->value())});
  const sweep::Design design = sweep::fullFactorial(axes);
  sweep::SweepSpec spec;
  spec.study.analysis = kinematics_ ? sens::Analysis::Kinematics : sens::Analysis::Dynamics;
  spec.study.run.tEnd = tEnd_;
  spec.study.run.dt = dt_;
  spec.gradients = gradients_->isChecked();
  if (std::string why = sweep::refusal(*mechanism_, design, spec); !why.empty()) {
    status_->setText(tr("Not swept: %1").arg(QString::fromStdString(why)));
    emit message(tr("Sweep: %1").arg(QString::fromStdString(why)));
    return;
  }
  cancel_ = false;
  running_ = true;
  run_->setEnabled(false);
  stop_->setEnabled(true);
  progress_->setRange(0, static_cast<int>(design.count()));
  progress_->setValue(0);
  status_->setText(tr("Sweeping %1 variants...").arg(design.count()));
  auto mech = mechanism_;
  const unsigned generation = ++generation_;
  auto shown = throttledProgress(this, [this, generation](int permille) {
    if (generation == generation_) progress_->setValue(permille * progress_->maximum() / 1000);
  });
  worker_ = std::thread([this, mech, design, spec, generation, shown] {
    runInBackground();
    auto done = [shown](std::size_t d, std::size_t total) { shown(static_cast<double>(d) / static_cast<double>(total)); };
    auto r = std::make_shared<sweep::SweepResult>(sweep::runSweep(*mech, design, spec, done, &cancel_));
    QMetaObject::invokeMethod(this, [this, r, generation] { finish(r, generation); }, Qt::QueuedConnection);
  });
}

void SweepPanel::stop() {
  if (running_) cancel_ = true;
}

void SweepPanel::finish(std::shared_ptr<sweep::SweepResult> r, unsigned generation) {
  if (generation != generation_) return;
  running_ = false;
  run_->setEnabled(true);
  stop_->setEnabled(false);
  progress_->setValue(progress_->maximum());
  if (!r->status.ok() && r->status.code != Status::Code::Cancelled) {
    status_->setText(tr("Not swept: %1").arg(QString::fromStdString(r->status.message)));
    return;
  }
  result_ = r;
  const std::size_t failed = r->failed();
  QString text = tr("%1 variants in %2 s").arg(r->rows()).arg(r->seconds, 0, 'g', 3);
  if (r->status.code == Status::Code::Cancelled) text += tr(" (stopped: the variants not run are left out)");
  if (failed) {
    QString first;
    for (const auto& e : r->errors)
      if (!e.empty() && e != "cancelled") {
        first = QString::fromStdString(e);
        break;
      }
    text += tr("; %1 failed").arg(failed) + (first.isEmpty() ? QString() : tr(", e.g. %1").arg(first));
  }
  text += tr(". Click a point to make it the design.");
  status_->setText(text);
  emit message(tr("Sweep: %1").arg(text));
  replot();
}

void SweepPanel::replot() {
  plot_->clearPlottables();
  plot_->clearItems();
  plot_->plotLayout()->clear();
  plot_->plotLayout()->addElement(0, 0, new QCPAxisRect(plot_));
  plot_->xAxis = plot_->axisRect()->axis(QCPAxis::atBottom);
  plot_->yAxis = plot_->axisRect()->axis(QCPAxis::atLeft);
  if (!result_ || result_->rows() == 0) {
    plot_->replot();
    return;
  }
  const sweep::SweepResult& r = *result_;
  const auto costAt = std::find(r.costs.begin(), r.costs.end(), cost_->currentText().toStdString());
  if (costAt == r.costs.end()) {
    plot_->replot();
    return;
  }
  const std::size_t width = r.columns.size(), np = r.parameters.size(), c = static_cast<std::size_t>(costAt - r.costs.begin());
  auto value = [&](std::size_t row, std::size_t col) { return r.table[row * width + col]; };
  // the gradient of the cost with respect to varied parameter k, or NaN
  auto gradient = [&](std::size_t row, std::size_t k) {
    if (r.gradientParameters.empty()) return std::numeric_limits<double>::quiet_NaN();
    const auto at = std::find(r.gradientParameters.begin(), r.gradientParameters.end(), r.parameters[k]);
    if (at == r.gradientParameters.end()) return std::numeric_limits<double>::quiet_NaN();
    return value(row, np + r.costs.size() + c * r.gradientParameters.size() + static_cast<std::size_t>(at - r.gradientParameters.begin()));
  };
  const QString cost = QString::fromStdString(r.costs[c]);
  plot_->xAxis->setLabel(QString::fromStdString(r.parameters[0]));
  if (np == 1) {
    QVector<double> x, y, tx, ty, tt;
    double lo = INFINITY, hi = -INFINITY;
    for (std::size_t i = 0; i < r.rows(); ++i) {
      lo = std::min(lo, value(i, 0));
      hi = std::max(hi, value(i, 0));
      if (!r.errors[i].empty()) continue;
      x << value(i, 0);
      y << value(i, np + c);
    }
    // the tangents: a short segment through each point along its exact gradient
    const double h = 0.22 * (hi - lo) / static_cast<double>(std::max<std::size_t>(1, r.rows() - 1));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      const double g = gradient(i, 0);
      if (!r.errors[i].empty() || !std::isfinite(g)) continue;
      const double px = value(i, 0), py = value(i, np + c);
      tx << px - h << px + h << NAN;
      ty << py - g * h << py + g * h << NAN;
    }
    for (int k = 0; k < tx.size(); ++k) tt << k;
    auto* line = plot_->addGraph();
    line->setName(cost);
    line->setPen(QPen(QColor(48, 128, 192), 1.5));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    line->setData(x, y);
    auto* tangents = new QCPCurve(plot_->xAxis, plot_->yAxis);
    tangents->setName(tr("exact gradient"));
    tangents->setPen(QPen(QColor(208, 64, 48), 2));
    tangents->setData(tt, tx, ty);
    plot_->yAxis->setLabel(cost);
    plot_->rescaleAxes();
    plot_->xAxis->scaleRange(1.08);
    plot_->yAxis->scaleRange(1.15);
  } else {
    // a heat map over the two parameters' grid (full factorial: the second varies fastest)
    std::vector<double> a, b;
    for (std::size_t i = 0; i < r.rows(); ++i) {
      if (std::find(a.begin(), a.end(), value(i, 0)) == a.end()) a.push_back(value(i, 0));
      if (std::find(b.begin(), b.end(), value(i, 1)) == b.end()) b.push_back(value(i, 1));
    }
    auto* map = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map->data()->setSize(static_cast<int>(a.size()), static_cast<int>(b.size()));
    map->data()->setRange(QCPRange(a.front(), a.back()), QCPRange(b.front(), b.back()));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      const int ia = static_cast<int>(std::find(a.begin(), a.end(), value(i, 0)) - a.begin());
      const int ib = static_cast<int>(std::find(b.begin(), b.end(), value(i, 1)) - b.begin());
      map->data()->setCell(ia, ib, r.errors[i].empty() ? value(i, np + c) : NAN);
    }
    QCPColorGradient gradientColours(QCPColorGradient::gpCold);
    gradientColours.setNanHandling(QCPColorGradient::nhTransparent);
    map->setGradient(gradientColours);
    map->rescaleDataRange(true);
    auto* scale = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale);
    scale->setLabel(cost);
    map->setColorScale(scale);
    map->rescaleDataRange(true);
    // the gradient as arrows (uphill), the longest 0.8 of a cell
    const double da = a.size() > 1 ? (a.back() - a.front()) / static_cast<double>(a.size() - 1) : 1;
    const double db = b.size() > 1 ? (b.back() - b.front()) / static_cast<double>(b.size() - 1) : 1;
    double longest = 0;
    for (std::size_t i = 0; i < r.rows(); ++i)
      if (r.errors[i].empty() && std::isfinite(gradient(i, 0)) && std::isfinite(gradient(i, 1)))
        longest = std::max(longest, std::hypot(gradient(i, 0) * da, gradient(i, 1) * db));
    if (longest > 0)
      for (std::size_t i = 0; i < r.rows(); ++i) {
        const double ga = gradient(i, 0), gb = gradient(i, 1);
        if (!r.errors[i].empty() || !std::isfinite(ga) || !std::isfinite(gb)) continue;
        auto* arrow = new QCPItemLine(plot_);
        arrow->setPen(QPen(QColor(255, 110, 0), 1.8));  // against both ends of the colour scale
        arrow->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 6, 8));
        const double x0 = value(i, 0), y0 = value(i, 1);
        const double ux = 0.8 * ga * da * da / longest, uy = 0.8 * gb * db * db / longest;
        arrow->start->setCoords(x0 - 0.5 * ux, y0 - 0.5 * uy);
        arrow->end->setCoords(x0 + 0.5 * ux, y0 + 0.5 * uy);
      }
    plot_->yAxis->setLabel(QString::fromStdString(r.parameters[1]));
    plot_->xAxis->setRange(a.front() - 0.5 * da, a.back() + 0.5 * da);
    plot_->yAxis->setRange(b.front() - 0.5 * db, b.back() + 0.5 * db);
  }
  plot_->replot();
}

int SweepPanel::variantAt(double x, double y) const {
  if (!result_ || result_->rows() == 0) return -1;
  const sweep::SweepResult& r = *result_;
  const std::size_t width = r.columns.size(), np = r.parameters.size();
  const auto costAt = std::find(r.costs.begin(), r.costs.end(), cost_->currentText().toStdString());
  // distances in units of each axis' visible span
  const double sx = std::max(plot_->xAxis->range().size(), 1e-300), sy = std::max(plot_->yAxis->range().size(), 1e-300);
  int best = -1;
  double bestDistance = INFINITY;
  for (std::size_t i = 0; i < r.rows(); ++i) {
    if (!r.errors[i].empty()) continue;
    const double px = r.table[i * width];
    const double py = np == 1 ? (costAt == r.costs.end() ? y : r.table[i * width + np + static_cast<std::size_t>(costAt - r.costs.begin())])
                              : r.table[i * width + 1];
    const double d = std::hypot((px - x) / sx, (py - y) / sy);
    if (d < bestDistance) bestDistance = d, best = static_cast<int>(i);
  }
  return best;
}

void SweepPanel::choose(int row) {
  if (!result_ || row < 0 || static_cast<std::size_t>(row) >= result_->rows()) return;
  const sweep::SweepResult& r = *result_;
  std::vector<double> values(r.table.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * r.columns.size()),
                             r.table.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * r.columns.size() + r.parameters.size()));
  emit designChosen(r.parameters, values);
}

void SweepPanel::clicked(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || running_) return;
  const double x = plot_->xAxis->pixelToCoord(e->position().x()), y = plot_->yAxis->pixelToCoord(e->position().y());
  choose(variantAt(x, y));
}

}  // namespace lw::widgets
