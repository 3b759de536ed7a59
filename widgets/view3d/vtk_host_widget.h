// VtkHostWidget: a QOpenGLWidget that hosts a VTK render window (the Qt 6 replacement for
// QVTKOpenGLNativeWidget, which Debian only ships for Qt 5). VTK renders into its own
// framebuffer inside paintGL; the widget blits that into Qt's framebuffer.
// See shared/reference/stack-notes.md ("Hosting VTK in a Qt 6 widget") for the two pitfalls
// handled in the .cpp. No VTK header is included here: VTK types are only forward declared.
#pragma once

#include <QImage>
#include <QOpenGLWidget>

#include <memory>

class vtkGenericOpenGLRenderWindow;
class vtkRenderer;
class vtkRenderWindowInteractor;

namespace lw::widgets {

/// Installs the default QSurfaceFormat VTK needs (OpenGL 3.2 core, depth 24, stencil 8, alpha 8,
/// double buffered). Call once before constructing the QApplication.
void setDefaultSurfaceFormat();

/// A QOpenGLWidget owning a vtkGenericOpenGLRenderWindow, one vtkRenderer and a
/// vtkGenericRenderWindowInteractor with a trackball-camera style.
/// Mouse: left drag rotates, middle drag (or shift + left) pans, right drag or wheel zooms,
/// ctrl + left spins about the view axis.
/// Rendering happens only in paintGL; call requestRender() (or update()) after changing actors.
class VtkHostWidget : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit VtkHostWidget(QWidget* parent = nullptr);
  ~VtkHostWidget() override;

  VtkHostWidget(const VtkHostWidget&) = delete;
  VtkHostWidget& operator=(const VtkHostWidget&) = delete;

  /// The one renderer (viewport 0..1). Owned by the widget; valid for the widget's lifetime.
  [[nodiscard]] vtkRenderer* renderer() const;
  /// The render window (owned by the widget). Do not call its Render() directly: use
  /// requestRender(), which schedules a paintGL.
  [[nodiscard]] vtkGenericOpenGLRenderWindow* renderWindow() const;
  [[nodiscard]] vtkRenderWindowInteractor* interactor() const;

  /// Schedules a repaint (VTK renders inside paintGL). Cheap; repeated calls coalesce.
  void requestRender();

  /// Renders now (if needed) and returns the widget's pixels (QOpenGLWidget::grabFramebuffer).
  /// The image has the device-pixel size of the widget and alpha 255 everywhere.
  [[nodiscard]] QImage grabImage();

  /// Number of VTK renders done in paintGL so far (for tests and frame-rate displays).
  [[nodiscard]] long long renderCount() const;

  /// Animation (playback, camera drags) on a software OpenGL renderer drops multisampling, which
  /// costs it 3-4× per frame, and lights the scene with one headlight instead of the renderer's
  /// lights (shading costs it per light); both come back when the motion stops. A GPU keeps them.
  void setAnimating(bool animating);
  /// A scene of thousands of parts (instanced) is drawn on a software renderer as while animating,
  /// always: each of its frames costs seconds with multisampling and five lights (grid 100×100:
  /// 2.3 s a frame), and its parts are a few pixels each. A GPU keeps the full quality.
  void setHeavyScene(bool heavy);
  /// True when the OpenGL renderer is a software rasteriser (llvmpipe, softpipe, SwiftShader).
  [[nodiscard]] bool softwareRenderer() const;
  /// Samples per pixel of the current rendering (0: none).
  [[nodiscard]] int multiSamples() const;
  /// Lights switched on in the renderer.
  [[nodiscard]] int lightsOn() const;

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;

  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  void releaseGraphics();
  void onContextAboutToBeDestroyed();

  struct Impl;
  std::unique_ptr<Impl> d_;
};

}  // namespace lw::widgets
