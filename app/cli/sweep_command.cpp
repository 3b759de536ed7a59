// `linkwright-cli sweep`: the file's costs (and their gradients) over a design of experiments,
// on every core (engine/sweep), or on a Dask cluster through the Python module.
#include "sweep_command.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "cli_support.h"
#include "mechanism/mechanism.h"
#include "sweep/sweep.h"

namespace lw::cli {
namespace {

std::atomic<bool> interrupted{false};
extern "C" void onInterrupt(int) { interrupted = true; }

// NAME=LO:HI:N (full) or NAME=LO:HI (lhs); false with the reason said
bool parseVary(const std::string& text, bool lhs, std::string& name, double& lo, double& hi, int& n) {
  const auto eq = text.find('=');
  auto bad = [&](const std::string& why) {
    std::cerr << "linkwright-cli: sweep: --vary '" << text << "': " << why << "\n";
    return false;
  };
  if (eq == std::string::npos || eq == 0) return bad(lhs ? "not NAME=LO:HI" : "not NAME=LO:HI:N");
  name = text.substr(0, eq);
  std::vector<std::string> parts;
  std::stringstream rest(text.substr(eq + 1));
  for (std::string p; std::getline(rest, p, ':');) parts.push_back(p);
  if (parts.size() != (lhs ? 2u : 3u) && !(lhs && parts.size() == 3))
    return bad(lhs ? "not NAME=LO:HI" : "not NAME=LO:HI:N (N values from LO to HI)");
  auto number = [](const std::string& s, double& v) {
    std::size_t used = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      return false;
    }
    return used == s.size() && std::isfinite(v);
  };
  if (!number(parts[0], lo) || !number(parts[1], hi)) return bad("LO and HI must be numbers");
  if (hi < lo) return bad("HI is below LO");
  n = 0;
  if (!lhs) {
    double count = 0;
    if (!number(parts[2], count) || count < 1 || count != std::floor(count) || count > 1e6) return bad("N must be a whole number from 1 to 1000000");
    n = static_cast<int>(count);
    if (n > 1 && hi == lo) return bad("LO = HI gives one value: N must be 1");
  } else if (parts.size() == 3) {
    std::cerr << "linkwright-cli: note: sweep: --vary '" << text << "': a Latin hypercube takes --samples, not N: N ignored\n";
  }
  return true;
}

// the Python module's path for --scheduler (the build's extension and the package's sources,
// LW_PYTHON_DIR), or LINKWRIGHT_PYTHONPATH
std::string pythonPath() {
  if (const char* p = std::getenv("LINKWRIGHT_PYTHONPATH")) return p;
#ifdef LW_PYTHON_DIR
  return LW_PYTHON_DIR;
#else
  return {};
#endif
}

std::string pythonExecutable() {
#ifdef LW_PYTHON_EXECUTABLE
  return LW_PYTHON_EXECUTABLE;
#else
  return "python3";
#endif
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// the sweep on a Dask cluster: the Python module (python3 -m linkwright.sweep_cli) takes the job as
// JSON on its standard input — the variants and the run as this command read them, so both
// routes sweep the same design with the same options
int onDask(const SweepArgs& a, const lw::sweep::Design& design, const lw::sweep::SweepSpec& spec) {
  const std::string path = pythonPath();
  if (path.empty()) {
    std::cerr << "linkwright-cli: sweep --scheduler runs the sweep through the Python module, which was not built here "
                 "(pybind11-dev missing when the project was configured?)\n";
    return kUsage;
  }
  nlohmann::json job;
  job["file"] = a.file;
  job["scheduler"] = a.scheduler;
  job["out"] = a.out.empty() ? "-" : a.out;
  job["parameters"] = design.parameters;
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t i = 0; i < design.count(); ++i)
    points.push_back(std::vector<double>(design.points.begin() + static_cast<std::ptrdiff_t>(i * design.parameters.size()),
                                         design.points.begin() + static_cast<std::ptrdiff_t>((i + 1) * design.parameters.size())));
  job["points"] = points;
  job["costs"] = spec.study.costs.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.study.costs);
  job["gradients"] = spec.gradients;
  job["gradient_parameters"] = spec.study.parameters.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.study.parameters);
  job["analysis"] = spec.study.analysis == lw::sens::Analysis::Kinematics ? "kinematics" : "dynamics";
  job["run"] = {{"t_end", spec.study.run.tEnd}, {"dt", spec.study.run.dt}, {"tol", spec.study.run.tol},
                {"formulation", a.formulation}, {"integrator", a.integrator}};
  const std::string command = "PYTHONPATH=" + shellQuote(path) + "${PYTHONPATH:+:$PYTHONPATH} " + shellQuote(pythonExecutable()) +
                              " -m linkwright.sweep_cli";
  std::fflush(nullptr);
  FILE* python = ::popen(command.c_str(), "w");
  if (!python) {
    std::cerr << "linkwright-cli: sweep --scheduler: could not start " << pythonExecutable() << "\n";
    return kInternal;
  }
  const std::string text = job.dump();
  const bool sent = std::fwrite(text.data(), 1, text.size(), python) == text.size();
  const int status = ::pclose(python);
  if (!sent || status == -1 || !WIFEXITED(status)) return kInternal;
  return WEXITSTATUS(status);
}

}  // namespace

int sweepCmd(const SweepArgs& a) {
  if (outputIsInput(a.out, a.file)) return kUsage;
  if (!outputPlaceExists(a.out)) return kIoError;
  const bool lhs = a.design == "lhs";
  if (lhs && a.samples < 1) {
    std::cerr << "linkwright-cli: sweep: --design lhs needs --samples N (the number of variants)\n";
    return kUsage;
  }
  if (!lhs && a.given.count("--samples")) std::cerr << "linkwright-cli: note: sweep: --samples is the Latin hypercube's (--design lhs); ignored\n";
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(a.file, r, res); code != kOk) return code;
  const lw::Mechanism& m = *r.mechanism;

  lw::sweep::Design design;
  std::vector<lw::sweep::Axis> axes;
  std::vector<lw::sweep::Interval> intervals;
  for (const auto& v : a.vary) {
    std::string name;
    double lo = 0, hi = 0;
    int n = 0;
    if (!parseVary(v, lhs, name, lo, hi, n)) return kUsage;
    axes.push_back({name, lw::sweep::evenlySpaced(lo, hi, n)});
    intervals.push_back({name, lo, hi});
  }
  design = lhs ? lw::sweep::latinHypercube(intervals, a.samples, a.seed) : lw::sweep::fullFactorial(axes);
  if (design.count() > 10'000'000) {
    std::cerr << "linkwright-cli: sweep: " << design.count() << " variants: at most 10 000 000 in one sweep\n";
    return kUsage;
  }

  lw::sweep::SweepSpec spec;
  spec.gradients = a.gradients;
  spec.jobs = a.jobs;
  spec.study.costs = commaList(a.costs);
  spec.study.parameters = commaList(a.parameters);
  if (unknownNames(m, spec.study.parameters, spec.study.costs)) return kUsage;
  if (a.analysis == "kinematics") spec.study.analysis = lw::sens::Analysis::Kinematics;
  else if (a.analysis == "dynamics") spec.study.analysis = lw::sens::Analysis::Dynamics;
  else if (a.analysis.empty()) spec.study.analysis = m.study.analysis == "kinematics" ? lw::sens::Analysis::Kinematics : lw::sens::Analysis::Dynamics;
  else {
    std::cerr << "linkwright-cli: unknown analysis '" << a.analysis << "' (kinematics or dynamics)\n";
    return kUsage;
  }
  const bool kinematic = spec.study.analysis == lw::sens::Analysis::Kinematics;
  const lw::RunSpan span = lw::defaultSpan(m, kinematic, a.tEnd);
  spec.study.run.tEnd = span.tEnd;
  spec.study.run.dt = a.dt > 0 ? a.dt : span.dt;
  spec.study.run.tol = a.tol;
  if (!lw::analysis::parseFormulation(a.formulation, spec.study.run.formulation)) {
    std::cerr << "linkwright-cli: unknown formulation '" << a.formulation << "' (matrix-r or penalty)\n";
    return kUsage;
  }
  if (!lw::analysis::parseIntegrator(a.integrator, spec.study.run.integrator)) return kUsage;
  if (!integratorApplies(spec.study.run.formulation, spec.study.run.integrator, a.given.count("--integrator") > 0)) return kUsage;
  if (!a.gradients && a.given.count("--parameters"))
    std::cerr << "linkwright-cli: note: sweep: --parameters names the gradients' parameters (--gradients); ignored\n";
  if (std::string why = lw::sweep::refusal(m, design, spec); !why.empty()) {
    std::cerr << a.file << ": sweep: " << why << "\n";
    return kUsage;
  }

  if (!a.scheduler.empty()) {
    if (a.given.count("--jobs")) std::cerr << "linkwright-cli: note: sweep: --jobs is this machine's; on a Dask cluster each worker runs a task at a time\n";
    return onDask(a, design, spec);
  }

  // progress on a terminal, about once a second; Ctrl+C stops the sweep, keeping the rows done
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  auto lastShown = std::chrono::steady_clock::now();
  auto progress = [&](std::size_t done, std::size_t total) {
    if (!terminal) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastShown < std::chrono::seconds(1) && done < total) return;
    lastShown = now;
    std::cerr << "\r" << a.file << ": " << done << " of " << total << " variants" << (done == total ? "\n" : "") << std::flush;
  };
  interrupted = false;
  auto previous = std::signal(SIGINT, onInterrupt);
  const lw::sweep::SweepResult result = lw::sweep::runSweep(m, design, spec, progress, &interrupted);
  std::signal(SIGINT, previous);
  if (!result.status.ok() && result.status.code != lw::Status::Code::Cancelled) {
    std::cerr << a.file << ": sweep: " << result.status.message << "\n";
    return kUsage;
  }
  const std::size_t failed = result.failed();
  std::cerr << a.file << ": " << result.rows() << " variants in " << lw::shortNumber(result.seconds) << " s";
  if (a.gradients) std::cerr << ", gradients by " << (result.method == lw::sens::Method::Adjoint ? "the adjoint" : "the direct method");
  if (failed) std::cerr << "; " << failed << " failed (their reasons in the error column)";
  std::cerr << "\n";
  if (const int written = writeText(a.out.empty() ? "-" : a.out, lw::sweep::toCsv(result)); written != kOk) return written;
  if (result.status.code == lw::Status::Code::Cancelled) {
    std::cerr << a.file << ": the sweep was interrupted: the rows not run say \"cancelled\"\n";
    return kAnalysisFailed;
  }
  return kOk;
}

}  // namespace lw::cli
