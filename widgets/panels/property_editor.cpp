#include "panels/property_editor.h"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <numbers>

#include "mechanism/fields.h"
#include "mechanism/edits.h"
#include "mechanism/schema.h"

namespace lw::widgets {

namespace {
// what the window shows in degrees: angles and turning rates (files keep radians)
bool inDegrees(Quantity q) { return q == Quantity::Angle || q == Quantity::AngularVelocity; }
}  // namespace


PropertyEditor::PropertyEditor(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  title_ = new QLabel(tr("Select an item in the model tree to edit its numbers"), this);
  title_->setWordWrap(true);
  table_ = new QTableWidget(0, 3, this);
  table_->setObjectName("PropertyTable");
  table_->setHorizontalHeaderLabels({tr("Field"), tr("Value"), tr("Unit")});
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  table_->verticalHeader()->setVisible(false);
  table_->setToolTip(tr("A number, or an expression of the design parameters (and of t for drivers and applied forces)"));
  // joints, drivers and forces: type and references are choices, not numbers: a dialog changes them
  change_ = new QPushButton(this);
  change_->setObjectName("ChangeItemButton");
  change_->hide();
  connect(change_, &QPushButton::clicked, this, [this] { emit changeRequested(path_); });
  layout->addWidget(title_);
  layout->addWidget(change_);
  layout->addWidget(table_, 1);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QTableWidget::customContextMenuRequested, this, &PropertyEditor::showContextMenu);
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (filling_ || item->column() != 1) return;
    const QString text = item->text().trimmed();
    // an angle (or a turning rate) typed as a number is in degrees (per second); the file keeps
    // radians (an expression is in radians)
    bool number = false;
    const double v = text.toDouble(&number);
    if (number && inDegrees(static_cast<Quantity>(item->data(Qt::UserRole + 1).toInt())))
      return emit edited(item->data(Qt::UserRole).toString(), QString::number(v * std::numbers::pi / 180, 'g', 17));
    emit edited(item->data(Qt::UserRole).toString(), text);
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
  // a joint, driver, force, contact or initial velocity itself ("joints[3]", not one of its fields)
  const bool whole = path_.endsWith(']') && path_.count('[') == 1;
  QString kind;
  if (whole) {
    const std::pair<const char*, QString> kinds[] = {{"joints[", tr("joint")}, {"drivers[", tr("driver")}, {"forces[", tr("force")},
                                                     {"contacts[", tr("contact")}, {"initial_velocities[", tr("initial velocity")}};
    for (const auto& [prefix, name] : kinds)
      if (path_.startsWith(prefix)) kind = name;
  }
  change_->setVisible(!kind.isEmpty());
  if (!kind.isEmpty()) {
    change_->setText(kind == tr("joint") ? tr("Change type and connections...") : tr("Change type and what it acts on..."));
    change_->setToolTip(tr("Change this %1's type and the items it refers to (Ctrl+Shift+J)").arg(kind));
  }
  if (path_.isEmpty()) {
    title_->setText(tr("Select an item in the model tree to edit its numbers"));
    filling_ = false;
    return;
  }
  if (path_.startsWith("parameters[") && !path_.contains('.')) {
    const auto open = path_.indexOf('[');
    fillParameter(static_cast<std::size_t>(path_.mid(open + 1, path_.indexOf(']') - open - 1).toInt()));
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
    // angles and turning rates as literal numbers are shown (and typed) in degrees (per
    // second); expressions stay in radians
    const bool degrees = inDegrees(v.quantity) && v.number.isLiteral();
    const QString text = v.number.isLiteral() ? QString::number(degrees ? v.number.value * 180 / std::numbers::pi : v.number.value, 'g', 10)
                                              : QString::fromStdString(v.number.expression.text());
    auto* value = new QTableWidgetItem(text);
    value->setData(Qt::UserRole, QString::fromStdString(p));
    value->setData(Qt::UserRole + 1, static_cast<int>(v.quantity));
    QString tip = v.timeAllowed ? tr("a number or an expression of the parameters and t") : tr("a number or an expression of the parameters");
    if (v.quantity == Quantity::Angle) tip += tr("; a number is in degrees, an expression in radians");
    if (v.quantity == Quantity::AngularVelocity) tip += tr("; a number is in degrees per second, an expression in radians per second");
    value->setToolTip(tip);
    auto* unit = new QTableWidgetItem(!degrees ? QString::fromUtf8(siUnit(v.quantity))
                                      : v.quantity == Quantity::Angle ? QStringLiteral("°") : QStringLiteral("°/s"));
    unit->setFlags(unit->flags() & ~Qt::ItemIsEditable);
    table_->setItem(row, 0, name);
    table_->setItem(row, 1, value);
    table_->setItem(row, 2, unit);
  });
  QString what = path_;
  if (!kind.isEmpty()) {
    const auto open = path_.indexOf('[');
    const auto i = static_cast<std::size_t>(path_.mid(open + 1, path_.indexOf(']') - open - 1).toInt());
    if (path_.startsWith("joints[") && i < m_.joints.size())
      what = tr("Joint %1 (%2)").arg(QString::fromStdString(m_.joints[i].name), QString::fromUtf8(toString(m_.joints[i].type)));
    if (path_.startsWith("drivers[") && i < m_.drivers.size())
      what = tr("Driver %1 (%2)").arg(QString::fromStdString(m_.drivers[i].name), QString::fromUtf8(toString(m_.drivers[i].type)));
    if (path_.startsWith("forces[") && i < m_.forces.size())
      what = tr("Force %1 (%2)").arg(QString::fromStdString(m_.forces[i].name), QString::fromUtf8(toString(m_.forces[i].type)));
    if (path_.startsWith("contacts[") && i < m_.contacts.size())
      what = tr("Contact %1 (%2)").arg(QString::fromStdString(m_.contacts[i].name), QString::fromStdString(m_.contacts[i].point.str()));
    if (path_.startsWith("initial_velocities[") && i < m_.initialVelocities.size())
      what = tr("Initial velocity of %1").arg(QString::fromStdString(edit::describe(m_.initialVelocities[i])));
  }
  title_->setText(table_->rowCount() ? tr("%1: %n number(s)", "", table_->rowCount()).arg(what)
                                     : tr("%1: no numbers to edit").arg(what));
  filling_ = false;
}

void PropertyEditor::fillParameter(std::size_t index) {
  if (index >= m_.parameters.size()) {
    title_->setText(tr("%1: no such parameter").arg(path_));
    return;
  }
  const Parameter& p = m_.parameters[index];
  // the schema's fields but the name (F2 renames: its uses follow)
  const schema::Texts texts = schema::textsOf(p);
  for (const schema::Field& f : schema::parameterKind().fields) {
    if (f.type == schema::FieldType::Name) continue;
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* name = new QTableWidgetItem(QString::fromStdString(f.label));
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    name->setToolTip(QString::fromStdString(f.help));
    auto* value = new QTableWidgetItem(QString::fromStdString(texts.at(f.key)));
    value->setData(Qt::UserRole, path_ + "." + QString::fromStdString(f.key));
    value->setData(Qt::UserRole + 1, static_cast<int>(Quantity::None));
    value->setToolTip(QString::fromStdString(f.help));
    const bool withUnit = f.type == schema::FieldType::Number || f.type == schema::FieldType::Bound;
    auto* unit = new QTableWidgetItem(withUnit ? QString::fromStdString(p.unit) : QString());
    unit->setFlags(unit->flags() & ~Qt::ItemIsEditable);
    table_->setItem(row, 0, name);
    table_->setItem(row, 1, value);
    table_->setItem(row, 2, unit);
  }
  title_->setText(tr("Parameter %1 (F2 renames it, its uses follow)").arg(QString::fromStdString(p.name)));
}

QMenu* PropertyEditor::contextMenuAt(int row) {
  auto* menu = new QMenu(this);
  QTableWidgetItem* value = table_->item(row, 1);
  const QString path = value ? value->data(Qt::UserRole).toString() : QString();
  if (path.isEmpty() || path.startsWith("parameters[")) return menu;
  const Number* n = numberAt(m_, path.toStdString());
  QAction* make = menu->addAction(tr("Make Design Parameter"), this, [this, path] { emit makeParameterRequested(path); });
  make->setObjectName("MakeDesignParameter");
  make->setEnabled(n && n->isLiteral());
  make->setStatusTip(n && n->isLiteral() ? tr("A new parameter with this value and a range; the field takes its name")
                                         : tr("An expression already: edit its parameters"));
  return menu;
}

void PropertyEditor::showContextMenu(const QPoint& at) {
  QTableWidgetItem* item = table_->itemAt(at);
  if (!item) return;
  QMenu* menu = contextMenuAt(item->row());
  if (!menu->isEmpty()) menu->exec(table_->viewport()->mapToGlobal(at));
  menu->deleteLater();
}

}  // namespace lw::widgets
