#include "panels/parameters_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "mechanism/mechanism.h"

namespace lw::widgets {
namespace {
enum Column { kName, kValue, kUnit, kMin, kMax, kGradient, kDescription };
constexpr int kSteps = 1000;  // slider positions over a parameter's range
}

ParametersPanel::ParametersPanel(QWidget* parent) : QWidget(parent) {
  table_ = new QTableWidget(0, 7, this);
  table_->setHorizontalHeaderLabels({tr("Name"), tr("Value"), tr("Unit"), tr("Min"), tr("Max"), tr("∂ψ/∂ρ"), tr("Description")});
  table_->horizontalHeaderItem(kMin)->setToolTip(tr("The least value the slider, a tuning or an edit may give it (empty: none)"));
  table_->horizontalHeaderItem(kMax)->setToolTip(tr("The greatest value the slider, a tuning or an edit may give it (empty: none)"));
  table_->horizontalHeaderItem(kGradient)->setToolTip(tr("The gradient of the first cost with respect to each parameter, updated as a slider moves"));
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setWordWrap(false);  // numbers on one line; the description is elided
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setToolTip(tr("Design parameters: double-click a value or a range end to change it (Ctrl+Z undoes); select one to "
                        "move it with the slider; Model > Add Parameter... makes a new one"));
  sliderName_ = new QLabel(this);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName("ParameterSlider");
  slider_->setRange(0, kSteps);
  slider_->setToolTip(tr("Drag to change the selected parameter within its range: the mechanism, its coupler curves and the "
                         "gradients follow; letting go keeps the value (Ctrl+Z undoes)"));
  slider_->setEnabled(false);
  sliderText_ = new QLabel(this);
  sliderText_->setMinimumWidth(70);
  cost_ = new QLabel(this);
  cost_->setWordWrap(true);
  auto* sliderRow = new QHBoxLayout;
  sliderRow->addWidget(sliderName_);
  sliderRow->addWidget(slider_, 1);
  sliderRow->addWidget(sliderText_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(table_, 1);
  layout->addLayout(sliderRow);
  layout->addWidget(cost_);
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (filling_) return;
    if (item->column() == kMin || item->column() == kMax) {
      const QString text = item->text().trimmed();
      {
        const QSignalBlocker block(table_);
        item->setText(item->data(Qt::UserRole).toString());  // shown again when the window accepts it
      }
      return emit fieldEdited(item->row(), item->column() == kMin ? QStringLiteral("min") : QStringLiteral("max"), text);
    }
    if (item->column() != kValue) return;
    bool ok = false;
    const double v = item->text().trimmed().toDouble(&ok);
    const int row = item->row();
    if (!ok || !std::isfinite(v)) {
      emit message(tr("Parameter %1: \"%2\" is not a number").arg(table_->item(row, kName)->text(), item->text()));
      const QSignalBlocker block(table_);
      item->setText(item->data(Qt::UserRole).toString());  // back to the accepted value
      return;
    }
    emit valueEdited(row, v);
  });
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { selectRow(row); });
  connect(slider_, &QSlider::valueChanged, this, [this] {
    if (filling_ || sliderRow_ < 0) return;
    sliderText_->setText(QString::number(sliderValue(), 'g', 4));
    if (slider_->isSliderDown()) emit valuePreviewed(sliderRow_, sliderValue());
    else emit valueEdited(sliderRow_, sliderValue());  // a click on the groove or a key: one step, an edit
  });
  connect(slider_, &QSlider::sliderReleased, this, [this] {
    if (sliderRow_ >= 0) emit valueEdited(sliderRow_, sliderValue());
  });
}

double ParametersPanel::sliderValue() const { return low_ + (high_ - low_) * slider_->value() / kSteps; }

void ParametersPanel::dragSliderTo(int index, double v) {
  if (index != sliderRow_) table_->setCurrentCell(index, kName);
  if (sliderRow_ != index) return;
  if (!slider_->isSliderDown()) slider_->setSliderDown(true);
  slider_->setValue(static_cast<int>(std::lround((v - low_) / (high_ - low_) * kSteps)));
}

void ParametersPanel::releaseSlider() { slider_->setSliderDown(false); }

void ParametersPanel::selectRow(int row) {
  const bool usable = row >= 0 && row < static_cast<int>(parameters_.size()) && parameters_[static_cast<std::size_t>(row)].value.isLiteral();
  sliderRow_ = usable ? row : -1;
  slider_->setEnabled(usable);
  if (!usable) {
    sliderName_->setText(row >= 0 && row < static_cast<int>(parameters_.size()) ? tr("(an expression)") : QString());
    sliderText_->clear();
    return;
  }
  const Parameter& p = parameters_[static_cast<std::size_t>(row)];
  const double v = p.value.value;
  // the range: the parameter's, else half to one and a half times its value
  const double span = std::max(std::abs(v), 1e-3);
  low_ = p.hasMin ? p.min : v - 0.5 * span;
  high_ = p.hasMax ? p.max : v + 0.5 * span;
  if (!(high_ > low_)) high_ = low_ + span;
  const QSignalBlocker block(slider_);
  slider_->setValue(static_cast<int>(std::lround((std::clamp(v, low_, high_) - low_) / (high_ - low_) * kSteps)));
  sliderName_->setText(QString::fromStdString(p.name));
  sliderText_->setText(QString::number(v, 'g', 4));
}

void ParametersPanel::setGradients(const QString& cost, double value, const std::vector<double>& gradient) {
  const QSignalBlocker block(table_);
  double largest = 0;
  for (double g : gradient)
    if (std::isfinite(g)) largest = std::max(largest, std::abs(g));
  for (int r = 0; r < table_->rowCount(); ++r) {
    QTableWidgetItem* item = table_->item(r, kGradient);
    if (!item) continue;
    const double g = static_cast<std::size_t>(r) < gradient.size() ? gradient[static_cast<std::size_t>(r)] : NAN;
    if (cost.isEmpty() || !std::isfinite(g)) {
      item->setText(QString());
      item->setBackground(QBrush());
      continue;
    }
    // the sign by colour (green raises the cost, red lowers it), the size by its strength
    item->setText(QString::number(g, 'g', 3));
    QColor c = g >= 0 ? QColor(60, 170, 80) : QColor(210, 70, 60);
    c.setAlpha(largest > 0 ? static_cast<int>(30 + 150 * std::abs(g) / largest) : 30);
    item->setBackground(c);
  }
  table_->resizeColumnToContents(kGradient);
  cost_->setText(cost.isEmpty() ? QString() : tr("%1 = %2 (∂%1/∂ρ in the table: green raises it, red lowers it)").arg(cost).arg(value, 0, 'g', 6));
}

void ParametersPanel::setParameters(const std::vector<Parameter>& parameters) {
  filling_ = true;
  parameters_ = parameters;
  table_->setRowCount(static_cast<int>(parameters.size()));
  // items are updated in place: this runs inside the table's own itemChanged signal after an edit
  auto cell = [this](int r, int c, const QString& text, bool editable) {
    QTableWidgetItem* item = table_->item(r, c);
    if (item == nullptr) {
      item = new QTableWidgetItem;
      table_->setItem(r, c, item);
    }
    item->setText(text);
    item->setFlags(editable ? item->flags() | Qt::ItemIsEditable : item->flags() & ~Qt::ItemIsEditable);
    return item;
  };
  for (int r = 0; r < static_cast<int>(parameters.size()); ++r) {
    const Parameter& p = parameters[static_cast<std::size_t>(r)];
    const bool literal = p.value.isLiteral();
    // eight digits shown (a tuned value has seventeen; the tooltip has them all)
    const QString value = literal ? QString::number(p.value.value, 'g', 8) : QString::fromStdString(p.value.expression.text());
    cell(r, kName, QString::fromStdString(p.name), false);
    QTableWidgetItem* v = cell(r, kValue, value, literal);
    v->setData(Qt::UserRole, value);
    v->setToolTip(literal ? QString::number(p.value.value, 'g', QLocale::FloatingPointShortest) : tr("An expression of other parameters: edit those"));
    cell(r, kUnit, QString::fromStdString(p.unit), false);
    const QString low = p.hasMin ? QString::number(p.min, 'g', QLocale::FloatingPointShortest) : QString();
    const QString high = p.hasMax ? QString::number(p.max, 'g', QLocale::FloatingPointShortest) : QString();
    cell(r, kMin, low, true)->setData(Qt::UserRole, low);
    cell(r, kMax, high, true)->setData(Qt::UserRole, high);
    if (!table_->item(r, kGradient)) cell(r, kGradient, QString(), false);
    cell(r, kDescription, QString::fromStdString(p.description), false);
  }
  table_->resizeColumnsToContents();
  selectRow(table_->currentRow());  // the slider on the accepted value
  filling_ = false;
}

}  // namespace lw::widgets
