// The tree's motion in world axes on any scalar, without jets (internal to engine/dynamics: include
// from .cpp files only): each coordinate's motion column S_i about the world origin ([v_O; ω] per
// unit rate, the frames before it held), the velocity and acceleration of the frame through each
// coordinate (V_i = Σ_{k⪯i} S_k ż_k, A_i = Σ_{k⪯i} S_k z̈_k + (V_k × S_k) ż_k), and per node its
// body's pose, centre of mass, V and A. One forward pass over the tree (Featherstone's, about the
// origin); the inverse dynamics and its analytic derivatives are built on it (inverse_dynamics_
// derivatives.cpp), on doubles and on dual numbers whose lanes are design parameters.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "dynamics/tree_kernels.h"
#include "numeric/first_jets.h"
#include "numeric/jet.h"

namespace lw::dyn::detail {

template <class S>
struct Motion6 {
  V3<S> v, w;  // velocity of the point at the origin, angular velocity (or force, moment about the origin)
};

template <class S>
struct TreeMotion {
  std::vector<Frame<S>> frames;                 // by body
  std::vector<Motion6<S>> column, Vi, Ai;       // by coordinate: S_i, V_i, A_i
  std::vector<int> nodeOf;                      // by coordinate
  std::vector<V3<S>> centre;                    // by node: its body's centre of mass
  std::vector<Motion6<S>> V, A;                 // by node: its body's
};

/// One state's motion and inverse dynamics on doubles (dyn::MotionAtState's contents).
struct MotionAtStateData {
  TreeMotion<double> motion;
  std::vector<Motion6<double>> F;       // by node: its subtree's wrench I A + V ×* I V − applied
  std::vector<Motion6<double>> IV, IA;  // by node: its body's inertia about the origin times V, A
  Eigen::VectorXd z, zd, zdd, tau;
  double t = 0;
};

// spatial algebra about the origin
template <class S> inline Motion6<S> zero6() { return {zero3<S>(), zero3<S>()}; }
template <class S> inline Motion6<S> plus(const Motion6<S>& a, const Motion6<S>& b) { return {add(a.v, b.v), add(a.w, b.w)}; }
template <class S> inline Motion6<S> times(const Motion6<S>& a, const S& s) { return {scale(s, a.v), scale(s, a.w)}; }
template <class S> inline Motion6<S> crossMotion(const Motion6<S>& m, const Motion6<S>& x) {
  return {add(cross(m.w, x.v), cross(m.v, x.w)), cross(m.w, x.w)};
}
template <class S> inline Motion6<S> crossForce(const Motion6<S>& m, const Motion6<S>& f) {
  return {cross(m.w, f.v), add(cross(m.w, f.w), cross(m.v, f.v))};
}

// the body's spatial inertia about the origin times a motion: [m v_c; J_c ω + c × m v_c], v_c = v + ω × c
// (planar: only I_zz acts)
template <class S>
inline Motion6<S> inertiaTimes(bool planar, const S& mass, const V3<S>& c, const M3<S>& R, const Eigen::Matrix<S, 3, 3>& I, const Motion6<S>& x) {
  const V3<S> F = scale(mass, add(x.v, cross(x.w, c)));
  V3<S> Jw;
  if (planar) {
    Jw = {{S(0.0), S(0.0), x.w[2] * I(2, 2)}};
  } else {
    V3<S> y;  // Rᵀ ω
    for (int i = 0; i < 3; ++i) y[i] = R(0, i) * x.w[0] + R(1, i) * x.w[1] + R(2, i) * x.w[2];
    V3<S> Iy;
    for (int i = 0; i < 3; ++i) Iy[i] = y[0] * I(i, 0) + y[1] * I(i, 1) + y[2] * I(i, 2);
    Jw = mul(R, Iy);
  }
  return {F, add(Jw, cross(c, F))};
}

/// How a change of coordinate i (of z_i or of ż_i) moves each body b it moves, on doubles: b moves
/// rigidly by i's column s = S_i, and beyond that the frame the columns after i hang on (velocity
/// Vref) changes its velocity by dV and its acceleration by dA:
///   ∂V_b/∂z_i = s × V_b + dV,   ∂A_b/∂z_i = s × A_b + dA + dV × (V_b − Vref),
///   ∂V_b/∂ż_i = s,              ∂A_b/∂ż_i = s × V_b + 2 dV
/// (the last for any parametrisation of the node's motion, by the structure equations
/// ∂S_m/∂z_l − ∂S_l/∂z_m = S_l × S_m). A one-axis column is fixed in the frame that carries it
/// (V_i, A_i): dV = V_i × s, dA = A_i × s, Vref = V_i, and it turns the columns j after it by
/// ∂S_j/∂z_i = s × S_j. A quaternion node's columns turn with the quaternion itself
/// (∂S/∂q ≠ S × S): its V and A are differentiated exactly by its own coordinates (one
/// dual-number evaluation of the node alone, Vref its V), and so are its columns' turns and rates.
/// What every state-derivative kernel (τ's, the loops' rates, the points') reads instead of
/// assuming one-axis columns.
struct ColumnMotion {
  Motion6<double> dV, dA, Vref;
};
struct ColumnDerivatives {
  std::vector<ColumnMotion> columns;                 // by coordinate
  std::vector<char> quaternion;                      // by coordinate: a quaternion node's
  std::vector<std::array<Motion6<double>, 7>> turn;  // by coordinate j of a quaternion node: ∂S_j/∂z_i, i its node's (node-local)
  std::vector<Motion6<double>> rate, secondRate;     // by coordinate, when asked: Ṡ_j, S̈_j along the motion
};
/// At the motion of (z, ż, z̈) on doubles; `rates`: the columns' rates too.
void columnDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const TreeMotion<double>& motion, const double* z,
                       const double* zd, const double* zdd, bool rates, ColumnDerivatives& out);

/// The motion at (z, ż, z̈) with numbers p (numbers on S: their derivatives carried). A quaternion
/// node's columns and motion are its own (quaternionNodeMotion), not a sequence of one-axis ones.
template <class S>
void treeMotion(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, TreeMotion<S>& out);
/// The positions' part of treeMotion alone (frames, columns, centres at z): what M^d and Φ_z read.
template <class S>
void treePositions(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, TreeMotion<S>& out);
/// The rates' part of treeMotion alone (V, A, V_i, A_i at ż, z̈) on a motion whose positions (frames,
/// columns, centres) are z's already: another ż or z̈ at the same z without a second frame pass.
template <class S>
void treeRates(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, TreeMotion<S>& out);

/// The applied wrenches about the origin by node (its body's): gravity and every active force
/// element (springs with dampers and actuators, point forces, torques, torsion springs on cut
/// joints, tyres), as GeneralizedForces::applied has them; forces on the ground are dropped, tree
/// joints' torsion springs act on their coordinates instead (inverseDynamicsFrom).
template <class S>
void appliedWrenches(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, double t, std::vector<Motion6<S>>& W);

/// τ = M^d z̈ − Q^d from the motion: the body wrenches I A + V ×* I V − applied summed over
/// subtrees and projected on the columns, with the tree's torsion springs on their coordinates.
/// Fills F (by node: the subtree's wrench about the origin) when given.
template <class S>
void inverseDynamicsFrom(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, const S* z, const S* zd, double t,
                         S* tau, std::vector<Motion6<S>>* F = nullptr);

/// The points' world positions, velocities and accelerations (3 per point each; null to skip) on
/// the motion. Instantiated for double and num::Dual<8>.
template <class S>
void pointsFromMotion(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, std::span<const ItemIndex> points, S* r,
                      S* v, S* a);

/// The bodies' frames as jets along the motion (value, rate, second rate: what computeFrames gives
/// on jets z + s ż + s²/2 z̈), body by body from the motion, without a jet recursion: Ṙ = ω̃R,
/// R̈ = (α̃ + ω̃²)R, ẋ = v_O + ω × x, ẍ = a_O + α × x + ω × ẋ.
/// `secondRates` false: the second rates left zero (a pass that reads first rates only). `read`
/// (by body, optional): those bodies' frames alone, the others left as they were.
template <class S>
void jetFramesFrom(const RecursiveModel& m, const TreeMotion<S>& motion, std::vector<Frame<kin::BasicJet<S>>>& f, bool secondRates = true,
                   const std::vector<char>* read = nullptr);

/// M^d = Σ_b J_bᵀ I_b J_b from the motion's columns (the composite-rigid-body algorithm in world
/// axes about the origin): H_j = Σ_{b in j's subtree} I_b S_j, M_ij = S_i · H_j where i's node is
/// j's or an ancestor's (0 between coordinates on different branches). One pass on S, every
/// joint (quaternion nodes by their own columns). Instantiated for double, Dual8 and complex.
template <class S>
void massMatrixFrom(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& M);

/// Φ_z (every row × nz) at the motion's z from each constraint's rows along its bodies' six unit
/// twists at once (one evaluation on FirstJets per body, as the multipliers' turn) and the motion
/// columns about the origin: Φ_z(r, j) = Σ_b ∂Φ_r/∂ξ_b · S_j over the bodies that move with
/// coordinate j; rows that read coordinates (a tree joint's driver, a quaternion's unit norm) along
/// the coordinates, six at a time. Instantiated for double, Dual8 and complex.
template <class S>
void constraintJacobianFrom(const RecursiveModel& m, const TreeNumbers<S>& p, const TreeMotion<S>& motion, const S* z, double t,
                            Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J);

/// Frame F as a jet along its body's six unit twists about the origin (direction e: v_O = e_e for
/// e < 3, ω = e_{e−3} after): Ṙ = ω̃R, ẋ = v_O + ω × x; `seeded` false clears them.
template <class S>
void seedUnitTwists(Frame<kin::FirstJets<S, 6>>& F, bool seeded) {
  for (int e = 0; e < 6; ++e) {
    for (int col = 0; col < 3; ++col)
      for (int r = 0; r < 3; ++r) {
        S rate(0.0);
        if (seeded && e >= 3) {
          const int a = e - 3;  // ω = e_a: (e_a × y)_{a+1} = −y_{a+2}, (e_a × y)_{a+2} = y_{a+1}
          if (r == (a + 1) % 3) rate = -F.R((a + 2) % 3, col).v;
          else if (r == (a + 2) % 3) rate = F.R((a + 1) % 3, col).v;
        }
        F.R(r, col).d[e] = rate;
      }
    for (int r = 0; r < 3; ++r) {
      S rate(seeded && e < 3 && r == e ? 1.0 : 0.0);
      if (seeded && e >= 3) {
        const int a = e - 3;
        if (r == (a + 1) % 3) rate = -F.x[(a + 2) % 3].v;
        else if (r == (a + 2) % 3) rate = F.x[(a + 1) % 3].v;
      }
      F.x[r].d[e] = rate;
    }
  }
}

}  // namespace lw::dyn::detail
