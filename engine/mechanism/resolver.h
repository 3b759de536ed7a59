// The resolver (internal to mechanism/): a Mechanism's names bound, its numbers evaluated and every
// check that needs more than the JSON syntax. resolve.cpp: bodies, joints and drivers;
// resolve_items.cpp: forces, contacts, limits, switches, initial velocities, outputs, costs, the
// study and the analysis defaults.
#pragma once

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>

#include "mechanism/fields.h"
#include "mechanism/resolved.h"

namespace lw::detail {

inline std::string at(const char* list, std::size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

inline std::string fmt(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

class Resolver {
 public:
  Resolver(const Mechanism& m, Diagnostics& out) : m_(m), out_(out) {}

  std::optional<ResolvedMechanism> run();

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

  void checkParameterNames();

  // every numeric field: known names, time only where allowed, finite value
  bool checkFields();

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

  void ground();

  static std::optional<std::array<double, 3>> parseColor(const std::string& c);

  void bodies();

  void inertia(const Body& b, ResolvedMechanism::Body& rb, const std::string& path);

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

  ItemIndex item(const Ref& ref, const std::string& path, bool vector);
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

  void joints();

  // The stored configuration should satisfy the joint: coinciding points, or for sliding
  // joints the second point on the first one's axis line. Only a warning: kinematics assembles.
  void assemblyWarning(const ResolvedMechanism::Joint& j, const std::string& p, double tol);

  void drivers();

  TimeFunction timeFunction(const Number& n) {
    return TimeFunction(n.isLiteral() ? Expression::constant(n.value) : n.expression,
                        *r_.parameters);
  }

  void nonNegative(double v, const std::string& path, const char* what) {
    if (v < 0) error(path, std::string("the ") + what + " cannot be negative (" + fmt(v) + ")");
  }

  void forces();

  void contacts();

  void limits();

  void switches();

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

  void initialVelocities();

  void independentCoordinates();

  void outputsAndCosts();

  // the study's names: costs and parameters that exist, constraints of parameters only (a
  // misspelt name passed `check` and failed `optimize` with no line:column)
  void study(const std::set<std::string>& costNames);

  void analysis();

  const Mechanism& m_;
  Diagnostics& out_;
  ResolvedMechanism r_;
  std::unordered_map<std::string, int> bodyIndex_, jointIndex_;
  std::unordered_map<std::string, std::unordered_map<std::string, int>> pointIndex_, vectorIndex_;
  int dim_ = 2;
};

}  // namespace lw::detail
