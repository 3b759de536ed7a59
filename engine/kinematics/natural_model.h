// The natural-coordinate model (seed 002 §1; García de Jalón's natural coordinates): the
// coordinates q are the world components of "entities" — points and unit vectors — that bodies
// share where joints make them coincide, and the constraints Φ(q, t) = 0 keep every body rigid,
// every joint closed and every driver on its prescribed motion.
//
// Compiled once from a ResolvedMechanism, immutable afterwards (G1). Every buffer a run needs lives
// in kin::GlobalData (global_solver.h), never here.
#pragma once

#include <cassert>
#include <memory>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "numeric/jet.h"
#include "mechanism/resolved.h"

namespace lw::kin {

/// Where a stored world value the compiler read comes from, so that the model's constants can be
/// computed again on other numbers (natural_numbers.h: the parameters' partials by forward AD).
struct WorldSource {
  enum class Kind {
    Point,       // point `index` of body `body`, in world
    Vector,      // vector `index` of body `body`, in world, unit
    Position,    // body `body`'s stored position (a body's own origin)
    Column,      // column `index` of body `body`'s stored rotation
    Orthogonal,  // a unit vector normal to vector `index` of body `body` (Eigen's unitOrthogonal)
    Normal,      // d × d' of body `body`'s own frame, unit (a linear frame's third vector)
    Constant,    // `constant`
  };
  Kind kind = Kind::Constant;
  int body = -1, index = -1;
  Eigen::Vector3d constant = Eigen::Vector3d::Zero();
};

/// A point or a unit vector of the model. Coordinates, or fixed (ground).
struct Entity {
  bool isVector = false;
  int offset = -1;                 // first coordinate in q; -1 when fixed
  Eigen::Vector3d value = Eigen::Vector3d::Zero();  // stored configuration (the value, if fixed)
  std::string name;                // "crank.B" (the first item merged into it), or "crank#axis"
  std::vector<int> bodies;         // bodies that carry it (sorted); a joint's point has two
  WorldSource source;              // where `value` comes from
  bool fixed() const { return offset < 0; }
};

/// A direction of a body: entity `a` (a vector), or entity `a` minus entity `b` (two points).
struct Direction {
  int a = -1;
  int b = -1;
};

enum class ConstraintKind {
  UnitNorm,         // |u|² − 1                                                         1 row
  Distance,         // |d|² − c0                              (rigid body, d = P − O)       1 row
  DirDot,           // d·d' − c0                              (rigid body, universal)      1 row
  Combo,            // x(e) − [O] − (c0 d + c1 R90 d)  (2D), − (c0 d + c1 d' + c2 d×d') (3D)  dim rows
                    //   (linear frames: c2 w, the body's third vector, for d×d')
  Collinear2D,      // (Q − P) × u                            (slider)                     1 row
  AxisLine3D,       // (Q − P)·w, (Q − P)·(u × w)             (prismatic, cylindrical)      2 rows
  DriveAngle,       // cos α (d×d')·n − sin α (d·d' − (d·n)(d'·n)),  α = c0 + f(t)          1 row
  DriveSlide,       // (Q − P)·u − (c0 + f(t))                                            1 row
  DriveCoordinate,  // x(P)[component] − f(t)                                             1 row
  DriveDistance,    // |Q − P|² − f(t)²                                                   1 row
  PlaneGap,         // (p − F)·n − radius: a contact held closed (p, F body points, n a body  1 row
                    //   vector; e = {p's body, p, F's body, F}, `component` n's body, c0..c2
                    //   n's coefficients in its body's basis, c3 the radius)
};

/// Where a constraint comes from, for diagnostics ("joint 'B'", "body 'crank'").
struct ConstraintSource {
  enum class Kind { Body, Joint, Driver, Vector, Contact, Limit };
  Kind kind = Kind::Body;
  int index = -1;  // body, joint, driver, entity, contact or limit index
};

struct Constraint {
  ConstraintKind kind = ConstraintKind::Distance;
  int e[4] = {-1, -1, -1, -1};  // entities (meaning per kind, see natural_model.cpp)
  Direction d[3];                // directions (Distance, DirDot, Combo, DriveAngle); d[2]: a linear frame's third
  double c[4] = {0, 0, 0, 0};    // constants
  int driver = -1;               // Drive*: index into NaturalModel::drivers
  int component = 0;             // DriveCoordinate; PlaneGap: the normal's body
  int rows = 1;
  int row = 0;                   // first row in Φ
  ConstraintSource source;
  std::vector<int> columns;      // q indices the constraint depends on (sorted, unique)
};

/// How every point of a body follows from its entities: p = O + a·d + b·R90·d (2D) or
/// p = O + a·d + b·d' + c·(d × d') (3D), coefficients from the stored configuration; with linear
/// frames p = O + a·d + b·d' + c·w, w a third unit vector of the body kept normal to d and d'.
struct BodyFrame {
  int origin = -1;  // point entity
  Direction d[3];   // 3D spin-free bodies have d[1].a = -1; d[2]: the linear frame's third (or none)
  std::vector<Eigen::Vector3d> pointCoefficients;  // one per body point (ResolvedMechanism order)
  // A body held only by points on one line (a spherical–spherical rod) has no orientation
  // coordinate: its points are origin + R(axis0 → axis)·(stored offset), R the smallest rotation.
  bool spinFree = false;
  Eigen::Vector3d axis0 = Eigen::Vector3d::UnitX();  // stored unit axis
  // the body's entities as its own stored pose places them: where the stored configuration is not
  // assembled a merged entity's value is one side's, and the other body's shape (its inertia in
  // the frame, its points' places) must come from its own
  std::vector<std::pair<int, Eigen::Vector3d>> own;
  std::vector<WorldSource> ownSources;  // where each of `own`'s values comes from
  /// Entity e as this body places it (its merged value when the body does not carry it).
  Eigen::Vector3d ownValue(const std::vector<Entity>& entities, int e) const {
    for (const auto& [entity, world] : own)
      if (entity == e) return world;
    return entities[static_cast<std::size_t>(e)].value;
  }
  /// Direction d as this body places it.
  Eigen::Vector3d ownValue(const std::vector<Entity>& entities, const Direction& dir) const {
    const Eigen::Vector3d a = ownValue(entities, dir.a);
    return dir.b < 0 ? a : Eigen::Vector3d(a - ownValue(entities, dir.b));
  }
};

struct NaturalModel {
  int dimension = 2;
  int nq = 0;    // coordinates
  int nrows = 0; // constraint equations (including drivers)
  std::vector<Entity> entities;
  std::vector<Constraint> constraints;
  std::vector<BodyFrame> bodies;        // [0] ground: origin = -1, points are world-fixed
  std::vector<TimeFunction> drivers;    // by driver index of the mechanism
  std::vector<std::string> passiveSpins;  // names of the spin-free bodies (their passive freedom)
  std::vector<int> spinFreeBodies;        // their indices
  Eigen::VectorXd q0;                   // stored configuration
  // the source, the model's own immutable copy (shared by the model's copies)
  std::shared_ptr<const ResolvedMechanism> mechanism;

  /// Human-readable origin of a constraint row: "joint 'B'", "driver 'motor'"...
  std::string describeRow(int row) const;
};

struct NaturalOptions {
  // spatial bodies get a third unit vector w (normal to d and d', three more coordinates and
  // constraints) in place of d × d': every point is then linear in the coordinates and the mass
  // matrix constant — what the global formulations of the dynamics need; kinematics does without
  bool linearFrames = false;
};

/// A gap held closed (the global formulations' resting contacts, events/resting_contact.h): a row
/// appended after the drivers' — a contact's PlaneGap, a limit's joint held at `value` as a
/// driver would hold it (its coordinate less the stored one). Entities and coordinates stay
/// those of the model without them.
struct HeldGap {
  bool contact = true;
  int index = -1;    // the contact's, or the limit's
  double value = 0;  // a limit: the joint's coordinate held, less its stored value
  bool upper = false;  // a limit: its upper side (the constraint's `component`, 1)
};

/// Compiles the natural-coordinate model. `m` must outlive the result.
NaturalModel compileNaturalModel(const ResolvedMechanism& m, NaturalOptions options = {}, const std::vector<HeldGap>& held = {});

// ---- evaluation (constraints.cpp) -----------------------------------------------------------

/// Φ(q, t) into `phi` (nrows).
void evaluateConstraints(const NaturalModel& m, const Eigen::VectorXd& q, double t,
                         Eigen::VectorXd& phi);
/// Calls `sink(row, column, value)` for every structural nonzero of Φ_q, in a fixed order (the
/// same order every call, so a sparse matrix can be filled by position).
template <class Sink>
void evaluateJacobian(const NaturalModel& m, const Eigen::VectorXd& q, double t, Sink&& sink);
/// Φ_t (nrows).
void evaluatePhiT(const NaturalModel& m, const Eigen::VectorXd& q, double t, Eigen::VectorXd& phiT);
/// γ = Φ̇_q q̇ + Φ̇_t: the acceleration equation is Φ_q q̈ = −γ.
void evaluateGamma(const NaturalModel& m, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                   double t, Eigen::VectorXd& gamma);
/// Dense Φ_q (nrows × nq).
void evaluateJacobianDense(const NaturalModel& m, const Eigen::VectorXd& q, double t,
                           Eigen::MatrixXd& J);

/// World position, velocity and acceleration of point `point` of body `body`.
void pointKinematics(const NaturalModel& m, int body, int point, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, Eigen::Vector3d* r,
                     Eigen::Vector3d* v, Eigen::Vector3d* a);

/// One constraint's residual (c.rows values).
void constraintValue(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t,
                     double* out);
/// One constraint on Jets: coordinate i seeded with dir[i] (or, when dir is null, only column
/// `col` with 1), time with (t, dt, 0). `out` has c.rows entries.
void constraintJet(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q,
                   const Eigen::VectorXd* dir, int col, double t, double dt, Jet* out);

// ---- closed-form derivatives (constraint_derivatives.cpp) --------------------------------------

/// Constraint c's Jacobian block on its own columns, column-major: J[a·c.rows + r] =
/// ∂Φ_{c.row + r}/∂q_{c.columns[a]} (c.rows × c.columns.size() entries).
void constraintBlock(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, double* J);
/// H = Σ_r w[r] ∂²Φ_{c.row + r}/∂q_a∂q_b over c's columns (column-major, nc × nc, nc = c.columns.size()).
void constraintHessian(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t, const double* w, double* H);

namespace detail {
/// Column `col` of constraint `c`'s rows on jets (`out` has c.rows entries): the reference the
/// closed forms are tested against.
void constraintColumn(const NaturalModel& m, const Constraint& c, const Eigen::VectorXd& q, double t,
                      int col, double* out);
}  // namespace detail

/// The most entries of a constraint's Jacobian block: at most three rows over the coordinates of
/// its entities (four, and three directions of two each).
constexpr std::size_t kMaxBlockEntries = 3 * (4 + 3 * 2) * 3;

template <class Sink>
void evaluateJacobian(const NaturalModel& m, const Eigen::VectorXd& q, double t, Sink&& sink) {
  double block[kMaxBlockEntries];  // the step loops allocate nothing
  for (const Constraint& c : m.constraints) {
    assert(c.columns.size() * static_cast<std::size_t>(c.rows) <= kMaxBlockEntries);
    constraintBlock(m, c, q, t, block);
    const double* v = block;
    for (int j : c.columns)
      for (int r = 0; r < c.rows; ++r) sink(c.row + r, j, *v++);
  }
}

}  // namespace lw::kin
