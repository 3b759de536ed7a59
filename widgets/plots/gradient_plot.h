// The gradient plot (issue 22): per cost, a bar of ∂ψ/∂ρᵢ for each parameter, sorted by size;
// relative (ρᵢ/ψ · ∂ψ/∂ρᵢ: lengths and masses compare) on request; hovering a bar shows its
// value; a study that compared methods shows a bar per method side by side, the tooltip their
// relative differences from the complex step. qcustomplot.h stays in the .cpp.
#pragma once

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;

namespace lw::sens {
struct SensitivityResult;
}

namespace lw::widgets {

class GradientPlot : public QWidget {
  Q_OBJECT
 public:
  explicit GradientPlot(QWidget* parent = nullptr);
  /// A study's result and the chosen parameters' values (for the relative gradients).
  void setResult(std::shared_ptr<const sens::SensitivityResult> r, std::vector<double> parameterValues);
  void clear();
  /// One bar as drawn: the parameter and the value per method (the result's order).
  struct Bar {
    std::string parameter;
    std::vector<double> values;
  };
  /// The bars of the cost shown, in the order drawn (left to right).
  const std::vector<Bar>& bars() const { return bars_; }
  /// The text hovering bar `index` shows.
  QString barText(int index) const;
  QComboBox* costChoice() const { return cost_; }
  QCheckBox* relative() const { return relative_; }
  QCustomPlot* plot() const { return plot_; }

 private:
  void redraw();
  std::shared_ptr<const sens::SensitivityResult> result_;
  std::vector<double> values_;
  std::vector<Bar> bars_;
  QComboBox* cost_;
  QCheckBox* relative_;
  QLabel* summary_;
  QCustomPlot* plot_;
};

}  // namespace lw::widgets
