#include "sensitivity/sensitivity.h"

#include <algorithm>

#include <Eigen/LU>
#include <chrono>
#include <cmath>
#include <complex>
#include <memory>
#include <iomanip>
#include <sstream>

#include "kinematics/global_solver.h"
#include "sensitivity/adjoint.h"
#include "sensitivity/complex_step.h"
#include "sensitivity/cost_integrand.h"
#include "sensitivity/direct.h"
#include "sensitivity/global_formulation.h"
#include "sensitivity/matrix_r_formulation.h"
#include "sensitivity/penalty_formulation.h"
#include "sensitivity/run_record.h"
#include "sensitivity/study.h"

namespace lw::sens {

bool parseMethod(const std::string& s, Method& out) {
  if (s == "ddm" || s == "direct") out = Method::Direct;
  else if (s == "avm" || s == "adjoint") out = Method::Adjoint;
  else if (s == "cs" || s == "complex") out = Method::ComplexStep;
  else if (s == "fd" || s == "differences") out = Method::FiniteDifferences;
  else if (s == "compare") out = Method::Compare;
  else return false;
  return true;
}

const char* toString(Method m) {
  switch (m) {
    case Method::Direct: return "ddm";
    case Method::Adjoint: return "avm";
    case Method::ComplexStep: return "cs";
    case Method::FiniteDifferences: return "fd";
    case Method::Compare: return "compare";
  }
  return "?";
}

namespace {

using namespace detail;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// what the adjoint's record may hold when the spec sets no interval: every state of a run while
// they fit (no step recomputed: a replay costs what the forward step did), thinned by halves
// beyond (RunRecord); any interval ≥ 2 recomputes about every step once, so the budget alone
// decides
constexpr std::size_t kAdjointRecordBudget = std::size_t{64} << 20;

// the run a method follows; RK45 with costs taken at the steps' points (targets, extremes) takes
// steps of at most dt, as a plain run of the file does (SimulationSpec::maxStep); its integral
// costs are quadratures over its stages, its steps chosen by the tolerance alone
analysis::SimulationSpec runSpec(const SensitivitySpec& spec, const Study& st) {
  analysis::SimulationSpec s = spec.run;
  if (s.maxStep == 0 && (st.costs.hasType(Cost::Type::Targets) || st.costs.hasType(Cost::Type::Minimum) || st.costs.hasType(Cost::Type::Maximum)))
    s.maxStep = s.dt;
  s.outputDt = s.tEnd;  // the rows are not the point: keep two
  s.rows = {};
  return s;
}

}  // namespace

SensitivityResult runSensitivity(const Mechanism& m, const SensitivitySpec& spec, const std::function<void(double)>& progress,
                                 const std::atomic<bool>* cancel) {
  SensitivityResult res;
  Study st;
  st.mechanism = &m;
  {
    Diagnostics d;
    auto r = resolve(m, d);
    if (!r) {
      res.status = failure(Status::Code::BadRequest, 0, "the mechanism has errors: " + (d.empty() ? std::string("?") : d.front().path + ": " + d.front().message));
      return res;
    }
    st.resolved = std::move(*r);
  }
  const bool global = analysis::isGlobal(spec.run.formulation);
  const Partials partials = spec.partials;
  if (spec.analysis == Analysis::Kinematics) {
    // the drivers must fix every freedom: the motion is then the kinematic solution, which the
    // tree's coordinates follow step by step (a Matrix R run with no independent coordinates)
    if (spec.run.formulation != analysis::Formulation::MatrixR || spec.run.integrator != analysis::Integrator::Trapezoidal) {
      res.status = failure(Status::Code::BadRequest, 0, "a kinematic analysis has no formulation or integrator to choose: drop --formulation and --integrator");
      return res;
    }
    const kin::NaturalModel nm = kin::compileNaturalModel(st.resolved);
    kin::GlobalData data(nm, {kin::LinearSolverKind::Sparse});
    if (Status s = kin::assemble(nm, data, 0.0); !s.ok()) {
      res.status = s;
      res.status.message += " (a kinematic analysis needs the motion fully driven: add drivers, or use --analysis dynamics)";
      return res;
    }
    const kin::NumericalMobility& mob = data.mobility;
    if (mob.freeDof > 0 || !mob.passive.empty()) {
      std::string why = mob.freeDof > 0 ? std::to_string(mob.freeDof) + " freedom(s) have no driver" : "";
      for (const auto& b : mob.passive) why += (why.empty() ? "" : "; ") + std::string("the passive spin of '") + b + "' is a freedom of the dynamics";
      res.status = failure(Status::Code::BadRequest, 0, "a kinematic analysis needs the motion fully driven: " + why + " (add drivers, or use --analysis dynamics)");
      return res;
    }
  }
  const bool penalty = spec.run.formulation == analysis::Formulation::Penalty;
  const bool rungeKutta = !analysis::trapezoidalOnly(spec.run.formulation) && spec.run.integrator == analysis::Integrator::RK45;
  const auto& table = *st.resolved.parameters;
  if (spec.parameters.empty()) {
    for (std::size_t k = 0; k < table.names().size(); ++k) st.parameters.push_back(k);
  } else {
    for (const auto& name : spec.parameters) {
      const int k = table.find(name);
      if (k < 0) {
        std::string known;
        for (const auto& n : table.names()) known += (known.empty() ? "" : ", ") + n;
        res.status = failure(Status::Code::BadRequest, 0, "unknown parameter '" + name + "' (the file's parameters: " + (known.empty() ? "none" : known) + ")");
        return res;
      }
      if (std::find(st.parameters.begin(), st.parameters.end(), static_cast<std::size_t>(k)) != st.parameters.end()) {
        res.status = failure(Status::Code::BadRequest, 0, "parameter '" + name + "' is named twice: name each parameter once");
        return res;
      }
      st.parameters.push_back(static_cast<std::size_t>(k));
    }
  }
  for (std::size_t i = 0; i < spec.costs.size(); ++i)
    if (std::find(spec.costs.begin(), spec.costs.begin() + static_cast<std::ptrdiff_t>(i), spec.costs[i]) != spec.costs.begin() + static_cast<std::ptrdiff_t>(i)) {
      res.status = failure(Status::Code::BadRequest, 0, "cost '" + spec.costs[i] + "' is named twice: name each cost once");
      return res;
    }
  if (st.parameters.empty()) {
    res.status = failure(Status::Code::BadRequest, 0, "the file has no design parameters: add some under \"parameters\" and use them in fields");
    return res;
  }
  for (std::size_t k : st.parameters) res.parameters.push_back(table.names()[k]);
  // the semi-analytical partials difference at ρ + δ·max(1, |ρ|): a δ whose step is lost in the
  // rounding of ρ (1e-300, 1e-16) gives zeros or noise; refused, naming the smallest that is not
  if (partials != Partials::AutomaticDifferentiation)
    for (std::size_t k : st.parameters) {
      const double value = table.values()[k], scale = std::max(1.0, std::abs(value));
      // the step must be represented to 1 %: a hundred units in the last place of ρ
      const double smallest = 100 * (std::nextafter(std::abs(value), INFINITY) - std::abs(value)) / scale;
      if (!(spec.delta >= smallest)) {
        res.status = failure(Status::Code::BadRequest, 0,
                             "the step delta = " + shortNumber(spec.delta) + " vanishes against parameter '" + table.names()[k] + "' (" +
                                 shortNumber(value) + ") in double precision: choose a delta of at least " + shortNumber(smallest));
        return res;
      }
    }
  st.model = dyn::compileMatrixR(st.resolved);
  if (!st.model.ok()) {
    res.status = failure(Status::Code::NotDriven, 0, st.model.error);
    return res;
  }
  st.outputs = analysis::compileOutputs(m, st.resolved, st.model.tree, st.model.rows);
  if (auto problem = analysis::compileCosts(m, st.resolved, st.outputs, spec.costs, st.costs); !problem.empty()) {
    res.status = failure(Status::Code::BadRequest, 0, problem);
    return res;
  }
  if (auto problem = analysis::costTimesProblem(st.costs, spec.run.tEnd); !problem.empty()) {
    res.status = failure(Status::Code::BadRequest, 0, problem);
    return res;
  }
  res.costs = st.costs.names;
  // a parameter no field uses: its gradient is exactly zero (said after the request is known to
  // stand, and summarised: thousands of them are one note, not thousands)
  {
    const auto uses = fieldsByParameter(m, table);
    std::vector<std::string> unused;
    for (std::size_t k : st.parameters)
      if (uses.at(table.names()[k]).empty()) unused.push_back(table.names()[k]);
    if (unused.size() <= 5) {
      for (const auto& n : unused) res.notes.push_back("nothing depends on parameter '" + n + "': its gradient is exactly 0");
    } else {
      std::string some;
      for (std::size_t i = 0; i < 3; ++i) some += "'" + unused[i] + "', ";
      res.notes.push_back("nothing depends on " + std::to_string(unused.size()) + " of the parameters (" + some + "and " +
                          std::to_string(unused.size() - 3) + " more): their gradients are exactly 0");
    }
  }
  if (spec.histories) {
    std::string left;
    for (std::size_t i = 0; i < st.outputs.names.size(); ++i)
      if (!detail::HistoryRows::differentiable(st.outputs.components[i].type)) left += (left.empty() ? "'" : ", '") + st.outputs.names[i] + "'";
    if (!left.empty()) res.notes.push_back("the histories leave out " + left + ": energies and constraint residuals have no derivative here");
  }
  std::vector<Method> methods{spec.method};
  if (spec.method == Method::Compare) methods = {Method::Direct, Method::Adjoint, Method::ComplexStep, Method::FiniteDifferences};
  // costs whose terms are taken at some nodes only (targets, a minimum or maximum): the adjoint
  // learns where from the forward run's own accumulator
  bool sampled = false;
  for (Cost::Type t : st.costs.types) sampled = sampled || (t != Cost::Type::Integral && t != Cost::Type::Terminal);
  const double share = 1.0 / static_cast<double>(methods.size());
  // the semi-analytical partials' δ_k = delta · max(1, |ρ_k|) (none with AD)
  auto semiAnalyticalSteps = [&] {
    std::vector<double> steps;
    if (partials != Partials::AutomaticDifferentiation)
      for (std::size_t k : st.parameters) steps.push_back(spec.delta * std::max(1.0, std::abs(table.values()[k])));
    return steps;
  };
  // the run's formulation for a method (its partials' route: the direct method's and the adjoint's choice)
  auto formulation = [&](const Study& study, Partials route) -> std::unique_ptr<Formulation> {
    if (global)
      return globalFormulation(study,
                               spec.run.formulation == analysis::Formulation::PenaltyGlobal ? GlobalKind::Penalty
                               : spec.run.formulation == analysis::Formulation::Index3      ? GlobalKind::Index3
                                                                                            : GlobalKind::Index1,
                               rungeKutta, route, spec.delta);
    return penalty ? penaltyFormulation(study, route, spec.delta, !spec.referenceKernels) : matrixRFormulation(study, rungeKutta, route, spec.delta, !spec.referenceKernels);
  };
  // one method's gradient into res.methods; false with res.status set when it fails
  auto oneMethod = [&](std::size_t mi) -> bool {
    const auto started = std::chrono::steady_clock::now();
    auto part = [&](double f) {
      if (progress) progress(share * (static_cast<double>(mi) + f));
    };
    Gradient g;
    g.method = methods[mi];
    const std::size_t nc = st.costs.names.size(), np = st.parameters.size();
    g.gradient.setZero(static_cast<Eigen::Index>(nc), static_cast<Eigen::Index>(np));
    // one run per parameter (the complex step): its column of every cost's gradient, progress, cancel
    auto columnByColumn = [&](const std::function<Status(std::size_t, std::vector<double>&)>& run) -> Status {
      for (std::size_t k = 0; k < np; ++k) {
        std::vector<double> column;
        if (Status s = run(k, column); !s.ok()) return s;
        for (std::size_t c = 0; c < nc; ++c) g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)) = column[c];
        part(static_cast<double>(k + 1) / static_cast<double>(np));
        if (cancel && cancel->load()) return failure(Status::Code::Cancelled, 0, "cancelled");
      }
      return {};
    };
    // the forward run, its points told to `o` through the formulation f
    auto runWith = [&](Formulation& f, PointObserver* o, bool notes) {
      analysis::SimulationSpec rs = runSpec(spec, st);
      f.observe(o, rs);
      const auto r = analysis::runSimulation(st.resolved, rs, notes ? part : std::function<void(double)>{}, cancel);
      res.status = r.status;
      res.steps = r.steps;
      if (res.impacts.empty())
        for (const auto& e : r.events) res.impacts.push_back({e, {}, {}, {}, {}});
      if (notes)
        for (const auto& w : r.warnings) res.notes.push_back(w);
      return res.status.ok();
    };
    auto keepStats = [&](const AdjointStats& stats, long every) {
      g.recordBytes = stats.recordBytes;
      g.segmentBytes = stats.segmentBytes;
      g.recomputedSteps = stats.recomputedSteps;
      g.checkpointEvery = every;
    };
    // the run's events that the methods see as impacts (an opening contact is not one: the state
    // and its sensitivities go on unchanged), in order
    auto observedImpacts = [&] {
      std::vector<ImpactSensitivity*> out;
      for (auto& i : res.impacts)
        if (i.record.kind != "opens") out.push_back(&i);
      return out;
    };
    // a direct method's impact time sensitivities and jumps, beside the run's records
    auto keepImpacts = [&](const std::vector<ImpactSensitivity>& seen) {
      const std::vector<ImpactSensitivity*> observed = observedImpacts();
      for (std::size_t k = 0; k < seen.size() && k < observed.size(); ++k) {
        const events::EventRecord record = observed[k]->record;
        *observed[k] = seen[k];
        observed[k]->record = record;
      }
    };
    if (g.method == Method::Direct) {
      auto f = formulation(st, partials);
      auto o = directMethod(st, *f, spec, semiAnalyticalSteps());
      const bool ok = runWith(*f, o.get(), true);
      o->flush();
      if (!ok) return false;
      o->finish(g);
      keepImpacts(o->impacts());
    } else if (g.method == Method::Adjoint) {
      auto f = formulation(st, partials);  // the same routes as the direct method's
      RunRecord rec(spec.checkpointEvery, spec.run.dt, spec.adjointRecordBytes > 0 ? spec.adjointRecordBytes : kAdjointRecordBudget);
      CostValues costs(st, *f);
      BothObservers both(rec, costs);
      if (!runWith(*f, sampled ? static_cast<PointObserver*>(&both) : &rec, false)) return false;
      CostSites sites;
      sites.extremeNodes = costs.accumulator().extremeNodes();
      sites.targets = costs.accumulator().targetSites();
      AdjointStats stats;
      res.status = adjointGradient(st, *f, rec, sampled ? &sites : nullptr, g.values, g.gradient, stats);
      if (!res.status.ok()) return false;
      keepStats(stats, rec.interval());
      g.steps = semiAnalyticalSteps();
    } else if (g.method == Method::ComplexStep) {
      // one forward run: every point recorded for the replays, and its costs' values
      auto f = formulation(st, Partials::AutomaticDifferentiation);
      RunRecord rec(1, spec.run.dt);
      CostValues values(st, *f);
      BothObservers both(rec, values);
      if (!runWith(*f, &both, false)) return false;
      std::vector<std::vector<double>> eventTimes(np);  // per parameter, per impact
      res.status = columnByColumn(
          [&](std::size_t k, std::vector<double>& column) { return complexStepGradient(st, *f, rec, st.parameters[k], column, &eventTimes[k]); });
      if (!res.status.ok()) return false;
      g.values = values.values();
      // the impacts' event time sensitivities, where no direct method gave them
      const std::vector<ImpactSensitivity*> observed = observedImpacts();
      for (std::size_t i = 0; i < observed.size(); ++i)
        if (observed[i]->eventTime.empty())
          for (std::size_t k = 0; k < np; ++k) observed[i]->eventTime.push_back(i < eventTimes[k].size() ? eventTimes[k][i] : NAN);
    } else {
      auto f = formulation(st, Partials::AutomaticDifferentiation);
      CostValues values(st, *f);
      if (!runWith(*f, &values, false)) return false;
      g.values = values.values();
      const double scale = st.resolved.lengthScale();
      for (std::size_t k = 0; k < np; ++k) {
        const std::size_t p = st.parameters[k];
        const double value = table.values()[p];
        const double delta = spec.relativeStep * std::max(std::abs(value), 1e-3 * scale);
        g.steps.push_back(delta);
        std::vector<double> psi[2];
        for (int side = 0; side < 2; ++side) {
          Mechanism moved = m;
          moved.parameters[p].value = Number(value + (side ? -delta : delta));
          Diagnostics d;
          auto r2 = resolve(moved, d);
          if (!r2) {
            res.status = failure(Status::Code::BadRequest, 0, "parameter '" + table.names()[p] + "' moved by " + shortNumber(delta) + " makes the mechanism invalid");
            return false;
          }
          Study moved_st;
          moved_st.mechanism = &moved;
          moved_st.resolved = std::move(*r2);
          moved_st.model = dyn::compileMatrixR(moved_st.resolved);
          moved_st.outputs = analysis::compileOutputs(moved, moved_st.resolved, moved_st.model.tree, moved_st.model.rows);
          analysis::compileCosts(moved, moved_st.resolved, moved_st.outputs, spec.costs, moved_st.costs);
          auto fm = formulation(moved_st, Partials::AutomaticDifferentiation);
          CostValues o(moved_st, *fm);
          analysis::SimulationSpec rs = runSpec(spec, moved_st);
          fm->observe(&o, rs);
          const auto rr = analysis::runSimulation(moved_st.resolved, rs, {}, cancel);
          if (!rr.status.ok()) {
            res.status = rr.status;
            res.status.message = "with parameter '" + table.names()[p] + "' moved by " + shortNumber(delta) + ": " + rr.status.message;
            return false;
          }
          psi[side] = o.values();
        }
        for (std::size_t c = 0; c < nc; ++c)
          g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)) = (psi[0][c] - psi[1][c]) / (2 * delta);
        part(static_cast<double>(k + 1) / static_cast<double>(np));
      }
    }
    g.seconds = seconds(started);
    // a motion that is chaotic over a long run makes its sensitivities grow past any double
    for (Eigen::Index c = 0; c < g.gradient.rows(); ++c)
      for (Eigen::Index k = 0; k < g.gradient.cols(); ++k)
        if (!std::isfinite(g.gradient(c, k))) {
          res.notes.push_back(std::string(toString(g.method)) + ": the gradient of '" + res.costs[static_cast<std::size_t>(c)] + "' with respect to '" +
                              res.parameters[static_cast<std::size_t>(k)] +
                              "' is not a finite number: the sensitivities grew beyond the range of doubles (a motion this sensitive to its "
                              "design, e.g. chaotic, over this long a run): shorten the run");
          c = g.gradient.rows() - 1;
          break;
        }
    res.methods.push_back(std::move(g));
    return true;
  };
  // compare: a method that fails (the complex step through a flat singular position) is noted and
  // the others' gradients kept; a single method's failure is the study's
  Status failed;
  for (std::size_t mi = 0; mi < methods.size(); ++mi) {
    if (oneMethod(mi)) continue;
    if (methods.size() == 1 || res.status.code == Status::Code::Cancelled) return res;
    failed = res.status;
    res.notes.push_back(std::string(toString(methods[mi])) + " failed, the other methods' gradients are kept: " + res.status.message);
    res.status = {};
  }
  if (res.methods.empty()) {
    res.status = failed;
    return res;
  }
  // a cost that is not a number has no gradient: refused, naming it and when it stopped being one
  // (found by one more run of the costs alone, only then: a study that stands pays nothing)
  for (const auto& g : res.methods)
    for (std::size_t c = 0; c < g.values.size(); ++c)
      if (!std::isfinite(g.values[c])) {
        auto f = formulation(st, Partials::AutomaticDifferentiation);
        CostValues costs(st, *f);
        analysis::SimulationSpec rs = runSpec(spec, st);
        f->observe(&costs, rs);
        analysis::runSimulation(st.resolved, rs, {}, cancel);
        std::string why = costs.accumulator().notFiniteProblem();
        if (why.empty()) why = "cost '" + res.costs[c] + "' is not a finite number: no value, no gradient";
        res.status = failure(Status::Code::BadRequest, 0, why);
        res.methods.clear();
        return res;
      }
  if (progress) progress(1.0);
  return res;
}

std::string impactsToCsv(const SensitivityResult& r) {
  // the run's event log as `simulate --events` writes it (one row per contact), then the event
  // time's and the jumps' sensitivities
  std::ostringstream os;
  os << std::setprecision(17);
  os << "time,kind,contact,normal_velocity_before,normal_velocity_after,impulse,energy_before,energy_after,grazing";
  const ImpactSensitivity* first = nullptr;
  for (const auto& i : r.impacts)
    if (!i.eventTime.empty()) {
      first = &i;
      break;
    }
  if (first) {
    for (const auto& p : r.parameters) os << ",dt/d(" << p << ")";
    for (const char* prime : {"", "'"})
      for (const auto& q : first->coordinates)
        for (const auto& p : r.parameters) os << ",jump d(" << q << prime << ")/d(" << p << ")";
  }
  os << "\n";
  for (const auto& i : r.impacts) {
    const auto& e = i.record;
    for (std::size_t j = 0; j < std::max<std::size_t>(e.contacts.size(), 1); ++j) {
      const bool has = j < e.contacts.size();
      os << e.t << "," << e.kind << "," << (has ? e.contacts[j] : std::string()) << "," << (has ? e.normalBefore[j] : 0.0) << ","
         << (has ? e.normalAfter[j] : 0.0) << "," << (j < e.impulse.size() ? e.impulse[j] : 0.0) << "," << e.energyBefore << "," << e.energyAfter
         << "," << (e.grazing ? 1 : 0);
      if (first) {
        const bool same = i.coordinates == first->coordinates && !i.eventTime.empty();
        for (std::size_t k = 0; k < r.parameters.size(); ++k) os << "," << (same ? i.eventTime[k] : NAN);
        for (const Eigen::MatrixXd* J : {&i.positionJump, &i.velocityJump})
          for (Eigen::Index q = 0; q < static_cast<Eigen::Index>(first->coordinates.size()); ++q)
            for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(r.parameters.size()); ++k) os << "," << (same ? (*J)(q, k) : NAN);
      }
      os << "\n";
    }
  }
  return os.str();
}

std::string toJson(const SensitivityResult& r) {
  std::ostringstream os;
  os.precision(17);
  // JSON has no NaN or infinity: a number that is not finite is written as null
  auto number = [](double v) {
    std::ostringstream n;
    n.precision(17);
    if (std::isfinite(v)) n << v;
    else n << "null";
    return n.str();
  };
  auto gradientJson = [&](const Gradient& g) {
    os << "{\"method\": \"" << toString(g.method) << "\", \"costs\": {";
    for (std::size_t c = 0; c < r.costs.size(); ++c) {
      os << (c ? ", " : "") << "\"" << r.costs[c] << "\": {\"value\": " << number(c < g.values.size() ? g.values[c] : 0.0) << ", \"gradient\": {";
      for (std::size_t k = 0; k < r.parameters.size(); ++k)
        os << (k ? ", " : "") << "\"" << r.parameters[k] << "\": " << number(g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)));
      os << "}}";
    }
    os << "}, \"seconds\": " << g.seconds;
    if (g.method == Method::Adjoint)
      os << ", \"checkpoint_every\": " << g.checkpointEvery << ", \"record_bytes\": " << g.recordBytes << ", \"segment_bytes\": " << g.segmentBytes
         << ", \"recomputed_steps\": " << g.recomputedSteps;
    if (!g.steps.empty()) {
      os << ", \"steps\": {";
      for (std::size_t k = 0; k < g.steps.size(); ++k) os << (k ? ", " : "") << "\"" << r.parameters[k] << "\": " << g.steps[k];
      os << "}";
    }
    os << "}";
  };
  if (r.methods.size() == 1) {
    gradientJson(r.methods.front());
  } else {
    os << "{\"methods\": [";
    for (std::size_t i = 0; i < r.methods.size(); ++i) {
      if (i) os << ", ";
      gradientJson(r.methods[i]);
    }
    os << "]}";
  }
  os << "\n";
  return os.str();
}

}  // namespace lw::sens
