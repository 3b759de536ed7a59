#include "plots/axis_ticks.h"

#include <algorithm>
#include <qcustomplot.h>

namespace lw::widgets {

void fitTicksToHeight(QCustomPlot* plot) {
  QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {  // the axes sized: before their ticks are made
    for (QCPAxisRect* rect : plot->axisRects())
      for (QCPAxis* axis : rect->axes(QCPAxis::atLeft | QCPAxis::atRight)) {
        // the label height with room between: a tick per 30 px at 9–10 pt
        const int count = std::clamp(rect->height() / 30, 2, 5);
        if (axis->ticker() && axis->ticker()->tickCount() != count) axis->ticker()->setTickCount(count);
      }
  });
}

}  // namespace lw::widgets
