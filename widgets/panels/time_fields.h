// The fields of a run's time span shared by the panels that start runs (analysis, study).
#pragma once

#include <QDoubleSpinBox>

namespace lw::widgets {

/// A field in seconds: the end time (0.001 … 10⁵ s, 3 decimals, 1 s) or a step (10⁻⁶ … 10 s,
/// 6 decimals, 0.01 s).
inline QDoubleSpinBox* secondsField(QWidget* parent, bool step) {
  auto* f = new QDoubleSpinBox(parent);
  f->setRange(step ? 1e-6 : 0.001, step ? 10 : 1e5);
  f->setDecimals(step ? 6 : 3);
  f->setSuffix(" s");
  f->setValue(step ? 0.01 : 1);
  return f;
}

}  // namespace lw::widgets
