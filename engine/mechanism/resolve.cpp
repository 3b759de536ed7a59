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

namespace {

std::string at(const char* list, std::size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

class Resolver {
 public:
  Resolver(const Mechanism& m, Diagnostics& out) : m_(m), out_(out) {}

  std::optional<ResolvedMechanism> run() {
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

 private:
  // ---- reporting ----
  void error(std::string path, std::string msg) {
    out_.push_back({Diagnostic::Severity::Error, std::move(path), std::move(msg)});
  }
  void warning(std::string path, std::string msg) {
    out_.push_back({Diagnostic::Severity::Warning, std::move(path), std::move(msg)});
  }
  bool failed() const { return hasErrors(out_); }

  // ---- numbers ----
  double num(const Number& n) const { return r_.parameters->evaluate(n); }

  Eigen::Vector3d vec(const NumberVector& v, const std::string& path) {
    Eigen::Vector3d x = Eigen::Vector3d::Zero();
    if (static_cast<int>(v.size()) != dim_) {
      error(path, "expected " + std::to_string(dim_) + " components in a " +
                      (dim_ == 2 ? "planar" : "spatial") + " model, found " +
                      std::to_string(v.size()));
      return x;
    }
    for (int i = 0; i < dim_; ++i) x[i] = num(v[static_cast<std::size_t>(i)]);
    return x;
  }
  Eigen::Vector3d direction(const NumberVector& v, const std::string& path) {
    Eigen::Vector3d x = vec(v, path);
    if (static_cast<int>(v.size()) != dim_) return x;
    const double n = x.norm();
    if (!(n > 1e-12)) {
      error(path, "a direction cannot have zero length");
      return Eigen::Vector3d::UnitX();
    }
    return x / n;
  }

  void name(const std::string& path, const std::string& n, const char* what,
            std::set<std::string>& seen) {
    if (!isIdentifier(n)) {
      error(path, "'" + n + "' is not a valid " + what +
                      " name: use letters, digits and '_', starting with a letter or '_'");
      return;
    }
    const bool vowel = std::string("aeiou").find(what[0]) != std::string::npos;
    if (!seen.insert(n).second) error(path, std::string("there is already ") + (vowel ? "an " : "a ") + what + " named '" + n + "'");
  }

  void checkParameterNames() {
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
  bool checkFields() {
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

  void namedItems(const std::vector<NamedVector>& items, const std::string& path, bool directions,
                  std::vector<std::string>& names, std::vector<Eigen::Vector3d>& values) {
    std::set<std::string> seen;
    for (const auto& it : items) {
      const std::string p = path + "." + it.name;
      name(p, it.name, directions ? "vector" : "point", seen);
      names.push_back(it.name);
      values.push_back(directions ? direction(it.value, p) : vec(it.value, p));
    }
  }

  void ground() {
    ResolvedMechanism::Body g;
    g.name = kGroundName;
    namedItems(m_.ground.points, "ground.points", false, g.pointNames, g.points);
    namedItems(m_.ground.vectors, "ground.vectors", true, g.vectorNames, g.vectors);
    g.color = std::array<double, 3>{0.45, 0.45, 0.48};
    r_.bodies.push_back(std::move(g));
  }

  static std::optional<std::array<double, 3>> parseColor(const std::string& c) {
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

  void bodies() {
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

  void inertia(const Body& b, ResolvedMechanism::Body& rb, const std::string& path) {
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

  // ---- references (hashed: large generated models have thousands of them) ----
  int bodyByName(const std::string& n) {
    if (bodyIndex_.size() != r_.bodies.size()) {
      bodyIndex_.clear();
      for (std::size_t i = 0; i < r_.bodies.size(); ++i)
        bodyIndex_.emplace(r_.bodies[i].name, static_cast<int>(i));
    }
    auto it = bodyIndex_.find(n);
    return it == bodyIndex_.end() ? -1 : it->second;
  }

  ItemIndex item(const Ref& ref, const std::string& path, bool vector) {
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
  ItemIndex point(const Ref& r, const std::string& path) { return item(r, path, false); }
  ItemIndex vector(const Ref& r, const std::string& path) { return item(r, path, true); }

  int jointByName(const std::string& n, const std::string& path) {
    if (jointIndex_.size() != r_.joints.size()) {
      jointIndex_.clear();
      for (std::size_t i = 0; i < r_.joints.size(); ++i)
        jointIndex_.emplace(r_.joints[i].name, static_cast<int>(i));
    }
    auto it = jointIndex_.find(n);
    const int j = it == jointIndex_.end() ? -1 : it->second;
    if (j < 0) error(path, "unknown joint '" + n + "'");
    return j;
  }
  int componentIndex(Component c, const std::string& path) {
    const int i = static_cast<int>(c);
    if (i >= dim_) error(path, "a planar model has no z component");
    return i;
  }

  void joints() {
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
  void assemblyWarning(const ResolvedMechanism::Joint& j, const std::string& p, double tol) {
    const double gap = r_.storedJointGap(j);
    const bool sliding = j.type == JointType::Slider || j.type == JointType::Prismatic ||
                         j.type == JointType::Cylindrical;
    if (gap > tol)
      warning(p + ".points", std::string(sliding ? "the second point is " : "the two points are ") + fmt(gap) +
                                 (sliding ? " m off the sliding axis" : " m apart") +
                                 " in the stored configuration; kinematics will assemble them");
  }

  void drivers() {
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

  TimeFunction timeFunction(const Number& n) {
    return TimeFunction(n.isLiteral() ? Expression::constant(n.value) : n.expression,
                        *r_.parameters);
  }

  void nonNegative(double v, const std::string& path, const char* what) {
    if (v < 0) error(path, std::string("the ") + what + " cannot be negative (" + fmt(v) + ")");
  }

  void forces() {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < m_.forces.size(); ++i) {
      const Force& f = m_.forces[i];
      const std::string p = at("forces", i);
      name(p + ".name", f.name, "force", seen);
      ResolvedMechanism::Force rf;
      rf.name = f.name;
      rf.type = f.type;
      rf.frame = f.frame;
      switch (f.type) {
        case Force::Type::Spring:
          for (int s = 0; s < 2; ++s)
            rf.points[s] = point(f.points[s], p + ".points[" + std::to_string(s) + "]");
          if (rf.points[0].valid() && rf.points[0].body == rf.points[1].body)
            error(p + ".points", "both ends of the spring are on body '" + f.points[0].body +
                                     "': it would exert no force");
          rf.stiffness = num(f.stiffness);
          rf.damping = num(f.damping);
          rf.naturalLength = num(f.naturalLength);
          nonNegative(rf.stiffness, p + ".stiffness", "stiffness");
          nonNegative(rf.damping, p + ".damping", "damping");
          nonNegative(rf.naturalLength, p + ".natural_length", "natural length");
          rf.actuatorForce = timeFunction(f.actuatorForce);
          break;
        case Force::Type::TorsionSpring: {
          rf.joint = jointByName(f.joint, p + ".joint");
          if (rf.joint >= 0) {
            const JointType t = r_.joints[static_cast<std::size_t>(rf.joint)].type;
            if (t != JointType::Pin && t != JointType::Revolute && t != JointType::Cylindrical)
              error(p + ".joint", "a torsion spring needs a pin, revolute or cylindrical joint; '" +
                                      f.joint + "' is " + toString(t));
          }
          rf.stiffness = num(f.stiffness);
          rf.damping = num(f.damping);
          rf.naturalAngle = num(f.naturalAngle);
          nonNegative(rf.stiffness, p + ".stiffness", "stiffness");
          nonNegative(rf.damping, p + ".damping", "damping");
          break;
        }
        case Force::Type::PointForce:
          rf.point = point(f.point, p + ".point");
          if (static_cast<int>(f.value.size()) != dim_)
            error(p + ".value", "expected " + std::to_string(dim_) + " force components");
          for (const auto& c : f.value) rf.value.push_back(timeFunction(c));
          break;
        case Force::Type::Torque:
          rf.body = bodyByName(f.body);
          if (rf.body < 0) error(p + ".body", "unknown body '" + f.body + "'");
          else if (rf.body == 0) error(p + ".body", "a torque on the ground has no effect");
          if (f.value.size() != (dim_ == 2 ? 1u : 3u))
            error(p + ".value", dim_ == 2 ? "a planar torque is one number"
                                          : "a spatial torque has three components");
          for (const auto& c : f.value) rf.value.push_back(timeFunction(c));
          break;
        case Force::Type::Tyre:
          if (dim_ != 3) error(p + ".type", "a tyre needs a spatial (3D) model");
          rf.point = point(f.point, p + ".point");
          rf.axis = vector(f.axis, p + ".axis");
          rf.planePoint = point(f.planePoint, p + ".plane_point");
          rf.planeNormal = vector(f.planeNormal, p + ".plane_normal");
          if (rf.point.valid() && rf.axis.valid() && rf.point.body != rf.axis.body)
            error(p + ".axis", "the wheel's centre and spin axis must be on the same body");
          if (rf.point.valid() && rf.point.body == 0) error(p + ".point", "the wheel cannot be the ground");
          if (rf.planePoint.valid() && rf.planeNormal.valid() && rf.planePoint.body != rf.planeNormal.body)
            error(p + ".plane_normal", "the plane's point and normal must be on the same body");
          if (rf.point.valid() && rf.planePoint.valid() && rf.point.body == rf.planePoint.body)
            error(p + ".point", "the wheel and the plane are on the same body");
          rf.radius = num(f.radius);
          if (!(rf.radius > 0)) error(p + ".radius", "the tyre radius must be positive (found " + fmt(rf.radius) + ")");
          rf.stiffness = num(f.stiffness);
          rf.damping = num(f.damping);
          rf.friction = num(f.friction);
          rf.slipVelocity = num(f.slipVelocity);
          nonNegative(rf.stiffness, p + ".stiffness", "stiffness");
          nonNegative(rf.damping, p + ".damping", "damping");
          nonNegative(rf.friction, p + ".friction", "friction coefficient");
          if (!(rf.slipVelocity > 0))
            error(p + ".slip_velocity", "the slip velocity that regularises friction must be positive (found " + fmt(rf.slipVelocity) + ")");
          break;
      }
      r_.forces.push_back(std::move(rf));
    }
  }

  void contacts() {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < m_.contacts.size(); ++i) {
      const Contact& c = m_.contacts[i];
      const std::string p = at("contacts", i);
      name(p + ".name", c.name, "contact", seen);
      ResolvedMechanism::Contact rc;
      rc.name = c.name;
      rc.law = c.law;
      rc.point = point(c.point, p + ".point");
      rc.planePoint = point(c.planePoint, p + ".plane_point");
      rc.planeNormal = vector(c.planeNormal, p + ".plane_normal");
      if (rc.planePoint.valid() && rc.planeNormal.valid() && rc.planePoint.body != rc.planeNormal.body)
        error(p + ".plane_normal", "the plane's point and normal must be on the same body");
      if (rc.point.valid() && rc.planePoint.valid() && rc.point.body == rc.planePoint.body)
        error(p + ".point", "the contact point and the plane are on the same body");
      rc.radius = num(c.radius);
      nonNegative(rc.radius, p + ".radius", "radius");
      rc.restitution = num(c.restitution);
      if (rc.restitution < 0 || rc.restitution > 1)
        error(p + ".restitution", "the coefficient of restitution must lie between 0 and 1 (found " +
                                      fmt(rc.restitution) + ")");
      // a point inside its plane in the stored configuration: every dynamic run refuses to start
      if (rc.point.valid() && rc.planePoint.valid() && rc.planeNormal.valid() && !failed()) {
        auto world = [&](ItemIndex q, bool isVector) {
          const auto& b = r_.bodies[static_cast<std::size_t>(q.body)];
          const Eigen::Vector3d local = isVector ? b.vectors[static_cast<std::size_t>(q.index)] : b.points[static_cast<std::size_t>(q.index)];
          const Eigen::Vector3d turned = b.rotation * local;
          return isVector ? turned : Eigen::Vector3d(b.position + turned);
        };
        const Eigen::Vector3d n = world(rc.planeNormal, true);
        if (n.norm() > 0) {
          const double gap = (world(rc.point, false) - world(rc.planePoint, false)).dot(n.normalized()) - rc.radius;
          if (gap < -1e-6 * std::max(1e-3, r_.lengthScale()))
            warning(p, "the point starts " + fmt(-gap) + " m inside the plane in the stored configuration: every dynamic run refuses to "
                       "start so; move it out (or the plane)");
        }
      }
      r_.contacts.push_back(rc);
    }
  }

  void limits() {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < m_.limits.size(); ++i) {
      const JointLimit& l = m_.limits[i];
      const std::string p = at("limits", i);
      name(p + ".name", l.name, "limit", seen);
      ResolvedMechanism::Limit rl;
      rl.name = l.name;
      rl.law = l.law;
      rl.joint = r_.findJoint(l.joint);
      if (rl.joint < 0) {
        error(p + ".joint", "no joint named '" + l.joint + "'");
      } else {
        const JointType type = r_.joints[static_cast<std::size_t>(rl.joint)].type;
        if (type != JointType::Pin && type != JointType::Revolute && type != JointType::Slider && type != JointType::Prismatic)
          error(p + ".joint", "a limit stops a joint of one coordinate (pin, revolute, slider, prismatic), not a " +
                                  std::string(toString(type)) + " joint");
      }
      rl.hasMin = l.hasMin;
      rl.hasMax = l.hasMax;
      if (!l.hasMin && !l.hasMax) error(p, "a limit needs \"min\", \"max\" or both");
      if (l.hasMin) rl.min = num(l.min);
      if (l.hasMax) rl.max = num(l.max);
      if (l.hasMin && l.hasMax && !(rl.min < rl.max))
        error(p + ".max", "the upper limit (" + fmt(rl.max) + ") must be above the lower one (" + fmt(rl.min) + ")");
      rl.restitution = num(l.restitution);
      if (rl.restitution < 0 || rl.restitution > 1)
        error(p + ".restitution", "the coefficient of restitution must lie between 0 and 1 (found " + fmt(rl.restitution) + ")");
      // beyond the limit in the stored configuration: every dynamic run refuses to start so
      if (rl.joint >= 0 && !failed()) {
        const auto& jt = r_.joints[static_cast<std::size_t>(rl.joint)];
        const auto& b1 = r_.bodies[static_cast<std::size_t>(jt.body(0))];
        const auto& b2 = r_.bodies[static_cast<std::size_t>(jt.body(1))];
        double q = 0;  // the coordinate as outputs and limits read it (a spatial revolute's: 0 here)
        bool known = true;
        if (jt.type == JointType::Pin) {
          const Eigen::Matrix3d rel = b1.rotation.transpose() * b2.rotation;
          q = std::atan2(rel(1, 0), rel(0, 0));
        } else if (jt.type == JointType::Slider || jt.type == JointType::Prismatic) {
          known = jt.axes[0].valid() && jt.points[0].valid() && jt.points[1].valid();
          if (known) {
            const Eigen::Vector3d p1 = b1.position + b1.rotation * b1.points[static_cast<std::size_t>(jt.points[0].index)];
            const Eigen::Vector3d p2 = b2.position + b2.rotation * b2.points[static_cast<std::size_t>(jt.points[1].index)];
            q = (p2 - p1).dot((b1.rotation * b1.vectors[static_cast<std::size_t>(jt.axes[0].index)]).normalized());
          }
        }
        const double tol = 1e-6 * std::max(1e-3, r_.lengthScale());
        const double beyond = !known ? 0.0 : rl.hasMin && q < rl.min - tol ? rl.min - q : rl.hasMax && q > rl.max + tol ? q - rl.max : 0.0;
        if (beyond > 0)
          warning(p, "joint '" + l.joint + "' starts " + fmt(beyond) + " beyond the limit in the stored configuration (at " + fmt(q) +
                         "): every dynamic run refuses to start so; assemble it within its limits");
      }
      r_.limits.push_back(rl);
    }
  }

  void switches() {
    std::set<std::string> seen;
    auto forceIndex = [&](const std::string& name) {
      for (std::size_t k = 0; k < m_.forces.size(); ++k)
        if (m_.forces[k].name == name) return static_cast<int>(k);
      return -1;
    };
    for (std::size_t i = 0; i < m_.switches.size(); ++i) {
      const Switch& s = m_.switches[i];
      const std::string p = at("switches", i);
      name(p + ".name", s.name, "switch", seen);
      ResolvedMechanism::Switch rs;
      rs.name = s.name;
      rs.falling = s.falling;
      rs.value = num(s.value);
      if (s.point.empty() == s.joint.empty()) {
        error(p, "a switch watches a point's coordinate (\"point\", \"component\") or a joint's (\"joint\"): give one of them");
      } else if (!s.point.empty()) {
        rs.point = point(s.point, p + ".point");
        rs.component = static_cast<int>(s.component);
        if (rs.component >= dim_) error(p + ".component", "a planar mechanism has no z coordinate");
      } else {
        rs.joint = r_.findJoint(s.joint);
        if (rs.joint < 0) error(p + ".joint", "no joint named '" + s.joint + "'");
        else if (jointFreedoms(r_.joints[static_cast<std::size_t>(rs.joint)].type) != 1)
          error(p + ".joint", "a switch watches a joint of one coordinate (pin, revolute, slider, prismatic), not a " +
                                  std::string(toString(r_.joints[static_cast<std::size_t>(rs.joint)].type)) + " joint (watch a point instead)");
      }
      for (const auto* list : {&s.enable, &s.disable})
        for (std::size_t k = 0; k < list->size(); ++k) {
          const std::string q = p + (list == &s.enable ? ".enable[" : ".disable[") + std::to_string(k) + "]";
          const int f = forceIndex((*list)[k]);
          if (f < 0) {
            error(q, "no force named '" + (*list)[k] + "'");
            continue;
          }
          const auto type = m_.forces[static_cast<std::size_t>(f)].type;
          if (type != Force::Type::PointForce && type != Force::Type::Torque)
            error(q, "a switch turns point forces and torques on and off (force '" + (*list)[k] + "' is a " + toString(type) + ")");
          (list == &s.enable ? rs.enable : rs.disable).push_back(f);
          if (list == &s.enable && static_cast<std::size_t>(f) < r_.forces.size()) r_.forces[static_cast<std::size_t>(f)].startsActive = false;
        }
      if (s.enable.empty() && s.disable.empty()) error(p, "a switch needs forces to \"enable\" or \"disable\"");
      for (const auto& f : s.enable)
        if (std::find(s.disable.begin(), s.disable.end(), f) != s.disable.end())
          error(p + ".disable", "force '" + f + "' is both enabled and disabled by the switch: name it in one list");
      r_.switches.push_back(rs);
    }
  }

  // a joint coordinate or a point's world coordinate; returns the point (invalid for joints)
  ItemIndex coordinateRef(bool isJoint, const std::string& joint, const Ref& pt, Component comp,
                          const std::string& p) {
    if (isJoint) {
      const int j = jointByName(joint, p + ".joint");
      if (j >= 0 && r_.joints[static_cast<std::size_t>(j)].type == JointType::Fixed)
        error(p + ".joint", "joint '" + joint + "' is fixed and has no coordinate");
      return {};
    }
    const ItemIndex ix = point(pt, p + ".point");
    componentIndex(comp, p + ".component");
    if (ix.valid() && ix.body == 0) error(p + ".point", "a ground point does not move");
    return ix;
  }

  void initialVelocities() {
    std::map<std::string, std::size_t> given;  // what each rate sets ("joint O", "point bar.P x"): once
    for (std::size_t i = 0; i < m_.initialVelocities.size(); ++i) {
      const InitialVelocity& v = m_.initialVelocities[i];
      const std::string p = at("initial_velocities", i);
      const std::string what = v.type == InitialVelocity::Type::Body    ? "body '" + v.body + "'"
                               : v.type == InitialVelocity::Type::Joint ? "joint '" + v.joint + "'"
                                                                        : "point '" + v.point.str() + "' " + "xyz"[static_cast<int>(v.component)];
      if (const auto [it, fresh] = given.emplace(what, i); !fresh) {
        // two values for one rate were averaged by the least squares
        error(p, "the " + what + " already has an initial rate (" + at("initial_velocities", it->second) + "): give each rate once");
        continue;
      }
      ResolvedMechanism::InitialRate rate;
      rate.type = v.type;
      if (v.type == InitialVelocity::Type::Body) {
        const int b = bodyByName(v.body);
        if (b < 0) error(p + ".body", "unknown body '" + v.body + "'");
        else if (b == 0) error(p + ".body", "the ground does not move");
        rate.body = b;
        if (!v.velocity.empty()) rate.velocity = vec(v.velocity, p + ".velocity");
        if (v.angularVelocity.size() != (dim_ == 2 ? 1u : 3u)) {
          if (!v.angularVelocity.empty())
            error(p + ".angular_velocity", dim_ == 2 ? "a planar angular velocity is one number"
                                                     : "expected 3 components");
        } else if (dim_ == 2) {
          rate.angular = Eigen::Vector3d(0, 0, num(v.angularVelocity[0]));
        } else {
          rate.angular = vec(v.angularVelocity, p + ".angular_velocity");
        }
      } else {
        rate.point = coordinateRef(v.type == InitialVelocity::Type::Joint, v.joint, v.point, v.component, p);
        rate.joint = v.type == InitialVelocity::Type::Joint ? r_.findJoint(v.joint) : -1;
        rate.component = static_cast<int>(v.component);
        rate.value = num(v.value);
      }
      r_.initialRates.push_back(rate);
    }
  }

  void independentCoordinates() {
    for (std::size_t i = 0; i < m_.independentCoordinates.size(); ++i) {
      const IndependentCoordinate& c = m_.independentCoordinates[i];
      const std::string p = at("independent_coordinates", i);
      ResolvedMechanism::Independent x;
      x.point = coordinateRef(c.type == IndependentCoordinate::Type::Joint, c.joint, c.point, c.component, p);
      x.isJoint = c.type == IndependentCoordinate::Type::Joint;
      x.joint = x.isJoint ? r_.findJoint(c.joint) : -1;
      x.component = static_cast<int>(c.component);
      r_.independent.push_back(x);
    }
  }

  void outputsAndCosts() {
    std::set<std::string> seen;
    std::set<std::string> names;  // what cost expressions may use
    for (std::size_t i = 0; i < m_.outputs.size(); ++i) {
      const Output& o = m_.outputs[i];
      const std::string p = at("outputs", i);
      name(p + ".name", o.name, "output", seen);
      if (r_.parameters->find(o.name) >= 0)
        error(p + ".name", "'" + o.name + "' is also a parameter name; cost expressions could not "
                                          "tell them apart");
      switch (o.type) {
        case Output::Type::PointPosition:
        case Output::Type::PointVelocity:
        case Output::Type::PointAcceleration: {
          const ItemIndex at = point(o.point, p + ".point");
          if (at.valid() && std::find(r_.outputPoints.begin(), r_.outputPoints.end(), at) == r_.outputPoints.end())
            r_.outputPoints.push_back(at);
          for (int c = 0; c < dim_; ++c)
            names.insert(o.name + "." + toString(static_cast<Component>(c)));
          break;
        }
        case Output::Type::JointCoordinate:
        case Output::Type::JointRate: {
          const int j = jointByName(o.joint, p + ".joint");
          if (j >= 0 && jointFreedoms(r_.joints[static_cast<std::size_t>(j)].type) != 1)
            error(p + ".joint", "joint '" + o.joint + "' has no single coordinate");
          names.insert(o.name);
          break;
        }
        case Output::Type::SpringLength: {
          auto it = std::find_if(m_.forces.begin(), m_.forces.end(),
                                 [&](const Force& f) { return f.name == o.spring; });
          if (it == m_.forces.end() || it->type != Force::Type::Spring)
            error(p + ".force", "'" + o.spring + "' is not a spring");
          names.insert(o.name);
          break;
        }
        case Output::Type::Energy:
        case Output::Type::ConstraintResidual:
          names.insert(o.name);
          break;
      }
    }
    std::set<std::string> costNames;
    for (std::size_t i = 0; i < m_.costs.size(); ++i) {
      const Cost& c = m_.costs[i];
      const std::string p = at("costs", i);
      name(p + ".name", c.name, "cost", costNames);
      if (c.type == Cost::Type::Targets) {
        const auto o = std::find_if(m_.outputs.begin(), m_.outputs.end(), [&](const Output& x) { return x.name == c.output; });
        if (o == m_.outputs.end() || (o->type != Output::Type::PointPosition && o->type != Output::Type::PointVelocity &&
                                      o->type != Output::Type::PointAcceleration))
          error(p + ".output", "'" + c.output + "' is not " + (o == m_.outputs.end() ? "an output" : "a point output") +
                                   ": a targets cost compares a point output (position, velocity or acceleration) with its targets");
        for (std::size_t k = 0; k < c.targets.size(); ++k)
          if (static_cast<int>(c.targets[k].at.size()) != dim_)
            error(p + ".targets[" + std::to_string(k) + "].at", "a target point of a " + std::to_string(dim_) + "D mechanism has " +
                                                                     std::to_string(dim_) + " coordinates, not " +
                                                                     std::to_string(c.targets[k].at.size()));
        continue;
      }
      if (c.expression.empty()) {
        error(p + ".expression", "the cost has no expression");
        continue;
      }
      for (const auto& v : c.expression.variables())
        if (v != "t" && !names.count(v) && r_.parameters->find(v) < 0)
          error(p + ".expression", "unknown name '" + v + "' in '" + c.expression.text() +
                                       "': use output components such as " +
                                       (names.empty() ? std::string("(no outputs defined)")
                                                      : *names.begin()) +
                                       ", parameters or t");
    }
    study(costNames);
  }

  // the study's names: costs and parameters that exist, constraints of parameters only (a
  // misspelt name passed `check` and failed `optimize` with no line:column)
  void study(const std::set<std::string>& costNames) {
    const StudySettings& s = m_.study;
    auto knownParameters = [&] {
      std::string known;
      for (const auto& p : m_.parameters) known += (known.empty() ? "" : ", ") + p.name;
      return known.empty() ? std::string("none") : known;
    };
    auto knownCosts = [&] {
      std::string known;
      for (const auto& c : costNames) known += (known.empty() ? "" : ", ") + c;
      return known.empty() ? std::string("none") : known;
    };
    for (std::size_t i = 0; i < s.costs.size(); ++i)
      if (!costNames.count(s.costs[i])) warning(at("study.costs", i), "unknown cost '" + s.costs[i] + "' (the file's costs: " + knownCosts() + ")");
    for (std::size_t i = 0; i < s.parameters.size(); ++i)
      if (r_.parameters->find(s.parameters[i]) < 0)
        warning(at("study.parameters", i), "unknown parameter '" + s.parameters[i] + "' (the file's parameters: " + knownParameters() + ")");
    if (!s.tuneCost.empty() && !costNames.count(s.tuneCost))
      warning("study.tuning.cost", "unknown cost '" + s.tuneCost + "' (the file's costs: " + knownCosts() + ")");
    static const char* const kAlgorithms[] = {"slsqp", "mma", "ccsaq", "lbfgs", "cobyla", "bobyqa", "neldermead", "sbplx"};  // optimize.cpp's
    if (std::none_of(std::begin(kAlgorithms), std::end(kAlgorithms), [&](const char* a) { return s.algorithm == a; }))
      warning("study.tuning.algorithm", "unknown algorithm '" + s.algorithm + "' (slsqp, mma, ccsaq, lbfgs, cobyla, bobyqa, neldermead, sbplx)");
    for (std::size_t i = 0; i < s.constraints.size(); ++i)
      for (const auto& v : s.constraints[i].expression.variables())
        if (r_.parameters->find(v) < 0 && !costNames.count(v))
          warning(at("study.tuning.constraints", i) + ".expression", "unknown name '" + v + "' in '" + s.constraints[i].expression.text() +
                                                                    "': a constraint is an expression of parameters and costs (the file's parameters: " +
                                                                    knownParameters() + "; costs: " + knownCosts() + ")");
    // the optimisers without constraints (optimize.cpp's table; optimize refuses the pair)
    for (const char* a : {"lbfgs", "bobyqa", "neldermead", "sbplx"})
      if (s.algorithm == a && !s.constraints.empty())
        warning("study.tuning.algorithm", s.algorithm + " takes no constraints: choose slsqp, mma, ccsaq or cobyla, or drop the constraints");
  }

  void analysis() {
    const double tEnd = m_.analysis.tEnd, dt = m_.analysis.dt;
    if (tEnd < 0) error("analysis.t_end", "the end time must be positive");
    if (dt < 0) error("analysis.dt", "the time step must be positive");
    if (tEnd > 0 && dt > 0 && dt > tEnd) error("analysis.dt", "the time step is longer than the end time");
    if (tEnd > 0 && dt > 0 && tEnd / dt > 1e9)
      error("analysis.dt", "the end time over the step is more than 10^9 steps: lengthen the step or shorten the run");
    else if (tEnd > 0 && dt > 0 && dt <= tEnd && std::abs(tEnd / dt - std::round(tEnd / dt)) > 1e-6 * std::max(1.0, tEnd / dt))
      error("analysis.dt", "the end time (" + fmt(tEnd) + " s) is not a whole number of steps of " + fmt(dt) +
                               " s: every fixed-step run refuses it; end at " + fmt(std::floor(tEnd / dt) * dt) + " or " +
                               fmt(std::ceil(tEnd / dt) * dt) + " s");
  }

  const Mechanism& m_;
  Diagnostics& out_;
  ResolvedMechanism r_;
  std::unordered_map<std::string, int> bodyIndex_, jointIndex_;
  std::unordered_map<std::string, std::unordered_map<std::string, int>> pointIndex_, vectorIndex_;
  int dim_ = 2;
};

}  // namespace

std::optional<ResolvedMechanism> resolve(const Mechanism& m, Diagnostics& out) {
  return Resolver(m, out).run();
}

Diagnostics validate(const Mechanism& m) {
  Diagnostics d;
  resolve(m, d);
  return d;
}

}  // namespace lw
