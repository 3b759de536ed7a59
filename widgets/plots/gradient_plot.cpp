#include "plots/gradient_plot.h"
#include "plots/legend_row.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <qcustomplot.h>

#include "plots/axis_ticks.h"

#include "sensitivity/sensitivity.h"

namespace lw::widgets {
namespace {

const QColor kMethodColours[] = {QColor(48, 128, 192), QColor(208, 64, 48), QColor(64, 160, 96), QColor(160, 112, 32)};
const char* methodName(sens::Method m) {
  switch (m) {
    case sens::Method::Direct: return "direct";
    case sens::Method::Adjoint: return "adjoint";
    case sens::Method::ComplexStep: return "complex step";
    case sens::Method::FiniteDifferences: return "differences";
    case sens::Method::Compare: return "compare";
  }
  return "";
}

}  // namespace

GradientPlot::GradientPlot(QWidget* parent) : QWidget(parent) {
  cost_ = new QComboBox(this);
  cost_->setObjectName("GradientCost");
  cost_->setToolTip(tr("The cost whose gradient is shown"));
  relative_ = new QCheckBox(tr("Relative"), this);
  relative_->setObjectName("GradientRelative");
  relative_->setToolTip(tr("ρ/ψ · ∂ψ/∂ρ: the change of the cost in percent per percent of the parameter, so that lengths and masses compare"));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  plot_ = new QCustomPlot(this);
  fitTicksToHeight(plot_);
  plot_->setObjectName("GradientPlotArea");
  plot_->setMinimumHeight(140);
  plot_->setMouseTracking(true);
  // the methods' legend goes in a row above the bars when methods are compared (showLegendAbove):
  // inside the axes it hid the smallest bars, which the sorting puts where the legend sat
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->simplify();
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setVisible(false);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Cost"), this));
  top->addWidget(cost_, 1);
  top->addWidget(relative_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(plot_, 1);
  layout->addWidget(summary_);
  connect(cost_, &QComboBox::currentIndexChanged, this, &GradientPlot::redraw);
  connect(relative_, &QCheckBox::toggled, this, &GradientPlot::redraw);
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    const int index = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(e->pos().x()))) - 1;
    if (index < 0 || index >= static_cast<int>(bars_.size())) {
      QToolTip::hideText();
      return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), barText(index), plot_);
  });
  clear();
}

void GradientPlot::clear() {
  result_.reset();
  bars_.clear();
  cost_->clear();
  plot_->clearPlottables();
  plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  summary_->setText(tr("Run a study (Study panel) to see which parameters matter"));
  plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
}

void GradientPlot::setResult(std::shared_ptr<const sens::SensitivityResult> r, std::vector<double> parameterValues) {
  const QString previous = cost_->currentText();
  result_ = std::move(r);
  values_ = std::move(parameterValues);
  const QSignalBlocker block(cost_);
  cost_->clear();
  if (result_)
    for (const auto& c : result_->costs) cost_->addItem(QString::fromStdString(c));
  const int keep = cost_->findText(previous);
  cost_->setCurrentIndex(keep >= 0 ? keep : 0);
  redraw();
}

QString GradientPlot::barText(int index) const {
  if (!result_ || index < 0 || index >= static_cast<int>(bars_.size())) return {};
  const Bar& b = bars_[static_cast<std::size_t>(index)];
  const QString cost = cost_->currentText();
  const QString what = relative_->isChecked() ? tr("ρ/ψ · ∂%1/∂%2").arg(cost, QString::fromStdString(b.parameter))
                                              : tr("∂%1/∂%2").arg(cost, QString::fromStdString(b.parameter));
  QStringList lines;
  // the complex step is the reference the others are compared with
  int reference = -1;
  for (std::size_t m = 0; m < result_->methods.size(); ++m)
    if (result_->methods[m].method == sens::Method::ComplexStep) reference = static_cast<int>(m);
  for (std::size_t m = 0; m < b.values.size(); ++m) {
    QString line = result_->methods.size() > 1 ? QStringLiteral("%1 (%2) = %3").arg(what, methodName(result_->methods[m].method))
                                                   .arg(b.values[m], 0, 'g', 10)
                                               : QStringLiteral("%1 = %2").arg(what).arg(b.values[m], 0, 'g', 10);
    if (reference >= 0 && static_cast<int>(m) != reference) {
      const double ref = b.values[static_cast<std::size_t>(reference)];
      line += tr("  (rel. diff. %1)").arg(std::abs(b.values[m] - ref) / std::max(std::abs(ref), 1e-300), 0, 'g', 3);
    }
    lines << line;
  }
  return lines.join('\n');
}

void GradientPlot::redraw() {
  plot_->clearPlottables();
  bars_.clear();
  const int c = cost_->currentIndex();
  if (!result_ || c < 0 || result_->methods.empty()) {
    plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
    return;
  }
  const auto nm = result_->methods.size();
  const auto np = result_->parameters.size();
  const double psi = result_->methods.front().values[static_cast<std::size_t>(c)];
  const bool relative = relative_->isChecked();
  for (std::size_t k = 0; k < np; ++k) {
    Bar b;
    b.parameter = result_->parameters[k];
    for (std::size_t m = 0; m < nm; ++m) {
      double g = result_->methods[m].gradient(c, static_cast<Eigen::Index>(k));
      if (relative) g = (k < values_.size() && psi != 0) ? g * values_[k] / psi : 0.0;
      b.values.push_back(g);
    }
    bars_.push_back(std::move(b));
  }
  std::stable_sort(bars_.begin(), bars_.end(), [](const Bar& a, const Bar& b) { return std::abs(a.values[0]) > std::abs(b.values[0]); });
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  QVector<double> keys;
  for (std::size_t i = 0; i < bars_.size(); ++i) {
    keys << static_cast<double>(i + 1);
    ticker->addTick(static_cast<double>(i + 1), QString::fromStdString(bars_[i].parameter));
  }
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setTickLabelRotation(bars_.size() > 8 ? 60 : 0);
  plot_->xAxis->setRange(0.4, static_cast<double>(bars_.size()) + 0.6);
  auto* group = nm > 1 ? new QCPBarsGroup(plot_) : nullptr;
  double lo = 0, hi = 0;
  for (std::size_t m = 0; m < nm; ++m) {
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setName(methodName(result_->methods[m].method));
    QVector<double> values;
    for (const auto& b : bars_) {
      values << b.values[m];
      lo = std::min(lo, b.values[m]);
      hi = std::max(hi, b.values[m]);
    }
    bars->setData(keys, values, true);
    bars->setWidth(nm > 1 ? 0.8 / static_cast<double>(nm) : 0.6);
    const QColor colour = kMethodColours[m % std::size(kMethodColours)];
    bars->setPen(QPen(colour.darker(130)));
    bars->setBrush(colour);
    if (group) bars->setBarsGroup(group);
  }
  const double pad = 0.08 * std::max(hi - lo, 1e-300);
  plot_->yAxis->setRange(lo - (lo < 0 ? pad : 0), hi + (hi > 0 ? pad : 0));
  plot_->yAxis->setLabel(relative ? tr("ρ/ψ · ∂ψ/∂ρ") : tr("∂ψ/∂ρ"));
  showLegendAbove(plot_, nm > 1);
  plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
  QString text = tr("%1 = %2; the largest: %3").arg(cost_->currentText()).arg(psi, 0, 'g', 6).arg(QString::fromStdString(bars_.front().parameter));
  if (!relative) text += tr(" (units differ between parameters: tick Relative to compare them)");
  summary_->setText(text);
}

}  // namespace lw::widgets
