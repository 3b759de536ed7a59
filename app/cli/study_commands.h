// The study commands of linkwright-cli: `sensitivity` (gradients of the costs), `optimize`
// (tuning with NLopt) and `set` (new parameter values, joints closed).
#pragma once

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace lw::cli {

struct SensitivityArgs {
  std::string file, method = "ddm", parameters = "all", costs = "all", out, histories, partials = "ad", integrator = "trapezoidal",
                                   formulation = "matrix-r", analysis = "dynamics", events;
  double tEnd = -1, dt = -1, fdStep = 1e-4, delta = 1e-6, tol = 1e-8;
  bool deltaSweep = false;
  bool referenceKernels = false;
  long checkpointEvery = 0;
  std::set<std::string> given;  // the options given on the command line ("--tol")
};

struct OptimizeArgs {
  std::string file, cost, parameters, algorithm, analysis, out;
  int maxEvals = 0;
  double target = NAN, tEnd = -1, dt = -1;
  bool crankTurns = false;      // add every four-bar loop's Grashof conditions for its input
  double minTransmission = 0;   // degrees: keep every four-bar loop's transmission angle within
  bool writeInfeasible = false; // write the least infeasible design when none meets the constraints
};

int sensitivity(const SensitivityArgs& a);
int optimizeCmd(const OptimizeArgs& a);
int setCmd(const std::string& file, const std::vector<std::string>& assignments, const std::string& out, bool force);

}  // namespace lw::cli
