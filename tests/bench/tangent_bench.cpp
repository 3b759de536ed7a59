// The penalty formulation's tangent J = −∂Q^d/∂[z; ż] (seed 004 §5–6): time per Jacobian by central
// differences, dense forward AD and sparse forward AD (ColPack colouring), on the paper's models
// (spatial four-bar, grid linkages 1×15, 4×15, 7×15). The paper's best: sparse AD 2.5× faster
// than differences on 4×15 and 7×15; dense AD about as fast as differences.
//   build/tests/bench/lw_bench_tangent
#include <benchmark/benchmark.h>

#include <string>

#include "dynamics/force_jacobian.h"
#include "dynamics/matrix_r.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/samples.h"

namespace {

using namespace lw;

struct Model {
  ResolvedMechanism resolved;
  dyn::MatrixRModel model;
  Eigen::VectorXd z, zd;
};

std::shared_ptr<Model> load(const Mechanism& mech) {
  auto m = std::make_shared<Model>();
  Diagnostics d;
  m->resolved = *resolve(mech, d);
  m->model = dyn::compileMatrixR(m->resolved);
  dyn::MatrixRData data(m->model);
  if (!dyn::initialState(m->model, data).ok()) std::abort();
  m->z = data.z;
  m->zd = Eigen::VectorXd::LinSpaced(m->model.tree.nz, 0.5, -0.5) + data.zd;
  return m;
}

void tangent(benchmark::State& state, const std::shared_ptr<Model>& m, dyn::TangentMethod method) {
  dyn::ForceJacobian J(m->model.tree, method);
  Eigen::MatrixXd K, C;
  for (auto _ : state) {
    J.compute(m->z, m->zd, 0.1, K, C);
    benchmark::DoNotOptimize(K.data());
  }
  state.counters["nz"] = m->model.tree.nz;
  state.counters["kernel_passes"] = J.passes();
  if (method == dyn::TangentMethod::SparseAD) state.counters["colours"] = J.colours();
}

}  // namespace

int main(int argc, char** argv) {
  const std::pair<std::string, Mechanism> models[] = {
      {"spatial-four-bar", test::sampleMechanism("spatial-four-bar")}, {"grid-1x15", generate::grid(1, 15)},
      {"grid-4x15", generate::grid(4, 15)}, {"grid-7x15", generate::grid(7, 15)}};
  for (const auto& [name, mech] : models) {
    const auto m = load(mech);
    for (auto method : {dyn::TangentMethod::CentralDifferences, dyn::TangentMethod::DenseAD, dyn::TangentMethod::SparseAD})
      benchmark::RegisterBenchmark(("Tangent/" + name + "/" + dyn::tangentMethodName(method)).c_str(),
                                   [m, method](benchmark::State& s) { tangent(s, m, method); })
          ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
