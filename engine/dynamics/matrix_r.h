// Semi-recursive Matrix R formulation (seed 000): relative coordinates z on the spanning tree,
// independent coordinates z^i (a subset of z, or point coordinates), and the ODE (29)
//   (R^Φᵀ M^d R^Φ) z̈^i = R^Φᵀ (Q^d − M^d a),   ż = R^Φ ż^i + S^Φ b,   z̈ = R^Φ z̈^i + a,
// where Θ_z = [Φ_z; B] is factorised once per evaluation and reused for the position, velocity,
// R^Φ and a problems; Q^d is assembled recursively without forming R^v (§2.2), and so is the
// reduced mass matrix R^Φᵀ M^d R^Φ, without M^d (M^d itself: massMatrix).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "dynamics/generalized_forces.h"
#include "dynamics/recursive_model.h"
#include "kinematics/global_solver.h"

namespace lw::dyn {

/// An independent coordinate: a tree coordinate, or a world coordinate of a body point.
struct Dof {
  enum class Kind { Coordinate, PointComponent };
  Kind kind = Kind::Coordinate;
  int z = -1;                                      // Coordinate
  int body = -1;                                   // PointComponent
  Eigen::Vector3d point = Eigen::Vector3d::Zero(); // body frame
  ItemIndex item;                                  // PointComponent: which point (its numbers)
  int component = 0;
  std::string name;                                // "joint A", "bar_12.P2.y"
  bool operator==(const Dof& o) const {
    return kind == o.kind && z == o.z && body == o.body && point == o.point && component == o.component;
  }
};

struct MatrixRModel {
  RecursiveModel tree;
  std::vector<int> rows;  // independent rows of Φ (redundant loop equations dropped)
  std::vector<char> selected;  // by row of Φ: is it one of rows
  bool userDofs = false;  // the file chose the independent coordinates
  bool sparseTheta = false;  // factorise Θ_z with KLU (large trees) instead of a dense LU
  double lengthScale = 1;  // the mechanism's (ResolvedMechanism::lengthScale, a pass over every point)
  std::string error;      // why the model cannot be simulated (empty when ok)
  bool ok() const { return error.empty(); }
};

MatrixRModel compileMatrixR(const ResolvedMechanism& m);

class MatrixRSolvers;  // factorisations (matrix_r.cpp)

/// Every buffer of a Matrix R run.
struct MatrixRData {
  /// numbers: the run's, the model's numbers with its forces' switch states (they outlive the
  /// data); the model's own when null.
  explicit MatrixRData(const MatrixRModel& model, const TreeNumbers<double>* numbers = nullptr);
  ~MatrixRData();
  MatrixRData(MatrixRData&&) noexcept;

  std::vector<Dof> dofs;          // current choice of independent coordinates (may be switched)
  int switches = 0;               // how often the choice was changed during the run
  double t = 0;
  Eigen::VectorXd z, zd, zdd;     // dependent state (nz)
  Eigen::VectorXd zi, zid, zidd;  // independent state (d)
  // ---- filled by evaluate() ----
  Eigen::MatrixXd Theta;          // [Φ_z (selected rows); B] (nz × nz; kept by the dense factorisation only)
  Eigen::MatrixXd R;              // R^Φ (nz × d)
  Eigen::VectorXd a;              // S^Φ c − R^Φ Ḃ ż (nz)
  Eigen::VectorXd Qd;             // Q^d (nz)
  Eigen::MatrixXd Mbar;           // R^Φᵀ M^d R^Φ (d × d), accumulated down and up the tree without M^d
  Eigen::MatrixXd Md;             // M^d (nz × nz): filled by recursiveMassAndForces only, not by evaluate
  Eigen::VectorXd Qbar;
  double rcond = 1;               // of Θ_z
  bool evaluated = false;         // the fields above are those of the last (t, zi, zid): it succeeded
  bool dofsAreTheCoordinates = false;  // no loops, and z^i = z in order: Θ_z = I (an open chain)
  std::unique_ptr<MatrixRSolvers> solvers;
  /// The last evaluation's factorisations, at its solution: Θ_z (dense only; null where it is
  /// sparse or empty) and M̄ (null without independent coordinates) — what a tangent at the same
  /// point reuses instead of factorising again.
  const Eigen::PartialPivLU<Eigen::MatrixXd>* thetaFactor() const;
  const Eigen::LLT<Eigen::MatrixXd>* reducedMassFactor() const;
  // scratch
  Eigen::VectorXd phi, phiT, c, rhs;
  Eigen::MatrixXd J;
};

/// Chooses the independent coordinates at data.z (or takes the file's), sets zi, zid from z, zd.
lw::Status chooseDofs(const MatrixRModel& m, MatrixRData& d);
/// Are `dofs` the tree's coordinates in order, with no loop (Θ_z = I: an open chain)?
bool coordinatesAreTheDofs(const MatrixRModel& m, const std::vector<Dof>& dofs);
/// Assembles the stored configuration and the initial velocities given in the file.
lw::Status initialState(const MatrixRModel& m, MatrixRData& d);
/// Puts the dependent state back to (t, z, ż) of an earlier evaluation (a step's start): the next
/// evaluation starts its position problem from there with a fresh factorisation, as if nothing
/// had been evaluated since. The independent coordinates are the caller's.
void restoreState(MatrixRData& d, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd);
/// The pipeline of seed 000 §4.1 at (t, zi, zid): positions (Newton–Raphson from data.z),
/// velocities, R^Φ, a, M^d, Q^d, then z̈^i. Fills data.zidd, data.zdd and the matrices.
lw::Status evaluate(const MatrixRModel& m, MatrixRData& d, double t, const Eigen::VectorXd& zi,
                        const Eigen::VectorXd& zid);

/// Body wrenches Q^v (6 per body: force at the centre of mass, torque including −ω × Jω) from
/// gravity and the force elements at (z, ż, t) (GeneralizedForces::bodyWrenches).
void bodyForces(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t,
                Eigen::VectorXd& Qv);

/// M^d = R^vᵀ M^v R^v by the recursive accumulation of the subtrees' inertia (no R^v).
/// `reuseZeros`: Md holds this model's M^d from an earlier call; only the blocks that can be
/// nonzero (a node and its ancestors) are written.
void massMatrix(const RecursiveModel& tree, RecursiveData& data, const Eigen::VectorXd& z, Eigen::MatrixXd& Md, bool reuseZeros = false);
/// M^d and Q^d = R^vᵀ (Q^v − M^v V̇⁰) (GeneralizedForces).
void massAndForces(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t,
                   Eigen::MatrixXd& Md, Eigen::VectorXd& Qd);
/// The same with the kernels' data, a force kernel and buffers kept by the caller for this model
/// (no allocation in a step loop; Md's structural zeros are kept between calls).
void massAndForces(const RecursiveModel& tree, RecursiveData& data, GeneralizedForces<double>& forces, const Eigen::VectorXd& z,
                   const Eigen::VectorXd& zd, double t, Eigen::MatrixXd& Md, Eigen::VectorXd& Qd);
void recursiveMassAndForces(const MatrixRModel& m, MatrixRData& d, double t);
/// M̄ = R^Φᵀ M^d R^Φ (d × d) and M^d a (nz) at z without M^d, from R^Φ by rows (Rt = R^Φᵀ, d × nz).
void reducedMass(const RecursiveModel& tree, RecursiveData& data, const Eigen::VectorXd& z, const Eigen::MatrixXd& Rt, const Eigen::VectorXd& a,
                 Eigen::MatrixXd& Mbar, Eigen::VectorXd& Mda);

struct Energy {
  double kinetic = 0, potential = 0;  // potential: gravity and springs
  double total() const { return kinetic + potential; }
};
Energy energy(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd);
/// The same from a snapshot of the motion at z (no frame pass of its own).
Energy energy(const RecursiveModel& tree, RecursiveData& data, const MotionSnapshot& s, const Eigen::VectorXd& z);

/// Instantaneous powers for the energy balance E(t) − E(0) = W_applied + W_driver − E_dissipated.
struct Powers {
  double dissipated = 0;  // dampers of springs and torsion springs (≥ 0)
  double applied = 0;     // point forces, torques, spring actuators
  double driver = 0;      // the drivers (the only constraints that work): (M^d z̈ − Q^d)ᵀ ż
};
Powers powers(const RecursiveModel& tree, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd,
              double t);
/// The same from a snapshot of the motion at (z, ż), with a force kernel of this tree kept by the
/// caller for the drivers' power (no allocation per call).
Powers powers(const RecursiveModel& tree, RecursiveData& data, const MotionSnapshot& s, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
              const Eigen::VectorXd& zdd, double t, GeneralizedForces<double>& forces);
Energy energy(const MatrixRModel& m, const MatrixRData& d);

}  // namespace lw::dyn
