// Validation and evaluation of a Mechanism: every check that needs more than the JSON syntax.
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <numbers>
#include <set>
#include <sstream>

#include "mechanism/fields.h"
#include "mechanism/resolved.h"
#include "mechanism/resolver.h"

namespace lw {

TimeFunction::TimeFunction(const Expression& f, const ParameterTable& p) {
  // the parameters it uses, by value (not every parameter's name: a model may have 100 000)
  std::vector<std::string> names;
  std::vector<double> values;
  if (!f.empty())
    for (const auto& v : f.variables())
      if (const int k = p.find(v); k >= 0) {
        names.push_back(v);
        values.push_back(p.values()[static_cast<std::size_t>(k)]);
      }
  expr_ = f.empty() ? Expression::constant(0) : f.substitute(names, values);
  const std::string t[] = {"t"};
  f_ = expr_.bind(t);
  const Expression d = expr_.derivative("t");
  df_ = d.bind(t);
  const Expression dd = d.derivative("t");
  ddf_ = dd.bind(t);
  // linear in t when the derivative does not depend on t (the simplified second derivative is 0)
  if (d.isConstant() && dd.isConstant()) {
    const double zero = 0;
    linear_ = true;
    c0_ = f_(std::span<const double>(&zero, 1));
    c1_ = df_(std::span<const double>(&zero, 1));
  }
}

Eigen::Vector3d ResolvedMechanism::pointWorld(ItemIndex p) const {
  const Body& b = bodies[static_cast<std::size_t>(p.body)];
  return b.position + b.rotation * b.points[static_cast<std::size_t>(p.index)];
}

Eigen::Vector3d ResolvedMechanism::storedJointOffset(const Joint& j) const {
  if (!j.points[0].valid() || !j.points[1].valid() || j.points[0].body == j.points[1].body) return Eigen::Vector3d::Zero();
  Eigen::Vector3d gap = pointWorld(j.points[1]) - pointWorld(j.points[0]);
  const bool sliding = j.type == JointType::Slider || j.type == JointType::Prismatic || j.type == JointType::Cylindrical;
  if (sliding) {
    if (!j.axes[0].valid()) return Eigen::Vector3d::Zero();
    const Eigen::Vector3d u = vectorWorld(j.axes[0]);
    gap -= u * u.dot(gap);
  }
  return gap;
}

double ResolvedMechanism::storedJointGap(const Joint& j) const { return storedJointOffset(j).norm(); }

Eigen::Vector3d ResolvedMechanism::vectorWorld(ItemIndex v) const {
  const Body& b = bodies[static_cast<std::size_t>(v.body)];
  return b.rotation * b.vectors[static_cast<std::size_t>(v.index)];
}

double ResolvedMechanism::lengthScale() const {
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e300), hi = -lo;
  bool any = false;
  for (std::size_t b = 0; b < bodies.size(); ++b)
    for (std::size_t i = 0; i < bodies[b].points.size(); ++i) {
      const Eigen::Vector3d p = pointWorld({static_cast<int>(b), static_cast<int>(i)});
      lo = lo.cwiseMin(p);
      hi = hi.cwiseMax(p);
      any = true;
    }
  return any ? std::max((hi - lo).maxCoeff(), 1e-3) : 1.0;
}

double ResolvedMechanism::drawingScale() const {
  const double whole = lengthScale();
  std::vector<double> sizes;  // per moving body: the largest distance between two of its points
  for (std::size_t b = 1; b < bodies.size(); ++b) {
    double size = 0;
    const auto& pts = bodies[b].points;
    for (std::size_t i = 0; i < pts.size(); ++i)
      for (std::size_t j = i + 1; j < pts.size(); ++j) size = std::max(size, (pts[i] - pts[j]).norm());
    if (size > 0) sizes.push_back(size);
  }
  if (sizes.empty()) return whole;
  const auto mid = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2);
  std::nth_element(sizes.begin(), mid, sizes.end());
  return std::clamp(2.5 * *mid, 0.05 * whole, whole);
}

int ResolvedMechanism::findBody(std::string_view name) const {
  for (std::size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].name == name) return static_cast<int>(i);
  return -1;
}

int ResolvedMechanism::findJoint(std::string_view name) const {
  for (std::size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace detail {

std::optional<ResolvedMechanism> Resolver::run() {
  if (m_.dimension != 2 && m_.dimension != 3) {
    error("dimension", "the dimension must be 2 (planar) or 3 (spatial), not " +
                           std::to_string(m_.dimension));
    return std::nullopt;
  }
  dim_ = m_.dimension;
  r_.dimension = dim_;
  checkParameterNames();
  r_.parameters = ParameterTable::build(m_, out_);
  if (!r_.parameters || failed()) return std::nullopt;
  if (!checkFields()) return std::nullopt;

  if (!m_.gravity.empty()) r_.gravity = vec(m_.gravity, "gravity");
  ground();
  bodies();  // even with bad values the names resolve, so every problem is reported at once
  joints();
  drivers();
  forces();
  contacts();
  limits();
  switches();
  initialVelocities();
  independentCoordinates();
  outputsAndCosts();
  analysis();
  if (failed()) return std::nullopt;
  return std::move(r_);
}

void Resolver::checkParameterNames() {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < m_.parameters.size(); ++i) {
    const Parameter& p = m_.parameters[i];
    const std::string path = at("parameters", i) + ".name";
    name(path, p.name, "parameter", seen);
    if (p.name == "t" || p.name == "pi")
      error(path, "'" + p.name + "' is reserved (" +
                      (p.name == "t" ? "the time" : "the constant 3.14159...") +
                      ") and cannot name a parameter");
    if (p.hasMin && p.hasMax && p.min > p.max)
      error(at("parameters", i), "the lower bound " + fmt(p.min) + " exceeds the upper bound " +
                                     fmt(p.max));
  }
}

// every numeric field: known names, time only where allowed, finite value
bool Resolver::checkFields() {
  const std::size_t before = out_.size();
  forEachNumber(m_, [&](const FieldVisit& f) {
    if (f.number.isLiteral()) {
      if (!std::isfinite(f.number.value)) error(f.path, "the number is not finite");
      return;
    }
    bool ok = true;
    for (const auto& v : f.number.expression.variables()) {
      if (v == "t") {
        if (!f.timeAllowed) {
          error(f.path, "the time t can only be used in functions of time (driver functions, "
                        "applied forces and torques)");
          ok = false;
        }
      } else if (r_.parameters->find(v) < 0) {
        error(f.path, "unknown parameter '" + v + "' in the expression '" +
                          f.number.expression.text() + "'");
        ok = false;
      }
    }
    for (const auto& fn : f.number.expression.functions())
      if (fn == "initial") {
        error(f.path, "initial() can only be used in cost expressions");
        ok = false;
      }
    if (!ok) return;
    const double v = num(f.number);
    if (!std::isfinite(v))
      error(f.path, "the expression '" + f.number.expression.text() +
                        "' does not evaluate to a finite number");
  });
  for (std::size_t i = 0; i < m_.parameters.size(); ++i) {
    const Parameter& p = m_.parameters[i];
    const double v = r_.parameters->values()[i];
    if ((p.hasMin && v < p.min) || (p.hasMax && v > p.max))
      warning(at("parameters", i) + ".value", "the value " + fmt(v) + " lies outside its bounds [" +
                                                  (p.hasMin ? fmt(p.min) : "-inf") + ", " +
                                                  (p.hasMax ? fmt(p.max) : "inf") + "]");
  }
  return !hasErrors(Diagnostics(out_.begin() + static_cast<long>(before), out_.end()));
}

void Resolver::ground() {
  ResolvedMechanism::Body g;
  g.name = kGroundName;
  namedItems(m_.ground.points, "ground.points", false, g.pointNames, g.points);
  namedItems(m_.ground.vectors, "ground.vectors", true, g.vectorNames, g.vectors);
  g.color = std::array<double, 3>{0.45, 0.45, 0.48};
  r_.bodies.push_back(std::move(g));
}

std::optional<std::array<double, 3>> Resolver::parseColor(const std::string& c) {
  if (c.size() != 7 || c[0] != '#') return std::nullopt;
  std::array<double, 3> rgb{};
  for (int i = 0; i < 3; ++i) {
    int v = 0;
    for (int k = 0; k < 2; ++k) {
      const char h = c[static_cast<std::size_t>(1 + 2 * i + k)];
      int d = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10
              : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + d;
    }
    rgb[static_cast<std::size_t>(i)] = v / 255.0;
  }
  return rgb;
}

void Resolver::bodies() {
  if (m_.bodies.empty()) {
    error("bodies", "the model has no bodies: a mechanism needs at least one moving body");
    return;
  }
  std::set<std::string> seen{kGroundName};
  for (std::size_t i = 0; i < m_.bodies.size(); ++i) {
    const Body& b = m_.bodies[i];
    const std::string p = at("bodies", i);
    ResolvedMechanism::Body rb;
    rb.name = b.name;
    if (b.name == kGroundName)
      error(p + ".name", "'ground' is the fixed body and cannot name a moving body");
    else
      name(p + ".name", b.name, "body", seen);
    if (!b.position.empty()) rb.position = vec(b.position, p + ".position");
    if (dim_ == 2) {
      rb.rotation = Eigen::AngleAxisd(num(b.angle), Eigen::Vector3d::UnitZ()).toRotationMatrix();
    } else if (!b.rotationAxis.empty()) {
      const Eigen::Vector3d axis = direction(b.rotationAxis, p + ".rotation.axis");
      rb.rotation = Eigen::AngleAxisd(num(b.rotationAngle), axis).toRotationMatrix();
    }
    rb.mass = num(b.mass);
    if (rb.mass < 0)
      error(p + ".mass", "the mass is negative (" + fmt(rb.mass) +
                             " kg); a mass must be zero or positive");
    rb.com = vec(b.com, p + ".com");
    inertia(b, rb, p + ".inertia");
    if (b.points.empty())
      error(p + ".points", "the body has no points: give at least one named point");
    namedItems(b.points, p + ".points", false, rb.pointNames, rb.points);
    namedItems(b.vectors, p + ".vectors", true, rb.vectorNames, rb.vectors);
    rb.shape = b.shape.type;
    rb.width = num(b.shape.width);
    switch (b.shape.type) {
      case Shape::Type::Auto:
        if (rb.width < 0) error(p + ".shape.width", "the width cannot be negative");
        break;
      case Shape::Type::Sphere:
        rb.radius = num(b.shape.radius);
        if (!(rb.radius > 0)) error(p + ".shape.radius", "a sphere needs a positive radius");
        break;
      case Shape::Type::Box:
        rb.boxSize = vec(b.shape.size, p + ".shape.size");
        if (b.shape.size.size() == static_cast<std::size_t>(dim_) &&
            !(rb.boxSize.head(dim_).minCoeff() > 0))
          error(p + ".shape.size", "a box needs positive sizes");
        if (dim_ == 2) rb.boxSize.z() = rb.boxSize.head<2>().minCoeff();
        break;
      case Shape::Type::None: break;
    }
    if (!b.color.empty()) {
      rb.color = parseColor(b.color);
      if (!rb.color) error(p + ".color", "'" + b.color + "' is not a colour of the form \"#rrggbb\"");
    }
    r_.bodies.push_back(std::move(rb));
  }
}

void Resolver::inertia(const Body& b, ResolvedMechanism::Body& rb, const std::string& path) {
  const Inertia& in = b.inertia;
  Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
  if (dim_ == 2) {
    if (in.form != Inertia::Form::Scalar || in.values.size() != 1) {
      error(path, "a planar body's inertia is one number (kg·m² about the centre of mass)");
      return;
    }
    const double izz = num(in.values[0]);
    // a planar body only rotates about Z; the other moments are irrelevant but kept positive
    I = Eigen::Vector3d(izz, izz, izz).asDiagonal();
    if (rb.mass > 0 && !(izz > 0))
      error(path, "the inertia is not positive definite: a body with mass needs a positive "
                  "moment of inertia (found " + fmt(izz) + " kg·m²)");
    else if (rb.mass == 0 && izz < 0)
      error(path, "the moment of inertia is negative (" + fmt(izz) + " kg·m²)");
    rb.inertia = I;
    return;
  }
  if (in.form == Inertia::Form::Scalar) {
    error(path, "a spatial body's inertia is [Ixx, Iyy, Izz] or a 3x3 array");
    return;
  }
  if (in.form == Inertia::Form::Diagonal) {
    if (in.values.size() != 3) return error(path, "expected [Ixx, Iyy, Izz]");
    I = Eigen::Vector3d(num(in.values[0]), num(in.values[1]), num(in.values[2])).asDiagonal();
  } else {
    if (in.values.size() != 9) return error(path, "expected a 3x3 array");
    for (int k = 0; k < 9; ++k) I(k / 3, k % 3) = num(in.values[static_cast<std::size_t>(k)]);
    const double asym = (I - I.transpose()).cwiseAbs().maxCoeff();
    if (asym > 1e-9 * std::max(1.0, I.cwiseAbs().maxCoeff())) {
      error(path, "the inertia matrix is not symmetric");
      return;
    }
  }
  const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I).eigenvalues();
  const double scale = std::max(ev.cwiseAbs().maxCoeff(), 1e-300);
  if (rb.mass > 0 && !(ev.minCoeff() > 1e-12 * scale)) {
    error(path, "the inertia is not positive definite (principal moments " + fmt(ev[0]) + ", " +
                    fmt(ev[1]) + ", " + fmt(ev[2]) +
                    " kg·m²); for a slender bar add a small moment about its axis");
  } else if (ev.minCoeff() < -1e-12 * scale) {
    error(path, "the inertia has a negative principal moment (" + fmt(ev.minCoeff()) + " kg·m²)");
  } else if (ev[0] + ev[1] < ev[2] * (1 - 1e-9)) {
    error(path, "the principal moments " + fmt(ev[0]) + ", " + fmt(ev[1]) + ", " + fmt(ev[2]) +
                    " kg·m² violate the triangle inequality (no real body has them)");
  }
  rb.inertia = I;
}

ItemIndex Resolver::item(const Ref& ref, const std::string& path, bool vector) {
  const int b = bodyByName(ref.body);
  if (b < 0) {
    error(path, "unknown body '" + ref.body + "' in '" + ref.str() + "'");
    return {};
  }
  const auto& body = r_.bodies[static_cast<std::size_t>(b)];
  const auto& names = vector ? body.vectorNames : body.pointNames;
  auto& index = (vector ? vectorIndex_ : pointIndex_)[body.name];  // the ground may have thousands
  if (index.size() != names.size()) {
    index.clear();
    for (std::size_t i = 0; i < names.size(); ++i) index.emplace(names[i], static_cast<int>(i));
  }
  auto it = index.find(ref.item);
  if (it == index.end()) {
    error(path, "body '" + ref.body + "' has no " + (vector ? "vector" : "point") + " named '" +
                    ref.item + "'");
    return {};
  }
  return {b, it->second};
}

void Resolver::joints() {
  std::set<std::string> seen;
  const double tol = 1e-6 * r_.lengthScale();
  for (std::size_t i = 0; i < m_.joints.size(); ++i) {
    const Joint& j = m_.joints[i];
    const std::string p = at("joints", i);
    name(p + ".name", j.name, "joint", seen);
    ResolvedMechanism::Joint rj;
    rj.name = j.name;
    rj.type = j.type;
    if (!jointAllowedIn(j.type, dim_)) {
      const char* hint = dim_ == 2 ? " (planar joints are pin, slider and fixed)"
                                   : " (use revolute instead of pin, prismatic instead of slider)";
      error(p + ".type", std::string("a ") + toString(j.type) + " joint is not allowed in a " +
                             (dim_ == 2 ? "planar" : "spatial") + " model" + hint);
    }
    for (int s = 0; s < 2; ++s)
      rj.points[s] = point(j.points[s], p + ".points[" + std::to_string(s) + "]");
    if (rj.points[0].valid() && rj.points[1].valid()) {
      if (rj.points[0].body == rj.points[1].body)
        error(p + ".points", "the joint connects body '" + j.points[0].body +
                                 "' to itself: its two points must be on different bodies");
    }
    if (jointNeedsAxes(j.type)) {
      if (j.axes.size() != 2) {
        error(p + ".axes", std::string("a ") + toString(j.type) +
                               " joint needs \"axes\": one vector on each body");
      } else {
        for (int s = 0; s < 2; ++s) {
          const std::string ap = p + ".axes[" + std::to_string(s) + "]";
          rj.axes[s] = vector(j.axes[static_cast<std::size_t>(s)], ap);
          if (rj.axes[s].valid() && rj.points[s].valid() && rj.axes[s].body != rj.points[s].body)
            error(ap, "axis " + std::to_string(s + 1) + " must be on the body of point " +
                          std::to_string(s + 1) + " ('" + j.points[s].body + "')");
        }
        if (rj.axes[0].valid() && rj.axes[1].valid()) {
          const double c = r_.vectorWorld(rj.axes[0]).dot(r_.vectorWorld(rj.axes[1]));
          if (j.type == JointType::Universal && std::abs(c) > 1e-6)
            warning(p + ".axes", "the two axes of a universal joint should be perpendicular; "
                                 "their angle is " + fmt(std::acos(std::clamp(c, -1.0, 1.0)) * 180 / std::numbers::pi) + " degrees");
          else if (j.type != JointType::Universal && std::abs(std::abs(c) - 1) > 1e-6)
            warning(p + ".axes", "the two axes should be parallel in the stored configuration");
        }
      }
    } else if (!j.axes.empty()) {
      error(p + ".axes", std::string("a ") + toString(j.type) + " joint takes no axes");
    }
    assemblyWarning(rj, p, tol);
    r_.joints.push_back(rj);
  }
}

// The stored configuration should satisfy the joint: coinciding points, or for sliding
// joints the second point on the first one's axis line. Only a warning: kinematics assembles.
void Resolver::assemblyWarning(const ResolvedMechanism::Joint& j, const std::string& p, double tol) {
  const double gap = r_.storedJointGap(j);
  const bool sliding = j.type == JointType::Slider || j.type == JointType::Prismatic ||
                       j.type == JointType::Cylindrical;
  if (gap > tol)
    warning(p + ".points", std::string(sliding ? "the second point is " : "the two points are ") + fmt(gap) +
                               (sliding ? " m off the sliding axis" : " m apart") +
                               " in the stored configuration; kinematics will assemble them");
}

void Resolver::drivers() {
  std::set<std::string> seen;
  std::map<int, std::string> drivenJoints;
  for (std::size_t i = 0; i < m_.drivers.size(); ++i) {
    const Driver& d = m_.drivers[i];
    const std::string p = at("drivers", i);
    name(p + ".name", d.name, "driver", seen);
    ResolvedMechanism::Driver rd;
    rd.name = d.name;
    rd.type = d.type;
    switch (d.type) {
      case Driver::Type::Joint: {
        rd.joint = jointByName(d.joint, p + ".joint");
        if (rd.joint < 0) break;
        const JointType t = r_.joints[static_cast<std::size_t>(rd.joint)].type;
        if (jointFreedoms(t) != 1)
          error(p + ".joint", "joint '" + d.joint + "' (" + toString(t) +
                                  ") has no single coordinate to drive; drive a pin, slider, "
                                  "revolute or prismatic joint");
        auto [it, inserted] = drivenJoints.emplace(rd.joint, d.name);
        if (!inserted)
          error(p + ".joint", "joint '" + d.joint + "' is already driven by driver '" +
                                  it->second + "'");
        break;
      }
      case Driver::Type::Coordinate:
        rd.point = point(d.point, p + ".point");
        rd.component = componentIndex(d.component, p + ".component");
        if (rd.point.body == 0) error(p + ".point", "a ground point cannot be driven");
        break;
      case Driver::Type::Distance:
        for (int s = 0; s < 2; ++s)
          rd.points[s] = point(d.points[s], p + ".points[" + std::to_string(s) + "]");
        if (rd.points[0].valid() && rd.points[0].body == rd.points[1].body)
          error(p + ".points", "the two points are on the same body: their distance is fixed");
        break;
    }
    rd.function = TimeFunction(d.function.isLiteral() ? Expression::constant(d.function.value)
                                                      : d.function.expression,
                               *r_.parameters);
    r_.drivers.push_back(std::move(rd));
  }
}

}  // namespace detail

std::optional<ResolvedMechanism> resolve(const Mechanism& m, Diagnostics& out) {
  return detail::Resolver(m, out).run();
}

Diagnostics validate(const Mechanism& m) {
  Diagnostics d;
  resolve(m, d);
  return d;
}

}  // namespace lw
