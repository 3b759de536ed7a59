#include "plots/history_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "plots/axis_ticks.h"

namespace lw::widgets {

HistoryPlot::HistoryPlot(QWidget* parent) : QWidget(parent) {
  output_ = new QComboBox(this);
  output_->setObjectName("HistoryOutput");
  output_->setToolTip(tr("The output component whose sensitivity is plotted"));
  parameter_ = new QComboBox(this);
  parameter_->setObjectName("HistoryParameter");
  parameter_->setToolTip(tr("The parameter it is differentiated with respect to"));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  plot_ = new QCustomPlot(this);
  fitTicksToHeight(plot_);
  plot_->setObjectName("HistoryPlotArea");
  plot_->setMinimumHeight(140);
  plot_->xAxis->setLabel(tr("time (s)"));
  // five columns that fit beside the plot at 1280×800 (seven showed four and scrolled): each jump
  // before → after in one, three or four digits, the full numbers in the cells' tooltips
  events_ = new QTableWidget(0, 5, this);
  events_->setObjectName("ImpactLog");
  events_->setHorizontalHeaderLabels({tr("t (s)"), tr("contact"), tr("ṙ⁻→ṙ⁺ (m/s)"), tr("E⁻→E⁺ (J)"), tr("dt/dρ")});
  events_->verticalHeader()->hide();
  events_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  events_->setSelectionBehavior(QAbstractItemView::SelectRows);
  events_->setSelectionMode(QAbstractItemView::SingleSelection);
  events_->setToolTip(tr("The impacts of the run: click one to see the motion there"));
  events_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("d("), this));
  top->addWidget(output_, 1);
  top->addWidget(new QLabel(tr(")/d("), this));
  top->addWidget(parameter_, 1);
  top->addWidget(new QLabel(tr(")"), this));
  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addLayout(top);
  leftLayout->addWidget(plot_, 1);
  leftLayout->addWidget(summary_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(events_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 5);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);
  connect(output_, &QComboBox::currentIndexChanged, this, &HistoryPlot::redraw);
  connect(parameter_, &QComboBox::currentIndexChanged, this, [this] {
    redraw();
    fillEvents();
  });
  connect(events_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (h_ && row >= 0 && row < static_cast<int>(h_->impacts.size())) emit timeRequested(h_->impacts[static_cast<std::size_t>(row)].record.t);
  });
  clear();
}

void HistoryPlot::clear() {
  h_.reset();
  jumps_.clear();
  {
    const QSignalBlocker a(output_), b(parameter_);
    output_->clear();
    parameter_->clear();
  }
  events_->setRowCount(0);
  plot_->clearPlottables();
  plot_->clearItems();
  summary_->setText(tr("Run a study with the direct method (or Compare all) to plot sensitivities against time"));
  plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
}

void HistoryPlot::setHistories(std::shared_ptr<const StudyHistories> h) {
  const QString o = output_->currentText(), p = parameter_->currentText();
  h_ = std::move(h);
  {
    const QSignalBlocker a(output_), b(parameter_);
    output_->clear();
    parameter_->clear();
    if (h_) {
      for (const auto& n : h_->outputs) output_->addItem(QString::fromStdString(n));
      for (const auto& n : h_->parameters) parameter_->addItem(QString::fromStdString(n));
    }
    if (output_->findText(o) >= 0) output_->setCurrentText(o);
    if (parameter_->findText(p) >= 0) parameter_->setCurrentText(p);
  }
  redraw();
  fillEvents();
}

bool HistoryPlot::show(const QString& output, const QString& parameter) {
  if (output_->findText(output) < 0 || parameter_->findText(parameter) < 0) return false;
  const QSignalBlocker a(output_), b(parameter_);
  output_->setCurrentText(output);
  parameter_->setCurrentText(parameter);
  redraw();
  fillEvents();
  return true;
}

void HistoryPlot::fillEvents() {
  events_->setRowCount(0);
  if (!h_) return;
  const int k = parameter_->currentIndex();
  events_->setRowCount(static_cast<int>(h_->impacts.size()));
  auto cell = [this](int r, int c, const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    if (!tip.isEmpty()) item->setToolTip(tip);
    events_->setItem(r, c, item);
  };
  for (int r = 0; r < events_->rowCount(); ++r) {
    const auto& i = h_->impacts[static_cast<std::size_t>(r)];
    const auto& e = i.record;
    QStringList contacts, jumps, exact;
    for (std::size_t c = 0; c < e.contacts.size(); ++c) {
      contacts << QString::fromStdString(e.contacts[c]);
      if (c < e.normalBefore.size() && c < e.normalAfter.size()) {
        jumps << QString::number(e.normalBefore[c], 'g', 3) + " → " + QString::number(e.normalAfter[c], 'g', 3);
        exact << QString::fromStdString(e.contacts[c]) + ": " + QString::number(e.normalBefore[c], 'g', 10) + " → " +
                     QString::number(e.normalAfter[c], 'g', 10) + " m/s";
      }
    }
    cell(r, 0, QString::number(e.t, 'g', 4), tr("t = %1 s").arg(e.t, 0, 'g', 12));
    // besides impacts: a contact that comes to rest (closes with e = 0), one that lets go, a switch
    const QString kind = e.kind == "closes" ? tr(" (rests)") : e.kind == "opens" ? tr(" (lets go)") : e.kind == "switch" ? tr(" (switch)") : QString();
    cell(r, 1, contacts.join(", ") + kind + (e.grazing ? tr(" (grazing)") : QString()));
    cell(r, 2, jumps.join("; "), exact.join("\n"));
    cell(r, 3, QString::number(e.energyBefore, 'g', 3) + " → " + QString::number(e.energyAfter, 'g', 3),
         tr("%1 → %2 J").arg(e.energyBefore, 0, 'g', 10).arg(e.energyAfter, 0, 'g', 10));
    cell(r, 4, k >= 0 && k < static_cast<int>(i.eventTime.size()) ? QString::number(i.eventTime[static_cast<std::size_t>(k)], 'g', 6) : QString());
  }
  if (k >= 0) events_->horizontalHeaderItem(4)->setText(tr("dt/d%1").arg(parameter_->currentText()));
}

void HistoryPlot::redraw() {
  plot_->clearPlottables();
  plot_->clearItems();
  jumps_.clear();
  if (!h_ || h_->rows() == 0 || output_->currentIndex() < 0 || parameter_->currentIndex() < 0) {
    plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
    return;
  }
  const std::string name = "d(" + output_->currentText().toStdString() + ")/d(" + parameter_->currentText().toStdString() + ")";
  const auto it = std::find(h_->columns.begin(), h_->columns.end(), name);
  if (it == h_->columns.end()) {
    plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
    return;
  }
  const std::size_t col = static_cast<std::size_t>(it - h_->columns.begin()), nc = h_->columns.size(), n = h_->rows();
  // a curve, not a graph: two rows at one time (an impact) stay in order, the jump a vertical step
  auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
  curve->setPen(QPen(QColor(48, 128, 192), 1.6));
  QVector<double> ts(static_cast<int>(n)), ys(static_cast<int>(n));
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t r = 0; r < n; ++r) {
    ts[static_cast<int>(r)] = h_->values[r * nc];
    ys[static_cast<int>(r)] = h_->values[r * nc + col];
    lo = std::min(lo, ys[static_cast<int>(r)]);
    hi = std::max(hi, ys[static_cast<int>(r)]);
    if (r > 0 && ts[static_cast<int>(r)] == ts[static_cast<int>(r) - 1]) jumps_.push_back({ts[static_cast<int>(r)], ys[static_cast<int>(r) - 1], ys[static_cast<int>(r)]});
  }
  curve->setData(ts, ys);
  const double pad = 0.08 * std::max(hi - lo, 1e-12);
  plot_->yAxis->setRange(lo - pad, hi + pad);
  plot_->xAxis->setRange(ts.front(), ts.back());
  plot_->yAxis->setLabel(QString::fromStdString(name));
  // the events: a dashed line named by its contact, the jump bold in red; a name that would
  // overlap the one before is left out (ten floor impacts in a second: the log lists them all)
  double lastLabelEnd = -1e300;
  const QFontMetrics labelMetrics(plot_->font());
  for (const auto& i : h_->impacts) {
    auto* line = new QCPItemStraightLine(plot_);
    line->point1->setCoords(i.record.t, 0);
    line->point2->setCoords(i.record.t, 1);
    line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    auto* label = new QCPItemText(plot_);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(i.record.t, 0.02);
    label->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
    QStringList contacts;
    for (const auto& c : i.record.contacts) contacts << QString::fromStdString(c);
    label->setText(contacts.join(", "));
    label->setColor(QColor(90, 90, 90));
    const double x = plot_->xAxis->coordToPixel(i.record.t), half = 0.5 * labelMetrics.horizontalAdvance(label->text()) + 4;
    if (x - half < lastLabelEnd) label->setVisible(false);
    else lastLabelEnd = x + half;
  }
  for (const auto& j : jumps_) {
    auto* seg = new QCPItemLine(plot_);
    seg->start->setCoords(j.t, j.before);
    seg->end->setCoords(j.t, j.after);
    seg->setPen(QPen(QColor(208, 64, 48), 3));
    seg->setHead(QCPLineEnding::esSpikeArrow);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);  // with the next paint: a study's end is one repaint
  summary_->setText(jumps_.empty() ? tr("%1 over %2 rows").arg(QString::fromStdString(name)).arg(n)
                                   : tr("%1: %2 jump(s) at the impacts (red), from just before to just after")
                                         .arg(QString::fromStdString(name))
                                         .arg(jumps_.size()));
}

}  // namespace lw::widgets
