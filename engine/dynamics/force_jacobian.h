// The force Jacobian of the penalty tangent (seed 004 §5): J = [K C] = −∂Q^d/∂[z; ż] (nz × 2nz),
// by one of
//   central differences   4·nz evaluations of Q^d (the paper's ND baseline)
//   dense forward AD      2·nz directions, kForceChunk per pass of GeneralizedForces<Dual>
//   sparse forward AD     one direction per colour of a column colouring (ColPack) of the
//                         structural pattern, found once by a pass on num::Pattern
// The paper neglects M^d's own derivative; given z̈, it is included here (see compute).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "dynamics/recursive_model.h"

namespace lw::dyn {

enum class TangentMethod { CentralDifferences, DenseAD, SparseAD };
bool parseTangentMethod(const std::string& s, TangentMethod& out);
const char* tangentMethodName(TangentMethod m);

class ForceJacobian {
 public:
  /// numbers: the run's (its forces' switch states), the model's when null.
  ForceJacobian(const RecursiveModel& m, TangentMethod method, const TreeNumbers<double>* numbers = nullptr);
  ~ForceJacobian();
  ForceJacobian(ForceJacobian&&) noexcept;

  /// K = −∂Q^d/∂z and C = −∂Q^d/∂ż (nz × nz each) at (z, ż, t). With accelerations zdd, of the
  /// inverse-dynamics residual Q^d − M^d z̈ instead: K then holds ∂M^d/∂z z̈ too (the term the
  /// paper neglects; it matters for bodies with a nearly massless freedom such as a rod's spin).
  /// No allocation after the first call.
  void compute(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t, Eigen::MatrixXd& K, Eigen::MatrixXd& C,
               const Eigen::VectorXd* zdd = nullptr);

  TangentMethod method() const { return method_; }
  /// Evaluations of the force kernel per Jacobian: 4·nz (differences), ⌈2nz / chunk⌉ (dense AD),
  /// ⌈colours / chunk⌉ (sparse AD).
  int passes() const;
  /// Sparse AD: the structural pattern (row → sorted columns of [z; ż]) and the column colouring.
  const std::vector<std::vector<int>>& pattern() const { return pattern_; }
  const std::vector<int>& columnColour() const { return colour_; }
  int colours() const { return colours_; }

 private:
  struct Work;
  const RecursiveModel* m_;
  TangentMethod method_;
  std::vector<std::vector<int>> pattern_;
  std::vector<int> colour_;
  int colours_ = 0;
  std::unique_ptr<Work> w_;
};

/// The structural pattern of ∂Q^d/∂[z; ż] at (z, ż, t): row i → sorted columns (ż_j is column nz + j).
std::vector<std::vector<int>> forceJacobianPattern(const RecursiveModel& m, const Eigen::VectorXd& z,
                                                   const Eigen::VectorXd& zd, double t);

}  // namespace lw::dyn
