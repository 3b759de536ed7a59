// Compilation of the natural-coordinate model.
//
// 1. Joint points that coincide (pin, revolute, spherical, universal, fixed) and joint axes that
//    coincide (revolute, cylindrical, prismatic, slider) are merged into one entity; entities
//    touching the ground are fixed.
// 2. Each moving body gets a base: an origin point and one (2D) or two (3D) directions, from its
//    entities, adding body-owned entities where it has too few. The base is kept rigid (distances,
//    a dot product); every other entity of the body is tied to it by a Combo constraint.
// 3. Joints that do not merge everything add equations (slider, prismatic, cylindrical,
//    universal); drivers add one equation each.
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <array>
#include <cmath>
#include <numeric>
#include <utility>

#include "kinematics/natural_model.h"

namespace lw::kin {
namespace {

struct Item {
  int body = 0;
  bool isVector = false;
  Eigen::Vector3d world = Eigen::Vector3d::Zero();
  std::string name;
  bool needed = false;
  WorldSource source;
};

class Compiler {
 public:
  Compiler(const ResolvedMechanism& m, NaturalOptions options, const std::vector<HeldGap>& held)
      : m_(m), dim_(m.dimension), options_(options), held_(held) {
    nm_.dimension = dim_;
    nm_.mechanism = std::make_shared<const ResolvedMechanism>(m);
  }

  NaturalModel run() {
    collectItems();
    mergeJoints();
    for (const auto& d : m_.drivers) needDriverItems(d);
    makeEntities();
    makeBodies();
    for (std::size_t e = 0; e < nm_.entities.size(); ++e)
      if (nm_.entities[e].isVector && !nm_.entities[e].fixed())
        add(make(ConstraintKind::UnitNorm, {static_cast<int>(e), -1, -1, -1}),
            {ConstraintSource::Kind::Vector, static_cast<int>(e)});
    jointEquations();
    driverEquations();
    heldEquations();
    finish();
    return std::move(nm_);
  }

 private:
  // ---- items and merging (union-find) ----
  int newItem(int body, bool isVector, const Eigen::Vector3d& w, std::string name, WorldSource source) {
    items_.push_back({body, isVector, w, std::move(name), false, source});
    parent_.push_back(static_cast<int>(parent_.size()));
    return static_cast<int>(items_.size()) - 1;
  }
  int find(int i) {
    while (parent_[static_cast<std::size_t>(i)] != i) i = parent_[static_cast<std::size_t>(i)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(i)])];
    return i;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);  // keep the first item as root
  }
  void need(int i) { items_[static_cast<std::size_t>(i)].needed = true; }

  void collectItems() {
    pointItem_.resize(m_.bodies.size());
    vectorItem_.resize(m_.bodies.size());
    for (std::size_t b = 0; b < m_.bodies.size(); ++b) {
      const auto& body = m_.bodies[b];
      for (std::size_t i = 0; i < body.points.size(); ++i)
        pointItem_[b].push_back(newItem(static_cast<int>(b), false, m_.pointWorld({static_cast<int>(b), static_cast<int>(i)}),
                                        body.name + "." + body.pointNames[i], {WorldSource::Kind::Point, static_cast<int>(b), static_cast<int>(i)}));
      for (std::size_t i = 0; i < body.vectors.size(); ++i)
        vectorItem_[b].push_back(newItem(static_cast<int>(b), true, m_.vectorWorld({static_cast<int>(b), static_cast<int>(i)}),
                                         body.name + "." + body.vectorNames[i], {WorldSource::Kind::Vector, static_cast<int>(b), static_cast<int>(i)}));
    }
  }
  int pointItem(ItemIndex p) const { return pointItem_[static_cast<std::size_t>(p.body)][static_cast<std::size_t>(p.index)]; }
  int vectorItem(ItemIndex v) const { return vectorItem_[static_cast<std::size_t>(v.body)][static_cast<std::size_t>(v.index)]; }

  // a vector shared by both bodies of joint j (fixed joints, prismatic rotation lock)
  int sharedSynthetic(const ResolvedMechanism::Joint& j, const Eigen::Vector3d& w, const std::string& tag, WorldSource source) {
    const int a = newItem(j.body(0), true, w, j.name + "#" + tag, source);
    const int b = newItem(j.body(1), true, w, j.name + "#" + tag, source);
    need(a);
    need(b);
    unite(a, b);
    return a;
  }

  void mergeJoints() {
    jointSynthetic_.assign(m_.joints.size(), -1);
    jointSynthetic2_.assign(m_.joints.size(), -1);
    for (std::size_t k = 0; k < m_.joints.size(); ++k) {
      const auto& j = m_.joints[k];
      const int p0 = pointItem(j.points[0]), p1 = pointItem(j.points[1]);
      need(p0);
      need(p1);
      int a0 = -1, a1 = -1;
      if (j.axes[0].valid()) {
        a0 = vectorItem(j.axes[0]);
        a1 = vectorItem(j.axes[1]);
        need(a0);
        need(a1);
      }
      const Eigen::Matrix3d& R0 = m_.bodies[static_cast<std::size_t>(j.body(0))].rotation;
      switch (j.type) {
        case JointType::Pin: case JointType::Spherical: case JointType::Universal:
          unite(p0, p1);
          break;
        case JointType::Revolute:
          unite(p0, p1);
          unite(a0, a1);
          break;
        case JointType::Slider:
          unite(a0, a1);
          break;
        case JointType::Prismatic: {
          unite(a0, a1);
          jointSynthetic_[k] = sharedSynthetic(j, items_[static_cast<std::size_t>(a0)].world.normalized().unitOrthogonal(), "w",
                                               {WorldSource::Kind::Orthogonal, j.axes[0].body, j.axes[0].index});
          break;
        }
        case JointType::Cylindrical: {
          unite(a0, a1);
          const int w = newItem(j.body(0), true, items_[static_cast<std::size_t>(a0)].world.normalized().unitOrthogonal(), j.name + "#w",
                                {WorldSource::Kind::Orthogonal, j.axes[0].body, j.axes[0].index});
          need(w);
          jointSynthetic_[k] = w;
          break;
        }
        case JointType::Fixed:
          unite(p0, p1);
          jointSynthetic_[k] = sharedSynthetic(j, R0.col(0), "x", {WorldSource::Kind::Column, j.body(0), 0});
          if (dim_ == 3) jointSynthetic2_[k] = sharedSynthetic(j, R0.col(1), "y", {WorldSource::Kind::Column, j.body(0), 1});
          break;
      }
    }
  }

  void needDriverItems(const ResolvedMechanism::Driver& d) {
    if (d.type == Driver::Type::Coordinate) need(pointItem(d.point));
    if (d.type == Driver::Type::Distance) {
      need(pointItem(d.points[0]));
      need(pointItem(d.points[1]));
    }
  }

  // ---- entities ----
  int newEntity(bool isVector, bool fixed, const Eigen::Vector3d& value, std::string name, WorldSource source) {
    Entity e;
    e.source = source;
    e.isVector = isVector;
    e.offset = fixed ? -1 : 0;  // real offsets are assigned in finish()
    e.value = isVector ? value.normalized() : value;
    e.name = std::move(name);
    nm_.entities.push_back(e);
    return static_cast<int>(nm_.entities.size()) - 1;
  }

  void makeEntities() {
    // the first ground item of each class (its value and name are the class's)
    std::vector<int> groundItemOfRoot(items_.size(), -1);
    for (std::size_t i = 0; i < items_.size(); ++i)
      if (items_[i].needed && items_[i].body == 0) {
        int& g = groundItemOfRoot[static_cast<std::size_t>(find(static_cast<int>(i)))];
        if (g < 0) g = static_cast<int>(i);
      }
    // (body, entity) pairs already recorded: a body's entity lists and an entity's owners grow
    // together, once per pair (searching the lists was quadratic: the ground owns thousands)
    std::unordered_set<std::uint64_t> recorded;
    std::vector<int> entityOfRoot(items_.size(), -1);
    entityOfItem_.assign(items_.size(), -1);
    bodyPoints_.resize(m_.bodies.size());
    bodyVectors_.resize(m_.bodies.size());
    bodyWorld_.assign(m_.bodies.size(), {});
    bodySources_.assign(m_.bodies.size(), {});
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (!items_[i].needed) continue;
      const auto root = static_cast<std::size_t>(find(static_cast<int>(i)));
      if (entityOfRoot[root] < 0) {
        // the value of a class touching the ground is the ground item's
        Eigen::Vector3d value = items_[i].world;
        std::string name = items_[root].name;
        WorldSource source = items_[i].source;
        const int g = groundItemOfRoot[root];
        if (g >= 0) {
          value = items_[static_cast<std::size_t>(g)].world;
          name = items_[static_cast<std::size_t>(g)].name;
          source = items_[static_cast<std::size_t>(g)].source;
        }
        entityOfRoot[root] = newEntity(items_[i].isVector, g >= 0, value, name, source);
      }
      const int e = entityOfRoot[root];
      entityOfItem_[i] = e;
      const int body = items_[i].body;
      if (!recorded.insert((static_cast<std::uint64_t>(body) << 32) | static_cast<std::uint32_t>(e)).second) continue;
      bodyWorld_[static_cast<std::size_t>(body)].emplace_back(e, items_[i].isVector ? Eigen::Vector3d(items_[i].world.normalized()) : items_[i].world);
      bodySources_[static_cast<std::size_t>(body)].push_back(items_[i].source);
      nm_.entities[static_cast<std::size_t>(e)].bodies.push_back(body);
      (items_[i].isVector ? bodyVectors_ : bodyPoints_)[static_cast<std::size_t>(body)].push_back(e);
    }
  }

  // The value of entity e as body `shapeBody_` places it (while its constants are computed), else
  // the merged entity's value. The body's own pose and local points define its shape: when the
  // stored configuration is not assembled, merged entities take one side's position, and the
  // other body's lengths must not change with it.
  Eigen::Vector3d entityValue(int e) const {
    if (shapeBody_ >= 0)
      for (const auto& [entity, world] : bodyWorld_[static_cast<std::size_t>(shapeBody_)])
        if (entity == e) return world;
    return nm_.entities[static_cast<std::size_t>(e)].value;
  }
  Eigen::Vector3d value(const Direction& d) const {
    const Eigen::Vector3d a = entityValue(d.a);
    return d.b < 0 ? a : Eigen::Vector3d(a - entityValue(d.b));
  }
  bool allFixed(std::initializer_list<int> es) const {
    for (int e : es)
      if (e >= 0 && !nm_.entities[static_cast<std::size_t>(e)].fixed()) return false;
    return true;
  }

  // coefficients of `rel` in the body basis (d, R90 d), (d, d', d×d') or, with a third direction
  // d3, (d, d', d3)
  Eigen::Vector3d coefficients(const Eigen::Vector3d& rel, const Direction& d1, const Direction& d2, const Direction& d3 = {}) const {
    const Eigen::Vector3d a = value(d1);
    if (dim_ == 3 && d2.a < 0) return {rel.dot(a) / a.squaredNorm(), 0, 0};  // on the axis of a spin-free body
    if (dim_ == 2) {
      const Eigen::Vector3d b(-a.y(), a.x(), 0);
      return {rel.dot(a) / a.squaredNorm(), rel.dot(b) / b.squaredNorm(), 0};
    }
    const Eigen::Vector3d b = value(d2);
    Eigen::Matrix3d B;
    B << a, b, (d3.a >= 0 ? value(d3) : Eigen::Vector3d(a.cross(b)));
    return B.fullPivLu().solve(rel);
  }

  void makeBodies() {
    nm_.bodies.resize(m_.bodies.size());
    // ground: its points are world-fixed
    for (const auto& p : m_.bodies[0].points) nm_.bodies[0].pointCoefficients.push_back(p);
    const double tol = 1e-9 * std::max(1.0, m_.lengthScale());
    for (std::size_t b = 1; b < m_.bodies.size(); ++b) {
      const auto& body = m_.bodies[b];
      auto& points = bodyPoints_[b];
      auto& vectors = bodyVectors_[b];
      BodyFrame& f = nm_.bodies[b];
      const auto source = ConstraintSource{ConstraintSource::Kind::Body, static_cast<int>(b)};
      shapeBody_ = static_cast<int>(b);
      // origin
      const int owner = static_cast<int>(b);
      auto own = [&](int e) {
        nm_.entities[static_cast<std::size_t>(e)].bodies = {owner};
        return e;
      };
      if (points.empty()) points.push_back(own(newEntity(false, false, body.position, body.name + "#origin", {WorldSource::Kind::Position, owner, -1})));
      f.origin = points[0];
      const Eigen::Vector3d o = entityValue(f.origin);
      // first direction: another point away from the origin, else a vector, else the body x axis
      bool haveD1 = false;
      for (std::size_t i = 1; i < points.size() && !haveD1; ++i)
        if ((nm_.entities[static_cast<std::size_t>(points[i])].value - o).norm() > tol) {
          f.d[0] = {points[i], f.origin};
          haveD1 = true;
        }
      if (!haveD1 && !vectors.empty()) {
        f.d[0] = {vectors[0], -1};
        haveD1 = true;
      }
      if (!haveD1) {
        vectors.push_back(own(newEntity(true, false, body.rotation.col(0), body.name + "#x", {WorldSource::Kind::Column, owner, 0})));
        f.d[0] = {vectors.back(), -1};
      }
      if (dim_ == 3) {
        const Eigen::Vector3d a = value(f.d[0]).normalized();
        bool haveD2 = false;
        auto tryDir = [&](Direction d) {
          if (haveD2 || (d.a == f.d[0].a && d.b == f.d[0].b)) return;
          const Eigen::Vector3d v = value(d);
          if (v.norm() > tol && a.cross(v.normalized()).norm() > 1e-6) {
            f.d[1] = d;
            haveD2 = true;
          }
        };
        for (std::size_t i = 1; i < points.size(); ++i) tryDir({points[i], f.origin});
        for (int v : vectors) tryDir({v, -1});
        if (!haveD2 && f.d[0].b >= 0 && vectors.empty()) {
          // Held only by points on one line (a spherical–spherical rod): its spin about that line
          // is a passive freedom nothing depends on. The body gets no orientation coordinate at all
          // (seed 002 locks V4_z instead, which turns singular for some rod directions); its
          // off-axis points follow the axis by the smallest rotation.
          f.spinFree = true;
          f.axis0 = a;
          nm_.spinFreeBodies.push_back(static_cast<int>(b));
          nm_.passiveSpins.push_back(body.name);
        } else if (!haveD2) {
          // the body axis most perpendicular to the first direction
          int best = 0;
          for (int k = 1; k < 3; ++k)
            if (std::abs(body.rotation.col(k).dot(a)) < std::abs(body.rotation.col(best).dot(a))) best = k;
          vectors.push_back(own(newEntity(true, false, body.rotation.col(best), body.name + "#y", {WorldSource::Kind::Column, owner, best})));
          f.d[1] = {vectors.back(), -1};
        }
      }
      // linear frames: a third unit vector normal to d and d' stands for d × d'
      if (dim_ == 3 && !f.spinFree && options_.linearFrames) {
        const Eigen::Vector3d n = value(f.d[0]).cross(value(f.d[1])).normalized();
        vectors.push_back(own(newEntity(true, false, n, body.name + "#n", {WorldSource::Kind::Normal, owner, -1})));
        f.d[2] = {vectors.back(), -1};
      }
      // rigid base
      auto distance = [&](const Direction& d) {
        if (d.b >= 0 && !allFixed({d.a, d.b}))
          add(make(ConstraintKind::Distance, {-1, -1, -1, -1}, {d, Direction{}}, {value(d).squaredNorm(), 0, 0}), source);
      };
      distance(f.d[0]);
      if (dim_ == 3 && !f.spinFree) {
        distance(f.d[1]);
        if (!allFixed({f.d[0].a, f.d[0].b, f.d[1].a, f.d[1].b}))
          add(make(ConstraintKind::DirDot, {-1, -1, -1, -1}, {f.d[0], f.d[1]}, {value(f.d[0]).dot(value(f.d[1])), 0, 0}), source);
        if (f.d[2].a >= 0)  // the third vector normal to both (its unit length: every vector's)
          for (const Direction& d : {f.d[0], f.d[1]}) add(make(ConstraintKind::DirDot, {-1, -1, -1, -1}, {f.d[2], d}, {0, 0, 0}), source);
      }
      // every other entity follows the base
      auto inBase = [&](int e) {
        return e == f.origin || e == f.d[0].a || e == f.d[0].b || (dim_ == 3 && (e == f.d[1].a || e == f.d[1].b || e == f.d[2].a));
      };
      for (int e : points)
        if (!inBase(e) && !allFixed({e, f.origin, f.d[0].a, f.d[0].b, f.d[1].a, f.d[1].b})) {
          const Eigen::Vector3d k = coefficients(entityValue(e) - o, f.d[0], f.d[1], f.d[2]);
          add(make(ConstraintKind::Combo, {e, f.origin, -1, -1}, {f.d[0], f.d[1], f.d[2]}, {k.x(), k.y(), k.z()}), source);
        }
      for (int e : vectors)
        if (!inBase(e) && !allFixed({e, f.d[0].a, f.d[0].b, f.d[1].a, f.d[1].b})) {
          const Eigen::Vector3d k = coefficients(entityValue(e), f.d[0], f.d[1], f.d[2]);
          add(make(ConstraintKind::Combo, {e, -1, -1, -1}, {f.d[0], f.d[1], f.d[2]}, {k.x(), k.y(), k.z()}), source);
        }
      // every point of the body, for outputs and drawing (spin-free: its offset from the origin)
      for (std::size_t i = 0; i < body.points.size(); ++i) {
        const Eigen::Vector3d rel = m_.pointWorld({static_cast<int>(b), static_cast<int>(i)}) - o;
        f.pointCoefficients.push_back(f.spinFree ? rel : coefficients(rel, f.d[0], f.d[1], f.d[2]));
      }
    }
    shapeBody_ = -1;
    for (std::size_t b = 1; b < m_.bodies.size(); ++b) {
      nm_.bodies[b].own = bodyWorld_[b];
      nm_.bodies[b].ownSources = bodySources_[b];
    }
  }

  int entityOf(int item) const { return entityOfItem_[static_cast<std::size_t>(item)]; }

  void jointEquations() {
    for (std::size_t k = 0; k < m_.joints.size(); ++k) {
      const auto& j = m_.joints[k];
      const auto source = ConstraintSource{ConstraintSource::Kind::Joint, static_cast<int>(k)};
      const int P = entityOf(pointItem(j.points[0])), Q = entityOf(pointItem(j.points[1]));
      switch (j.type) {
        case JointType::Slider: {
          const int u = entityOf(vectorItem(j.axes[0]));
          if (!allFixed({P, Q, u})) add(make(ConstraintKind::Collinear2D, {P, Q, u, -1}), source);
          break;
        }
        case JointType::Prismatic:
        case JointType::Cylindrical: {
          const int u = entityOf(vectorItem(j.axes[0]));
          const int w = entityOf(jointSynthetic_[k]);
          if (!allFixed({P, Q, u, w})) add(make(ConstraintKind::AxisLine3D, {P, Q, u, w}), source);
          break;
        }
        case JointType::Universal: {
          const int u0 = entityOf(vectorItem(j.axes[0])), u1 = entityOf(vectorItem(j.axes[1]));
          add(make(ConstraintKind::DirDot, {-1, -1, -1, -1}, {Direction{u0, -1}, Direction{u1, -1}},
               {nm_.entities[static_cast<std::size_t>(u0)].value.dot(nm_.entities[static_cast<std::size_t>(u1)].value), 0, 0}),
              source);
          break;
        }
        default: break;  // merged entities say it all
      }
    }
  }

  // a direction of body b suited to measure rotation about `axis` (zero: planar)
  Direction rotationDirection(int b, const Eigen::Vector3d& axis) {
    if (b == 0) {
      const Eigen::Vector3d g = axis.isZero() ? Eigen::Vector3d::UnitX() : axis.unitOrthogonal();
      WorldSource source{WorldSource::Kind::Constant, -1, -1, g};
      if (!axis.isZero()) source = {WorldSource::Kind::Orthogonal, axisSource_.body, axisSource_.index};
      return {newEntity(true, true, g, "ground#reference", source), -1};
    }
    const BodyFrame& f = nm_.bodies[static_cast<std::size_t>(b)];
    if (dim_ == 2 || axis.isZero()) return f.d[0];
    auto perp = [&](const Direction& d) { const Eigen::Vector3d v = value(d).normalized(); return (v - v.dot(axis) * axis).norm(); };
    return perp(f.d[1]) > perp(f.d[0]) ? f.d[1] : f.d[0];
  }

  // a driver's constraint on joint `joint`'s coordinate (c.driver set by the caller)
  void jointDrive(int joint, Constraint& c) {
    const auto& j = m_.joints[static_cast<std::size_t>(joint)];
    const int P = entityOf(pointItem(j.points[0])), Q = entityOf(pointItem(j.points[1]));
    if (j.type == JointType::Pin || j.type == JointType::Revolute) {
      Eigen::Vector3d axis = Eigen::Vector3d::Zero();
      c.kind = ConstraintKind::DriveAngle;
      if (j.type == JointType::Revolute) {
        c.e[0] = entityOf(vectorItem(j.axes[0]));
        axis = nm_.entities[static_cast<std::size_t>(c.e[0])].value;
        axisSource_ = nm_.entities[static_cast<std::size_t>(c.e[0])].source;
      }
      c.d[0] = rotationDirection(j.body(0), axis);
      c.d[1] = rotationDirection(j.body(1), axis);
      const Eigen::Vector3d a = value(c.d[0]), b = value(c.d[1]);
      const Eigen::Vector3d n = dim_ == 2 ? Eigen::Vector3d::UnitZ() : axis;
      c.c[0] = std::atan2(a.cross(b).dot(n), a.dot(b) - a.dot(n) * b.dot(n));
    } else {  // slider, prismatic: displacement along the axis
      c.kind = ConstraintKind::DriveSlide;
      const int u = entityOf(vectorItem(j.axes[0]));
      c.e[0] = P;
      c.e[1] = Q;
      c.e[2] = u;
      c.c[0] = (nm_.entities[static_cast<std::size_t>(Q)].value - nm_.entities[static_cast<std::size_t>(P)].value)
                   .dot(nm_.entities[static_cast<std::size_t>(u)].value);
    }
  }

  // the gaps held closed: a limit's joint as a driver at its value, a contact's PlaneGap
  void heldEquations() {
    for (const HeldGap& h : held_) {
      Constraint c;
      if (!h.contact) {
        const auto& limit = m_.limits[static_cast<std::size_t>(h.index)];
        c.driver = static_cast<int>(nm_.drivers.size());
        nm_.drivers.push_back(TimeFunction::constant(h.value));
        jointDrive(limit.joint, c);
        c.component = h.upper ? 1 : 0;
        add(c, {ConstraintSource::Kind::Limit, h.index});
        continue;
      }
      const auto& contact = m_.contacts[static_cast<std::size_t>(h.index)];
      c.kind = ConstraintKind::PlaneGap;
      c.e[0] = contact.point.body;
      c.e[1] = contact.point.index;
      c.e[2] = contact.planePoint.body;
      c.e[3] = contact.planePoint.index;
      const int nb = contact.planeNormal.body;
      c.component = nb;
      const Eigen::Vector3d n = m_.vectorWorld(contact.planeNormal);
      Eigen::Vector3d k = n;  // the ground's: world
      if (nb > 0) {
        shapeBody_ = nb;  // its basis as the body itself places it
        const BodyFrame& f = nm_.bodies[static_cast<std::size_t>(nb)];
        k = coefficients(n, f.d[0], f.d[1], f.d[2]);
        shapeBody_ = -1;
      }
      c.c[0] = k.x();
      c.c[1] = k.y();
      c.c[2] = k.z();
      c.c[3] = contact.radius;
      add(c, {ConstraintSource::Kind::Contact, h.index});
    }
  }

  void driverEquations() {
    for (std::size_t k = 0; k < m_.drivers.size(); ++k) {
      const auto& d = m_.drivers[k];
      nm_.drivers.push_back(d.function);
      const auto source = ConstraintSource{ConstraintSource::Kind::Driver, static_cast<int>(k)};
      Constraint c;
      c.driver = static_cast<int>(k);
      switch (d.type) {
        case Driver::Type::Joint:
          jointDrive(d.joint, c);
          break;
        case Driver::Type::Coordinate:
          c.kind = ConstraintKind::DriveCoordinate;
          c.e[0] = entityOf(pointItem(d.point));
          c.component = d.component;
          break;
        case Driver::Type::Distance:
          c.kind = ConstraintKind::DriveDistance;
          c.e[0] = entityOf(pointItem(d.points[0]));
          c.e[1] = entityOf(pointItem(d.points[1]));
          break;
      }
      add(c, source);
    }
  }

  static Constraint make(ConstraintKind kind, std::array<int, 4> e = {-1, -1, -1, -1},
                         std::array<Direction, 3> d = {}, std::array<double, 3> c = {0, 0, 0}) {
    Constraint x;
    x.kind = kind;
    std::copy(e.begin(), e.end(), x.e);
    std::copy(d.begin(), d.end(), x.d);
    std::copy(c.begin(), c.end(), x.c);
    return x;
  }

  void add(Constraint c, ConstraintSource s) {
    c.source = s;
    c.rows = c.kind == ConstraintKind::Combo ? dim_ : c.kind == ConstraintKind::AxisLine3D ? 2 : 1;
    nm_.constraints.push_back(c);
  }

  void finish() {
    int offset = 0;
    for (auto& e : nm_.entities)
      if (!e.fixed()) {
        e.offset = offset;
        offset += dim_;
      }
    nm_.nq = offset;
    nm_.q0.resize(nm_.nq);
    for (const auto& e : nm_.entities)
      if (!e.fixed()) nm_.q0.segment(e.offset, dim_) = e.value.head(dim_);
    int row = 0;
    for (auto& c : nm_.constraints) {
      c.row = row;
      row += c.rows;
      std::vector<int> es;
      auto frameOf = [&](int body) {  // a PlaneGap's: every entity of its bodies' frames
        const BodyFrame& f = nm_.bodies[static_cast<std::size_t>(body)];
        es.push_back(f.origin);
        for (const auto& d : f.d) {
          es.push_back(d.a);
          es.push_back(d.b);
        }
      };
      if (c.kind == ConstraintKind::PlaneGap) {
        frameOf(c.e[0]);
        frameOf(c.e[2]);
        frameOf(c.component);
      } else {
        es.assign(std::begin(c.e), std::end(c.e));
        for (const auto& d : c.d) {
          es.push_back(d.a);
          es.push_back(d.b);
        }
      }
      for (int e : es) {
        if (e < 0 || nm_.entities[static_cast<std::size_t>(e)].fixed()) continue;
        for (int k = 0; k < dim_; ++k) c.columns.push_back(nm_.entities[static_cast<std::size_t>(e)].offset + k);
      }
      std::sort(c.columns.begin(), c.columns.end());
      c.columns.erase(std::unique(c.columns.begin(), c.columns.end()), c.columns.end());
    }
    nm_.nrows = row;
    for (auto& e : nm_.entities) std::sort(e.bodies.begin(), e.bodies.end());
  }

  const ResolvedMechanism& m_;
  int dim_;
  NaturalOptions options_;
  const std::vector<HeldGap>& held_;
  NaturalModel nm_;
  std::vector<Item> items_;
  std::vector<int> parent_;
  std::vector<std::vector<int>> pointItem_, vectorItem_;
  std::vector<int> jointSynthetic_, jointSynthetic2_;
  std::vector<int> entityOfItem_;
  std::vector<std::vector<int>> bodyPoints_, bodyVectors_;
  std::vector<std::vector<std::pair<int, Eigen::Vector3d>>> bodyWorld_;  // per body: entity, its place by that body
  std::vector<std::vector<WorldSource>> bodySources_;                    // per body: where those places come from
  WorldSource axisSource_;                                               // a driven revolute's axis (rotationDirection)
  int shapeBody_ = -1;                                                   // see entityValue
};

}  // namespace

NaturalModel compileNaturalModel(const ResolvedMechanism& m, NaturalOptions options, const std::vector<HeldGap>& held) {
  return Compiler(m, options, held).run();
}

std::string NaturalModel::describeRow(int row) const {
  // the constraints are in row order: the last that starts at or before `row`
  const auto after = std::upper_bound(constraints.begin(), constraints.end(), row, [](int r, const Constraint& c) { return r < c.row; });
  if (after != constraints.begin()) {
    const Constraint& c = *(after - 1);
    if (row >= c.row + c.rows) return "row " + std::to_string(row);
    const auto i = static_cast<std::size_t>(c.source.index);
    switch (c.source.kind) {
      case ConstraintSource::Kind::Body: return "body '" + mechanism->bodies[i].name + "' (rigidity)";
      case ConstraintSource::Kind::Joint: return "joint '" + mechanism->joints[i].name + "'";
      case ConstraintSource::Kind::Driver: return "driver '" + mechanism->drivers[i].name + "'";
      case ConstraintSource::Kind::Vector: return "unit vector '" + entities[i].name + "'";
      case ConstraintSource::Kind::Contact: return "contact '" + mechanism->contacts[i].name + "' (held)";
      case ConstraintSource::Kind::Limit: return "limit '" + mechanism->limits[i].name + "' (held)";
    }
  }
  return "row " + std::to_string(row);
}

}  // namespace lw::kin
