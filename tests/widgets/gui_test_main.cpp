// The main of every GUI test binary: the OpenGL surface format VTK needs, then a QApplication.
#include <gtest/gtest.h>

#include <QApplication>

#include "view3d/vtk_host_widget.h"

int main(int argc, char** argv) {
  lw::widgets::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
