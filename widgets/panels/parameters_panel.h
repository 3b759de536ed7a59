// The design parameters of the mechanism as an editable table (name, value, unit, range, ∂ψ/∂ρ,
// description), and a slider for the selected one within its range (teaching, issue 22: drag it
// and the mechanism, its coupler curves and the gradients follow). The panel only reports edits;
// the main window validates them, applies them through the undo stack and shows the accepted
// values again; while the slider is dragged it shows previews.
#pragma once

#include <QWidget>
#include <vector>

class QLabel;
class QSlider;
class QTableWidget;

namespace lw {
struct Parameter;
}

namespace lw::widgets {

class ParametersPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ParametersPanel(QWidget* parent = nullptr);
  void setParameters(const std::vector<Parameter>& parameters);
  QTableWidget* table() const { return table_; }
  QSlider* slider() const { return slider_; }
  /// The parameter the slider moves (−1: none), and the slider's value in its units.
  int sliderParameter() const { return sliderRow_; }
  double sliderValue() const;
  /// Moves the slider to parameter `index`'s value `v` as a drag does (tests): previews follow;
  /// releaseSlider() lets go (the value becomes an edit).
  void dragSliderTo(int index, double v);
  void releaseSlider();
  /// The gradient column: cost `cost` = value and ∂cost/∂(parameter) by parameter (NaN: not
  /// computed), or nothing (empty cost).
  void setGradients(const QString& cost, double value, const std::vector<double>& gradient);
  QLabel* costLabel() const { return cost_; }

 signals:
  /// The user typed a new value for parameter `index` (a literal parameter), or let go of its slider.
  void valueEdited(int index, double value);
  /// The slider of parameter `index` is being dragged through `value`: a preview, not an edit.
  void valuePreviewed(int index, double value);
  /// A field of parameter `index` other than its value typed: "min" or "max" (empty: none).
  void fieldEdited(int index, const QString& key, const QString& text);
  void message(const QString& text);

 private:
  void selectRow(int row);
  QTableWidget* table_;
  QSlider* slider_;
  QLabel *sliderName_, *sliderText_, *cost_;
  std::vector<Parameter> parameters_;
  int sliderRow_ = -1;
  double low_ = 0, high_ = 1;
  bool filling_ = false;
};

}  // namespace lw::widgets
