// The sketch's context menu (Parameterise Length on a link, Add Target Path on a coupler point)
// and the target path being clicked: its targets added, dragged, removed, drawn, and made a
// targets cost (analysis/target_path.h) as one edit.
#include <QContextMenuEvent>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "core/status.h"
#include "simulation/target_path.h"
#include "mechanism/parameter_edits.h"
#include "sketch/sketch_view.h"

namespace lw::widgets {

void SketchView::startTargetPath(const std::string& body, const std::string& point) {
  targetPoint_ = Ref{body, point};
  targets_.clear();
  movingTarget_ = -1;
  emit message(tr("Click the positions %1.%2 should pass through (drag one to move it, Del removes the last); "
                  "Enter makes them a cost, Esc cancels")
                   .arg(QString::fromStdString(body), QString::fromStdString(point)));
  viewport()->setCursor(Qt::CrossCursor);
  viewport()->update();
}

void SketchView::cancelTargetPath() {
  targetPoint_.reset();
  targets_.clear();
  movingTarget_ = -1;
  viewport()->setCursor(tool_ == Tool::Select ? Qt::ArrowCursor : Qt::CrossCursor);
  viewport()->update();
}

bool SketchView::finishTargetPath() {
  if (!targetPoint_) return false;
  if (targets_.empty()) {
    emit message(tr("Click at least one position first (Esc cancels)"));
    return false;
  }
  Mechanism after = m_;
  const edit::EditResult r = analysis::addTargetPath(after, *targetPoint_, targets_);
  if (!r.ok) {
    emit message(QString::fromStdString(r.error));
    return false;
  }
  cancelTargetPath();
  emitEdit(after, r);
  return true;
}

int SketchView::targetAt(const QPoint& viewPos) const {
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const QPointF at = mapFromScene(toScene(targets_[i].x(), targets_[i].y()));
    if ((at - QPointF(viewPos)).manhattanLength() <= 10) return static_cast<int>(i);
  }
  return -1;
}

std::optional<std::pair<std::size_t, std::size_t>> SketchView::costTargetAt(const QPoint& viewPos) const {
  for (std::size_t c = 0; c < m_.costs.size(); ++c) {
    if (m_.costs[c].type != Cost::Type::Targets) continue;
    for (std::size_t i = 0; i < m_.costs[c].targets.size(); ++i) {
      const auto& at = m_.costs[c].targets[i].at;
      if (at.size() < 2) continue;
      if ((mapFromScene(toScene(at[0], at[1])) - viewPos).manhattanLength() <= 10) return std::make_pair(c, i);
    }
  }
  return std::nullopt;
}

bool SketchView::targetPress(QMouseEvent* e) {
  // the Select tool drags a target of the file's costs (the cross moves; the edit on release)
  if (!targetPoint_ && tool_ == Tool::Select && e->button() == Qt::LeftButton && !(e->modifiers() & Qt::AltModifier)) {
    movingCostTarget_ = costTargetAt(e->pos());
    if (movingCostTarget_) {
      emit message(tr("Drag the target; it is kept where you let go (Ctrl+Z undoes)"));
      return true;
    }
  }
  if (!targetPoint_ || e->button() != Qt::LeftButton || (e->modifiers() & Qt::AltModifier)) return false;
  movingTarget_ = targetAt(e->pos());
  if (movingTarget_ < 0) {
    targets_.push_back(world(e->pos()));
    movingTarget_ = static_cast<int>(targets_.size()) - 1;
    emit message(tr("%n target(s): click more, Enter makes them a cost, Esc cancels", "", static_cast<int>(targets_.size())));
  }
  viewport()->update();
  return true;
}

bool SketchView::targetMove(QMouseEvent* e) {
  if (movingCostTarget_ && (e->buttons() & Qt::LeftButton)) {
    const Eigen::Vector2d to = world(e->pos());
    auto& at = m_.costs[movingCostTarget_->first].targets[movingCostTarget_->second].at;
    at[0] = to.x(), at[1] = to.y();
    rebuild();  // the crosses are scene items
    return true;
  }
  if (!targetPoint_ || movingTarget_ < 0 || !(e->buttons() & Qt::LeftButton)) return false;
  targets_[static_cast<std::size_t>(movingTarget_)] = world(e->pos());
  viewport()->update();
  return true;
}

bool SketchView::targetRelease(QMouseEvent* e) {
  if (movingCostTarget_ && e->button() == Qt::LeftButton) {
    const auto [c, i] = *movingCostTarget_;
    movingCostTarget_.reset();
    edit::EditResult r;
    r.ok = true;
    r.description = "Move target " + std::to_string(i + 1) + " of " + m_.costs[c].name;
    emitEdit(m_, r);  // m_ holds the dragged position: the whole mechanism after the edit
    return true;
  }
  if (!targetPoint_ || e->button() != Qt::LeftButton) return false;
  movingTarget_ = -1;
  return true;
}

bool SketchView::targetKey(QKeyEvent* e) {
  if (!targetPoint_) return false;
  switch (e->key()) {
    case Qt::Key_Escape:
      cancelTargetPath();
      emit message(tr("Target path cancelled"));
      return true;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      finishTargetPath();
      return true;
    case Qt::Key_Delete:
    case Qt::Key_Backspace: {
      const int under = targetAt(viewport()->mapFromGlobal(QCursor::pos()));
      if (!targets_.empty()) targets_.erase(targets_.begin() + (under >= 0 ? under : static_cast<int>(targets_.size()) - 1));
      viewport()->update();
      return true;
    }
    default: return false;
  }
}

bool SketchView::event(QEvent* e) {
  // while targets are clicked, Enter, Esc and Del are theirs, not the window's shortcuts
  if (e->type() == QEvent::ShortcutOverride && targetPoint_) {
    const int key = static_cast<QKeyEvent*>(e)->key();
    if (key == Qt::Key_Escape || key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Delete || key == Qt::Key_Backspace) {
      e->accept();
      return true;
    }
  }
  return QGraphicsView::event(e);
}

QMenu* SketchView::contextMenuAt(const QPoint& viewPos) {
  auto* menu = new QMenu(this);
  if (targetPoint_) {
    QAction* finish = menu->addAction(tr("Finish Target Path (%n target(s))", "", static_cast<int>(targets_.size())), this,
                                      [this] { finishTargetPath(); });
    finish->setObjectName("FinishTargetPath");
    finish->setEnabled(!targets_.empty());
    menu->addAction(tr("Cancel Target Path"), this, [this] { cancelTargetPath(); })->setObjectName("CancelTargetPath");
    return menu;
  }
  // a targets cost's cross under the mouse: removed (a cost keeps one at least); elsewhere a
  // target added here to each targets cost (a timed cost's with the time the user gives)
  if (const auto under = costTargetAt(viewPos)) {
    const auto [c, i] = *under;
    const Cost& cost = m_.costs[c];
    QAction* a = menu->addAction(tr("Remove Target %1 of %2").arg(i + 1).arg(QString::fromStdString(cost.name)), this, [this, c = c, i = i] {
      Mechanism after = m_;
      auto& targets = after.costs[c].targets;
      targets.erase(targets.begin() + static_cast<long>(i));
      edit::EditResult r;
      r.ok = true;
      r.description = "Remove target " + std::to_string(i + 1) + " of " + after.costs[c].name;
      emitEdit(after, r);
    });
    a->setObjectName("RemoveCostTarget");
    a->setEnabled(cost.targets.size() > 1);
    if (!a->isEnabled()) a->setToolTip(tr("A cost keeps one target at least: delete the cost itself in the model tree"));
  } else {
    const Eigen::Vector2d here = world(viewPos);
    for (std::size_t c = 0; c < m_.costs.size(); ++c) {
      const Cost& cost = m_.costs[c];
      if (cost.type != Cost::Type::Targets) continue;
      if (cost.timing == Cost::Timing::Free) {
        QAction* a = menu->addAction(tr("Add Target to %1 Here").arg(QString::fromStdString(cost.name)), this, [this, c, here] {
          Mechanism after = m_;
          Cost::Target t;
          t.at = {here.x(), here.y()};
          after.costs[c].targets.push_back(t);
          edit::EditResult r;
          r.ok = true;
          r.description = "Add a target to " + after.costs[c].name;
          emitEdit(after, r);
        });
        a->setObjectName("AddCostTarget");
        a->setToolTip(tr("The point should pass through here too (wherever along its path)"));
        continue;
      }
      // a timed target: here at a time the user gives (by default one spacing after the last)
      QAction* a = menu->addAction(tr("Add Timed Target to %1 Here...").arg(QString::fromStdString(cost.name)), this, [this, c, here] {
        const auto& targets = m_.costs[c].targets;
        double next = 0;
        if (!targets.empty()) next = targets.back().t + (targets.size() > 1 ? targets.back().t - targets[targets.size() - 2].t : 0.1);
        bool ok = false;
        const double t = QInputDialog::getDouble(this, tr("Add a timed target"),
                                                 tr("The time at which %1 should be here (s):").arg(QString::fromStdString(m_.costs[c].output)),
                                                 std::max(0.0, next), 0, 1e9, 4, &ok);
        if (!ok) return;
        Mechanism after = m_;
        auto& list = after.costs[c].targets;
        edit::EditResult r;
        for (const auto& x : list)
          if (std::abs(x.t - t) <= 1e-12 * std::max(1.0, std::abs(t))) {
            r.ok = false;
            r.description = "Add a timed target to " + after.costs[c].name;
            r.error = after.costs[c].name + " has a target at t = " + shortNumber(t) + " s already: move that one, or give another time";
            emitEdit(after, r);
            return;
          }
        Cost::Target target;
        target.t = t;
        target.at = {here.x(), here.y()};
        // the targets stay in time order (the cost reads them so)
        list.insert(std::upper_bound(list.begin(), list.end(), t, [](double v, const Cost::Target& x) { return v < x.t; }), target);
        r.ok = true;
        r.description = "Add a target at t = " + shortNumber(t) + " s to " + after.costs[c].name;
        emitEdit(after, r);
      });
      a->setObjectName("AddTimedCostTarget");
      a->setToolTip(tr("The point should be here at a time you give (the cost's targets are timed)"));
    }
  }
  std::optional<edit::SketchPoint> hit;
  snap(viewPos, &hit);
  if (hit && !hit->ground()) {
    const edit::SketchPoint on = *hit;
    QAction* a = menu->addAction(tr("Add Target Path for %1.%2...").arg(QString::fromStdString(on.body), QString::fromStdString(on.point)),
                                 this, [this, on] { startTargetPath(on.body, on.point); });
    a->setObjectName("AddTargetPath");
    a->setToolTip(tr("Click the positions this point should pass through: they become a cost to tune"));
  }
  // a ground pivot: its distance to each other one (the ground's link) as a design parameter
  if (hit && hit->ground()) {
    const std::string here = hit->point;
    for (const auto& other : m_.ground.points) {
      if (other.name == here) continue;
      const std::string from = other.name;
      QAction* a = menu->addAction(tr("Parameterise Distance from %1 to %2").arg(QString::fromStdString(from), QString::fromStdString(here)), this,
                                   [this, from, here] {
                                     Mechanism after = m_;
                                     emitEdit(after, edit::parameteriseGroundDistance(after, from, here));
                                   });
      a->setObjectName("ParameteriseGroundDistance");
      a->setToolTip(tr("The ground link's length becomes a design parameter: %1 moves along the line from %2 when it changes")
                        .arg(QString::fromStdString(here), QString::fromStdString(from)));
    }
  }
  if (const auto body = bodyAt(viewPos)) {
    const std::string b = *body;
    QAction* a = menu->addAction(tr("Parameterise Length of %1").arg(QString::fromStdString(b)), this, [this, b] {
      Mechanism after = m_;
      emitEdit(after, edit::parameteriseLength(after, b));
    });
    a->setObjectName("ParameteriseLength");
    a->setToolTip(tr("The link's length becomes a design parameter (Parameters panel); the link stays a link when it changes"));
  }
  return menu;
}

void SketchView::contextMenuEvent(QContextMenuEvent* e) {
  QMenu* menu = contextMenuAt(e->pos());
  if (!menu->isEmpty()) menu->exec(e->globalPos());
  menu->deleteLater();
}

void SketchView::paintTargets(QPainter* p) {
  // the targets being clicked (orange), numbered; the file's targets are drawn with the scene
  auto draw = [&](const Eigen::Vector2d& at, const QColor& colour, const QString& label) {
    p->save();
    const QPointF v = mapFromScene(toScene(at.x(), at.y()));
    p->setTransform(viewportTransform().inverted() * p->transform());  // view pixels, scaled with an export
    QPen pen(colour, 2);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawLine(v + QPointF(-6, -6), v + QPointF(6, 6));
    p->drawLine(v + QPointF(-6, 6), v + QPointF(6, -6));
    p->drawEllipse(v, 8, 8);
    p->drawText(v + QPointF(10, -8), label);
    p->restore();
  };
  for (std::size_t i = 0; i < targets_.size(); ++i) draw(targets_[i], QColor(230, 120, 0), QString::number(i + 1));
}

}  // namespace lw::widgets
