// linkwright-cli: batch access to the engine (validation, generators; analyses as they land).
// Exit codes: 0 ok, 1 internal error, 2 usage, 3 invalid model, 4 file could not be read/written,
// 5 analysis failed.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <cmath>
#include <span>
#include <sstream>

#include "simulation/result_size.h"
#include "io/files.h"
#include "io/mechanism_io.h"
#include "simulation/kinematics_run.h"
#include "analysis/run.h"
#include "simulation/simulation_run.h"
#include "kinematics/global_solver.h"
#include "mechanism/generators.h"
#include "mechanism/parameters.h"
#include "mechanism/resolved.h"
#include "topology/mobility.h"
#include "kinematics/structural_groups.h"
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "study_commands.h"
#include "compare_command.h"
#include "sweep_command.h"

namespace {

using namespace lw::cli;

const char* jointAxisNote(const lw::ResolvedMechanism::Joint& j) {
  return j.axes[0].valid() ? " (axes)" : "";
}

int check(const std::string& file, bool quiet) {
  lw::io::LoadResult r = lw::io::loadMechanismFile(file);
  printDiagnostics(r.diagnostics, file);
  if (!r.ok()) {
    std::cerr << file << ": not loaded (" << (r.ioError ? "cannot read the file" : "invalid model")
              << ")\n";
    return r.ioError ? kIoError : kInvalidModel;
  }
  lw::Diagnostics ignored;
  const auto res = lw::resolve(*r.mechanism, ignored);
  if (!res) return kInternal;  // loadMechanism already resolved it successfully
  if (auto problem = lw::analysis::overDriven(*res); !problem.empty()) {
    std::cerr << file << ": drivers: " << problem << "\n" << file << ": not loaded (invalid model)\n";
    return kInvalidModel;
  }
  if (quiet) return kOk;
  const lw::Mechanism& m = *r.mechanism;
  const auto mob = lw::topology::grueblerKutzbach(*res);
  std::ostringstream os;
  os << file << ": valid " << (m.dimension == 2 ? "planar" : "spatial") << " mechanism \"" << m.name
     << "\"\n";
  os << "  bodies (" << m.bodies.size() << "):";
  for (std::size_t i = 1; i < res->bodies.size(); ++i)
    os << (i > 1 ? "," : "") << " " << res->bodies[i].name << " (" << res->bodies[i].mass << " kg)";
  os << "\n  joints (" << res->joints.size() << "):";
  for (std::size_t i = 0; i < m.joints.size(); ++i)
    os << (i ? "," : "") << " " << m.joints[i].name << " " << lw::toString(m.joints[i].type) << " "
       << m.joints[i].points[0].str() << "-" << m.joints[i].points[1].str()
       << jointAxisNote(res->joints[i]);
  os << "\n  drivers (" << m.drivers.size() << "):";
  for (std::size_t i = 0; i < m.drivers.size(); ++i)
    os << (i ? "," : "") << " " << m.drivers[i].name << " (" << lw::toString(m.drivers[i].type) << ")";
  os << "\n  forces (" << m.forces.size() << "), contacts (" << m.contacts.size() << "), outputs ("
     << m.outputs.size() << "), costs (" << m.costs.size() << ")\n";
  os << "  mobility (Gruebler-Kutzbach): " << mob.formula << " DOF";
  if (mob.drivers > 0) os << "; " << mob.drivers << " driver(s) leave " << mob.remaining;
  os << "\n";
  if (mob.grueblerKutzbach <= 0 && m.dimension == 3)
    os << "  note: the count treats every joint equation as independent; a planar linkage built "
          "from spatial joints has redundant constraints, which the kinematic rank test finds\n";
  const auto deps = lw::fieldsByParameter(m, *res->parameters);
  os << "  parameters (" << m.parameters.size() << "):";
  if (m.parameters.empty()) os << " none";
  os << "\n";
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    const auto& p = m.parameters[i];
    os << "    " << p.name << " = " << res->parameters->values()[i] << (p.unit.empty() ? "" : " ")
       << p.unit << " used by:";
    const auto& fields = deps.at(p.name);
    if (fields.empty()) os << " (nothing)";
    for (const auto& f : fields) os << " " << f;
    os << "\n";
  }
  std::cout << os.str();
  return kOk;
}

int format(const std::string& file, const std::string& out) {
  lw::io::LoadResult r = lw::io::loadMechanismFile(file);
  printDiagnostics(r.diagnostics, file);
  if (!r.ok()) return r.ioError ? kIoError : kInvalidModel;
  return writeOut(*r.mechanism, out.empty() ? file : out);
}

// `decompose`: DOF and structural groups in solve order, as text or JSON
int decomposeCmd(const std::string& file, bool asJson) {
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(file, r, res); code != kOk) return code;
  const lw::kin::NaturalModel model = lw::kin::compileNaturalModel(*res);
  lw::kin::GlobalData data(model, {lw::kin::LinearSolverKind::Sparse});
  lw::kin::assemble(model, data, 0.0);  // the rank test wants an assembled configuration
  const auto& mob = data.mobility;
  const auto gk = lw::topology::grueblerKutzbach(*res);
  const auto dec = lw::kin::decompose(model);
  auto bodyName = [&](int b) { return res->bodies[static_cast<std::size_t>(b)].name; };
  if (asJson) {
    nlohmann::ordered_json j;
    j["file"] = file;
    j["dof"] = mob.dof;
    j["gruebler_kutzbach"] = gk.grueblerKutzbach;
    j["drivers"] = mob.drivers;
    j["redundant_constraints"] = mob.redundant;
    j["passive_freedoms_locked"] = mob.passive;
    j["decomposed"] = dec.ok;
    if (!dec.ok) j["error"] = dec.error;
    auto& groups = j["groups"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < dec.groups.size(); ++i) {
      const auto& g = dec.groups[i];
      nlohmann::ordered_json o;
      o["order"] = i + 1;
      o["bodies"] = nlohmann::ordered_json::array();
      for (int b : g.bodies) o["bodies"].push_back(bodyName(b));
      o["class"] = g.kind;
      o["name"] = g.name;
      o["driven_inputs"] = g.drivenInputs;
      o["pairs"] = g.pairs;
      o["inputs"] = nlohmann::ordered_json::array();
      for (int in : g.inputs) o["inputs"].push_back(in < 0 ? std::string("frame") : "group " + std::to_string(in + 1));
      groups.push_back(o);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << file << ": " << mob.dof << " DOF (numerical rank; Gruebler-Kutzbach " << gk.grueblerKutzbach
              << "), " << mob.drivers << " driver(s)\n";
    for (const auto& n : mob.redundant) std::cout << "  redundant constraint: " << n << "\n";
    for (const auto& n : mob.passive) std::cout << "  passive freedom locked: spin of '" << n << "' about its axis\n";
    std::cout << "solve order:\n";
    for (std::size_t i = 0; i < dec.groups.size(); ++i) {
      const auto& g = dec.groups[i];
      std::cout << "  " << i + 1 << ". {";
      for (std::size_t k = 0; k < g.bodies.size(); ++k) std::cout << (k ? ", " : "") << bodyName(g.bodies[k]);
      std::cout << "}  " << g.name << " (" << g.kind << "; " << g.bodies.size() << " bod"
                << (g.bodies.size() == 1 ? "y" : "ies") << ", " << g.pairs << (g.pairs == 1 ? " pair, " : " pairs, ")
                << g.drivenInputs << " driven) after ";
      for (std::size_t k = 0; k < g.inputs.size(); ++k)
        std::cout << (k ? ", " : "") << (g.inputs[k] < 0 ? std::string("frame") : "group " + std::to_string(g.inputs[k] + 1));
      std::cout << "\n";
    }
    if (!dec.ok) std::cerr << file << ": " << dec.error << "\n";
  }
  return dec.ok ? kOk : kAnalysisFailed;
}

struct KinematicsArgs {
  std::string file, method = "modular-td", out, times;
  double tEnd = -1, dt = -1;
  bool timesGiven = false;  // on the command line, also as ""
};

// --times names the rows and ends the run at its last: --t-end, --dt or --output-dt beside it
// would be ignored, which is said
void noteBesideTimes(bool tEndGiven, bool outputDtGiven) {
  if (tEndGiven) std::cerr << "linkwright-cli: note: --t-end is ignored: the run ends at the last of --times\n";
  if (outputDtGiven) std::cerr << "linkwright-cli: note: --output-dt is ignored: --times names the rows\n";
}

// --times: "0.1,0.25,1" or "@FILE" (numbers separated by commas, spaces or lines); false with a
// message when a number does not read
bool parseTimes(const std::string& text, std::vector<double>& out) {
  std::string list = text;
  if (!text.empty() && text[0] == '@') {
    std::string err;
    if (!lw::io::readFile(text.substr(1), list, err)) {
      std::cerr << "linkwright-cli: --times " << text << ": " << err << "\n";
      return false;
    }
  }
  for (char& c : list)
    if (c == ',' || c == ';' || c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::istringstream in(list);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const double v = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0') {
      std::cerr << "linkwright-cli: --times: '" << word << "' is not a number\n";
      return false;
    }
    out.push_back(v);
  }
  if (out.empty()) {
    std::cerr << "linkwright-cli: --times: no times given\n";
    return false;
  }
  if (auto problem = lw::analysis::timesProblem(out); !problem.empty()) {
    std::cerr << "linkwright-cli: --times: " << problem << "\n";
    return false;
  }
  return true;
}

// `kinematics`: drive the mechanism over [0, t_end] and write every point's position, velocity
// and acceleration to CSV.
int kinematics(const KinematicsArgs& a) {
  if (outputIsInput(a.out, a.file)) return kUsage;
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(a.file, r, res); code != kOk) return code;
  lw::analysis::KinematicsSpec spec;
  if (!lw::analysis::parseKinematicsMethod(a.method, spec.method)) return kUsage;
  const lw::RunSpan span = lw::defaultSpan(*r.mechanism, true, a.tEnd);
  spec.tEnd = span.tEnd;
  spec.dt = a.dt > 0 ? a.dt : span.dt;
  spec.mechanism = &*r.mechanism;
  if (a.timesGiven) {
    if (!parseTimes(a.times, spec.times)) return kUsage;
    noteBesideTimes(a.tEnd >= 0, false);
    spec.tEnd = spec.times.back();
  }
  CsvStream csv;
  if (!csv.open(a.out, spec.times.empty() ? spec.tEnd / spec.dt + 1 : static_cast<double>(spec.times.size() + 1))) return kIoError;
  spec.rows = csv.sink();
  const auto result = std::get<lw::analysis::KinematicsResult>(lw::analysis::run(*r.mechanism, {spec}, {}, csv.cancel()).of);
  if (csv.refused()) return csv.finish(result.steps());
  if (!result.status.ok()) std::cerr << a.file << ": " << result.status.message << "\n";
  printCostProblems(a.file, result.costProblem);
  for (std::size_t k = 0; k < result.costValues.size() && result.status.ok(); ++k)
    std::cerr << a.file << ": cost " << result.costNames[k] << " = " << std::setprecision(10) << result.costValues[k] << "\n";
  if (const int written = csv.finish(result.steps()); written != kOk) return written;
  return result.status.ok() ? kOk : kAnalysisFailed;
}

struct SimulateArgs {
  std::string file, formulation = "matrix-r", integrator = "trapezoidal", tangent = "sparse-ad", out, times, events;
  double tEnd = -1, dt = -1, tol = 1e-8, outputDt = 0;
  bool integratorGiven = false, tolGiven = false, timesGiven = false;  // on the command line
};

// `simulate`: forward dynamics; CSV of the independent coordinates, points, energies, residuals
int simulate(const SimulateArgs& a) {
  if (outputIsInput(a.out, a.file) || outputIsInput(a.events, a.file)) return kUsage;
  if (!outputPlaceExists(a.events)) return kIoError;  // before the run, as the CSV's
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(a.file, r, res); code != kOk) return code;
  lw::analysis::SimulationSpec spec;
  if (!lw::analysis::parseFormulation(a.formulation, spec.formulation) ||
      !lw::analysis::parseIntegrator(a.integrator, spec.integrator) ||
      !lw::dyn::parseTangentMethod(a.tangent, spec.tangent))
    return kUsage;
  if (!integratorApplies(spec.formulation, spec.integrator, a.integratorGiven)) return kUsage;
  if (a.tolGiven && (lw::analysis::trapezoidalOnly(spec.formulation) || spec.integrator != lw::analysis::Integrator::RK45))
    std::cerr << "linkwright-cli: note: --tol is rk45's tolerance; the trapezoidal rule ignores it\n";
  const lw::RunSpan span = lw::defaultSpan(*r.mechanism, false, a.tEnd);
  spec.tEnd = span.tEnd;
  spec.dt = a.dt > 0 ? a.dt : span.dt;
  spec.tol = a.tol;
  spec.outputDt = a.outputDt;
  spec.mechanism = &*r.mechanism;
  if (a.timesGiven) {
    if (!parseTimes(a.times, spec.times)) return kUsage;
    noteBesideTimes(a.tEnd >= 0, a.outputDt > 0);
    spec.tEnd = spec.times.back();
    if (a.dt <= 0 && spec.dt > spec.tEnd) spec.dt = spec.tEnd;
  }
  CsvStream csv;
  if (!csv.open(a.out, spec.times.empty() ? spec.tEnd / (spec.outputDt > 0 ? spec.outputDt : spec.dt) + 1
                                          : static_cast<double>(spec.times.size() + 1)))
    return kIoError;
  spec.rows = csv.sink();
  const auto result = std::get<lw::analysis::SimulationResult>(lw::analysis::run(*r.mechanism, {spec}, {}, csv.cancel()).of);
  if (csv.refused()) return csv.finish(result.rows());
  for (const auto& w : result.warnings) std::cerr << a.file << ": warning: " << w << "\n";
  if (!result.status.ok()) std::cerr << a.file << ": " << result.status.message << "\n";
  if (!result.events.empty())
    std::cerr << a.file << ": " << lw::events::eventCounts(result.events) << ", the first at t = " << std::setprecision(10) << result.events.front().t
              << " s, the last at t = " << result.events.back().t << " s" << std::setprecision(6) << "\n";
  if (!a.events.empty())
    if (const int written = writeText(a.events, lw::events::eventsToCsv(result.events)); written != kOk) return written;
  if (result.steps > 0 || result.status.ok())  // a refused request took no steps: its message says it all
    std::cerr << a.file << ": " << result.steps << " steps"
              << (spec.integrator == lw::analysis::Integrator::RK45 && !lw::analysis::trapezoidalOnly(spec.formulation)
                      ? " (" + std::to_string(result.rejectedSteps) + " rejected)" : std::string())
              << ", " << result.rows() << " rows, " << result.evaluations << " evaluations, "
            << result.tangents << " tangents" << (result.exactTangents ? " (" + std::to_string(result.exactTangents) + " exact)" : std::string())
            << ", " << result.wallSeconds << " s ("
            << (result.wallSeconds > 0 ? spec.tEnd / result.wallSeconds : 0.0) << "x real time)"
            << (result.dofSwitches ? ", independent coordinates switched " + std::to_string(result.dofSwitches) + " time(s)" : "")
            << "\n";
  printCostProblems(a.file, result.costProblem);
  // a run cut short has no costs of the motion asked for
  for (std::size_t k = 0; k < result.costNames.size() && result.status.ok(); ++k)
    std::cerr << a.file << ": cost " << result.costNames[k] << " = " << std::setprecision(10) << result.costValues[k] << "\n";
  if (const int written = csv.finish(result.rows()); written != kOk) return written;
  return result.status.ok() ? kOk : kAnalysisFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"linkwright-cli: check, generate and analyse Linkwright mechanism files.\n"
               "Exit codes: 0 ok, 1 internal error, 2 usage error, 3 invalid model, "
               "4 file could not be read or written, 5 the analysis failed (the message says when and why)."};
  app.set_version_flag("--version", "linkwright-cli 0.1.0");
  app.require_subcommand(1);

  std::string checkFile;
  bool quiet = false;
  auto* checkCmd = app.add_subcommand("check", "Validate a mechanism file and describe it: bodies, "
                                               "joints, DOF by Gruebler-Kutzbach, parameters and "
                                               "the fields that depend on each");
  checkCmd->add_option("FILE", checkFile, "mechanism file (.json)")->required();
  checkCmd->add_flag("-q,--quiet", quiet, "print only problems");

  std::string formatFile, formatOut;
  auto* formatCmd = app.add_subcommand("format", "Rewrite a valid mechanism file in the canonical "
                                                 "layout (atomically)");
  formatCmd->add_option("FILE", formatFile, "mechanism file (.json)")->required();
  formatCmd->add_option("-o,--out", formatOut, "write here instead of over FILE ('-' = stdout)");

  auto* gen = app.add_subcommand("generate", "Write a scalable benchmark mechanism");
  gen->require_subcommand(1);
  std::string genOut;
  int dyads = 10, units = 10, columns = 1, rows = 15;
  auto* chain = gen->add_subcommand("four-bar-chain", "Planar four-bar chain of seed 002 §3.1 "
                                                      "(nEq = 2 dyads + 2)");
  chain->add_option("--dyads", dyads, "number of RRR dyads after the crank")
      ->check(CLI::Range(1, 100000))->required();
  chain->add_option("-o,--out", genOut, "output file (default: standard output)");
  auto* slider = gen->add_subcommand("crank-slider-3d", "Spatial crank-slider of seed 002 §3.2 "
                                                        "(nEq = 8 units + 6)");
  slider->add_option("--units", units, "number of rod + slider units")
      ->check(CLI::Range(1, 100000))->required();
  slider->add_option("-o,--out", genOut, "output file (default: standard output)");
  auto* gridCmd = gen->add_subcommand("grid", "Grid of four-bar loops of seed 004 §6.3");
  gridCmd->add_option("--columns", columns, "squares per row (n_y)")->check(CLI::Range(1, 1000));
  gridCmd->add_option("--rows", rows, "rows of squares (n_z)")->check(CLI::Range(1, 1000));
  bool gridParameters = false;
  gridCmd->add_flag("--design-parameters", gridParameters,
                    "with design parameters (masses, gravity, initial rate) and a cost, for sensitivity studies");
  gridCmd->add_option("-o,--out", genOut, "output file (default: standard output)");

  std::string decFile;
  bool decJson = false;
  auto* decCmd = app.add_subcommand("decompose", "Mobility and structural groups (seed 002 §2) in solve order");
  decCmd->add_option("FILE", decFile, "mechanism file (.json)")->required();
  decCmd->add_flag("--json", decJson, "machine-readable output");

  KinematicsArgs kinArgs;
  auto* kinCmd = app.add_subcommand("kinematics", "Drive the mechanism and write every point's position, "
                                                  "velocity and acceleration to CSV");
  kinCmd->add_option("FILE", kinArgs.file, "mechanism file (.json)")->required();
  kinCmd->add_option("--method", kinArgs.method, "global-dense, global-sparse (natural coordinates, seed 002 "
                                                 "§1.3), modular-td or modular-3ot (structural groups, §2)")
      ->check(CLI::IsMember({"global-dense", "global-sparse", "modular-td", "modular-3ot"}));
  kinCmd->add_option("--t-end", kinArgs.tEnd, "end time in s (default: the file's analysis.t_end, else 1)")->check(finiteAbove(0, false));
  kinCmd->add_option("--dt", kinArgs.dt, "time step in s (default: the file's analysis.dt, else t_end/100)")->check(finiteAbove(0, false));
  kinCmd->add_option("--times", kinArgs.times, "rows at t = 0 and these times instead of every --dt: 0.1,0.25,1 or @FILE "
                                              "(increasing, separated by commas, spaces or lines)");
  kinCmd->add_option("-o,--out", kinArgs.out, "CSV file (default: standard output)");

  SimulateArgs simArgs;
  auto* simCmd = app.add_subcommand("simulate", "Forward dynamics: write the independent coordinates, every point's "
                                                "position and velocity, energies and constraint residuals to CSV");
  simCmd->add_option("FILE", simArgs.file, "mechanism file (.json)")->required();
  simCmd->add_option("--formulation", simArgs.formulation, "matrix-r (semi-recursive Matrix R, seed 000), penalty "
                                                            "(semi-recursive penalty, trapezoidal, seed 004), or a global one on "
                                                            "natural coordinates: index3 (augmented Lagrangian, trapezoidal), "
                                                            "index1 (Baumgarte), penalty-global")
      ->check(CLI::IsMember({"matrix-r", "penalty", "index3", "index1", "penalty-global"}));
  simCmd->add_option("--integrator", simArgs.integrator, "trapezoidal (implicit, fixed step) or rk45 (adaptive)")
      ->check(CLI::IsMember({"trapezoidal", "rk45"}));
  simCmd->add_option("--tangent", simArgs.tangent, "penalty: K and C of the Newton tangent by sparse-ad (default, "
                                                    "compressed forward AD with ColPack colouring), dense-ad or differences")
      ->check(CLI::IsMember({"sparse-ad", "dense-ad", "differences"}));
  simCmd->add_option("--t-end", simArgs.tEnd, "end time in s (default: the file's analysis.t_end, else 1)")->check(finiteAbove(0, false));
  simCmd->add_option("--dt", simArgs.dt, "trapezoidal and penalty: the fixed step in s; rk45, which chooses its own steps: "
                                         "the interval between rows unless --output-dt is given (default: analysis.dt, else 1e-3)")
      ->check(finiteAbove(0, false));
  simCmd->add_option("--tol", simArgs.tol, "rk45 relative tolerance (absolute: a hundredth of it; default 1e-8)")
      ->check(finiteAbove(0, false, 1));
  simCmd->add_option("--times", simArgs.times, "Matrix R: rows at t = 0 and these times (from the steps' interpolants) instead "
                                              "of every --output-dt: 0.1,0.25,1 or @FILE; the run ends at the last");
  simCmd->add_option("--output-dt", simArgs.outputDt, "interval between CSV rows in s: trapezoidal and penalty, a whole number "
                                                       "of steps (default: every step); rk45, any interval, rows from its dense output")
      ->check(finiteAbove(0, true));
  simCmd->add_option("-o,--out", simArgs.out, "CSV file (default: standard output)");
  simCmd->add_option("--events", simArgs.events, "CSV file of the impacts: time, contact, normal velocity before and after, "
                                                 "impulse, energy before and after");

  SensitivityArgs sensArgs;
  auto* sensCmd = app.add_subcommand("sensitivity", "Gradients of the file's costs with respect to its design parameters "
                                                    "(kinematics, or dynamics by Matrix R or penalty), as JSON");
  sensCmd->add_option("FILE", sensArgs.file, "mechanism file (.json)")->required();
  sensCmd->add_option("--method", sensArgs.method, "ddm (direct differentiation of the steps, default), cs (complex step of "
                                                   "the whole run, the reference), avm (the adjoint: one backward pass for every cost), fd (central "
                                                   "differences of whole runs) or compare (all four, with their relative differences and times)")
      ->check(CLI::IsMember({"ddm", "avm", "cs", "fd", "compare"}));
  sensCmd->add_option("--parameters", sensArgs.parameters, "comma-separated parameter names, or all (default)");
  sensCmd->add_option("--costs", sensArgs.costs, "comma-separated cost names, or all (default)");
  sensCmd->add_option("--t-end", sensArgs.tEnd, "end time in s (default: the file's analysis.t_end, else 1)")->check(finiteAbove(0, false));
  sensCmd->add_option("--analysis", sensArgs.analysis, "dynamics (default) or kinematics (a fully driven mechanism: the kinematic "
                                                      "solution's sensitivities, the same positions as the kinematics command's)");
  sensCmd->add_option("--formulation", sensArgs.formulation, "matrix-r (default), penalty (the trapezoidal step of all tree "
                                                            "coordinates, projected with the mass matrix), index1 or penalty-global "
                                                            "(natural coordinates; every method; parameter partials by AD, GSAM or LSAM)");
  sensCmd->add_option("--integrator", sensArgs.integrator, "trapezoidal (default) or rk45 (Matrix R, index1, penalty-global: its accepted "
                                                            "steps differentiated stage by stage)")
      ->check(CLI::IsMember({"trapezoidal", "rk45"}));
  sensCmd->add_option("--dt", sensArgs.dt, "the trapezoidal rule's step in s (default: analysis.dt, else t_end/100 for kinematics, 1e-3 for dynamics)")->check(finiteAbove(0, false));
  sensCmd->add_option("--tol", sensArgs.tol, "rk45: relative tolerance (default 1e-8)")->check(finiteAbove(0, false, 1));
  sensCmd->add_option("--fd-step", sensArgs.fdStep, "finite differences: the relative step (default 1e-4; each parameter's "
                                                    "step is reported)")
      ->check(finiteAbove(0, false, 1));
  sensCmd->add_option("--checkpoint-every", sensArgs.checkpointEvery, "avm: steps between checkpoints of the forward run "
                                                                      "(default: every step while the states fit in 64 MB, then every other one dropped as often as it takes)")
      ->check(CLI::Range(1L, 1000000000L));
  sensCmd->add_option("--partials", sensArgs.partials, "ddm, avm: the partial derivatives with respect to the parameters by ad "
                                                        "(forward AD, default) or gsam (seed 003's global semi-analytical method: "
                                                        "differences of the system-level terms at the frozen state, step --delta) or "
                                                        "lsam (the same element by element: a body, force, driver... at a time)")
      ->check(CLI::IsMember({"ad", "gsam", "lsam"}));
  sensCmd->add_option("--delta", sensArgs.delta, "gsam: the relative step of its differences (default 1e-6)")->check(finiteAbove(0, false, 1));
  sensCmd->add_flag("--delta-sweep", sensArgs.deltaSweep, "ddm: gsam's (or with --partials lsam, lsam's) gradient for delta = 1e-3 ... 1e-10 beside ad's "
                                                           "(seed 003's robustness study), as a table and JSON");
  sensCmd->add_flag("--reference-kernels", sensArgs.referenceKernels, "ddm, avm: every partial derivative by forward AD of the whole "
                                                                     "pipeline (the reference the analytic kernels are tested against; slower)");
  sensCmd->add_option("--histories", sensArgs.histories, "CSV of the sensitivity time histories (direct method): time, every "
                                                          "output component, then d(component)/d(parameter) for each");
  sensCmd->add_option("--events", sensArgs.events, "CSV of the impacts: time, contact, normal velocities and energies before and "
                                                  "after; with the direct method dt/d(parameter) and the jumps of the sensitivities");
  sensCmd->add_option("-o,--out", sensArgs.out, "JSON file (default: standard output)");

  OptimizeArgs optArgs;
  auto* optCmd = app.add_subcommand("optimize", "Tune design parameters within their ranges to minimise a cost (or drive it to "
                                                "a target) with exact gradients (NLopt); prints each evaluation, writes the tuned file");
  optCmd->add_option("FILE", optArgs.file, "mechanism file (.json)")->required();
  optCmd->add_option("--cost", optArgs.cost, "the cost to minimise (default: the file's study, else its only cost)");
  optCmd->add_option("--parameters", optArgs.parameters, "comma-separated parameter names, or all: every parameter with a "
                                                         "min and a max (default: the file's study, else all)");
  optCmd->add_option("--algorithm", optArgs.algorithm, std::string("slsqp (default), mma, ccsaq, lbfgs; derivative-free for "
                                                                   "comparison: cobyla, bobyqa, neldermead, sbplx"));
  optCmd->add_option("--max-evals", optArgs.maxEvals, "the most evaluations (runs differentiated; default: the study's, else 200)")
      ->check(CLI::Range(1, 10000000));
  optCmd->add_option("--target", optArgs.target, "drive the cost to this value instead of minimising it")->check(finiteAbove(-INFINITY, false));
  optCmd->add_option("--analysis", optArgs.analysis, "kinematics or dynamics (default: the file's study, else dynamics)");
  optCmd->add_option("--t-end", optArgs.tEnd, "end time in s (default: the file's analysis.t_end, else 1)")->check(finiteAbove(0, false));
  optCmd->add_option("--dt", optArgs.dt, "time step in s (default: analysis.dt, else t_end/100 for kinematics, 1e-3 for dynamics)")->check(finiteAbove(0, false));
  optCmd->add_flag("--crank-turns", optArgs.crankTurns, "constrain every four-bar loop so that its input link turns fully "
                                                       "(the Grashof conditions for that link)");
  optCmd->add_option("--min-transmission", optArgs.minTransmission, "constrain every four-bar loop's transmission angle to "
                                                                    "[DEG, 180 - DEG] over the whole turn (e.g. 40)")
      ->check(CLI::Range(0.0, 89.9));
  optCmd->add_option("-o,--out", optArgs.out, "write the tuned mechanism here ('-' = standard output)");
  optCmd->add_flag("--write-infeasible", optArgs.writeInfeasible, "when no design meets the constraints, write the least "
                                                                  "infeasible one anyway (the exit code still says it failed)");

  std::string setFile, setOut;
  std::vector<std::string> setValues;
  auto* setCmdApp = app.add_subcommand("set", "Give parameters new values (NAME=NUMBER ...) and close the joints the new "
                                              "dimensions open; writes the mechanism");
  setCmdApp->add_option("FILE", setFile, "mechanism file (.json)")->required();
  setCmdApp->add_option("ASSIGNMENTS", setValues, "NAME=NUMBER, one per parameter")->required();
  setCmdApp->add_option("-o,--out", setOut, "output file (default: standard output)");
  bool setForce = false;
  setCmdApp->add_flag("--force", setForce, "store a value outside its parameter's range (min, max) with a warning instead of refusing it");

  SweepArgs sweepArgs;
  auto* sweepApp = app.add_subcommand("sweep", "The file's costs (and with --gradients their exact gradients) at many values of its "
                                               "design parameters, on every core; one CSV row per variant");
  sweepApp->add_option("FILE", sweepArgs.file, "mechanism file (.json)")->required();
  sweepApp->add_option("--vary", sweepArgs.vary, "NAME=LO:HI:N: N values of parameter NAME from LO to HI (repeat for more "
                                                 "parameters: every combination); with --design lhs, NAME=LO:HI")
      ->required();
  sweepApp->add_option("--design", sweepArgs.design, "full (every combination, default) or lhs (a Latin hypercube of --samples "
                                                     "variants)")
      ->check(CLI::IsMember({"full", "lhs"}));
  sweepApp->add_option("--samples", sweepArgs.samples, "lhs: the number of variants")->check(CLI::Range(1, 10000000));
  sweepApp->add_option("--seed", sweepArgs.seed, "lhs: the random seed (the same seed, the same design; default 1)");
  sweepApp->add_option("--costs", sweepArgs.costs, "comma-separated cost names, or all (default)");
  sweepApp->add_flag("--gradients", sweepArgs.gradients, "also every d(cost)/d(parameter), exact (the direct method or the adjoint, "
                                                         "whichever is cheaper for the counts)");
  sweepApp->add_option("--parameters", sweepArgs.parameters, "with --gradients: the parameters of the gradients (default: the varied ones)");
  sweepApp->add_option("--analysis", sweepArgs.analysis, "dynamics or kinematics (default: the file's study, else dynamics)");
  sweepApp->add_option("--t-end", sweepArgs.tEnd, "end time in s (default: the file's analysis.t_end, else 1)")->check(finiteAbove(0, false));
  sweepApp->add_option("--dt", sweepArgs.dt, "time step in s (default: analysis.dt, else t_end/100 for kinematics, 1e-3 for dynamics)")
      ->check(finiteAbove(0, false));
  sweepApp->add_option("--formulation", sweepArgs.formulation, "matrix-r (default) or penalty");
  sweepApp->add_option("--integrator", sweepArgs.integrator, "trapezoidal (default) or rk45")->check(CLI::IsMember({"trapezoidal", "rk45"}));
  sweepApp->add_option("--tol", sweepArgs.tol, "rk45: relative tolerance (default 1e-8)")->check(finiteAbove(0, false, 1));
  sweepApp->add_option("--jobs", sweepArgs.jobs, "threads (default: every core); the rows are the same whatever the number")
      ->check(CLI::Range(1, 4096));
  sweepApp->add_option("--scheduler", sweepArgs.scheduler, "run the variants on a Dask cluster: tcp://HOST:PORT of its scheduler, "
                                                           "or local:N for a LocalCluster of N workers on this machine (through the "
                                                           "Python module)");
  sweepApp->add_option("-o,--out", sweepArgs.out, "CSV file (default: standard output)");

  CompareArgs compareArgs;
  auto* compareApp = app.add_subcommand("compare", "One model by every formulation that applies (matrix-r, penalty, index3, index1, "
                                                   "penalty-global; trapezoidal and rk45): time per step, steps, evaluations, energy "
                                                   "drift, constraint residuals and the distance from a reference run (matrix-r, rk45 "
                                                   "at 1e-11), and with --gradients the costs' gradients beside the reference's");
  compareApp->add_option("FILE", compareArgs.file, "mechanism file (.json)")->required();
  compareApp->add_option("--t-end", compareArgs.tEnd, "end time in s (default: the file's analysis.t_end, else 1)")->check(finiteAbove(0, false));
  compareApp->add_option("--dt", compareArgs.dt, "the fixed step in s, and the rows every formulation is compared at (default: "
                                                 "analysis.dt, else 1e-3)")
      ->check(finiteAbove(0, false));
  compareApp->add_option("--tol", compareArgs.tol, "rk45's relative tolerance in the compared runs (default 1e-8)")->check(finiteAbove(0, false, 1));
  compareApp->add_flag("--gradients", compareArgs.gradients, "also the costs' gradients (the direct method) where a formulation has them");
  compareApp->add_option("--costs", compareArgs.costs, "comma-separated cost names, or all (default)");
  compareApp->add_option("--parameters", compareArgs.parameters, "with --gradients: comma-separated parameter names, or all (default)");
  compareApp->add_option("-o,--out", compareArgs.out, "JSON file of the comparison (the table then goes to standard error); default: "
                                                      "the table on standard output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (gen->parsed() && gen->get_subcommands().empty() && !gen->remaining().empty()) {
      std::cerr << "linkwright-cli: generate: unknown generator '" << gen->remaining().front()
                << "' (four-bar-chain, crank-slider-3d or grid; see generate --help)\n";
      return kUsage;
    }
    const int code = app.exit(e);
    return code == 0 ? kOk : kUsage;
  }
  auto dispatch = [&]() -> int {
    try {
      if (*checkCmd) return check(checkFile, quiet);
      if (*formatCmd) return format(formatFile, formatOut);
      if (*kinCmd) {
        kinArgs.timesGiven = kinCmd->count("--times") > 0;
        return kinematics(kinArgs);
      }
      if (*decCmd) return decomposeCmd(decFile, decJson);
      if (*simCmd) {
        simArgs.integratorGiven = simCmd->count("--integrator") > 0;
        simArgs.tolGiven = simCmd->count("--tol") > 0;
        simArgs.timesGiven = simCmd->count("--times") > 0;
        return simulate(simArgs);
      }
      if (*sensCmd) {
        for (const char* o : {"--integrator", "--tol", "--delta", "--checkpoint-every", "--fd-step"})
          if (sensCmd->count(o) > 0) sensArgs.given.insert(o);
        return sensitivity(sensArgs);
      }
      if (*sweepApp) {
        for (const char* o : {"--integrator", "--samples", "--parameters", "--jobs"})
          if (sweepApp->count(o) > 0) sweepArgs.given.insert(o);
        return sweepCmd(sweepArgs);
      }
      if (*compareApp) return compareCmd(compareArgs);
      if (*optCmd) return optimizeCmd(optArgs);
      if (*setCmdApp) return setCmd(setFile, setValues, setOut, setForce);
      if (*chain) return writeOut(lw::generate::fourBarChain(dyads), genOut);
      if (*slider) return writeOut(lw::generate::crankSlider3d(units), genOut);
      if (*gridCmd) {
        // a grid whose file `check` would not read is refused before it is built (1000 × 1000
        // took 7.5 GB and ended in bad_alloc): its size from a small grid's, per square
        auto build = [&](int c, int r) { return gridParameters ? lw::generate::gridWithParameters(c, r) : lw::generate::grid(c, r); };
        const double perSquare = static_cast<double>(lw::io::mechanismToString(build(16, 16)).size()) / 256.0;
        const double estimate = 1.1 * perSquare * columns * rows;
        if (estimate > static_cast<double>(lw::io::kMaxInputBytes)) {
          std::cerr << "linkwright-cli: generate grid: a grid of " << columns << " x " << rows << " squares would be a file of about "
                    << lw::analysis::byteSize(estimate) << ", more than the " << (lw::io::kMaxInputBytes >> 20)
                    << " MB a mechanism file may have (check and the analyses would not read it): at most about "
                    << static_cast<long>(static_cast<double>(lw::io::kMaxInputBytes) / (1.1 * perSquare)) << " squares\n";
          return kUsage;
        }
        return writeOut(build(columns, rows), genOut);
      }
    } catch (const std::exception& e) {
      std::cerr << "linkwright-cli: internal error: " << e.what() << "\n";
      return kInternal;
    }
    return kUsage;
  };
  // every command's result, then standard output checked: a full disk or a closed pipe behind
  // "> file" loses the output, which must not exit 0
  const int code = dispatch();
  return finishStandardOutput(code);
}
