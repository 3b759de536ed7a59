// The mouse on the sketch, as GUI tests drive it: world points to the viewport's pixels, a tool
// chosen by its action, a click, a drag through world points.
#pragma once

#include <QAction>
#include <QApplication>
#include <QMouseEvent>
#include <QTest>
#include <gtest/gtest.h>
#include <utility>
#include <vector>

#include "main_window.h"
#include "sketch/sketch_view.h"

namespace lw::test {

/// The viewport position of world point (x, y).
inline QPoint at(lw::widgets::SketchView* v, double x, double y) { return v->mapFromScene(v->toScene(x, y)); }

/// Triggers the window's action `name` (a tool, a command), failing the test if there is none.
inline void trigger(lw::app::MainWindow& w, const char* name) {
  auto* a = w.findChild<QAction*>(name);
  ASSERT_NE(a, nullptr) << name;
  a->trigger();
}

inline void click(lw::widgets::SketchView* v, double x, double y) {
  QTest::mouseClick(v->viewport(), Qt::LeftButton, Qt::NoModifier, at(v, x, y));
  QApplication::processEvents();
}

/// A press at the first world point, moves through the others, a release at the last.
inline void drag(lw::widgets::SketchView* v, const std::vector<std::pair<double, double>>& through,
                 Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
  QTest::mousePress(v->viewport(), Qt::LeftButton, modifiers, at(v, through.front().first, through.front().second));
  for (std::size_t k = 1; k < through.size(); ++k) {
    const QPoint p = at(v, through[k].first, through[k].second);
    QMouseEvent move(QEvent::MouseMove, p, v->viewport()->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, modifiers);
    QApplication::sendEvent(v->viewport(), &move);
  }
  QTest::mouseRelease(v->viewport(), Qt::LeftButton, modifiers, at(v, through.back().first, through.back().second));
}

}  // namespace lw::test
