#include "compare_command.h"

#include <iostream>

#include "analysis/compare.h"
#include "cli_support.h"

namespace lw::cli {

int compareCmd(const CompareArgs& a) {
  if (outputIsInput(a.out, a.file)) return kUsage;
  if (!outputPlaceExists(a.out)) return kIoError;
  lw::io::LoadResult r;
  std::optional<lw::ResolvedMechanism> res;
  if (const int code = loadResolved(a.file, r, res); code != kOk) return code;
  lw::analysis::CompareSpec spec;
  const lw::RunSpan span = lw::defaultSpan(*r.mechanism, false, a.tEnd);
  spec.tEnd = span.tEnd;
  spec.dt = a.dt > 0 ? a.dt : span.dt;
  spec.tol = a.tol;
  spec.gradients = a.gradients;
  spec.costs = commaList(a.costs);
  spec.parameters = commaList(a.parameters);
  if (unknownNames(*r.mechanism, spec.parameters, spec.costs)) return kUsage;
  if (auto problem = lw::analysis::wholeStepsProblem(spec.tEnd, spec.dt); !problem.empty()) {
    std::cerr << a.file << ": " << problem << "\n";
    return kAnalysisFailed;
  }
  std::cerr << a.file << ": " << spec.tEnd << " s at steps of " << spec.dt << " s by every formulation"
            << (spec.gradients ? ", with the costs' gradients" : "") << "...\n";
  const lw::analysis::CompareResult result = lw::analysis::compareFormulations(*r.mechanism, spec);
  if (!result.status.ok()) {
    std::cerr << a.file << ": the reference run (matrix-r, rk45; then trapezoidal at dt/10) failed: " << result.status.message << "\n";
    return kAnalysisFailed;
  }
  // the table on the terminal; the JSON to -o (or, without -o, the table to standard output)
  if (a.out.empty()) {
    std::cout << lw::analysis::compareTable(result);
    return kOk;
  }
  std::cerr << lw::analysis::compareTable(result);
  return writeText(a.out, lw::analysis::compareJson(result, spec));
}

}  // namespace lw::cli
