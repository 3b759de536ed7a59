#include "view3d/vtk_host_widget.h"

#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLight.h>
#include <vtkLightCollection.h>
#include <vtkNew.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>

#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <qopengl.h>  // GL enums (VTK's vtk_glew.h cannot be mixed with Qt's GL headers)
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <cmath>
#include <vector>

namespace lw::widgets {

void setDefaultSurfaceFormat() {
  QSurfaceFormat fmt;
  fmt.setRenderableType(QSurfaceFormat::OpenGL);
  fmt.setVersion(3, 2);
  fmt.setProfile(QSurfaceFormat::CoreProfile);
  fmt.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
  fmt.setRedBufferSize(8);
  fmt.setGreenBufferSize(8);
  fmt.setBlueBufferSize(8);
  fmt.setAlphaBufferSize(8);
  fmt.setDepthBufferSize(24);
  fmt.setStencilBufferSize(8);
  fmt.setSamples(0);  // VTK does its own multisampling in its render framebuffer
  QSurfaceFormat::setDefaultFormat(fmt);
}

namespace {
constexpr int kMultiSamples = 4;  // edge smoothing when the GPU (or the motion's end) allows
}  // namespace

struct VtkHostWidget::Impl {
  explicit Impl(VtkHostWidget* self) : widget(self) {}

  VtkHostWidget* widget;
  vtkNew<vtkGenericOpenGLRenderWindow> renderWindow;
  vtkNew<vtkRenderer> renderer;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  std::vector<unsigned long> observerIds;
  bool ready = false;    // between initializeGL and context destruction
  bool software = false;   // the context renders in software
  bool animating = false;  // told by the owner (playback)
  bool heavy = false;      // thousands of parts (setHeavyScene)
  bool interacting = false;  // a camera drag in progress
  // while animating in software: one headlight instead of the owner's lights (fragment shading
  // costs llvmpipe per light: 5 lights of a light kit -> 1 took grid 1x15 from 56-59 to 63-75 fps)
  vtkNew<vtkLight> headlight;
  std::vector<std::pair<vtkSmartPointer<vtkLight>, bool>> ownerLights;  // switched off while reduced
  bool reduced = false;

  void applyQuality() {
    const bool reduce = (animating || interacting || heavy) && software;
    renderWindow->SetMultiSamples(reduce ? 0 : kMultiSamples);
    if (reduce == reduced) return;
    reduced = reduce;
    if (reduce) {
      ownerLights.clear();
      vtkLightCollection* lights = renderer->GetLights();
      lights->InitTraversal();
      while (vtkLight* l = lights->GetNextItem())
        if (l != headlight.Get()) ownerLights.emplace_back(l, l->GetSwitch() != 0);
      for (auto& [l, on] : ownerLights) l->SwitchOff();
      headlight->SwitchOn();
    } else {
      headlight->SwitchOff();
      for (auto& [l, on] : ownerLights) l->SetSwitch(on ? 1 : 0);
      ownerLights.clear();
    }
  }
  void onInteraction(vtkObject*, unsigned long eventId, void*) {
    interacting = eventId == vtkCommand::StartInteractionEvent;
    applyQuality();
    if (!interacting) widget->requestRender();  // the view again, smoothed
  }
  bool inPaint = false;  // inside paintGL (VTK's frame events must not schedule repaints)
  int wheelAccumulator = 0;
  long long renders = 0;

  // VTK asks for its context through events of the generic render window.
  void onWindowEvent(vtkObject*, unsigned long eventId, void* callData) {
    switch (eventId) {
      case vtkCommand::WindowMakeCurrentEvent:
        // pitfall 1: an unconditional makeCurrent() re-binds Qt's framebuffer while VTK builds
        // its own, and VTK's textures end up attached to the wrong one
        if (!isCurrent()) widget->makeCurrent();
        break;
      case vtkCommand::WindowIsCurrentEvent:
        *static_cast<bool*>(callData) = isCurrent();
        break;
      case vtkCommand::WindowFrameEvent:
        // a render outside paintGL (someone called Render() directly): show it
        if (!inPaint) widget->update();
        break;
      default:
        break;
    }
  }

  // the interactor renders nothing itself; its styles ask for a render, we schedule a paint
  void onInteractorRender(vtkObject*, unsigned long, void*) {
    if (!inPaint) widget->update();
  }

  [[nodiscard]] bool isCurrent() const {
    QOpenGLContext* ctx = widget->context();
    return ctx != nullptr && QOpenGLContext::currentContext() == ctx;
  }

  // device pixels, as VTK counts them
  [[nodiscard]] int deviceLength(double logical) const {
    return static_cast<int>(std::lround(logical * widget->devicePixelRatioF()));
  }

  void setInteractorEventInfo(const QPointF& pos, Qt::KeyboardModifiers mods, int repeat) {
    interactor->SetEventInformationFlipY(deviceLength(pos.x()), deviceLength(pos.y()),
                                         (mods & Qt::ControlModifier) ? 1 : 0,
                                         (mods & Qt::ShiftModifier) ? 1 : 0, 0, repeat);
    interactor->SetAltKey((mods & Qt::AltModifier) ? 1 : 0);
  }
};

VtkHostWidget::VtkHostWidget(QWidget* parent) : QOpenGLWidget(parent), d_(std::make_unique<Impl>(this)) {
  auto& rw = d_->renderWindow;
  rw->SetReadyForRendering(false);
  rw->SetFrameBlitModeToNoBlit();  // paintGL copies VTK's display framebuffer itself
  rw->SetOwnContext(0);
  rw->SetForceMaximumHardwareLineWidth(1);
  rw->SetMultiSamples(kMultiSamples);
  rw->AddRenderer(d_->renderer);
  d_->headlight->SetLightTypeToHeadlight();
  d_->headlight->SetIntensity(0.8);  // about the light kit's brightness on a face turned to the camera
  d_->headlight->SwitchOff();
  d_->renderer->AddLight(d_->headlight);

  for (unsigned long ev : {vtkCommand::WindowMakeCurrentEvent, vtkCommand::WindowIsCurrentEvent,
                           vtkCommand::WindowFrameEvent}) {
    d_->observerIds.push_back(rw->AddObserver(ev, d_.get(), &Impl::onWindowEvent));
  }

  auto& iren = d_->interactor;
  iren->SetRenderWindow(rw);
  iren->EnableRenderOff();  // styles must not render outside paintGL
  iren->AddObserver(vtkCommand::RenderEvent, d_.get(), &Impl::onInteractorRender);
  for (unsigned long ev : {vtkCommand::StartInteractionEvent, vtkCommand::EndInteractionEvent})
    d_->style->AddObserver(ev, d_.get(), &Impl::onInteraction);
  iren->SetInteractorStyle(d_->style);
  d_->style->SetDefaultRenderer(d_->renderer);
  iren->Initialize();

  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(64, 64);
}

VtkHostWidget::~VtkHostWidget() {
  // the context outlives this part of the object: stop its aboutToBeDestroyed from reaching us
  if (QOpenGLContext* ctx = context()) disconnect(ctx, nullptr, this, nullptr);
  makeCurrent();
  releaseGraphics();
  doneCurrent();
  for (unsigned long id : d_->observerIds) d_->renderWindow->RemoveObserver(id);
}

vtkRenderer* VtkHostWidget::renderer() const { return d_->renderer; }
vtkGenericOpenGLRenderWindow* VtkHostWidget::renderWindow() const { return d_->renderWindow; }
vtkRenderWindowInteractor* VtkHostWidget::interactor() const { return d_->interactor; }

void VtkHostWidget::requestRender() { update(); }

void VtkHostWidget::setAnimating(bool animating) {
  if (d_->animating == animating) return;
  d_->animating = animating;
  d_->applyQuality();
  if (!animating) requestRender();  // the last frame again, smoothed
}

void VtkHostWidget::setHeavyScene(bool heavy) {
  if (d_->heavy == heavy) return;
  d_->heavy = heavy;
  d_->applyQuality();
  requestRender();
}

bool VtkHostWidget::softwareRenderer() const { return d_->software; }

int VtkHostWidget::multiSamples() const { return d_->renderWindow->GetMultiSamples(); }

int VtkHostWidget::lightsOn() const {
  int on = 0;
  vtkLightCollection* lights = d_->renderer->GetLights();
  lights->InitTraversal();
  while (vtkLight* l = lights->GetNextItem()) on += l->GetSwitch() != 0 ? 1 : 0;
  return on;
}

QImage VtkHostWidget::grabImage() { return grabFramebuffer(); }

long long VtkHostWidget::renderCount() const { return d_->renders; }

void VtkHostWidget::releaseGraphics() {
  if (!d_->ready) return;
  // VTK frees its buffers, textures and shaders in the (current) context
  d_->renderWindow->Finalize();
  d_->renderWindow->SetReadyForRendering(false);
  d_->ready = false;
}

void VtkHostWidget::onContextAboutToBeDestroyed() {
  makeCurrent();
  releaseGraphics();
  doneCurrent();
}

void VtkHostWidget::initializeGL() {
  // the context may be recreated (reparenting): release what belonged to the old one
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &VtkHostWidget::onContextAboutToBeDestroyed,
          Qt::UniqueConnection);
  // which rasteriser: Mesa's software ones are 3-4× slower with multisampling
  const auto* name = reinterpret_cast<const char*>(context()->functions()->glGetString(GL_RENDERER));
  const QString renderer = name ? QString::fromLatin1(name) : QString();
  d_->software = renderer.contains("llvmpipe", Qt::CaseInsensitive) || renderer.contains("softpipe", Qt::CaseInsensitive) ||
                 renderer.contains("swiftshader", Qt::CaseInsensitive) || renderer.contains("software", Qt::CaseInsensitive);
  d_->applyQuality();
  d_->renderWindow->SetReadyForRendering(true);
  d_->renderWindow->OpenGLInit();
  d_->ready = true;
  resizeGL(width(), height());
}

void VtkHostWidget::resizeGL(int w, int h) {
  const int dw = d_->deviceLength(w);
  const int dh = d_->deviceLength(h);
  d_->interactor->UpdateSize(dw, dh);  // also resizes the render window
  d_->renderWindow->SetDPI(static_cast<int>(std::lround(72.0 * devicePixelRatioF())));
}

void VtkHostWidget::paintGL() {
  if (!d_->ready) return;
  auto& rw = d_->renderWindow;

  d_->inPaint = true;
  rw->GetState()->Reset();  // re-read GL state: Qt may have changed it behind VTK's cache
  rw->Render();
  d_->inPaint = false;
  ++d_->renders;

  // copy VTK's display framebuffer into Qt's, through VTK's state cache so both agree
  if (!d_->isCurrent()) makeCurrent();
  vtkOpenGLState* state = rw->GetState();
  const int dw = d_->deviceLength(width());
  const int dh = d_->deviceLength(height());
  state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  state->vtkglDrawBuffer(GL_COLOR_ATTACHMENT0);
  state->vtkglDisable(GL_SCISSOR_TEST);
  const int* size = rw->GetRenderFramebuffer()->GetLastSize();
  rw->BlitDisplayFramebuffer(0, 0, 0, size[0], size[1], 0, 0, dw, dh, GL_COLOR_BUFFER_BIT,
                             GL_LINEAR);

  // pitfall 2: VTK leaves alpha = 0 in background pixels and Qt would blend the view away
  state->vtkglColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  state->vtkglClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  state->vtkglViewport(0, 0, dw, dh);
  state->vtkglClear(GL_COLOR_BUFFER_BIT);
  state->vtkglColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
}

// ---- mouse: forwarded to the interactor in device pixels with Y flipped

void VtkHostWidget::mousePressEvent(QMouseEvent* event) {
  d_->setInteractorEventInfo(event->position(), event->modifiers(), 0);
  auto& iren = d_->interactor;
  switch (event->button()) {
    case Qt::LeftButton: iren->LeftButtonPressEvent(); break;
    case Qt::MiddleButton: iren->MiddleButtonPressEvent(); break;
    case Qt::RightButton: iren->RightButtonPressEvent(); break;
    default: QOpenGLWidget::mousePressEvent(event); return;
  }
  event->accept();
}

void VtkHostWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  // VTK sees a press with repeat count 1
  d_->setInteractorEventInfo(event->position(), event->modifiers(), 1);
  auto& iren = d_->interactor;
  switch (event->button()) {
    case Qt::LeftButton: iren->LeftButtonPressEvent(); break;
    case Qt::MiddleButton: iren->MiddleButtonPressEvent(); break;
    case Qt::RightButton: iren->RightButtonPressEvent(); break;
    default: QOpenGLWidget::mouseDoubleClickEvent(event); return;
  }
  event->accept();
}

void VtkHostWidget::mouseReleaseEvent(QMouseEvent* event) {
  d_->setInteractorEventInfo(event->position(), event->modifiers(), 0);
  auto& iren = d_->interactor;
  switch (event->button()) {
    case Qt::LeftButton: iren->LeftButtonReleaseEvent(); break;
    case Qt::MiddleButton: iren->MiddleButtonReleaseEvent(); break;
    case Qt::RightButton: iren->RightButtonReleaseEvent(); break;
    default: QOpenGLWidget::mouseReleaseEvent(event); return;
  }
  event->accept();
}

void VtkHostWidget::mouseMoveEvent(QMouseEvent* event) {
  d_->setInteractorEventInfo(event->position(), event->modifiers(), 0);
  d_->interactor->MouseMoveEvent();
  event->accept();
}

void VtkHostWidget::wheelEvent(QWheelEvent* event) {
  d_->setInteractorEventInfo(event->position(), event->modifiers(), 0);
  // one VTK wheel step per 120 units (one notch); touchpads deliver smaller deltas
  d_->wheelAccumulator += event->angleDelta().y();
  while (d_->wheelAccumulator >= 120) {
    d_->interactor->MouseWheelForwardEvent();
    d_->wheelAccumulator -= 120;
  }
  while (d_->wheelAccumulator <= -120) {
    d_->interactor->MouseWheelBackwardEvent();
    d_->wheelAccumulator += 120;
  }
  event->accept();
}

}  // namespace lw::widgets
