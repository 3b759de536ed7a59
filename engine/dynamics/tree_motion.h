// The tree's motion in world axes on any scalar, without jets (internal to engine/dynamics: include
// from .cpp files only): each coordinate's motion column S_i about the world origin ([v_O; ω] per
// unit rate, the frames before it held), the velocity and acceleration of the frame through each
// coordinate (V_i = Σ_{k⪯i} S_k ż_k, A_i = Σ_{k⪯i} S_k z̈_k + (V_k × S_k) ż_k), and per node its
// body's pose, centre of mass, V and A. One forward pass over the tree (Featherstone's, about the
// origin); the inverse dynamics and its analytic derivatives are built on it (inverse_dynamics_
// derivatives.cpp), on doubles and on dual numbers whose lanes are design parameters.
#pragma once

#include <span>
#include <vector>

#include "dynamics/tree_kernels.h"
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

/// The motion at (z, ż, z̈) with numbers p (numbers on S: their derivatives carried). A quaternion
/// node's columns and motion are its own (quaternionNodeMotion), not a sequence of one-axis ones.
template <class S>
void treeMotion(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, TreeMotion<S>& out);

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
template <class S>
void jetFramesFrom(const RecursiveModel& m, const TreeMotion<S>& motion, std::vector<Frame<kin::BasicJet<S>>>& f);

}  // namespace lw::dyn::detail
