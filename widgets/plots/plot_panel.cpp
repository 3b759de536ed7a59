#include "plots/plot_panel.h"
#include "plots/legend_row.h"

#include <algorithm>
#include <set>
#include <numbers>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "plots/axis_ticks.h"

#include <cmath>
#include <limits>

#include "outputs/csv.h"
#include "mechanism/mechanism.h"
#include "panels/analysis_panel.h"

namespace lw::widgets {
namespace {

// distinguishable on white, in the order curves are added
const QColor kPalette[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44), QColor(255, 127, 14),
                           QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(23, 190, 207)};

int columnIndex(const RunResults& r, const QString& name) {
  const std::string n = name.toStdString();
  for (std::size_t c = 0; c < r.columns.size(); ++c)
    if (r.columns[c] == n) return static_cast<int>(c);
  return -1;
}

// angles are shown in degrees (the run and its CSV keep radians); a column's factor and unit shown
double shownScale(const RunResults& r, int c) {
  if (c < 0 || static_cast<std::size_t>(c) >= r.units.size()) return 1;
  const std::string& u = r.units[static_cast<std::size_t>(c)];
  return u == "rad" || u == "rad/s" ? 180 / std::numbers::pi : 1;
}
QString shownUnit(const RunResults& r, int c) {
  if (c < 0 || static_cast<std::size_t>(c) >= r.units.size()) return {};
  const std::string& u = r.units[static_cast<std::size_t>(c)];
  if (u == "rad") return QStringLiteral("°");
  if (u == "rad/s") return QStringLiteral("°/s");
  return QString::fromStdString(u);
}
QString withUnit(const QString& name, const QString& unit) { return unit.isEmpty() ? name : name + " (" + unit + ")"; }

// a length: metres by the run's units (point coordinates, outputs, spring lengths); without units
// (a result made elsewhere), a point's coordinate ("crank.B.x" beside its velocity "crank.B.vx")
bool isLength(const RunResults& r, const QString& name) {
  const int c = columnIndex(r, name);
  if (c >= 0 && static_cast<std::size_t>(c) < r.units.size()) return r.units[static_cast<std::size_t>(c)] == "m";
  static const QStringList axes{".x", ".y", ".z"};
  for (const QString& a : axes)
    if (name.endsWith(a)) return columnIndex(r, name.chopped(2) + ".v" + a.back()) >= 0;
  return false;
}

}  // namespace

PlotPanel::PlotPanel(QWidget* parent) : QWidget(parent) {
  x_ = new QComboBox(this);
  x_->setToolTip(tr("Horizontal axis: time or any other column (e.g. an output angle against the crank angle)"));
  x_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  x_->setMinimumContentsLength(14);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter columns"));
  filter_->setClearButtonEnabled(true);
  ys_ = new QListWidget(this);
  ys_->setToolTip(tr("Tick the columns to plot; right-click one to make a cost of it"));
  ys_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(ys_, &QListWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    QListWidgetItem* item = ys_->itemAt(at);
    if (!item) return;
    QMenu* menu = columnMenu(item->text());
    menu->exec(ys_->viewport()->mapToGlobal(at));
    menu->deleteLater();
  });
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export..."));
  exportButton->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
  exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  exportButton->setToolTip(tr("Save the plot as PNG or PDF, or the results as CSV"));

  // dynamics presets: the energy balance and the constraint drift against time
  energies_ = new QToolButton(this);
  energies_->setObjectName("EnergiesPreset");
  energies_->setText(tr("Energies"));
  energies_->setToolTip(tr("Kinetic, potential and total energy against time"));
  residuals_ = new QToolButton(this);
  residuals_->setText(tr("Residuals"));
  residuals_->setToolTip(tr("Norms of the position and velocity constraint residuals against time"));
  connect(energies_, &QToolButton::clicked, this,
          [this] { plotColumns("time", {"energy.kinetic", "energy.potential", "energy.total"}); });
  connect(residuals_, &QToolButton::clicked, this,
          [this] { plotColumns("time", {"constraint.position", "constraint.velocity"}); });

  plot_ = new QCustomPlot(this);
  fitTicksToHeight(plot_);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->legend->setVisible(false);  // shown once there are curves
  plot_->legend->setFont(QFont(font().family(), 8));
  // the legend in a row above the axes (showLegendAbove), four names a line: inside them it covered
  // the curves (the five-bar's v2.y under its box at 1280×800)
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->setRowSpacing(0);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot_->legend->setWrap(4);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setMargins(QMargins(4, 0, 4, 0));
  plot_->xAxis->setLabel("time (s)");
  plot_->setMinimumHeight(160);
  cursor_ = new QCPItemStraightLine(plot_);
  cursor_->setPen(QPen(QColor(80, 80, 80), 1, Qt::DashLine));
  cursor_->setVisible(false);

  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  auto* xRow = new QHBoxLayout;
  xRow->addWidget(new QLabel(tr("x"), side));
  xRow->addWidget(x_, 1);
  sideLayout->addLayout(xRow);
  sideLayout->addWidget(filter_);
  sideLayout->addWidget(ys_, 1);
  auto* presets = new QHBoxLayout;
  presets->addWidget(energies_);
  presets->addWidget(residuals_);
  presets->addStretch(1);
  sideLayout->addLayout(presets);
  sideLayout->addWidget(exportButton);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(side);
  split->addWidget(plot_);
  split->setStretchFactor(1, 1);
  split->setSizes({200, 600});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);

  connect(x_, &QComboBox::currentIndexChanged, this, [this] { replot(); });
  connect(ys_, &QListWidget::itemChanged, this, [this] { replot(); });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    for (int i = 0; i < ys_->count(); ++i)
      ys_->item(i)->setHidden(!text.isEmpty() && !ys_->item(i)->text().contains(text, Qt::CaseInsensitive));
  });
  connect(exportButton, &QToolButton::clicked, this, &PlotPanel::exportDialog);
  // a click seeks playback: against time, the row at that time; against another column, the row
  // whose plotted point is nearest on screen
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (!results_ || results_->rows == 0 || e->button() != Qt::LeftButton) return;
    const RunResults& r = *results_;
    const std::size_t n = r.columns.size();
    const int xi = std::max(0, columnIndex(r, x_->currentText()));
    const QStringList ys = plottedColumns();
    const int yi = ys.isEmpty() ? -1 : columnIndex(r, ys.first());
    double best = std::numeric_limits<double>::infinity();
    int bestRow = 0;
    for (std::size_t i = 0; i < r.rows; ++i) {
      const double px = plot_->xAxis->coordToPixel(shownScale(r, xi) * r.values[i * n + static_cast<std::size_t>(xi)]);
      const double py = yi >= 0 && xi != 0 ? plot_->yAxis->coordToPixel(shownScale(r, yi) * r.values[i * n + static_cast<std::size_t>(yi)])
                                           : e->pos().y();
      const double d = std::hypot(px - e->pos().x(), py - e->pos().y());
      if (d < best) best = d, bestRow = static_cast<int>(i);
    }
    emit rowRequested(bestRow);
  });
  setEnabled(false);
}

void PlotPanel::setResults(std::shared_ptr<const RunResults> r) {
  const QString oldX = x_->currentText();
  QStringList keep = plottedColumns();
  results_ = std::move(r);
  updating_ = true;
  x_->clear();
  ys_->clear();
  if (results_) {
    for (const auto& c : results_->columns) {
      const QString name = QString::fromStdString(c);
      x_->addItem(name);
      if (name == "time") continue;
      auto* item = new QListWidgetItem(name, ys_);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Unchecked);
    }
  }
  updating_ = false;
  setEnabled(results_ && results_->rows > 0);
  energies_->setEnabled(results_ && columnIndex(*results_, "energy.total") >= 0);
  residuals_->setEnabled(results_ && columnIndex(*results_, "constraint.position") >= 0);
  if (!results_) {
    plot_->clearPlottables();
    cursor_->setVisible(false);
    plot_->replot();
    return;
  }
  // keep the user's choice when it still applies; else the first column after time that moves (a
  // ground pivot's coordinate is a flat line)
  keep.erase(std::remove_if(keep.begin(), keep.end(), [&](const QString& c) { return columnIndex(*results_, c) < 0; }),
             keep.end());
  if (keep.isEmpty() && results_->columns.size() > 1) {
    const std::size_t n = results_->columns.size(), rows = results_->values.size() / n;
    std::size_t pick = 1;
    for (std::size_t c = 1; c < n && rows > 1; ++c) {
      double lo = results_->values[c], hi = lo;
      for (std::size_t r = 1; r < rows; ++r) {
        const double v = results_->values[r * n + c];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (hi - lo > 1e-9 * std::max(1.0, std::max(std::abs(lo), std::abs(hi)))) {
        pick = c;
        break;
      }
    }
    keep << QString::fromStdString(results_->columns[pick]);
  }
  plotColumns(columnIndex(*results_, oldX) >= 0 ? oldX : QStringLiteral("time"), keep);
  filter_->setText(filter_->text());  // re-apply the filter to the new rows
}

void PlotPanel::reset() {
  setResults(nullptr);
  filter_->clear();
  for (auto* line : impactLines_) plot_->removeItem(line);
  impactLines_.clear();
  showLegendAbove(plot_, false);
  plot_->xAxis->setLabel(QStringLiteral("time (s)"));
  plot_->yAxis->setLabel(QString());
  plot_->xAxis->setRange(0, 1);
  plot_->yAxis->setRange(0, 1);
  cursorRow_ = 0;
  plot_->replot();
}

QString PlotPanel::filterText() const { return filter_->text(); }

void PlotPanel::plotColumns(const QString& x, const QStringList& ys) {
  updating_ = true;
  const int xi = x_->findText(x);
  if (xi >= 0) x_->setCurrentIndex(xi);
  for (int i = 0; i < ys_->count(); ++i)
    ys_->item(i)->setCheckState(ys.contains(ys_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
  updating_ = false;
  replot();
}

QStringList PlotPanel::plottedColumns() const {
  QStringList out;
  for (int i = 0; i < ys_->count(); ++i)
    if (ys_->item(i)->checkState() == Qt::Checked) out << ys_->item(i)->text();
  return out;
}

void PlotPanel::replot() {
  if (updating_) return;
  plot_->clearPlottables();
  if (!results_ || results_->rows == 0) {
    plot_->replot();
    return;
  }
  const RunResults& r = *results_;
  const std::size_t n = r.columns.size();
  const int xi = std::max(0, columnIndex(r, x_->currentText()));
  const bool againstTime = xi == 0;
  auto column = [&](int c) {
    const double scale = shownScale(r, c);
    QVector<double> v(static_cast<qsizetype>(r.rows));
    for (std::size_t i = 0; i < r.rows; ++i) v[static_cast<qsizetype>(i)] = scale * r.values[i * n + static_cast<std::size_t>(c)];
    return v;
  };
  const QVector<double> xs = column(xi);
  std::set<QString> units;  // of the plotted columns: the y axis says it when they share one
  int k = 0;
  for (const QString& name : plottedColumns()) {
    const int yi = columnIndex(r, name);
    if (yi < 0) continue;
    const QPen pen(kPalette[k++ % std::size(kPalette)], 1.5);
    if (againstTime) {  // sorted keys: the fast graph
      QCPGraph* g = plot_->addGraph();
      g->setData(xs, column(yi), true);
      g->setPen(pen);
      g->setName(withUnit(name, shownUnit(r, yi)));
    } else {  // any curve, in time order (a coupler curve, a phase portrait)
      auto* c = new QCPCurve(plot_->xAxis, plot_->yAxis);
      c->setData(xs, column(yi));
      c->setPen(pen);
      c->setName(withUnit(name, shownUnit(r, yi)));
    }
    units.insert(shownUnit(r, yi));
  }
  // the impacts against time: a dashed line at each (the run's rows jump there: two at its time)
  for (auto* line : impactLines_) plot_->removeItem(line);
  impactLines_.clear();
  if (againstTime)
    for (const auto& e : r.events) {
      auto* line = new QCPItemStraightLine(plot_);
      line->point1->setCoords(e.t, 0);
      line->point2->setCoords(e.t, 1);
      line->setPen(QPen(QColor(140, 140, 140), 1, Qt::DashLine));
      line->setSelectable(false);
      impactLines_.push_back(line);
    }
  plot_->xAxis->setLabel(againstTime ? QStringLiteral("time (s)") : withUnit(x_->currentText(), shownUnit(r, xi)));
  plot_->yAxis->setLabel(units.size() == 1 && !units.begin()->isEmpty() ? "(" + *units.begin() + ")" : QString());
  plot_->rescaleAxes();
  // lengths against lengths (a coupler curve, two spring lengths) in true shape: equal scales
  const QStringList ys = plottedColumns();
  if (!againstTime && !ys.isEmpty() && isLength(r, x_->currentText()) &&
      std::all_of(ys.begin(), ys.end(), [&](const QString& y) { return isLength(r, y); }))
  {
    // widen the tighter axis, so that nothing of the curve is cut
    const double perPixelX = plot_->xAxis->range().size() / std::max(1, plot_->axisRect()->width());
    const double perPixelY = plot_->yAxis->range().size() / std::max(1, plot_->axisRect()->height());
    if (perPixelY < perPixelX) plot_->yAxis->setScaleRatio(plot_->xAxis, 1.0);
    else plot_->xAxis->setScaleRatio(plot_->yAxis, 1.0);
  }
  showLegendAbove(plot_, plot_->plottableCount() > 0);
  setCursorRow(cursorRow_);
}

void PlotPanel::setCursorRow(int row) {
  cursorRow_ = row;
  if (!results_ || row < 0 || static_cast<std::size_t>(row) >= results_->rows) {
    cursor_->setVisible(false);
    plot_->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const std::size_t n = results_->columns.size();
  const int xi = std::max(0, columnIndex(*results_, x_->currentText()));
  const double x = shownScale(*results_, xi) * results_->values[static_cast<std::size_t>(row) * n + static_cast<std::size_t>(xi)];
  cursor_->point1->setCoords(x, 0);
  cursor_->point2->setCoords(x, 1);
  cursor_->setVisible(true);
  plot_->replot(QCustomPlot::rpQueuedReplot);  // at most one repaint per event-loop pass during playback
}

bool PlotPanel::exportPng(const QString& path) { return plot_->savePng(path, 0, 0, 2.0); }
bool PlotPanel::exportPdf(const QString& path) { return plot_->savePdf(path); }

bool PlotPanel::exportSvg(const QString& path) {
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(plot_->size());
  svg.setViewBox(QRect(QPoint(0, 0), plot_->size()));
  svg.setTitle(QStringLiteral("Linkwright plot"));
  QCPPainter painter;
  if (!painter.begin(&svg)) return false;
  plot_->toPainter(&painter, plot_->width(), plot_->height());
  painter.end();
  return QFileInfo(path).size() > 0;
}

bool PlotPanel::exportCsv(const QString& path, QString* error) {
  if (!results_) {
    if (error) *error = tr("There are no results to export");
    return false;
  }
  const std::string text = analysis::tableToCsv(results_->columns, results_->values);
  QSaveFile f(path);  // temporary file, then rename: an interrupted export leaves the old file
  if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()) ||
      !f.commit()) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

void PlotPanel::exportDialog() {
  QString selected;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export"), exportBase_.isEmpty() ? QString() : exportBase_ + "-plot.png",
                                                    tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;Results as CSV (*.csv)"), &selected);
  if (path.isEmpty()) return;
  const QString suffix = QFileInfo(path).suffix().toLower();
  bool ok = false;
  QString error;
  if (suffix == "pdf" || (suffix.isEmpty() && selected.startsWith("PDF"))) ok = exportPdf(path);
  else if (suffix == "svg" || (suffix.isEmpty() && selected.startsWith("SVG"))) ok = exportSvg(path);
  else if (suffix == "csv" || (suffix.isEmpty() && selected.startsWith("Results"))) ok = exportCsv(path, &error);
  else ok = exportPng(path);
  emit message(ok ? tr("Exported %1").arg(path) : (error.isEmpty() ? tr("Could not export %1").arg(path) : error));
}

QMenu* PlotPanel::columnMenu(const QString& column) {
  auto* menu = new QMenu(this);
  QMenu* make = menu->addMenu(tr("Make Cost of %1").arg(column));
  make->setObjectName("MakeCost");
  const std::pair<const char*, QString> kinds[] = {{"MakeCostIntegral", tr("Integral over the run (∫ %1 dt)...")},
                                                   {"MakeCostTerminal", tr("Value at the end...")},
                                                   {"MakeCostMinimum", tr("Least value...")},
                                                   {"MakeCostMaximum", tr("Greatest value...")}};
  const Cost::Type types[] = {Cost::Type::Integral, Cost::Type::Terminal, Cost::Type::Minimum, Cost::Type::Maximum};
  for (int k = 0; k < 4; ++k) {
    QAction* a = make->addAction(kinds[k].second.contains("%1") ? kinds[k].second.arg(column) : kinds[k].second, this,
                                 [this, column, type = types[k]] { emit costRequested(column, static_cast<int>(type)); });
    a->setObjectName(kinds[k].first);
  }
  return menu;
}

}  // namespace lw::widgets
