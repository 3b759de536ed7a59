// The plots' value axes keep their tick labels apart at any height: a dock squeezed to 60 px of
// axis (the Compare-all chart at 1920×1080 under its legend row) asked QCustomPlot's default of
// five ticks and printed "-3-4-5" on top of each other.
#pragma once

class QCustomPlot;

namespace lw::widgets {

/// From now on, at each replot once the layout is done, the value axes of `plot` ask for about one tick per 30 pixels
/// of their height (two at least, the default five at most).
void fitTicksToHeight(QCustomPlot* plot);

}  // namespace lw::widgets
