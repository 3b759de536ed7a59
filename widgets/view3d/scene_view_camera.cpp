// The 3D view's camera (fit, standard views, the grid that follows it), projections between the
// widget and the world, picking, and mouse, wheel and keyboard input.
#include "view3d/scene_view_parts.h"

namespace lw::widgets {

void SceneView::resetCamera() {
  viewChosen_ = false;
  fitCamera();
}

void SceneView::setStandardView(StandardView view) {
  view_ = view;
  viewChosen_ = true;
  fitCamera();
}

std::array<double, 3> SceneView::viewUp() const {
  std::array<double, 3> up{};
  renderer()->GetActiveCamera()->GetViewUp(up.data());
  return up;
}

std::array<double, 3> SceneView::viewDirection() const {
  std::array<double, 3> d{};
  renderer()->GetActiveCamera()->GetDirectionOfProjection(d.data());
  return d;
}

void SceneView::fitCamera() {
  fitOnResize_ = true;
  if (!viewChosen_) view_ = s_->planar ? StandardView::Front : StandardView::Iso;  // the model's default
  vtkRenderer* ren = renderer();
  vtkCamera* cam = ren->GetActiveCamera();
  double b[6];
  if (!s_->tightBounds(b)) {
    ren->ResetCamera();
    requestRender();
    return;
  }
  const double c[3] = {(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2};
  const double r = std::max(1e-9 * s_->drawingScale, 0.5 * std::hypot(b[1] - b[0], b[3] - b[2], b[5] - b[4]));
  // planar: parallel projection; spatial: perspective. Up against gravity; side = up × front
  const V3& u = s_->up;
  const V3& f = s_->front;
  const V3 side{u[1] * f[2] - u[2] * f[1], u[2] * f[0] - u[0] * f[2], u[0] * f[1] - u[1] * f[0]};
  V3 dir = f, viewUp = u;
  switch (view_) {
    case StandardView::Front: break;
    case StandardView::Top: dir = u, viewUp = {-f[0], -f[1], -f[2]}; break;
    case StandardView::Side: dir = side; break;
    case StandardView::Iso: dir = {f[0] + side[0] + u[0], f[1] + side[1] + u[1], f[2] + side[2] + u[2]}; break;
  }
  cam->SetParallelProjection(s_->planar);
  cam->SetViewAngle(30);
  cam->SetFocalPoint(c);
  const double dist = r / std::sin(vtkMath::RadiansFromDegrees(15.0));
  const double dn = norm(dir);
  cam->SetPosition(c[0] + dist * dir[0] / dn, c[1] + dist * dir[1] / dn, c[2] + dist * dir[2] / dn);
  cam->SetViewUp(viewUp.data());
  cam->OrthogonalizeViewUp();
  cam->SetParallelScale(r);

  // centre the drawn points in the view and fill 85 % of its width or height (iterated:
  // the perspective zoom narrows the view angle, which is not exactly linear)
  const double aspect = height() > 0 ? static_cast<double>(width()) / height() : 1.0;
  for (int iteration = 0; iteration < 3; ++iteration) {
    vtkMatrix4x4* P = cam->GetCompositeProjectionTransformMatrix(aspect, -1, 1);
    double lo[2] = {VTK_DOUBLE_MAX, VTK_DOUBLE_MAX};
    double hi[2] = {-VTK_DOUBLE_MAX, -VTK_DOUBLE_MAX};
    s_->forEachFitPoint([&](double x, double y, double z) {
      const double p[4] = {x, y, z, 1};
      double q[4];
      P->MultiplyPoint(p, q);
      if (q[3] <= 0) return;
      for (int k = 0; k < 2; ++k) {
        lo[k] = std::min(lo[k], q[k] / q[3]);
        hi[k] = std::max(hi[k], q[k] / q[3]);
      }
    });
    if (lo[0] > hi[0]) break;
    // half sizes of the view at the focal point, in world units
    const double halfH = cam->GetParallelProjection()
                             ? cam->GetParallelScale()
                             : cam->GetDistance() * std::tan(vtkMath::RadiansFromDegrees(cam->GetViewAngle() / 2));
    const double halfW = halfH * aspect;
    double up[3];
    double right[3];
    double forward[3];
    cam->GetViewUp(up);
    cam->GetDirectionOfProjection(forward);
    vtkMath::Cross(forward, up, right);
    const double sx = (lo[0] + hi[0]) / 2 * halfW;
    const double sy = (lo[1] + hi[1]) / 2 * halfH;
    double fp[3];
    double pos[3];
    cam->GetFocalPoint(fp);
    cam->GetPosition(pos);
    for (int k = 0; k < 3; ++k) {
      fp[k] += sx * right[k] + sy * up[k];
      pos[k] += sx * right[k] + sy * up[k];
    }
    cam->SetFocalPoint(fp);
    cam->SetPosition(pos);
    const double extent = std::max(hi[0] - lo[0], hi[1] - lo[1]) / 2;
    if (extent > 0) cam->Zoom(0.85 / extent);
  }
  ren->ResetCameraClippingRange();
  requestRender();
}

void SceneView::setGridVisible(bool visible) {
  s_->gridVisible = visible;
  if (s_->grid) s_->grid->SetVisibility(visible);
  if (s_->axes) s_->axes->SetVisibility(visible);
  requestRender();
}

std::optional<std::array<double, 3>> SceneView::pointOnViewPlane(const QPointF& pos, const std::array<double, 3>& through) const {
  // the inverse of projectToWidget: the view ray through pos, from the near to the far plane
  const double w = std::max(1, width());
  const double h = std::max(1, height());
  vtkCamera* camera = renderer()->GetActiveCamera();
  vtkNew<vtkMatrix4x4> inverse;
  vtkMatrix4x4::Invert(camera->GetCompositeProjectionTransformMatrix(w / h, -1, 1), inverse);
  const double x = 2 * pos.x() / w - 1, y = 1 - 2 * pos.y() / h;
  double ends[2][3];
  for (int k = 0; k < 2; ++k) {
    const double ndc[4] = {x, y, k == 0 ? -1.0 : 1.0, 1};
    double q[4];
    inverse->MultiplyPoint(ndc, q);
    if (q[3] == 0) return std::nullopt;
    for (int i = 0; i < 3; ++i) ends[k][i] = q[i] / q[3];
  }
  double n[3];
  if (s_->planar) n[0] = 0, n[1] = 0, n[2] = 1;  // the drawing plane, whatever the camera
  else camera->GetDirectionOfProjection(n);
  double d[3], num = 0, den = 0;
  for (int i = 0; i < 3; ++i) {
    d[i] = ends[1][i] - ends[0][i];
    num += (through[static_cast<std::size_t>(i)] - ends[0][i]) * n[i];
    den += d[i] * n[i];
  }
  if (std::abs(den) < 1e-12) return std::nullopt;  // the ray runs along the plane
  const double t = num / den;
  return std::array<double, 3>{ends[0][0] + t * d[0], ends[0][1] + t * d[1], ends[0][2] + t * d[2]};
}

QPointF SceneView::projectToWidget(const std::array<double, 3>& p_W) const {
  // through the camera's projection with the widget's aspect (valid before the first paint too)
  const double w = std::max(1, width());
  const double h = std::max(1, height());
  vtkMatrix4x4* P = renderer()->GetActiveCamera()->GetCompositeProjectionTransformMatrix(w / h, -1, 1);
  const double p[4] = {p_W[0], p_W[1], p_W[2], 1};
  double q[4];
  P->MultiplyPoint(p, q);
  if (q[3] == 0) return {};
  return {(q[0] / q[3] + 1) / 2 * w, (1 - q[1] / q[3]) / 2 * h};
}

void SceneView::fitMotion(const std::vector<scene::SceneFrame>& frames, const scene::SceneFrame& current) {
  Impl& s = *s_;
  s.envelope.clear();
  if (!s.loaded) return;
  for (const auto& f : frames) {
    showFrame(f);
    // a bounding box per body per frame keeps the envelope small
    for (const auto& body : s.bodies) {
      if (!s.visible(body)) continue;
      vtkPolyData* pd = body.mesh;
      if (pd == nullptr || pd->GetNumberOfPoints() == 0) continue;
      double b[6];
      pd->GetBounds(b);
      for (int corner = 0; corner < 8; ++corner) {
        double p[4] = {b[corner & 1 ? 1 : 0], b[corner & 2 ? 3 : 2], b[corner & 4 ? 5 : 4], 1};
        double q[4];
        body.matrix->MultiplyPoint(p, q);
        s.envelope.insert(s.envelope.end(), {q[0], q[1], q[2]});
      }
    }
  }
  showFrame(current);
  fitCamera();
}

void SceneView::mousePressEvent(QMouseEvent* event) {
  fitOnResize_ = false;
  pressPos_ = event->pos();
  if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier)) {
    // move a handle or a joint, not the camera
    if (const int h = handleAt(event->pos()); h >= 0) {
      dragging_ = true;
      setCursor(Qt::ClosedHandCursor);
      emit handleDragStarted(h);
      return;
    }
    const Pick p = pickAt(event->pos(), true);
    if (p.kind == Pick::Kind::Joint) {
      dragging_ = true;
      setCursor(Qt::ClosedHandCursor);
      emit jointDragStarted(p.index);
      return;
    }
  }
  VtkHostWidget::mousePressEvent(event);
}

void SceneView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    emit dragMoved(event->pos());
    return;
  }
  VtkHostWidget::mouseMoveEvent(event);
}

void SceneView::mouseReleaseEvent(QMouseEvent* event) {
  if (dragging_) {
    dragging_ = false;
    unsetCursor();
    emit dragFinished(false);
    return;
  }
  VtkHostWidget::mouseReleaseEvent(event);
  // a click, not the end of a camera drag: pick what is under the mouse
  if ((event->pos() - pressPos_).manhattanLength() > 3) return;  // a camera drag
  if (event->button() == Qt::LeftButton) {
    const Pick p = pickAt(event->pos());
    if (p.kind != Pick::Kind::None) emit picked(p);
  } else if (event->button() == Qt::RightButton) {
    const Pick p = pickAt(event->pos());
    if (p.kind != Pick::Kind::None) emit contextPicked(p, event->globalPosition().toPoint());
  }
}

SceneView::Pick SceneView::pickAt(const QPoint& pos, bool jointsOnly) {
  Pick out;
  if (!s_->loaded || !renderer()) return out;
  const double dpr = devicePixelRatioF();
  if (s_->instanced) return pickInstance(pos.x() * dpr, (height() - pos.y()) * dpr, jointsOnly);
  // software ray casting against the actors' cells: no OpenGL context needed
  auto picker = vtkSmartPointer<vtkCellPicker>::New();
  picker->SetTolerance(0.004);
  if (jointsOnly) {  // a joint sits on its bodies' ends: look through them
    picker->PickFromListOn();
    for (const auto& j : s_->joints) picker->AddPickList(j.actor);
  }
  if (!picker->Pick(pos.x() * dpr, (height() - pos.y()) * dpr, 0, renderer())) return out;
  vtkActor* hit = picker->GetActor();
  double x[3];
  picker->GetPickPosition(x);
  out.position = {x[0], x[1], x[2]};
  for (std::size_t j = 0; j < s_->joints.size(); ++j)
    if (s_->joints[j].actor == hit) {
      out.kind = Pick::Kind::Joint;
      out.index = static_cast<int>(j);
      return out;
    }
  for (std::size_t b = 0; b < s_->bodies.size(); ++b)
    if (s_->bodies[b].actor == hit) {
      out.kind = Pick::Kind::Body;
      out.index = static_cast<int>(b);
      return out;
    }
  return {};
}

// Instanced items have no cells of their own to cast against: the ray through the pixel is
// intersected with each item's mesh bounding box at its pose (the box a little larger, as the
// picker's tolerance), the nearest hit wins; a joint's box counts as nearer by a glyph's size (it
// sits on its bodies' ends, inside them)
SceneView::Pick SceneView::pickInstance(double x, double y, bool jointsOnly) {
  Pick out;
  vtkRenderer* ren = renderer();
  double a[4], b[4];
  ren->SetDisplayPoint(x, y, 0);
  ren->DisplayToWorld();
  ren->GetWorldPoint(a);
  ren->SetDisplayPoint(x, y, 1);
  ren->DisplayToWorld();
  ren->GetWorldPoint(b);
  if (a[3] == 0 || b[3] == 0) return out;
  const V3 from{a[0] / a[3], a[1] / a[3], a[2] / a[3]}, to{b[0] / b[3], b[1] / b[3], b[2] / b[3]};
  const V3 d = sub(to, from);
  const double margin = 0.004 * norm(d) * 0.1;
  double best = INFINITY;
  auto consider = [&](const Impl::Placed& p, Pick::Kind kind, int index, double bias) {
    if (p.mesh == nullptr || !s_->visible(p)) return;
    double box[6];
    p.mesh->GetBounds(box);
    // the ray in the item's frame: Rᵀ (x − t), the matrix a rotation (and a uniform scale k)
    const vtkMatrix4x4* m = p.matrix;
    double o[3], v[3];
    for (int i = 0; i < 3; ++i) {
      o[i] = v[i] = 0;
      for (int k = 0; k < 3; ++k) {
        o[i] += m->GetElement(k, i) * (from[static_cast<std::size_t>(k)] - m->GetElement(k, 3));
        v[i] += m->GetElement(k, i) * d[static_cast<std::size_t>(k)];
      }
    }
    double lo = 0, hi = 1;
    for (int i = 0; i < 3; ++i) {
      const double l = box[2 * i] - margin, h = box[2 * i + 1] + margin;
      if (std::abs(v[i]) < 1e-300) {
        if (o[i] < l || o[i] > h) return;
        continue;
      }
      double t0 = (l - o[i]) / v[i], t1 = (h - o[i]) / v[i];
      if (t0 > t1) std::swap(t0, t1);
      lo = std::max(lo, t0);
      hi = std::min(hi, t1);
      if (lo > hi) return;
    }
    const double key = lo - bias;
    if (key < best) {
      best = key;
      out.kind = kind;
      out.index = index;
      out.position = {from[0] + lo * d[0], from[1] + lo * d[1], from[2] + lo * d[2]};
    }
  };
  const double glyph = 3 * s_->glyphUnit / std::max(1e-300, norm(d));
  for (std::size_t j = 0; j < s_->joints.size(); ++j) consider(s_->joints[j], Pick::Kind::Joint, static_cast<int>(j), glyph);
  if (!jointsOnly)
    for (std::size_t i = 1; i < s_->bodies.size(); ++i) consider(s_->bodies[i], Pick::Kind::Body, static_cast<int>(i), 0.0);
  return out;
}

void SceneView::wheelEvent(QWheelEvent* event) {
  fitOnResize_ = false;
  VtkHostWidget::wheelEvent(event);
}

void SceneView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape && dragging_) {
    dragging_ = false;
    unsetCursor();
    emit dragFinished(true);
    event->accept();
    return;
  }
  if (event->key() == Qt::Key_R && event->modifiers() == Qt::NoModifier) {
    resetCamera();
    event->accept();
    return;
  }
  VtkHostWidget::keyPressEvent(event);
}

}  // namespace lw::widgets
