#include "optimize/optimize.h"

#include <nlopt.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "simulation/assembly.h"
#include "mechanism/parameters.h"
#include "numeric/dual.h"

namespace lw::opt {

namespace {

struct AlgorithmInfo {
  Algorithm algorithm;
  const char* name;
  nlopt::algorithm nlopt;
  bool gradient, constraints;
};
constexpr AlgorithmInfo kAlgorithms[] = {
    {Algorithm::Slsqp, "slsqp", nlopt::LD_SLSQP, true, true},
    {Algorithm::Mma, "mma", nlopt::LD_MMA, true, true},
    {Algorithm::Ccsaq, "ccsaq", nlopt::LD_CCSAQ, true, true},
    {Algorithm::Lbfgs, "lbfgs", nlopt::LD_LBFGS, true, false},
    {Algorithm::Cobyla, "cobyla", nlopt::LN_COBYLA, false, true},
    {Algorithm::Bobyqa, "bobyqa", nlopt::LN_BOBYQA, false, false},
    {Algorithm::NelderMead, "neldermead", nlopt::LN_NELDERMEAD, false, false},
    {Algorithm::Subplex, "sbplx", nlopt::LN_SBPLX, false, false},
};
const AlgorithmInfo& info(Algorithm a) {
  for (const auto& i : kAlgorithms)
    if (i.algorithm == a) return i;
  return kAlgorithms[0];
}

using Dual = num::Dual8;

// A constraint g(ρ) within [min, max] as NLopt's c(u) ≤ 0: one side each
struct ConstraintSide {
  std::size_t constraint;
  double sign;   // +1: g − max ≤ 0; −1: min − g ≤ 0
  double bound;
};

class Tuning {
 public:
  Tuning(const Mechanism& m, const OptimizeSpec& spec, const ParameterTable& table, std::vector<std::size_t> chosen, const std::string& cost,
         const std::function<void(const Evaluation&)>& onEvaluation, const std::atomic<bool>* cancel, OptimizeResult& result)
      : m_(m), spec_(spec), table_(table), chosen_(std::move(chosen)), onEvaluation_(onEvaluation), cancel_(cancel), result_(result) {
    const auto& names = table_.names();
    // every evaluation is this study of the cost, at another design
    study_ = spec.sensitivity;
    study_.method = sens::Method::Direct;
    study_.costs = {cost};
    // the costs the constraints name come from the same run, with their gradients
    for (const auto& c : spec.constraints)
      for (const auto& v : c.expression.variables())
        if (table_.find(v) < 0 && std::find(study_.costs.begin(), study_.costs.end(), v) == study_.costs.end()) study_.costs.push_back(v);
    study_.parameters.clear();
    for (std::size_t k : chosen_) study_.parameters.push_back(names[k]);
    for (std::size_t k : chosen_) {
      const auto it = std::find_if(m.parameters.begin(), m.parameters.end(), [&](const Parameter& q) { return q.name == names[k]; });
      inMechanism_.push_back(static_cast<std::size_t>(it - m.parameters.begin()));
      const Parameter& p = *it;
      const double v = table_.values()[k];
      lower_.push_back(p.hasMin ? p.min : -HUGE_VAL);
      upper_.push_back(p.hasMax ? p.max : HUGE_VAL);
      // u = (ρ − origin) / scale: the bounded parameters over [0, 1], the others in units of their size
      const bool bounded = p.hasMin && p.hasMax && p.max > p.min;
      origin_.push_back(bounded ? p.min : v);
      scale_.push_back(bounded ? p.max - p.min : std::max(std::abs(v), 1e-3));
    }
    std::vector<std::string> slots(names.begin(), names.end());
    slots.insert(slots.end(), study_.costs.begin(), study_.costs.end());
    for (const auto& c : spec.constraints) constraints_.push_back(c.expression.bind(slots));
  }

  std::vector<double> toU(const std::vector<double>& rho) const {
    std::vector<double> u(rho.size());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = (rho[i] - origin_[i]) / scale_[i];
    return u;
  }
  std::vector<double> toRho(const std::vector<double>& u) const {
    std::vector<double> rho(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) rho[i] = std::clamp(origin_[i] + scale_[i] * u[i], lower_[i], upper_[i]);
    return rho;
  }
  std::vector<double> lowerU() const { return toU(lower_); }
  std::vector<double> upperU() const { return toU(upper_); }

  /// The objective at u (and its gradient when `grad` is not empty).
  double objective(const std::vector<double>& u, std::vector<double>& grad) {
    if (cancel_ && cancel_->load()) {
      stoppedByUser_ = true;
      throw nlopt::forced_stop();
    }
    // SLSQP asks again, with the gradient, for the design its line search just accepted: the
    // run is not repeated
    if (!at_.failed && u == at_.u && !at_.objectiveGradient.empty()) {
      if (!grad.empty()) grad = at_.objectiveGradient;
      return at_.objective;
    }
    Evaluation e;
    e.index = static_cast<int>(result_.history.size()) + 1;
    e.parameters = toRho(u);
    e.names = result_.parameters;
    Mechanism moved = m_;
    for (std::size_t i = 0; i < chosen_.size(); ++i) moved.parameters[inMechanism_[i]].value = Number(e.parameters[i]);
    const auto r = sens::runSensitivity(moved, study_, {}, cancel_);
    if (cancel_ && cancel_->load()) {
      stoppedByUser_ = true;
      throw nlopt::forced_stop();
    }
    at_ = {u, !r.status.ok(), {}, {}, 0, {}};
    if (r.status.ok()) at_.values = r.methods.front().values, at_.gradient = r.methods.front().gradient;
    if (!r.status.ok()) {
      // a design where the run fails (a linkage that does not assemble): a value above every one
      // seen, its slope pointing back to the best design, so that a line search steps back
      e.failed = true;
      e.message = r.status.message;
      const double worst = std::max(std::abs(worstObjective_), 1.0);
      e.objective = 10 * worst;
      e.cost = std::numeric_limits<double>::quiet_NaN();
      if (!grad.empty()) {
        const std::vector<double> back = result_.best.empty() ? toU(result_.initial) : toU(result_.best);
        for (std::size_t i = 0; i < u.size(); ++i) grad[i] = 10 * worst * (u[i] - back[i]);
      }
    } else {
      e.cost = r.methods.front().values.front();
      const double f = spec_.hasTarget ? (e.cost - spec_.target) * (e.cost - spec_.target) : e.cost;
      const double df = spec_.hasTarget ? 2 * (e.cost - spec_.target) : 1.0;
      e.objective = f;
      worstObjective_ = std::max(worstObjective_, std::abs(f));
      double norm = 0;
      at_.objective = f;
      at_.objectiveGradient.resize(u.size());
      for (std::size_t i = 0; i < u.size(); ++i) {
        const double g = df * r.methods.front().gradient(0, static_cast<Eigen::Index>(i)) * scale_[i];
        at_.objectiveGradient[i] = g;
        norm += g * g;
      }
      if (!grad.empty()) grad = at_.objectiveGradient;
      e.gradientNorm = std::sqrt(norm);
      e.violation = violation(e.parameters);
      const bool feasible = e.violation <= kFeasible;
      if (feasible && (result_.best.empty() || f < result_.bestObjective)) {
        result_.best = e.parameters;
        result_.bestCost = e.cost;
        result_.bestObjective = f;
        e.best = true;
      }
      if (e.index == 1) result_.initialCost = e.cost;
    }
    result_.history.push_back(e);
    if (onEvaluation_) onEvaluation_(e);
    return e.objective;
  }

  /// Side `k`'s value c(u) ≤ 0, and its gradient with respect to u.
  double constraint(const ConstraintSide& side, const std::vector<double>& u, std::vector<double>& grad) {
    if (u != at_.u) {
      // NLopt asks for the constraints where it asked for the objective; elsewhere, one more run
      std::vector<double> none;
      objective(u, none);
    }
    const std::size_t n = chosen_.size();
    if (at_.failed) {
      // where the run fails: violated, sloping back toward the best design (as the objective does)
      const std::vector<double> back = result_.best.empty() ? toU(result_.initial) : toU(result_.best);
      if (!grad.empty())
        for (std::size_t i = 0; i < n; ++i) grad[i] = u[i] - back[i];
      return 1.0;
    }
    const std::vector<double> rho = toRho(u);
    const std::size_t costs = at_.values.size();
    double value = 0;
    for (std::size_t first = 0; first < n || first == 0; first += num::kChunk) {
      std::vector<std::size_t> seeded;
      std::vector<Dual> seeds;
      for (std::size_t j = first; j < std::min(n, first + num::kChunk); ++j) {
        Dual d(rho[j]);
        d.g[j - first] = 1;
        seeded.push_back(chosen_[j]);
        seeds.push_back(d);
      }
      std::vector<Dual> values = table_.valuesOn<Dual>(seeded, seeds);
      for (std::size_t k = 0; k < costs; ++k) {
        Dual c(at_.values[k]);
        for (std::size_t j = first; j < std::min(n, first + num::kChunk); ++j)
          c.g[j - first] = at_.gradient(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j));
        values.push_back(c);
      }
      const Dual g = constraints_[side.constraint](std::span<const Dual>(values));
      value = side.sign * (g.v - side.bound);
      if (!grad.empty())
        for (std::size_t j = first; j < std::min(n, first + num::kChunk); ++j) grad[j] = side.sign * g.g[j - first] * scale_[j];
      if (n == 0) break;
    }
    return value;
  }

  /// The largest violation of the constraints at ρ (0 within them).
  double violation(const std::vector<double>& rho) const {
    if (constraints_.empty()) return 0;
    const std::vector<std::size_t> seeded(chosen_);
    std::vector<double> all = table_.valuesOn<double>(seeded, rho);
    all.insert(all.end(), at_.values.begin(), at_.values.end());  // the costs, at the design just run
    double worst = 0;
    for (std::size_t c = 0; c < constraints_.size(); ++c) {
      const double g = constraints_[c](std::span<const double>(all));
      const auto& k = spec_.constraints[c];
      // violations relative to the bound's size (a constraint in degrees or in metres alike)
      if (k.hasMax) worst = std::max(worst, (g - k.max) / std::max(1.0, std::abs(k.max)));
      if (k.hasMin) worst = std::max(worst, (k.min - g) / std::max(1.0, std::abs(k.min)));
    }
    return worst;
  }

  bool stoppedByUser_ = false;
  static constexpr double kFeasible = 1e-8;  // relative to the bound

 private:
  const Mechanism& m_;
  const OptimizeSpec& spec_;
  const ParameterTable& table_;
  std::vector<std::size_t> chosen_;
  std::vector<std::size_t> inMechanism_;  // the chosen parameters' indices in m_.parameters
  sens::SensitivitySpec study_;
  const std::function<void(const Evaluation&)>& onEvaluation_;
  const std::atomic<bool>* cancel_;
  OptimizeResult& result_;
  std::vector<double> lower_, upper_, origin_, scale_;
  std::vector<Expression::Bound> constraints_;  // on [parameters, study_.costs]
  double worstObjective_ = 0;
  // the design last run (scaled) and its costs' values and gradients (study_.costs × chosen)
  struct Point {
    std::vector<double> u;
    bool failed = false;
    std::vector<double> values;
    Eigen::MatrixXd gradient;
    double objective = 0;
    std::vector<double> objectiveGradient;  // with respect to u
  } at_;
};

double objectiveThunk(const std::vector<double>& u, std::vector<double>& grad, void* tuning) {
  return static_cast<Tuning*>(tuning)->objective(u, grad);
}
struct ConstraintData {
  Tuning* tuning;
  ConstraintSide side;
};
double constraintThunk(const std::vector<double>& u, std::vector<double>& grad, void* data) {
  auto* d = static_cast<ConstraintData*>(data);
  return d->tuning->constraint(d->side, u, grad);
}

}  // namespace

bool parseAlgorithm(const std::string& s, Algorithm& out) {
  for (const auto& i : kAlgorithms)
    if (s == i.name) {
      out = i.algorithm;
      return true;
    }
  return false;
}
const char* toString(Algorithm a) { return info(a).name; }
const char* algorithmNames() { return "slsqp, mma, ccsaq, lbfgs (exact gradients), cobyla, bobyqa, neldermead, sbplx (derivative-free)"; }
bool usesGradient(Algorithm a) { return info(a).gradient; }
bool takesConstraints(Algorithm a) { return info(a).constraints; }

Status setParameters(Mechanism& m, const std::vector<std::string>& names, const std::vector<double>& values) {
  const Mechanism before = m;
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto it = std::find_if(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == names[i]; });
    if (it == m.parameters.end()) return failure(Status::Code::BadRequest, 0, "unknown parameter '" + names[i] + "'");
    if (!it->value.isLiteral())
      return failure(Status::Code::BadRequest, 0, "parameter '" + names[i] + "' is the expression '" + it->value.expression.text() +
                                                       "': set the parameters it uses instead");
    if (!std::isfinite(values[i])) return failure(Status::Code::BadRequest, 0, "parameter '" + names[i] + "': the value is not finite");
    it->value = Number(values[i]);
  }
  // the stored configuration becomes the one the dynamics starts from at these values (the
  // minimum-norm assembly from the old one): a run of the written file is the run the gradients
  // and the tuning evaluated. Where the dynamics cannot assemble it, the edit guard's assembly.
  auto closed = analysis::storeDynamicsStart(m);
  if (!closed.ok) {
    m.bodies = before.bodies;
    closed = analysis::closeOpenedJoints(before, m);
  }
  if (!closed.ok) {
    m = before;
    return failure(Status::Code::NotConverged, 0, closed.error);
  }
  return {};
}

OptimizeSpec specFromStudy(const Mechanism& m, std::string& error) {
  OptimizeSpec spec;
  const StudySettings& s = m.study;
  spec.cost = s.tuneCost.empty() && !s.costs.empty() ? s.costs.front() : s.tuneCost;
  spec.parameters = s.parameters;
  spec.hasTarget = s.hasTarget;
  spec.target = s.target;
  if (!parseAlgorithm(s.algorithm, spec.algorithm)) error = "study.tuning.algorithm: unknown algorithm '" + s.algorithm + "' (" + algorithmNames() + ")";
  spec.maxEvaluations = s.maxEvaluations;
  spec.constraints = s.constraints;
  spec.sensitivity.analysis = s.analysis == "kinematics" ? sens::Analysis::Kinematics : sens::Analysis::Dynamics;
  if (spec.sensitivity.analysis == sens::Analysis::Dynamics && !analysis::parseFormulation(s.formulation, spec.sensitivity.run.formulation))
    error = "study.formulation: unknown formulation '" + s.formulation + "'";
  const RunSpan span = defaultSpan(m, spec.sensitivity.analysis == sens::Analysis::Kinematics);
  spec.sensitivity.run.tEnd = span.tEnd;
  spec.sensitivity.run.dt = span.dt;
  return spec;
}

OptimizeResult optimize(const Mechanism& m, const OptimizeSpec& spec, const std::function<void(const Evaluation&)>& onEvaluation,
                        const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  OptimizeResult res;
  auto refuse = [&](const std::string& why) {
    res.status = failure(Status::Code::BadRequest, 0, why);
    return res;
  };
  Diagnostics d;
  const auto table = ParameterTable::build(m, d);
  if (!table) return refuse("the parameters have errors: " + (d.empty() ? std::string("?") : d.front().path + ": " + d.front().message));
  // the cost
  std::string cost = spec.cost;
  if (cost.empty()) {
    if (m.costs.size() != 1)
      return refuse(m.costs.empty() ? "the file has no costs: add one under \"costs\" to tune for"
                                    : "the file has " + std::to_string(m.costs.size()) + " costs: choose the one to tune for");
    cost = m.costs.front().name;
  }
  if (std::none_of(m.costs.begin(), m.costs.end(), [&](const Cost& c) { return c.name == cost; })) {
    std::string known;
    for (const auto& c : m.costs) known += (known.empty() ? "" : ", ") + c.name;
    return refuse("unknown cost '" + cost + "' (the file's costs: " + (known.empty() ? "none" : known) + ")");
  }
  // the parameters: by name, or every literal one with a range
  std::vector<std::size_t> chosen;
  auto param = [&](const std::string& n) {
    return std::find_if(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == n; });
  };
  if (spec.parameters.empty()) {
    for (const auto& p : m.parameters)
      if (p.value.isLiteral() && p.hasMin && p.hasMax) chosen.push_back(static_cast<std::size_t>(table->find(p.name)));
    if (chosen.empty()) return refuse("no parameter has a value, a min and a max: give the ones to tune a range, or name them");
  } else {
    for (const auto& n : spec.parameters) {
      const auto it = param(n);
      if (it == m.parameters.end()) {
        std::string known;
        for (const auto& p : m.parameters) known += (known.empty() ? "" : ", ") + p.name;
        return refuse("unknown parameter '" + n + "' (the file's parameters: " + (known.empty() ? "none" : known) + ")");
      }
      if (!it->value.isLiteral())
        return refuse("parameter '" + n + "' is the expression '" + it->value.expression.text() + "': tune the parameters it uses");
      if (!it->hasMin || !it->hasMax) res.notes.push_back("parameter '" + n + "' has no range: it is tuned without bounds on that side");
      if (std::find(chosen.begin(), chosen.end(), static_cast<std::size_t>(table->find(n))) != chosen.end())
        return refuse("parameter '" + n + "' is named twice: name each parameter once");
      chosen.push_back(static_cast<std::size_t>(table->find(n)));
    }
  }
  for (std::size_t k : chosen) {
    const Parameter& p = *param(table->names()[k]);
    const double v = table->values()[k];
    if ((p.hasMin && v < p.min) || (p.hasMax && v > p.max))
      return refuse("parameter '" + p.name + "' = " + shortNumber(v) + " is outside its range [" + shortNumber(p.min) + ", " + shortNumber(p.max) +
                    "]: the start must be within it");
  }
  const AlgorithmInfo& algo = info(spec.algorithm);
  if (!spec.constraints.empty() && !algo.constraints)
    return refuse(std::string(algo.name) + " takes no constraints: use slsqp, mma, ccsaq or cobyla");
  if (spec.maxEvaluations < 1) return refuse("the number of evaluations must be at least 1");
  for (const auto& c : spec.constraints)
    for (const auto& v : c.expression.variables()) {
      const bool isCost = std::any_of(m.costs.begin(), m.costs.end(), [&](const Cost& k) { return k.name == v; });
      if (table->find(v) < 0 && !isCost) return refuse("constraint '" + c.name + "' uses '" + v + "', which is neither a parameter nor a cost");
    }
  for (std::size_t k : chosen) res.parameters.push_back(table->names()[k]);
  for (std::size_t k : chosen) res.initial.push_back(table->values()[k]);

  Tuning tuning(m, spec, *table, chosen, cost, onEvaluation, cancel, res);
  const auto n = static_cast<unsigned>(chosen.size());
  nlopt::opt opt(algo.nlopt, n);
  // NLopt's SLSQP and others take infinite bounds; the scaled box is [0, 1] for ranged parameters
  opt.set_lower_bounds(tuning.lowerU());
  opt.set_upper_bounds(tuning.upperU());
  opt.set_min_objective(objectiveThunk, &tuning);
  std::vector<ConstraintData> sides;
  sides.reserve(2 * spec.constraints.size());
  for (std::size_t c = 0; c < spec.constraints.size(); ++c) {
    if (spec.constraints[c].hasMax) sides.push_back({&tuning, {c, 1.0, spec.constraints[c].max}});
    if (spec.constraints[c].hasMin) sides.push_back({&tuning, {c, -1.0, spec.constraints[c].min}});
  }
  for (auto& s : sides) opt.add_inequality_constraint(constraintThunk, &s, 1e-10);
  opt.set_maxeval(spec.maxEvaluations);
  opt.set_ftol_rel(spec.relativeTolerance);
  opt.set_xtol_rel(1e-12);
  if (!algo.gradient) {
    // the derivative-free methods' first steps: a tenth of each range
    opt.set_initial_step(std::vector<double>(n, 0.1));
  }
  std::vector<double> u = tuning.toU(res.initial);
  double f = 0;
  try {
    const nlopt::result r = opt.optimize(u, f);
    switch (r) {
      case nlopt::FTOL_REACHED: res.stopReason = "converged: the cost changed by less than " + shortNumber(spec.relativeTolerance) + " (relative)"; break;
      case nlopt::XTOL_REACHED: res.stopReason = "converged: the design stopped moving"; break;
      case nlopt::MAXEVAL_REACHED: res.stopReason = "stopped at the limit of " + std::to_string(spec.maxEvaluations) + " optimiser steps"; break;
      case nlopt::STOPVAL_REACHED: res.stopReason = "reached the target value"; break;
      default: res.stopReason = "converged"; break;
    }
  } catch (const nlopt::forced_stop&) {
    res.stopReason = tuning.stoppedByUser_ ? "stopped: the best design so far is kept" : "stopped";
  } catch (const nlopt::roundoff_limited&) {
    res.stopReason = "converged as far as round-off allows";
  } catch (const std::exception& e) {
    res.stopReason = std::string("the optimiser stopped: ") + e.what();
  }
  if (res.history.empty() || res.history.front().failed) {
    const std::string why = res.history.empty() ? std::string("nothing was evaluated") : res.history.front().message;
    res.status = failure(Status::Code::NotConverged, 0, "the starting design cannot be evaluated: " + why);
  } else if (res.best.empty()) {
    // no evaluation met the constraints: the one nearest to them (a constraint on a minimum over
    // the run can be met only to within the change between steps), the lower cost on a tie
    const Evaluation* nearest = nullptr;
    for (const auto& e : res.history)
      if (!e.failed && (!nearest || e.violation < nearest->violation || (e.violation == nearest->violation && e.objective < nearest->objective)))
        nearest = &e;
    res.best = nearest->parameters;
    res.bestCost = nearest->cost;
    res.bestObjective = nearest->objective;
    if (nearest->violation <= kNearlyFeasible) {
      res.notes.push_back("no design tried met the constraints exactly: evaluation " + std::to_string(nearest->index) +
                          ", the nearest, is kept (outside by " + shortNumber(nearest->violation) + ", relative to the bound)");
    } else {
      // an infeasible problem (bounds that exceed a constraint) is no convergence
      res.feasible = false;
      res.stopReason = "no feasible design found: the smallest violation reached is " + shortNumber(nearest->violation) +
                       " (relative to the bound), at evaluation " + std::to_string(nearest->index) +
                       "; loosen a constraint or widen the parameters' ranges";
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return res;
}

}  // namespace lw::opt
