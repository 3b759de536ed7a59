// Shared by the GUI tests: where screenshots go ($LW_TEST_ARTIFACTS, else the working folder).
#pragma once

#include <QDir>
#include <QString>

namespace lw::test {

inline QString artifacts() {
  const QByteArray dir = qgetenv("LW_TEST_ARTIFACTS");
  const QString path = dir.isEmpty() ? QDir::currentPath() : QString::fromLocal8Bit(dir);
  QDir().mkpath(path);
  return path;
}

}  // namespace lw::test
