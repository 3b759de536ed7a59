// _linkwright: the engine for Python (pybind11), a front end beside the CLI and the window over the
// same calls (analysis::run, sens::runSensitivity, opt::optimize, sweep::runSweep). The package
// `linkwright` (app/python/linkwright) builds its friendlier API (keyword defaults, pandas, Dask)
// on these. Every run releases the GIL and stops at Ctrl+C (see interruptible()).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <thread>

#include "analysis/run.h"
#include "io/mechanism_io.h"
#include "mechanism/parameters.h"
#include "mechanism/resolved.h"
#include "simulation/result_size.h"
#include "optimize/optimize.h"
#include "sweep/sweep.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace lw::python {
namespace {

struct MechanismError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct AnalysisError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A mechanism as Python holds it: immutable (with_parameters makes another), with the file it came
// from for messages.
struct PyMechanism {
  std::shared_ptr<const Mechanism> m;
  std::string source;  // the file's path, or "<string>"
};

std::string firstErrors(const Diagnostics& d, const std::string& source) {
  std::string s;
  for (const auto& x : d)
    if (x.isError()) s += (s.empty() ? "" : "\n") + x.format(source);
  return s;
}

PyMechanism fromLoad(io::LoadResult r, const std::string& source) {
  if (!r.ok()) {
    std::string why = firstErrors(r.diagnostics, source);
    throw MechanismError(why.empty() ? source + ": the mechanism could not be read" : why);
  }
  return {std::make_shared<const Mechanism>(std::move(*r.mechanism)), source};
}

// Runs `work(cancel)` on a thread of its own while this one, the GIL released, waits for it and
// every 50 ms takes the GIL back to let Python see a signal: Ctrl+C (KeyboardInterrupt) sets the
// run's cancel flag, waits for it to stop and raises. Other Python threads run meanwhile.
// `poll` (optional) is called with the GIL held at every turn and once at the end: a progress
// callback in Python, fed from what the run's threads left in an atomic.
template <class Work>
auto interruptible(Work work, const std::function<void()>& poll = {}) -> decltype(work(static_cast<const std::atomic<bool>*>(nullptr))) {
  using R = decltype(work(static_cast<const std::atomic<bool>*>(nullptr)));
  std::atomic<bool> cancel{false};
  std::packaged_task<R()> task([&] { return work(&cancel); });
  std::future<R> done = task.get_future();
  std::thread runner(std::move(task));
  // stops the run and waits for it (the thread must not outlive this call), then raises
  auto abandon = [&] {
    cancel = true;
    py::gil_scoped_release released;
    runner.join();
  };
  for (;;) {
    bool ready = false;
    {
      py::gil_scoped_release released;
      ready = done.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
    }
    if (ready) break;
    try {
      if (poll) poll();  // a progress callback that raises stops the run too
    } catch (...) {
      abandon();
      throw;
    }
    if (PyErr_CheckSignals() != 0) {
      abandon();
      throw py::error_already_set();
    }
  }
  runner.join();
  if (poll) poll();
  return done.get();
}

// the run's options as the CLI reads them (the file's analysis defaults where not given)
struct RunOptions {
  std::optional<double> tEnd, dt, tol, outputDt;
  std::string formulation = "matrix-r", integrator = "trapezoidal";
};

analysis::SimulationSpec simulationSpec(const Mechanism& m, const RunOptions& o, bool kinematic) {
  analysis::SimulationSpec s;
  if (!analysis::parseFormulation(o.formulation, s.formulation))
    throw py::value_error("unknown formulation '" + o.formulation + "' (matrix-r, penalty, index3, index1 or penalty-global)");
  if (!analysis::parseIntegrator(o.integrator, s.integrator))
    throw py::value_error("unknown integrator '" + o.integrator + "' (trapezoidal or rk45)");
  if (analysis::trapezoidalOnly(s.formulation) && s.integrator == analysis::Integrator::RK45)
    throw py::value_error(std::string("the ") + analysis::toString(s.formulation) + " formulation has the trapezoidal rule only");
  auto positive = [](const std::optional<double>& v, const char* name) {
    if (v && !(std::isfinite(*v) && *v > 0)) throw py::value_error(std::string(name) + " must be a positive number");
  };
  positive(o.tEnd, "t_end");
  positive(o.dt, "dt");
  positive(o.tol, "tol");
  if (o.outputDt && !(std::isfinite(*o.outputDt) && *o.outputDt >= 0)) throw py::value_error("output_dt must be a number >= 0");
  const RunSpan span = defaultSpan(m, kinematic, o.tEnd.value_or(-1));
  s.tEnd = span.tEnd;
  s.dt = o.dt.value_or(span.dt);
  if (o.tol) s.tol = *o.tol;
  if (o.outputDt) s.outputDt = *o.outputDt;
  return s;
}

sens::Analysis parseAnalysis(const Mechanism& m, const std::string& a) {
  if (a.empty()) return m.study.analysis == "kinematics" ? sens::Analysis::Kinematics : sens::Analysis::Dynamics;
  if (a == "kinematics") return sens::Analysis::Kinematics;
  if (a == "dynamics") return sens::Analysis::Dynamics;
  throw py::value_error("unknown analysis '" + a + "' (kinematics or dynamics)");
}

// A run's table handed to NumPy without a copy: the vector moved into the array's owner.
py::array_t<double> tableArray(std::vector<double>&& values, std::size_t columns) {
  auto* owned = new std::vector<double>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  const auto cols = static_cast<py::ssize_t>(columns);
  const py::ssize_t rows = cols ? static_cast<py::ssize_t>(owned->size()) / cols : 0;
  return py::array_t<double>({rows, cols}, {cols * static_cast<py::ssize_t>(sizeof(double)), static_cast<py::ssize_t>(sizeof(double))},
                             owned->data(), owner);
}

py::list eventList(const std::vector<events::EventRecord>& records) {
  py::list out;
  for (const auto& e : records)
    out.append(py::dict("t"_a = e.t, "kind"_a = e.kind, "contacts"_a = e.contacts, "normal_before"_a = e.normalBefore,
                        "normal_after"_a = e.normalAfter, "impulse"_a = e.impulse, "energy_before"_a = e.energyBefore,
                        "energy_after"_a = e.energyAfter, "grazing"_a = e.grazing));
  return out;
}

// A run's rows: columns, the table (rows × columns), costs, events, warnings.
struct PyResult {
  std::vector<std::string> columns;
  py::array_t<double> table;
  py::dict costs;
  py::list events;
  std::vector<std::string> warnings;
  long steps = 0;
  double seconds = 0;
};

PyResult resultOf(analysis::RunTable& t, const std::vector<events::EventRecord>& records) {
  if (!t.status.ok()) throw AnalysisError(t.status.message);
  PyResult r;
  r.columns = t.columns;
  for (std::size_t k = 0; k < t.costNames.size(); ++k) r.costs[py::str(t.costNames[k])] = t.costValues[k];
  r.events = eventList(records);
  r.table = tableArray(std::move(t.values), t.columns.size());
  return r;
}

py::dict parametersOf(const Mechanism& m) {
  Diagnostics d;
  const auto table = ParameterTable::build(m, d);
  py::dict out;
  if (!table) return out;
  for (std::size_t i = 0; i < table->names().size(); ++i) out[py::str(std::string(table->names()[i]))] = table->values()[i];
  return out;
}

PyMechanism withParameters(const PyMechanism& pm, const std::map<std::string, double>& values, bool force) {
  std::vector<std::string> names;
  std::vector<double> v;
  for (const auto& [name, value] : values) {
    const auto p = std::find_if(pm.m->parameters.begin(), pm.m->parameters.end(), [&](const Parameter& x) { return x.name == name; });
    if (p == pm.m->parameters.end()) throw MechanismError(pm.source + ": unknown parameter '" + name + "'");
    if (!std::isfinite(value)) throw MechanismError(pm.source + ": parameter '" + name + "' is given a value that is not a number");
    if (std::string why = outsideRange(*p, value); !why.empty() && !force) throw MechanismError(pm.source + ": " + why);
    names.push_back(name);
    v.push_back(value);
  }
  Mechanism m = *pm.m;
  Status s;
  {
    py::gil_scoped_release released;
    s = opt::setParameters(m, names, v);
  }
  if (!s.ok()) throw MechanismError(pm.source + ": " + s.message);
  const Diagnostics d = validate(m);
  if (hasErrors(d)) throw MechanismError(firstErrors(d, pm.source));
  return {std::make_shared<const Mechanism>(std::move(m)), pm.source};
}

std::vector<std::string> names(const std::optional<std::vector<std::string>>& v) { return v.value_or(std::vector<std::string>{}); }

void checkNames(const PyMechanism& pm, const std::vector<std::string>& parameters, const std::vector<std::string>& costs) {
  for (const auto& p : parameters)
    if (std::none_of(pm.m->parameters.begin(), pm.m->parameters.end(), [&](const Parameter& x) { return x.name == p; }))
      throw py::value_error("unknown parameter '" + p + "'");
  for (const auto& c : costs)
    if (std::none_of(pm.m->costs.begin(), pm.m->costs.end(), [&](const Cost& x) { return x.name == c; }))
      throw py::value_error("unknown cost '" + c + "'");
}

sens::SensitivitySpec studySpec(const PyMechanism& pm, const std::string& analysis, const RunOptions& run) {
  sens::SensitivitySpec spec;
  spec.analysis = parseAnalysis(*pm.m, analysis);
  spec.run = simulationSpec(*pm.m, run, spec.analysis == sens::Analysis::Kinematics);
  return spec;
}

py::dict sensitivity(const PyMechanism& pm, const std::string& method, const std::optional<std::vector<std::string>>& parameters,
                     const std::optional<std::vector<std::string>>& costs, const std::string& analysis, const RunOptions& run,
                     const std::string& partials, double fdStep) {
  sens::SensitivitySpec spec = studySpec(pm, analysis, run);
  if (!sens::parseMethod(method, spec.method) || spec.method == sens::Method::Compare)
    throw py::value_error("unknown method '" + method + "' (ddm, avm, cs or fd)");
  spec.parameters = names(parameters);
  spec.costs = names(costs);
  checkNames(pm, spec.parameters, spec.costs);
  if (partials == "gsam") spec.partials = sens::Partials::GlobalSemiAnalytical;
  else if (partials == "lsam") spec.partials = sens::Partials::LocalSemiAnalytical;
  else if (partials != "ad") throw py::value_error("unknown partials '" + partials + "' (ad, gsam or lsam)");
  spec.relativeStep = fdStep;
  auto m = pm.m;
  const sens::SensitivityResult r = interruptible([&](const std::atomic<bool>* cancel) { return sens::runSensitivity(*m, spec, {}, cancel); });
  if (!r.status.ok()) throw AnalysisError(pm.source + ": " + r.status.message);
  const sens::Gradient& g = r.methods.front();
  py::dict out;
  for (std::size_t c = 0; c < r.costs.size(); ++c) {
    py::dict gradient;
    for (std::size_t k = 0; k < r.parameters.size(); ++k)
      gradient[py::str(r.parameters[k])] = g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k));
    out[py::str(r.costs[c])] = py::dict("value"_a = g.values[c], "gradient"_a = gradient);
  }
  return out;
}

py::dict optimize(const PyMechanism& pm, const std::optional<std::string>& cost, const std::optional<std::vector<std::string>>& parameters,
                  std::optional<double> target, const std::optional<std::string>& algorithm, std::optional<int> maxEvals,
                  const std::string& analysis, const RunOptions& run) {
  std::string problem;
  opt::OptimizeSpec spec = opt::specFromStudy(*pm.m, problem);
  if (!problem.empty() && !algorithm) throw MechanismError(pm.source + ": " + problem);
  if (cost) spec.cost = *cost;
  if (parameters) spec.parameters = *parameters;
  checkNames(pm, spec.parameters, cost ? std::vector<std::string>{*cost} : std::vector<std::string>{});
  if (algorithm && !opt::parseAlgorithm(*algorithm, spec.algorithm))
    throw py::value_error("unknown algorithm '" + *algorithm + "' (" + opt::algorithmNames() + ")");
  if (maxEvals) spec.maxEvaluations = *maxEvals;
  if (target) spec.hasTarget = true, spec.target = *target;
  if (!analysis.empty() || run.tEnd || run.dt) {
    const auto keep = spec.sensitivity.analysis;
    spec.sensitivity.analysis = analysis.empty() ? keep : parseAnalysis(*pm.m, analysis);
    const auto s = simulationSpec(*pm.m, run, spec.sensitivity.analysis == sens::Analysis::Kinematics);
    spec.sensitivity.run.tEnd = s.tEnd;
    spec.sensitivity.run.dt = s.dt;
  }
  auto m = pm.m;
  const opt::OptimizeResult r = interruptible([&](const std::atomic<bool>* cancel) { return opt::optimize(*m, spec, {}, cancel); });
  if (!r.status.ok()) throw AnalysisError(pm.source + ": " + r.status.message);
  py::dict best, initial;
  for (std::size_t i = 0; i < r.parameters.size(); ++i) {
    best[py::str(r.parameters[i])] = r.best[i];
    initial[py::str(r.parameters[i])] = r.initial[i];
  }
  std::map<std::string, double> tunedValues;
  for (std::size_t i = 0; i < r.parameters.size(); ++i) tunedValues[r.parameters[i]] = r.best[i];
  return py::dict("parameters"_a = best, "initial"_a = initial, "cost"_a = r.bestCost, "initial_cost"_a = r.initialCost,
                  "feasible"_a = r.feasible, "stop_reason"_a = r.stopReason, "evaluations"_a = r.history.size(), "seconds"_a = r.seconds,
                  "notes"_a = r.notes, "mechanism"_a = withParameters(pm, tunedValues, true));
}

// a sweep over the rows of `points` (variants × parameters): columns, table, errors, method
py::tuple sweep(const PyMechanism& pm, const std::vector<std::string>& parameters, const py::array_t<double, py::array::c_style | py::array::forcecast>& points,
                const std::optional<std::vector<std::string>>& costs, bool gradients, const std::optional<std::vector<std::string>>& gradientParameters,
                std::optional<int> jobs, const std::string& analysis, const RunOptions& run, const py::object& progress) {
  sweep::Design design;
  design.parameters = parameters;
  if (points.ndim() != 2 || static_cast<std::size_t>(points.shape(1)) != parameters.size())
    throw py::value_error("points must be a 2-D array with one column per parameter");
  design.points.assign(points.data(), points.data() + points.size());
  sweep::SweepSpec spec;
  spec.study = studySpec(pm, analysis, run);
  spec.study.costs = names(costs);
  spec.study.parameters = names(gradientParameters);
  spec.gradients = gradients;
  spec.jobs = jobs.value_or(0);
  if (spec.jobs < 0) throw py::value_error("jobs must be at least 1");
  if (std::string why = sweep::refusal(*pm.m, design, spec); !why.empty()) throw py::value_error(why);
  auto m = pm.m;
  // progress(done, total) in Python, from the polling thread (the pool's threads only count)
  std::atomic<std::size_t> done{0};
  std::size_t shown = 0;
  const std::size_t total = design.count();
  std::function<void()> told;
  if (!progress.is_none())
    told = [&] {
      if (const std::size_t d = done.load(); d != shown) {
        shown = d;
        progress(d, total);
      }
    };
  sweep::SweepResult r =
      interruptible([&](const std::atomic<bool>* cancel) {
        return sweep::runSweep(*m, design, spec, [&](std::size_t d, std::size_t) { done = d; }, cancel);
      }, told);
  if (r.status.code == Status::Code::Cancelled) throw AnalysisError("the sweep was cancelled");
  if (!r.status.ok()) throw AnalysisError(r.status.message);
  const std::size_t width = r.columns.size();
  return py::make_tuple(r.columns, tableArray(std::move(r.table), width), r.errors,
                        r.method == sens::Method::Adjoint ? "avm" : "ddm");
}

}  // namespace
}  // namespace lw::python

PYBIND11_MODULE(_linkwright, mod) {
  using namespace lw::python;
  mod.doc() = "Linkwright's engine (see the package linkwright)";
  // a file's mistakes (ValueError's kind) and a run that stops (RuntimeError's), with the engine's sentence
  py::register_exception<MechanismError>(mod, "MechanismError", PyExc_ValueError);
  py::register_exception<AnalysisError>(mod, "AnalysisError", PyExc_RuntimeError);

  py::class_<RunOptions>(mod, "RunOptions")
      .def(py::init<>())
      .def_readwrite("t_end", &RunOptions::tEnd)
      .def_readwrite("dt", &RunOptions::dt)
      .def_readwrite("tol", &RunOptions::tol)
      .def_readwrite("output_dt", &RunOptions::outputDt)
      .def_readwrite("formulation", &RunOptions::formulation)
      .def_readwrite("integrator", &RunOptions::integrator);

  py::class_<PyMechanism>(mod, "Mechanism")
      .def_property_readonly("name", [](const PyMechanism& p) { return p.m->name; })
      .def_property_readonly("source", [](const PyMechanism& p) { return p.source; })
      .def_property_readonly("parameters", [](const PyMechanism& p) { return parametersOf(*p.m); })
      .def_property_readonly("ranges", [](const PyMechanism& p) {
        py::dict out;
        for (const auto& q : p.m->parameters)
          out[py::str(q.name)] = py::make_tuple(q.hasMin ? py::cast(q.min) : py::none(), q.hasMax ? py::cast(q.max) : py::none());
        return out;
      })
      .def_property_readonly("costs", [](const PyMechanism& p) {
        std::vector<std::string> out;
        for (const auto& c : p.m->costs) out.push_back(c.name);
        return out;
      })
      .def_property_readonly("outputs", [](const PyMechanism& p) {
        std::vector<std::string> out;
        for (const auto& o : p.m->outputs) out.push_back(o.name);
        return out;
      })
      .def("_with_parameters", &withParameters, "values"_a, "force"_a = false)
      .def("to_json", [](const PyMechanism& p) { return lw::io::mechanismToString(*p.m); })
      .def("save", [](const PyMechanism& p, const std::filesystem::path& path) {
        std::string error;
        if (!lw::io::saveMechanismFile(*p.m, path.string(), error)) throw py::value_error(path.string() + ": " + error);
      }, "path"_a)
      .def("__repr__", [](const PyMechanism& p) {
        return "<linkwright.Mechanism '" + p.m->name + "' from " + p.source + ": " + std::to_string(p.m->bodies.size()) + " bodies, " +
               std::to_string(p.m->parameters.size()) + " parameters>";
      });

  py::class_<PyResult>(mod, "Result")
      .def_readonly("columns", &PyResult::columns)
      .def_readonly("table", &PyResult::table)
      .def_readonly("costs", &PyResult::costs)
      .def_readonly("events", &PyResult::events)
      .def_readonly("warnings", &PyResult::warnings)
      .def_readonly("steps", &PyResult::steps)
      .def_readonly("seconds", &PyResult::seconds)
      .def("__getitem__", [](const PyResult& r, const std::string& name) -> py::object {
        const auto at = std::find(r.columns.begin(), r.columns.end(), name);
        if (at == r.columns.end()) throw py::key_error("no column '" + name + "'");
        return r.table[py::make_tuple(py::slice(py::none(), py::none(), py::none()), static_cast<py::ssize_t>(at - r.columns.begin()))];
      })
      .def("__len__", [](const PyResult& r) { return r.table.shape(0); })
      .def("__repr__", [](const PyResult& r) {
        return "<linkwright.Result: " + std::to_string(r.table.shape(0)) + " rows x " + std::to_string(r.columns.size()) + " columns>";
      });

  mod.def("load", [](const std::filesystem::path& path) {
    lw::io::LoadResult r;
    {
      py::gil_scoped_release released;
      r = lw::io::loadMechanismFile(path.string());
    }
    return fromLoad(std::move(r), path.string());
  }, "path"_a);
  mod.def("loads", [](const std::string& text) { return fromLoad(lw::io::loadMechanismFromString(text), "<string>"); }, "text"_a);

  mod.def("kinematics", [](const PyMechanism& pm, const RunOptions& run, const std::string& method, const std::optional<std::vector<double>>& times) {
    lw::analysis::KinematicsSpec spec;
    if (!lw::analysis::parseKinematicsMethod(method, spec.method)) throw py::value_error("unknown kinematics method '" + method + "'");
    const auto s = simulationSpec(*pm.m, run, true);
    spec.tEnd = s.tEnd;
    spec.dt = s.dt;
    if (times) {
      if (auto problem = lw::analysis::timesProblem(*times); !problem.empty()) throw py::value_error("times: " + problem);
      spec.times = *times;
      spec.tEnd = times->back();
    }
    auto m = pm.m;
    auto results = interruptible([&](const std::atomic<bool>* cancel) { return lw::analysis::run(*m, {spec}, {}, cancel); });
    auto& k = std::get<lw::analysis::KinematicsResult>(results.of);
    if (!k.status.ok()) throw AnalysisError(pm.source + ": " + k.status.message);
    PyResult r = resultOf(k, {});
    r.steps = static_cast<long>(k.steps());
    return r;
  }, "mechanism"_a, "run"_a, "method"_a = "modular-td", "times"_a = py::none());

  mod.def("simulate", [](const PyMechanism& pm, const RunOptions& run, const std::optional<std::vector<double>>& times) {
    auto spec = simulationSpec(*pm.m, run, false);
    if (times) {
      if (auto problem = lw::analysis::timesProblem(*times); !problem.empty()) throw py::value_error("times: " + problem);
      spec.times = *times;
      spec.tEnd = times->back();
      if (!run.dt && spec.dt > spec.tEnd) spec.dt = spec.tEnd;
    }
    auto m = pm.m;
    auto results = interruptible([&](const std::atomic<bool>* cancel) { return lw::analysis::run(*m, {spec}, {}, cancel); });
    auto& s = std::get<lw::analysis::SimulationResult>(results.of);
    if (!s.status.ok()) throw AnalysisError(pm.source + ": " + s.status.message);
    PyResult r = resultOf(s, s.events);
    r.warnings = s.warnings;
    r.steps = s.steps;
    r.seconds = s.wallSeconds;
    return r;
  }, "mechanism"_a, "run"_a, "times"_a = py::none());

  mod.def("sensitivity", &sensitivity, "mechanism"_a, "method"_a, "parameters"_a, "costs"_a, "analysis"_a, "run"_a, "partials"_a = "ad",
          "fd_step"_a = 1e-4);
  mod.def("optimize", &optimize, "mechanism"_a, "cost"_a, "parameters"_a, "target"_a, "algorithm"_a, "max_evals"_a, "analysis"_a, "run"_a);
  mod.def("sweep", &sweep, "mechanism"_a, "parameters"_a, "points"_a, "costs"_a, "gradients"_a, "gradient_parameters"_a, "jobs"_a,
          "analysis"_a, "run"_a, "progress"_a = py::none());
  mod.def("sweep_csv", [](const std::vector<std::string>& columns, const py::array_t<double, py::array::c_style | py::array::forcecast>& table,
                          const std::vector<std::string>& errors) {
    lw::sweep::SweepResult r;  // the CLI's CSV of these rows, whichever route computed them
    r.columns = columns;
    if (table.ndim() != 2 || static_cast<std::size_t>(table.shape(1)) != columns.size() || static_cast<std::size_t>(table.shape(0)) != errors.size())
      throw py::value_error("the table must have a row per error and a column per name");
    r.table.assign(table.data(), table.data() + table.size());
    r.errors = errors;
    return lw::sweep::toCsv(r);
  }, "columns"_a, "table"_a, "errors"_a);
  mod.def("full_factorial", [](const std::vector<std::string>& parameters, const std::vector<std::vector<double>>& values) {
    std::vector<lw::sweep::Axis> axes;
    if (parameters.size() != values.size()) throw py::value_error("one list of values per parameter");
    for (std::size_t k = 0; k < parameters.size(); ++k) axes.push_back({parameters[k], values[k]});
    auto d = lw::sweep::fullFactorial(axes);
    return tableArray(std::move(d.points), parameters.size());
  }, "parameters"_a, "values"_a);
  mod.def("latin_hypercube", [](const std::vector<std::string>& parameters, const std::vector<std::pair<double, double>>& intervals, int samples,
                                std::uint64_t seed) {
    std::vector<lw::sweep::Interval> in;
    if (parameters.size() != intervals.size()) throw py::value_error("one interval per parameter");
    for (std::size_t k = 0; k < parameters.size(); ++k) {
      if (!(intervals[k].first <= intervals[k].second)) throw py::value_error("interval of '" + parameters[k] + "': its low end is above its high end");
      in.push_back({parameters[k], intervals[k].first, intervals[k].second});
    }
    if (samples < 1) throw py::value_error("samples must be at least 1");
    auto d = lw::sweep::latinHypercube(in, samples, seed);
    return tableArray(std::move(d.points), parameters.size());
  }, "parameters"_a, "intervals"_a, "samples"_a, "seed"_a);
}
