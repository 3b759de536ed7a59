// Seed 002 benchmarks: the scalable planar four-bar chain (Table 3) and the scalable spatial
// crank-slider (Tables 4 and 5) with the four methods, one benchmark iteration = one time step
// (Δt = 0.005 s). After Google Benchmark has run, the results are printed in the layout of the
// paper's tables beside its figures (its times are for 24 000 steps, so ours are scaled to that),
// then one line of JSON for machines.
//   build/tests/bench/lw_bench_kinematics [--benchmark_filter=...] [--benchmark_min_time=0.2]
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "kinematics/modular_solver.h"
#include "mechanism/generators.h"

namespace {

using namespace lw;

enum Method { kGlob, kGlobSp, kModTd, kMod3ot };
const char* kMethodNames[] = {"GLOB", "GLOB_SP", "MOD_TD", "MOD_3OT"};

// one mechanism, compiled, with the state of each method
struct Case {
  Mechanism mechanism;
  ResolvedMechanism resolved;
  kin::NaturalModel natural;
  kin::ModularModel modular;
  std::unique_ptr<kin::GlobalData> global;
  std::unique_ptr<kin::ModularData> mod;
  double t = 0;
};

std::map<std::string, std::unique_ptr<Case>> g_cases;

Case& caseFor(bool spatial, int units, double rate) {
  const std::string key = (spatial ? "S" : "P") + std::to_string(units) + "@" + std::to_string(rate);
  auto& c = g_cases[key];
  if (!c) {
    c = std::make_unique<Case>();
    c->mechanism = spatial ? generate::crankSlider3d(units) : generate::fourBarChain(units);
    c->mechanism.drivers[0].function = Number::expr(std::to_string(rate) + "*t");
    Diagnostics d;
    c->resolved = *resolve(c->mechanism, d);
    c->natural = kin::compileNaturalModel(c->resolved);
    kin::GlobalData g(c->natural);
    if (!kin::assemble(c->natural, g, 0).ok()) std::abort();
    c->modular = kin::compileModularModel(c->natural, kin::decompose(c->natural), g.q);
    if (!c->modular.ok()) std::abort();
  }
  return *c;
}

// results collected for the tables: microseconds per step and per stage
struct Row {
  double usPerStep[4] = {0, 0, 0, 0};
  double stageUs[4][3] = {};
  int nEq = 0;
};
std::map<std::string, Row> g_rows;

void runMethod(benchmark::State& state, bool spatial, int units, double rate, Method method) {
  Case& c = caseFor(spatial, units, rate);
  const double dt = 0.005;
  kin::KinematicsOptions o;
  o.solver = method == kGlob ? kin::LinearSolverKind::Dense : kin::LinearSolverKind::Sparse;
  kin::GlobalData g(c.natural, o);
  if (!kin::assemble(c.natural, g, 0).ok()) state.SkipWithError("cannot assemble");
  kin::ModularData md(c.modular, o);
  md.acceleration = method == kMod3ot ? kin::AccelerationMethod::ThirdOrderTensor : kin::AccelerationMethod::TD;
  kin::startModular(c.modular, md, g.q, g.qd, g.qdd, 0);
  double t = 0, stage[3] = {0, 0, 0};
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    t += dt;
    lw::Status s;
    if (method == kGlob || method == kGlobSp) {
      const auto t0 = Clock::now();
      s = kin::solvePositions(c.natural, g, t);
      const auto t1 = Clock::now();
      if (s.ok()) s = kin::solveVelocities(c.natural, g);
      const auto t2 = Clock::now();
      if (s.ok()) s = kin::solveAccelerations(c.natural, g);
      const auto t3 = Clock::now();
      stage[0] += std::chrono::duration<double>(t1 - t0).count();
      stage[1] += std::chrono::duration<double>(t2 - t1).count();
      stage[2] += std::chrono::duration<double>(t3 - t2).count();
    } else {
      s = kin::modularStep(c.modular, md, t);
    }
    if (!s.ok()) {
      state.SkipWithError(s.message.c_str());
      break;
    }
  }
  double n = static_cast<double>(state.iterations());
  if (method == kModTd || method == kMod3ot) {
    // the stage split (Table 5) from a separate, untimed run: the clock calls would distort the total
    md.profile = true;
    const int extra = 200;
    for (int k = 0; k < extra; ++k) kin::modularStep(c.modular, md, t += dt);
    for (int k = 0; k < 3; ++k) stage[k] = md.stageSeconds[k];
    n = extra;
  }
  state.counters["nEq"] = c.natural.nq;
  const std::string key = (spatial ? "S" : "P") + std::to_string(units) + "@" + std::to_string(rate);
  Row& row = g_rows[key];
  row.nEq = c.natural.nq;
  for (int k = 0; k < 3; ++k) row.stageUs[method][k] = n > 0 ? 1e6 * stage[k] / n : 0;
}

// after each run, Google Benchmark's own per-iteration time goes into the table row
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      const std::string name = r.benchmark_name();
      // name: <P|S><units>@<rate>/<METHOD>
      const auto slash = name.find('/');
      if (slash == std::string::npos || r.error_occurred) continue;
      const std::string key = name.substr(0, slash), method = name.substr(slash + 1);
      for (int m = 0; m < 4; ++m)
        if (method == kMethodNames[m]) g_rows[key].usPerStep[m] = r.GetAdjustedRealTime();  // in the benchmarks' unit, µs
    }
  }
};

const int kPlanarUnits[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 1000};
const int kSpatialUnits[] = {1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
const double kSpatialRates[] = {34.9e-5, 34.9e-2, 34.9};

// the paper's figures (seconds for 24 000 steps), shared/reference 002 §4
const std::map<int, std::array<double, 4>> kTable3 = {
    {22, {0.746, 0.976, 0.016, 0.035}},   {42, {2.171, 1.823, 0.049, 0.112}},  {62, {4.198, 2.509, 0.087, 0.205}},
    {82, {7.059, 3.124, 0.119, 0.269}},   {102, {11.036, 4.502, 0.156, 0.348}}, {122, {16.696, 5.108, 0.180, 0.416}},
    {142, {24.694, 6.021, 0.205, 0.475}}, {162, {33.221, 6.814, 0.252, 0.563}}, {182, {44.466, 7.981, 0.284, 0.642}},
    {202, {57.139, 8.715, 0.317, 0.718}}};
// nEq -> {GLOB_SP s, SP/TD, SP/3OT} at θ̇ = 34.9
const std::map<int, std::array<double, 3>> kTable4 = {
    {14, {0.717, 2.706, 0.280}},   {86, {4.632, 2.856, 0.274}},   {166, {9.655, 3.207, 0.298}},
    {246, {13.977, 3.200, 0.277}}, {326, {19.623, 3.364, 0.296}}, {406, {24.616, 3.287, 0.298}},
    {486, {29.873, 3.520, 0.302}}, {566, {37.080, 3.548, 0.319}}, {646, {43.303, 3.691, 0.339}},
    {726, {48.343, 3.672, 0.326}}, {806, {54.629, 3.706, 0.339}}};

std::string key(char kind, int units, double rate) {
  return std::string(1, kind) + std::to_string(units) + "@" + std::to_string(rate);
}

void printTables() {
  const double N = 24000;  // the paper's step count
  std::printf("\n=== Table 3: planar four-bar chain, s per 24 000 steps (ours | paper) ===\n");
  std::printf("%5s | %15s | %15s | %15s | %15s | %13s | %13s | %13s | %8s\n", "nEq", "GLOB", "GLOB_SP", "MOD_TD",
              "MOD_3OT", "SP/TD", "SP/3OT", "3OT/TD", "TD us/dyad");
  double minSpTd = 1e300, maxSpTd = 0, worstPerDyad = 0, drag100 = 0;
  for (int k : kPlanarUnits) {
    const Row& r = g_rows[key('P', k, 34.96)];
    if (r.nEq == 0) continue;
    auto s = [&](int m) { return r.usPerStep[m] * 1e-6 * N; };
    const auto paper = kTable3.count(r.nEq) ? kTable3.at(r.nEq) : std::array<double, 4>{0, 0, 0, 0};
    auto cell = [&](double ours, double theirs) {
      char b[64];
      if (theirs > 0) std::snprintf(b, sizeof b, "%6.3f | %6.3f", ours, theirs);
      else std::snprintf(b, sizeof b, "%6.3f |    -  ", ours);
      return std::string(b);
    };
    const double spTd = s(1) / s(2), sp3 = s(1) / s(3), td3 = s(3) / s(2);
    const double perDyad = r.usPerStep[2] / k;
    if (k <= 100) {
      minSpTd = std::min(minSpTd, spTd);
      maxSpTd = std::max(maxSpTd, spTd);
    }
    worstPerDyad = std::max(worstPerDyad, perDyad);
    if (k == 100) drag100 = r.usPerStep[2];
    std::printf("%5d | %15s | %15s | %15s | %15s | %13s | %13s | %13s | %8.4f\n", r.nEq,
                r.usPerStep[0] > 0 ? cell(s(0), paper[0]).c_str() : "       -       ", cell(s(1), paper[1]).c_str(),
                cell(s(2), paper[2]).c_str(), cell(s(3), paper[3]).c_str(),
                cell(spTd, paper[2] > 0 ? paper[1] / paper[2] : 0).c_str(),
                cell(sp3, paper[3] > 0 ? paper[1] / paper[3] : 0).c_str(),
                cell(td3, paper[2] > 0 ? paper[3] / paper[2] : 0).c_str(), perDyad);
  }
  std::printf("\n=== Table 4: spatial crank-slider, GLOB_SP s per 24 000 steps and speed-ups (ours | paper at 34.9 rad/s) ===\n");
  std::printf("(our natural coordinates are leaner than the paper's: our nEq | the paper's nEq = 8 units + 6)\n");
  std::printf("%11s | %9s | %21s | %21s | %15s\n", "nEq", "rate", "GLOB_SP", "SP/TD", "SP/3OT");
  double minSpTd3 = 1e300, maxSpTd3 = 0;
  for (double rate : kSpatialRates)
    for (int k : kSpatialUnits) {
      const Row& r = g_rows[key('S', k, rate)];
      if (r.nEq == 0) continue;
      auto s = [&](int m) { return r.usPerStep[m] * 1e-6 * N; };
      const int paperNEq = 8 * k + 6;
      const auto paper = rate == 34.9 && kTable4.count(paperNEq) ? kTable4.at(paperNEq) : std::array<double, 3>{0, 0, 0};
      const double spTd = s(1) / s(2);
      if (rate == 34.9) {
        minSpTd3 = std::min(minSpTd3, spTd);
        maxSpTd3 = std::max(maxSpTd3, spTd);
      }
      std::printf("%4d | %4d | %9.3g | %8.3f | %8.3f | %8.3f | %8.3f | %6.3f | %6.3f\n", r.nEq, paperNEq, rate, s(1),
                  paper[0], spTd, paper[1], r.usPerStep[3] > 0 ? s(1) / s(3) : 0, paper[2]);
    }
  std::printf("\n=== Table 5: spatial, 100 units (paper nEq = 806), 34.9 rad/s: stages in s per 24 000 steps (ours | paper) ===\n");
  std::printf("(closed-form groups solve velocity and acceleration together: MOD_TD counts both under Acceleration)\n");
  const Row& r5 = g_rows[key('S', 100, 34.9)];
  const double paper5[3][4] = {{54.629, 42.431, 9.640, 1.451}, {14.742, 13.931, 0.249, 0.499}, {161.045, 13.853, 9.781, 130.170}};
  std::printf("%12s | %17s | %17s | %17s\n", "", "GLOB_SP", "MOD_TD", "MOD_3OT");
  const char* stageNames[] = {"Total", "Position", "Velocity", "Acceleration"};
  for (int st = 0; st < 4; ++st) {
    std::printf("%12s", stageNames[st]);
    for (int m = 1; m < 4; ++m) {
      const double ours = st == 0 ? r5.usPerStep[m] * 1e-6 * N : r5.stageUs[m][st - 1] * 1e-6 * N;
      std::printf(" | %7.3f | %7.3f", ours, paper5[m - 1][st]);
    }
    std::printf("\n");
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const Row& big = g_rows[key('P', 1000, 34.96)];
  std::printf("\n{\"benchmark\": \"seed002-kinematics\", \"planar_sp_over_td\": [%.2f, %.2f], \"spatial_sp_over_td\": [%.2f, %.2f], "
              "\"td_us_per_dyad_step_max\": %.4f, \"td_us_per_step_100_dyads\": %.2f, \"nEq2002_td_us_per_step\": %.2f, "
              "\"nEq2002_sp_us_per_step\": %.2f, \"peak_rss_mb\": %.1f}\n",
              minSpTd, maxSpTd, minSpTd3, maxSpTd3, worstPerDyad, drag100, big.usPerStep[2], big.usPerStep[1],
              static_cast<double>(u.ru_maxrss) / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  for (int k : kPlanarUnits)
    for (int m = 0; m < 4; ++m) {
      if (m == kGlob && k > 100) continue;  // dense LU at nEq = 2002 is hopeless (and was not run in the paper)
      benchmark::RegisterBenchmark((key('P', k, 34.96) + "/" + kMethodNames[m]).c_str(),
                                   [k, m](benchmark::State& s) { runMethod(s, false, k, 34.96, static_cast<Method>(m)); })
          ->Unit(benchmark::kMicrosecond);
    }
  for (double rate : kSpatialRates)
    for (int k : kSpatialUnits)
      for (int m = 1; m < 4; ++m)
        benchmark::RegisterBenchmark((key('S', k, rate) + "/" + kMethodNames[m]).c_str(),
                                     [k, m, rate](benchmark::State& s) { runMethod(s, true, k, rate, static_cast<Method>(m)); })
            ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printTables();
  benchmark::Shutdown();
  return 0;
}
