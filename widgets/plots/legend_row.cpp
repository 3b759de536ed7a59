#include "plots/legend_row.h"

#include <qcustomplot.h>

namespace lw::widgets {

void showLegendAbove(QCustomPlot* plot, bool on) {
  QCPLayoutGrid* grid = plot->plotLayout();
  const bool placed = grid->elementCount() > 1 && grid->element(0, 0) == plot->legend;
  if (on && !placed) {
    grid->insertRow(0);
    grid->addElement(0, 0, plot->legend);
    grid->setRowStretchFactor(0, 0.001);
  } else if (!on && placed) {
    grid->take(plot->legend);
    grid->simplify();
  }
  plot->legend->setVisible(on);
}

}  // namespace lw::widgets
