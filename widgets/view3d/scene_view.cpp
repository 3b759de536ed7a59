#include "view3d/scene_view.h"

#include "scene/scene.h"
#include "view3d/scene_geometry.h"

#include <vtkActor.h>
#include <vtkCellPicker.h>
#include <vtkArrowSource.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkImageData.h>
#include <vtkLightKit.h>
#include <vtkMath.h>
#include <vtkMatrix4x4.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkTexture.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QWheelEvent>
#include <QOpenGLContext>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace lw::widgets {

namespace {

using detail::Frame;
using detail::MeshBuilder;
using detail::Rgb8;
using detail::V2;
using detail::V3;

constexpr double kPi = std::numbers::pi;

// ---- look

constexpr double kBackgroundBottom[3] = {0.80, 0.83, 0.87};
constexpr double kBackgroundTop[3] = {0.97, 0.98, 0.99};
constexpr Rgb8 kSteel{214, 218, 224};
constexpr Rgb8 kDark{52, 56, 64};
constexpr Rgb8 kAccent{70, 110, 170};
constexpr double kSpringColor[3] = {0.86, 0.62, 0.16};

V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double norm(const V3& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

// a "nice" grid spacing (1, 2 or 5 times a power of ten) close to `target`
double niceStep(double target) {
  const double p = std::pow(10.0, std::floor(std::log10(target)));
  const double m = target / p;
  return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

// translation t and the columns c0, c1, c2 of the linear part into a VTK matrix
void setMatrix(vtkMatrix4x4* m, const V3& t, const V3& c0, const V3& c1, const V3& c2) {
  const double e[16] = {c0[0], c1[0], c2[0], t[0],  //
                        c0[1], c1[1], c2[1], t[1],  //
                        c0[2], c1[2], c2[2], t[2],  //
                        0,     0,     0,     1};
  m->DeepCopy(e);  // one Modified() for the actor
}

// glyph frame of a joint: n along the axis; in planar models v is kept on world Z when the axis
// lies in the plane, so glyph heights along v become stack heights
Frame jointFrame(const V3& position, const V3& axis, bool planar) {
  if (planar) {
    const double len = norm(axis);
    const V3 a = len > 0 ? V3{axis[0] / len, axis[1] / len, axis[2] / len} : V3{0, 0, 1};
    if (std::abs(a[2]) < 0.9) {
      Frame f;
      f.o = position;
      f.n = a;
      const double l2 = std::hypot(a[0], a[1]);
      f.v = {0, 0, 1};
      f.u = {-a[1] / l2, a[0] / l2, 0};  // v x n, in the plane (right-handed u, v, n)
      return f;
    }
  }
  return detail::frameAlong(position, axis);
}

// area a body covers in the XY plane (approximate): orders the planar stacking layers
double footprint(const scene::SceneBody& b, double barRadius) {
  double area = 0;
  for (const scene::Primitive& p : b.primitives) {
    const double r = p.radius > 0 ? p.radius : barRadius;
    switch (p.kind) {
      case scene::Primitive::Kind::Bar:
        if (p.points.size() >= 2)
          area += 2 * r * std::hypot(p.points[1][0] - p.points[0][0], p.points[1][1] - p.points[0][1]) + kPi * r * r;
        break;
      case scene::Primitive::Kind::Plate: {
        double a2 = 0;
        double perimeter = 0;
        for (std::size_t i = 0; i < p.points.size(); ++i) {
          const scene::Vec3& q0 = p.points[i];
          const scene::Vec3& q1 = p.points[(i + 1) % p.points.size()];
          a2 += q0[0] * q1[1] - q1[0] * q0[1];
          perimeter += std::hypot(q1[0] - q0[0], q1[1] - q0[1]);
        }
        area += std::abs(a2) / 2 + perimeter * r + kPi * r * r;
        break;
      }
      case scene::Primitive::Kind::Sphere: area += kPi * r * r; break;
      case scene::Primitive::Kind::Box: area += p.size[0] * p.size[1]; break;
    }
  }
  return area;
}

void growBounds(double b[6], double x, double y, double z) {
  b[0] = std::min(b[0], x);
  b[1] = std::max(b[1], x);
  b[2] = std::min(b[2], y);
  b[3] = std::max(b[3], y);
  b[4] = std::min(b[4], z);
  b[5] = std::max(b[5], z);
}

vtkSmartPointer<vtkActor> makeActor(vtkPolyData* pd, bool colorsFromData) {
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputData(pd);
  mapper->StaticOn();
  if (colorsFromData) {
    mapper->ScalarVisibilityOn();
    mapper->SetColorModeToDirectScalars();
  } else {
    mapper->ScalarVisibilityOff();
  }
  auto actor = vtkSmartPointer<vtkActor>::New();
  actor->SetMapper(mapper);
  vtkProperty* p = actor->GetProperty();
  p->SetInterpolationToPhong();
  p->SetAmbient(0.18);
  p->SetDiffuse(0.80);
  p->SetSpecular(0.30);
  p->SetSpecularPower(40);
  return actor;
}

// diagonal stripes modulating the ground's colour
vtkSmartPointer<vtkTexture> makeHatchTexture() {
  constexpr int kW = 32;
  vtkNew<vtkImageData> image;
  image->SetDimensions(kW, 2, 1);
  image->AllocateScalars(VTK_UNSIGNED_CHAR, 3);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < kW; ++x) {
      auto* px = static_cast<unsigned char*>(image->GetScalarPointer(x, y, 0));
      const unsigned char v = x < 23 ? 255 : 178;
      px[0] = px[1] = px[2] = v;
    }
  }
  auto tex = vtkSmartPointer<vtkTexture>::New();
  tex->SetInputData(image);
  tex->InterpolateOn();
  tex->RepeatOn();
  tex->MipmapOn();
  return tex;
}

}  // namespace

struct SceneView::Impl {
  struct Placed {
    vtkSmartPointer<vtkActor> actor;
    vtkSmartPointer<vtkMatrix4x4> matrix;
    double zOffset = 0;  // planar stacking layer (bodies only)
    std::array<double, 3> color{0, 0, 0};  // bodies: their own colour (the selection replaces it)
  };
  struct PathVis {
    vtkSmartPointer<vtkActor> actor;
    vtkSmartPointer<vtkPolyData> polyData;
    std::vector<scene::Vec3> last;
    scene::Rgb color{-1, -1, -1};
  };

  bool loaded = false;
  bool planar = true;
  V3 up{0, 1, 0};     // the screen's up (against gravity)
  V3 front{0, 0, 1};  // the front view's direction to the camera
  double drawingScale = 1;
  std::vector<double> envelope;  // x, y, z of body points over a whole motion (fitMotion)
  double layerThickness = 0;  // planar: thickness of one body slab
  double zBottom = 0;         // planar: lowest and highest z of the slab stack
  double zTop = 0;
  double glyphUnit = 0;

  std::vector<Placed> bodies;
  std::vector<Placed> joints;
  std::vector<Placed> springs;
  std::vector<PathVis> paths;
  std::vector<Placed> arrows;  // unit arrows along +X, stretched to each vector
  std::vector<vtkSmartPointer<vtkActor>> handles;  // the selected body's points and axis tips (Shift + drag)
  std::vector<vtkSmartPointer<vtkActor>> stems;    // the axes' stems (not pickable)
  vtkSmartPointer<vtkActor> grid;
  vtkSmartPointer<vtkActor> axes;
  bool gridVisible = true;
  vtkSmartPointer<vtkTexture> hatch;

  // calls f(x, y, z) for the points of what is drawn: body mesh vertices, transformed (an
  // actor's own bounds are the box of its rotated bounding box, too loose for a camera fit),
  // and the bounding-box corners of the small things (glyphs, springs, paths)
  template <class F>
  void forEachDrawnPoint(F&& f) const {
    for (const Placed& body : bodies) {
      if (!body.actor->GetVisibility()) continue;
      auto* pd = vtkPolyData::SafeDownCast(body.actor->GetMapper()->GetInputDataObject(0, 0));
      if (pd == nullptr || pd->GetPoints() == nullptr) continue;
      vtkPoints* pts = pd->GetPoints();
      for (vtkIdType i = 0; i < pts->GetNumberOfPoints(); ++i) {
        double p[4] = {0, 0, 0, 1};
        pts->GetPoint(i, p);
        double q[4];
        body.matrix->MultiplyPoint(p, q);
        f(q[0], q[1], q[2]);
      }
    }
    std::vector<vtkActor*> small;
    for (const Placed& p : joints) small.push_back(p.actor);
    for (const Placed& p : springs) small.push_back(p.actor);
    for (const PathVis& p : paths) small.push_back(p.actor);
    for (vtkActor* a : small) {
      if (!a->GetVisibility()) continue;
      const double* ab = a->GetBounds();
      if (ab == nullptr || ab[0] > ab[1]) continue;
      for (int corner = 0; corner < 8; ++corner)
        f(ab[corner & 1], ab[2 + ((corner >> 1) & 1)], ab[4 + ((corner >> 2) & 1)]);
    }
  }

  // the drawn points and the motion envelope: what the camera fit keeps in view
  template <typename F>
  void forEachFitPoint(F&& f) const {
    forEachDrawnPoint(f);
    for (std::size_t i = 0; i + 2 < envelope.size(); i += 3) f(envelope[i], envelope[i + 1], envelope[i + 2]);
  }

  [[nodiscard]] bool tightBounds(double b[6]) const {
    b[0] = b[2] = b[4] = VTK_DOUBLE_MAX;
    b[1] = b[3] = b[5] = -VTK_DOUBLE_MAX;
    forEachFitPoint([b](double x, double y, double z) { growBounds(b, x, y, z); });
    return b[0] <= b[1];
  }

  [[nodiscard]] std::vector<vtkActor*> allActors() const {
    std::vector<vtkActor*> out;
    for (const auto* group : {&bodies, &joints, &springs})
      for (const Placed& p : *group) out.push_back(p.actor);
    for (const PathVis& p : paths) out.push_back(p.actor);
    for (const Placed& a : arrows) out.push_back(a.actor);
    for (const auto& h : handles) out.push_back(h);
    for (const auto& h : stems) out.push_back(h);
    if (grid) out.push_back(grid);
    if (axes) out.push_back(axes);
    return out;
  }
};

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
  for (vtkActor* a : actors) {
    if (haveContext) a->ReleaseGraphicsResources(renderWindow());
    renderer()->RemoveActor(a);
  }
  if (haveContext) doneCurrent();
  s_->bodies.clear();
  s_->joints.clear();
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
  const int segments = std::clamp(static_cast<int>(std::lround(32 * std::sqrt(s.glyphUnit / whole / 0.02))), 12, 32);

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

  // ---- bodies
  for (std::size_t bi = 0; bi < model.bodies.size(); ++bi) {
    const scene::SceneBody& b = model.bodies[bi];
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
    Impl::Placed placed;
    placed.actor = makeActor(mb.build(), false);
    placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
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
    ren->AddActor(placed.actor);
    s.bodies.push_back(std::move(placed));
  }

  // ---- joint glyphs (local frame: n along the joint axis), colours per vertex
  const double u = s.glyphUnit;
  const double pinRadius = std::clamp(0.55 * barRadius, 0.5 * u, 1.5 * u);
  const double stackMid = (s.zBottom + s.zTop) / 2;
  for (const scene::SceneJoint& j : model.joints) {
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
    Impl::Placed placed;
    placed.actor = makeActor(mb.build(), true);
    placed.actor->GetProperty()->SetSpecular(0.55);
    placed.actor->GetProperty()->SetSpecularPower(60);
    placed.matrix = vtkSmartPointer<vtkMatrix4x4>::New();
    placed.actor->SetUserMatrix(placed.matrix);
    ren->AddActor(placed.actor);
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
    ren->AddActor(placed.actor);
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
    vtkProperty* p = s_->bodies[i].actor->GetProperty();
    const bool on = selectedKind_ == Pick::Kind::Body && static_cast<int>(i) == selectedIndex_;
    const auto& c = s_->bodies[i].color;
    if (on) p->SetColor(1.0, 0.5, 0.0);
    else p->SetColor(c[0], c[1], c[2]);
    p->SetAmbient(on ? 0.35 : 0.0);
    p->SetAmbientColor(1.0, 0.6, 0.1);
  }
  for (std::size_t j = 0; j < s_->joints.size(); ++j) {
    const bool on = selectedKind_ == Pick::Kind::Joint && static_cast<int>(j) == selectedIndex_;
    s_->joints[j].actor->SetScale(on ? 1.6 : 1.0);
  }
}

void SceneView::showFrame(const scene::SceneFrame& frame) {
  Impl& s = *s_;
  if (!s.loaded) return;

  // bodies: p_W = position + R p_B (+ the planar stacking offset along Z)
  const std::size_t nb = std::min(s.bodies.size(), frame.bodyPoses.size());
  for (std::size_t i = 0; i < nb; ++i) {
    const scene::Pose& X = frame.bodyPoses[i];
    const auto& R = X.rotation;
    setMatrix(s.bodies[i].matrix, {X.position[0], X.position[1], X.position[2] + s.bodies[i].zOffset},
              {R[0], R[3], R[6]}, {R[1], R[4], R[7]}, {R[2], R[5], R[8]});
  }

  // joints: glyph frame at the joint with n along its axis
  const std::size_t nj = std::min(s.joints.size(), frame.joints.size());
  for (std::size_t i = 0; i < nj; ++i) {
    const scene::JointState& js = frame.joints[i];
    const Frame f = jointFrame(js.position, js.axis, s.planar);
    setMatrix(s.joints[i].matrix, f.o, f.u, f.v, f.n);
  }

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
      if (!body.actor->GetVisibility()) continue;
      auto* pd = vtkPolyData::SafeDownCast(body.actor->GetMapper()->GetInputDataObject(0, 0));
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

void SceneView::setHighlightedBodies(const std::vector<int>& bodies) {
  for (std::size_t i = 1; i < s_->bodies.size(); ++i) {
    const bool shown = bodies.empty() || std::find(bodies.begin(), bodies.end(), static_cast<int>(i)) != bodies.end();
    s_->bodies[i].actor->GetProperty()->SetOpacity(shown ? 1.0 : 0.15);
  }
  requestRender();
}

void SceneView::resizeEvent(QResizeEvent* event) {
  VtkHostWidget::resizeEvent(event);
  if (fitOnResize_ && hasScene()) fitCamera();
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
  // software ray casting against the actors' cells: no OpenGL context needed
  auto picker = vtkSmartPointer<vtkCellPicker>::New();
  picker->SetTolerance(0.004);
  if (jointsOnly) {  // a joint sits on its bodies' ends: look through them
    picker->PickFromListOn();
    for (const auto& j : s_->joints) picker->AddPickList(j.actor);
  }
  const double dpr = devicePixelRatioF();
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
