// The global formulations' model (issue 39, seeds 001 §3 and 003 §1): the natural-coordinate
// model's constant mass matrix and generalized gravity, and the index-1 equations of motion with
// Baumgarte stabilisation on them,
//   [M  Φ_qᵀ] [q̈]   [Q                    ]
//   [Φ_q  0 ] [λ ] = [−γ − 2αΦ̇ − β²Φ      ].
// Planar for now: a planar body's points are linear in its natural coordinates (p = O + a d +
// b R90 d), so its mass matrix is constant; the spatial model's d × d' is not (a third vector per
// body comes with the spatial global formulations).
#pragma once

#include <string>

#include <Eigen/Core>
#include <Eigen/LU>

#include "core/status.h"
#include "kinematics/natural_model.h"

namespace lw::dyn {

/// M (nq × nq, constant) and Q_g (nq): T = ½ q̇ᵀ M q̇ and the gravity's generalized force for
/// a planar natural model; `error` says why not (a spatial model).
struct NaturalInertia {
  Eigen::MatrixXd M;
  Eigen::VectorXd gravity;
};
bool naturalInertia(const kin::NaturalModel& m, NaturalInertia& out, std::string& error);

/// The index-1 formulation's buffers (one per run).
struct Index1Data {
  Eigen::MatrixXd J, A;  // Φ_q, the augmented matrix
  Eigen::VectorXd phi, phiT, gamma, rhs, solution;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  explicit Index1Data(const kin::NaturalModel& m);
};

struct Baumgarte {
  double alpha = 5, beta = 5;  // the stabilisation's damping and stiffness (1/s)
};

/// q̈ (and the multipliers in d.solution's tail) at (t, q, q̇); fails at a singular augmented
/// matrix (a redundant constraint or a singular position), with the reason.
Status index1Acceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, const Baumgarte& b, double t,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Index1Data& d, Eigen::VectorXd& qdd);

}  // namespace lw::dyn
