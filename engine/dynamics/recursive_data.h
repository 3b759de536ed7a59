// What the recursive kernels of one run keep between calls (RecursiveData, recursive_model.h):
// the poses at the last z, their jets along the last ż and the partial velocities there (asked
// for by several kernels of one state, computed once), and every scratch buffer (no allocation
// once a kernel has run). Internal to engine/dynamics: only the kernels' .cpp files include it.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <vector>

#include "dynamics/recursive_model.h"
#include "dynamics/tree_kernels.h"
#include "numeric/jet.h"

namespace lw::dyn {

using MotionColumns = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 7>;  // at most 7 coordinates per joint
using Matrix6d = Eigen::Matrix<double, 6, 6>;

// Everything about the world origin (spatial velocities [v_O; ω], v_O the velocity of the body
// point at the origin): a node's velocity is its parent's plus S_k ż_k, and a subtree's inertia is
// the plain sum of its bodies' (no child-to-parent transforms). Filled by matrix_r.cpp.
struct OriginTerms {
  std::vector<Pose3<double>> poses;
  std::vector<Eigen::Vector3d> r;    // centres of mass
  std::vector<Matrix6d> I;           // per node: its body's inertia about the origin
  std::vector<Eigen::Matrix3d> Jc;   // per node: its body's world inertia at the centre
  std::vector<MotionColumns> S;      // per node: motion columns about the origin
};

// a cut joint's world geometry at z, for the closed-form rows of loopJacobianBlocks
struct CutGeometry {
  bool analytic = false;
  bool axes = false;  // a revolute's axis rows are wanted
  JointType type = JointType::Pin;
  Eigen::Vector3d P[2], u1, w2, v2;  // points; body 1's axis; body 2's perpendiculars
};

// Jet frames whose derivative is the motion of coordinate (node k, i): the node's subtree turns
// with angular velocity ω and its centre moves with v (the partial velocity b_k), everything else
// is still. This replaces a full recursion on Jets per column (seed 000 §2.2: telescoping B).
struct ColumnFrames {
  const std::vector<detail::Frame<double>>* f = nullptr;  // the poses (valid until another z is asked for)
  std::vector<detail::Frame<kin::Jet>> fj;                // the same, with derivatives (made by the first seed)
  const std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>>* b = nullptr;  // the partial velocities
  std::vector<Eigen::Vector3d> centre;                    // world centre of mass of each node's body
  bool jets = false;                                      // fj holds f (the closed-form rows never need it)
};

struct RecursiveData::Buffers {
  // the poses at z
  struct {
    std::uint64_t model = 0;
    std::vector<double> z;
    std::vector<detail::Frame<double>> f;
  } poses;
  // the frames on jets along ż (z̈ = 0), and per body ω and ω̇
  struct {
    std::uint64_t model = 0;
    std::vector<double> z, zd;
    std::vector<detail::Frame<kin::Jet>> f;
    std::vector<Eigen::Vector3d> w, wd;
  } motion;
  // the partial velocities b_k at z
  struct {
    std::uint64_t model = 0;
    Eigen::VectorXd z;
    std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> b;
  } partials;
  ColumnFrames columns;
  std::vector<CutGeometry> cut;
  std::vector<double> blocks;  // loopJacobian's Φ_z blocks
  // jets and jet frames by call site (a kernel's slot): the seeded z of one kernel is not
  // overwritten by another it calls
  enum Slot : int {
    kJacobianRows, kJacobianZ, kJacobianSeed,             // loopJacobianBlocks
    kJacobianFrames, kJacobianColumn,                     // loopJacobianBlocks, through frames
    kPhiTFrames, kPhiTRows, kPhiTSeed,                    // loopPhiT
    kRatesRows, kRatesSeed,                               // loopRates
    kVelocityFrames, kVelocitySeed,                       // bodyVelocities
    kPointJacobianFrames, kPointJacobianColumn,           // pointJacobian, off the unit sphere
    kPointFrames, kPointSeed, kPointAccelSeed, kPointAccelFrames,  // pointState
    kSnapshotRows, kSnapshotSeed,                         // motionSnapshot
    kSlots
  };
  std::array<std::vector<kin::Jet>, kSlots> jets;
  std::array<std::vector<detail::Frame<kin::Jet>>, kSlots> jetFrames;
  // Matrix R's mass matrix, reduced mass, energies and powers (matrix_r.cpp)
  OriginTerms origin;
  std::vector<MotionColumns> massColumns;
  Eigen::Matrix<double, 6, Eigen::Dynamic> W, Y;
  Eigen::MatrixXd G, Gt;
  std::vector<double> rateRows, Wrows, Yrows;  // the planar reduced mass's rows
  std::vector<Eigen::Vector3d> centres;
  Eigen::VectorXd residual;  // powers: the drivers' reactions
};

}  // namespace lw::dyn
