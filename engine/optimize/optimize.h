// Tuning (issue 22): a cost minimised, or driven to a target, over chosen design parameters within
// their ranges, by an optimiser of NLopt fed the exact gradients of the sensitivity stage (the
// direct method: every evaluation is a run differentiated). Gradient-based: SLSQP, MMA, CCSA-Q,
// L-BFGS; derivative-free for comparison: COBYLA, BOBYQA, Nelder–Mead, Subplex. Inequality
// constraints are expressions of the parameters kept within a range (a Grashof condition, a sum of
// link lengths). The best design seen (within the constraints) is kept, whatever stops the run.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "mechanism/mechanism.h"
#include "sensitivity/sensitivity.h"

namespace lw::opt {

enum class Algorithm { Slsqp, Mma, Ccsaq, Lbfgs, Cobyla, Bobyqa, NelderMead, Subplex };
/// "slsqp", "mma", "ccsaq", "lbfgs", "cobyla", "bobyqa", "neldermead", "sbplx".
bool parseAlgorithm(const std::string& s, Algorithm& out);
const char* toString(Algorithm a);
/// The names parseAlgorithm takes, comma-separated (for messages).
const char* algorithmNames();
bool usesGradient(Algorithm a);
bool takesConstraints(Algorithm a);

struct OptimizeSpec {
  std::string cost;                     // empty: the file's only cost (refused when it has several)
  std::vector<std::string> parameters;  // empty: every parameter with a value, a min and a max
  bool hasTarget = false;               // drive the cost to `target`: minimise (ψ − target)²
  double target = 0;
  Algorithm algorithm = Algorithm::Slsqp;
  int maxEvaluations = 200;
  double relativeTolerance = 1e-10;     // stop when an iteration changes the objective by less (relative)
  std::vector<TuningConstraint> constraints;
  sens::SensitivitySpec sensitivity;    // the analysis and the run differentiated (its method: ddm)
};

/// One evaluation of the objective: the design tried, its cost and gradient norm.
struct Evaluation {
  int index = 0;                  // 1, 2, ...
  std::vector<std::string> names; // the parameters tuned
  std::vector<double> parameters; // the design tried
  double cost = 0;                // ψ
  double objective = 0;           // what is minimised: ψ, or (ψ − target)²
  double gradientNorm = 0;        // |∂objective/∂ρ| scaled by the parameters' ranges (0 when failed)
  double violation = 0;           // the largest constraint violation (relative to the bound, when above 1)
  bool failed = false;            // the run failed there (`message`): the optimiser is pushed back
  bool best = false;              // the best design so far (within the constraints)
  std::string message;
};

/// A design outside its constraints by at most this much (relative to each bound) is kept as the
/// nearest: a constraint on a minimum over the run is met only to within the change between steps.
constexpr double kNearlyFeasible = 1e-2;

struct OptimizeResult {
  Status status;                  // failed: nothing could be evaluated at the start, or bad input
  std::vector<std::string> parameters;
  std::vector<double> initial, best;
  double initialCost = 0, bestCost = 0, bestObjective = 0;
  std::vector<Evaluation> history;
  std::string stopReason;         // "converged (relative change below 1e-10)", "stopped", ...
  bool feasible = true;           // false: no design tried came within kNearlyFeasible of the constraints
  double seconds = 0;
  std::vector<std::string> notes;
};

/// Tunes `m`. `onEvaluation` is told of every evaluation (on the calling thread); `cancel` stops
/// the run at the next evaluation, keeping the best design so far.
OptimizeResult optimize(const Mechanism& m, const OptimizeSpec& spec, const std::function<void(const Evaluation&)>& onEvaluation = {},
                        const std::atomic<bool>* cancel = nullptr);

/// `m` with the named parameters set to `values` (literal values) and its stored configuration the
/// one its dynamics starts from at those values (analysis::storeDynamicsStart; where the dynamics
/// cannot assemble it, analysis::closeOpenedJoints): a run of the result is the run a study's
/// gradients describe. Fails naming a parameter that is unknown or an expression, or a mechanism
/// that does not close.
Status setParameters(Mechanism& m, const std::vector<std::string>& names, const std::vector<double>& values);

/// The spec a file's study asks for (analysis, cost, parameters, algorithm, constraints), its run
/// from the file's analysis defaults; what cannot be read is reported in `error`.
OptimizeSpec specFromStudy(const Mechanism& m, std::string& error);

}  // namespace lw::opt
