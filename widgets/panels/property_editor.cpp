#include "panels/property_editor.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "mechanism/fields.h"

namespace lw::widgets {

PropertyEditor::PropertyEditor(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  title_ = new QLabel(tr("Select an item in the model tree to edit its numbers"), this);
  title_->setWordWrap(true);
  table_ = new QTableWidget(0, 2, this);
  table_->setObjectName("PropertyTable");
  table_->setHorizontalHeaderLabels({tr("Field"), tr("Value")});
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setToolTip(tr("A number, or an expression of the design parameters (and of t for drivers and applied forces)"));
  // joints: type, points and axes are choices, not numbers: a dialog changes them
  changeJoint_ = new QPushButton(tr("Change type and connections..."), this);
  changeJoint_->setObjectName("ChangeJointButton");
  changeJoint_->setToolTip(tr("Change this joint's type (e.g. pin to slider), its points and axes (Ctrl+Shift+J)"));
  changeJoint_->hide();
  connect(changeJoint_, &QPushButton::clicked, this, [this] {
    if (path_.startsWith("joints[")) emit changeJointRequested(path_.mid(7, path_.indexOf(']') - 7).toInt());
  });
  layout->addWidget(title_);
  layout->addWidget(changeJoint_);
  layout->addWidget(table_, 1);
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (filling_ || item->column() != 1) return;
    emit edited(item->data(Qt::UserRole).toString(), item->text().trimmed());
  });
}

void PropertyEditor::setMechanism(const Mechanism& m) {
  m_ = m;
  refill();
}

void PropertyEditor::showItem(const QString& path) {
  path_ = path;
  refill();
}

void PropertyEditor::refill() {
  filling_ = true;
  table_->setRowCount(0);
  // a joint itself ("joints[3]", not one of its fields)
  changeJoint_->setVisible(path_.startsWith("joints[") && path_.endsWith(']') && path_.count('[') == 1);
  if (path_.isEmpty()) {
    title_->setText(tr("Select an item in the model tree to edit its numbers"));
    filling_ = false;
    return;
  }
  const std::string prefix = path_.toStdString();
  forEachNumber(m_, [&](const FieldVisit& v) {
    const std::string& p = v.path;
    if (p.size() <= prefix.size() || p.compare(0, prefix.size(), prefix) != 0) return;
    if (p[prefix.size()] != '.' && p[prefix.size()] != '[') return;
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* name = new QTableWidgetItem(QString::fromStdString(p.substr(prefix.size() + (p[prefix.size()] == '.' ? 1 : 0))));
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    name->setToolTip(QString::fromStdString(p));
    const QString text = v.number.isLiteral() ? QString::number(v.number.value, 'g', 12) : QString::fromStdString(v.number.expression.text());
    auto* value = new QTableWidgetItem(text);
    value->setData(Qt::UserRole, QString::fromStdString(p));
    value->setToolTip(v.timeAllowed ? tr("a number or an expression of the parameters and t") : tr("a number or an expression of the parameters"));
    table_->setItem(row, 0, name);
    table_->setItem(row, 1, value);
  });
  QString what = path_;
  if (changeJoint_->isVisible()) {
    const auto j = static_cast<std::size_t>(path_.mid(7, path_.indexOf(']') - 7).toInt());
    if (j < m_.joints.size())
      what = tr("Joint %1 (%2)").arg(QString::fromStdString(m_.joints[j].name), QString::fromUtf8(toString(m_.joints[j].type)));
  }
  title_->setText(table_->rowCount() ? tr("%1: %n number(s)", "", table_->rowCount()).arg(what)
                                     : tr("%1: no numbers to edit").arg(what));
  filling_ = false;
}

}  // namespace lw::widgets
