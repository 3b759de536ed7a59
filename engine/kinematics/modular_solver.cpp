#include "kinematics/modular_solver.h"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace lw::kin {

// Dense storage of one group, sized once (no allocation in the step loop).
class GroupBuffers {
 public:
  GroupBuffers(int p, int r, int s)
      : J(p, r), rhs(p), sol(r), lu(r), qr(p, r), K(r, s + 1), Jh(p, s + 1), Dphi(p, r), Dh(p, s + 1),
        L(r, s + 1), acc(r), lh(r), hd(s + 1), hdd(s + 1), tmp(p, s + 1) {}
  Eigen::MatrixXd J;     // Φ_φ (p × r)
  Eigen::VectorXd rhs;   // p
  Eigen::VectorXd sol;   // r
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;          // p == r
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr;   // p > r: least squares
  // 3OT: K = −Φ_φ⁺ [Φ_h Φ_t] and the slices L_i = dK/dh_i (h extended with t)
  Eigen::MatrixXd K, Jh, Dphi, Dh, L;
  Eigen::VectorXd acc, lh, hd, hdd;
  Eigen::MatrixXd tmp;
};

namespace {

std::string groupName(const NaturalModel& m, const kin::StructuralGroup& g) {
  std::string s = "{";
  for (std::size_t i = 0; i < g.bodies.size(); ++i)
    s += (i ? ", " : "") + m.mechanism->bodies[static_cast<std::size_t>(g.bodies[i])].name;
  return s + "}";
}

std::vector<int> entitiesOf(const Constraint& c) {
  std::vector<int> es;
  for (int e : c.e)
    if (e >= 0) es.push_back(e);
  for (const auto& d : c.d) {
    if (d.a >= 0) es.push_back(d.a);
    if (d.b >= 0) es.push_back(d.b);
  }
  return es;
}

bool isPointPair(const Direction& d, int a, int& other) {
  if (d.b < 0) return false;
  if (d.a == a) other = d.b;
  else if (d.b == a) other = d.a;
  else return false;
  return true;
}

// closed-form solvers recognised on the group's constraints (planar only)
void detectClosedForm3D(const NaturalModel& m, ModularGroup& g);

void detectClosedForm(const NaturalModel& m, ModularGroup& g) {
  if (m.dimension == 3) return detectClosedForm3D(m, g);
  if (g.phi.size() != 2) return;
  const Entity* target = nullptr;
  int unknown = -1;
  for (std::size_t e = 0; e < m.entities.size(); ++e)
    if (!m.entities[e].fixed() && m.entities[e].offset == g.phi[0] && !m.entities[e].isVector) {
      target = &m.entities[e];
      unknown = static_cast<int>(e);
    }
  if (!target) return;
  std::vector<const Constraint*> cs;
  for (int ci : g.constraints) cs.push_back(&m.constraints[static_cast<std::size_t>(ci)]);
  if (cs.size() != 2) return;
  auto find = [&](ConstraintKind k) -> const Constraint* {
    for (const auto* c : cs)
      if (c->kind == k) return c;
    return nullptr;
  };
  g.unknown = unknown;
  // crank: |B − A| = L with A fixed, and the driven angle of B − A from a fixed direction
  if (const Constraint* dist = find(ConstraintKind::Distance); dist && find(ConstraintKind::DriveAngle)) {
    const Constraint* drive = find(ConstraintKind::DriveAngle);
    int A = -1;
    if (isPointPair(dist->d[0], unknown, A) && m.entities[static_cast<std::size_t>(A)].fixed() &&
        drive->d[0].b < 0 && m.entities[static_cast<std::size_t>(drive->d[0].a)].fixed() &&
        drive->d[1].a == dist->d[0].a && drive->d[1].b == dist->d[0].b) {
      g.solver = GroupSolver::Crank2D;
      g.knownA = A;
      g.axis = drive->d[0].a;
      g.lengthA = std::sqrt(dist->c[0]);
      g.driverConstraint = static_cast<int>(drive - m.constraints.data());
    }
    return;
  }
  // RRR dyad: two distances from known points
  if (cs[0]->kind == ConstraintKind::Distance && cs[1]->kind == ConstraintKind::Distance) {
    int A = -1, B = -1;
    if (isPointPair(cs[0]->d[0], unknown, A) && isPointPair(cs[1]->d[0], unknown, B)) {
      g.solver = GroupSolver::RRRDyad;
      g.knownA = A;
      g.knownB = B;
      g.lengthA = std::sqrt(cs[0]->c[0]);
      g.lengthB = std::sqrt(cs[1]->c[0]);
    }
    return;
  }
  // RRP dyad: a distance from a known point and a line through a known point
  const Constraint* dist = find(ConstraintKind::Distance);
  const Constraint* line = find(ConstraintKind::Collinear2D);
  int A = -1;
  if (dist && line && isPointPair(dist->d[0], unknown, A) && line->e[1] == unknown) {
    g.solver = GroupSolver::RRPDyad;
    g.knownA = A;
    g.knownB = line->e[0];
    g.axis = line->e[2];
    g.lengthA = std::sqrt(dist->c[0]);
  }
}

// 1R3D: |B − A| = L, (B − A)·n = h, driven angle about the fixed axis n (A, n fixed);
// 2E1P: |C − B| = L with C on a fixed line P + s u (the AxisLine3D of a prismatic joint)
void detectClosedForm3D(const NaturalModel& m, ModularGroup& g) {
  if (g.phi.size() != 3) return;
  int unknown = -1;
  for (std::size_t e = 0; e < m.entities.size(); ++e)
    if (!m.entities[e].fixed() && m.entities[e].offset == g.phi[0] && !m.entities[e].isVector) unknown = static_cast<int>(e);
  if (unknown < 0) return;
  auto fixed = [&](int e) { return e >= 0 && m.entities[static_cast<std::size_t>(e)].fixed(); };
  const Constraint *dist = nullptr, *dot = nullptr, *drive = nullptr, *line = nullptr;
  for (int ci : g.constraints) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    if (c.kind == ConstraintKind::Distance && !dist) dist = &c;
    else if (c.kind == ConstraintKind::DirDot && !dot) dot = &c;
    else if (c.kind == ConstraintKind::DriveAngle && !drive) drive = &c;
    else if (c.kind == ConstraintKind::AxisLine3D && !line) line = &c;
    else return;  // anything else: Newton–Raphson
  }
  int other = -1;
  if (!dist || !isPointPair(dist->d[0], unknown, other)) return;
  g.unknown = unknown;
  g.lengthA = std::sqrt(dist->c[0]);
  if (dot && drive && !line && g.constraints.size() == 3) {
    // the dot product must be (B − A)·n with the drive's fixed axis n, and A fixed
    const bool dotOnAxis = (dot->d[0].a == dist->d[0].a && dot->d[0].b == dist->d[0].b && dot->d[1].b < 0 &&
                            dot->d[1].a == drive->e[0]);
    if (!dotOnAxis || !fixed(other) || !fixed(drive->e[0]) || drive->d[0].b >= 0 || !fixed(drive->d[0].a) ||
        drive->d[1].a != dist->d[0].a || drive->d[1].b != dist->d[0].b)
      return;
    g.solver = GroupSolver::Crank3D;
    g.knownA = other;
    g.axis = drive->e[0];
    g.knownB = drive->d[0].a;  // the ground reference direction
    g.driverConstraint = static_cast<int>(drive - m.constraints.data());
    return;
  }
  if (line && !dot && !drive && g.constraints.size() == 2 && line->e[1] == unknown && fixed(line->e[0]) &&
      fixed(line->e[2]) && fixed(line->e[3])) {
    g.solver = GroupSolver::RodSlider3D;
    g.knownA = other;      // the rod's other end (known, may move)
    g.knownB = line->e[0]; // a point of the line
    g.axis = line->e[2];   // its direction
  }
}

// offsets and fixed values of the closed-form entities, so the step loop touches no Entity
void flatten(const NaturalModel& m, ModularGroup& g) {
  if (g.solver == GroupSolver::Generic) return;
  auto take = [&](int e, int& off, double* fix) {
    if (e < 0) return;
    const Entity& en = m.entities[static_cast<std::size_t>(e)];
    off = en.fixed() ? -1 : en.offset;
    fix[0] = en.value.x();
    fix[1] = en.value.y();
    fix[2] = en.value.z();
  };
  double dummy[3];
  take(g.unknown, g.offU, dummy);
  take(g.knownA, g.offA, g.fixA);
  take(g.knownB, g.offB, g.fixB);
  take(g.axis, g.offAxis, g.fixAxis);
  if (g.solver == GroupSolver::Crank2D) {
    const Constraint& drive = m.constraints[static_cast<std::size_t>(g.driverConstraint)];
    g.driver = drive.driver;
    g.angle0 = std::atan2(g.fixAxis[1], g.fixAxis[0]) + drive.c[0];
  }
  if (g.solver == GroupSolver::Crank3D) {
    const Constraint& drive = m.constraints[static_cast<std::size_t>(g.driverConstraint)];
    g.driver = drive.driver;
    g.angle0 = drive.c[0];
    const Eigen::Vector3d n = Eigen::Vector3d(g.fixAxis[0], g.fixAxis[1], g.fixAxis[2]).normalized();
    const Eigen::Vector3d ref = Eigen::Vector3d(g.fixB[0], g.fixB[1], g.fixB[2]);
    const Eigen::Vector3d gref = (ref - ref.dot(n) * n).normalized(), g2 = n.cross(gref);
    const Eigen::Vector3d rel = m.entities[static_cast<std::size_t>(g.unknown)].value -
                                Eigen::Vector3d(g.fixA[0], g.fixA[1], g.fixA[2]);
    g.along = rel.dot(n);
    g.radius = std::sqrt(std::max(0.0, g.lengthA * g.lengthA - g.along * g.along));
    for (int k = 0; k < 3; ++k) {
      g.fixAxis[k] = n[k];
      g.ref[k] = gref[k];
      g.ref2[k] = g2[k];
    }
  }
  if (g.solver == GroupSolver::RodSlider3D) {
    const Eigen::Vector3d u = Eigen::Vector3d(g.fixAxis[0], g.fixAxis[1], g.fixAxis[2]).normalized();
    for (int k = 0; k < 3; ++k) g.fixAxis[k] = u[k];
  }
  g.closedRates = g.derived.empty() && (g.solver != GroupSolver::RRPDyad || (g.offB < 0 && g.offAxis < 0));
}

}  // namespace

ModularModel compileModularModel(const NaturalModel& m, kin::Decomposition d, const Eigen::VectorXd& q) {
  ModularModel mm;
  mm.natural = &m;
  mm.decomposition = std::move(d);
  if (!mm.decomposition.ok) {
    mm.error = mm.decomposition.error;
    return mm;
  }
  std::vector<char> known(static_cast<std::size_t>(m.nq), 0), assigned(m.constraints.size(), 0);
  std::vector<char> entityKnown(m.entities.size(), 0);
  for (std::size_t e = 0; e < m.entities.size(); ++e) entityKnown[e] = m.entities[e].fixed();
  const int dim = m.dimension;
  for (std::size_t gi = 0; gi < mm.decomposition.groups.size(); ++gi) {
    const auto& sg = mm.decomposition.groups[gi];
    ModularGroup g;
    g.group = static_cast<int>(gi);
    // unknowns: entities carried by the group's bodies, not known yet
    std::vector<int> unknown;
    for (std::size_t e = 0; e < m.entities.size(); ++e) {
      if (entityKnown[e]) continue;
      const auto& owners = m.entities[e].bodies;
      if (std::any_of(owners.begin(), owners.end(),
                      [&](int b) { return std::binary_search(sg.bodies.begin(), sg.bodies.end(), b); }))
        unknown.push_back(static_cast<int>(e));
    }
    for (int e : unknown) {
      entityKnown[static_cast<std::size_t>(e)] = 1;
      for (int k = 0; k < dim; ++k) known[static_cast<std::size_t>(m.entities[static_cast<std::size_t>(e)].offset + k)] = 1;
    }
    // equations that become fully known with this group
    std::vector<int> rows;
    for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
      if (assigned[ci]) continue;
      const auto& cols = m.constraints[ci].columns;
      if (std::all_of(cols.begin(), cols.end(), [&](int c) { return known[static_cast<std::size_t>(c)] != 0; })) {
        assigned[ci] = 1;
        rows.push_back(static_cast<int>(ci));
      }
    }
    // Combo equations whose target nothing else in the group uses are evaluated afterwards (§2.7)
    std::vector<int> derivedEntities;
    for (int ci : rows) {
      const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
      if (c.kind != ConstraintKind::Combo) continue;
      const int target = c.e[0];
      if (std::find(unknown.begin(), unknown.end(), target) == unknown.end()) continue;
      bool usedElsewhere = false;
      for (int cj : rows) {
        if (cj == ci) continue;
        const auto es = entitiesOf(m.constraints[static_cast<std::size_t>(cj)]);
        usedElsewhere |= std::find(es.begin(), es.end(), target) != es.end();
      }
      if (!usedElsewhere) {
        g.derived.push_back(ci);
        derivedEntities.push_back(target);
      }
    }
    for (int ci : rows)
      if (std::find(g.derived.begin(), g.derived.end(), ci) == g.derived.end()) {
        g.constraints.push_back(ci);
        g.p += m.constraints[static_cast<std::size_t>(ci)].rows;
      }
    for (int e : unknown)
      if (std::find(derivedEntities.begin(), derivedEntities.end(), e) == derivedEntities.end())
        for (int k = 0; k < dim; ++k) g.phi.push_back(m.entities[static_cast<std::size_t>(e)].offset + k);
    std::set<int> h;
    for (int ci : g.constraints)
      for (int c : m.constraints[static_cast<std::size_t>(ci)].columns)
        if (std::find(g.phi.begin(), g.phi.end(), c) == g.phi.end()) h.insert(c);
    g.h.assign(h.begin(), h.end());
    const int r = static_cast<int>(g.phi.size());
    if (g.p < r) {
      mm.error = "group " + groupName(m, sg) + " has " + std::to_string(g.p) + " equations for " +
                 std::to_string(r) + " unknown coordinates: it is not kinematically determined";
      return mm;
    }
    // Eq. 14 is only necessary: the group's Jacobian must have full column rank
    if (r > 0) {
      Eigen::MatrixXd J = Eigen::MatrixXd::Zero(g.p, r);
      int row = 0;
      for (int ci : g.constraints) {
        const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
        Jet out[3];
        for (int k = 0; k < r; ++k) {
          constraintJet(m, c, q, nullptr, g.phi[static_cast<std::size_t>(k)], 0.0, 0.0, out);
          for (int i = 0; i < c.rows; ++i) J(row + i, k) = out[i].d;
        }
        row += c.rows;
      }
      Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J);
      qr.setThreshold(1e-9);
      if (qr.rank() < r) {
        mm.error = "group " + groupName(m, sg) + " is not kinematically determined at the assembled "
                   "position: its Jacobian has rank " + std::to_string(qr.rank()) + " for " +
                   std::to_string(r) + " unknowns (a passive freedom or a singular position)";
        return mm;
      }
    }
    detectClosedForm(m, g);
    flatten(m, g);
    mm.groups.push_back(std::move(g));
  }
  return mm;
}

ModularData::ModularData(const ModularModel& model, KinematicsOptions o)
    : options(o), q(model.natural->q0), qd(Eigen::VectorXd::Zero(model.natural->nq)),
      qdd(Eigen::VectorXd::Zero(model.natural->nq)), dir(Eigen::VectorXd::Zero(model.natural->nq)) {
  for (const auto& g : model.groups)
    groups.push_back(std::make_unique<GroupBuffers>(g.p, static_cast<int>(g.phi.size()), static_cast<int>(g.h.size())));
  branch.assign(model.groups.size(), 1.0);
}
ModularData::~ModularData() = default;
ModularData::ModularData(ModularData&&) noexcept = default;

namespace {

Eigen::Vector2d pt(const NaturalModel& m, const Eigen::VectorXd& q, int e) {
  const Entity& en = m.entities[static_cast<std::size_t>(e)];
  return en.fixed() ? Eigen::Vector2d(en.value.head<2>()) : Eigen::Vector2d(q.segment<2>(en.offset));
}

double cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

// assembly mode of a closed-form group at q
double branchOf(const NaturalModel& m, const ModularGroup& g, const Eigen::VectorXd& q) {
  switch (g.solver) {
    case GroupSolver::RRRDyad: {
      const Eigen::Vector2d A = pt(m, q, g.knownA), B = pt(m, q, g.knownB), C = pt(m, q, g.unknown);
      return cross2(B - A, C - A) >= 0 ? 1.0 : -1.0;
    }
    case GroupSolver::RRPDyad: {
      const Eigen::Vector2d A = pt(m, q, g.knownA), P = pt(m, q, g.knownB), C = pt(m, q, g.unknown);
      const Eigen::Vector2d u = pt(m, q, g.axis).normalized();
      return (C - P).dot(u) - (A - P).dot(u) >= 0 ? 1.0 : -1.0;
    }
    case GroupSolver::RodSlider3D: {
      const Eigen::Vector3d A = g.offA >= 0 ? Eigen::Vector3d(q.segment<3>(g.offA)) : Eigen::Vector3d(g.fixA[0], g.fixA[1], g.fixA[2]);
      const Eigen::Vector3d P(g.fixB[0], g.fixB[1], g.fixB[2]), u(g.fixAxis[0], g.fixAxis[1], g.fixAxis[2]);
      const Eigen::Vector3d C = q.segment<3>(m.entities[static_cast<std::size_t>(g.unknown)].offset);
      return (C - P).dot(u) - (A - P).dot(u) >= 0 ? 1.0 : -1.0;
    }
    default: return 1.0;
  }
}

// J (p × r) of the group's equations at data.q
void groupJacobian(const NaturalModel& m, const ModularGroup& g, ModularData& d, GroupBuffers& b) {
  b.J.setZero();
  int row = 0;
  Jet out[3];
  for (int ci : g.constraints) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    for (std::size_t k = 0; k < g.phi.size(); ++k) {
      if (!std::binary_search(c.columns.begin(), c.columns.end(), g.phi[k])) continue;
      constraintJet(m, c, d.q, nullptr, g.phi[k], d.t, 0.0, out);
      for (int i = 0; i < c.rows; ++i) b.J(row + i, static_cast<Eigen::Index>(k)) = out[i].d;
    }
    row += c.rows;
  }
}

bool factor(const ModularGroup& g, GroupBuffers& b, double& rcond) {
  if (g.p == static_cast<int>(g.phi.size())) {
    b.lu.compute(b.J);
    rcond = b.lu.rcond();
  } else {
    b.qr.compute(b.J);
    const double top = std::abs(b.qr.matrixR()(0, 0));
    const double bottom = std::abs(b.qr.matrixR()(static_cast<Eigen::Index>(g.phi.size()) - 1,
                                                  static_cast<Eigen::Index>(g.phi.size()) - 1));
    rcond = top > 0 ? bottom / top : 0;
  }
  return std::isfinite(rcond);
}

void solve(const ModularGroup& g, GroupBuffers& b) {
  if (g.p == static_cast<int>(g.phi.size())) b.sol.noalias() = b.lu.solve(b.rhs);
  else b.sol.noalias() = b.qr.solve(b.rhs);
}

// the group's rows on jets seeded with `seed` on the coordinates `cols` (others 0) and time dt;
// first derivatives into rhs (sign −1), second derivatives added when `second`
void directional(const NaturalModel& m, const ModularGroup& g, ModularData& d, GroupBuffers& b,
                 const Eigen::VectorXd& seed, const std::vector<int>& cols, double dt, bool useFull, bool second) {
  if (!useFull)
    for (int c : cols) d.dir[c] = seed[c];
  const Eigen::VectorXd& dirv = useFull ? seed : d.dir;
  int row = 0;
  Jet out[3];
  for (int ci : g.constraints) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    constraintJet(m, c, d.q, &dirv, -1, d.t, dt, out);
    for (int i = 0; i < c.rows; ++i) b.rhs[row + i] -= second ? out[i].dd : out[i].d;
    row += c.rows;
  }
  if (!useFull)
    for (int c : cols) d.dir[c] = 0;
}

// entities that follow rigidly from the group (Combo constraints are x_e = f(others), linear in x_e)
void derivedPositions(const NaturalModel& m, const ModularGroup& g, ModularData& d) {
  double r[3];
  for (int ci : g.derived) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    constraintValue(m, c, d.q, d.t, r);
    const int off = m.entities[static_cast<std::size_t>(c.e[0])].offset;
    for (int k = 0; k < c.rows; ++k) d.q[off + k] -= r[k];
  }
}
void derivedVelocities(const NaturalModel& m, const ModularGroup& g, ModularData& d) {
  Jet r[3];
  for (int ci : g.derived) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    constraintJet(m, c, d.q, &d.qd, -1, d.t, 1.0, r);
    const int off = m.entities[static_cast<std::size_t>(c.e[0])].offset;
    for (int k = 0; k < c.rows; ++k) d.qd[off + k] -= r[k].d;
  }
}
void derivedAccelerations(const NaturalModel& m, const ModularGroup& g, ModularData& d) {
  Jet a[3], v[3];
  for (int ci : g.derived) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    constraintJet(m, c, d.q, &d.qdd, -1, d.t, 0.0, a);
    constraintJet(m, c, d.q, &d.qd, -1, d.t, 1.0, v);
    const int off = m.entities[static_cast<std::size_t>(c.e[0])].offset;
    for (int k = 0; k < c.rows; ++k) d.qdd[off + k] -= a[k].d + v[k].dd;
  }
}

// a planar point of the flattened closed-form data: a coordinate or a fixed value
inline Eigen::Vector2d at(const Eigen::VectorXd& v, int off, const double* fix) {
  return off >= 0 ? Eigen::Vector2d(v[off], v[off + 1]) : Eigen::Vector2d(fix[0], fix[1]);
}
inline Eigen::Vector2d rate(const Eigen::VectorXd& v, int off) {
  return off >= 0 ? Eigen::Vector2d(v[off], v[off + 1]) : Eigen::Vector2d::Zero();
}

// false when the group cannot close; `why` (if given) then says why. No allocation otherwise: this
// runs for every dyad of every step.
bool closedFormPosition(const NaturalModel& m, const ModularGroup& g, ModularData& d, double branch,
                        std::string* why) {
  double* C = d.q.data() + g.offU;
  switch (g.solver) {
    case GroupSolver::Crank2D: {
      const double phi = g.angle0 + m.drivers[static_cast<std::size_t>(g.driver)].value(d.t);
      C[0] = g.fixA[0] + g.lengthA * std::cos(phi);
      C[1] = g.fixA[1] + g.lengthA * std::sin(phi);
      return true;
    }
    case GroupSolver::RRRDyad: {
      const Eigen::Vector2d A = at(d.q, g.offA, g.fixA), B = at(d.q, g.offB, g.fixB);
      const Eigen::Vector2d AB = B - A;
      // C = A + k AB ± h R90 AB with k = a/|AB|, h = √(L_A² − a²)/|AB|: one division, one root
      const double dist2 = AB.squaredNorm(), inv2 = 1 / dist2;
      const double k = 0.5 * (g.lengthA * g.lengthA - g.lengthB * g.lengthB + dist2) * inv2;
      const double h2 = g.lengthA * g.lengthA * inv2 - k * k;
      if (!(h2 >= 0) || !(dist2 > 0))
        {
        if (why) *why = "the dyad cannot close at t = " + shortNumber(d.t) + ": its two links (" + shortNumber(g.lengthA) + " and " +
                           shortNumber(g.lengthB) + " m) cannot reach points " + shortNumber(std::sqrt(dist2)) + " m apart";
        return false;
      }
      const double h = branch * std::sqrt(h2);
      C[0] = A.x() + k * AB.x() - h * AB.y();
      C[1] = A.y() + k * AB.y() + h * AB.x();
      return true;
    }
    case GroupSolver::RRPDyad: {
      const Eigen::Vector2d A = at(d.q, g.offA, g.fixA), P = at(d.q, g.offB, g.fixB);
      const Eigen::Vector2d u = at(d.q, g.offAxis, g.fixAxis).normalized();
      const double along = (A - P).dot(u);
      const double off2 = (A - P).squaredNorm() - along * along;  // squared distance of A from the line
      const double disc = g.lengthA * g.lengthA - off2;
      if (!(disc >= 0))
        {
        if (why) *why = "the slider cannot reach its guide at t = " + shortNumber(d.t) + ": the link (" + shortNumber(g.lengthA) +
                           " m) is shorter than the distance to the line (" + shortNumber(std::sqrt(off2)) + " m)";
        return false;
      }
      const Eigen::Vector2d c = P + (along + branch * std::sqrt(disc)) * u;
      C[0] = c.x();
      C[1] = c.y();
      return true;
    }
    case GroupSolver::Crank3D: {
      const double phi = g.angle0 + m.drivers[static_cast<std::size_t>(g.driver)].value(d.t);
      const double c = std::cos(phi) * g.radius, s = std::sin(phi) * g.radius;
      for (int k = 0; k < 3; ++k) C[k] = g.fixA[k] + g.along * g.fixAxis[k] + c * g.ref[k] + s * g.ref2[k];
      return true;
    }
    case GroupSolver::RodSlider3D: {
      const Eigen::Vector3d A = g.offA >= 0 ? Eigen::Vector3d(d.q.segment<3>(g.offA)) : Eigen::Vector3d(g.fixA[0], g.fixA[1], g.fixA[2]);
      const Eigen::Vector3d P(g.fixB[0], g.fixB[1], g.fixB[2]), u(g.fixAxis[0], g.fixAxis[1], g.fixAxis[2]);
      const double along = (A - P).dot(u);
      const double disc = g.lengthA * g.lengthA - ((A - P).squaredNorm() - along * along);
      if (!(disc >= 0))
        {
        if (why) *why = "the rod cannot reach its slider's line at t = " + shortNumber(d.t) + " (rod " + shortNumber(g.lengthA) + " m)";
        return false;
      }
      const double sAlong = along + branch * std::sqrt(disc);
      for (int k = 0; k < 3; ++k) C[k] = P[k] + sAlong * u[k];
      return true;
    }
    default: return true;
  }
}

// Closed-form velocities and TD accelerations (Eqs. 22, 30 with the explicit 2×2 inverse, Eq. 20)
// of the crank and the dyads. Returns false when the group's 2×2 matrix is singular.
bool closedFormRates3D(const NaturalModel& m, const ModularGroup& g, ModularData& d) {
  const Eigen::Vector3d C = d.q.segment<3>(g.offU);
  if (g.solver == GroupSolver::Crank3D) {
    const TimeFunction& f = m.drivers[static_cast<std::size_t>(g.driver)];
    const double phi = g.angle0 + f.value(d.t), w = f.rate(d.t), wd = f.acceleration(d.t);
    const double c = std::cos(phi) * g.radius, s = std::sin(phi) * g.radius;
    for (int k = 0; k < 3; ++k) {
      const double radial = c * g.ref[k] + s * g.ref2[k], tangent = -s * g.ref[k] + c * g.ref2[k];
      d.qd[g.offU + k] = w * tangent;
      d.qdd[g.offU + k] = wd * tangent - w * w * radial;
    }
    return true;
  }
  // RodSlider3D: C = P + s u, (C − A)·(ṡ u − Ȧ) = 0 and its derivative
  const Eigen::Vector3d A = g.offA >= 0 ? Eigen::Vector3d(d.q.segment<3>(g.offA)) : Eigen::Vector3d(g.fixA[0], g.fixA[1], g.fixA[2]);
  const Eigen::Vector3d u(g.fixAxis[0], g.fixAxis[1], g.fixAxis[2]), a = C - A;
  const double den = a.dot(u);
  if (!(std::abs(den) > 1e-12 * a.norm())) return false;  // rod perpendicular to the line
  const Eigen::Vector3d va = g.offA >= 0 ? Eigen::Vector3d(d.qd.segment<3>(g.offA)) : Eigen::Vector3d::Zero();
  const Eigen::Vector3d aa = g.offA >= 0 ? Eigen::Vector3d(d.qdd.segment<3>(g.offA)) : Eigen::Vector3d::Zero();
  const Eigen::Vector3d v = (a.dot(va) / den) * u;
  d.qd.segment<3>(g.offU) = v;
  d.qdd.segment<3>(g.offU) = ((a.dot(aa) - (v - va).squaredNorm()) / den) * u;
  return true;
}

bool closedFormRates(const NaturalModel& m, const ModularGroup& g, ModularData& d) {
  if (m.dimension == 3) return closedFormRates3D(m, g, d);
  const Eigen::Vector2d C(d.q[g.offU], d.q[g.offU + 1]);
  double* V = d.qd.data() + g.offU;
  double* Acc = d.qdd.data() + g.offU;
  switch (g.solver) {
    case GroupSolver::Crank2D: {
      const TimeFunction& f = m.drivers[static_cast<std::size_t>(g.driver)];
      const double w = f.rate(d.t), wd = f.acceleration(d.t);
      const double rx = C.x() - g.fixA[0], ry = C.y() - g.fixA[1];  // A is fixed
      V[0] = -w * ry;
      V[1] = w * rx;
      Acc[0] = -wd * ry - w * w * rx;
      Acc[1] = wd * rx - w * w * ry;
      return true;
    }
    case GroupSolver::RRRDyad: {
      // (C − A)·(Ċ − Ȧ) = 0, (C − B)·(Ċ − Ḃ) = 0 and their time derivatives
      const Eigen::Vector2d a = C - at(d.q, g.offA, g.fixA), b = C - at(d.q, g.offB, g.fixB);
      const double det = a.x() * b.y() - a.y() * b.x();
      if (!(std::abs(det) > 1e-12 * (a.squaredNorm() + b.squaredNorm()))) return false;  // toggle
      const double inv = 1 / det;
      const Eigen::Vector2d va = rate(d.qd, g.offA), vb = rate(d.qd, g.offB);
      double ra = a.dot(va), rb = b.dot(vb);
      const double vx = (ra * b.y() - a.y() * rb) * inv, vy = (a.x() * rb - b.x() * ra) * inv;
      V[0] = vx;
      V[1] = vy;
      const Eigen::Vector2d v(vx, vy);
      ra = a.dot(rate(d.qdd, g.offA)) - (v - va).squaredNorm();
      rb = b.dot(rate(d.qdd, g.offB)) - (v - vb).squaredNorm();
      Acc[0] = (ra * b.y() - a.y() * rb) * inv;
      Acc[1] = (a.x() * rb - b.x() * ra) * inv;
      return true;
    }
    case GroupSolver::RRPDyad: {
      // C = P + s u on a guide fixed to the ground: (C − A)·(ṡ u − Ȧ) = 0
      const Eigen::Vector2d a = C - at(d.q, g.offA, g.fixA);
      const Eigen::Vector2d u = Eigen::Vector2d(g.fixAxis[0], g.fixAxis[1]).normalized();
      const double den = a.dot(u);
      if (!(std::abs(den) > 1e-12 * a.norm())) return false;  // rod perpendicular to the guide
      const Eigen::Vector2d va = rate(d.qd, g.offA);
      const Eigen::Vector2d v = (a.dot(va) / den) * u;
      V[0] = v.x();
      V[1] = v.y();
      const Eigen::Vector2d acc = ((a.dot(rate(d.qdd, g.offA)) - (v - va).squaredNorm()) / den) * u;
      Acc[0] = acc.x();
      Acc[1] = acc.y();
      return true;
    }
    default: return false;
  }
}

Status groupPosition(const NaturalModel& m, const ModularGroup& g, ModularData& d, GroupBuffers& b,
                        double branch, int& iterations) {
  if (g.solver != GroupSolver::Generic) {
    std::string why;
    if (!closedFormPosition(m, g, d, branch, &why)) return failure(Status::Code::NotConverged, d.t, why);
    return {};
  }
  const double tol = d.options.tolerance * (m.mechanism ? m.mechanism->lengthScale() : 1.0);
  for (int it = 0;; ++it) {
    int row = 0;
    double err = 0;
    double r[3];
    for (int ci : g.constraints) {
      const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
      constraintValue(m, c, d.q, d.t, r);
      for (int i = 0; i < c.rows; ++i) {
        b.rhs[row + i] = -r[i];
        err = std::max(err, std::abs(r[i]));
      }
      row += c.rows;
    }
    if (err < tol) return {};
    if (it == d.options.maxIterations)
      return failure(Status::Code::NotConverged, d.t,
                     "the position problem did not converge at t = " + shortNumber(d.t) + " (residual " + shortNumber(err) + ")");
    groupJacobian(m, g, d, b);
    double rcond = 0;
    if (!factor(g, b, rcond) || rcond < d.options.singularRcond)
      return failure(Status::Code::Singular, d.t,
                     "singular position at t = " + shortNumber(d.t) + " (condition number " +
                         (rcond > 0 ? shortNumber(1 / rcond) : std::string("infinite")) + ")",
                     rcond > 0 ? 1 / rcond : 0);
    solve(g, b);
    for (std::size_t k = 0; k < g.phi.size(); ++k) d.q[g.phi[k]] += b.sol[static_cast<Eigen::Index>(k)];
    ++iterations;
  }
}

// 3OT (Eqs. 33–39) with time as an extra independent coordinate, so that driven groups
// (rheonomic) need no separate term: φ̈ = K ḧ + Σ_i ḣ_i L_i ḣ, L_i = dK/dh_i.
void thirdOrderTensor(const NaturalModel& m, const ModularGroup& g, ModularData& d, GroupBuffers& b) {
  const int r = static_cast<int>(g.phi.size()), s = static_cast<int>(g.h.size());
  // [Φ_h Φ_t] and K
  b.Jh.setZero();
  Jet out[3];
  int row = 0;
  for (int ci : g.constraints) {
    const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
    for (int k = 0; k < s; ++k) {
      if (!std::binary_search(c.columns.begin(), c.columns.end(), g.h[static_cast<std::size_t>(k)])) continue;
      constraintJet(m, c, d.q, nullptr, g.h[static_cast<std::size_t>(k)], d.t, 0.0, out);
      for (int i = 0; i < c.rows; ++i) b.Jh(row + i, k) = out[i].d;
    }
    constraintJet(m, c, d.q, &d.dir, -1, d.t, 1.0, out);  // dir is zero: Φ_t
    for (int i = 0; i < c.rows; ++i) b.Jh(row + i, s) = out[i].d;
    row += c.rows;
  }
  for (int k = 0; k <= s; ++k) {
    b.rhs = -b.Jh.col(k);
    solve(g, b);
    b.K.col(k) = b.sol;
  }
  for (int k = 0; k < s; ++k) {
    b.hd[k] = d.qd[g.h[static_cast<std::size_t>(k)]];
    b.hdd[k] = d.qdd[g.h[static_cast<std::size_t>(k)]];
  }
  b.hd[s] = 1;
  b.hdd[s] = 0;
  // mixed second derivatives ∂²Φ/∂q_j∂v by polarisation: (D²(e_j + v) − D²(e_j − v)) / 4
  auto second = [&](int col, double colSign, int i, double vsign, Eigen::Index rowBase, const Constraint& c, Jet* o) {
    // direction: colSign·e_col + vsign·v_i, v_i = (K(:, i) on φ, e_i on h or time)
    for (int k = 0; k < r; ++k) d.dir[g.phi[static_cast<std::size_t>(k)]] = vsign * b.K(k, i);
    if (i < s) d.dir[g.h[static_cast<std::size_t>(i)]] += vsign;
    if (col >= 0) d.dir[col] += colSign;
    constraintJet(m, c, d.q, &d.dir, -1, d.t, i == s ? vsign : 0.0, o);
    for (int k = 0; k < r; ++k) d.dir[g.phi[static_cast<std::size_t>(k)]] = 0;
    if (i < s) d.dir[g.h[static_cast<std::size_t>(i)]] = 0;
    if (col >= 0) d.dir[col] = 0;
    (void)rowBase;
  };
  b.acc.noalias() = b.K * b.hdd;
  for (int i = 0; i <= s; ++i) {
    // Φ_{φ/h_i} (p × r) and Φ_{h/h_i} (p × (s+1)), the time column being ∂Φ_t/∂v_i
    row = 0;
    for (int ci : g.constraints) {
      const Constraint& c = m.constraints[static_cast<std::size_t>(ci)];
      Jet plus[3], minus[3];
      auto column = [&](int col, bool timeColumn, Eigen::MatrixXd& dest, Eigen::Index j) {
        // time as a direction: seed dt = ±1 on top of v_i
        if (timeColumn) {
          for (int k = 0; k < r; ++k) d.dir[g.phi[static_cast<std::size_t>(k)]] = b.K(k, i);
          if (i < s) d.dir[g.h[static_cast<std::size_t>(i)]] += 1;
          const double vt = i == s ? 1.0 : 0.0;
          constraintJet(m, c, d.q, &d.dir, -1, d.t, vt + 1.0, plus);
          constraintJet(m, c, d.q, &d.dir, -1, d.t, vt - 1.0, minus);
          // (e_t − v) = −(v − e_t): same second derivative as (v − e_t)
          for (int k = 0; k < r; ++k) d.dir[g.phi[static_cast<std::size_t>(k)]] = 0;
          if (i < s) d.dir[g.h[static_cast<std::size_t>(i)]] = 0;
        } else {
          second(col, 1.0, i, 1.0, row, c, plus);
          second(col, -1.0, i, 1.0, row, c, minus);
        }
        for (int k = 0; k < c.rows; ++k) dest(row + k, j) = (plus[k].dd - minus[k].dd) / 4;
      };
      for (int k = 0; k < r; ++k) column(g.phi[static_cast<std::size_t>(k)], false, b.Dphi, k);
      for (int k = 0; k < s; ++k) column(g.h[static_cast<std::size_t>(k)], false, b.Dh, k);
      column(-1, true, b.Dh, s);
      row += c.rows;
    }
    // Φ_φ L_i = −(Φ_{h/h_i} + Φ_{φ/h_i} K)
    b.tmp = b.Dh;
    b.tmp.noalias() += b.Dphi * b.K;
    for (int k = 0; k <= s; ++k) {
      b.rhs = -b.tmp.col(k);
      solve(g, b);
      b.L.col(k) = b.sol;
    }
    b.lh.noalias() = b.L * b.hd;
    b.acc += b.hd[i] * b.lh;
  }
}

}  // namespace

void startModular(const ModularModel& model, ModularData& d, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                  const Eigen::VectorXd& qdd, double t) {
  d.q = q;
  d.qd = qd;
  d.qdd = qdd;
  d.t = t;
  for (std::size_t i = 0; i < model.groups.size(); ++i) d.branch[i] = branchOf(*model.natural, model.groups[i], q);
}

Status modularStep(const ModularModel& model, ModularData& d, double t) {
  const NaturalModel& m = *model.natural;
  const double h = t - d.t;
  d.q += h * d.qd + 0.5 * h * h * d.qdd;  // predictor for the Newton groups
  d.t = t;
  d.iterations = 0;
  for (std::size_t gi = 0; gi < model.groups.size(); ++gi) {
    const ModularGroup& g = model.groups[gi];
    GroupBuffers& b = *d.groups[gi];
    using Clock = std::chrono::steady_clock;
    auto lap = [&, t0 = d.profile ? Clock::now() : Clock::time_point{}](int stage) mutable {
      if (!d.profile) return;
      const auto now = Clock::now();
      d.stageSeconds[stage] += std::chrono::duration<double>(now - t0).count();
      t0 = now;
    };
    // hot path: a closed-form group solved in place, nothing built unless it fails
    if (g.closedRates && d.acceleration == AccelerationMethod::TD && !d.profile &&
        closedFormPosition(m, g, d, d.branch[gi], nullptr) && closedFormRates(m, g, d))
      continue;
    Status s = groupPosition(m, g, d, b, d.branch[gi], d.iterations);
    if (!s.ok()) {
      s.message += " in group " + groupName(m, model.decomposition.groups[static_cast<std::size_t>(g.group)]) + " (" +
                   model.decomposition.groups[static_cast<std::size_t>(g.group)].name + ")";
      return s;
    }
    derivedPositions(m, g, d);
    lap(0);
    if (d.acceleration == AccelerationMethod::TD && g.closedRates) {
      if (!closedFormRates(m, g, d)) {
        const auto& sg = model.decomposition.groups[static_cast<std::size_t>(g.group)];
        return failure(Status::Code::Singular, t,
                       "singular position at t = " + shortNumber(t) + " in group " + groupName(m, sg) + " (" + sg.name +
                           "): its links are aligned (toggle or dead centre, condition number above 1e12), "
                           "velocities are not determined",
                       std::numeric_limits<double>::infinity());
      }
      lap(2);
      continue;
    }
    if (g.phi.empty()) {
      derivedVelocities(m, g, d);
      derivedAccelerations(m, g, d);
      continue;
    }
    // velocity: Φ_φ φ̇ = −(Φ_h ḣ + Φ_t)
    groupJacobian(m, g, d, b);
    double rcond = 0;
    if (!factor(g, b, rcond) || rcond < d.options.singularRcond) {
      const auto& sg = model.decomposition.groups[static_cast<std::size_t>(g.group)];
      return failure(Status::Code::Singular, t,
                     "singular position at t = " + shortNumber(t) + " in group " + groupName(m, sg) + " (" + sg.name +
                         "): its Jacobian lost rank (condition number " +
                         (rcond > 0 ? shortNumber(1 / rcond) : std::string("infinite")) + ")",
                     rcond > 0 ? 1 / rcond : 0);
    }
    b.rhs.setZero();
    directional(m, g, d, b, d.qd, g.h, 1.0, false, false);
    solve(g, b);
    for (std::size_t k = 0; k < g.phi.size(); ++k) d.qd[g.phi[k]] = b.sol[static_cast<Eigen::Index>(k)];
    derivedVelocities(m, g, d);
    lap(1);
    // acceleration
    if (d.acceleration == AccelerationMethod::TD) {
      // Φ_φ φ̈ = −(Φ_h ḧ + γ), γ over the group's rows with every velocity known
      b.rhs.setZero();
      directional(m, g, d, b, d.qdd, g.h, 0.0, false, false);
      directional(m, g, d, b, d.qd, g.h, 1.0, true, true);
      solve(g, b);
      for (std::size_t k = 0; k < g.phi.size(); ++k) d.qdd[g.phi[k]] = b.sol[static_cast<Eigen::Index>(k)];
    } else {
      thirdOrderTensor(m, g, d, b);
      for (std::size_t k = 0; k < g.phi.size(); ++k) d.qdd[g.phi[k]] = b.acc[static_cast<Eigen::Index>(k)];
    }
    derivedAccelerations(m, g, d);
    lap(2);
  }
  return {};
}

}  // namespace lw::kin
