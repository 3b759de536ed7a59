// What the adjoints of both formulations need of the costs (internal to engine/sensitivity): the
// integrand's derivatives with respect to the outputs, their initial values and the chosen
// parameters, the quadrature weights of the run's nodes, and the terms of the costs that are not
// integrals (targets, minimum, maximum) placed on the nodes where the forward run took them.
#pragma once

#include <Eigen/Core>
#include <map>
#include <vector>

#include "sensitivity/run_record.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

/// A cost's linearisation at one node: the cost's weights on the node's outputs and on the initial
/// outputs, its direct derivatives with respect to the chosen parameters (rows: costs), and the
/// values it adds.
struct NodeCostTerms {
  Eigen::VectorXd g;
  Eigen::MatrixXd gOut, gInit, gPar;
};

class CostIntegrand {
 public:
  explicit CostIntegrand(const Study& st);
  /// The outputs at the start (what initial(...) in a cost reads).
  void setInitialOutputs(const Eigen::VectorXd& o) { initial_ = o; }
  /// g per cost, and its derivatives (costs × outputs, costs × outputs, costs × chosen parameters).
  void operator()(double t, const Eigen::VectorXd& outputs, Eigen::VectorXd& g, Eigen::MatrixXd& gOut, Eigen::MatrixXd& gInit,
                  Eigen::MatrixXd& gPar) const;
  /// One expression at given slots [t, outputs, initial outputs, parameters]: its value and
  /// derivatives (1 × outputs, 1 × outputs, 1 × chosen parameters).
  void at(const Expression::Bound& e, const std::vector<double>& slots, double& g, Eigen::RowVectorXd& gOut, Eigen::RowVectorXd& gInit,
          Eigen::RowVectorXd& gPar) const;

 private:
  const Study& st_;
  Eigen::MatrixXd paramJacobian_;  // d(every parameter)/d(chosen): chains of parameters
  Eigen::VectorXd initial_;
  // every expression in `e` at `slots`: values and derivatives by slot (rows: expressions)
  void lanes(const std::vector<const Expression::Bound*>& e, const std::vector<double>& slots, Eigen::VectorXd& g, Eigen::MatrixXd& dSlots) const;
};

/// Where the forward run took the terms of the costs that are not integrals or terminal values:
/// the node of each minimum's or maximum's extreme, and each target's site (the forward run's
/// CostAccumulator<double> records both; nodes count from 0 in the order it was given points).
struct CostSites {
  std::vector<long> extremeNodes;  // by cost, −1 for the others
  std::vector<analysis::CostAccumulator<double>::TargetSite> targets;
};

/// The targets' terms by node: at a target's node its weight f on the outputs, its value and its
/// direct derivatives; at the node before, 1 − f on the outputs.
class TargetTerms {
 public:
  TargetTerms(const Study& st, const CostIntegrand& integrand, const CostSites* sites);
  /// Adds node n's share to `terms` (sized costs × ...).
  void addAt(long n, NodeCostTerms& terms) const;

 private:
  struct Term {
    Eigen::Index cost = 0;
    double weight = 1;  // on the outputs
    bool own = true;    // the target's own node: its value and direct derivatives count here
    double g = 0;
    Eigen::RowVectorXd gOut, gInit, gPar;
  };
  std::multimap<long, Term> byNode_;
};

/// Node n's weight per cost: for an integral cost the trapezoidal rule over the node times, or
/// with `rungeKutta` RK45's quadrature's b₁ h on the step that starts there (its stages' terms are
/// the step's: stageCosts); 1 at the last node for a terminal one and at its extreme's node for a
/// minimum or maximum (`sites`), 0 for a targets cost (its terms are TargetTerms').
Eigen::VectorXd nodeWeights(const analysis::CostSet& costs, const NodeSpan& span, long n, const CostSites* sites, bool rungeKutta);

/// A node's costs: the integrands weighted and the targets' terms there.
NodeCostTerms nodeCosts(const Study& st, const CostIntegrand& integrand, const TargetTerms& targets, const CostSites* sites,
                        const NodeSpan& span, long n, double t, const Eigen::VectorXd& outputs, bool rungeKutta);

/// The integral costs' terms at stage i (3 + i) of an RK45 step of size h: the integrand at the
/// stage's outputs weighted by h bᵢ (integ::dopri::quadratureB).
NodeCostTerms stageCosts(const Study& st, const CostIntegrand& integrand, std::size_t i, double h, double t, const Eigen::VectorXd& outputs);

}  // namespace lw::sens::detail
