// The sketch's items and painting: bodies, joints, springs and curves as scene items, the grid,
// the dimensions and the overlay (banner, group legend, four-bar lines), and the tools' icons.
#include "sketch/sketch_view.h"


#include <QGraphicsEllipseItem>
#include <QGraphicsLineItem>
#include <QGraphicsPathItem>
#include <QGraphicsPolygonItem>
#include <QGraphicsScene>
#include <QTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>
#include <numbers>

#include "simulation/crank_drag.h"
#include "topology/four_bar.h"
#include "kinematics/natural_model.h"
#include "topology/mobility.h"
#include "kinematics/structural_groups.h"
#include "sketch/sketch_shared.h"

namespace lw::widgets {

using namespace detail;

QIcon sketchToolIcon(SketchView::Tool t) {
  QPixmap pm(32, 32);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  const QPen ink(QColor("#303030"), 2);
  auto pivot = [&](QPointF at) {
    p.setPen(ink);
    p.setBrush(QBrush(QColor("#909090"), Qt::BDiagPattern));
    p.drawPolygon(QPolygonF({at, at + QPointF(-7, 11), at + QPointF(7, 11)}));
  };
  auto joint = [&](QPointF at) {
    p.setPen(QPen(QColor("#202020"), 2));
    p.setBrush(Qt::white);
    p.drawEllipse(at, 4, 4);
  };
  auto link = [&](QPointF a, QPointF b, QColor c = QColor("#0072b2")) {
    p.setPen(QPen(c, 5, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(a, b);
  };
  switch (t) {
    case SketchView::Tool::Select:
      p.setPen(ink);
      p.setBrush(Qt::white);
      p.drawPolygon(QPolygonF({QPointF(9, 4), QPointF(9, 26), QPointF(15, 20), QPointF(19, 28), QPointF(23, 26), QPointF(19, 18), QPointF(26, 18)}));
      break;
    case SketchView::Tool::GroundPivot:
      pivot({16, 12});
      joint({16, 12});
      break;
    case SketchView::Tool::Link:
      link({6, 24}, {26, 8});
      joint({6, 24});
      joint({26, 8});
      break;
    case SketchView::Tool::Point:
      link({4, 22}, {28, 22});
      p.setPen(QPen(QColor("#9467bd"), 1.5, Qt::DashLine));
      p.setBrush(Qt::NoBrush);
      p.drawEllipse(QPointF(16, 11), 8, 5);
      p.setPen(QPen(QColor("#202020"), 1.5));
      p.setBrush(QColor("#56b4e9"));
      p.drawEllipse(QPointF(16, 16), 3.5, 3.5);
      break;
    case SketchView::Tool::Slider:
      p.setPen(QPen(QColor("#606060"), 1.5, Qt::DashLine));
      p.drawLine(QPointF(2, 22), QPointF(30, 22));
      link({6, 8}, {18, 20});
      p.setPen(QPen(QColor("#303030"), 2));
      p.setBrush(QColor("#e69f00"));
      p.drawRect(QRectF(12, 16, 13, 10));
      joint({18, 20});
      break;
    case SketchView::Tool::Driver:
      pivot({12, 18});
      link({12, 18}, {26, 8});
      p.setPen(QPen(QColor("#d62728"), 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawArc(QRectF(3, 9, 18, 18), 30 * 16, 240 * 16);
      joint({12, 18});
      break;
    case SketchView::Tool::Delete:
      link({6, 24}, {26, 8}, QColor("#7f7f7f"));
      p.setPen(QPen(QColor("#d62728"), 3.5, Qt::SolidLine, Qt::RoundCap));
      p.drawLine(QPointF(8, 8), QPointF(24, 24));
      p.drawLine(QPointF(24, 8), QPointF(8, 24));
      break;
  }
  return QIcon(pm);
}

void SketchView::rebuild() {
  QGraphicsScene* s = scene();
  s->clear();
  bodyItems_.assign(resolved_ ? resolved_->bodies.size() : 0, nullptr);
  pointItems_.clear();
  jointItems_.clear();
  springItems_.clear();
  if (!resolved_) {
    for (const auto& p : edit::sketchPoints(m_)) {
      if (!p.ground()) continue;
      auto* tri = s->addPolygon(QPolygonF({QPointF(0, 0), QPointF(-9, 14), QPointF(9, 14)}), QPen(QColor("#303030"), 1.5), QColor("#d8d8d0"));
      tri->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      tri->setPos(toScene(p.at.x(), p.at.y()));
    }
    return;
  }
  const ResolvedMechanism& r = *resolved_;
  // coupler curves under everything
  for (const auto& c : curves_) {
    if (c.size() < 2) continue;
    QPainterPath path(toScene(c[0].x(), c[0].y()));
    for (const auto& q : c) path.lineTo(toScene(q.x(), q.y()));
    QPen pen(QColor("#9467bd"), 1.5, Qt::DashLine);
    pen.setCosmetic(true);
    s->addPath(path, pen);
  }
  // the target points of targets costs on a position (path synthesis): numbered crosses, so that
  // a designer sees where the coupler point must pass and whether its curve does
  for (const auto& c : m_.costs) {
    if (c.type != Cost::Type::Targets) continue;
    const auto o = std::find_if(m_.outputs.begin(), m_.outputs.end(), [&](const Output& x) { return x.name == c.output; });
    if (o == m_.outputs.end() || o->type != Output::Type::PointPosition) continue;
    QPen pen(QColor("#c0392b"), 2);
    pen.setCosmetic(true);
    for (std::size_t i = 0; i < c.targets.size(); ++i) {
      if (c.targets[i].at.size() < 2) continue;
      const QPointF at = toScene(c.targets[i].at[0], c.targets[i].at[1]);
      QPainterPath cross;
      cross.moveTo(-6, -6);
      cross.lineTo(6, 6);
      cross.moveTo(-6, 6);
      cross.lineTo(6, -6);
      auto* mark = s->addPath(cross, pen);
      mark->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      mark->setPos(at);
      mark->setToolTip(tr("Target %1 of cost %2 at t = %3 s: (%4, %5)")
                           .arg(i + 1)
                           .arg(QString::fromStdString(c.name))
                           .arg(c.targets[i].t)
                           .arg(c.targets[i].at[0])
                           .arg(c.targets[i].at[1]));
      auto* label = s->addSimpleText(QString::number(i + 1));
      label->setBrush(QColor("#c0392b"));
      label->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      label->setPos(at + QPointF(0, 0));
      label->setTransform(QTransform::fromTranslate(7, -18));
    }
  }
  // links
  for (std::size_t b = 1; b < r.bodies.size(); ++b) {
    const auto& body = r.bodies[b];
    const bool bad = std::find(problemBodies_.begin(), problemBodies_.end(), static_cast<int>(b)) != problemBodies_.end();
    QColor colour = bad ? kProblem : groupColour(groupOfBody_[b]);
    if (!highlighted_.empty() && std::find(highlighted_.begin(), highlighted_.end(), static_cast<int>(b)) == highlighted_.end())
      colour.setAlpha(45);  // not in the group being shown
    QPolygonF outline;
    for (const auto& p : body.points) {
      const Eigen::Vector2d w = worldPoint(poses_, static_cast<int>(b), p);
      outline << toScene(w.x(), w.y());
    }
    QPen pen(colour, 7, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    pen.setCosmetic(true);
    if (outline.size() >= 3) {
      QColor fill = colour;
      fill.setAlpha(60);
      auto* poly = s->addPolygon(outline, pen, fill);
      poly->setToolTip(QString::fromStdString(body.name));
      bodyItems_[b] = poly;
    } else if (outline.size() == 2) {
      auto* line = s->addLine(QLineF(outline[0], outline[1]), pen);
      line->setToolTip(QString::fromStdString(body.name));
      bodyItems_[b] = line;
    } else if (outline.size() == 1) {  // a block (a slider): a square turning with the body
      auto* block = s->addRect(-13, -9, 26, 18, QPen(QColor("#303030"), 1.5), colour);
      block->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      block->setPos(outline[0]);
      block->setRotation(blockAngle(r, b));
      block->setZValue(1);
      block->setToolTip(QString::fromStdString(body.name));
      bodyItems_[b] = block;
    }
    // points no joint uses: small dots (coupler points)
    for (std::size_t i = 0; i < body.points.size(); ++i) {
      const Eigen::Vector2d w = worldPoint(poses_, static_cast<int>(b), body.points[i]);
      auto* dot = s->addEllipse(-3.5, -3.5, 7, 7, QPen(colour.darker(140), 1), colour.lighter(130));
      dot->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      dot->setPos(toScene(w.x(), w.y()));
      dot->setToolTip(QString::fromStdString(body.name + "." + body.pointNames[i]));
      pointItems_.push_back({dot, static_cast<int>(b), static_cast<int>(i)});
    }
  }
  // dimensions on request: each link's length (a plate's edges) and a binary link's angle from the
  // x axis, so that a designer sees what an edit or a tuning changed
  if (showDimensions_) {
    auto label = [&](const QPointF& at, const QString& text) {
      auto* t = s->addSimpleText(text);
      t->setBrush(QColor("#202020"));
      QFont f = t->font();
      f.setPointSizeF(f.pointSizeF() * 0.85);
      t->setFont(f);
      t->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      t->setPos(at);
      t->setTransform(QTransform::fromTranslate(4, 2));
      t->setZValue(3);
      return t;
    };
    for (std::size_t b = 1; b < r.bodies.size(); ++b) {
      const auto& body = r.bodies[b];
      const std::size_t n = body.points.size();
      if (n < 2) continue;
      for (std::size_t i = 0; i < (n == 2 ? 1 : n); ++i) {
        const Eigen::Vector2d a = worldPoint(poses_, static_cast<int>(b), body.points[i]);
        const Eigen::Vector2d c = worldPoint(poses_, static_cast<int>(b), body.points[(i + 1) % n]);
        QString text = QString::number((c - a).norm(), 'g', 4) + " m";
        if (n == 2) text += QString::fromUtf8(" · %1°").arg(std::atan2(c.y() - a.y(), c.x() - a.x()) * 180 / M_PI, 0, 'f', 1);
        label(toScene(0.5 * (a.x() + c.x()), 0.5 * (a.y() + c.y())), text)
            ->setToolTip(QString::fromStdString(body.name + ": " + body.pointNames[i] + "–" + body.pointNames[(i + 1) % n]));
      }
    }
  }
  // springs: grey zigzags between their points, over the links
  for (std::size_t f = 0; f < r.forces.size(); ++f) {
    if (r.forces[f].type != Force::Type::Spring) continue;
    QPen pen(QColor("#505050"), 1.8);
    pen.setCosmetic(true);
    auto* spring = s->addPath(springPath(static_cast<int>(f)), pen);
    spring->setZValue(0.5);
    spring->setToolTip(QString::fromStdString(r.forces[f].name));
    springItems_.push_back({spring, static_cast<int>(f)});
  }
  // ground pivots: hatched triangles
  const auto& ground = r.bodies[0];
  for (std::size_t i = 0; i < ground.points.size(); ++i) {
    // a slider's guide point is drawn as its guide line, not as a pivot
    const bool guideOnly = std::any_of(r.joints.begin(), r.joints.end(), [&](const auto& jt) {
      return jt.type == JointType::Slider && jt.points[0].body == 0 && jt.points[0].index == static_cast<int>(i);
    }) && std::none_of(r.joints.begin(), r.joints.end(), [&](const auto& jt) {
      return jt.type != JointType::Slider && ((jt.points[0].body == 0 && jt.points[0].index == static_cast<int>(i)) ||
                                              (jt.points[1].body == 0 && jt.points[1].index == static_cast<int>(i)));
    });
    if (guideOnly) continue;
    const Eigen::Vector3d w = ground.points[i];
    auto* tri = s->addPolygon(QPolygonF({QPointF(0, 0), QPointF(-9, 14), QPointF(9, 14)}), QPen(QColor("#303030"), 1.5), QBrush(QColor("#909090"), Qt::BDiagPattern));
    tri->setFlag(QGraphicsItem::ItemIgnoresTransformations);
    tri->setPos(toScene(w.x(), w.y()));
    tri->setZValue(-1);
    tri->setToolTip(QString::fromStdString("ground." + ground.pointNames[i]));
  }
  // slider guides: a dashed line along the guide through body 1's point
  for (const auto& jt : r.joints) {
    if (jt.type != JointType::Slider || !jt.axes[0].valid()) continue;
    const auto& b1 = r.bodies[static_cast<std::size_t>(jt.body(0))];
    const Eigen::Vector2d P = worldPoint(poses_, jt.body(0), b1.points[static_cast<std::size_t>(jt.points[0].index)]);
    const Eigen::Vector2d u = (worldPoint(poses_, jt.body(0), b1.vectors[static_cast<std::size_t>(jt.axes[0].index)]) -
                               worldPoint(poses_, jt.body(0), Eigen::Vector3d::Zero())).normalized();
    QPen guide(QColor("#707070"), 1.5, Qt::DashDotLine);
    guide.setCosmetic(true);
    const Eigen::Vector2d a = P - 50 * u, c = P + 50 * u;
    s->addLine(QLineF(toScene(a.x(), a.y()), toScene(c.x(), c.y())), guide)->setZValue(-2);
  }
  // joints: white circles (pins); the driven one with a motor ring
  for (std::size_t j = 0; j < r.joints.size(); ++j) {
    const auto& jt = r.joints[j];
    if (jt.type == JointType::Slider) continue;  // drawn as the guide and the block
    const ItemIndex p = jt.points[0];
    const Eigen::Vector2d w = worldPoint(poses_, p.body, r.bodies[static_cast<std::size_t>(p.body)].points[static_cast<std::size_t>(p.index)]);
    bool driven = false;
    for (const auto& d : r.drivers) driven = driven || d.joint == static_cast<int>(j);
    if (driven) {
      auto* ring = s->addEllipse(-11, -11, 22, 22, QPen(QColor("#d62728"), 2.5), Qt::NoBrush);
      ring->setFlag(QGraphicsItem::ItemIgnoresTransformations);
      ring->setPos(toScene(w.x(), w.y()));
      ring->setZValue(2);
      jointItems_.push_back({ring, static_cast<int>(j)});
    }
    auto* c = s->addEllipse(-6, -6, 12, 12, QPen(QColor("#202020"), 2), Qt::white);
    c->setFlag(QGraphicsItem::ItemIgnoresTransformations);
    c->setPos(toScene(w.x(), w.y()));
    c->setZValue(3);
    c->setToolTip(QString::fromStdString(jt.name) + (driven ? tr(" (driven)") : QString()));
    jointItems_.push_back({c, static_cast<int>(j)});
  }
}

// a new configuration of the same sketch (dragging the crank): move the items, do not rebuild them
void SketchView::updatePoses() {
  if (!resolved_) return;
  const ResolvedMechanism& r = *resolved_;
  for (std::size_t b = 1; b < r.bodies.size() && b < bodyItems_.size(); ++b) {
    QGraphicsItem* item = bodyItems_[b];
    if (!item) continue;
    const auto& body = r.bodies[b];
    QPolygonF outline;
    for (const auto& p : body.points) {
      const Eigen::Vector2d w = worldPoint(poses_, static_cast<int>(b), p);
      outline << toScene(w.x(), w.y());
    }
    if (auto* line = qgraphicsitem_cast<QGraphicsLineItem*>(item)) {
      line->setLine(QLineF(outline[0], outline[1]));
    } else if (auto* poly = qgraphicsitem_cast<QGraphicsPolygonItem*>(item)) {
      poly->setPolygon(outline);
    } else {  // a block
      item->setPos(outline[0]);
      item->setRotation(blockAngle(r, b));
    }
  }
  for (const auto& [item, b, i] : pointItems_) {
    const Eigen::Vector2d w = worldPoint(poses_, b, r.bodies[static_cast<std::size_t>(b)].points[static_cast<std::size_t>(i)]);
    item->setPos(toScene(w.x(), w.y()));
  }
  for (const auto& [item, j] : jointItems_) {
    const ItemIndex p = r.joints[static_cast<std::size_t>(j)].points[0];
    const Eigen::Vector2d w = worldPoint(poses_, p.body, r.bodies[static_cast<std::size_t>(p.body)].points[static_cast<std::size_t>(p.index)]);
    item->setPos(toScene(w.x(), w.y()));
  }
  for (const auto& [item, f] : springItems_) item->setPath(springPath(f));
}

QPainterPath SketchView::springPath(int force) const {
  const ResolvedMechanism& r = *resolved_;
  const auto& f = r.forces[static_cast<std::size_t>(force)];
  auto end = [&](const ItemIndex& p) {
    return worldPoint(poses_, p.body, r.bodies[static_cast<std::size_t>(p.body)].points[static_cast<std::size_t>(p.index)]);
  };
  const Eigen::Vector2d a = end(f.points[0]), b = end(f.points[1]);
  const double length = (b - a).norm();
  QPainterPath path(toScene(a.x(), a.y()));
  if (length < 1e-12) return path;
  // straight ends, eight zigs in the middle, a tenth of the length wide (at most 0.2 m)
  const Eigen::Vector2d u = (b - a) / length, n(-u.y(), u.x());
  const double half = std::min(0.05 * length, 0.1);
  const int zigs = 8;
  for (int k = 0; k <= 2 * zigs; ++k) {
    const double s = 0.15 + 0.7 * k / (2.0 * zigs);
    const double side = (k == 0 || k == 2 * zigs) ? 0.0 : (k % 2 ? half : -half);
    const Eigen::Vector2d q = a + s * length * u + side * n;
    path.lineTo(toScene(q.x(), q.y()));
  }
  path.lineTo(toScene(b.x(), b.y()));
  return path;
}

void SketchView::drawBackground(QPainter* p, const QRectF& rect) {
  QGraphicsView::drawBackground(p, rect);
  const double pixelsPerMetre = transform().m11();
  double step = 0.1;
  while (step * pixelsPerMetre < 8 - 1e-9) step *= 5;
  for (int level = 0; level < 2; ++level) {
    const double s = level == 0 ? step : step * 5;
    QPen pen(level == 0 ? QColor("#ececea") : QColor("#d9d9d4"), 1);
    pen.setCosmetic(true);
    p->setPen(pen);
    for (double x = std::floor(rect.left() / s) * s; x <= rect.right(); x += s) p->drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()));
    for (double y = std::floor(rect.top() / s) * s; y <= rect.bottom(); y += s) p->drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y));
  }
  QPen axes(QColor("#c0c0ba"), 1.5);
  axes.setCosmetic(true);
  p->setPen(axes);
  p->drawLine(QPointF(rect.left(), 0), QPointF(rect.right(), 0));
  p->drawLine(QPointF(0, rect.top()), QPointF(0, rect.bottom()));
}

// a slider block's rotation in the scene (degrees, y down): the body's angle plus its guide's
double SketchView::blockAngle(const ResolvedMechanism& r, std::size_t b) const {
  const double* pose = &poses_[b * 12];
  double angle = std::atan2(pose[3], pose[0]);
  const auto& vectors = r.bodies[b].vectors;
  if (!vectors.empty()) angle += std::atan2(vectors[0].y(), vectors[0].x());
  return -angle * 180 / std::numbers::pi;
}

void SketchView::drawForeground(QPainter* p, const QRectF& rect) {
  Q_UNUSED(rect);
  if (rubberEnd_ && sliderOn_) {
    // the guide being drawn: a dashed line both ways through the point
    const Eigen::Vector2d u = *rubberEnd_ - sliderOn_->at;
    const Eigen::Vector2d a = sliderOn_->at - 50 * u, c = sliderOn_->at + 50 * u;
    QPen pen(QColor("#0072b2"), 2, Qt::DashDotLine);
    pen.setCosmetic(true);
    p->setPen(pen);
    p->drawLine(toScene(a.x(), a.y()), toScene(c.x(), c.y()));
  }
  if (rubberEnd_ && linkStartAt_) {
    QPen pen(QColor("#0072b2"), 3, Qt::DashLine);
    pen.setCosmetic(true);
    p->setPen(pen);
    p->drawLine(toScene(linkStartAt_->x(), linkStartAt_->y()), toScene(rubberEnd_->x(), rubberEnd_->y()));
    // its length as drawn, or as typed
    const double drawn = (*rubberEnd_ - *linkStartAt_).norm();
    const QString label = typedLength_.isEmpty() ? QString("%1 m").arg(drawn, 0, 'f', 3) : tr("%1 m (typed; Enter)").arg(typedLength_);
    p->save();
    const QPointF at = mapFromScene(toScene(rubberEnd_->x(), rubberEnd_->y()));
    p->setTransform(viewportTransform().inverted() * p->transform());  // view pixels, scaled with an export
    p->setPen(QColor("#0072b2"));
    p->drawText(at + QPointF(12, -10), label);
    p->restore();
  }
  // link ends lying on a point without a joint: a red ring each (the banner says why)
  // (dashed and labelled: the driven pin's motor ring is a solid red ring)
  for (const Eigen::Vector2d& q : unjoined_) {
    QPen ring(QColor(214, 39, 40), 2.5, Qt::DashLine);
    ring.setCosmetic(true);
    p->setPen(ring);
    p->setBrush(Qt::NoBrush);
    const double r = 15 / std::max(1e-9, transform().m11());
    p->drawEllipse(toScene(q.x(), q.y()), r, r);
    p->save();
    const QPointF at = mapFromScene(toScene(q.x(), q.y()));
    p->setTransform(viewportTransform().inverted() * p->transform());  // view pixels, scaled with an export
    p->setPen(QColor(214, 39, 40));
    p->drawText(at + QPointF(18, -12), tr("not joined"));
    p->restore();
  }
  paintTargets(p);
  // banner and group legend in view coordinates
  p->save();
  p->setTransform(viewportTransform().inverted() * p->transform());  // view pixels, scaled with an export
  const Overlay o = overlay();
  p->setFont(o.font);
  p->setPen(Qt::NoPen);
  p->setBrush(showsFault() ? QColor(214, 39, 40, 230) : free_ ? QColor(40, 90, 140, 220) : QColor(40, 40, 40, 210));
  p->drawRoundedRect(o.banner, 5, 5);
  p->setPen(Qt::white);
  const QFontMetrics fm(o.font);
  // a collapsible overlay says so in its banner: ▸ shows the legend and the four-bar lines, ▾ hides them
  // (collapsed, a transmission warning hidden in it shows as ⚠)
  const QString mark = !o.collapsible ? QString() : o.collapsed ? (o.warned ? QStringLiteral("  ⚠ ▸") : QStringLiteral("  ▸")) : QStringLiteral("  ▾");
  p->drawText(o.banner.adjusted(10, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
              fm.elidedText(summary_, Qt::ElideRight, o.banner.width() - 14 - fm.horizontalAdvance(mark)) + mark);
  for (std::size_t g = 0; g < o.groups.size(); ++g) {
    const int y = o.groups[g].first;
    p->setBrush(groupColour(static_cast<int>(g)));
    p->setPen(Qt::NoPen);
    p->drawRoundedRect(QRect(12, y + 3, 22, fm.height() - 6), 3, 3);
    p->setPen(QColor("#202020"));
    p->drawText(QPoint(42, y + fm.ascent()), o.groups[g].second);
  }
  for (const auto& [area, line] : o.lines) {
    p->setPen(line.contains(QStringLiteral("⚠")) ? QColor(176, 70, 0) : QColor("#202020"));
    p->drawText(area, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, line);
  }
  p->restore();
}

SketchView::Overlay SketchView::overlay() const {
  Overlay o;
  o.font = font();
  o.font.setPointSizeF(o.font.pointSizeF() * 1.05);
  const QFontMetrics fm(o.font);
  o.banner = QRect(8, 8, std::min(viewport()->width() - 16, fm.horizontalAdvance(summary_ + QStringLiteral("  ⚠ ▸")) + 32), fm.height() + 10);
  int y = o.banner.bottom() + 10;
  for (int g = 0; g < static_cast<int>(groupNames_.size()); ++g) {
    QStringList bodies;
    for (std::size_t b = 1; b < groupOfBody_.size(); ++b)
      if (groupOfBody_[b] == g) bodies << QString::fromStdString(resolved_->bodies[b].name);
    o.groups.emplace_back(y, tr("%1. %2: %3").arg(g + 1).arg(groupNames_[static_cast<std::size_t>(g)], bodies.join(", ")));
    y += fm.height() + 4;
  }
  for (const QString& line : fourBarLines()) {
    // wrapped at the view's edge: a narrow sketch (1280×800 with docks) shows the whole line
    const QRect area(12, y, std::max(100, viewport()->width() - 24), 10 * fm.height());
    const QRect used = fm.boundingRect(area, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, line);
    o.lines.emplace_back(area, line);
    y += used.height() + 4;
  }
  o.bottom = y;
  // a tall overlay over a short view (the Jansen leg's four groups and two four-bar lines at
  // 1280×800) collapses to its banner, so that the drawing keeps the view; a click on the banner
  // (or the user's last choice) decides; over 35 % of the view is tall (a four-bar's banner and Grashof
  // lines stay open at 1280×800, its plots dock 290 px tall)
  o.collapsible = !o.groups.empty() || !o.lines.empty();
  o.collapsed = o.collapsible && (overlayChoice_ ? *overlayChoice_ : o.bottom > 0.35 * viewport()->height());
  if (o.collapsed) {
    for (const auto& line : o.lines) o.warned = o.warned || line.second.contains(QStringLiteral("⚠"));
    o.groups.clear();
    o.lines.clear();
    o.bottom = o.banner.bottom() + 10;
  }
  return o;
}

void SketchView::setOverlayCollapsed(std::optional<bool> collapsed) {
  overlayChoice_ = collapsed;
  if (fitted_) fit();
  viewport()->update();
}

int SketchView::overlayHeight() const { return overlay().bottom; }

QStringList SketchView::fourBarLines() const {
  // what linkage designers read first: does a link turn fully, and how well does force pass
  QStringList out;
  if (!resolved_) return out;
  for (const auto& l : fourBars_) {
    auto name = [&](int b) { return QString::fromStdString(resolved_->bodies[static_cast<std::size_t>(b)].name); };
    const QString type = l.changePoint ? tr("change point, %1 (it can fold flat)").arg(QString::fromStdString(l.type))
                         : l.grashof   ? tr("Grashof %1").arg(QString::fromStdString(l.type))
                                       : tr("non-Grashof triple-rocker (no link turns fully)");
    QString line = tr("Four-bar %1–%2–%3: %4 · transmission angle %5°, %6°–%7° over the motion")
                       .arg(name(l.input), name(l.coupler), name(l.output), type)
                       .arg(topology::transmissionAngle(*resolved_, l, poses_), 0, 'f', 0)
                       .arg(l.minTransmission, 0, 'f', 0)
                       .arg(l.maxTransmission, 0, 'f', 0);
    // the textbooks' rule: below 40° (the user's threshold) the coupler pushes the output poorly
    if (std::min(l.minTransmission, 180 - l.maxTransmission) < transmissionWarning_)
      line += tr(" — ⚠ below %1°: it transmits force poorly there").arg(transmissionWarning_, 0, 'f', 0);
    out << line;
  }
  return out;
}


}  // namespace lw::widgets
