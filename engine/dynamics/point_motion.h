// Body points' world position, velocity and acceleration from the tree's jet-free motion pass
// (tree_motion.h): on any scalar (dual numbers whose lanes are design parameters give the
// outputs' parameter partials), and on doubles their exact partials with respect to z, ż and z̈
// from the same pass (a point moves rigidly with every coordinate before it: r_z = S_v + S_ω × r).
// Every joint (quaternion nodes by their exact column derivatives, tree_motion.h).
#pragma once

#include <Eigen/Core>
#include <span>

#include "dynamics/recursive_model.h"

namespace lw::num {
template <int N> struct Dual;
}

namespace lw::dyn {

/// r, v, a (3 per point each; null to skip) of `points` at (z, ż, z̈). Instantiated for double
/// and num::Dual<8>.
template <class S>
void pointMotionOn(const RecursiveModel& m, const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd,
                   std::span<const ItemIndex> points, S* r, S* v, S* a);
extern template void pointMotionOn<double>(const RecursiveModel&, const TreeNumbers<double>&, const double*, const double*, const double*,
                                           std::span<const ItemIndex>, double*, double*, double*);
extern template void pointMotionOn<num::Dual<8>>(const RecursiveModel&, const TreeNumbers<num::Dual<8>>&, const num::Dual<8>*,
                                                 const num::Dual<8>*, const num::Dual<8>*, std::span<const ItemIndex>, num::Dual<8>*,
                                                 num::Dual<8>*, num::Dual<8>*);

/// The partials of point k's motion, rows 3k..3k+2: J = r_z = v_ż = a_z̈ (the point Jacobian),
/// v_z, a_z, a_ż (3·points × nz each).
struct PointMotionPartials {
  Eigen::MatrixXd J, v_z, a_z, a_zd;
};
void pointMotionDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                            const Eigen::VectorXd& zdd, std::span<const ItemIndex> points, PointMotionPartials& out);
class MotionAtState;
/// The same on a state's motion computed already (inverse_dynamics_derivatives.h).
void pointMotionDerivatives(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, std::span<const ItemIndex> points,
                            PointMotionPartials& out);

}  // namespace lw::dyn
