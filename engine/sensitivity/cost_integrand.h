// What the adjoints of both formulations need of the costs (internal to engine/sensitivity): the
// integrand's derivatives with respect to the outputs, their initial values and the chosen
// parameters, and the quadrature weights of the run's nodes.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sensitivity/study.h"

namespace lw::sens::detail {

class CostIntegrand {
 public:
  explicit CostIntegrand(const Study& st);
  /// The outputs at the start (what initial(...) in a cost reads).
  void setInitialOutputs(const Eigen::VectorXd& o) { initial_ = o; }
  /// g per cost, and its derivatives (costs × outputs, costs × outputs, costs × chosen parameters).
  void operator()(double t, const Eigen::VectorXd& outputs, Eigen::VectorXd& g, Eigen::MatrixXd& gOut, Eigen::MatrixXd& gInit,
                  Eigen::MatrixXd& gPar) const;

 private:
  const Study& st_;
  Eigen::MatrixXd paramJacobian_;  // d(every parameter)/d(chosen): chains of parameters
  Eigen::VectorXd initial_;
};

/// Node n's weight per cost: the trapezoidal rule over the node times for an integral cost, 1 at
/// the last node for a terminal one.
inline Eigen::VectorXd nodeWeights(const analysis::CostSet& costs, const std::vector<double>& times, long n) {
  const long last = static_cast<long>(times.size()) - 1;
  const auto i = static_cast<std::size_t>(n);
  const double integral = 0.5 * ((n > 0 ? times[i] - times[i - 1] : 0.0) + (n < last ? times[i + 1] - times[i] : 0.0));
  Eigen::VectorXd w(static_cast<Eigen::Index>(costs.names.size()));
  for (Eigen::Index k = 0; k < w.size(); ++k)
    w[k] = costs.types[static_cast<std::size_t>(k)] == Cost::Type::Integral ? integral : (n == last ? 1.0 : 0.0);
  return w;
}

}  // namespace lw::sens::detail
