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

#include "analysis/crank_drag.h"
#include "topology/four_bar.h"
#include "kinematics/natural_model.h"
#include "topology/mobility.h"
#include "kinematics/structural_groups.h"

namespace lw::widgets {
namespace {

// group colours (colour-blind friendly); problems in red
const QColor kGroupColours[] = {QColor("#0072b2"), QColor("#e69f00"), QColor("#009e73"), QColor("#cc79a7"),
                                QColor("#56b4e9"), QColor("#d55e00"), QColor("#7f7f7f"), QColor("#f0e442")};
const QColor kProblem("#d62728");
constexpr double kSnapPixels = 10;

QColor groupColour(int g) { return g < 0 ? QColor("#505050") : kGroupColours[g % 8]; }

// stored-configuration poses of a resolved mechanism (12 per body)
std::vector<double> storedPoses(const ResolvedMechanism& r) {
  std::vector<double> out;
  for (const auto& b : r.bodies) {
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) out.push_back(b.rotation(i, k));
    for (int i = 0; i < 3; ++i) out.push_back(b.position[i]);
  }
  return out;
}

Eigen::Vector2d worldPoint(const std::vector<double>& poses, int body, const Eigen::Vector3d& local) {
  const double* p = &poses[static_cast<std::size_t>(body) * 12];
  return {p[9] + p[0] * local.x() + p[1] * local.y() + p[2] * local.z(), p[10] + p[3] * local.x() + p[4] * local.y() + p[5] * local.z()};
}

}  // namespace

SketchView::SketchView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  scene()->setSceneRect(-1e4, -1e4, 2e4, 2e4);
  scene()->setItemIndexMethod(QGraphicsScene::NoIndex);  // rebuilt on every drag move: no BSP upkeep
  setRenderHint(QPainter::Antialiasing);
  setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setMouseTracking(true);
  setBackgroundBrush(QColor("#fbfbf8"));
  scale(60, 60);  // pixels per metre until the first fit
  animation_ = new QTimer(this);
  animation_->setInterval(30);
  connect(animation_, &QTimer::timeout, this, &SketchView::animationTick);
}

SketchView::~SketchView() = default;

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

void SketchView::setMechanism(const Mechanism& m, std::shared_ptr<const ResolvedMechanism> resolved) {
  if (m.dimension != 2) {  // the sketch edits planar linkages; spatial ones live in the 3D view
    m_ = m;
    resolved_.reset();
    drag_.reset();
    poses_.clear();
    curves_.clear();
    groupOfBody_.clear();
    groupNames_.clear();
    problemBodies_.clear();
    problem_ = false;
    summary_ = tr("A spatial mechanism: the sketch draws planar ones (use the 3D view and the model tree)");
    scene()->clear();
    viewport()->update();
    return;
  }
  m_ = m;
  if (!resolved || !resolved_ || resolved->bodies.size() != resolved_->bodies.size()) highlighted_.clear();
  resolved_ = std::move(resolved);
  drag_.reset();
  turning_ = false;
  rocking_.reset();
  if (animation_->isActive()) setAnimating(false);
  poses_ = resolved_ ? storedPoses(*resolved_) : std::vector<double>{};
  analyse();
  updateCurves();
  rebuild();
}

void SketchView::setShowDimensions(bool on) {
  if (showDimensions_ == on) return;
  showDimensions_ = on;
  rebuild();
}

void SketchView::setHighlightedBodies(const std::vector<int>& bodies) {
  highlighted_ = bodies;
  rebuild();
}

void SketchView::setTool(Tool t) {
  tool_ = t;
  linkStart_.reset();
  linkStartAt_.reset();
  rubberEnd_.reset();
  sliderOn_.reset();
  static const char* hints[] = {
      "Select: drag the crank to move the mechanism; Shift + drag a point to change the geometry",
      "Ground pivot: click to place a fixed pivot",
      "Link: click (or press) on the first end, then click (or release) on the second; ends on points get pins",
      "Point: click on a link to add a coupler point there",
      "Slider: click a link's point to put a block there sliding along x, or drag from it to set the guide's direction",
      "Driver: click a link pinned to the ground to make it the crank (one turn per second); click again to free it",
      "Delete: click a link or a ground pivot"};
  emit message(tr(hints[static_cast<int>(t)]));
  viewport()->setCursor(t == Tool::Select ? Qt::ArrowCursor : Qt::CrossCursor);
  viewport()->update();
}

void SketchView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  if ((fitPending_ || fitted_) && isVisible()) fit();  // a shrunk view keeps the whole drawing
}

void SketchView::fit() {
  fitPending_ = !isVisible() || viewport()->width() < 50;
  fitted_ = true;
  QRectF box;
  for (const auto& p : currentPoints()) box |= QRectF(toScene(p.at.x(), p.at.y()), QSizeF(1e-9, 1e-9));
  for (const auto& c : curves_)
    for (const auto& q : c) box |= QRectF(toScene(q.x(), q.y()), QSizeF(1e-9, 1e-9));
  if (box.width() < 1 && box.height() < 1) box = QRectF(box.center() - QPointF(2.5, 2.5), QSizeF(5, 5));
  if (box.isEmpty() || currentPoints().empty()) box = QRectF(-1, -4, 6, 5);
  // a margin in proportion to the drawing (a fixed one in metres shrank a 1 m leg to a speck)
  const double margin = 0.08 * std::max(box.width(), box.height());
  box.adjust(-margin, -margin, margin, margin);
  // the drawing goes below the banner, the group legend and the four-bar lines, not under them
  const int top = overlayHeight();
  const QRectF area = QRectF(viewport()->rect()).adjusted(16, top + 8, -16, -16);
  if (area.height() < 80) {
    fitInView(box, Qt::KeepAspectRatio);
    return;
  }
  const double scale = std::min(area.width() / box.width(), area.height() / box.height());
  setTransform(QTransform::fromScale(scale, scale));
  centerOn(box.center() - QPointF(0, 0.5 * (top + 8 - 16) / scale));
}

std::vector<edit::SketchPoint> SketchView::currentPoints() const {
  if (!resolved_) return edit::sketchPoints(m_);
  // the shown configuration (the crank may have been turned)
  std::vector<edit::SketchPoint> out;
  for (std::size_t b = 0; b < resolved_->bodies.size(); ++b) {
    const auto& body = resolved_->bodies[b];
    for (std::size_t i = 0; i < body.points.size(); ++i)
      out.push_back({b == 0 ? std::string(kGroundName) : body.name, body.pointNames[i], worldPoint(poses_, static_cast<int>(b), body.points[i])});
  }
  return out;
}

void SketchView::analyse() {
  groupOfBody_.assign(resolved_ ? resolved_->bodies.size() : 0, -1);
  groupNames_.clear();
  problemBodies_.clear();
  problem_ = false;
  fourBars_.clear();
  if (!resolved_) {
    summary_ = m_.ground.points.empty() ? tr("Empty sketch: place ground pivots (P), then draw links (L)")
                                        : tr("Draw links (L) from the ground pivots");
    if (!m_.bodies.empty()) {
      Diagnostics d;
      resolve(m_, d);
      summary_ = d.empty() ? tr("The sketch is not a mechanism yet") : QString::fromStdString(d.front().format());
      problem_ = true;
    }
    markUnjoined();
    return;
  }
  const topology::Mobility mob = topology::grueblerKutzbach(*resolved_);
  const kin::NaturalModel nm = kin::compileNaturalModel(*resolved_);
  const kin::Decomposition dec = kin::decompose(nm);
  for (std::size_t g = 0; g < dec.groups.size(); ++g) {
    for (int b : dec.groups[g].bodies) groupOfBody_[static_cast<std::size_t>(b)] = static_cast<int>(g);
    groupNames_.push_back(QString::fromStdString(dec.groups[g].name));
  }
  const int free = mob.grueblerKutzbach - mob.drivers;
  QString head = tr("%1 DOF, %2 driven").arg(mob.grueblerKutzbach).arg(mob.drivers);
  if (free > 0) {
    summary_ = head + tr(" — under-constrained: %n free degree(s) of freedom; drive a grounded link (D) or add links", "", free);
    problem_ = true;
  } else if (free < 0) {
    summary_ = head + tr(" — over-constrained by %1: remove a link, a joint or a driver").arg(-free);
    problem_ = true;
  } else if (!dec.ok) {
    summary_ = head + tr(" — %1").arg(QString::fromStdString(dec.error));
    problem_ = true;
  } else {
    QStringList names;
    for (const auto& n : groupNames_) names << n;
    summary_ = head + tr(" — ") + names.join(", ");
  }
  if (!dec.ok) problemBodies_ = dec.unsolvedBodies;
  fourBars_ = topology::fourBarLoops(*resolved_);
  markUnjoined();
}

void SketchView::markUnjoined() {
  unjoined_ = edit::unjoinedCoincidences(m_, currentPoints(), 1e-9 * (resolved_ ? resolved_->lengthScale() : 1.0));
  if (unjoined_.empty()) return;
  // first: it is why the rest of the banner reads as it does (the count of freedoms)
  const QString hint = unjoined_.size() == 1
                           ? tr("A link end lies on a point without a joint (ringed, dashed red): draw the link again onto it, or drag it apart")
                           : tr("%1 link ends lie on points without a joint (ringed, dashed red): draw the links again onto them, or drag them apart")
                                 .arg(unjoined_.size());
  summary_ = hint + " — " + summary_;
  problem_ = true;
}

void SketchView::updateCurves() {
  curves_.clear();
  drag_.reset();
  if (!resolved_ || problem_ || m_.drivers.size() != 1) return;
  // the drag solver is made here only when there are coupler points to trace; otherwise when
  // the user grabs the driven link (a geometry drag of a long chain stays cheap)
  if (analysis::couplerPoints(*resolved_).empty()) return;
  drag_ = analysis::CrankDrag::create(m_, nullptr);
  if (drag_) curves_ = drag_->couplerCurves(180);
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

Eigen::Vector2d SketchView::world(const QPoint& viewPos) const {
  const QPointF s = mapToScene(viewPos);
  return {s.x(), -s.y()};
}

Eigen::Vector2d SketchView::snap(const QPoint& viewPos, std::optional<edit::SketchPoint>* hit) const {
  const Eigen::Vector2d w = world(viewPos);
  const double metresPerPixel = 1.0 / std::max(1e-9, transform().m11());
  // grid: 0.1 m, coarser when zoomed out (at least 8 px per step)
  double step = 0.1;
  while (step / metresPerPixel < 8 - 1e-9) step *= 5;
  // a point wins over the grid within the grid's own reach (half a cell's diagonal): an end that
  // the grid would put on a point is joined to it, never left lying there unjoined
  const std::vector<edit::SketchPoint> points = currentPoints();
  const auto near = edit::nearestPoint(points, w, std::max(kSnapPixels * metresPerPixel, 0.71 * step));
  if (hit) *hit = near;
  if (near) return near->at;
  const Eigen::Vector2d grid(std::round(w.x() / step) * step, std::round(w.y() / step) * step);
  if (const auto on = edit::nearestPoint(points, grid, 1e-9 * std::max(1.0, grid.norm()))) {
    if (hit) *hit = on;
    return on->at;
  }
  return grid;
}

std::optional<std::string> SketchView::bodyAt(const QPoint& viewPos) const {
  if (!resolved_) return std::nullopt;
  const Eigen::Vector2d w = world(viewPos);
  const double tolerance = 6.0 / std::max(1e-9, transform().m11());
  std::optional<std::string> best;
  double bestDistance = tolerance;
  for (std::size_t b = 1; b < resolved_->bodies.size(); ++b) {
    const auto& body = resolved_->bodies[b];
    const std::size_t n = body.points.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Eigen::Vector2d a = worldPoint(poses_, static_cast<int>(b), body.points[i]);
      const Eigen::Vector2d c = worldPoint(poses_, static_cast<int>(b), body.points[(i + 1) % n]);
      const Eigen::Vector2d ac = c - a;
      const double t = ac.squaredNorm() > 0 ? std::clamp((w - a).dot(ac) / ac.squaredNorm(), 0.0, 1.0) : 0.0;
      const double d = (a + t * ac - w).norm();
      if (d < bestDistance) {
        bestDistance = d;
        best = body.name;
      }
      if (n == 2) break;
    }
  }
  return best;
}

void SketchView::emitEdit(const Mechanism& after, const edit::EditResult& r) {
  if (!r.ok) {
    emit message(QString::fromStdString(r.error));
    return;
  }
  emit edited(after, QString::fromStdString(r.description));
}

void SketchView::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::MiddleButton || (e->button() == Qt::LeftButton && e->modifiers() & Qt::AltModifier)) {
    panning_ = true;
    fitted_ = false;
    panFrom_ = e->pos();
    return;
  }
  if (e->button() != Qt::LeftButton) return;
  std::optional<edit::SketchPoint> hit;
  const Eigen::Vector2d at = snap(e->pos(), &hit);
  Mechanism after = m_;
  switch (tool_) {
    case Tool::GroundPivot:
      if (hit && hit->ground()) {
        emit message(tr("There is already a pivot here"));
        return;
      }
      emitEdit(after, edit::addGroundPoint(after, at));
      return;
    case Tool::Link:
      if (!linkStartAt_) {
        linkStart_ = hit;
        linkStartAt_ = at;
        rubberEnd_ = at;
        typedLength_.clear();
        emit message(tr("Now click (or release) where the link ends"));
      }
      return;
    case Tool::Point:
      if (const auto b = bodyAt(e->pos()); b && resolved_) emitEdit(after, edit::addBodyPoint(after, *resolved_, *b, world(e->pos())));
      else emit message(tr("Click on a link to add a point to it"));
      return;
    case Tool::Slider:
      // the guide follows the drag from the point (a click: along x)
      if (hit && !hit->ground()) {
        sliderOn_ = hit;
        sliderPress_ = e->pos();
        rubberEnd_.reset();
        emit message(tr("Drag to set the guide's direction (15° steps; Shift: free), or release for x"));
      } else {
        emit message(tr("Click on a point of a link (an end, or a coupler point)"));
      }
      return;
    case Tool::Driver:
      if (const auto b = bodyAt(e->pos())) emitEdit(after, edit::addCrankDriver(after, *b));
      else emit message(tr("Click on a link pinned to the ground"));
      return;
    case Tool::Delete:
      if (hit && hit->ground()) emitEdit(after, edit::deleteGroundPoint(after, hit->point));
      else if (const auto b = bodyAt(e->pos())) emitEdit(after, edit::deleteBody(after, *b));
      return;
    case Tool::Select: {
      // one rule: a plain drag moves the mechanism (the crank, by any part of it), Shift + drag a
      // point changes the geometry; without a crank to turn, a plain drag of a point does too
      const bool geometry = e->modifiers() & Qt::ShiftModifier;
      ensureDrag();
      const std::string crank = crankName();
      const auto b = bodyAt(e->pos());
      bool onCrank = !crank.empty() && b && *b == crank;
      if (!crank.empty() && hit)  // a joint's point: the crank's too, whichever is listed first
        for (const auto& q : currentPoints())
          if (q.body == crank && (q.at - hit->at).norm() < 1e-12) onCrank = true;
      if (!geometry && onCrank) {
        const Eigen::Vector3d P = crankPivot();
        const Eigen::Vector2d w = world(e->pos());
        turning_ = true;
        lastMouseAngle_ = std::atan2(w.y() - P.y(), w.x() - P.x());
        turned_ = drag_->value();
        emit message(tr("Turning %1 (%2°): the mechanism follows; Shift + drag a point to change the geometry")
                         .arg(QString::fromStdString(crank))
                         .arg(crankAngle(), 0, 'f', 1));
        return;
      }
      if (hit && resolved_ && (geometry || crank.empty())) {
        if (drag_ && std::abs(drag_->value()) > 1e-12) {  // geometry edits are of the stored configuration
          emit message(tr("Turn the crank back to its drawn position (or open the file again) to edit the geometry"));
          return;
        }
        moving_ = hit;
        beforeMove_ = m_;
        return;
      }
      emit message(crank.empty() ? tr("Drag a point to change the geometry; drive a grounded link (D) to move the mechanism")
                                 : tr("Drag the crank (%1) to move the mechanism; Shift + drag a point to change the geometry")
                                       .arg(QString::fromStdString(crank)));
      return;
    }
  }
}

bool SketchView::ensureDrag() {
  if (!drag_ && resolved_ && !problem_ && m_.drivers.size() == 1) drag_ = analysis::CrankDrag::create(m_, nullptr);
  return drag_ != nullptr;
}

std::string SketchView::crankName() const {
  if (!drag_) return {};
  const auto& jt = drag_->resolved().joints[static_cast<std::size_t>(drag_->joint())];
  const int crank = jt.points[0].body == 0 ? jt.points[1].body : jt.points[0].body;
  return drag_->resolved().bodies[static_cast<std::size_t>(crank)].name;
}

Eigen::Vector3d SketchView::crankPivot() const {
  const auto& jt = drag_->resolved().joints[static_cast<std::size_t>(drag_->joint())];
  const ItemIndex pivot = jt.points[0].body == 0 ? jt.points[0] : jt.points[1];
  return drag_->resolved().bodies[0].points[static_cast<std::size_t>(pivot.index)];
}

double SketchView::crankAngle() const {
  // the driven pin's angle as the outputs measure it: body 2's x axis from body 1's, in degrees
  if (!resolved_ || poses_.empty()) return 0;
  const auto driver = std::find_if(resolved_->drivers.begin(), resolved_->drivers.end(),
                                   [](const auto& d) { return d.type == lw::Driver::Type::Joint; });
  if (driver == resolved_->drivers.end()) return 0;
  const auto& jt = resolved_->joints[static_cast<std::size_t>(driver->joint)];
  auto angle = [&](int body) { return std::atan2(poses_[12 * static_cast<std::size_t>(body) + 3], poses_[12 * static_cast<std::size_t>(body)]); };
  double a = (angle(jt.points[1].body) - angle(jt.points[0].body)) * 180 / std::numbers::pi;
  while (a > 180) a -= 360;
  while (a <= -180) a += 360;
  return a;
}

bool SketchView::turnBy(double delta) {
  // as far as the linkage goes towards turned_ + delta: a dead point is approached by halving
  if (drag_->solve(turned_ + delta).ok()) {
    turned_ += delta;
    poses_ = drag_->poses();
    return true;
  }
  for (double part = delta / 2; std::abs(part) > 1e-4; part /= 2)
    if (drag_->solve(turned_ + part).ok()) turned_ += part;
  turned_ = drag_->value();
  poses_ = drag_->poses().empty() ? poses_ : drag_->poses();
  return false;
}

void SketchView::setAnimating(bool on) {
  if (on && (!ensureDrag() || !resolved_)) {
    emit message(tr("Nothing to animate: drive one grounded link (D) of a mechanism with 1 DOF"));
    emit animatingChanged(false);
    return;
  }
  if (on == animation_->isActive()) return;
  if (on) {
    turned_ = drag_->value();
    rocking_.reset();
    animation_->start();
  } else {
    animation_->stop();
  }
  emit animatingChanged(on);
}

bool SketchView::animating() const { return animation_->isActive(); }

void SketchView::animationTick() {
  if (!drag_) return setAnimating(false);
  // about a quarter turn per second; at a dead point the crank turns back: a rocker swings
  // between its limits
  if (!turnBy(direction_ * 0.05)) {
    const double limit = crankAngle();
    if (!rocking_) rocking_ = std::make_pair(limit, limit);
    rocking_->first = std::min(rocking_->first, limit);
    rocking_->second = std::max(rocking_->second, limit);
    direction_ = -direction_;
    emit message(tr("Rocking between its limits: %1° and %2°").arg(rocking_->first, 0, 'f', 1).arg(rocking_->second, 0, 'f', 1));
  }
  updatePoses();
}

void SketchView::mouseMoveEvent(QMouseEvent* e) {
  if (panning_) {
    const QPoint d = e->pos() - panFrom_;
    panFrom_ = e->pos();
    translate(d.x() / transform().m11(), d.y() / transform().m22());
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
    return;
  }
  if (tool_ == Tool::Link && linkStartAt_) {
    rubberEnd_ = snap(e->pos(), nullptr);
    viewport()->update();
    return;
  }
  if (tool_ == Tool::Slider && sliderOn_) {
    if ((e->pos() - sliderPress_).manhattanLength() >= 6) rubberEnd_ = sliderOn_->at + guideDirection(e->pos(), e->modifiers());
    viewport()->update();
    return;
  }
  if (moving_) {
    // live: the geometry changes as the point moves (the coupler curves follow)
    std::optional<edit::SketchPoint> ignored;
    Eigen::Vector2d to = snap(e->pos(), &ignored);
    if (ignored && ignored->body == moving_->body && ignored->point == moving_->point) to = world(e->pos());
    Diagnostics d;
    const auto before = resolve(beforeMove_, d);
    if (!before) return;
    Mechanism after = beforeMove_;
    edit::movePoint(after, *before, *moving_, to);
    Diagnostics d2;
    auto r = resolve(after, d2);
    if (!r) {
      emit message(d2.empty() ? tr("Not a valid position") : QString::fromStdString(d2.front().format()));
      return;
    }
    setMechanism(after, std::make_shared<const ResolvedMechanism>(std::move(*r)));
    return;
  }
  if (turning_ && drag_) {
    const auto& jt = drag_->resolved().joints[static_cast<std::size_t>(drag_->joint())];
    const ItemIndex pivot = jt.points[0].body == 0 ? jt.points[0] : jt.points[1];
    const Eigen::Vector3d P = drag_->resolved().bodies[0].points[static_cast<std::size_t>(pivot.index)];
    const Eigen::Vector2d w = world(e->pos());
    const double a = std::atan2(w.y() - P.y(), w.x() - P.x());
    double delta = a - lastMouseAngle_;
    while (delta > std::numbers::pi) delta -= 2 * std::numbers::pi;
    while (delta < -std::numbers::pi) delta += 2 * std::numbers::pi;
    lastMouseAngle_ = a;
    const double sign = jt.points[0].body == 0 ? 1.0 : -1.0;  // the coordinate of body 2 relative to body 1
    if (!turnBy(sign * delta))
      emit message(tr("The crank stops at %1°: the linkage cannot reach further (a dead point); Animate (M) rocks it between its limits")
                       .arg(crankAngle(), 0, 'f', 1));
    else
      emit message(tr("Crank at %1°").arg(crankAngle(), 0, 'f', 1));
    updatePoses();
    return;
  }
}

void SketchView::mouseReleaseEvent(QMouseEvent* e) {
  if (panning_) {
    panning_ = false;
    return;
  }
  if (e->button() != Qt::LeftButton) return;
  if (tool_ == Tool::Slider && sliderOn_) {
    const Eigen::Vector2d u = (e->pos() - sliderPress_).manhattanLength() >= 6 ? guideDirection(e->pos(), e->modifiers())
                                                                               : Eigen::Vector2d::UnitX();
    const edit::SketchPoint on = *sliderOn_;
    sliderOn_.reset();
    rubberEnd_.reset();
    viewport()->update();
    Mechanism after = m_;
    emitEdit(after, edit::addSlider(after, on, u));
    return;
  }
  if (tool_ == Tool::Link && linkStartAt_) {
    std::optional<edit::SketchPoint> hit;
    const Eigen::Vector2d at = snap(e->pos(), &hit);
    if ((at - *linkStartAt_).norm() < 1e-9) return;  // a click: wait for the second one
    Mechanism after = m_;
    const auto r = edit::addLink(after, {linkStart_, *linkStartAt_}, {hit, at});
    linkStart_.reset();
    linkStartAt_.reset();
    rubberEnd_.reset();
    viewport()->update();
    emitEdit(after, r);
    return;
  }
  if (moving_) {
    const edit::SketchPoint p = *moving_;
    moving_.reset();
    emit edited(m_, tr("Move %1.%2").arg(QString::fromStdString(p.body), QString::fromStdString(p.point)));
    return;
  }
  turning_ = false;
}

void SketchView::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape && (linkStartAt_ || sliderOn_)) {  // a link or guide in progress is dropped
    emit message(linkStartAt_ ? tr("Link cancelled") : tr("Slider cancelled"));
    linkStart_.reset();
    linkStartAt_.reset();
    sliderOn_.reset();
    rubberEnd_.reset();
    typedLength_.clear();
    viewport()->update();
    return;
  }
  // a link being drawn takes a typed length (as CAD does): digits, then Enter; the direction is
  // the mouse's
  if (tool_ == Tool::Link && linkStartAt_) {
    const QString t = e->text();
    if (!t.isEmpty() && (t[0].isDigit() || t == "." || t == ",")) {
      typedLength_ += t == "," ? QStringLiteral(".") : t;
      emit message(tr("Length %1 m: Enter places the end along the mouse's direction, Esc cancels").arg(typedLength_));
      viewport()->update();
      return;
    }
    if (e->key() == Qt::Key_Backspace && !typedLength_.isEmpty()) {
      typedLength_.chop(1);
      viewport()->update();
      return;
    }
    if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) && !typedLength_.isEmpty()) {
      placeTypedLength();
      return;
    }
  }
  QGraphicsView::keyPressEvent(e);
}

bool SketchView::typeLinkLength(const QString& metres) {
  if (tool_ != Tool::Link || !linkStartAt_) return false;
  typedLength_ = metres;
  return placeTypedLength();
}

bool SketchView::placeTypedLength() {
  bool ok = false;
  const double length = typedLength_.toDouble(&ok);
  typedLength_.clear();
  if (!ok || !(length > 0)) {
    emit message(tr("A link's length is a positive number of metres"));
    viewport()->update();
    return false;
  }
  Eigen::Vector2d u = rubberEnd_ ? Eigen::Vector2d(*rubberEnd_ - *linkStartAt_) : Eigen::Vector2d::UnitX();
  if (u.norm() < 1e-12) u = Eigen::Vector2d::UnitX();
  const Eigen::Vector2d end = *linkStartAt_ + length * u.normalized();
  // an end exactly on a point is pinned to it
  const auto on = edit::nearestPoint(currentPoints(), end, 1e-9 * std::max(1.0, end.norm()));
  Mechanism after = m_;
  const auto r = edit::addLink(after, {linkStart_, *linkStartAt_}, {on, end});
  linkStart_.reset();
  linkStartAt_.reset();
  rubberEnd_.reset();
  viewport()->update();
  emitEdit(after, r);
  return r.ok;
}

void SketchView::wheelEvent(QWheelEvent* e) {
  const double f = std::pow(1.0015, e->angleDelta().y());
  scale(f, f);
  fitted_ = false;
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

Eigen::Vector2d SketchView::guideDirection(const QPoint& viewPos, Qt::KeyboardModifiers modifiers) const {
  const Eigen::Vector2d d = world(viewPos) - sliderOn_->at;
  double angle = std::atan2(d.y(), d.x());
  if (!(modifiers & Qt::ShiftModifier)) {
    const double step = std::numbers::pi / 12;  // 15°
    angle = std::round(angle / step) * step;
  }
  // a guide is a line: keep the direction in (−90°, 90°] so that "left" and "right" are one guide
  if (angle > std::numbers::pi / 2 + 1e-12) angle -= std::numbers::pi;
  if (angle <= -std::numbers::pi / 2 + 1e-12) angle += std::numbers::pi;
  Eigen::Vector2d u(std::cos(angle), std::sin(angle));
  for (int k = 0; k < 2; ++k)
    if (std::abs(u[k]) < 1e-12) u[k] = 0;  // exact axes: "x" stays the shared ground x
  return u.normalized();
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
    p->resetTransform();
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
    p->resetTransform();
    p->setPen(QColor(214, 39, 40));
    p->drawText(at + QPointF(18, -12), tr("not joined"));
    p->restore();
  }
  // banner and group legend in view coordinates
  p->save();
  p->resetTransform();
  const Overlay o = overlay();
  p->setFont(o.font);
  p->setPen(Qt::NoPen);
  p->setBrush(problem_ ? QColor(214, 39, 40, 230) : QColor(40, 40, 40, 210));
  p->drawRoundedRect(o.banner, 5, 5);
  p->setPen(Qt::white);
  const QFontMetrics fm(o.font);
  p->drawText(o.banner.adjusted(10, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(summary_, Qt::ElideRight, o.banner.width() - 14));
  for (std::size_t g = 0; g < o.groups.size(); ++g) {
    const int y = o.groups[g].first;
    p->setBrush(groupColour(static_cast<int>(g)));
    p->setPen(Qt::NoPen);
    p->drawRoundedRect(QRect(12, y + 3, 22, fm.height() - 6), 3, 3);
    p->setPen(QColor("#202020"));
    p->drawText(QPoint(42, y + fm.ascent()), o.groups[g].second);
  }
  for (const auto& [area, line] : o.lines) {
    p->setPen(QColor("#202020"));
    p->drawText(area, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, line);
  }
  p->restore();
}

SketchView::Overlay SketchView::overlay() const {
  Overlay o;
  o.font = font();
  o.font.setPointSizeF(o.font.pointSizeF() * 1.05);
  const QFontMetrics fm(o.font);
  o.banner = QRect(8, 8, std::min(viewport()->width() - 16, fm.horizontalAdvance(summary_) + 32), fm.height() + 10);
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
  return o;
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
    out << tr("Four-bar %1–%2–%3: %4 · transmission angle %5°, %6°–%7° over the motion")
               .arg(name(l.input), name(l.coupler), name(l.output), type)
               .arg(topology::transmissionAngle(*resolved_, l, poses_), 0, 'f', 0)
               .arg(l.minTransmission, 0, 'f', 0)
               .arg(l.maxTransmission, 0, 'f', 0);
  }
  return out;
}

}  // namespace lw::widgets
