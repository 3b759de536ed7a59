// The 3D view's actors for a scene: bodies (bars, plates, shapes), joints, springs, contact planes,
// the ground, the grid and the trail, each placed by its body's pose.
#include "view3d/scene_view_parts.h"

#include <vtkPropCollection.h>

#include <cstdio>
#include <map>
#include <string>

namespace lw::widgets {
namespace {
// A new actor into the renderer: vtkRenderer::AddActor first searches every prop it has for it
// (quadratic over a scene of 10⁴ bodies: 2 s of opening 40 × 40 squares); the scene's actors are
// new, so they are appended directly
void appendActor(vtkRenderer* ren, vtkActor* actor) {
  ren->GetViewProps()->AddItem(actor);
  actor->AddConsumer(ren);
}
}  // namespace

void SceneView::setScene(const scene::SceneModel& model, const scene::SceneFrame& frame) {
  clear();
  Impl& s = *s_;
  vtkRenderer* ren = renderer();
  s.planar = model.dimension != 3;
  s.up = model.up;
  // the front: onto the drawing plane; in space the first of z, -y, x across the up axis
  if (s.planar) {
    s.front = {0, 0, 1};
  } else {
    for (const V3& f : {V3{0, 0, 1}, V3{0, -1, 0}, V3{1, 0, 0}})
      if (std::abs(f[0] * s.up[0] + f[1] * s.up[1] + f[2] * s.up[2]) < 0.5) {
        s.front = f;
        break;
      }
  }

  // sizes: from the model's length scale (or the extent of its shapes when missing)
  double extent = 0;
  std::vector<double> barRadii;
  for (const scene::SceneBody& b : model.bodies) {
    for (const scene::Primitive& p : b.primitives) {
      for (const scene::Vec3& q : p.points) extent = std::max(extent, norm(q));
      extent = std::max(extent, norm(p.centre) + norm(p.size) + p.radius);
      if (p.kind == scene::Primitive::Kind::Bar && p.radius > 0 && !b.isGround) barRadii.push_back(p.radius);
    }
  }
  const double L = model.drawingScale > 0 ? model.drawingScale : (extent > 0 ? extent : 1.0);
  s.drawingScale = L;
  double barRadius = 0.03 * L;
  if (!barRadii.empty()) {
    std::nth_element(barRadii.begin(), barRadii.begin() + static_cast<long>(barRadii.size() / 2), barRadii.end());
    barRadius = barRadii[barRadii.size() / 2];
  }

  s.glyphUnit = s.planar ? 0.02 * L : std::max(0.02 * L, 1.1 * barRadius);
  // parts that are small against the whole mechanism get fewer facets (invisible at the fitted
  // zoom): a long chain of short links (grid 1x15, 105 parts) then plays back near 60 fps in
  // software rendering instead of about 30; compact mechanisms keep 32
  const double whole = std::max(model.extent, L);  // a hand-built model may leave the extent unset
  // (thousands of instanced parts, each a few pixels at the fitted zoom: 6 facets, which halves a
  // software renderer's frame)
  const bool many = model.bodies.size() + model.joints.size() > Impl::kInstancedAbove;
  const int segments = std::clamp(static_cast<int>(std::lround(32 * std::sqrt(s.glyphUnit / whole / 0.02))), many ? 6 : 12, 32);

  // planar stacking: ground at layer 0 (farthest from the viewer), moving bodies above it
  const double t = std::clamp(0.7 * barRadius, 0.008 * L, 0.04 * L);
  const double pitch = 1.3 * t;
  s.layerThickness = t;
  int movingCount = 0;
  for (const scene::SceneBody& b : model.bodies) movingCount += b.isGround ? 0 : 1;
  s.zBottom = -t / 2;
  s.zTop = movingCount * pitch + t / 2;

  // layers: larger bodies farther back, so that plates do not hide the bars
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < model.bodies.size(); ++i)
    if (!model.bodies[i].isGround) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return footprint(model.bodies[x], barRadius) > footprint(model.bodies[y], barRadius);
  });
  std::vector<int> layerOf(model.bodies.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) layerOf[order[k]] = static_cast<int>(k) + 1;

  s.instanced = many;
  setHeavyScene(many);
  std::map<vtkPolyData*, int> groupOfMesh;  // instanced: the group drawing each mesh
  auto instanceOf = [&](Impl::Placed& placed, vtkPolyData* mesh, const std::array<double, 3>& color) {
    auto [it, added] = groupOfMesh.emplace(mesh, 0);
    if (added) {
      it->second = s.addInstances(mesh);
      appendActor(ren, s.instances[static_cast<std::size_t>(it->second)].actor);
    }
    placed.group = it->second;
    placed.instance = s.addInstance(placed.group, color);
  };

  // ---- bodies. Bodies of one shape share one mesh: VTK's buffer cache then holds one entry per
  // shape, not per body (releasing 10⁴ meshes searched that cache for each: 15 s for 40 × 40
  // squares), and memory goes with the shapes
  std::map<std::string, vtkSmartPointer<vtkPolyData>> meshOfShape;
  for (std::size_t bi = 0; bi < model.bodies.size(); ++bi) {
    // the body's shape about its first point (or centre), so that bodies which differ only by
    // where their frame is (the grid's bars all have the world origin as theirs) share a mesh;
    // the matrix puts the offset back (Placed::origin). In plane, the layers' z stays as it is.
    scene::SceneBody b = model.bodies[bi];
    V3 origin{0, 0, 0};
    if (!b.isGround && !b.primitives.empty()) {
      const scene::Primitive& first = b.primitives.front();
      const scene::Vec3& o = first.points.empty() ? first.centre : first.points.front();
      origin = {o[0], o[1], s.planar ? 0.0 : o[2]};
      for (scene::Primitive& p : b.primitives) {
        for (scene::Vec3& q : p.points)
          for (std::size_t k = 0; k < 3; ++k) q[k] -= origin[k];
        for (std::size_t k = 0; k < 3; ++k) p.centre[k] -= origin[k];
      }
    }
    std::string shape = b.isGround ? "ground" : "";
    for (const scene::Primitive& p : b.primitives) {
      char key[160];
      std::snprintf(key, sizeof key, "%d %.12g %.12g %.12g %.12g %.12g %.12g %.12g|", static_cast<int>(p.kind), p.radius, p.centre[0],
                    p.centre[1], p.centre[2], p.size[0], p.size[1], p.size[2]);
      shape += key;
      for (const scene::Vec3& q : p.points) {
        std::snprintf(key, sizeof key, "%.12g %.12g %.12g;", q[0], q[1], q[2]);
        shape += key;
      }
    }
    vtkSmartPointer<vtkPolyData>& mesh = meshOfShape[shape];
    if (!mesh) {
      MeshBuilder mb;
      mb.setSegments(segments);
      if (b.isGround && s.planar) mb.setHatchPeriod(0.05 * L);
      for (const scene::Primitive& p : b.primitives) {
        switch (p.kind) {
          case scene::Primitive::Kind::Bar: {
            if (p.points.size() < 2) break;
            const double r = p.radius > 0 ? p.radius : barRadius;
            if (s.planar) {
              const double zc = (p.points[0][2] + p.points[1][2]) / 2;
              mb.roundedSlab(Frame{}, {{p.points[0][0], p.points[0][1]}, {p.points[1][0], p.points[1][1]}}, r,
                             zc - t / 2, zc + t / 2, 0.3 * t);
            } else {
              mb.capsule(p.points[0], p.points[1], r);
            }
            break;
          }
          case scene::Primitive::Kind::Plate: {
            if (p.points.size() < 3) break;
            const double margin = p.radius > 0 ? p.radius : barRadius;
            // plane of the polygon: centroid and Newell normal
            V3 c{0, 0, 0};
            V3 n{0, 0, 0};
            for (std::size_t i = 0; i < p.points.size(); ++i) {
              const scene::Vec3& a = p.points[i];
              const scene::Vec3& q = p.points[(i + 1) % p.points.size()];
              for (std::size_t k = 0; k < 3; ++k) c[k] += a[k] / static_cast<double>(p.points.size());
              n[0] += (a[1] - q[1]) * (a[2] + q[2]);
              n[1] += (a[2] - q[2]) * (a[0] + q[0]);
              n[2] += (a[0] - q[0]) * (a[1] + q[1]);
            }
            Frame f;
            double half = 0.6 * barRadius;
            if (s.planar) {
              f.o = {0, 0, c[2]};
              half = t / 2;
            } else {
              f = detail::frameAlong(c, norm(n) > 0 ? n : V3{0, 0, 1});
            }
            std::vector<V2> core;
            for (const scene::Vec3& q : p.points) {
              const V3 d = sub(q, f.o);
              core.push_back({d[0] * f.u[0] + d[1] * f.u[1] + d[2] * f.u[2], d[0] * f.v[0] + d[1] * f.v[1] + d[2] * f.v[2]});
            }
            mb.roundedSlab(f, core, margin, -half, half, 0.6 * half);
            break;
          }
          case scene::Primitive::Kind::Sphere:
            mb.sphere(p.centre, p.radius > 0 ? p.radius : barRadius);
            break;
          case scene::Primitive::Kind::Box: {
            Frame f;
            f.o = p.centre;
            V3 size = p.size;
            if (s.planar) {
              // boxes stay inside their body's layer, or they would cut through the bodies above
              f.o[2] = 0;
              size[2] = t;
            }
            mb.box(f, size);
            break;
          }
        }
      }
      mesh = mb.build();
    }
    Impl::Placed placed;
    placed.origin = origin;
    placed.mesh = mesh;
    placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
    if (s.instanced && !b.isGround) {
      placed.color = {b.color[0], b.color[1], b.color[2]};
      placed.zOffset = s.planar ? layerOf[bi] * pitch : 0;
      instanceOf(placed, mesh, placed.color);
      s.bodies.push_back(std::move(placed));
      continue;
    }
    placed.actor = makeActor(mesh, false);
    placed.actor->SetUserMatrix(placed.matrix);
    vtkProperty* prop = placed.actor->GetProperty();
    if (b.isGround) {
      // ground: darker, not shiny; hatched in planar views
      prop->SetColor(0.78 * b.color[0], 0.78 * b.color[1], 0.78 * b.color[2]);
      prop->SetSpecular(0.05);
      if (s.planar) placed.actor->SetTexture(s.hatch);
      placed.zOffset = 0;
    } else {
      prop->SetColor(b.color[0], b.color[1], b.color[2]);
      placed.color = {b.color[0], b.color[1], b.color[2]};
      placed.zOffset = s.planar ? layerOf[bi] * pitch : 0;
    }
    appendActor(ren, placed.actor);
    s.bodies.push_back(std::move(placed));
  }

  // ---- joint glyphs (local frame: n along the joint axis), colours per vertex
  const double u = s.glyphUnit;
  const double pinRadius = std::clamp(0.55 * barRadius, 0.5 * u, 1.5 * u);
  const double stackMid = (s.zBottom + s.zTop) / 2;
  // one mesh per glyph kind, shared by its joints (as the bodies' per shape)
  std::map<scene::JointGlyph, vtkSmartPointer<vtkPolyData>> meshOfGlyph;
  for (const scene::SceneJoint& j : model.joints) {
    vtkSmartPointer<vtkPolyData>& mesh = meshOfGlyph[j.glyph];
    if (!mesh) {
      MeshBuilder mb;
      mb.setSegments(segments);
      Frame f;  // identity: geometry in the glyph's local frame
      switch (j.glyph) {
        case scene::JointGlyph::Pin:
        case scene::JointGlyph::Revolute:
          if (s.planar) {
            // a pin through the whole stack with a dark centre dot on top
            const double top = s.zTop + 0.3 * t;
            mb.setColor(kSteel);
            mb.cylinder({0, 0, s.zBottom - 0.3 * t}, {0, 0, top}, pinRadius, 0.25 * pinRadius);
            mb.setColor(kDark);
            mb.cylinder({0, 0, top - 0.1 * t}, {0, 0, top + 0.12 * t}, 0.42 * pinRadius, 0.0);
          } else {
            mb.setColor(kDark);
            mb.cylinder({0, 0, -2.6 * u}, {0, 0, 2.6 * u}, 0.45 * u, 0.1 * u);
            mb.setColor(kSteel);
            mb.cylinder({0, 0, -1.8 * u}, {0, 0, 1.8 * u}, 1.25 * u, 0.3 * u);
          }
          break;
        case scene::JointGlyph::Cylindrical:
          mb.setColor(kDark);
          mb.cylinder({0, 0, -4.5 * u}, {0, 0, 4.5 * u}, 0.45 * u, 0.1 * u);
          mb.setColor(kSteel);
          mb.cylinder({0, 0, -1.8 * u}, {0, 0, 1.8 * u}, 1.15 * u, 0.3 * u);
          break;
        case scene::JointGlyph::Slider:
        case scene::JointGlyph::Prismatic:
          if (s.planar) {
            // block spanning the stack (v is world Z), elongated along the axis
            mb.setColor(kDark);
            mb.cylinder({0, stackMid, -4.5 * u}, {0, stackMid, 4.5 * u}, 0.35 * u, 0.0);
            f.o = {0, stackMid + 0.15 * t, 0};
            mb.setColor(kSteel);
            mb.box(f, {2.2 * u, s.zTop - s.zBottom + 0.3 * t, 4.0 * u});
          } else {
            mb.setColor(kDark);
            mb.cylinder({0, 0, -4.5 * u}, {0, 0, 4.5 * u}, 0.35 * u, 0.0);
            mb.setColor(kSteel);
            mb.box(f, {2.0 * u, 2.0 * u, 4.0 * u});
          }
          break;
        case scene::JointGlyph::Universal: {
          const double z0 = s.planar ? s.zTop + 1.0 * u : 0.0;
          mb.setColor(kSteel);
          mb.sphere({0, 0, z0}, 0.8 * u);
          mb.cylinder({-2.0 * u, 0, z0}, {2.0 * u, 0, z0}, 0.42 * u, 0.1 * u);
          mb.setColor(kAccent);
          mb.cylinder({0, -2.0 * u, z0}, {0, 2.0 * u, z0}, 0.42 * u, 0.1 * u);
          break;
        }
        case scene::JointGlyph::Spherical:
          mb.setColor(kSteel);
          mb.sphere({0, 0, s.planar ? s.zTop + 0.6 * u : 0.0}, 1.4 * u);
          break;
        case scene::JointGlyph::Fixed:
          f.o = {0, 0, s.planar ? s.zTop + 0.8 * u : 0.0};
          mb.setColor(kDark);
          mb.box(f, {1.8 * u, 1.8 * u, 1.8 * u});
          break;
      }
      mesh = mb.build();
    }
    Impl::Placed placed;
    placed.mesh = mesh;
    if (s.instanced) {  // one colour (the glyph's steel), not its two tones
      placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
      instanceOf(placed, mesh, {kSteel[0] / 255.0, kSteel[1] / 255.0, kSteel[2] / 255.0});
      s.joints.push_back(std::move(placed));
      continue;
    }
    placed.actor = makeActor(mesh, true);
    placed.actor->GetProperty()->SetSpecular(0.55);
    placed.actor->GetProperty()->SetSpecularPower(60);
    placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
    placed.actor->SetUserMatrix(placed.matrix);
    appendActor(ren, placed.actor);
    s.joints.push_back(std::move(placed));
  }

  // ---- springs: a unit coil stretched along its axis every frame; drawn as shaded tubes
  for (std::size_t i = 0; i < model.springs.size(); ++i) {
    vtkSmartPointer<vtkPolyData> coil = detail::unitHelix(1.1 * u, 10);
    Impl::Placed placed;
    placed.actor = makeActor(coil, false);
    vtkProperty* p = placed.actor->GetProperty();
    p->SetColor(kSpringColor[0], kSpringColor[1], kSpringColor[2]);
    p->SetLineWidth(3.0f);
    p->RenderLinesAsTubesOn();
    placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
    placed.actor->SetUserMatrix(placed.matrix);
    appendActor(ren, placed.actor);
    s.springs.push_back(std::move(placed));
  }

  s.loaded = true;
  showFrame(frame);

  // ---- reference grid and origin axes, sized from the posed scene; ignored by camera fits
  double bounds[6];
  if (!s.tightBounds(bounds)) {
    for (int k = 0; k < 3; ++k) {
      bounds[2 * k] = -L;
      bounds[2 * k + 1] = L;
    }
  }
  const double spacing = niceStep(L / 4);
  Frame gf;
  const double cx = std::round((bounds[0] + bounds[1]) / 2 / spacing) * spacing;
  const double cy = std::round((bounds[2] + bounds[3]) / 2 / spacing) * spacing;
  const double cz = std::round((bounds[4] + bounds[5]) / 2 / spacing) * spacing;
  double half = 0;
  if (s.planar) {
    gf.o = {cx, cy, s.zBottom - pitch};
    half = std::max(bounds[1] - bounds[0], bounds[3] - bounds[2]) / 2 + 2 * L;
  } else {
    // floor under the mechanism, across the up axis
    int a = 0;
    for (int k = 1; k < 3; ++k)
      if (std::abs(s.up[static_cast<std::size_t>(k)]) > std::abs(s.up[static_cast<std::size_t>(a)])) a = k;
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const double sign = s.up[static_cast<std::size_t>(a)] > 0 ? 1 : -1;
    gf.o = {cx, cy, cz};
    gf.o[static_cast<std::size_t>(a)] = (sign > 0 ? bounds[2 * a] : bounds[2 * a + 1]) - sign * 0.1 * L;
    gf.u = {0, 0, 0};
    gf.v = {0, 0, 0};
    gf.n = {0, 0, 0};
    gf.u[static_cast<std::size_t>(b)] = 1;
    gf.v[static_cast<std::size_t>(c)] = 1;
    gf.n[static_cast<std::size_t>(a)] = 1;
    half = std::max(bounds[2 * b + 1] - bounds[2 * b], bounds[2 * c + 1] - bounds[2 * c]) / 2 + 1.5 * L;
  }
  s.grid = makeActor(detail::gridLines(gf, half, spacing, {194, 199, 207}, {168, 174, 184}, 5), true);
  s.grid->GetProperty()->LightingOff();
  s.grid->UseBoundsOff();
  s.grid->PickableOff();
  s.axes = makeActor(detail::axesLines({0, 0, s.planar ? gf.o[2] + 0.01 * t : 0.0}, 0.25 * L), true);
  s.axes->GetProperty()->LightingOff();
  s.axes->GetProperty()->SetLineWidth(2.0f);
  s.axes->UseBoundsOff();
  s.axes->PickableOff();
  s.grid->SetVisibility(s.gridVisible);
  s.axes->SetVisibility(s.gridVisible);
  ren->AddActor(s.grid);
  ren->AddActor(s.axes);

  applySelection();  // the selection outlives the rebuild (an edit of the selected item)
  if (fitOnResize_) fitCamera();  // a camera the user placed stays (edits rebuild the scene)
  else requestRender();
}

}  // namespace lw::widgets
