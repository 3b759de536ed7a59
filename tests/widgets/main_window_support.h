// Shared by the GUI tests that drive the whole main window: a fixture that starts from the
// default layout, and a sample opened and shown at a size.
#pragma once

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QSettings>
#include <QSize>
#include <QTest>

#include "main_window.h"

namespace lw::test {

/// Each test starts from the default window layout (no state saved by an earlier test).
class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    QCoreApplication::setOrganizationName("LinkwrightTests");
    QSettings().remove("window");
  }
};

/// Opens samples/<sample>.json in `w` and shows it at `size`, its window exposed.
inline void openShown(lw::app::MainWindow& w, const QString& sample, QSize size = {1280, 800}) {
  ASSERT_TRUE(w.openFile(QStringLiteral(LW_SAMPLES_DIR) + "/" + sample + ".json", false));
  w.resize(size);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QTest::qWait(100);
}

}  // namespace lw::test
