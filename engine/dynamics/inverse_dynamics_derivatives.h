// The state derivatives of the tree's inverse dynamics by one recursive pass (Pinocchio's
// rnea-derivatives, in world axes; seed 000 §7.6's K = −Q^d_z, C = −Q^d_ż with M^d_z z̈): the
// residual τ(z, ż, z̈) = M^d z̈ − Q^d and its partials ∂τ/∂z, ∂τ/∂ż, exact, without a dual number.
//
// Every quantity is a spatial vector about the world origin: motions [v_O; ω], forces [F; n_O].
// A coordinate's motion column S_i is fixed in the frame that carries it, so a change of z_i moves
// everything after it rigidly by S_i: ∂S_j/∂z_i = S_i × S_j, ∂V_b/∂z_i = S_i × (V_b − V_i),
// ∂A_b/∂z_i = S_i × (A_b − A_i) − (S_i × V_i) × (V_b − V_i), ∂I_b/∂z_i = S_i ×* I_b − I_b S_i ×
// (V_i, A_i: the velocity and acceleration of the frame that carries S_i). The body wrenches'
// partials summed over a subtree are a few products of S_i, S_i × V_i and A_i's term with sums kept
// per subtree (composite inertia, ΣV ×* IV, ΣIA, ΣIV, the inertias' rate, mass, first moment), so
// the two matrices cost O(nb) for the sums and O(nz²) small dot products for the columns.
//
// Every joint: a quaternion node's columns turn with the quaternion itself, so its ∂V, ∂A and
// column turns are its own (detail::ColumnMotion, tree_motion.h) in the same sums. Gravity and
// every force element (tree torsion springs on their coordinates, the others by their laws along
// their bodies' twists).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <span>
#include <string>

#include "dynamics/recursive_model.h"

namespace lw::num {
template <int N> struct Dual;
}

namespace lw::dyn {

namespace detail {
struct MotionAtStateData;  // tree_motion.h
}

/// The tree's motion and inverse dynamics at one state on doubles, computed once and read by every
/// derivative kernel of that state (the state's Jacobians, the parameters' lanes): one motion pass
/// a point instead of one per kernel and per chunk of parameters.
class MotionAtState {
 public:
  MotionAtState();
  ~MotionAtState();
  MotionAtState(MotionAtState&&) noexcept;
  MotionAtState& operator=(MotionAtState&&) noexcept;
  /// The motion at (z, ż, z̈, t) with the numbers p, and τ = M^d z̈ − Q^d there.
  void compute(const RecursiveModel& m, const TreeNumbers<double>& p, const double* z, const double* zd, const double* zdd, double t);
  /// The same state with other accelerations z̈: the motion's accelerations moved along the
  /// columns (they are linear in z̈) and τ again, no second motion pass.
  void setAccelerations(const RecursiveModel& m, const TreeNumbers<double>& p, const double* zdd);
  const Eigen::VectorXd& tau() const;
  /// The points' r, v, a (3 per point each) in this motion.
  void points(const RecursiveModel& m, const TreeNumbers<double>& p, std::span<const ItemIndex> items, double* r, double* v, double* a) const;
  /// M^d at the state's z from its motion's columns (the composite-rigid-body sums).
  void massMatrix(const RecursiveModel& m, const TreeNumbers<double>& p, Eigen::MatrixXd& M) const;
  const detail::MotionAtStateData& data() const { return *data_; }

 private:
  std::unique_ptr<detail::MotionAtStateData> data_;
};

/// τ = M^d z̈ − Q^d (nz) and its partials τ_z = ∂τ/∂z, τ_zd = ∂τ/∂ż (nz × nz) at (z, ż, z̈, t)
/// with the numbers p (the model's geometry; a run's switch states), every tree.
void inverseDynamicsDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const Eigen::VectorXd& z,
                                const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, double t, Eigen::VectorXd& tau,
                                Eigen::MatrixXd& tau_z, Eigen::MatrixXd& tau_zd);
/// The same partials at a state computed already (`p` the numbers it was computed with).
void inverseDynamicsDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, Eigen::MatrixXd& tau_z,
                                Eigen::MatrixXd& tau_zd);
/// ∂(M^d(z) e)/∂z (nz × nz) from a state at rest computed already, (z, 0, e): τ_z's inertial part
/// alone (no weight, no force element), one pass — what τ_z(z, 0, e) − τ_z(z, 0, 0) would give.
void inertiaProductDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, Eigen::MatrixXd& out);
/// Both, by one kernel: with `inertial`, the second (tau_zd may be null then).
void inverseDynamicsDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, Eigen::MatrixXd& tau_z,
                                Eigen::MatrixXd* tau_zd, bool inertial);

/// τ = M^d z̈ − Q^d alone on any scalar, with numbers on it (dual numbers whose lanes are design
/// parameters or directions of the state), every force element included: one jet-free pass per
/// eight lanes. Every tree (quaternion nodes in closed form). Instantiated for double and num::Dual<8>.
template <class S>
void inverseDynamicsOn(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, double t, S* tau);
extern template void inverseDynamicsOn<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, const double*,
                                               const double*, double, double*);
extern template void inverseDynamicsOn<num::Dual<8>>(const RecursiveModel&, const TreeNumbers<num::Dual<8>>&, const num::Dual<8>*,
                                                     const num::Dual<8>*, const num::Dual<8>*, double, num::Dual<8>*);

/// τ as inverseDynamicsOn and the points' r, v, a (3 per point each) as pointMotionOn, from one
/// motion pass: what a design parameter's columns at a fixed state read, the equations' and the
/// outputs' together. Instantiated for double and num::Dual<8>.
template <class S>
void inverseDynamicsWithPoints(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, double t, S* tau,
                               std::span<const ItemIndex> points, S* r, S* v, S* a);
extern template void inverseDynamicsWithPoints<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, const double*,
                                                       const double*, double, double*, std::span<const ItemIndex>, double*, double*,
                                                       double*);
extern template void inverseDynamicsWithPoints<num::Dual<8>>(const RecursiveModel&, const TreeNumbers<num::Dual<8>>&, const num::Dual<8>*,
                                                             const num::Dual<8>*, const num::Dual<8>*, double, num::Dual<8>*,
                                                             std::span<const ItemIndex>, num::Dual<8>*, num::Dual<8>*, num::Dual<8>*);

/// A chunk of design parameters' lanes (numbers on Dual<8>) in the form inverseDynamicsAlongNumbers
/// reads, sorted out once per chunk: per lane, the nodes whose joint point or stored offset it
/// moves and the bodies whose mass, centre of mass or inertia it changes, with those derivatives.
/// `uncovered` says why the pass cannot take these lanes (a lane on an axis or a stored rotation;
/// a quaternion node), empty when it can.
struct NumbersLanes {
  struct NodeLane {
    bool moves = false, weighs = false;    // a lane on the joint point or offset; on the inertia
    Eigen::Vector3d point, offset, com;    // ∂J, ∂x0 (parent's frame), ∂centre (body frame)
    double mass = 0;
    Eigen::Matrix3d inertia;               // ∂J_c (body axes)
  };
  struct Lane {
    int first = -1;                        // the first node it touches (−1: none)
    std::vector<NodeLane> nodes;           // by node
    Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  // ∂g: every body's weight
    bool pulls = false;                    // a lane on gravity
  };
  std::vector<Lane> lanes;                 // eight
  std::string uncovered;
  bool inertialOnly = false;               // every lane changes masses, centres and inertias alone
  bool movesBodies = false;                // a lane on a joint point or offset (a subtree translated)
};
NumbersLanes numbersLanes(const RecursiveModel& m, const TreeNumbers<num::Dual<8>>& p);
/// The lanes `keep` of p that change nothing but bodies' masses, centres and inertias (the others
/// left out, whatever they change): the force elements do not see them, so the pass takes them
/// with any force element active. `uncovered` says so where a kept lane moves geometry.
NumbersLanes inertialLanes(const RecursiveModel& m, const TreeNumbers<num::Dual<8>>& p, const std::vector<bool>& keep);
/// Does the tangent pass (and its transpose) take these lanes with p's switch states: `uncovered`
/// empty (a quaternion joint only where no lane moves a body), and springs (with their dampers and
/// actuators), point forces, torques and tree joints' torsion springs by the pass's own laws;
/// tyres and torsion springs closing loops evaluated whole on the lanes' numbers where no lane
/// moves a body (or inertial lanes only).
bool numbersLanesCovered(const RecursiveModel& m, const NumbersLanes& lanes, const TreeNumbers<num::Dual<8>>& p);

/// The lanes of inverseDynamicsWithPoints<Dual8> at a state computed already (`values` the numbers
/// it was computed with, p the same on Dual<8>, `lanes` = numbersLanes(m, p)), by one tangent pass
/// on doubles a lane, no dual-number motion (inverse_dynamics_lanes.cpp). A lane on a node's joint
/// point or stored offset moves the node's subtree rigidly, a translation at fixed z (before the
/// node's own columns for the point, after them for the offset), so the motion's lanes follow
/// from the motion on doubles as a coordinate's do (∂S = d × S, ∂V, ∂A by the same recursion);
/// lanes on masses, centres of mass, inertias and gravity change the bodies' wrenches, on body
/// points the points, on a tree torsion spring's numbers its torque; a spring's, point force's or
/// torque's wrench moves with its points and its numbers (rotations keep: a translation turns
/// nothing). A lane costs the subtrees it moves and the bodies it weighs. False, with nothing
/// written, where numbersLanesCovered is not (a lane on an axis, a tyre, a torsion spring closing
/// a loop): the caller takes the dual-number pass. τ's values and the points' are the state's.
/// `loads`: constant forces at body points besides the model's (their τ, −Σ J_Pᵀ F, is not in the
/// values' τ; their lanes, the points' moves at fixed F, are): a loop's multipliers as forces at
/// its joints' points, whose lanes are ∂(Φ_zᵀλ)/∂ρ. `tau` null: the points' lanes alone (no
/// wrench, no pass up the tree: what the outputs at a fixed state read).
struct PointLoad {
  ItemIndex point;
  Eigen::Vector3d force;
};
bool inverseDynamicsAlongNumbers(const RecursiveModel& m, const TreeNumbers<double>& values, const MotionAtState& state,
                                 const NumbersLanes& lanes, const TreeNumbers<num::Dual<8>>& p, num::Dual<8>* tau,
                                 std::span<const ItemIndex> points, num::Dual<8>* r, num::Dual<8>* v, num::Dual<8>* a,
                                 std::span<const PointLoad> loads = {});

/// The transpose of inverseDynamicsAlongNumbers: for weights wτ on τ (nz) and wr, wv, wa on the
/// points' r, v, a (3 per point; null: zero), the gradient of wτ·δτ + Σ (wr·δr + wv·δv + wa·δa)
/// with respect to every node's lane fields and every point's body-frame position — one reverse
/// pass of the tangent pass on doubles (root to leaves for the columns' weights, leaves to root
/// for the translations'), whatever the number of lanes. A lane's (a parameter's) product is then
/// its fields dotted with these (numbersLanesProducts). The torsion springs' numbers are not
/// here (they act on their own coordinates: numbersLanesProducts adds them).
struct NumbersAdjoint {
  struct Node {
    Eigen::Vector3d point, offset, com;  // ∂/∂J, ∂/∂x0 (parent's frame), ∂/∂centre (body frame)
    double mass = 0;
    Eigen::Matrix3d inertia;             // ∂/∂J_c (body axes)
  };
  std::vector<Node> nodes;               // by node
  std::vector<Eigen::Vector3d> points;   // by point: ∂/∂(its body-frame position)
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  // ∂/∂g
  // the force elements the pass takes (springs, point forces, torques), by force element: ∂/∂ of
  // their numbers (the actuator's force and the values at the state's time), and by their points
  // in order (a spring's two, a point force's one): ∂/∂(the point's body-frame position)
  struct ForceNumbers {
    double stiffness = 0, damping = 0, naturalLength = 0, actuator = 0;
    Eigen::Vector3d value = Eigen::Vector3d::Zero();
  };
  std::vector<ForceNumbers> forces;
  std::vector<Eigen::Vector3d> forcePoints;
  std::vector<Eigen::Vector3d> loadPoints;  // by constant load: ∂/∂(its point's body-frame position)
};
/// `loads` as inverseDynamicsAlongNumbers takes them: their points' body-frame adjoints in
/// out.loadPoints (by load; the caller dots them with the points' lanes, or adds them to its own
/// points' where the same points are listed).
void inverseDynamicsNumbersAdjoint(const RecursiveModel& m, const TreeNumbers<double>& values, const MotionAtState& state, const double* wTau,
                                   std::span<const ItemIndex> points, const double* wr, const double* wv, const double* wa,
                                   NumbersAdjoint& out, std::span<const PointLoad> loads = {});
/// The eight lanes' products wτ·δτ + Σ w·δ(points) from the adjoint of the same weights (wτ again,
/// for the tree torsion springs' numbers). False where inverseDynamicsAlongNumbers would refuse
/// these lanes (then nothing is written).
bool numbersLanesProducts(const RecursiveModel& m, const MotionAtState& state, const NumbersLanes& lanes, const TreeNumbers<num::Dual<8>>& p,
                          const NumbersAdjoint& adjoint, const double* wTau, std::span<const ItemIndex> points, double* products);

}  // namespace lw::dyn
