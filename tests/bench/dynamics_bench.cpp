// Forward dynamics per sample, formulation and integrator: time per step and real-time factor
// (simulated seconds per wall second). One benchmark iteration = one simulation of t_end.
//   build/tests/bench/lw_bench_dynamics [--benchmark_filter=grid]
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <string>

#include "simulation/simulation_run.h"
#include "dynamics/matrix_r.h"
#include "integrators/integrators.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/samples.h"

namespace {

using namespace lw;

void simulate(benchmark::State& state, const Mechanism& mech, analysis::Integrator integ, double tEnd, double dt,
              analysis::Formulation formulation = analysis::Formulation::MatrixR,
              dyn::TangentMethod tangent = dyn::TangentMethod::SparseAD, double outputDt = 0) {
  Diagnostics d;
  const auto res = resolve(mech, d);
  analysis::SimulationSpec spec;
  spec.formulation = formulation;
  spec.tangent = tangent;
  spec.integrator = integ;
  spec.tEnd = tEnd;
  spec.dt = dt;
  spec.tol = 1e-8;
  spec.outputDt = outputDt;
  analysis::SimulationResult r;
  for (auto _ : state) {
    r = analysis::runSimulation(*res, spec);
    if (!r.status.ok()) state.SkipWithError(r.status.message.c_str());
  }
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["us_per_step"] = r.steps ? 1e6 * r.wallSeconds / static_cast<double>(r.steps) : 0;
  state.counters["real_time_factor"] = r.wallSeconds > 0 ? tEnd / r.wallSeconds : 0;
  state.counters["evaluations"] = static_cast<double>(r.evaluations);
  state.counters["tangents"] = static_cast<double>(r.tangents);
  state.counters["dof_switches"] = r.dofSwitches;
}

long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// 10^6 Matrix R trapezoidal steps of one model without storing results: the engine's memory must
// stay flat (peak RSS after 10^5 and after 10^6 steps)
void flatMemory(benchmark::State& state, const Mechanism& mech) {
  Diagnostics d;
  const auto res = resolve(mech, d);
  const dyn::MatrixRModel m = dyn::compileMatrixR(*res);
  for (auto _ : state) {
    dyn::MatrixRData data(m);
    if (!dyn::initialState(m, data).ok()) state.SkipWithError("no initial state");
    struct System : integ::SecondOrderSystem {
      const dyn::MatrixRModel* m;
      dyn::MatrixRData* d;
      lw::Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
        const lw::Status s = dyn::evaluate(*m, *d, t, x, v);
        if (s.ok()) a = d->zidd;
        return s;
      }
    } sys;
    sys.m = &m;
    sys.d = &data;
    integ::State s{0.0, data.zi, data.zid, data.zidd};
    integ::Trapezoidal trap(static_cast<int>(data.dofs.size()));
    long after1e5 = 0;
    for (long k = 1; k <= 1000000; ++k) {
      if (!trap.step(sys, s, 1e-3).ok()) {
        state.SkipWithError("step failed");
        break;
      }
      if (k == 100000) after1e5 = peakRssKb();
    }
    state.counters["peak_rss_kb_after_1e5_steps"] = static_cast<double>(after1e5);
    state.counters["peak_rss_kb_after_1e6_steps"] = static_cast<double>(peakRssKb());
  }
}

// the stages of one Matrix R evaluation at the initial state, each timed alone (µs per call):
// where the time of a step goes on the large models
void evaluationParts(benchmark::State& state, const Mechanism& mech) {
  Diagnostics diag;
  const auto res = resolve(mech, diag);
  const dyn::MatrixRModel m = dyn::compileMatrixR(*res);
  dyn::MatrixRData d(m);
  if (!dyn::initialState(m, d).ok()) state.SkipWithError("no initial state");
  auto timed = [&](const char* name, int reps, auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k) f();
    state.counters[name] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
  };
  Eigen::VectorXd phi, phiT, c;
  Eigen::MatrixXd Md, Mbar;
  std::vector<double> blocks;
  Eigen::VectorXd Qd, Mda;
  const Eigen::MatrixXd Rt = d.R.transpose();
  for (auto _ : state) {
    timed("evaluate", 50, [&] { (void)dyn::evaluate(m, d, d.t, d.zi, d.zid); });
    timed("chooseDofs", 5, [&] { (void)dyn::chooseDofs(m, d); (void)dyn::evaluate(m, d, d.t, d.zi, d.zid); });
    timed("compileMatrixR", 5, [&] { (void)dyn::compileMatrixR(*res); });
    dyn::RecursiveData kd;
    timed("loopConstraints", 200, [&] { dyn::loopConstraints(m.tree, kd, d.z, d.t, phi); });
    timed("loopJacobianBlocks", 200, [&] { dyn::loopJacobianBlocks(m.tree, kd, d.z, d.t, blocks, &m.selected); });
    timed("loopRates", 200, [&] { dyn::loopRates(m.tree, kd, d.z, d.zd, d.t, phiT, c); });
    timed("reducedMass", 200, [&] { dyn::reducedMass(m.tree, kd, d.z, Rt, d.a, Mbar, Mda); });
    timed("massAndForces", 200, [&] { dyn::massAndForces(m.tree, d.z, d.zd, d.t, Md, Qd); });
  }
  state.counters["nz"] = m.tree.nz;
  state.counters["loop_rows"] = m.tree.nrows;
  state.counters["loop_rows_used"] = static_cast<double>(m.rows.size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::pair<std::string, double> samples[] = {
      {"five-bar", 1.0}, {"four-bar-free", 1.0}, {"spatial-four-bar", 1.0}, {"spatial-four-bar-swing", 1.0},
      {"ten-bar-chain", 1.0}, {"rssr", 1.0}, {"buggy", 1.0}, {"grid-1x15", 0.5}};
  for (const auto& [name, tEnd] : samples) {
    const Mechanism m = test::sampleMechanism(name);
    benchmark::RegisterBenchmark(("MatrixR/trapezoidal/" + name).c_str(), [m, tEnd = tEnd](benchmark::State& s) {
      simulate(s, m, analysis::Integrator::Trapezoidal, tEnd, 1e-3);
    })->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("MatrixR/rk45/" + name).c_str(), [m, tEnd = tEnd](benchmark::State& s) {
      simulate(s, m, analysis::Integrator::RK45, tEnd, 1e-2);
    })->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (int cols : {4, 7}) {
    const Mechanism m = generate::grid(cols, 15);
    benchmark::RegisterBenchmark(("MatrixR/trapezoidal/grid-" + std::to_string(cols) + "x15").c_str(),
                                 [m](benchmark::State& s) { simulate(s, m, analysis::Integrator::Trapezoidal, 0.5, 1e-3); })
        ->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  // the same steps storing a row every 10 ms: the integration alone (a stored row of a grid holds
  // every point's position and velocity and every pose, a fifth of a step's time on the 7x15 grid)
  for (int cols : {1, 4, 7}) {
    const Mechanism m = generate::grid(cols, 15);
    benchmark::RegisterBenchmark(("MatrixR/trapezoidal-rows-every-10ms/grid-" + std::to_string(cols) + "x15").c_str(),
                                 [m](benchmark::State& s) {
                                   simulate(s, m, analysis::Integrator::Trapezoidal, 0.5, 1e-3, analysis::Formulation::MatrixR,
                                            dyn::TangentMethod::SparseAD, 1e-2);
                                 })
        ->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (int cols : {1, 4, 7})
    benchmark::RegisterBenchmark(("MatrixR/evaluation-parts/grid-" + std::to_string(cols) + "x15").c_str(),
                                 [m = generate::grid(cols, 15)](benchmark::State& s) { evaluationParts(s, m); })
        ->Iterations(1)->Unit(benchmark::kMillisecond);
  // the grids at seed 004's longer step (it tested 1, 10 and 20 ms): 3 s, through the singular position
  for (int cols : {1, 4, 7}) {
    const Mechanism m = generate::grid(cols, 15);
    for (auto f : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty})
      benchmark::RegisterBenchmark((std::string(f == analysis::Formulation::MatrixR ? "MatrixR" : "Penalty") + "/trapezoidal-10ms/grid-" +
                                    std::to_string(cols) + "x15").c_str(),
                                   [m, f](benchmark::State& s) { simulate(s, m, analysis::Integrator::Trapezoidal, 3.0, 1e-2, f); })
          ->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  // the penalty formulation (seed 004), trapezoidal h = 1 ms, with each tangent
  for (const auto& [name, tEnd] : samples) {
    const Mechanism m = test::sampleMechanism(name);
    benchmark::RegisterBenchmark(("Penalty/sparse-ad/" + name).c_str(), [m, tEnd = tEnd](benchmark::State& s) {
      simulate(s, m, analysis::Integrator::Trapezoidal, tEnd, 1e-3, analysis::Formulation::Penalty);
    })->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (int cols : {1, 4, 7}) {
    const Mechanism m = generate::grid(cols, 15);
    for (auto t : {dyn::TangentMethod::CentralDifferences, dyn::TangentMethod::DenseAD, dyn::TangentMethod::SparseAD})
      benchmark::RegisterBenchmark(("Penalty/" + std::string(dyn::tangentMethodName(t)) + "/grid-" + std::to_string(cols) + "x15").c_str(),
                                   [m, t](benchmark::State& s) {
                                     simulate(s, m, analysis::Integrator::Trapezoidal, 0.1, 1e-3, analysis::Formulation::Penalty, t);
                                   })
          ->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  {
    const Mechanism m = test::sampleMechanism("four-bar-free");
    benchmark::RegisterBenchmark("FlatMemory/MatrixR/trapezoidal/four-bar-free/1e6-steps", [m](benchmark::State& s) { flatMemory(s, m); })
        ->Iterations(1)->Unit(benchmark::kSecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
