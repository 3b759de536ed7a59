#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/run.h"
#include "mechanism/resolved.h"
#include "sensitivity/sensitivity.h"

namespace lw::analysis {

namespace {

constexpr std::pair<Formulation, Integrator> kCompared[] = {
    {Formulation::MatrixR, Integrator::Trapezoidal}, {Formulation::MatrixR, Integrator::RK45},
    {Formulation::Penalty, Integrator::Trapezoidal}, {Formulation::Index3, Integrator::Trapezoidal},
    {Formulation::Index1, Integrator::Trapezoidal},  {Formulation::Index1, Integrator::RK45},
    {Formulation::PenaltyGlobal, Integrator::Trapezoidal}, {Formulation::PenaltyGlobal, Integrator::RK45},
};

const char* integratorName(Integrator i) { return i == Integrator::RK45 ? "rk45" : "trapezoidal"; }

std::ptrdiff_t columnOf(const RunTable& t, const std::string& name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  return it == t.columns.end() ? -1 : it - t.columns.begin();
}

// the largest |value| of a column over the rows (0 when absent)
double largest(const RunTable& t, const std::string& name) {
  const std::ptrdiff_t c = columnOf(t, name);
  double worst = 0;
  if (c < 0) return worst;
  for (std::size_t row = 0; row < t.rows(); ++row) worst = std::max(worst, std::abs(t.values[row * t.columns.size() + static_cast<std::size_t>(c)]));
  return worst;
}

// the largest distance of the points from the reference's, at the rows whose times the two share
// (an impact's two rows, at times that differ between formulations, are left out)
double distanceFrom(const ResolvedMechanism& m, const RunTable& run, const RunTable& ref) {
  const int dim = m.dimension;
  std::map<long long, std::size_t> refRows;  // time (in units of 1e-9 s) -> row, the first at that time
  for (std::size_t row = ref.rows(); row-- > 0;) refRows[std::llround(ref.values[row * ref.columns.size()] * 1e9)] = row;
  std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> columns;  // per point coordinate: (run's, reference's)
  const char* axes[] = {".x", ".y", ".z"};
  for (std::size_t b = 1; b < m.bodies.size(); ++b)
    for (const auto& p : m.bodies[b].pointNames)
      for (int k = 0; k < dim; ++k) {
        const std::string name = m.bodies[b].name + "." + p + axes[k];
        columns.emplace_back(columnOf(run, name), columnOf(ref, name));
      }
  double worst = 0;
  for (std::size_t row = 0; row < run.rows(); ++row) {
    const auto it = refRows.find(std::llround(run.values[row * run.columns.size()] * 1e9));
    if (it == refRows.end()) continue;
    for (std::size_t i = 0; i + static_cast<std::size_t>(dim) <= columns.size(); i += static_cast<std::size_t>(dim)) {
      double d2 = 0;
      for (int k = 0; k < dim; ++k) {
        const auto [c, cr] = columns[i + static_cast<std::size_t>(k)];
        if (c < 0 || cr < 0) continue;
        const double d = run.values[row * run.columns.size() + static_cast<std::size_t>(c)] - ref.values[it->second * ref.columns.size() + static_cast<std::size_t>(cr)];
        d2 += d * d;
      }
      worst = std::max(worst, std::sqrt(d2));
    }
  }
  return worst;
}

}  // namespace

CompareResult compareFormulations(const Mechanism& m, const CompareSpec& spec, const std::function<void(double)>& progress,
                                  const std::atomic<bool>* cancel) {
  CompareResult out;
  Diagnostics d;
  const auto resolved = resolve(m, d);
  if (!resolved) {
    out.status = unresolved(d);
    return out;
  }
  const double total = static_cast<double>(std::size(kCompared) + 1) * (spec.gradients ? 2.0 : 1.0);
  double done = 0;
  auto report = [&] {
    done += 1;
    if (progress) progress(std::min(1.0, done / total));
  };
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  // one formulation's run, its figures, and (asked for) its gradients
  // (a finer step than spec.dt: rows still every spec.dt, where the others' are)
  auto measure = [&](CompareEntry& e, const RunTable* ref, double tol, double finerStep = 0) -> SimulationResult {
    SimulationSpec s;
    s.formulation = e.formulation;
    s.integrator = e.integrator;
    s.tEnd = spec.tEnd;
    s.dt = finerStep > 0 ? finerStep : spec.dt;
    if (finerStep > 0) s.outputDt = spec.dt;
    s.tol = tol;
    s.mechanism = &m;
    SimulationResult r = runSimulation(*resolved, s, {}, cancel);
    report();
    e.status = r.status;
    e.steps = r.steps;
    e.evaluations = r.evaluations;
    e.tangents = r.tangents;
    e.seconds = r.wallSeconds;
    e.energyDrift = largest(r, "energy.balance");
    e.residualPosition = largest(r, "constraint.position");
    e.residualVelocity = largest(r, "constraint.velocity");
    if (ref) e.distance = distanceFrom(*resolved, r, *ref);
    if (!ref && out.costs.empty())  // the reference's: the file's costs, or those asked for
      for (const auto& name : r.costNames)
        if (spec.costs.empty() || std::find(spec.costs.begin(), spec.costs.end(), name) != spec.costs.end()) out.costs.push_back(name);
    for (const auto& name : out.costs) {
      const auto it = std::find(r.costNames.begin(), r.costNames.end(), name);
      e.costs.push_back(it == r.costNames.end() ? NAN : r.costValues[static_cast<std::size_t>(it - r.costNames.begin())]);
    }
    if (spec.gradients && e.status.ok() && !cancelled()) {
      {  // (the index-3 formulation's are refused with the reason)
        sens::SensitivitySpec g;
        g.method = sens::Method::Direct;
        g.run = s;
        g.run.mechanism = nullptr;
        g.costs = spec.costs;
        g.parameters = spec.parameters;
        const sens::SensitivityResult gr = sens::runSensitivity(m, g, {}, cancel);
        e.gradientStatus = gr.status;
        if (gr.status.ok() && !gr.methods.empty()) {
          // rows in the order of out.costs, columns in the reference's order of parameters
          if (out.parameters.empty()) out.parameters = gr.parameters;
          const Eigen::MatrixXd& g0 = gr.methods.front().gradient;
          e.gradient = Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(out.costs.size()), static_cast<Eigen::Index>(out.parameters.size()), NAN);
          for (std::size_t c = 0; c < out.costs.size(); ++c)
            for (std::size_t k = 0; k < out.parameters.size(); ++k) {
              const auto ci = std::find(gr.costs.begin(), gr.costs.end(), out.costs[c]);
              const auto ki = std::find(gr.parameters.begin(), gr.parameters.end(), out.parameters[k]);
              if (ci != gr.costs.end() && ki != gr.parameters.end())
                e.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)) = g0(ci - gr.costs.begin(), ki - gr.parameters.begin());
            }
        }
      }
    }
    if (spec.gradients) report();
    return r;
  };
  out.reference.formulation = Formulation::MatrixR;
  out.reference.integrator = Integrator::RK45;
  SimulationResult ref = measure(out.reference, nullptr, spec.referenceTol);
  if (!out.reference.status.ok() && out.reference.status.code != Status::Code::Cancelled) {
    // RK45 to the reference's tolerance cannot pass some singular positions (a grid's flat
    // configuration): Matrix R by the trapezoidal rule at a tenth of the step passes them, its
    // error a hundredth of the compared trapezoidal runs'
    CompareEntry trapezoidal;
    trapezoidal.formulation = Formulation::MatrixR;
    trapezoidal.integrator = Integrator::Trapezoidal;
    out.costs.clear();
    SimulationResult finer = measure(trapezoidal, nullptr, spec.referenceTol, spec.dt / 10);
    if (trapezoidal.status.ok()) {
      out.referenceNote = "Matrix R by RK45 to " + shortNumber(spec.referenceTol) + " failed (" + out.reference.status.message +
                          "): the reference is Matrix R by the trapezoidal rule at dt/10";
      out.reference = std::move(trapezoidal);
      ref = std::move(finer);
    }
  }
  out.status = out.reference.status;
  if (!out.status.ok()) return out;
  for (const auto& [f, i] : kCompared) {
    if (cancelled()) {
      out.status = failure(Status::Code::Cancelled, 0, "cancelled");
      break;
    }
    CompareEntry e;
    e.formulation = f;
    e.integrator = i;
    measure(e, &ref, spec.tol);
    out.entries.push_back(std::move(e));
  }
  // the gradients against the reference's, relative to its largest entry
  const Eigen::MatrixXd& g0 = out.reference.gradient;
  if (g0.size() > 0) {
    const double scale = std::max(g0.cwiseAbs().maxCoeff(), 1e-300);
    for (auto& e : out.entries)
      if (e.gradient.rows() == g0.rows() && e.gradient.cols() == g0.cols()) e.gradientDifference = (e.gradient - g0).cwiseAbs().maxCoeff() / scale;
  }
  return out;
}

std::string compareTable(const CompareResult& r) {
  std::ostringstream os;
  auto sci = [](double v) {
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << v;
    return s.str();
  };
  os << "reference: " << toString(r.reference.formulation) << " " << integratorName(r.reference.integrator) << ", " << r.reference.steps
     << " steps\n";
  if (!r.referenceNote.empty()) os << "  (" << r.referenceNote << ")\n";
  os << std::left << std::setw(16) << "formulation" << std::setw(13) << "integrator" << std::right << std::setw(10) << "us/step"
     << std::setw(8) << "steps" << std::setw(8) << "evals" << std::setw(9) << "tangents" << std::setw(11) << "energy" << std::setw(11)
     << "|Phi|" << std::setw(11) << "|Phi'|" << std::setw(11) << "distance" << "\n";
  for (const auto& e : r.entries) {
    os << std::left << std::setw(16) << toString(e.formulation) << std::setw(13) << integratorName(e.integrator) << std::right;
    if (!e.status.ok() && e.steps == 0) {
      os << "  " << e.status.message << "\n";
      continue;
    }
    os << std::setw(10) << std::fixed << std::setprecision(1) << 1e6 * e.secondsPerStep() << std::setw(8) << e.steps << std::setw(8)
       << e.evaluations << std::setw(9) << e.tangents << std::setw(11) << sci(e.energyDrift) << std::setw(11) << sci(e.residualPosition)
       << std::setw(11) << sci(e.residualVelocity) << std::setw(11) << sci(e.distance) << "\n";
    if (!e.status.ok()) os << "    stopped: " << e.status.message << "\n";
  }
  if (!r.costs.empty()) {
    os << "\ncosts (reference value; each formulation's value" << (r.reference.gradient.size() ? ", gradient difference" : "") << ")\n";
    for (std::size_t c = 0; c < r.costs.size(); ++c) {
      os << "  " << r.costs[c] << " = " << std::setprecision(10) << std::defaultfloat
         << (c < r.reference.costs.size() ? r.reference.costs[c] : NAN) << "\n";
      for (const auto& e : r.entries) {
        if (c >= e.costs.size()) continue;
        os << "    " << std::left << std::setw(16) << toString(e.formulation) << std::setw(13) << integratorName(e.integrator) << std::right
           << std::setprecision(10) << e.costs[c];
        if (r.reference.gradient.size()) {
          if (e.gradient.size()) os << "   gradient off by " << sci(e.gradientDifference);
          else if (!e.gradientStatus.ok()) os << "   no gradient: " << e.gradientStatus.message;
        }
        os << "\n";
      }
    }
  }
  return os.str();
}

std::string compareJson(const CompareResult& r, const CompareSpec& spec) {
  using Json = nlohmann::ordered_json;
  auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  auto entry = [&](const CompareEntry& e) {
    Json j;
    j["formulation"] = toString(e.formulation);
    j["integrator"] = integratorName(e.integrator);
    j["status"] = e.status.ok() ? "ok" : e.status.message;
    j["steps"] = e.steps;
    j["evaluations"] = e.evaluations;
    j["tangents"] = e.tangents;
    j["seconds"] = e.seconds;
    j["seconds_per_step"] = e.secondsPerStep();
    j["energy_drift"] = number(e.energyDrift);
    j["residual_position"] = number(e.residualPosition);
    j["residual_velocity"] = number(e.residualVelocity);
    j["distance"] = number(e.distance);
    Json costs = Json::object();
    for (std::size_t c = 0; c < r.costs.size(); ++c) {
      Json cj;
      cj["value"] = c < e.costs.size() ? number(e.costs[c]) : Json(nullptr);
      if (e.gradient.size()) {
        Json g = Json::object();
        for (std::size_t k = 0; k < r.parameters.size(); ++k)
          g[r.parameters[k]] = number(e.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)));
        cj["gradient"] = g;
      }
      costs[r.costs[c]] = cj;
    }
    if (!r.costs.empty()) j["costs"] = costs;
    if (e.gradient.size() && &e != &r.reference) j["gradient_difference"] = number(e.gradientDifference);
    if (!e.gradientStatus.ok()) j["gradient_status"] = e.gradientStatus.message;
    return j;
  };
  Json j;
  j["t_end"] = spec.tEnd;
  j["dt"] = spec.dt;
  j["tol"] = spec.tol;
  j["reference"] = entry(r.reference);
  j["reference"]["tol"] = spec.referenceTol;
  if (!r.referenceNote.empty()) j["reference"]["note"] = r.referenceNote;
  Json list = Json::array();
  for (const auto& e : r.entries) list.push_back(entry(e));
  j["formulations"] = list;
  return j.dump(2) + "\n";
}

}  // namespace lw::analysis
