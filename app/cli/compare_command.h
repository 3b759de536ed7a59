// `linkwright-cli compare`: one model by every formulation that applies (engine/analysis/compare.h).
#pragma once

#include <string>

namespace lw::cli {

struct CompareArgs {
  std::string file, out, costs = "all", parameters = "all";
  double tEnd = -1, dt = -1, tol = 1e-8;
  bool gradients = false;
};

int compareCmd(const CompareArgs& a);

}  // namespace lw::cli
