// The sketch's mouse and keyboard: the tools (draw, join, drag, delete), snapping, the crank
// turned by hand or animated, typed lengths and zoom.
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
  if (targetPress(e)) return;
  if (e->button() == Qt::MiddleButton || (e->button() == Qt::LeftButton && e->modifiers() & Qt::AltModifier)) {
    panning_ = true;
    fitted_ = false;
    panFrom_ = e->pos();
    return;
  }
  if (e->button() != Qt::LeftButton) return;
  if (const Overlay o = overlay(); o.collapsible && o.banner.contains(e->pos())) {  // the banner: show or hide the rest
    setOverlayCollapsed(!o.collapsed);
    return;
  }
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
        // the edit is of the pose shown: a turned crank's pose becomes the stored configuration
        // the edit starts from (what a run assembles from), so the drawing does not jump back
        beforeMove_ = m_;
        if (drag_ && std::abs(drag_->value()) > 0) {
          QString why;
          if (!posedMechanism(beforeMove_, why)) {
            emit message(why);
            return;
          }
        }
        moving_ = hit;
        return;
      }
      emit message(crank.empty() ? tr("Drag a point to change the geometry; drive a grounded link (D) to move the mechanism")
                                 : tr("Drag the crank (%1) to move the mechanism; Shift + drag a point to change the geometry")
                                       .arg(QString::fromStdString(crank)));
      return;
    }
  }
}

bool SketchView::posedMechanism(Mechanism& out, QString& why) const {
  if (!resolved_ || poses_.size() < resolved_->bodies.size() * 12) return false;
  out = m_;
  for (std::size_t b = 1; b < resolved_->bodies.size(); ++b) {
    const double* p = &poses_[b * 12];
    for (Body& body : out.bodies) {
      if (body.name != resolved_->bodies[b].name) continue;
      const double angle = std::atan2(p[3], p[0]);
      const bool moved = body.position.size() < 2 || std::abs(p[9] - resolved_->bodies[b].position.x()) > 1e-12 ||
                         std::abs(p[10] - resolved_->bodies[b].position.y()) > 1e-12 ||
                         std::abs(std::remainder(angle - std::atan2(resolved_->bodies[b].rotation(1, 0), resolved_->bodies[b].rotation(0, 0)),
                                                 2 * std::numbers::pi)) > 1e-12;
      if (!moved) break;
      if (!body.angle.isLiteral() || body.position.size() < 2 || !body.position[0].isLiteral() || !body.position[1].isLiteral()) {
        why = tr("%1's pose is an expression: Reset Pose (Home) to edit the geometry in the drawn position")
                  .arg(QString::fromStdString(body.name));
        return false;
      }
      body.position[0] = Number(p[9]);
      body.position[1] = Number(p[10]);
      body.angle = Number(angle);
      break;
    }
  }
  return true;
}

void SketchView::resetPose() {
  if (animating()) setAnimating(false);
  drag_.reset();
  turning_ = false;
  poses_ = resolved_ ? storedPoses(*resolved_) : std::vector<double>{};
  updatePoses();
  emit message(tr("Back to the drawn position"));
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
  }
  // the status bar follows the crank (no angle left over from a drag)
  if (rocking_)
    emit message(tr("Crank at %1°, rocking between its limits %2° and %3° (M stops, Home returns to the drawn position)")
                     .arg(crankAngle(), 0, 'f', 1)
                     .arg(rocking_->first, 0, 'f', 1)
                     .arg(rocking_->second, 0, 'f', 1));
  else
    emit message(tr("Crank at %1° (M stops, Home returns to the drawn position)").arg(crankAngle(), 0, 'f', 1));
  updatePoses();
}

void SketchView::mouseMoveEvent(QMouseEvent* e) {
  if (targetMove(e)) return;
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
  if (targetRelease(e)) return;
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
  if (targetKey(e)) return;
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


}  // namespace lw::widgets
