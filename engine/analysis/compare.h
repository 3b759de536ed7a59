// One model by every formulation that applies (issue 39, `linkwright-cli compare`): the research
// table a user would otherwise assemble by hand — per formulation and integrator the time per
// step, the steps, evaluations and tangents, the energy balance's drift, the constraint
// residuals, the largest distance of its points from the most accurate run's (Matrix R by RK45
// at a tolerance near round-off), and, asked for, each cost's value and gradient beside the
// reference's.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/status.h"
#include "mechanism/mechanism.h"
#include "simulation/simulation_run.h"

namespace lw::analysis {

struct CompareSpec {
  double tEnd = 1;
  double dt = 1e-3;    // the fixed steps, and the rows every formulation is compared at
  double tol = 1e-8;   // the RK45 runs' relative tolerance
  double referenceTol = 1e-11;
  bool gradients = false;  // the costs' gradients (the direct method) where a formulation has them
  std::vector<std::string> costs, parameters;  // empty: all of the file's
};

struct CompareEntry {
  Formulation formulation = Formulation::MatrixR;
  Integrator integrator = Integrator::Trapezoidal;
  Status status;                 // not ok: the formulation does not apply (the reason), or failed
  long steps = 0, evaluations = 0, tangents = 0;
  double seconds = 0;            // wall time of the run
  double energyDrift = 0;        // max |E − E0 − W_applied − W_driver + E_dissipated| over the rows
  double residualPosition = 0, residualVelocity = 0;  // max |Φ|, |Φ̇| over the rows
  double distance = 0;           // max over the rows at the reference's times and the points: |r − r_ref|
  std::vector<double> costs;     // by CompareResult::costs
  Status gradientStatus;         // not ok: no gradient (the reason)
  Eigen::MatrixXd gradient;      // costs × parameters
  double gradientDifference = 0; // max |∂ψ/∂ρ − the reference's|, relative to the reference's largest
  double secondsPerStep() const { return steps > 0 ? seconds / static_cast<double>(steps) : 0.0; }
};

struct CompareResult {
  Status status;  // the reference run's (nothing compared without it)
  CompareEntry reference;  // Matrix R by RK45; where that fails, by the trapezoidal rule at a tenth of dt
  std::string referenceNote;  // why the reference is not RK45's (empty when it is)
  std::vector<CompareEntry> entries;
  std::vector<std::string> costs, parameters;
};

/// Runs `m` by the reference and by every formulation and integrator, each to spec.tEnd.
CompareResult compareFormulations(const Mechanism& m, const CompareSpec& spec, const std::function<void(double)>& progress = {},
                                  const std::atomic<bool>* cancel = nullptr);

/// The table, one line per formulation, and the costs' values and gradients' differences.
std::string compareTable(const CompareResult& r);
/// {"t_end", "dt", "reference": {...}, "formulations": [{"formulation", "integrator", "status", "steps", ...}]}
std::string compareJson(const CompareResult& r, const CompareSpec& spec);

}  // namespace lw::analysis
