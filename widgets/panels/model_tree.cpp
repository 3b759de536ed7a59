#include "panels/model_tree.h"

#include <QHeaderView>

#include "mechanism/mechanism.h"

namespace lw::widgets {
namespace {

QString text(const Number& n) {
  return n.isLiteral() ? QString::number(n.value, 'g', 6) : QString::fromStdString(n.expression.text());
}

QString text(const NumberVector& v) {
  QStringList parts;
  for (const auto& x : v) parts << text(x);
  return "(" + parts.join(", ") + ")";
}

QTreeWidgetItem* group(QTreeWidget* tree, const QString& title, std::size_t count) {
  auto* item = new QTreeWidgetItem(tree, {QString("%1 (%2)").arg(title).arg(count)});
  QFont f = item->font(0);
  f.setBold(true);
  item->setFont(0, f);
  return item;
}

QTreeWidgetItem* leaf(QTreeWidgetItem* parent, const std::string& name, const QString& detail) {
  auto* item = new QTreeWidgetItem(parent, {QString::fromStdString(name), detail});
  item->setToolTip(1, detail);
  return item;
}

}  // namespace

ModelTree::ModelTree(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
  setHeaderLabels({tr("Item"), tr("Details")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  setAlternatingRowColors(true);
  setUniformRowHeights(true);
}

void ModelTree::clearMechanism() { clear(); }

void ModelTree::setMechanism(const Mechanism& m) {
  setUpdatesEnabled(false);
  clear();
  auto* bodies = group(this, tr("Bodies"), m.bodies.size());
  for (const auto& b : m.bodies) {
    auto* item = leaf(bodies, b.name, tr("%1 kg, centre of mass %2").arg(text(b.mass), text(b.com)));
    for (const auto& p : b.points) leaf(item, p.name, tr("point %1").arg(text(p.value)));
    for (const auto& v : b.vectors) leaf(item, v.name, tr("vector %1").arg(text(v.value)));
  }
  auto* ground = group(this, tr("Ground"), m.ground.points.size() + m.ground.vectors.size());
  for (const auto& p : m.ground.points) leaf(ground, p.name, tr("point %1").arg(text(p.value)));
  for (const auto& v : m.ground.vectors) leaf(ground, v.name, tr("vector %1").arg(text(v.value)));
  auto* joints = group(this, tr("Joints"), m.joints.size());
  for (const auto& j : m.joints)
    leaf(joints, j.name, QString("%1: %2 – %3").arg(toString(j.type),
                                                   QString::fromStdString(j.points[0].str()),
                                                   QString::fromStdString(j.points[1].str())));
  auto* drivers = group(this, tr("Drivers"), m.drivers.size());
  for (const auto& d : m.drivers) {
    QString target = d.type == Driver::Type::Joint ? tr("joint %1").arg(QString::fromStdString(d.joint))
                     : d.type == Driver::Type::Coordinate
                         ? QString("%1.%2").arg(QString::fromStdString(d.point.str()), toString(d.component))
                         : tr("distance %1 – %2").arg(QString::fromStdString(d.points[0].str()),
                                                      QString::fromStdString(d.points[1].str()));
    leaf(drivers, d.name, QString("%1 = %2").arg(target, text(d.function)));
  }
  auto* forces = group(this, tr("Forces"), m.forces.size());
  for (const auto& f : m.forces) leaf(forces, f.name, toString(f.type));
  auto* contacts = group(this, tr("Contacts"), m.contacts.size());
  for (const auto& c : m.contacts)
    leaf(contacts, c.name, tr("%1 on plane %2, e = %3")
                               .arg(QString::fromStdString(c.point.str()),
                                    QString::fromStdString(c.planePoint.str()), text(c.restitution)));
  auto* params = group(this, tr("Parameters"), m.parameters.size());
  for (const auto& p : m.parameters)
    leaf(params, p.name, QString("%1 %2").arg(text(p.value), QString::fromStdString(p.unit)));
  auto* outputs = group(this, tr("Outputs"), m.outputs.size());
  for (const auto& o : m.outputs) leaf(outputs, o.name, toString(o.type));
  auto* costs = group(this, tr("Costs"), m.costs.size());
  for (const auto& c : m.costs) leaf(costs, c.name, QString::fromStdString(c.expression.text()));
  for (QTreeWidgetItem* g : {bodies, joints}) g->setExpanded(true);
  setUpdatesEnabled(true);
}

}  // namespace lw::widgets
