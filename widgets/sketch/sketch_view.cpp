// The sketch: the mechanism shown as bodies and joints on a plane, its analysis (mobility,
// structural groups, the four-bar's Grashof class) and the fit. Painting: sketch_painting.cpp;
// mouse and keyboard: sketch_input.cpp.
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
  free_ = false;
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
    // not a fault: a mechanism with free freedoms moves under dynamics (the five-bar, a
    // pendulum); the banner says so in the neutral colour and how to move it by hand
    summary_ = (mob.drivers ? tr("%1 DOF, %2 driven, %3 free").arg(mob.grueblerKutzbach).arg(mob.drivers).arg(free)
                            : tr("%1 DOF, free").arg(mob.grueblerKutzbach)) +
               tr(": runs under dynamics (Analysis); D drives a grounded link by hand");
    problem_ = true;  // no kinematic drag or coupler curves
    free_ = true;
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
  free_ = false;  // a fault after all: red
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


}  // namespace lw::widgets
