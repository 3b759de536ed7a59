#include "panels/model_tree.h"

#include <QSignalBlocker>
#include <QTreeWidgetItemIterator>

#include <QHeaderView>

#include <map>
#include <numbers>

#include "mechanism/edits.h"
#include "mechanism/fields.h"
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

// a number as the window shows it: a literal in its display unit (angles in degrees, turning
// rates in degrees per second, as Properties shows them) with the unit; an expression as written
QString shown(const Number& n, Quantity q) {
  const bool degrees = q == Quantity::Angle || q == Quantity::AngularVelocity;
  if (!n.isLiteral()) return text(n);
  const QString value = QString::number(degrees ? n.value * 180 / std::numbers::pi : n.value, 'g', 6);
  if (q == Quantity::Angle) return value + QStringLiteral("°");
  if (q == Quantity::AngularVelocity) return value + QStringLiteral(" °/s");
  const QString unit = QString::fromUtf8(siUnit(q));
  return unit.isEmpty() ? value : value + " " + unit;
}

QTreeWidgetItem* group(QTreeWidget* tree, const QString& title, std::size_t count) {
  auto* item = new QTreeWidgetItem(tree, {QString("%1 (%2)").arg(title).arg(count)});
  QFont f = item->font(0);
  f.setBold(true);
  item->setFont(0, f);
  return item;
}

// `path`: the JSON path of the item ("bodies[2]"), what the property editor shows
QTreeWidgetItem* leaf(QTreeWidgetItem* parent, const std::string& name, const QString& detail, const QString& path = {}) {
  auto* item = new QTreeWidgetItem(parent, {QString::fromStdString(name), detail});
  item->setToolTip(1, detail);
  item->setData(0, Qt::UserRole, path);
  return item;
}

QString indexed(const char* list, std::size_t i) { return QString("%1[%2]").arg(list).arg(i); }

}  // namespace

ModelTree::ModelTree(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
  setHeaderLabels({tr("Item"), tr("Details")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  setAlternatingRowColors(true);
  setUniformRowHeights(true);
  connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    emit itemSelected(item ? item->data(0, Qt::UserRole).toString() : QString());
  });
}

void ModelTree::clearMechanism() { clear(); }

void ModelTree::selectPath(const QString& path) {
  for (QTreeWidgetItemIterator it(this); *it; ++it)
    if ((*it)->data(0, Qt::UserRole).toString() == path) {
      setCurrentItem(*it);
      scrollToItem(*it);
      return;
    }
}

void ModelTree::setMechanism(const Mechanism& m) {
  // an edit rebuilds the tree: the same item stays selected, without a selection signal
  const QString selected = currentItem() ? currentItem()->data(0, Qt::UserRole).toString() : QString();
  const QSignalBlocker quiet(this);
  setUpdatesEnabled(false);
  clear();
  auto* bodies = group(this, tr("Bodies"), m.bodies.size());
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    const auto& b = m.bodies[i];
    const QString path = indexed("bodies", i);
    auto* item = leaf(bodies, b.name, tr("%1 kg, centre of mass %2").arg(text(b.mass), text(b.com)), path);
    for (const auto& p : b.points) leaf(item, p.name, tr("point %1").arg(text(p.value)), path + ".points." + QString::fromStdString(p.name));
    for (const auto& v : b.vectors) leaf(item, v.name, tr("vector %1").arg(text(v.value)), path + ".vectors." + QString::fromStdString(v.name));
  }
  auto* ground = group(this, tr("Ground"), m.ground.points.size() + m.ground.vectors.size());
  for (const auto& p : m.ground.points) leaf(ground, p.name, tr("point %1").arg(text(p.value)), "ground.points." + QString::fromStdString(p.name));
  for (const auto& v : m.ground.vectors) leaf(ground, v.name, tr("vector %1").arg(text(v.value)), "ground.vectors." + QString::fromStdString(v.name));
  auto* joints = group(this, tr("Joints"), m.joints.size());
  for (std::size_t i = 0; i < m.joints.size(); ++i) {
    const auto& j = m.joints[i];
    leaf(joints, j.name, QString("%1: %2 – %3").arg(toString(j.type),
                                                   QString::fromStdString(j.points[0].str()),
                                                   QString::fromStdString(j.points[1].str())), indexed("joints", i));
  }
  auto* drivers = group(this, tr("Drivers"), m.drivers.size());
  for (std::size_t i = 0; i < m.drivers.size(); ++i) {
    const auto& d = m.drivers[i];
    QString target = d.type == Driver::Type::Joint ? tr("joint %1").arg(QString::fromStdString(d.joint))
                     : d.type == Driver::Type::Coordinate
                         ? QString("%1.%2").arg(QString::fromStdString(d.point.str()), toString(d.component))
                         : tr("distance %1 – %2").arg(QString::fromStdString(d.points[0].str()),
                                                      QString::fromStdString(d.points[1].str()));
    leaf(drivers, d.name, QString("%1 = %2").arg(target, text(d.function)), indexed("drivers", i));
  }
  auto* forces = group(this, tr("Forces"), m.forces.size());
  for (std::size_t i = 0; i < m.forces.size(); ++i) {
    const auto& f = m.forces[i];
    auto str = [](const Ref& r) { return QString::fromStdString(r.str()); };
    QString on;  // what it acts on
    switch (f.type) {
      case Force::Type::Spring: on = tr("%1 – %2, k = %3").arg(str(f.points[0]), str(f.points[1]), text(f.stiffness)); break;
      case Force::Type::TorsionSpring: on = tr("joint %1, k = %2").arg(QString::fromStdString(f.joint), text(f.stiffness)); break;
      case Force::Type::PointForce: on = str(f.point); break;
      case Force::Type::Torque: on = QString::fromStdString(f.body); break;
      case Force::Type::Tyre: on = tr("wheel %1").arg(str(f.point)); break;
    }
    leaf(forces, f.name, QString("%1: %2").arg(toString(f.type), on), indexed("forces", i));
  }
  auto* contacts = group(this, tr("Contacts"), m.contacts.size());
  for (std::size_t i = 0; i < m.contacts.size(); ++i) {
    const auto& c = m.contacts[i];
    leaf(contacts, c.name, tr("%1 on plane %2, e = %3")
                               .arg(QString::fromStdString(c.point.str()),
                                    QString::fromStdString(c.planePoint.str()), text(c.restitution)), indexed("contacts", i));
  }
  // what each number measures (the field walk's table), for the units of the summaries below
  std::map<std::string, Quantity> quantity;
  forEachNumber(m, [&](const FieldVisit& v) { quantity[v.path] = v.quantity; });
  auto unitOf = [&](const QString& path) {
    const auto it = quantity.find(path.toStdString());
    return it == quantity.end() ? Quantity::None : it->second;
  };
  auto* limits = group(this, tr("Limits"), m.limits.size());
  for (std::size_t i = 0; i < m.limits.size(); ++i) {
    const auto& l = m.limits[i];
    const QString at = indexed("limits", i);
    const QString range = QString("%1 … %2").arg(l.hasMin ? shown(l.min, unitOf(at + ".min")) : QStringLiteral("−∞"),
                                                 l.hasMax ? shown(l.max, unitOf(at + ".max")) : QStringLiteral("∞"));
    leaf(limits, l.name, tr("joint %1 within %2, e = %3").arg(QString::fromStdString(l.joint), range, text(l.restitution)),
         indexed("limits", i));
  }
  auto* switches = group(this, tr("Switches"), m.switches.size());
  for (std::size_t i = 0; i < m.switches.size(); ++i) {
    const auto& s = m.switches[i];
    const QString watched = s.joint.empty() ? QString("%1.%2").arg(QString::fromStdString(s.point.str()), toString(s.component))
                                            : tr("joint %1").arg(QString::fromStdString(s.joint));
    leaf(switches, s.name,
         tr("%1 %2 %3").arg(watched, s.falling ? tr("falls through") : tr("rises through"), shown(s.value, unitOf(indexed("switches", i) + ".value"))),
         indexed("switches", i));
  }
  auto* velocities = group(this, tr("Initial velocities"), m.initialVelocities.size());
  for (std::size_t i = 0; i < m.initialVelocities.size(); ++i) {
    const auto& v = m.initialVelocities[i];
    QString value;
    if (v.type == InitialVelocity::Type::Body) {
      QStringList w;  // turning rates in degrees per second, as Properties shows them
      for (const auto& x : v.angularVelocity) w << (x.isLiteral() ? QString::number(x.value * 180 / std::numbers::pi, 'g', 6) : text(x));
      value = tr("v = %1 m/s, ω = (%2) °/s").arg(text(v.velocity), w.join(", "));
    } else {
      value = shown(v.value, unitOf(indexed("initial_velocities", i) + ".value"));
    }
    leaf(velocities, edit::describe(v), value, indexed("initial_velocities", i));
  }
  auto* params = group(this, tr("Parameters"), m.parameters.size());
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    const Parameter& p = m.parameters[i];
    QString detail = QString("%1 %2").arg(text(p.value), QString::fromStdString(p.unit)).trimmed();
    if (p.hasMin || p.hasMax)
      detail += QString("  [%1 … %2]").arg(p.hasMin ? QString::number(p.min, 'g', 6) : QString("−∞"),
                                          p.hasMax ? QString::number(p.max, 'g', 6) : QString("∞"));
    leaf(params, p.name, detail, indexed("parameters", i));
  }
  auto* outputs = group(this, tr("Outputs"), m.outputs.size());
  for (std::size_t i = 0; i < m.outputs.size(); ++i) {
    const Output& o = m.outputs[i];
    QString subject;  // what it measures
    switch (o.type) {
      case Output::Type::PointPosition: case Output::Type::PointVelocity: case Output::Type::PointAcceleration:
        subject = QString::fromStdString(o.point.str());
        break;
      case Output::Type::JointCoordinate: case Output::Type::JointRate: subject = tr("joint %1").arg(QString::fromStdString(o.joint)); break;
      case Output::Type::SpringLength: subject = QString::fromStdString(o.spring); break;
      case Output::Type::Energy: subject = toString(o.which); break;
      case Output::Type::ConstraintResidual: break;
      case Output::Type::JointReaction:
        subject = tr("joint %1 on %2").arg(QString::fromStdString(o.joint), QString::fromStdString(o.on));
        break;
      case Output::Type::DriverEffort: subject = QString::fromStdString(o.driver); break;
    }
    const QString kind = QString::fromLatin1(toString(o.type)).replace('_', ' ');
    leaf(outputs, o.name, subject.isEmpty() ? kind : QString("%1: %2").arg(kind, subject), indexed("outputs", i));
  }
  auto* costs = group(this, tr("Costs"), m.costs.size());
  for (std::size_t i = 0; i < m.costs.size(); ++i) {
    const Cost& c = m.costs[i];
    leaf(costs, c.name,
         c.type == Cost::Type::Targets ? QString("%1 through %2 target point(s)%3")
                                             .arg(QString::fromStdString(c.output))
                                             .arg(c.targets.size())
                                             .arg(c.timing == Cost::Timing::Free ? QString(", any time") : QString(", on time"))
         : c.type == Cost::Type::Minimum || c.type == Cost::Type::Maximum
             ? QString("%1 of %2").arg(c.type == Cost::Type::Minimum ? "least" : "greatest", QString::fromStdString(c.expression.text()))
             : QString::fromStdString(c.expression.text()),
         indexed("costs", i));
  }
  for (QTreeWidgetItem* g : {bodies, joints}) g->setExpanded(true);
  if (!selected.isEmpty())
    for (QTreeWidgetItemIterator it(this); *it; ++it)
      if ((*it)->data(0, Qt::UserRole).toString() == selected) {
        setCurrentItem(*it);
        break;
      }
  setUpdatesEnabled(true);
}

}  // namespace lw::widgets
