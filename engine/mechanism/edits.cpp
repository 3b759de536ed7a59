#include "mechanism/edits.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numbers>
#include <optional>
#include <set>

#include <Eigen/Geometry>

#include "mechanism/edit_support.h"

namespace lw::edit {
using namespace detail;
namespace {

NumberVector literal(const Eigen::Vector2d& v) { return {Number(v.x()), Number(v.y())}; }

std::vector<NamedVector>* pointsOf(Mechanism& m, const std::string& body) {
  if (body == kGroundName) return &m.ground.points;
  for (auto& b : m.bodies)
    if (b.name == body) return &b.points;
  return nullptr;
}

std::vector<NamedVector>* vectorsOf(Mechanism& m, const std::string& body) {
  if (body == kGroundName) return &m.ground.vectors;
  for (auto& b : m.bodies)
    if (b.name == body) return &b.vectors;
  return nullptr;
}

void dropDependents(Mechanism& m, const std::set<std::string>& bodies, const std::set<std::string>& joints,
                    const std::set<std::string>& groundPoints) {
  auto gone = [&](const Ref& r) {
    return bodies.count(r.body) || (r.body == kGroundName && groundPoints.count(r.item));
  };
  std::erase_if(m.initialVelocities, [&](const InitialVelocity& v) {
    return joints.count(v.joint) || gone(v.point) || bodies.count(v.body);
  });
  std::erase_if(m.independentCoordinates, [&](const IndependentCoordinate& c) { return joints.count(c.joint) || gone(c.point); });
  std::set<std::string> springs;
  std::erase_if(m.forces, [&](const Force& f) {
    const bool drop = gone(f.points[0]) || gone(f.points[1]) || gone(f.point) || bodies.count(f.body) || joints.count(f.joint) ||
                      gone(f.axis) || gone(f.planePoint) || gone(f.planeNormal);
    if (drop) springs.insert(f.name);
    return drop;
  });
  dropOutputs(m, [&](const Output& o) { return gone(o.point) || joints.count(o.joint) || springs.count(o.spring); });
  std::erase_if(m.contacts, [&](const Contact& c) { return gone(c.point) || gone(c.planePoint) || gone(c.planeNormal); });
  std::erase_if(m.limits, [&](const JointLimit& l) { return joints.count(l.joint) > 0; });
  std::erase_if(m.switches, [&](const Switch& s) { return joints.count(s.joint) > 0 || gone(s.point); });
  std::set<std::string> drivers;
  std::erase_if(m.drivers, [&](const Driver& d) {
    const bool drop = joints.count(d.joint) || gone(d.point) || gone(d.points[0]) || gone(d.points[1]);
    if (drop) drivers.insert(d.name);
    return drop;
  });
  dropOutputs(m, [&](const Output& o) { return drivers.count(o.driver) > 0; });
}

}  // namespace

std::vector<SketchPoint> sketchPoints(const ResolvedMechanism& r) {
  std::vector<SketchPoint> out;
  for (std::size_t b = 0; b < r.bodies.size(); ++b) {
    const auto& body = r.bodies[b];
    for (std::size_t i = 0; i < body.points.size(); ++i) {
      const Eigen::Vector3d w = body.position + body.rotation * body.points[i];
      out.push_back({b == 0 ? std::string(kGroundName) : body.name, body.pointNames[i], w.head<2>()});
    }
  }
  return out;
}

std::vector<SketchPoint> sketchPoints(const Mechanism& m) {
  std::vector<SketchPoint> out;
  auto xy = [](const NumberVector& v, Eigen::Vector2d& p) {
    if (v.empty()) {
      p.setZero();
      return true;
    }
    if (v.size() < 2 || !v[0].isLiteral() || !v[1].isLiteral()) return false;
    p = {v[0].value, v[1].value};
    return true;
  };
  for (const auto& p : m.ground.points) {
    Eigen::Vector2d at;
    if (xy(p.value, at)) out.push_back({kGroundName, p.name, at});
  }
  for (const auto& b : m.bodies) {
    Eigen::Vector2d x;
    if (!xy(b.position, x) || !b.angle.isLiteral()) continue;
    const Eigen::Rotation2Dd R(b.angle.value);
    for (const auto& p : b.points) {
      Eigen::Vector2d local;
      if (xy(p.value, local)) out.push_back({b.name, p.name, x + R * local});
    }
  }
  return out;
}

std::optional<SketchPoint> nearestPoint(const std::vector<SketchPoint>& points, const Eigen::Vector2d& at, double radius) {
  // coincident points (a joint): the first listed wins, so ground points before body points
  std::optional<SketchPoint> best;
  double bestDistance = radius;
  for (const auto& p : points) {
    const double d = (p.at - at).norm();
    if (d < bestDistance || (!best && d <= radius)) {
      bestDistance = d;
      best = p;
    }
  }
  return best;
}

std::vector<Eigen::Vector2d> unjoinedCoincidences(const Mechanism& m, const std::vector<SketchPoint>& points, double tolerance) {
  // points joined directly or through other joints at the same place (three bodies on one pin)
  std::vector<std::size_t> parent(points.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  auto find = [&](const Ref& r) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < points.size(); ++i)
      if (points[i].body == r.body && points[i].point == r.item) return i;
    return std::nullopt;
  };
  for (const auto& j : m.joints) {
    const auto a = find(j.points[0]), b = find(j.points[1]);
    if (a && b) parent[root(*a)] = root(*b);
  }
  std::vector<Eigen::Vector2d> out;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t k = i + 1; k < points.size(); ++k) {
      if (points[i].body == points[k].body || (points[i].ground() && points[k].ground())) continue;
      if ((points[i].at - points[k].at).norm() > tolerance || root(i) == root(k)) continue;
      const bool known = std::any_of(out.begin(), out.end(), [&](const Eigen::Vector2d& q) { return (q - points[i].at).norm() <= tolerance; });
      if (!known) out.push_back(points[i].at);
    }
  return out;
}

std::string unusedName(const std::string& stem, const std::function<bool(const std::string&)>& taken) {
  std::string name = stem;
  for (int k = 2; taken(name); ++k) name = stem + "_" + std::to_string(k);
  return name;
}

Mechanism emptyPlanar(const std::string& name) {
  Mechanism m;
  m.name = name;
  m.dimension = 2;
  m.gravity = {Number(0.0), Number(-9.81)};
  return m;
}

EditResult addGroundPoint(Mechanism& m, const Eigen::Vector2d& at) {
  EditResult r;
  if (m.dimension != 2) {
    r.error = "the sketch draws planar mechanisms only";
    return r;
  }
  const std::string name = freshName(m, "O");
  m.ground.points.push_back({name, literal(at)});
  r.ok = true;
  r.item = name;
  r.description = "Add ground pivot " + name;
  return r;
}

EditResult addLink(Mechanism& m, const LinkEnd& a, const LinkEnd& b) {
  EditResult r;
  if (m.dimension != 2) {
    r.error = "the sketch draws planar mechanisms only";
    return r;
  }
  const Eigen::Vector2d A = a.point ? a.point->at : a.at, B = b.point ? b.point->at : b.at;
  const double L = (B - A).norm();
  if (L < 1e-6) {
    r.error = "a link needs two distinct ends";
    return r;
  }
  if (a.point && b.point && a.point->body == b.point->body) {
    r.error = "both ends are on '" + a.point->body + "': the link would be welded to it";
    return r;
  }
  Body link;
  link.name = freshName(m, "link");
  link.position = literal(A);
  link.angle = std::atan2(B.y() - A.y(), B.x() - A.x());
  const double massPerLength = 1.0;  // kg/m: a uniform bar, editable afterwards
  link.mass = massPerLength * L;
  link.com = {Number(L / 2), Number(0.0)};
  link.inertia.form = Inertia::Form::Scalar;
  link.inertia.values = {Number(massPerLength * L * L * L / 12)};
  link.points = {{"P1", {Number(0.0), Number(0.0)}}, {"P2", {Number(L), Number(0.0)}}};
  m.bodies.push_back(link);
  auto pin = [&](const LinkEnd& end, const char* point) {
    if (!end.point) return;
    Joint j;
    j.name = freshName(m, "J");
    j.type = JointType::Pin;
    j.points[0] = {end.point->body, end.point->point};
    j.points[1] = {link.name, point};
    m.joints.push_back(j);
  };
  pin(a, "P1");
  pin(b, "P2");
  r.ok = true;
  r.item = link.name;
  r.description = "Add link " + link.name;
  return r;
}

EditResult addBodyPoint(Mechanism& m, const ResolvedMechanism& res, const std::string& body, const Eigen::Vector2d& at) {
  return addPointAt(m, res, body, Eigen::Vector3d(at.x(), at.y(), 0));
}

EditResult addPointAt(Mechanism& m, const ResolvedMechanism& res, const std::string& body, const Eigen::Vector3d& at) {
  EditResult r;
  auto* points = pointsOf(m, body);
  const auto it = std::find_if(res.bodies.begin(), res.bodies.end(), [&](const auto& b) { return b.name == body; });
  if (!points || body == kGroundName || it == res.bodies.end()) {
    r.error = "no link '" + body + "' here";
    return r;
  }
  std::string name;
  for (int k = 1;; ++k) {
    name = "C" + std::to_string(k);
    if (std::none_of(points->begin(), points->end(), [&](const NamedVector& p) { return p.name == name; })) break;
  }
  const Eigen::Vector3d local = it->rotation.transpose() * (at - it->position);
  NumberVector v{Number(local.x()), Number(local.y())};
  if (m.dimension == 3) v.push_back(Number(local.z()));
  points->push_back({name, v});
  r.ok = true;
  r.item = body + "." + name;
  r.description = "Add point " + r.item;
  return r;
}

EditResult addSlider(Mechanism& m, const SketchPoint& p, const Eigen::Vector2d& direction) {
  EditResult r;
  if (!(direction.norm() > 1e-12) || !direction.allFinite()) {
    r.error = "a slider's guide needs a direction";
    return r;
  }
  if (p.ground()) {
    r.error = "a slider goes on a link's point, not on the ground";
    return r;
  }
  // refused when the point is already held by the ground, directly or through a slider block
  auto slides = [&](const std::string& body) {
    return std::any_of(m.joints.begin(), m.joints.end(), [&](const Joint& j) {
      return j.type == JointType::Slider && ((j.points[0].body == body && j.points[1].body == kGroundName) ||
                                             (j.points[1].body == body && j.points[0].body == kGroundName));
    });
  };
  for (const auto& j : m.joints)
    for (int s = 0; s < 2; ++s)
      if (j.points[s].body == p.body && j.points[s].item == p.point &&
          (j.points[1 - s].body == kGroundName || slides(j.points[1 - s].body))) {
        r.error = "'" + p.body + "." + p.point + "' is already held by the ground";
        return r;
      }
  // the guide: a ground point under the block and a ground direction ("x" for the x axis, shared)
  const std::string guidePoint = freshName(m, "G");
  m.ground.points.push_back({guidePoint, literal(p.at)});
  const Eigen::Vector2d u = direction.normalized();
  const bool alongX = std::abs(u.y()) < 1e-12 && u.x() > 0;
  std::string groundAxis = "x";
  if (alongX) {
    const bool hasX = std::any_of(m.ground.vectors.begin(), m.ground.vectors.end(), [](const NamedVector& v) { return v.name == "x"; });
    if (!hasX) m.ground.vectors.push_back({"x", {Number(1.0), Number(0.0)}});
  } else {
    groundAxis = freshName(m, "guide");
    m.ground.vectors.push_back({groundAxis, literal(u)});
  }
  Body block;
  block.name = freshName(m, "slider");
  block.position = literal(p.at);
  block.mass = 1.0;
  block.com = {Number(0.0), Number(0.0)};
  block.inertia.form = Inertia::Form::Scalar;
  block.inertia.values = {Number(1.0 / 60)};
  block.points = {{"P", {Number(0.0), Number(0.0)}}};
  const std::string blockAxis = alongX ? "x" : "guide";
  block.vectors = {{blockAxis, literal(u)}};
  m.bodies.push_back(block);
  Joint pin;
  pin.name = freshName(m, "J");
  pin.type = JointType::Pin;
  pin.points[0] = {p.body, p.point};
  pin.points[1] = {block.name, "P"};
  m.joints.push_back(pin);
  Joint guide;
  guide.name = freshName(m, "guide");
  guide.type = JointType::Slider;
  guide.points[0] = {kGroundName, guidePoint};
  guide.points[1] = {block.name, "P"};
  guide.axes = {{kGroundName, groundAxis}, {block.name, blockAxis}};
  m.joints.push_back(guide);
  r.ok = true;
  r.item = block.name;
  r.description = "Add slider " + block.name + " on " + p.body + "." + p.point +
                  (alongX ? std::string() : " (guide at " + std::to_string(static_cast<int>(std::lround(std::atan2(u.y(), u.x()) * 180 / std::numbers::pi))) + "°)");
  return r;
}

EditResult addCrankDriver(Mechanism& m, std::string body) {
  EditResult r;
  const Joint* pin = nullptr;
  for (const auto& j : m.joints)
    if ((j.type == JointType::Pin || j.type == JointType::Revolute) &&
        ((j.points[0].body == body && j.points[1].body == kGroundName) || (j.points[1].body == body && j.points[0].body == kGroundName)))
      pin = &j;
  if (!pin) {
    r.error = "'" + body + "' has no pin to the ground: only a link pinned to the ground can be a crank";
    return r;
  }
  // driven already: a second click takes the driver off (the link turns freely again)
  for (auto it = m.drivers.begin(); it != m.drivers.end(); ++it)
    if (it->type == Driver::Type::Joint && it->joint == pin->name) {
      r.item = it->name;
      r.description = "Remove driver " + it->name + " from " + body;
      m.drivers.erase(it);
      r.ok = true;
      return r;
    }
  Driver d;
  d.name = freshName(m, "motor");
  d.type = Driver::Type::Joint;
  d.joint = pin->name;
  d.function = Number::expr("2*pi*t");
  m.drivers.push_back(d);
  r.ok = true;
  r.item = d.name;
  r.description = "Drive " + body + " (" + d.name + ")";
  return r;
}

EditResult movePoint(Mechanism& m, const ResolvedMechanism& res, const SketchPoint& p, const Eigen::Vector2d& to) {
  return movePointTo(m, res, p.body, p.point, Eigen::Vector3d(to.x(), to.y(), 0));
}

namespace {

using ItemName = std::pair<std::string, std::string>;  // (body, point or vector)

// `seed` and every item joined to it through the joints, transitively: pairOf(j) gives a joint's
// two joined items (points, or axes), or nothing
template <class PairOf>
std::set<ItemName> joinedThrough(const Mechanism& m, const ItemName& seed, PairOf&& pairOf) {
  std::set<ItemName> joined{seed};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& j : m.joints) {
      const std::optional<std::array<Ref, 2>> pair = pairOf(j);
      if (!pair) continue;
      for (int s = 0; s < 2; ++s)
        if (joined.count({(*pair)[s].body, (*pair)[s].item}) && joined.insert({(*pair)[1 - s].body, (*pair)[1 - s].item}).second)
          grew = true;
    }
  }
  return joined;
}

// writes world position (or direction) `w` into every item of `items` found by listOf(body), each
// in its body's frame at the stored configuration; false when none exists
template <class ListOf>
bool writeInBodyFrames(Mechanism& m, const ResolvedMechanism& res, const std::set<ItemName>& items, ListOf&& listOf,
                       const Eigen::Vector3d& w, bool direction) {
  bool found = false;
  for (const auto& [b, name] : items) {
    auto* list = listOf(m, b);
    if (!list) continue;
    for (auto& nv : *list) {
      if (nv.name != name) continue;
      Eigen::Vector3d local = w;
      if (b != kGroundName) {
        // body frame at the stored configuration: p = Rᵀ (w − x), u = Rᵀ w
        const auto it = std::find_if(res.bodies.begin(), res.bodies.end(), [&](const auto& rb) { return rb.name == b; });
        if (it == res.bodies.end()) continue;
        local = it->rotation.transpose() * (direction ? w : Eigen::Vector3d(w - it->position));
      }
      nv.value = m.dimension == 3 ? NumberVector{Number(local.x()), Number(local.y()), Number(local.z())} : literal(Eigen::Vector2d(local.head<2>()));
      found = true;
    }
  }
  return found;
}

}  // namespace

EditResult movePointTo(Mechanism& m, const ResolvedMechanism& res, const std::string& body, const std::string& point,
                       const Eigen::Vector3d& to) {
  EditResult r;
  if (!to.allFinite()) {
    r.error = "the new position of '" + body + "." + point + "' is not a finite point";
    return r;
  }
  // the points that coincide with it through joints move together
  const auto moving = joinedThrough(m, {body, point}, [](const Joint& j) { return std::optional<std::array<Ref, 2>>({j.points[0], j.points[1]}); });
  if (!writeInBodyFrames(m, res, moving, pointsOf, to, false)) {
    r.error = "there is no point '" + body + "." + point + "'";
    return r;
  }
  r.ok = true;
  r.item = body + "." + point;
  r.description = "Move " + r.item;
  return r;
}

EditResult turnVectorTo(Mechanism& m, const ResolvedMechanism& res, const std::string& body, const std::string& vector,
                        const Eigen::Vector3d& direction) {
  EditResult r;
  Eigen::Vector3d u = direction;
  if (m.dimension != 3) u.z() = 0;
  if (!u.allFinite() || !(u.norm() > 1e-12)) {
    r.error = "the new direction of '" + body + "." + vector + "' is not a direction";
    return r;
  }
  u.normalize();
  // the axes joints keep parallel to it turn with it (not across a universal joint: perpendicular)
  const auto turning = joinedThrough(m, {body, vector}, [](const Joint& j) {
    if (j.axes.size() != 2 || j.type == JointType::Universal) return std::optional<std::array<Ref, 2>>();
    return std::optional<std::array<Ref, 2>>({j.axes[0], j.axes[1]});
  });
  if (!writeInBodyFrames(m, res, turning, vectorsOf, u, true)) {
    r.error = "there is no vector '" + body + "." + vector + "'";
    return r;
  }
  r.ok = true;
  r.item = body + "." + vector;
  r.description = "Turn " + r.item + (turning.size() > 1 ? " (and the joint axes parallel to it)" : "");
  return r;
}

EditResult addBody(Mechanism& m) {
  EditResult r;
  Body b;
  b.name = freshName(m, "body");
  b.mass = 1.0;
  const std::size_t dim = m.dimension == 3 ? 3 : 2;
  b.com = NumberVector(dim, Number(0.0));
  b.inertia.form = dim == 3 ? Inertia::Form::Diagonal : Inertia::Form::Scalar;
  b.inertia.values = NumberVector(dim == 3 ? 3 : 1, Number(0.1));
  b.points = {{"O", NumberVector(dim, Number(0.0))}};
  if (dim == 3) b.vectors = {{"z", {Number(0.0), Number(0.0), Number(1.0)}}};
  m.bodies.push_back(b);
  r.ok = true;
  r.item = b.name;
  r.description = "Add body " + b.name;
  return r;
}

EditResult addPoint(Mechanism& m, std::string body) {
  EditResult r;
  auto* points = pointsOf(m, body);
  if (!points) {
    r.error = "there is no body '" + body + "'";
    return r;
  }
  std::string name;
  for (int k = 1;; ++k) {
    name = "P" + std::to_string(k);
    if (std::none_of(points->begin(), points->end(), [&](const NamedVector& p) { return p.name == name; })) break;
  }
  points->push_back({name, NumberVector(m.dimension == 3 ? 3 : 2, Number(0.0))});
  r.ok = true;
  r.item = body + "." + name;
  r.description = "Add point " + r.item;
  return r;
}

EditResult addVector(Mechanism& m, std::string body) {
  EditResult r;
  std::vector<NamedVector>* vectors = nullptr;
  if (body == kGroundName) vectors = &m.ground.vectors;
  for (auto& b : m.bodies)
    if (b.name == body) vectors = &b.vectors;
  if (!vectors) {
    r.error = "there is no body '" + body + "'";
    return r;
  }
  std::string name;
  for (int k = 1;; ++k) {
    name = "u" + std::to_string(k);
    if (std::none_of(vectors->begin(), vectors->end(), [&](const NamedVector& v) { return v.name == name; })) break;
  }
  vectors->push_back({name, m.dimension == 3 ? NumberVector{Number(0.0), Number(0.0), Number(1.0)} : NumberVector{Number(1.0), Number(0.0)}});
  r.ok = true;
  r.item = body + "." + name;
  r.description = "Add vector " + r.item;
  return r;
}

EditResult addJoint(Mechanism& m, JointType type, const Ref& a, const Ref& b, const std::vector<Ref>& axes) {
  EditResult r;
  if (a.body == b.body) {
    r.error = "both points are on '" + a.body + "': a joint connects two bodies";
    return r;
  }
  Joint j;
  j.name = freshName(m, "J");
  j.type = type;
  j.points[0] = a;
  j.points[1] = b;
  j.axes = axes;
  m.joints.push_back(j);
  r.ok = true;
  r.item = j.name;
  r.description = std::string("Add ") + toString(type) + " joint " + j.name;
  return r;
}

EditResult changeJoint(Mechanism& m, std::string joint, JointType type, const Ref& a, const Ref& b,
                       const std::vector<Ref>& axes) {
  EditResult r;
  const auto it = std::find_if(m.joints.begin(), m.joints.end(), [&](const Joint& j) { return j.name == joint; });
  if (it == m.joints.end()) {
    r.error = "there is no joint '" + joint + "'";
    return r;
  }
  if (a.body == b.body) {
    r.error = "both points are on '" + a.body + "': a joint connects two bodies";
    return r;
  }
  const JointType before = it->type;
  it->type = type;
  it->points[0] = a;
  it->points[1] = b;
  it->axes = axes;
  r.ok = true;
  r.item = joint;
  r.description = "Change joint " + joint +
                  (before == type ? std::string(" (connections)") : std::string(": ") + toString(before) + " to " + toString(type));
  return r;
}

namespace {

// every reference to a point or vector of a body, in one place
template <class Fn>
void forEachRef(Mechanism& m, Fn&& fn) {
  for (auto& j : m.joints) {
    fn(j.points[0]), fn(j.points[1]);
    for (auto& a : j.axes) fn(a);
  }
  for (auto& d : m.drivers) fn(d.point), fn(d.points[0]), fn(d.points[1]);
  for (auto& f : m.forces) fn(f.points[0]), fn(f.points[1]), fn(f.point), fn(f.axis), fn(f.planePoint), fn(f.planeNormal);
  for (auto& c : m.contacts) fn(c.point), fn(c.planePoint), fn(c.planeNormal);
  for (auto& s : m.switches) fn(s.point);
  for (auto& v : m.initialVelocities) fn(v.point);
  for (auto& c : m.independentCoordinates) fn(c.point);
  for (auto& o : m.outputs) fn(o.point);
}

}  // namespace

bool validName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

EditResult renameItem(Mechanism& m, std::string path, std::string name) {
  EditResult r;
  if (!validName(name)) {
    r.error = "'" + name + "' is not a name: letters, digits and _, starting with a letter or _";
    return r;
  }
  auto index = [&](const std::string& list) -> long {  // "bodies[2]..." → 2
    if (path.rfind(list + "[", 0) != 0) return -1;
    return std::stol(path.substr(list.size() + 1));
  };
  std::string old;
  if (const long b = index("bodies"); b >= 0 && path.find(".points.") != std::string::npos) {
    auto& body = m.bodies.at(static_cast<std::size_t>(b));
    old = path.substr(path.find(".points.") + 8);
    for (auto& p : body.points)
      if (p.name == old) p.name = name;
    forEachRef(m, [&](Ref& ref) {
      if (ref.body == body.name && ref.item == old) ref.item = name;
    });
  } else if (b >= 0 && path.find(".vectors.") != std::string::npos) {
    auto& body = m.bodies.at(static_cast<std::size_t>(b));
    old = path.substr(path.find(".vectors.") + 9);
    for (auto& v : body.vectors)
      if (v.name == old) v.name = name;
    forEachRef(m, [&](Ref& ref) {
      if (ref.body == body.name && ref.item == old) ref.item = name;
    });
  } else if (b >= 0) {
    auto& body = m.bodies.at(static_cast<std::size_t>(b));
    old = body.name;
    body.name = name;
    forEachRef(m, [&](Ref& ref) {
      if (ref.body == old) ref.body = name;
    });
    for (auto& f : m.forces)
      if (f.body == old) f.body = name;
    for (auto& v : m.initialVelocities)
      if (v.body == old) v.body = name;
    for (auto& o : m.outputs)
      if (o.on == old) o.on = name;
  } else if (path.rfind("ground.points.", 0) == 0 || path.rfind("ground.vectors.", 0) == 0) {
    const bool points = path.rfind("ground.points.", 0) == 0;
    old = path.substr(points ? 14 : 15);
    for (auto& p : points ? m.ground.points : m.ground.vectors)
      if (p.name == old) p.name = name;
    forEachRef(m, [&](Ref& ref) {
      if (ref.body == kGroundName && ref.item == old) ref.item = name;
    });
  } else if (const long j = index("joints"); j >= 0) {
    auto& joint = m.joints.at(static_cast<std::size_t>(j));
    old = joint.name;
    joint.name = name;
    for (auto& d : m.drivers)
      if (d.joint == old) d.joint = name;
    for (auto& f : m.forces)
      if (f.joint == old) f.joint = name;
    for (auto& v : m.initialVelocities)
      if (v.joint == old) v.joint = name;
    for (auto& c : m.independentCoordinates)
      if (c.joint == old) c.joint = name;
    for (auto& o : m.outputs)
      if (o.joint == old) o.joint = name;
    for (auto& l : m.limits)
      if (l.joint == old) l.joint = name;
    for (auto& s : m.switches)
      if (s.joint == old) s.joint = name;
  } else if (const long d = index("drivers"); d >= 0) {
    old = m.drivers.at(static_cast<std::size_t>(d)).name;
    m.drivers[static_cast<std::size_t>(d)].name = name;
    for (auto& o : m.outputs)
      if (o.driver == old) o.driver = name;
  } else if (const long f = index("forces"); f >= 0) {
    old = m.forces.at(static_cast<std::size_t>(f)).name;
    m.forces[static_cast<std::size_t>(f)].name = name;
    for (auto& o : m.outputs)
      if (o.spring == old) o.spring = name;
    for (auto& sw : m.switches)
      for (auto* names : {&sw.enable, &sw.disable}) std::replace(names->begin(), names->end(), old, name);
  } else {
    r.error = "this item cannot be renamed here";
    return r;
  }
  r.ok = true;
  r.item = name;
  r.description = "Rename " + old + " to " + name;
  return r;
}

EditResult deleteJoint(Mechanism& m, std::string joint) {
  EditResult r;
  const auto it = std::find_if(m.joints.begin(), m.joints.end(), [&](const Joint& j) { return j.name == joint; });
  if (it == m.joints.end()) {
    r.error = "there is no joint '" + joint + "'";
    return r;
  }
  m.joints.erase(it);
  dropDependents(m, {}, {joint}, {});
  r.ok = true;
  r.item = joint;
  r.description = "Delete joint " + joint;
  return r;
}

EditResult deleteBody(Mechanism& m, std::string body) {
  EditResult r;
  const auto it = std::find_if(m.bodies.begin(), m.bodies.end(), [&](const Body& b) { return b.name == body; });
  if (it == m.bodies.end()) {
    r.error = "there is no body '" + body + "'";
    return r;
  }
  m.bodies.erase(it);
  std::set<std::string> joints;
  std::erase_if(m.joints, [&](const Joint& j) {
    const bool drop = j.points[0].body == body || j.points[1].body == body;
    if (drop) joints.insert(j.name);
    return drop;
  });
  dropDependents(m, {body}, joints, {});
  r.ok = true;
  r.item = body;
  r.description = "Delete " + body;
  return r;
}

EditResult deleteGroundPoint(Mechanism& m, std::string point) {
  EditResult r;
  const auto it = std::find_if(m.ground.points.begin(), m.ground.points.end(), [&](const NamedVector& p) { return p.name == point; });
  if (it == m.ground.points.end()) {
    r.error = "there is no ground point '" + point + "'";
    return r;
  }
  m.ground.points.erase(it);
  std::set<std::string> joints;
  std::erase_if(m.joints, [&](const Joint& j) {
    const bool drop = (j.points[0].body == kGroundName && j.points[0].item == point) || (j.points[1].body == kGroundName && j.points[1].item == point);
    if (drop) joints.insert(j.name);
    return drop;
  });
  dropDependents(m, {}, joints, {point});
  r.ok = true;
  r.item = point;
  r.description = "Delete ground pivot " + point;
  return r;
}



// ---- drivers and forces ----
}  // namespace lw::edit
