// libFuzzer harness for the analyses (issue 23): a mechanism file mutated anywhere, including its
// analysis settings and driver functions (t_end, dt, singular functions such as 1/(t - 0.02)),
// run briefly through every stage a CLI user reaches: the over-driven check, kinematics by the
// modular and global methods, and Matrix R and penalty dynamics. Any input must end in results or
// in a status whose message says why; never a crash, a hang, a sanitizer report, or a row that is
// not finite.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "simulation/kinematics_run.h"
#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"

namespace {

void expectSound(const std::vector<std::string>& columns, const std::vector<double>& values, const lw::Status& status) {
  if (!status.ok() && status.message.empty()) std::abort();  // a failure must say why
  for (double v : values)
    if (!std::isfinite(v)) std::abort();  // a row that is not finite is never kept
  if (!columns.empty() && values.size() % columns.size() != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const lw::io::LoadResult r = lw::io::loadMechanismFromString(text);
  if (!r.ok()) return 0;
  lw::Diagnostics ignored;
  const auto m = lw::resolve(*r.mechanism, ignored);
  if (!m || m->bodies.size() > 40) return 0;  // the large generated models: too slow per input
  (void)lw::analysis::overDriven(*m);
  // the file's span and step, bounded to a few hundred rows (what the CLI would refuse or stream
  // is checked in the CLI tests)
  const double tEnd = r.mechanism->analysis.tEnd > 0 ? r.mechanism->analysis.tEnd : 0.1;
  const double dt = r.mechanism->analysis.dt > 0 ? r.mechanism->analysis.dt : tEnd / 50;
  if (!(tEnd / dt <= 300)) return 0;
  for (auto method : {lw::analysis::KinematicsMethod::ModularTD, lw::analysis::KinematicsMethod::GlobalSparse}) {
    lw::analysis::KinematicsSpec spec;
    spec.method = method;
    spec.tEnd = tEnd;
    spec.dt = dt;
    const auto k = lw::analysis::runKinematics(*m, spec);
    expectSound(k.columns, k.values, k.status);
  }
  for (auto formulation : {lw::analysis::Formulation::MatrixR, lw::analysis::Formulation::Penalty}) {
    lw::analysis::SimulationSpec spec;
    spec.formulation = formulation;
    spec.tEnd = std::min(tEnd, 30 * dt);
    spec.dt = dt;
    const auto s = lw::analysis::runSimulation(*m, spec);
    expectSound(s.columns, s.values, s.status);
  }
  return 0;
}
