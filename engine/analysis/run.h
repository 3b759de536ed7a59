// The one entry point of every analysis (DESIGN.md §2): a spec naming the job (kinematics, a
// dynamics simulation, a sensitivity study) with its settings, run with progress and cancel, into
// Results that hold what that job produces. The CLI's commands, the GUI's panels and the tests
// use the same jobs; this is the door that takes any of them.
#pragma once

#include <atomic>
#include <functional>
#include <variant>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "sensitivity/sensitivity.h"

namespace lw::analysis {

struct AnalysisSpec {
  std::variant<KinematicsSpec, SimulationSpec, sens::SensitivitySpec> job;
};

struct Results {
  std::variant<KinematicsResult, SimulationResult, sens::SensitivityResult> of;
  const Status& status() const;
  /// The rows of a kinematic or dynamic run (null for a sensitivity study).
  const RunTable* table() const;
  RunTable* table();
};

/// Why a mechanism did not resolve: a failed status naming the first error of `d`.
Status unresolved(const Diagnostics& d);

/// Runs `spec` on `m`: a mechanism that does not resolve gives a failed result naming its first
/// error. Kinematics and dynamics name the file's outputs as columns and evaluate its costs
/// (the spec's mechanism is `m` unless it names another).
Results run(const Mechanism& m, AnalysisSpec spec, const std::function<void(double)>& progress = {},
            const std::atomic<bool>* cancel = nullptr);

}  // namespace lw::analysis
