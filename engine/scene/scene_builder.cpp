#include "scene/scene_builder.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

namespace lw::scene {
namespace {

Vec3 toVec3(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }

Pose toPose(const Eigen::Vector3d& p, const Eigen::Matrix3d& r) {
  Pose pose;
  pose.position = toVec3(p);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) pose.rotation[static_cast<std::size_t>(3 * i + k)] = r(i, k);
  return pose;
}

// a pleasant, distinguishable palette for bodies without a colour of their own
constexpr Rgb kPalette[] = {{0.20, 0.47, 0.75}, {0.85, 0.42, 0.13}, {0.25, 0.62, 0.33},
                            {0.75, 0.25, 0.30}, {0.50, 0.38, 0.72}, {0.12, 0.62, 0.65},
                            {0.80, 0.62, 0.15}, {0.55, 0.35, 0.25}};

// convex hull of planar points (body-frame XY), counter-clockwise (monotone chain)
std::vector<Eigen::Vector3d> hull2d(std::vector<Eigen::Vector3d> pts) {
  std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
    return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y());
  });
  auto cross = [](const Eigen::Vector3d& o, const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
    return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
  };
  std::vector<Eigen::Vector3d> h(2 * pts.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  for (std::size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  h.resize(k > 1 ? k - 1 : k);
  return h;
}

void addAutoShape(const ResolvedMechanism& m, const ResolvedMechanism::Body& b, double radius,
                  SceneBody& out) {
  const auto& pts = b.points;
  if (pts.size() == 1) {
    Primitive s;
    s.kind = Primitive::Kind::Sphere;
    s.centre = toVec3(pts[0]);
    s.radius = 2 * radius;
    out.primitives.push_back(s);
    return;
  }
  if (m.dimension == 2 && pts.size() >= 3) {
    const auto hull = hull2d(pts);
    if (hull.size() >= 3) {
      Primitive plate;
      plate.kind = Primitive::Kind::Plate;
      for (const auto& p : hull) plate.points.push_back(toVec3(p));
      plate.radius = radius;
      out.primitives.push_back(plate);
      // outline bars keep the plate readable at its edges
      for (std::size_t i = 0; i < hull.size(); ++i) {
        Primitive bar;
        bar.kind = Primitive::Kind::Bar;
        bar.points = {toVec3(hull[i]), toVec3(hull[(i + 1) % hull.size()])};
        bar.radius = radius;
        out.primitives.push_back(bar);
      }
      return;
    }
  }
  // bars: a chain for two points, a star from the first point otherwise
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if ((pts[i] - pts[0]).norm() < 1e-12) continue;
    Primitive bar;
    bar.kind = Primitive::Kind::Bar;
    bar.points = {toVec3(pts[0]), toVec3(pts[i])};
    bar.radius = radius;
    out.primitives.push_back(bar);
  }
}

JointGlyph glyphOf(JointType t) {
  switch (t) {
    case JointType::Pin: return JointGlyph::Pin;
    case JointType::Slider: return JointGlyph::Slider;
    case JointType::Revolute: return JointGlyph::Revolute;
    case JointType::Prismatic: return JointGlyph::Prismatic;
    case JointType::Cylindrical: return JointGlyph::Cylindrical;
    case JointType::Universal: return JointGlyph::Universal;
    case JointType::Spherical: return JointGlyph::Spherical;
    case JointType::Fixed: return JointGlyph::Fixed;
  }
  return JointGlyph::Pin;
}

}  // namespace

SceneModel buildSceneModel(const ResolvedMechanism& m) {
  SceneModel s;
  s.dimension = m.dimension;
  s.drawingScale = m.drawingScale();
  s.extent = m.lengthScale();
  if (m.gravity.norm() > 0) {
    int axis = 0;
    m.gravity.cwiseAbs().maxCoeff(&axis);
    if (m.dimension == 3 || axis < 2) {
      s.up = {0, 0, 0};
      s.up[static_cast<std::size_t>(axis)] = m.gravity[axis] > 0 ? -1 : 1;
    }
  }
  const double extent = s.extent;
  const double defaultRadius = 0.012 * s.drawingScale;

  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    const auto& b = m.bodies[i];
    SceneBody sb;
    sb.name = b.name;
    sb.isGround = i == 0;
    sb.color = b.color ? Rgb{(*b.color)[0], (*b.color)[1], (*b.color)[2]}
                       : kPalette[(i - 1) % std::size(kPalette)];
    if (sb.isGround) {
      // an anchor block under every ground point
      for (const auto& p : b.points) {
        Primitive box;
        box.kind = Primitive::Kind::Box;
        box.centre = toVec3(p);
        const double a = 0.045 * s.drawingScale;
        box.size = {a, a, a};
        sb.primitives.push_back(box);
      }
      // contact planes (lines in 2D) as a strip of ground
      for (const auto& c : m.contacts) {
        if (c.planePoint.body != 0) continue;
        const Eigen::Vector3d p = m.pointWorld(c.planePoint), n = m.vectorWorld(c.planeNormal);
        Eigen::Vector3d t = m.dimension == 2 ? Eigen::Vector3d(-n.y(), n.x(), 0)
                                             : n.unitOrthogonal();
        const double L = 0.8 * extent;  // the floor spans the mechanism
        Primitive plate;
        plate.kind = Primitive::Kind::Plate;
        if (m.dimension == 2) {
          const Eigen::Vector3d d = -0.04 * s.drawingScale * n;
          plate.points = {toVec3(p - L * t), toVec3(p + L * t), toVec3(p + L * t + d), toVec3(p - L * t + d)};
        } else {
          const Eigen::Vector3d w = n.cross(t);
          plate.points = {toVec3(p - L * t - L * w), toVec3(p + L * t - L * w),
                          toVec3(p + L * t + L * w), toVec3(p - L * t + L * w)};
        }
        plate.radius = 0.004 * s.drawingScale;
        sb.primitives.push_back(plate);
      }
    } else {
      switch (b.shape) {
        case Shape::Type::Auto:
          addAutoShape(m, b, b.width > 0 ? b.width / 2 : defaultRadius, sb);
          break;
        case Shape::Type::Sphere: {
          Primitive sp;
          sp.kind = Primitive::Kind::Sphere;
          sp.centre = toVec3(b.com);
          sp.radius = b.radius;
          sb.primitives.push_back(sp);
          break;
        }
        case Shape::Type::Box: {
          Primitive box;
          box.kind = Primitive::Kind::Box;
          box.centre = toVec3(b.com);
          box.size = toVec3(b.boxSize);
          sb.primitives.push_back(box);
          break;
        }
        case Shape::Type::None: break;
      }
    }
    s.bodies.push_back(std::move(sb));
  }
  for (const auto& j : m.joints) s.joints.push_back({j.name, glyphOf(j.type)});
  for (const auto& f : m.forces)
    if (f.type == Force::Type::Spring) s.springs.push_back({f.name});
  return s;
}

SceneFrame frameFromPoses(const ResolvedMechanism& m, const double* poses, double time) {
  SceneFrame f;
  f.time = time;
  std::vector<Eigen::Matrix3d> R(m.bodies.size());
  std::vector<Eigen::Vector3d> x(m.bodies.size());
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    const double* p = poses + 12 * b;
    R[b] = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(p);
    x[b] = Eigen::Vector3d(p[9], p[10], p[11]);
    f.bodyPoses.push_back(toPose(x[b], R[b]));
  }
  auto point = [&](ItemIndex i) {
    const auto b = static_cast<std::size_t>(i.body);
    return Eigen::Vector3d(x[b] + R[b] * m.bodies[b].points[static_cast<std::size_t>(i.index)]);
  };
  for (const auto& j : m.joints) {
    JointState js;
    const bool sliding = j.type == JointType::Slider || j.type == JointType::Prismatic || j.type == JointType::Cylindrical;
    js.position = toVec3(point(j.points[sliding ? 1 : 0]));
    if (j.axes[0].valid()) {
      const auto b = static_cast<std::size_t>(j.axes[0].body);
      js.axis = toVec3(R[b] * m.bodies[b].vectors[static_cast<std::size_t>(j.axes[0].index)]);
    }
    f.joints.push_back(js);
  }
  for (const auto& force : m.forces)
    if (force.type == Force::Type::Spring) f.springs.push_back({toVec3(point(force.points[0])), toVec3(point(force.points[1]))});
  return f;
}

SceneFrame storedConfigurationFrame(const ResolvedMechanism& m) {
  SceneFrame f;
  for (const auto& b : m.bodies) f.bodyPoses.push_back(toPose(b.position, b.rotation));
  for (const auto& j : m.joints) {
    JointState js;
    // sliding joints are drawn at the moving body's point, the others at the common point
    const bool sliding = j.type == JointType::Slider || j.type == JointType::Prismatic ||
                         j.type == JointType::Cylindrical;
    js.position = toVec3(m.pointWorld(j.points[sliding ? 1 : 0]));
    js.axis = j.axes[0].valid() ? toVec3(m.vectorWorld(j.axes[0])) : Vec3{0, 0, 1};
    f.joints.push_back(js);
  }
  for (const auto& force : m.forces)
    if (force.type == Force::Type::Spring)
      f.springs.push_back({toVec3(m.pointWorld(force.points[0])), toVec3(m.pointWorld(force.points[1]))});
  return f;
}

std::vector<Path> tracedPaths(const ResolvedMechanism& m, const double* poses, std::size_t rows, std::size_t maxPoints) {
  const std::size_t nb = m.bodies.size();
  std::vector<std::vector<char>> jointed(nb);
  for (std::size_t b = 0; b < nb; ++b) jointed[b].assign(m.bodies[b].points.size(), 0);
  for (const auto& j : m.joints)
    for (const ItemIndex& p : j.points)
      if (p.valid()) jointed[static_cast<std::size_t>(p.body)][static_cast<std::size_t>(p.index)] = 1;

  std::vector<ItemIndex> traced;
  for (std::size_t b = 1; b < nb; ++b)
    for (std::size_t i = 0; i < m.bodies[b].points.size(); ++i)
      if (!jointed[b][i]) traced.push_back({static_cast<int>(b), static_cast<int>(i)});
  for (const ItemIndex& p : m.outputPoints)  // the points the file's outputs follow
    if (p.body > 0 && std::find(traced.begin(), traced.end(), p) == traced.end()) traced.push_back(p);
  if (traced.empty())
    for (const auto& j : m.joints)
      if (j.body(0) > 0 && j.body(1) > 0 && j.points[0].valid()) traced.push_back(j.points[0]);

  // a palette that reads on the light background and differs from the body colours
  const Rgb palette[] = {{0.90, 0.45, 0.05}, {0.55, 0.15, 0.65}, {0.05, 0.55, 0.55}, {0.75, 0.10, 0.35}};
  const std::size_t stride = rows > maxPoints && maxPoints > 1 ? (rows + maxPoints - 2) / (maxPoints - 1) : 1;
  std::vector<Path> paths;
  for (const ItemIndex& t : traced) {
    const auto b = static_cast<std::size_t>(t.body);
    Path path;
    path.name = m.bodies[b].name + "." + m.bodies[b].pointNames[static_cast<std::size_t>(t.index)];
    path.color = palette[paths.size() % std::size(palette)];
    const Eigen::Vector3d& local = m.bodies[b].points[static_cast<std::size_t>(t.index)];
    for (std::size_t row = 0; rows > 0; row = std::min(row + stride, rows - 1)) {  // the last row always
      const double* p = poses + (row * nb + b) * 12;
      const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(p);
      path.points.push_back(toVec3(Eigen::Vector3d(p[9], p[10], p[11]) + R * local));
      if (row == rows - 1) break;
    }
    paths.push_back(std::move(path));
  }
  return paths;
}

std::vector<PointColumns> pointVelocityColumns(const std::vector<std::string>& columns) {
  std::vector<PointColumns> out;
  auto find = [&](const std::string& name) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
  };
  for (const std::string& c : columns) {
    if (c.size() < 3 || c.compare(c.size() - 3, 3, ".vx") != 0) continue;
    const std::string base = c.substr(0, c.size() - 2);  // "<body>.<point>."
    PointColumns p;
    for (int k = 0; k < 3; ++k) {
      p.position[k] = find(base + "xyz"[k]);
      p.velocity[k] = find(base + "v" + "xyz"[k]);
    }
    if (p.position[0] >= 0 && p.position[1] >= 0 && p.velocity[1] >= 0) out.push_back(p);
  }
  return out;
}

namespace {
Eigen::Vector3d gather(const int (&cols)[3], const double* row) {
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  for (int k = 0; k < 3; ++k)
    if (cols[k] >= 0) v[k] = row[cols[k]];
  return v;
}
}  // namespace

double velocityArrowScale(const std::vector<PointColumns>& points, const std::vector<double>& values, std::size_t columns,
                          double fraction) {
  if (points.empty() || columns == 0) return 0;
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  double fastest = 0;
  for (std::size_t r = 0; r < values.size() / columns; ++r) {
    const double* row = values.data() + r * columns;
    for (const PointColumns& p : points) {
      const Eigen::Vector3d x = gather(p.position, row);
      lo = lo.cwiseMin(x);
      hi = hi.cwiseMax(x);
      fastest = std::max(fastest, gather(p.velocity, row).norm());
    }
  }
  const double size = (hi - lo).norm();
  return fastest > 0 && std::isfinite(fastest) && size > 0 ? fraction * size / fastest : 0;
}

std::vector<Arrow> velocityArrows(const std::vector<PointColumns>& points, const double* row, double scale) {
  std::vector<Arrow> arrows;
  std::vector<Eigen::Vector3d> placed;
  for (const PointColumns& p : points) {
    const Eigen::Vector3d x = gather(p.position, row);
    bool seen = false;
    for (const auto& q : placed) seen = seen || (q - x).norm() <= 1e-9 * (1 + x.norm());
    if (seen) continue;
    placed.push_back(x);
    arrows.push_back({toVec3(x), toVec3(scale * gather(p.velocity, row)), {0.85, 0.12, 0.12}});
  }
  return arrows;
}

}  // namespace lw::scene
