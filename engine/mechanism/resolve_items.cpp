// The resolver's checks of what acts on the bodies and what a run reports: forces, contacts,
// limits, switches, initial velocities, independent coordinates, outputs, costs, the study and
// the analysis defaults (resolver.h).
#include "mechanism/resolver.h"

namespace lw::detail {

void Resolver::forces() {
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

void Resolver::contacts() {
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
      const Eigen::Vector3d n = r_.vectorWorld(rc.planeNormal);
      if (n.norm() > 0) {
        const double gap = (r_.pointWorld(rc.point) - r_.pointWorld(rc.planePoint)).dot(n.normalized()) - rc.radius;
        if (gap < -1e-6 * std::max(1e-3, r_.lengthScale()))
          warning(p, "the point starts " + fmt(-gap) + " m inside the plane in the stored configuration: every dynamic run refuses to "
                     "start so; move it out (or the plane)");
      }
    }
    r_.contacts.push_back(rc);
  }
}

void Resolver::limits() {
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
      double q = 0;  // the coordinate as outputs and limits read it (a spatial revolute's: 0 here)
      bool known = true;
      if (jt.type == JointType::Pin) {
        const Eigen::Matrix3d rel = r_.bodies[static_cast<std::size_t>(jt.body(0))].rotation.transpose() *
                                    r_.bodies[static_cast<std::size_t>(jt.body(1))].rotation;
        q = std::atan2(rel(1, 0), rel(0, 0));
      } else if (jt.type == JointType::Slider || jt.type == JointType::Prismatic) {
        known = jt.axes[0].valid() && jt.points[0].valid() && jt.points[1].valid();
        if (known) q = (r_.pointWorld(jt.points[1]) - r_.pointWorld(jt.points[0])).dot(r_.vectorWorld(jt.axes[0]).normalized());
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

void Resolver::switches() {
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

void Resolver::initialVelocities() {
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

void Resolver::independentCoordinates() {
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

void Resolver::outputsAndCosts() {
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
      case Output::Type::JointReaction: {
        // a force and a moment, components by axis: RA.fx, RA.fy, RA.m (planar), RA.fx ... RA.mz
        const int j = jointByName(o.joint, p + ".joint");
        if (j >= 0) {
          const auto& jt = r_.joints[static_cast<std::size_t>(j)];
          const int b = r_.findBody(o.on);
          if (b < 0 || (b != jt.body(0) && b != jt.body(1)))
            error(p + ".on", "'" + o.on + "' is not one of joint '" + o.joint + "''s two bodies (" + r_.bodies[static_cast<std::size_t>(jt.body(0))].name +
                                 ", " + r_.bodies[static_cast<std::size_t>(jt.body(1))].name + ")");
        }
        for (const auto& [axis, suffix] : reactionComponents(dim_)) names.insert(o.name + "." + suffix);
        break;
      }
      case Output::Type::DriverEffort: {
        if (std::none_of(m_.drivers.begin(), m_.drivers.end(), [&](const Driver& d) { return d.name == o.driver; }))
          error(p + ".driver", "'" + o.driver + "' is not a driver");
        names.insert(o.name);
        break;
      }
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
void Resolver::study(const std::set<std::string>& costNames) {
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

void Resolver::analysis() {
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

}  // namespace lw::detail
