#include "view3d/scene_geometry.h"

#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace lw::widgets::detail {

namespace {

constexpr double kPi = std::numbers::pi;

V3 add(const V3& a, const V3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 mul(const V3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const V3& a) { return std::sqrt(dot(a, a)); }
V3 normalized(const V3& a) {
  const double l = norm(a);
  return l > 0 ? mul(a, 1.0 / l) : V3{0, 0, 1};
}
// point of frame f at local coordinates (a, b, c)
V3 at(const Frame& f, double a, double b, double c) {
  return add(f.o, add(mul(f.u, a), add(mul(f.v, b), mul(f.n, c))));
}
V3 dirIn(const Frame& f, double a, double b, double c) {
  return add(mul(f.u, a), add(mul(f.v, b), mul(f.n, c)));
}

// arcs are sampled at most this many radians apart
constexpr double kArcStep = kPi / 18;

}  // namespace

Frame frameAlong(const V3& origin, const V3& axis) {
  Frame f;
  f.o = origin;
  f.n = normalized(axis);
  // any vector not parallel to n gives u
  const V3 helper = std::abs(f.n[0]) < 0.9 ? V3{1, 0, 0} : V3{0, 1, 0};
  f.u = normalized(cross(helper, f.n));
  f.v = cross(f.n, f.u);
  return f;
}

void MeshBuilder::setColor(const Rgb8& c) {
  color_ = c;
  useColor_ = true;
}

void MeshBuilder::setHatchPeriod(double period) { hatchPeriod_ = period; }

int MeshBuilder::vertex(const V3& p, const V3& n) {
  const int index = static_cast<int>(points_.size() / 3);
  const V3 nn = normalized(n);
  for (int i = 0; i < 3; ++i) {
    points_.push_back(static_cast<float>(p[i]));
    normals_.push_back(static_cast<float>(nn[i]));
  }
  if (useColor_) colors_.insert(colors_.end(), color_.begin(), color_.end());
  if (hatchPeriod_ > 0) {
    tcoords_.push_back(static_cast<float>((p[0] + p[1] + p[2]) / hatchPeriod_));
    tcoords_.push_back(0.5f);
  }
  return index;
}

void MeshBuilder::triangle(int a, int b, int c) {
  triangles_.push_back(a);
  triangles_.push_back(b);
  triangles_.push_back(c);
}

void MeshBuilder::quad(int a, int b, int c, int d) {
  triangle(a, b, c);
  triangle(a, c, d);
}

void MeshBuilder::roundedSlab(const Frame& f, std::vector<V2> core, double radius, double n0,
                              double n1, double fillet) {
  // drop repeated corners, then make the polygon counter-clockwise about f.n
  std::vector<V2> pts;
  for (const V2& p : core) {
    if (pts.empty() || std::hypot(p[0] - pts.back()[0], p[1] - pts.back()[1]) > 1e-12 * (1 + radius))
      pts.push_back(p);
  }
  while (pts.size() > 1 && std::hypot(pts.front()[0] - pts.back()[0],
                                      pts.front()[1] - pts.back()[1]) <= 1e-12 * (1 + radius))
    pts.pop_back();
  if (pts.empty() || radius <= 0 || n1 <= n0) return;
  double area2 = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const V2& a = pts[i];
    const V2& b = pts[(i + 1) % pts.size()];
    area2 += a[0] * b[1] - b[0] * a[1];
  }
  if (area2 < 0) std::reverse(pts.begin(), pts.end());

  // outline samples: for every corner, an arc of outward directions from the normal of the
  // incoming edge to the normal of the outgoing edge (a full circle for a single point)
  struct Sample {
    V2 corner;
    V2 dir;
  };
  std::vector<Sample> outline;
  const std::size_t m = pts.size();
  auto edgeNormal = [&](std::size_t i) {  // outward normal of edge i -> i+1
    const V2& a = pts[i % m];
    const V2& b = pts[(i + 1) % m];
    const double dx = b[0] - a[0];
    const double dy = b[1] - a[1];
    const double l = std::hypot(dx, dy);
    return V2{dy / l, -dx / l};
  };
  if (m == 1) {
    const int steps = static_cast<int>(std::ceil(2 * kPi / kArcStep));
    for (int k = 0; k < steps; ++k) {
      const double phi = 2 * kPi * k / steps;
      outline.push_back({pts[0], {std::cos(phi), std::sin(phi)}});
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const V2 nIn = edgeNormal(i + m - 1);
      const V2 nOut = edgeNormal(i);
      double sweep = std::atan2(nIn[0] * nOut[1] - nIn[1] * nOut[0], nIn[0] * nOut[0] + nIn[1] * nOut[1]);
      if (sweep < 0) sweep += 2 * kPi;
      const int steps = static_cast<int>(std::ceil(sweep / kArcStep - 1e-9));
      const double a0 = std::atan2(nIn[1], nIn[0]);
      for (int k = 0; k <= steps; ++k) {
        const double phi = a0 + (steps > 0 ? sweep * k / steps : 0.0);
        outline.push_back({pts[i], {std::cos(phi), std::sin(phi)}});
      }
    }
  }
  const std::size_t ns = outline.size();

  // profile rings from bottom to top: (offset from the core, height, normal radial/axial part)
  const double b = std::clamp(fillet, 0.0, std::min(0.9 * radius, 0.45 * (n1 - n0)));
  struct Ring {
    double offset, height, nr, nz;
  };
  std::vector<Ring> rings;
  if (b > 0) {
    constexpr int kFilletSteps = 4;
    for (int k = 0; k <= kFilletSteps; ++k) {  // bottom edge: theta from -90 to 0 degrees
      const double th = -kPi / 2 + (kPi / 2) * k / kFilletSteps;
      rings.push_back({radius - b + b * std::cos(th), n0 + b + b * std::sin(th), std::cos(th), std::sin(th)});
    }
    for (int k = 0; k <= kFilletSteps; ++k) {  // top edge: theta from 0 to 90 degrees
      const double th = (kPi / 2) * k / kFilletSteps;
      rings.push_back({radius - b + b * std::cos(th), n1 - b + b * std::sin(th), std::cos(th), std::sin(th)});
    }
  } else {
    rings.push_back({radius, n0, 1, 0});
    rings.push_back({radius, n1, 1, 0});
  }

  auto ringPoint = [&](const Sample& s, double offset, double height) {
    return at(f, s.corner[0] + offset * s.dir[0], s.corner[1] + offset * s.dir[1], height);
  };
  // side surface
  std::vector<int> prev;
  for (const Ring& r : rings) {
    std::vector<int> cur(ns);
    for (std::size_t k = 0; k < ns; ++k) {
      const Sample& s = outline[k];
      cur[k] = vertex(ringPoint(s, r.offset, r.height), dirIn(f, r.nr * s.dir[0], r.nr * s.dir[1], r.nz));
    }
    if (!prev.empty()) {
      for (std::size_t k = 0; k < ns; ++k) {
        const std::size_t k1 = (k + 1) % ns;
        quad(prev[k], prev[k1], cur[k1], cur[k]);
      }
    }
    prev = std::move(cur);
  }
  // flat caps, fanned from the core's centroid
  V2 c{0, 0};
  for (const V2& p : pts) {
    c[0] += p[0] / static_cast<double>(m);
    c[1] += p[1] / static_cast<double>(m);
  }
  const double capOffset = rings.front().offset;
  for (const double side : {-1.0, 1.0}) {
    const double h = side < 0 ? n0 : n1;
    const int centre = vertex(at(f, c[0], c[1], h), mul(f.n, side));
    std::vector<int> ring(ns);
    for (std::size_t k = 0; k < ns; ++k) ring[k] = vertex(ringPoint(outline[k], capOffset, h), mul(f.n, side));
    for (std::size_t k = 0; k < ns; ++k) {
      const std::size_t k1 = (k + 1) % ns;
      if (side > 0)
        triangle(centre, ring[k], ring[k1]);
      else
        triangle(centre, ring[k1], ring[k]);
    }
  }
}

void MeshBuilder::setSegments(int segments) { segments_ = std::max(6, segments); }

void MeshBuilder::revolve(const Frame& f, const std::vector<ProfileRing>& rings, int segments) {
  std::vector<int> prev;
  for (const ProfileRing& r : rings) {
    std::vector<int> cur(static_cast<std::size_t>(segments));
    for (int s = 0; s < segments; ++s) {
      const double phi = 2 * kPi * s / segments;
      const double cs = std::cos(phi);
      const double sn = std::sin(phi);
      cur[static_cast<std::size_t>(s)] =
          vertex(at(f, r.radius * cs, r.radius * sn, r.axial),
                 dirIn(f, r.nRadial * cs, r.nRadial * sn, r.nAxial));
    }
    if (!prev.empty()) {
      for (std::size_t s = 0; s < cur.size(); ++s) {
        const std::size_t s1 = (s + 1) % cur.size();
        quad(prev[s], prev[s1], cur[s1], cur[s]);
      }
    }
    prev = std::move(cur);
  }
}

void MeshBuilder::cylinder(const V3& p0, const V3& p1, double radius, double bevel) {
  const double len = norm(sub(p1, p0));
  if (len <= 0 || radius <= 0) return;
  const Frame f = frameAlong(p0, sub(p1, p0));
  const double b = std::clamp(bevel, 0.0, std::min(0.9 * radius, 0.45 * len));
  std::vector<ProfileRing> rings;
  rings.push_back({0, 0, -1, 0});
  rings.push_back({0, radius - b, -1, 0});
  if (b > 0) {
    const int steps = segments_ >= 24 ? 3 : 1;
    for (int k = 0; k <= steps; ++k) {
      const double th = -kPi / 2 + (kPi / 2) * k / steps;
      rings.push_back({b + b * std::sin(th), radius - b + b * std::cos(th), std::sin(th), std::cos(th)});
    }
    for (int k = 0; k <= steps; ++k) {
      const double th = (kPi / 2) * k / steps;
      rings.push_back({len - b + b * std::sin(th), radius - b + b * std::cos(th), std::sin(th), std::cos(th)});
    }
  } else {
    rings.push_back({0, radius, 0, 1});
    rings.push_back({len, radius, 0, 1});
  }
  rings.push_back({len, radius - b, 1, 0});
  rings.push_back({len, 0, 1, 0});
  revolve(f, rings, segments_);
}

void MeshBuilder::capsule(const V3& p0, const V3& p1, double radius) {
  if (radius <= 0) return;
  const double len = norm(sub(p1, p0));
  const Frame f = frameAlong(p0, len > 0 ? sub(p1, p0) : V3{0, 0, 1});
  std::vector<ProfileRing> rings;
  const int kSteps = std::max(2, segments_ / 4);
  for (int k = 0; k <= kSteps; ++k) {
    const double th = -kPi / 2 + (kPi / 2) * k / kSteps;
    rings.push_back({radius * std::sin(th), radius * std::cos(th), std::sin(th), std::cos(th)});
  }
  for (int k = 0; k <= kSteps; ++k) {
    const double th = (kPi / 2) * k / kSteps;
    rings.push_back({len + radius * std::sin(th), radius * std::cos(th), std::sin(th), std::cos(th)});
  }
  revolve(f, rings, segments_);
}

void MeshBuilder::sphere(const V3& centre, double radius) {
  if (radius <= 0) return;
  const Frame f = frameAlong(centre, {0, 0, 1});
  std::vector<ProfileRing> rings;
  const int kSteps = std::max(4, segments_ / 2);
  for (int k = 0; k <= kSteps; ++k) {
    const double th = -kPi / 2 + kPi * k / kSteps;
    rings.push_back({radius * std::sin(th), radius * std::cos(th), std::sin(th), std::cos(th)});
  }
  revolve(f, rings, segments_);
}

void MeshBuilder::box(const Frame& f, const V3& size) {
  const double h[3] = {size[0] / 2, size[1] / 2, size[2] / 2};
  const V3 axes[3] = {f.u, f.v, f.n};
  // each face: normal axis a (sign s), spanned by the two other axes in right-handed order
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3;
    const int c = (a + 2) % 3;
    for (const double s : {-1.0, 1.0}) {
      const V3 n = mul(axes[a], s);
      const V3 centre = add(f.o, mul(axes[a], s * h[a]));
      const V3 eb = mul(axes[b], h[b]);
      const V3 ec = mul(axes[c], h[c] * s);  // flip one axis on the negative face
      const int v0 = vertex(sub(sub(centre, eb), ec), n);
      const int v1 = vertex(sub(add(centre, eb), ec), n);
      const int v2 = vertex(add(add(centre, eb), ec), n);
      const int v3 = vertex(add(sub(centre, eb), ec), n);
      quad(v0, v1, v2, v3);
    }
  }
}

vtkSmartPointer<vtkPolyData> MeshBuilder::build() const {
  auto pd = vtkSmartPointer<vtkPolyData>::New();
  const vtkIdType nv = static_cast<vtkIdType>(points_.size() / 3);

  vtkNew<vtkPoints> pts;
  pts->SetDataTypeToFloat();
  pts->SetNumberOfPoints(nv);
  vtkNew<vtkFloatArray> normals;
  normals->SetName("Normals");
  normals->SetNumberOfComponents(3);
  normals->SetNumberOfTuples(nv);
  for (vtkIdType i = 0; i < nv; ++i) {
    const auto k = static_cast<std::size_t>(3 * i);
    pts->SetPoint(i, points_[k], points_[k + 1], points_[k + 2]);
    normals->SetTypedTuple(i, &normals_[k]);
  }
  pd->SetPoints(pts);
  pd->GetPointData()->SetNormals(normals);

  if (useColor_) {
    vtkNew<vtkUnsignedCharArray> colors;
    colors->SetName("Colors");
    colors->SetNumberOfComponents(3);
    colors->SetNumberOfTuples(nv);
    for (vtkIdType i = 0; i < nv; ++i) colors->SetTypedTuple(i, &colors_[static_cast<std::size_t>(3 * i)]);
    pd->GetPointData()->SetScalars(colors);
  }
  if (hatchPeriod_ > 0) {
    vtkNew<vtkFloatArray> tc;
    tc->SetName("TCoords");
    tc->SetNumberOfComponents(2);
    tc->SetNumberOfTuples(nv);
    for (vtkIdType i = 0; i < nv; ++i) tc->SetTypedTuple(i, &tcoords_[static_cast<std::size_t>(2 * i)]);
    pd->GetPointData()->SetTCoords(tc);
  }

  vtkNew<vtkCellArray> polys;
  polys->AllocateExact(static_cast<vtkIdType>(triangles_.size() / 3), static_cast<vtkIdType>(triangles_.size()));
  for (std::size_t t = 0; t + 2 < triangles_.size(); t += 3) {
    const vtkIdType tri[3] = {static_cast<vtkIdType>(triangles_[t]), static_cast<vtkIdType>(triangles_[t + 1]),
                              static_cast<vtkIdType>(triangles_[t + 2])};
    polys->InsertNextCell(3, tri);
  }
  pd->SetPolys(polys);
  return pd;
}

vtkSmartPointer<vtkPolyData> unitHelix(double radius, int turns) {
  constexpr double kLead = 0.08;    // straight part at each end (fraction of the length)
  constexpr int kPerTurn = 24;
  vtkNew<vtkPoints> pts;
  pts->InsertNextPoint(0, 0, 0);
  const int n = std::max(1, turns) * kPerTurn;
  for (int i = 0; i <= n; ++i) {
    const double s = static_cast<double>(i) / n;
    const double phi = 2 * kPi * std::max(1, turns) * s;
    pts->InsertNextPoint(radius * std::cos(phi), radius * std::sin(phi), kLead + (1 - 2 * kLead) * s);
  }
  pts->InsertNextPoint(0, 0, 1);
  vtkNew<vtkCellArray> lines;
  const vtkIdType np = pts->GetNumberOfPoints();
  lines->InsertNextCell(static_cast<int>(np));
  for (vtkIdType i = 0; i < np; ++i) lines->InsertCellPoint(i);
  auto pd = vtkSmartPointer<vtkPolyData>::New();
  pd->SetPoints(pts);
  pd->SetLines(lines);
  return pd;
}

vtkSmartPointer<vtkPolyData> gridLines(const Frame& f, double half, double spacing, const Rgb8& minor,
                                       const Rgb8& major, int majorEvery) {
  vtkNew<vtkPoints> pts;
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkUnsignedCharArray> colors;
  colors->SetName("Colors");
  colors->SetNumberOfComponents(3);
  const int n = std::max(1, static_cast<int>(std::floor(half / spacing)));
  auto line = [&](const V3& a, const V3& b, const Rgb8& c) {
    const vtkIdType ia = pts->InsertNextPoint(a.data());
    const vtkIdType ib = pts->InsertNextPoint(b.data());
    colors->InsertNextTypedTuple(c.data());
    colors->InsertNextTypedTuple(c.data());
    const vtkIdType ids[2] = {ia, ib};
    lines->InsertNextCell(2, ids);
  };
  const double ext = n * spacing;
  for (int i = -n; i <= n; ++i) {
    const Rgb8& c = (majorEvery > 0 && i % majorEvery == 0) ? major : minor;
    line(at(f, i * spacing, -ext, 0), at(f, i * spacing, ext, 0), c);
    line(at(f, -ext, i * spacing, 0), at(f, ext, i * spacing, 0), c);
  }
  auto pd = vtkSmartPointer<vtkPolyData>::New();
  pd->SetPoints(pts);
  pd->SetLines(lines);
  pd->GetPointData()->SetScalars(colors);
  return pd;
}

vtkSmartPointer<vtkPolyData> axesLines(const V3& origin, double length) {
  vtkNew<vtkPoints> pts;
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkUnsignedCharArray> colors;
  colors->SetName("Colors");
  colors->SetNumberOfComponents(3);
  const Rgb8 axisColor[3] = {{210, 60, 50}, {60, 160, 60}, {60, 90, 210}};
  for (int a = 0; a < 3; ++a) {
    V3 tip = origin;
    tip[static_cast<std::size_t>(a)] += length;
    const vtkIdType ids[2] = {pts->InsertNextPoint(origin.data()), pts->InsertNextPoint(tip.data())};
    colors->InsertNextTypedTuple(axisColor[a].data());
    colors->InsertNextTypedTuple(axisColor[a].data());
    lines->InsertNextCell(2, ids);
  }
  auto pd = vtkSmartPointer<vtkPolyData>::New();
  pd->SetPoints(pts);
  pd->SetLines(lines);
  pd->GetPointData()->SetScalars(colors);
  return pd;
}

}  // namespace lw::widgets::detail
