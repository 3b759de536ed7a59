// `linkwright-cli sweep`: costs and gradients over a design of experiments (engine/sweep).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace lw::cli {

struct SweepArgs {
  std::string file, out, design = "full", costs = "all", parameters = "all", analysis, formulation = "matrix-r",
                         integrator = "trapezoidal", scheduler;
  std::vector<std::string> vary;  // NAME=LO:HI:N (or NAME=LO:HI with --design lhs)
  int samples = 0, jobs = 0;
  std::uint64_t seed = 1;
  bool gradients = false;
  double tEnd = -1, dt = -1, tol = 1e-8;
  std::set<std::string> given;  // the options given on the command line
};

int sweepCmd(const SweepArgs& a);

}  // namespace lw::cli
