// The 3D view (VTK): the frame shown, the selection, the drag handles, highlighting.
#include "view3d/scene_view_parts.h"

#include <vtkPropCollection.h>

#include <unordered_set>

namespace lw::widgets {

SceneView::SceneView(QWidget* parent) : VtkHostWidget(parent), s_(std::make_unique<Impl>()) {
  vtkRenderer* ren = renderer();
  ren->GradientBackgroundOn();
  ren->SetBackground(kBackgroundBottom[0], kBackgroundBottom[1], kBackgroundBottom[2]);
  ren->SetBackground2(kBackgroundTop[0], kBackgroundTop[1], kBackgroundTop[2]);
  vtkNew<vtkLightKit> lights;
  lights->SetKeyLightIntensity(0.85);
  lights->AddLightsToRenderer(ren);
  s_->hatch = makeHatchTexture();
}

SceneView::~SceneView() = default;

bool SceneView::hasScene() const { return s_->loaded; }

void SceneView::clear() {
  const std::vector<vtkActor*> actors = s_->allActors();
  const bool haveContext = context() != nullptr && context()->isValid();
  if (haveContext) makeCurrent();
  if (haveContext)
    for (vtkActor* a : actors) a->ReleaseGraphicsResources(renderWindow());
  // the renderer's other props kept, the scene's dropped in one pass (RemoveActor searched every
  // prop for each: quadratic over a scene of 10⁴ bodies)
  const std::unordered_set<vtkProp*> ours(actors.begin(), actors.end());
  std::vector<vtkSmartPointer<vtkProp>> kept;
  vtkPropCollection* props = renderer()->GetViewProps();
  vtkCollectionSimpleIterator it;
  props->InitTraversal(it);
  while (vtkProp* p = props->GetNextProp(it))
    if (!ours.count(p)) kept.emplace_back(p);
  renderer()->RemoveAllViewProps();
  for (const auto& p : kept) renderer()->AddViewProp(p);
  if (haveContext) doneCurrent();
  s_->bodies.clear();
  s_->joints.clear();
  s_->instances.clear();
  s_->instanced = false;
  s_->springs.clear();
  s_->paths.clear();
  s_->arrows.clear();
  s_->handles.clear();
  s_->stems.clear();
  s_->grid = nullptr;
  s_->axes = nullptr;
  s_->envelope.clear();
  s_->loaded = false;
  requestRender();
}

void SceneView::setHandles(const std::vector<Handle>& handles) {
  Impl& s = *s_;
  for (auto& h : s.handles) renderer()->RemoveActor(h);
  for (auto& h : s.stems) renderer()->RemoveActor(h);
  s.handles.clear();
  s.stems.clear();
  if (!s.loaded) return;
  const double radius = 1.6 * s.glyphUnit;  // over the joint glyphs at the same points
  auto lifted = [&](const std::array<double, 3>& p) {  // planar: above the stack of layers
    return V3{p[0], p[1], s.planar ? s.zTop + 2 * radius : p[2]};
  };
  for (const Handle& h : handles) {
    MeshBuilder mb;
    mb.sphere(lifted(h.at), h.axis ? 0.8 * radius : radius);
    auto actor = makeActor(mb.build(), false);
    // points blue, axes green: apart from the selection orange
    if (h.axis) actor->GetProperty()->SetColor(0.15, 0.7, 0.3);
    else actor->GetProperty()->SetColor(0.1, 0.55, 1.0);
    actor->GetProperty()->SetAmbient(0.4);
    actor->UseBoundsOff();  // not part of the camera fit
    renderer()->AddActor(actor);
    s.handles.push_back(actor);
    if (h.axis) {
      MeshBuilder stem;
      stem.cylinder(lifted(h.base), lifted(h.at), 0.25 * radius, 0.0);
      auto line = makeActor(stem.build(), false);
      line->GetProperty()->SetColor(0.15, 0.7, 0.3);
      line->UseBoundsOff();
      line->PickableOff();
      renderer()->AddActor(line);
      s.stems.push_back(line);
    }
  }
  requestRender();
}

int SceneView::handleCount() const { return static_cast<int>(s_->handles.size()); }

int SceneView::partActorCount() const {
  int n = static_cast<int>(s_->instances.size());
  for (const auto* group : {&s_->bodies, &s_->joints})
    for (const auto& p : *group) n += p.actor ? 1 : 0;
  return n;
}

int SceneView::arrowsShown() const {
  int n = 0;
  for (const auto& a : s_->arrows) n += a.actor->GetVisibility() ? 1 : 0;
  return n;
}

// the handle under widget position pos, or -1
int SceneView::handleAt(const QPoint& pos) {
  if (s_->handles.empty() || !renderer()) return -1;
  auto picker = vtkSmartPointer<vtkCellPicker>::New();
  picker->SetTolerance(0.004);
  picker->PickFromListOn();
  for (const auto& h : s_->handles) picker->AddPickList(h);
  const double dpr = devicePixelRatioF();
  if (!picker->Pick(pos.x() * dpr, (height() - pos.y()) * dpr, 0, renderer())) return -1;
  for (std::size_t i = 0; i < s_->handles.size(); ++i)
    if (s_->handles[i] == picker->GetActor()) return static_cast<int>(i);
  return -1;
}

void SceneView::setSelection(Pick::Kind kind, int index) {
  selectedKind_ = kind;
  selectedIndex_ = index;
  applySelection();
  requestRender();
}

// the selected body turns bright orange (a glow of ambient light in the same colour); a selected
// joint's glyph is drawn larger (its colours are per vertex)
void SceneView::applySelection() {
  for (std::size_t i = 1; i < s_->bodies.size(); ++i) {
    const Impl::Placed& body = s_->bodies[i];
    const bool on = selectedKind_ == Pick::Kind::Body && static_cast<int>(i) == selectedIndex_;
    const auto& c = body.color;
    if (!body.actor) {  // an instance: its colour (and its opacity kept)
      const double alpha = s_->instances[static_cast<std::size_t>(body.group)].colors->GetComponent(body.instance, 3) / 255.0;
      if (on) s_->setInstanceColor(body, 1.0, 0.5, 0.0, alpha);
      else s_->setInstanceColor(body, c[0], c[1], c[2], alpha);
      continue;
    }
    vtkProperty* p = body.actor->GetProperty();
    if (on) p->SetColor(1.0, 0.5, 0.0);
    else p->SetColor(c[0], c[1], c[2]);
    p->SetAmbient(on ? 0.35 : 0.0);
    p->SetAmbientColor(1.0, 0.6, 0.1);
  }
  for (std::size_t j = 0; j < s_->joints.size(); ++j) {
    const bool on = selectedKind_ == Pick::Kind::Joint && static_cast<int>(j) == selectedIndex_;
    const Impl::Placed& joint = s_->joints[j];
    if (joint.actor) {
      joint.actor->SetScale(on ? 1.6 : 1.0);
    } else {
      const double k = on ? 1.6 : 1.0;
      s_->instances[static_cast<std::size_t>(joint.group)].scale->SetTuple3(joint.instance, k, k, k);
      if (on) s_->setInstanceColor(joint, 1.0, 0.5, 0.0, 1.0);
      else s_->setInstanceColor(joint, kSteel[0] / 255.0, kSteel[1] / 255.0, kSteel[2] / 255.0, 1.0);
    }
  }
  s_->instancesModified();
}

void SceneView::showFrame(const scene::SceneFrame& frame) {
  Impl& s = *s_;
  if (!s.loaded) return;

  // bodies: p_W = position + R p_B (+ the planar stacking offset along Z)
  const std::size_t nb = std::min(s.bodies.size(), frame.bodyPoses.size());
  for (std::size_t i = 0; i < nb; ++i) {
    const scene::Pose& X = frame.bodyPoses[i];
    const auto& R = X.rotation;
    const V3& o = s.bodies[i].origin;  // the shared mesh's origin in the body frame
    setMatrix(s.bodies[i].matrix,
              {X.position[0] + R[0] * o[0] + R[1] * o[1] + R[2] * o[2], X.position[1] + R[3] * o[0] + R[4] * o[1] + R[5] * o[2],
               X.position[2] + R[6] * o[0] + R[7] * o[1] + R[8] * o[2] + s.bodies[i].zOffset},
              {R[0], R[3], R[6]}, {R[1], R[4], R[7]}, {R[2], R[5], R[8]});
    if (!s.bodies[i].actor) s.placeInstance(s.bodies[i]);
  }

  // joints: glyph frame at the joint with n along its axis
  const std::size_t nj = std::min(s.joints.size(), frame.joints.size());
  for (std::size_t i = 0; i < nj; ++i) {
    const scene::JointState& js = frame.joints[i];
    const Frame f = jointFrame(js.position, js.axis, s.planar);
    setMatrix(s.joints[i].matrix, f.o, f.u, f.v, f.n);
    if (!s.joints[i].actor) s.placeInstance(s.joints[i]);
  }
  if (s.instanced) s.instancesModified();

  // springs: unit coil along n, scaled to the current length
  const std::size_t ns = std::min(s.springs.size(), frame.springs.size());
  for (std::size_t i = 0; i < ns; ++i) {
    const scene::SpringState& ss = frame.springs[i];
    V3 from = ss.from;
    V3 to = ss.to;
    if (s.planar) {
      from[2] += s.zTop + 0.5 * s.layerThickness;
      to[2] += s.zTop + 0.5 * s.layerThickness;
    }
    const V3 d = sub(to, from);
    const double len = std::max(norm(d), 1e-9 * s.drawingScale);
    const Frame f = detail::frameAlong(from, norm(d) > 0 ? d : V3{0, 0, 1});
    setMatrix(s.springs[i].matrix, f.o, f.u, f.v, {f.n[0] * len, f.n[1] * len, f.n[2] * len});
  }

  // paths: polylines, lifted above the stack in planar models; points re-sent only on change
  const double lift = s.planar ? s.zTop + 0.6 * s.layerThickness : 0.0;
  for (std::size_t i = 0; i < frame.paths.size(); ++i) {
    const scene::Path& path = frame.paths[i];
    if (i >= s.paths.size()) {
      Impl::PathVis pv;
      pv.polyData = vtkSmartPointer<vtkPolyData>::New();
      vtkNew<vtkPoints> pts;
      vtkNew<vtkCellArray> lines;
      pv.polyData->SetPoints(pts);
      pv.polyData->SetLines(lines);
      pv.actor = makeActor(pv.polyData, false);
      pv.actor->GetMapper()->StaticOff();
      vtkProperty* p = pv.actor->GetProperty();
      p->SetLineWidth(3.0f);
      p->RenderLinesAsTubesOn();
      p->SetSpecular(0.1);
      renderer()->AddActor(pv.actor);
      s.paths.push_back(std::move(pv));
    }
    Impl::PathVis& pv = s.paths[i];
    pv.actor->SetVisibility(path.points.size() >= 2);
    if (pv.color != path.color) {
      pv.actor->GetProperty()->SetColor(path.color[0], path.color[1], path.color[2]);
      pv.color = path.color;
    }
    if (pv.last == path.points) continue;
    pv.last = path.points;
    vtkPoints* pts = pv.polyData->GetPoints();
    const auto n = static_cast<vtkIdType>(path.points.size());
    pts->SetNumberOfPoints(n);
    for (vtkIdType k = 0; k < n; ++k) {
      const scene::Vec3& q = path.points[static_cast<std::size_t>(k)];
      pts->SetPoint(k, q[0], q[1], q[2] + lift);
    }
    pts->Modified();
    vtkNew<vtkCellArray> lines;
    if (n >= 2) {
      lines->InsertNextCell(static_cast<int>(n));
      for (vtkIdType k = 0; k < n; ++k) lines->InsertCellPoint(k);
    }
    pv.polyData->SetLines(lines);
  }
  for (std::size_t i = frame.paths.size(); i < s.paths.size(); ++i) s.paths[i].actor->SetVisibility(false);

  // arrows: one shared unit arrow per slot, scaled uniformly by the vector's length
  for (std::size_t i = 0; i < frame.arrows.size(); ++i) {
    if (i >= s.arrows.size()) {
      vtkNew<vtkArrowSource> source;
      source->SetTipResolution(16);
      source->SetShaftResolution(12);
      source->SetTipLength(0.25);
      source->Update();
      Impl::Placed placed;
      placed.actor = makeActor(source->GetOutput(), false);
      placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
      placed.actor->SetUserMatrix(placed.matrix);
      renderer()->AddActor(placed.actor);
      s.arrows.push_back(std::move(placed));
    }
    const scene::Arrow& a = frame.arrows[i];
    const double len = norm(a.vector);
    Impl::Placed& pa = s.arrows[i];
    pa.actor->SetVisibility(len > 1e-9 * s.drawingScale);
    if (len <= 1e-9 * s.drawingScale) continue;
    pa.actor->GetProperty()->SetColor(a.color[0], a.color[1], a.color[2]);
    V3 from = a.from;
    if (s.planar) from[2] += s.zTop + 0.8 * s.layerThickness;
    const Frame f = detail::frameAlong(from, a.vector);
    setMatrix(pa.matrix, f.o, {f.n[0] * len, f.n[1] * len, f.n[2] * len}, {f.u[0] * len, f.u[1] * len, f.u[2] * len},
              {f.v[0] * len, f.v[1] * len, f.v[2] * len});
  }
  for (std::size_t i = frame.arrows.size(); i < s.arrows.size(); ++i) s.arrows[i].actor->SetVisibility(false);

  renderer()->ResetCameraClippingRange();
  requestRender();
}

void SceneView::setHighlightedBodies(const std::vector<int>& bodies) {
  for (std::size_t i = 1; i < s_->bodies.size(); ++i) {
    const bool shown = bodies.empty() || std::find(bodies.begin(), bodies.end(), static_cast<int>(i)) != bodies.end();
    const Impl::Placed& body = s_->bodies[i];
    if (body.actor) {
      body.actor->GetProperty()->SetOpacity(shown ? 1.0 : 0.15);
    } else {
      auto* colors = s_->instances[static_cast<std::size_t>(body.group)].colors;
      colors->SetComponent(body.instance, 3, shown ? 255 : 38);
    }
  }
  s_->instancesModified();
  requestRender();
}

void SceneView::resizeEvent(QResizeEvent* event) {
  VtkHostWidget::resizeEvent(event);
  if (fitOnResize_ && hasScene()) fitCamera();
}

}  // namespace lw::widgets
