#include "study_commands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "analysis/run.h"
#include "cli_support.h"
#include "mechanism/parameters.h"
#include "optimize/four_bar_limits.h"
#include "optimize/optimize.h"
#include "sensitivity/sensitivity.h"

namespace lw::cli {
namespace {

// a sensitivity study through the one entry point of the analyses
lw::sens::SensitivityResult study(const lw::Mechanism& m, const lw::sens::SensitivitySpec& spec,
                                  const std::function<void(double)>& progress = {}) {
  return std::get<lw::sens::SensitivityResult>(lw::analysis::run(m, {spec}, progress).of);
}

}  // namespace

// `sensitivity`: the gradients of the file's costs with respect to its design parameters
int sensitivity(const SensitivityArgs& a) {
  if (outputIsInput(a.out, a.file) || outputIsInput(a.events, a.file) || outputIsInput(a.histories, a.file)) return kUsage;
  // every output's place before minutes of work
  if (!outputPlaceExists(a.out) || !outputPlaceExists(a.events) || !outputPlaceExists(a.histories)) return kIoError;
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(a.file, r, res); code != kOk) return code;
  lw::sens::SensitivitySpec spec;
  if (!lw::sens::parseMethod(a.method, spec.method)) return kUsage;
  spec.parameters = commaList(a.parameters);
  spec.costs = commaList(a.costs);
  if (unknownNames(*r.mechanism, spec.parameters, spec.costs)) return kUsage;
  if (!lw::analysis::parseIntegrator(a.integrator, spec.run.integrator)) return kUsage;
  if (a.analysis == "kinematics") spec.analysis = lw::sens::Analysis::Kinematics;
  else if (a.analysis != "dynamics") {
    std::cerr << "linkwright-cli: unknown analysis '" << a.analysis << "' (kinematics or dynamics)\n";
    return kUsage;
  }
  const lw::RunSpan span = lw::defaultSpan(*r.mechanism, spec.analysis == lw::sens::Analysis::Kinematics, a.tEnd);
  spec.run.tEnd = span.tEnd;
  spec.run.dt = a.dt > 0 ? a.dt : span.dt;
  if (!lw::analysis::parseFormulation(a.formulation, spec.run.formulation)) {
    std::cerr << "linkwright-cli: unknown formulation '" << a.formulation << "' (matrix-r, penalty, index1, penalty-global)\n";
    return kUsage;
  }
  if (!integratorApplies(spec.run.formulation, spec.run.integrator, a.given.count("--integrator") > 0)) return kUsage;
  spec.run.tol = a.tol;
  spec.relativeStep = a.fdStep;
  spec.checkpointEvery = a.checkpointEvery;
  spec.partials = a.partials == "gsam"   ? lw::sens::Partials::GlobalSemiAnalytical
                  : a.partials == "lsam" ? lw::sens::Partials::LocalSemiAnalytical
                                         : lw::sens::Partials::AutomaticDifferentiation;
  spec.delta = a.delta;
  spec.referenceKernels = a.referenceKernels;
  // options that do not apply to the study asked for: said, not silently dropped
  auto note = [&](const char* option, bool applies, const char* why) {
    if (a.given.count(option) && !applies) std::cerr << "linkwright-cli: note: " << option << " " << why << "; ignored here\n";
  };
  const bool compare = spec.method == lw::sens::Method::Compare;
  note("--tol", spec.run.integrator == lw::analysis::Integrator::RK45, "is rk45's tolerance");
  note("--delta", spec.partials != lw::sens::Partials::AutomaticDifferentiation || a.deltaSweep, "is the step of --partials gsam|lsam");
  note("--checkpoint-every", compare || spec.method == lw::sens::Method::Adjoint, "is the adjoint's (avm)");
  note("--fd-step", compare || spec.method == lw::sens::Method::FiniteDifferences, "is the finite differences' (fd)");
  if ((spec.partials != lw::sens::Partials::AutomaticDifferentiation && spec.method != lw::sens::Method::Direct &&
       spec.method != lw::sens::Method::Adjoint) ||
      (a.deltaSweep && spec.method != lw::sens::Method::Direct)) {
    std::cerr << "linkwright-cli: --partials gsam|lsam is an option of the direct method and the adjoint (--method ddm|avm), --delta-sweep of the "
                 "direct method\n";
    return kUsage;
  }
  if (a.deltaSweep) {
    // seed 003's robustness study: GSAM's gradient for δ = 1e-3 … 1e-10 beside AD's
    std::ostringstream table, json;
    table.precision(6);
    json << "{\"sweep\": [";
    const auto semiAnalytical = spec.partials == lw::sens::Partials::LocalSemiAnalytical ? spec.partials : lw::sens::Partials::GlobalSemiAnalytical;
    spec.partials = lw::sens::Partials::AutomaticDifferentiation;
    const auto exact = study(*r.mechanism, spec);
    if (!exact.status.ok()) {
      std::cerr << a.file << ": " << exact.status.message << "\n";
      return kAnalysisFailed;
    }
    table << "delta";
    for (const auto& c : exact.costs)
      for (const auto& p : exact.parameters) table << "  d" << c << "/d" << p;
    table << "\nAD   ";
    for (Eigen::Index c = 0; c < exact.methods.front().gradient.rows(); ++c)
      for (Eigen::Index k = 0; k < exact.methods.front().gradient.cols(); ++k) table << "  " << exact.methods.front().gradient(c, k);
    table << "\n";
    spec.partials = semiAnalytical;
    for (int e = 3; e <= 10; ++e) {
      spec.delta = std::pow(10.0, -e);
      const auto g = study(*r.mechanism, spec);
      if (!g.status.ok()) {
        std::cerr << a.file << ": δ = 1e-" << e << ": " << g.status.message << "\n";
        return kAnalysisFailed;
      }
      table << "1e-" << e << (e < 10 ? " " : "");
      for (Eigen::Index c = 0; c < g.methods.front().gradient.rows(); ++c)
        for (Eigen::Index k = 0; k < g.methods.front().gradient.cols(); ++k) table << "  " << g.methods.front().gradient(c, k);
      table << "\n";
      std::string one = lw::sens::toJson(g);
      one.pop_back();
      json << (e > 3 ? ", " : "") << "{\"delta\": " << spec.delta << ", \"result\": " << one << "}";
    }
    std::string ad = lw::sens::toJson(exact);
    ad.pop_back();
    json << "], \"ad\": " << ad << "}\n";
    std::cerr << table.str();
    return writeText(a.out.empty() ? "-" : a.out, json.str());
  }
  CsvStream histories;
  if (!a.histories.empty()) {
    if (spec.method != lw::sens::Method::Direct && spec.method != lw::sens::Method::Compare) {
      std::cerr << "linkwright-cli: --histories comes from the direct method: use --method ddm or compare\n";
      return kUsage;
    }
    if (!histories.open(a.histories, spec.run.tEnd / spec.run.dt + 1)) return kIoError;
    spec.histories = histories.sink();
  }
  // a study can take minutes (the complex step replays the run once per parameter): on a
  // terminal, the share done every second or so
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  auto lastShown = std::chrono::steady_clock::now();
  bool shown = false, done = false;
  auto progress = [&](double f) {
    if (!terminal || done) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastShown < std::chrono::seconds(1) && (f < 1 || !shown)) return;
    lastShown = now;
    shown = true;
    done = f >= 1;
    std::cerr << "\r" << a.file << ": " << static_cast<int>(100 * f) << " %" << (done ? "\n" : "") << std::flush;
  };
  const auto result = study(*r.mechanism, spec, progress);
  if (!a.histories.empty()) {
    if (const int written = histories.finish(static_cast<std::size_t>(result.steps + 1)); written != kOk) return written;
  }
  for (const auto& n : result.notes) std::cerr << a.file << ": note: " << n << "\n";
  if (!result.status.ok()) {
    std::cerr << a.file << ": " << result.status.message << "\n";
    return kAnalysisFailed;
  }
  if (!result.impacts.empty()) {
    std::vector<lw::events::EventRecord> records;
    for (const auto& i : result.impacts) records.push_back(i.record);
    std::cerr << a.file << ": through " << lw::events::eventCounts(records) << ", the first at t = " << lw::shortNumber(result.impacts.front().record.t)
              << " s\n";
  }
  if (!a.events.empty())
    if (const int written = writeText(a.events, lw::sens::impactsToCsv(result)); written != kOk) return written;
  // a table on the terminal: each cost's gradient by method, and how far each is from the complex step
  const lw::sens::Gradient* reference = nullptr;
  for (const auto& g : result.methods)
    if (g.method == lw::sens::Method::ComplexStep) reference = &g;
  std::ostringstream table;
  table.precision(10);
  for (std::size_t c = 0; c < result.costs.size(); ++c) {
    table << result.costs[c] << " = " << result.methods.front().values[c] << "\n";
    for (std::size_t k = 0; k < result.parameters.size(); ++k) {
      table << "  d/d" << result.parameters[k] << ":";
      for (const auto& g : result.methods) {
        const double v = g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k));
        table << "  " << lw::sens::toString(g.method) << " " << v;
        if (reference && &g != reference) {
          const double ref = reference->gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k));
          // against a reference that is zero to rounding (at 1e-12 of the cost's largest entry),
          // the absolute difference says more
          double scale = 0;
          for (const auto& h : result.methods) scale = std::max(scale, h.gradient.row(static_cast<Eigen::Index>(c)).cwiseAbs().maxCoeff());
          if (std::abs(ref) > 1e-12 * std::max(scale, 1e-300)) table << " (rel. diff. " << lw::shortNumber(std::abs(v - ref) / std::abs(ref)) << ")";
          else table << " (abs. diff. " << lw::shortNumber(std::abs(v - ref)) << ")";
        }
      }
      table << "\n";
    }
  }
  for (const auto& g : result.methods) {
    table << lw::sens::toString(g.method) << ": " << g.seconds << " s";
    if (g.method == lw::sens::Method::Adjoint)
      table << " (" << (g.checkpointEvery == 1 ? std::string("every step kept") : "a checkpoint every " + std::to_string(g.checkpointEvery) + " steps")
            << ": " << g.recordBytes / 1024 << " kB recorded, "
            << g.segmentBytes / 1024 << " kB per segment, " << g.recomputedSteps << " steps recomputed)";
    table << "\n";
  }
  std::cerr << table.str() << a.file << ": " << result.steps << " steps differentiated\n";
  return writeText(a.out.empty() ? "-" : a.out, lw::sens::toJson(result));
}

int optimizeCmd(const OptimizeArgs& a) {
  if (outputIsInput(a.out, a.file)) return kUsage;
  if (!outputPlaceExists(a.out)) return kIoError;
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(a.file, r, res); code != kOk) return code;
  std::string problem;
  lw::opt::OptimizeSpec spec = lw::opt::specFromStudy(*r.mechanism, problem);
  if (!problem.empty() && a.algorithm.empty()) {
    std::cerr << a.file << ": " << problem << "\n";
    return kInvalidModel;
  }
  if (!a.cost.empty()) spec.cost = a.cost;
  if (!a.parameters.empty()) spec.parameters = commaList(a.parameters);
  if (unknownNames(*r.mechanism, commaList(a.parameters), a.cost.empty() ? std::vector<std::string>{} : std::vector<std::string>{a.cost}))
    return kUsage;
  if (!a.algorithm.empty() && !lw::opt::parseAlgorithm(a.algorithm, spec.algorithm)) {
    std::cerr << "linkwright-cli: unknown algorithm '" << a.algorithm << "' (" << lw::opt::algorithmNames() << ")\n";
    return kUsage;
  }
  if (a.maxEvals > 0) spec.maxEvaluations = a.maxEvals;
  if (std::isfinite(a.target)) spec.hasTarget = true, spec.target = a.target;
  if (!a.analysis.empty()) {
    if (a.analysis != "kinematics" && a.analysis != "dynamics") {
      std::cerr << "linkwright-cli: unknown analysis '" << a.analysis << "' (kinematics or dynamics)\n";
      return kUsage;
    }
    spec.sensitivity.analysis = a.analysis == "kinematics" ? lw::sens::Analysis::Kinematics : lw::sens::Analysis::Dynamics;
  }
  if (a.tEnd > 0) {  // the span's rule with the end chosen (a kinematic step a hundredth of it)
    const lw::RunSpan span = lw::defaultSpan(*r.mechanism, spec.sensitivity.analysis == lw::sens::Analysis::Kinematics, a.tEnd);
    spec.sensitivity.run.tEnd = span.tEnd;
    spec.sensitivity.run.dt = span.dt;
  }
  if (a.dt > 0) spec.sensitivity.run.dt = a.dt;
  if (a.crankTurns || a.minTransmission > 0) {
    std::string why;
    const auto limits = lw::opt::fourBarLimits(*r.mechanism, a.minTransmission, why);
    if (limits.empty()) {
      std::cerr << a.file << ": " << (a.crankTurns ? "--crank-turns" : "--min-transmission") << ": " << why << "\n";
      return kAnalysisFailed;
    }
    for (const auto& l : limits) {
      std::vector<lw::TuningConstraint> chosen = l.transmission;
      if (a.crankTurns) chosen.insert(chosen.begin(), l.turns.begin(), l.turns.end());
      for (const auto& k : chosen) {
        spec.constraints.push_back(k);
        std::cerr << "constraint " << k.name << " (" << l.loop << "): " << (k.hasMin ? lw::shortNumber(k.min) + " <= " : std::string())
                  << k.expression.text() << (k.hasMax ? " <= " + lw::shortNumber(k.max) : std::string()) << "\n";
      }
    }
  }
  bool headed = false;  // the table's header with its first row: a refused request prints none
  auto print = [&](const lw::opt::Evaluation& e) {
    if (!headed) std::cerr << "eval  cost            gradient norm   design\n";
    headed = true;
    char line[96];
    if (e.failed) {
      std::snprintf(line, sizeof line, "%4d  (run failed)    ", e.index);
    } else {
      std::snprintf(line, sizeof line, "%4d  %-14.8g  %-14.6g  ", e.index, e.cost, e.gradientNorm);
    }
    std::cerr << line;
    for (std::size_t i = 0; i < e.parameters.size(); ++i) std::cerr << (i ? " " : "") << lw::shortNumber(e.parameters[i]);
    std::cerr << (e.best ? "  *" : "") << (e.failed ? "  " + e.message : std::string())
              << (!e.failed && e.violation > 0 ? "  (outside a constraint by " + lw::shortNumber(e.violation) + ")" : std::string()) << "\n";
  };
  const auto result = lw::opt::optimize(*r.mechanism, spec, print);
  for (const auto& n : result.notes) std::cerr << a.file << ": note: " << n << "\n";
  if (!result.status.ok()) {
    std::cerr << a.file << ": " << result.status.message << "\n";
    return kAnalysisFailed;
  }
  std::cerr << result.stopReason << " after " << result.history.size() << " evaluations, " << lw::shortNumber(result.seconds) << " s\n"
            << "cost " << lw::shortNumber(result.initialCost) << " -> " << lw::shortNumber(result.bestCost);
  if (result.bestCost > 0 && result.feasible) std::cerr << " (" << lw::shortNumber(result.initialCost / result.bestCost) << "x lower)";
  std::cerr << (result.feasible ? "" : " at the least infeasible design") << "\n";
  for (std::size_t i = 0; i < result.parameters.size(); ++i)
    std::cerr << "  " << result.parameters[i] << ": " << lw::shortNumber(result.initial[i]) << " -> " << result.best[i] << "\n";
  lw::Mechanism tuned = *r.mechanism;
  if (const lw::Status s = lw::opt::setParameters(tuned, result.parameters, result.best); !s.ok()) {
    std::cerr << a.file << ": the tuned design: " << s.message << "\n";
    return kAnalysisFailed;
  }
  if (!result.feasible && !a.writeInfeasible) {
    if (!a.out.empty()) std::cerr << "(not written: no design meets the constraints; --write-infeasible writes the least infeasible one)\n";
    return kAnalysisFailed;
  }
  if (a.out.empty()) {
    std::cerr << "(no -o: the tuned mechanism is not written)\n";
    return result.feasible ? kOk : kAnalysisFailed;
  }
  const int written = writeOut(tuned, a.out);
  return written != kOk ? written : result.feasible ? kOk : kAnalysisFailed;
}

// `set`: parameters given values, the joints closed again at the new dimensions
int setCmd(const std::string& file, const std::vector<std::string>& assignments, const std::string& out, bool force) {
  if (outputIsInput(out, file)) return kUsage;
  if (!outputPlaceExists(out)) return kIoError;
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(file, r, res); code != kOk) return code;
  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    double v = 0;
    std::size_t used = 0;
    try {
      if (eq == std::string::npos) throw std::invalid_argument(a);
      v = std::stod(a.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (eq == std::string::npos || eq + 1 == a.size() || used != a.size() - eq - 1 || !std::isfinite(v)) {
      std::cerr << "linkwright-cli: '" << a << "' is not NAME=NUMBER\n";
      return kUsage;
    }
    if (std::find(names.begin(), names.end(), a.substr(0, eq)) != names.end()) {
      std::cerr << "linkwright-cli: parameter '" << a.substr(0, eq) << "' is given twice\n";
      return kUsage;
    }
    names.push_back(a.substr(0, eq));
    values.push_back(v);
  }
  // a value outside its parameter's range is refused (the window refuses it too); --force keeps it
  for (std::size_t i = 0; i < names.size(); ++i)
    for (const auto& p : r.mechanism->parameters)
      if (p.name == names[i])
        if (const std::string problem = lw::outsideRange(p, values[i]); !problem.empty()) {
          if (!force) {
            std::cerr << file << ": " << problem << ": not set (--force stores it anyway)\n";
            return kUsage;
          }
          std::cerr << file << ": warning: " << problem << " (stored: --force)\n";
        }
  lw::Mechanism m = *r.mechanism;
  if (const lw::Status s = lw::opt::setParameters(m, names, values); !s.ok()) {
    std::cerr << file << ": " << s.message << "\n";
    return s.code == lw::Status::Code::BadRequest ? kUsage : kAnalysisFailed;
  }
  const lw::Diagnostics d = lw::validate(m);
  printDiagnostics(d, file);
  if (lw::hasErrors(d)) return kInvalidModel;
  return writeOut(m, out.empty() ? "-" : out);
}

}  // namespace lw::cli
