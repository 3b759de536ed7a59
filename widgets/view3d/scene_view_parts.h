// What the 3D view's files share (internal to view3d/): the look, small geometry helpers, and the
// view's state (SceneView::Impl). scene_view.cpp: the frame shown, selection and handles;
// scene_view_build.cpp: the actors of a scene; scene_view_camera.cpp: camera, picking and input.
#pragma once

#include "view3d/scene_view.h"


#include "scene/scene.h"
#include "view3d/scene_geometry.h"

#include <vtkActor.h>
#include <vtkCellPicker.h>
#include <vtkArrowSource.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkDoubleArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>
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
#include <array>
#include <cmath>
#include <numbers>
#include <vector>


namespace lw::widgets {
namespace sceneview {


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

inline V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline double norm(const V3& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

// a "nice" grid spacing (1, 2 or 5 times a power of ten) close to `target`
inline double niceStep(double target) {
  const double p = std::pow(10.0, std::floor(std::log10(target)));
  const double m = target / p;
  return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

// translation t and the columns c0, c1, c2 of the linear part into a VTK matrix
inline void setMatrix(vtkMatrix4x4* m, const V3& t, const V3& c0, const V3& c1, const V3& c2) {
  const double e[16] = {c0[0], c1[0], c2[0], t[0],  //
                        c0[1], c1[1], c2[1], t[1],  //
                        c0[2], c1[2], c2[2], t[2],  //
                        0,     0,     0,     1};
  m->DeepCopy(e);  // one Modified() for the actor
}

// glyph frame of a joint: n along the axis; in planar models v is kept on world Z when the axis
// lies in the plane, so glyph heights along v become stack heights
inline Frame jointFrame(const V3& position, const V3& axis, bool planar) {
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
inline double footprint(const scene::SceneBody& b, double barRadius) {
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

inline void growBounds(double b[6], double x, double y, double z) {
  b[0] = std::min(b[0], x);
  b[1] = std::max(b[1], x);
  b[2] = std::min(b[2], y);
  b[3] = std::max(b[3], y);
  b[4] = std::min(b[4], z);
  b[5] = std::max(b[5], z);
}

inline vtkSmartPointer<vtkActor> makeActor(vtkPolyData* pd, bool colorsFromData) {
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
inline vtkSmartPointer<vtkTexture> makeHatchTexture() {
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


}  // namespace sceneview

using namespace sceneview;

struct SceneView::Impl {
  struct Placed {
    vtkSmartPointer<vtkActor> actor;  // its own (none when drawn as an instance)
    vtkSmartPointer<vtkMatrix4x4> matrix;
    vtkPolyData* mesh = nullptr;  // bodies and joints: their (shared) mesh
    int group = -1;               // drawn as instance `instance` of instances[group]
    vtkIdType instance = -1;
    double zOffset = 0;  // planar stacking layer (bodies only)
    V3 origin{0, 0, 0};  // bodies: where their shared mesh's origin lies in the body frame
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

  // A mechanism of thousands of bodies is drawn by instancing: the bodies of one shape, the
  // joints of one glyph kind, as one actor each whose mapper (vtkGlyph3DMapper: OpenGL
  // instancing) draws the shared mesh at every instance's pose, colour and scale. An actor per
  // item took 14 s to draw 10⁴ bodies and 40 s to release; small mechanisms keep theirs (exact
  // picking, two-tone joint glyphs).
  static constexpr std::size_t kInstancedAbove = 1500;  // bodies and joints
  struct Instances {
    vtkSmartPointer<vtkActor> actor;
    vtkSmartPointer<vtkPolyData> poses;  // points: positions; arrays "orientation" (w, x, y, z), "scale", colours (RGBA)
    vtkSmartPointer<vtkPolyData> mesh;
    vtkDoubleArray* orientation = nullptr;
    vtkDoubleArray* scale = nullptr;
    vtkUnsignedCharArray* colors = nullptr;
  };
  bool instanced = false;
  std::vector<Instances> instances;

  /// A new group drawing `mesh` at each of its instances.
  int addInstances(vtkPolyData* mesh) {
    Instances g;
    g.mesh = mesh;
    g.poses = vtkSmartPointer<vtkPolyData>::New();
    vtkNew<vtkPoints> points;
    points->SetDataTypeToDouble();
    g.poses->SetPoints(points);
    auto orientation = vtkSmartPointer<vtkDoubleArray>::New();
    orientation->SetName("orientation");
    orientation->SetNumberOfComponents(4);
    auto scale = vtkSmartPointer<vtkDoubleArray>::New();
    scale->SetName("scale");
    scale->SetNumberOfComponents(3);
    auto colors = vtkSmartPointer<vtkUnsignedCharArray>::New();
    colors->SetName("colors");
    colors->SetNumberOfComponents(4);
    g.poses->GetPointData()->AddArray(orientation);
    g.poses->GetPointData()->AddArray(scale);
    g.poses->GetPointData()->SetScalars(colors);
    g.orientation = orientation;
    g.scale = scale;
    g.colors = colors;
    vtkNew<vtkGlyph3DMapper> mapper;
    mapper->SetInputData(g.poses);
    mapper->SetSourceData(mesh);
    mapper->SetOrientationArray("orientation");
    mapper->SetOrientationModeToQuaternion();
    mapper->SetScaleArray("scale");
    mapper->SetScaleModeToScaleByVectorComponents();
    mapper->ScalingOn();
    mapper->ScalarVisibilityOn();
    mapper->SetColorModeToDirectScalars();
    mapper->SetScalarModeToUsePointData();
    g.actor = vtkSmartPointer<vtkActor>::New();
    g.actor->SetMapper(mapper);
    vtkProperty* p = g.actor->GetProperty();
    p->SetInterpolationToPhong();
    p->SetAmbient(0.18);
    p->SetDiffuse(0.80);
    p->SetSpecular(0.30);
    p->SetSpecularPower(40);
    instances.push_back(g);
    return static_cast<int>(instances.size()) - 1;
  }
  /// A new instance of group g (at the origin, unit scale) in colour c: its index.
  vtkIdType addInstance(int g, const std::array<double, 3>& c) {
    Instances& in = instances[static_cast<std::size_t>(g)];
    const vtkIdType i = in.poses->GetPoints()->InsertNextPoint(0, 0, 0);
    in.orientation->InsertNextTuple4(1, 0, 0, 0);
    in.scale->InsertNextTuple3(1, 1, 1);
    in.colors->InsertNextTuple4(255 * c[0], 255 * c[1], 255 * c[2], 255);
    return i;
  }
  /// The instance's pose from its matrix (a rotation and a translation).
  void placeInstance(const Placed& p) {
    Instances& in = instances[static_cast<std::size_t>(p.group)];
    const vtkMatrix4x4* m = p.matrix;
    in.poses->GetPoints()->SetPoint(p.instance, m->GetElement(0, 3), m->GetElement(1, 3), m->GetElement(2, 3));
    double R[3][3], q[4];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) R[r][c] = m->GetElement(r, c);
    vtkMath::Matrix3x3ToQuaternion(R, q);
    in.orientation->SetTuple(p.instance, q);
  }
  void setInstanceColor(const Placed& p, double r, double g, double b, double a) {
    instances[static_cast<std::size_t>(p.group)].colors->SetTuple4(p.instance, 255 * r, 255 * g, 255 * b, 255 * a);
  }
  /// After instances moved, were recoloured or rescaled: drawn again.
  void instancesModified() {
    for (Instances& in : instances) {
      in.poses->GetPoints()->Modified();
      in.orientation->Modified();
      in.scale->Modified();
      in.colors->Modified();
      in.poses->Modified();
    }
  }
  bool visible(const Placed& p) const { return p.actor ? p.actor->GetVisibility() != 0 : instances[static_cast<std::size_t>(p.group)].actor->GetVisibility() != 0; }

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
      if (!visible(body)) continue;
      vtkPolyData* pd = body.mesh;
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
    for (const Placed& p : joints) {
      if (p.actor) {
        small.push_back(p.actor);
        continue;
      }
      // an instance: its mesh's bounding-box corners at its pose
      if (!visible(p) || p.mesh == nullptr) continue;
      double b[6];
      p.mesh->GetBounds(b);
      for (int corner = 0; corner < 8; ++corner) {
        double q0[4] = {b[corner & 1 ? 1 : 0], b[corner & 2 ? 3 : 2], b[corner & 4 ? 5 : 4], 1}, q1[4];
        p.matrix->MultiplyPoint(q0, q1);
        f(q1[0], q1[1], q1[2]);
      }
    }
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
      for (const Placed& p : *group)
        if (p.actor) out.push_back(p.actor);
    for (const Instances& in : instances) out.push_back(in.actor);
    for (const PathVis& p : paths) out.push_back(p.actor);
    for (const Placed& a : arrows) out.push_back(a.actor);
    for (const auto& h : handles) out.push_back(h);
    for (const auto& h : stems) out.push_back(h);
    if (grid) out.push_back(grid);
    if (axes) out.push_back(axes);
    return out;
  }
};

}  // namespace lw::widgets
