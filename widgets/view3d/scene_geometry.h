// Internal to the scene view: triangle meshes for bodies and joint glyphs, built once per
// SceneModel with analytic (smooth) normals. Not part of lw_widgets' public API.
#pragma once

#include <vtkSmartPointer.h>

#include <array>
#include <vector>

class vtkPolyData;

namespace lw::widgets::detail {

using V3 = std::array<double, 3>;
using V2 = std::array<double, 2>;
using Rgb8 = std::array<unsigned char, 3>;

/// Orthonormal frame: origin o and axes u, v, n (n is the "thickness" direction).
struct Frame {
  V3 o{0, 0, 0};
  V3 u{1, 0, 0};
  V3 v{0, 1, 0};
  V3 n{0, 0, 1};
};

/// A frame whose n axis is `axis` (normalised), with u, v completing it (right-handed).
Frame frameAlong(const V3& origin, const V3& axis);

/// One ring of a surface of revolution about the local axis: `axial` along the axis, `radius`
/// from it, and the outward surface normal split into its axial and radial parts.
struct ProfileRing {
  double axial = 0;
  double radius = 0;
  double nAxial = 0;
  double nRadial = 1;
};

/// Accumulates triangles with per-vertex normals, and optionally per-vertex colours and
/// hatch texture coordinates, then produces one vtkPolyData.
class MeshBuilder {
 public:
  /// Colour given to the vertices added from now on; enables a colour array in build().
  void setColor(const Rgb8& c);
  /// Texture coordinate u = (x + y + z) / period (body frame): diagonal hatch stripes.
  void setHatchPeriod(double period);
  /// Segments around surfaces of revolution (cylinders, capsules, spheres) added from now on
  /// (at least 6; 32 by default); the rings along their rounded ends follow in proportion.
  void setSegments(int segments);

  /// Slab over the convex polygon `core` (coordinates along f.u, f.v), grown by `radius` with
  /// rounded corners (two points give a stadium, i.e. a bar with round ends), from n = n0 to
  /// n = n1, with edges rounded by `fillet` (clamped to fit).
  void roundedSlab(const Frame& f, std::vector<V2> core, double radius, double n0, double n1,
                   double fillet);
  /// Surface of revolution about f.n (profile rings from one end to the other).
  void revolve(const Frame& f, const std::vector<ProfileRing>& rings, int segments);
  /// Cylinder from p0 to p1 with flat caps (edges slightly rounded when bevel > 0).
  void cylinder(const V3& p0, const V3& p1, double radius, double bevel = 0);
  /// Capsule: cylinder with hemispherical ends.
  void capsule(const V3& p0, const V3& p1, double radius);
  void sphere(const V3& centre, double radius);
  /// Box with edge lengths `size` along f.u, f.v, f.n, centred at f.o.
  void box(const Frame& f, const V3& size);

  [[nodiscard]] bool empty() const { return points_.empty(); }
  [[nodiscard]] vtkSmartPointer<vtkPolyData> build() const;

 private:
  int vertex(const V3& p, const V3& n);
  void triangle(int a, int b, int c);
  void quad(int a, int b, int c, int d);

  std::vector<float> points_;
  std::vector<float> normals_;
  std::vector<float> tcoords_;
  std::vector<unsigned char> colors_;
  std::vector<long long> triangles_;
  Rgb8 color_{200, 200, 200};
  bool useColor_ = false;
  double hatchPeriod_ = 0;
  int segments_ = 32;
};

/// A helix of `turns` turns and radius `radius` along local z from 0 to 1, with short straight
/// leads at both ends, as one polyline (scaled along z to the spring's length when drawn).
vtkSmartPointer<vtkPolyData> unitHelix(double radius, int turns);

/// Lines of a square grid in the plane of f (u, v), centred at f.o, covering [-half, half]^2
/// with the given spacing; every `majorEvery`-th line (counted from f.o) gets the major colour.
vtkSmartPointer<vtkPolyData> gridLines(const Frame& f, double half, double spacing,
                                       const Rgb8& minor, const Rgb8& major, int majorEvery);

/// Three coloured lines (x red, y green, z blue) of the given length from `origin`.
vtkSmartPointer<vtkPolyData> axesLines(const V3& origin, double length);

}  // namespace lw::widgets::detail
