// Shared by the GUI tests: where screenshots go ($LW_TEST_ARTIFACTS, else the working folder).
#pragma once

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QMenu>
#include <QString>

namespace lw::test {

inline QString artifacts() {
  const QByteArray dir = qgetenv("LW_TEST_ARTIFACTS");
  const QString path = dir.isEmpty() ? QDir::currentPath() : QString::fromLocal8Bit(dir);
  QDir().mkpath(path);
  return path;
}

/// The action `name` of a context menu, triggered as a user picks it (false: not there, or
/// disabled); the menu is deleted.
inline bool pickAction(QMenu* menu, const char* name) {
  auto* a = menu->findChild<QAction*>(name);
  const bool ok = a && a->isEnabled();
  if (ok) a->trigger();
  menu->deleteLater();
  QApplication::processEvents();
  return ok;
}

}  // namespace lw::test
