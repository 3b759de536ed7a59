// A plot's legend in a row of its own above the axes, while shown: inside the axes it covered the
// curves and bars; an empty legend left in the layout takes height, and bounds its column's width
// by its own (the axes shrank to 50 px).
#pragma once

class QCustomPlot;

namespace lw::widgets {

/// Shows `plot`'s legend in a row above its axes (on), or takes the row away (off).
void showLegendAbove(QCustomPlot* plot, bool on);

}  // namespace lw::widgets
