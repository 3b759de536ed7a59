// Plots of a run's columns (QCustomPlot): any columns against time or against another column
// (e.g. output angle against crank angle), several curves, a cursor that follows the playback
// row; export of the plot as PNG/PDF and of the results as CSV. qcustomplot.h stays in the .cpp.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QCustomPlot;
class QLineEdit;
class QListWidget;
class QMenu;
class QToolButton;
class QCPItemStraightLine;

namespace lw::widgets {

struct RunResults;

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlotPanel(QWidget* parent = nullptr);
  /// Shows a new result; keeps the chosen columns when the new result has them.
  void setResults(std::shared_ptr<const RunResults> r);
  /// Another document: no result, no chosen columns, no filter, no legend, axes as new.
  void reset();
  QString filterText() const;
  /// Plots the named columns against `x` ("time" or any other column). Unknown names are ignored.
  void plotColumns(const QString& x, const QStringList& ys);
  QStringList plottedColumns() const;
  QCustomPlot* plot() const { return plot_; }
  /// The context menu of column `column` in the list (Make Cost...), as a right-click there
  /// offers it; the caller owns it (tests trigger its actions by object name).
  QMenu* columnMenu(const QString& column);

  bool exportPng(const QString& path);
  bool exportPdf(const QString& path);
  /// The plot as an SVG drawing (vector: for papers), at the plot's size.
  bool exportSvg(const QString& path);
  /// The whole result table (all columns, full precision); atomic write.
  bool exportCsv(const QString& path, QString* error = nullptr);

  /// Where Export suggests its file: a path without its suffix (the document's folder and name).
  void setExportBase(const QString& pathWithoutSuffix) { exportBase_ = pathWithoutSuffix; }

 public slots:
  void setCursorRow(int row);

 signals:
  void message(const QString& text);
  /// The user clicked the plot: show the row nearest to that point of the curves' x axis.
  void rowRequested(int row);
  /// Make Cost on a column's context menu: a cost of `type` (lw::Cost::Type: integral, end, least
  /// or greatest value) of that column is to be made.
  void costRequested(const QString& column, int type);

 private:
  void replot();
  void exportDialog();
  QString exportBase_;
  std::shared_ptr<const RunResults> results_;
  QComboBox* x_;
  QLineEdit* filter_;
  QListWidget* ys_;
  QToolButton *energies_, *residuals_;
  QCustomPlot* plot_;
  QCPItemStraightLine* cursor_ = nullptr;
  std::vector<QCPItemStraightLine*> impactLines_;  // a dashed line at each impact (against time)
  int cursorRow_ = 0;
  bool updating_ = false;
};

}  // namespace lw::widgets
