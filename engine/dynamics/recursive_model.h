// The recursive model of the semi-recursive formulations (seed 000 §1–2, seed 004 §2): a spanning
// tree of the body–joint graph rooted at the ground, relative joint coordinates z on its joints
// (zero in the stored configuration), and the joints left out of the tree ("cut joints") as
// loop-closure constraints Φ(z, t) = 0, together with the drivers.
//
// Body poses follow the tree: X_child = X_parent ∘ M_joint(z_joint) ∘ X0, X0 the stored relative
// pose. Everything is written once as templates on the scalar (double, kin::Jet) so derivatives
// (velocities, Φ_z, Φ̇_z ż, partial velocities b_k) are exact.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mechanism/numbers.h"
#include "mechanism/resolved.h"

namespace lw::dyn {

/// How a tree node moves relative to its parent.
enum class NodeKind {
  Revolute,     // θ about an axis through a point (pin, revolute)
  Prismatic,    // s along an axis (slider, prismatic)
  Cylindrical,  // θ and s about/along one axis
  Universal,    // θ1 about the first axis, θ2 about the second (carried) axis
  Spherical,    // rotation by a quaternion (4 coordinates, |q| = 1 is a constraint)
  Fixed,        // no coordinate
  FreePlanar,   // x, y, θ of a body with no joint to the tree (planar)
  FreeSpatial,  // x, y, z and a quaternion
};

struct Node {
  int body = -1;          // ResolvedMechanism body
  int parent = -1;        // body index of the parent (0 = ground)
  int parentNode = -1;    // index in RecursiveModel::nodes, -1 for the ground
  int joint = -1;         // mechanism joint, -1 for free bodies
  NodeKind kind = NodeKind::Fixed;
  int z = 0;              // first coordinate in z
  int nz = 0;             // number of coordinates
  bool flip = false;      // the joint's body 1 is the child: the child turns (slides) by −z about its parent's axis
  // the joint's coordinate (body 2 relative to body 1 about body 1's axis, as the file orders
  // them) is sign·z plus its stored value: −1 only when flipped with the two sides' axes opposed
  double sign = 1;
};

/// The numbers the recursive kernels read, on any scalar P (double in a compiled model; a dual
/// number or a complex step where a sensitivity differentiates with respect to the design
/// parameters): the mechanism's numbers, each node's geometry and each joint's axes.
template <class P>
struct TreeNumbers {
  using Vec3 = Eigen::Matrix<P, 3, 1>;
  using Mat3 = Eigen::Matrix<P, 3, 3>;
  struct NodeGeometry {
    // in the parent's frame at z = 0
    Vec3 point = Vec3::Zero();                  // joint point
    Vec3 axis = Vec3(P(0.0), P(0.0), P(1.0));    // joint axis (unit)
    Vec3 axis2 = Vec3(P(1.0), P(0.0), P(0.0));   // universal: second axis at z = 0
    // stored relative pose X0 = X_parent0⁻¹ X_child0
    Mat3 R0 = Mat3::Identity();
    Vec3 x0 = Vec3::Zero();
    // the axis as axisSign·e_axisIndex when it lies exactly along x, y or z, derivatives included
    // (axisIndex −1 otherwise; a turn then mixes two columns only), and whether R0 = I exactly:
    // shortcuts that hold for every parameter value of a differentiated run, or are not taken
    int axisIndex = -1;
    double axisSign = 1.0;
    bool R0isIdentity = false;
  };
  // for every joint, on each of its two bodies and in that body's frame: the joint axis u, a unit
  // vector w perpendicular to it (axis-parallelism and rotation locks) and v = u × w (rotated
  // with the body, it stays u × w: no cross product per evaluation)
  struct JointAxes {
    Vec3 u, w, v;
  };
  // what a joint's rows compare with in the stored configuration
  struct JointStored {
    P axesDot{};                       // universal: u1·u2 (world)
    Mat3 relative = Mat3::Identity();  // fixed: R1ᵀ R2
    P slide{};                         // a driven cut slider: (P2 − P1)·u1 (world)
  };
  MechanismNumbers<P> mech;
  std::vector<NodeGeometry> nodes;                  // by node
  std::vector<std::array<JointAxes, 2>> jointAxes;  // by joint
  std::vector<JointStored> joints;                  // by joint
};

/// A joint outside the tree (or a driver, or a quaternion's unit norm): rows of Φ.
struct LoopConstraint {
  enum class Kind { CutJoint, Driver, UnitQuaternion };
  Kind kind = Kind::CutJoint;
  int index = -1;   // joint, driver, or node
  int rows = 0;
  int row = 0;
  int block = 0;    // offset of its Φ_z block in loopJacobianBlocks' values
};

struct RecursiveModel {
  std::uint64_t id = 0;  // unique per compilation: what the kernels' per-state caches are keyed on
  int dimension = 2;
  int nz = 0;
  int nrows = 0;  // rows of Φ
  std::vector<Node> nodes;             // parents before children
  std::vector<int> nodeOfBody;         // body -> node (-1 for the ground)
  std::vector<LoopConstraint> constraints;
  std::vector<std::vector<int>> children;  // node -> child nodes
  std::vector<std::vector<int>> subtree;   // node -> bodies that move with it (itself included)
  std::vector<std::vector<int>> affected;  // node -> constraints its coordinates can change
  std::vector<char> rowBodies;             // by body: do Φ's rows read its frame?
  std::vector<std::vector<int>> rowColumns;  // row of Φ -> the coordinates it can depend on (sorted): Φ_z's pattern
  int nblocks = 0;                         // entries of Φ_z's pattern (loopJacobianBlocks)
  // node -> per affected constraint (same order as `affected`): where the block column of the
  // node's first coordinate starts in loopJacobianBlocks' values (the next coordinates follow,
  // `rows` apart), and for a cut joint the bits s set when the joint's body s moves with the node
  struct BlockColumns {
    int constraint = 0;
    int offset = 0;
    std::uint8_t sides = 0;
  };
  std::vector<std::vector<BlockColumns>> blockColumns;
  std::vector<int> enter, leave;           // node -> depth-first interval of its subtree
  /// Is node k in node `of`'s subtree (does `of`'s coordinates move it)? O(1).
  bool inSubtree(std::size_t k, std::size_t of) const { return enter[of] <= enter[k] && enter[k] < leave[of]; }
  /// Does `body` move with the coordinates of node k (is it in k's subtree)? O(1).
  bool movesWith(int body, int k) const {
    const int n = nodeOfBody[static_cast<std::size_t>(body)];
    return n >= 0 && inSubtree(static_cast<std::size_t>(n), static_cast<std::size_t>(k));
  }
  Eigen::VectorXd z0;                  // initial coordinates (quaternions = identity)
  // the source, the model's own immutable copy (shared by the model's copies): the model is
  // self-contained, it points into nothing the caller keeps
  std::shared_ptr<const ResolvedMechanism> mechanism;
  TreeNumbers<double> numbers;         // geometry, inertia, forces (the double kernels read them here)
  std::vector<char> isCut;             // by joint
  std::vector<int> treeJointNode;      // joint -> node, -1 when cut

  std::string describeRow(int row) const;
};

/// Spanning tree by breadth-first search from the ground (short chains), joints with fewer
/// freedoms taken first (a spherical joint is better cut than in the tree).
RecursiveModel compileRecursiveModel(const ResolvedMechanism& m);

/// The tree's numbers from the mechanism's (numbersOf for the compiled model, numbersOn for a
/// sensitivity): node geometry, joint axes, stored joint constants. Shortcut flags (axisIndex,
/// R0isIdentity) are set only where they hold exactly, derivatives included.
template <class P>
TreeNumbers<P> treeNumbers(const RecursiveModel& m, MechanismNumbers<P> numbers);

// ---- evaluation on doubles and Jets (recursive_kinematics.cpp) -------------------------------

template <class T>
struct Pose3 {
  T R[9];  // row-major world rotation of the body frame
  T x[3];  // world position of the body frame origin
};

/// On any scalar (the design-parameter derivatives of sensitivity/): T is the scalar of z and t
/// (P itself, or a jet on P along a direction of z and t), P that of the numbers `p`. Fills Φ
/// (nrows, when phi is not null) and the world positions of `points` (3 each, into xyz).
template <class T, class P>
void kinematicsOn(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, const T& t, T* phi,
                  std::span<const ItemIndex> points, T* xyz);

namespace detail {
template <class T> struct Frame;
}
/// The same on frames given body by body (the ground's included): kinematicsOn without its own
/// frame recursion, for frames built otherwise (jets from the jet-free motion pass).
template <class T, class P>
void kinematicsOnFrames(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<detail::Frame<T>>& f, const T* z, const T& t,
                        T* phi, std::span<const ItemIndex> points, T* xyz);

/// The rows of constraint `constraint` (m.constraints' index) alone on given frames, into
/// phi[c.row ...] (the other rows left as they are).
template <class T, class P>
void constraintOnFrames(const RecursiveModel& m, const TreeNumbers<P>& p, const std::vector<detail::Frame<T>>& f, const T* z, const T& t,
                        int constraint, T* phi);

/// The bodies whose frames constraint `constraint`'s rows read (a cut joint's two, a driven cut
/// joint's two, a driven point's body, a distance driver's two; the ground included, a body
/// listed once): where its multipliers' wrenches act. Empty for the rows that read coordinates
/// alone (a driver on a tree joint, a quaternion's unit norm).
void constraintBodies(const RecursiveModel& m, int constraint, std::vector<int>& bodies);

/// A tree joint's coordinate (as the outputs measure it: a planar pin's angle from body 1's x
/// axis to body 2's, a slider's distance along its axis, a spatial revolute's angle from the
/// stored configuration) is z[node.z]·sign plus this: its value in the stored configuration.
template <class P>
P storedJointCoordinate(const RecursiveModel& m, const TreeNumbers<P>& p, int joint);

namespace detail {
template <class T> struct Frame;
}
/// Joint `joint`'s coordinate q at z as the outputs measure it, on any scalar T (P, or jets on P
/// for its rates), into q: z·sign plus the stored value for a tree joint. For a joint that closes
/// a loop: a planar pin's from the bodies' turns summed along the tree (continuous through ±π,
/// like a tree joint's); a slider's (P2 − P1)·u1 and a spatial revolute's turn since the stored
/// configuration (within half a turn of it) from the poses f at z, which they need. False for a
/// joint without one coordinate (or f missing where it is needed).
template <class T, class P>
bool jointCoordinateOn(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, const std::vector<detail::Frame<T>>* f, int joint,
                       T& q);
/// Does jointCoordinateOn need the poses for this joint?
bool jointCoordinateNeedsFrames(const RecursiveModel& m, int joint);
/// The coordinates of `joints` at z into q[] (jointCoordinateOn, the poses computed once where
/// needed). False when one of them has no single coordinate.
template <class T, class P>
bool jointCoordinatesOn(const RecursiveModel& m, const TreeNumbers<P>& p, const T* z, std::span<const int> joints, T* q);
/// ∂q/∂z (nz entries into row) of joint `joint`'s coordinate at z on P: the row an initial rate
/// of the joint adds to the velocity problem. False for a joint without one coordinate.
template <class P>
bool jointCoordinateRowOn(const RecursiveModel& m, const TreeNumbers<P>& p, const P* z, int joint, P* row);

/// The buffers the kernels below keep between calls: the poses at the last z (and their jets along
/// the last ż, the partial velocities there), which several kernels of one state ask for and get
/// computed once, and scratch. One per run, owned by its Data (MatrixRData's and PenaltyData's
/// solvers, or a caller's own): two runs never share one (threads, a DDM pass beside an adjoint
/// replay), and a kernel allocates nothing once it has run. A kernel's result that refers into it
/// holds until the next call with another state.
class RecursiveData {
 public:
  RecursiveData();
  ~RecursiveData();
  RecursiveData(RecursiveData&&) noexcept;
  RecursiveData& operator=(RecursiveData&&) noexcept;
  struct Buffers;  // recursive_data.h
  Buffers& buffers() { return *buffers_; }

 private:
  std::unique_ptr<Buffers> buffers_;
};

/// Poses of every body (index = body; the ground is identity) at z.
void bodyPoses(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, std::vector<Pose3<double>>& out);

/// Φ(z, t) (nrows). `wanted` (by row, optional): rows not wanted may be left as they were.
void loopConstraints(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, Eigen::VectorXd& phi,
                     const std::vector<char>* wanted = nullptr);
/// Φ_z (nrows × nz), dense. `reuseZeros`: J holds this model's Φ_z from an earlier call, so only
/// the structural entries are written (the others are zero already; saves clearing it).
void loopJacobian(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, Eigen::MatrixXd& J, bool reuseZeros = false);
/// Φ_z on its structural pattern, constraint by constraint: constraint c's block is c.rows ×
/// rowColumns[c.row].size(), column-major, from values[c.block] (nblocks in all). A Matrix R step
/// reads only these; the dense nrows × nz Φ_z of a large grid is a megabyte of cache misses.
/// `wanted` (by row of Φ, optional): rows not wanted may be left as they were.
void loopJacobianBlocks(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, std::vector<double>& values,
                        const std::vector<char>* wanted = nullptr);
/// The freedoms the loops leave the tree at z, drivers not counted: nz − rank Φ_z (rows of the
/// cut joints and unit quaternions). The mobility a mechanism really has where Grübler–Kutzbach
/// miscounts (parallel axes, overconstrained grids); a passive spin (a rod between two ball
/// joints) counts as a freedom.
int loopMobility(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z);
/// The rows of J (from `first`, `count` of them) that are not zero. A zero row is never a pivot,
/// so ranks and choices of rows need only the others, at a fraction of a QR's cost: a planar
/// linkage drawn in 3D has the out-of-plane rows of its cut joints zero.
std::vector<int> nonzeroRows(const Eigen::MatrixXd& J, int first, int count);
/// Φ_t only (nrows).
void loopPhiT(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, double t, Eigen::VectorXd& phiT);

/// What an output row reads, from one pass of the frames along ż (jets).
struct MotionSnapshot {
  std::vector<Pose3<double>> poses;   // per body (the ground is identity)
  Eigen::VectorXd V;                  // 6 per body: centre-of-mass velocity, then ω (ground zeros)
  std::vector<Eigen::Vector3d> r, v;  // every point of every moving body, in model order
  std::vector<int> firstPoint;        // body -> index of its first point in r and v (-1: ground)
  Eigen::VectorXd phi, phiDot;        // Φ and Φ̇ = Φ_z ż + Φ_t (nrows)
  /// World position and velocity of point `index` of `body` (the ground's from its stored value).
  Eigen::Vector3d pointPosition(const RecursiveModel& m, int body, int index) const;
  Eigen::Vector3d pointVelocity(int body, int index) const;
};
void motionSnapshot(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t, MotionSnapshot& out);

/// Φ_t and c = −(Φ̇_z ż + Φ̇_t) (nrows each). `wanted` (by row, optional): c's rows not wanted may
/// be left as they were.
void loopRates(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t,
               Eigen::VectorXd& phiT, Eigen::VectorXd& c, const std::vector<char>* wanted = nullptr);

/// Body velocities V_k = [ṙ_k; ω_k] (centre of mass, world) and V̇⁰_k = Ṙ^v ż (the accelerations
/// with z̈ = 0), each 6·nbodies (ground included as zeros).
void bodyVelocities(const RecursiveModel& m, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                    Eigen::VectorXd& V, Eigen::VectorXd& Vdot0);

/// The partial velocities b_k (6 × nz_k) of every node: the velocity of its body's centre of mass
/// and its angular velocity per unit rate of its own coordinates, parent at rest. Computed once
/// per z in `data`; the reference holds until it is asked for another z.
const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>>& partialVelocitiesAt(const RecursiveModel& m, RecursiveData& data,
                                                                                 const Eigen::VectorXd& z);

/// ∂r_P/∂z (3 × nz) for point p_B of `body`.
void pointJacobian(const RecursiveModel& m, RecursiveData& data, int body, const Eigen::Vector3d& p_B, const Eigen::VectorXd& z,
                   Eigen::MatrixXd& J);

/// World position of point `p` of body `body`, its velocity and acceleration.
void pointState(const RecursiveModel& m, RecursiveData& data, int body, const Eigen::Vector3d& p_B, const Eigen::VectorXd& z,
                const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::Vector3d* r, Eigen::Vector3d* v,
                Eigen::Vector3d* a);

}  // namespace lw::dyn
