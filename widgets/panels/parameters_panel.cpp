#include "panels/parameters_panel.h"

#include <QHeaderView>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "mechanism/mechanism.h"

namespace lw::widgets {
namespace {
enum Column { kName, kValue, kUnit, kDescription };
}

ParametersPanel::ParametersPanel(QWidget* parent) : QWidget(parent) {
  table_ = new QTableWidget(0, 4, this);
  table_->setHorizontalHeaderLabels({tr("Name"), tr("Value"), tr("Unit"), tr("Description")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setToolTip(tr("Design parameters: double-click a value to change it (Ctrl+Z undoes)"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(table_);
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (filling_ || item->column() != kValue) return;
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
}

void ParametersPanel::setParameters(const std::vector<Parameter>& parameters) {
  filling_ = true;
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
    const QString value = literal ? QString::number(p.value.value, 'g', QLocale::FloatingPointShortest)
                                  : QString::fromStdString(p.value.expression.text());
    cell(r, kName, QString::fromStdString(p.name), false);
    QTableWidgetItem* v = cell(r, kValue, value, literal);
    v->setData(Qt::UserRole, value);
    v->setToolTip(literal ? QString() : tr("An expression of other parameters: edit those"));
    cell(r, kUnit, QString::fromStdString(p.unit), false);
    cell(r, kDescription, QString::fromStdString(p.description), false);
  }
  table_->resizeColumnsToContents();
  filling_ = false;
}

}  // namespace lw::widgets
