#include "sensitivity/sensitivity.h"

#include <Eigen/LU>
#include <chrono>
#include <cmath>
#include <complex>
#include <memory>
#include <sstream>

#include "sensitivity/adjoint.h"
#include "sensitivity/study.h"

namespace lw::sens {

bool parseMethod(const std::string& s, Method& out) {
  if (s == "ddm" || s == "direct") out = Method::Direct;
  else if (s == "avm" || s == "adjoint") out = Method::Adjoint;
  else if (s == "cs" || s == "complex") out = Method::ComplexStep;
  else if (s == "fd" || s == "differences") out = Method::FiniteDifferences;
  else if (s == "compare") out = Method::Compare;
  else return false;
  return true;
}

const char* toString(Method m) {
  switch (m) {
    case Method::Direct: return "ddm";
    case Method::Adjoint: return "avm";
    case Method::ComplexStep: return "cs";
    case Method::FiniteDifferences: return "fd";
    case Method::Compare: return "compare";
  }
  return "?";
}

namespace {

using namespace detail;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// ---- the costs of a double run (values; finite differences) ----
class CostObserver : public analysis::StepObserver {
 public:
  CostObserver(const Study& st) : st_(st), numbers_(st, {}, {}), costs_(st.costs) {}
  Status start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override {
    return addCosts<double>(st_, numbers_, dofs, s.t, s.x, s.v, z, costs_);
  }
  Status step(const std::vector<dyn::Dof>& dofs, const integ::State&, const integ::State& to, const Eigen::VectorXd& z) override {
    return addCosts<double>(st_, numbers_, dofs, to.t, to.x, to.v, z, costs_);
  }
  Status switched(const std::vector<dyn::Dof>&, const std::vector<dyn::Dof>&, const integ::State&, const Eigen::VectorXd&) override {
    return {};
  }
  std::vector<double> values() const { return costs_.values(); }

 private:
  const Study& st_;
  NumbersOn<double> numbers_;
  analysis::CostAccumulator<double> costs_;
};

// ---- the elements of seed 003's local semi-analytical method ----
// An element is what a field path starts with: a body ("bodies[2]", the ground "ground"), a force,
// a driver, a contact, an initial velocity, the gravity.
struct Element {
  enum class Kind { Body, Force, Driver, Contact, InitialRate, Gravity } kind;
  std::size_t index = 0;  // in MechanismNumbers' lists (bodies: 0 the ground)
  bool operator==(const Element&) const = default;
};

std::vector<Element> elementsOf(const std::vector<std::string>& paths) {
  std::vector<Element> out;
  auto indexAfter = [](const std::string& p, const std::string& list) -> long {
    if (p.rfind(list + "[", 0) != 0) return -1;
    return std::stol(p.substr(list.size() + 1));
  };
  for (const auto& p : paths) {
    Element e{Element::Kind::Gravity, 0};
    long i;
    if (p.rfind("gravity", 0) == 0) e = {Element::Kind::Gravity, 0};
    else if (p.rfind("ground", 0) == 0) e = {Element::Kind::Body, 0};
    else if ((i = indexAfter(p, "bodies")) >= 0) e = {Element::Kind::Body, static_cast<std::size_t>(i) + 1};
    else if ((i = indexAfter(p, "forces")) >= 0) e = {Element::Kind::Force, static_cast<std::size_t>(i)};
    else if ((i = indexAfter(p, "drivers")) >= 0) e = {Element::Kind::Driver, static_cast<std::size_t>(i)};
    else if ((i = indexAfter(p, "contacts")) >= 0) e = {Element::Kind::Contact, static_cast<std::size_t>(i)};
    else if ((i = indexAfter(p, "initial_velocities")) >= 0) e = {Element::Kind::InitialRate, static_cast<std::size_t>(i)};
    else continue;  // outputs, costs, analysis: no numbers of the model
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

void moveElement(const Element& e, const MechanismNumbers<double>& moved, MechanismNumbers<double>& into) {
  switch (e.kind) {
    case Element::Kind::Body: into.bodies[e.index] = moved.bodies[e.index]; break;
    case Element::Kind::Force: into.forces[e.index] = moved.forces[e.index]; break;
    case Element::Kind::Driver: into.drivers[e.index] = moved.drivers[e.index]; break;
    case Element::Kind::Contact: into.contacts[e.index] = moved.contacts[e.index]; break;
    case Element::Kind::InitialRate: into.initialRates[e.index] = moved.initialRates[e.index]; break;
    case Element::Kind::Gravity: into.gravity = moved.gravity; break;
  }
}

// ---- direct differentiation of the discrete trapezoidal steps ----
// Step n → n+1 of size h: x₁ = x̂ + h²/4 a₁, v₁ = v̂ + h/2 a₁ with x̂ = x₀ + h v₀ + h²/4 a₀,
// v̂ = v₀ + h/2 a₀, and a₁ = f(t₁, x₁, v₁; ρ). Differentiated:
//   (I − h²/4 f_x − h/2 f_v) A₁ = f_x X̂ + f_v V̂ + f_ρ
// with X̂, V̂ built from X₀, V₀, A₀ like x̂, v̂. The matrix is the step's Newton matrix at its
// solution (exact here: f_x, f_v by forward AD); the right-hand side is one evaluation of f on
// dual numbers along (X̂, V̂) with the parameters seeded, a chunk of eight parameters per pass.
class DirectObserver : public analysis::StepObserver {
 public:
  DirectObserver(const Study& st, const SensitivitySpec& spec)
      : st_(st), plain_(st, {}, {}), nominal_(st, {}, {}), histories_(spec.histories), partials_(spec.partials),
        rungeKutta_(spec.run.integrator == analysis::Integrator::RK45) {
    if (histories_) {
      columns_.push_back("time");
      for (const auto& o : st.outputs.names) columns_.push_back(o);
      for (const auto& o : st.outputs.names)
        for (std::size_t k : st.parameters) columns_.push_back("d(" + o + ")/d(" + st.table().names()[k] + ")");
    }
    for (const ParameterChunk& c : parameterChunks(st)) chunks_.push_back(std::make_unique<Chunk>(st, c.seeded, c.seeds, c.first));
    if (partials_ != Partials::AutomaticDifferentiation) {
      // the system-level terms again at each parameter moved by δ_k (GSAM), or one element at a
      // time with the others nominal (LSAM)
      const auto uses = fieldsByParameter(*st.mechanism, st.table());
      for (std::size_t k : st.parameters) {
        const double value = st.table().values()[k];
        const double delta = spec.delta * std::max(1.0, std::abs(value));
        deltas_.push_back(delta);
        auto all = std::make_unique<NumbersOn<double>>(st, std::vector<std::size_t>{k}, std::vector<double>{value + delta});
        std::vector<std::unique_ptr<NumbersOn<double>>> sets;
        if (partials_ == Partials::GlobalSemiAnalytical) {
          sets.push_back(std::move(all));
        } else {
          for (const auto& element : elementsOf(uses.at(st.table().names()[k]))) {
            MechanismNumbers<double> mixed = nominal_.tree.mech;
            moveElement(element, all->tree.mech, mixed);
            sets.push_back(std::make_unique<NumbersOn<double>>(all->parameters, dyn::treeNumbers<double>(st.model.tree, std::move(mixed))));
          }
        }
        moved_.push_back(std::move(sets));
      }
    }
  }

  Status start(const dyn::MatrixRModel& m, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override {
    const auto d = static_cast<Eigen::Index>(dofs.size()), p = static_cast<Eigen::Index>(st_.parameters.size());
    X_.setZero(d, p);
    V_.setZero(d, p);
    A_.setZero(d, p);
    if (partials_ != Partials::AutomaticDifferentiation) {
      // the initial state's parameter derivatives by differences of the assembly
      Vec<double> x0, v0;
      if (Status st = dyn::initialStateOn<double>(m, nominal_.tree, dofs, z, x0, v0); !st.ok()) return st;
      for (Eigen::Index k = 0; k < p; ++k)
        for (const auto& set : moved_[static_cast<std::size_t>(k)]) {
          Vec<double> xk, vk;
          if (Status st = dyn::initialStateOn<double>(m, set->tree, dofs, z, xk, vk); !st.ok()) return st;
          X_.col(k) += (xk - x0) / deltas_[static_cast<std::size_t>(k)];
          V_.col(k) += (vk - v0) / deltas_[static_cast<std::size_t>(k)];
        }
    }
    for (auto& c : chunks_) {
      Vec<Dual> x, v;
      if (partials_ == Partials::AutomaticDifferentiation) {
        if (Status st = dyn::initialStateOn<Dual>(m, c->numbers.tree, dofs, z, x, v); !st.ok()) return st;
      } else {
        x = seeded(s.x, X_, c->first);
        v = seeded(s.v, V_, c->first);
      }
      dyn::MatrixROn<Dual> e;
      std::vector<Dual> out;
      if (Status st = along(*c, dofs, s.t, x, v, z, e, &out); !st.ok()) return st;
      c->costs.add(s.t, out.data(), c->numbers.parameters.data());
      store(*c, x, X_);
      store(*c, v, V_);
      store(*c, e.zidd, A_);
      history(*c, out);
    }
    sendHistory(s.t);
    last_ = s;
    return {};
  }

  Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) override {
    const double h = to.t - from.t;
    const auto d = static_cast<Eigen::Index>(dofs.size());
    if (rungeKutta_) {
      // an explicit step: its stages on dual numbers carry the sensitivities (the step's own
      // forward AD, size h held)
      for (auto& c : chunks_) {
        Vec<Dual> x1, v1;
        Status s = rungeKuttaStepOn<Dual>(st_, c->numbers, dofs, from.t, h, seeded(from.x, X_, c->first), seeded(from.v, V_, c->first), z, x1, v1);
        if (!s.ok()) return s;
        store(*c, x1, X_);
        store(*c, v1, V_);
        dyn::MatrixROn<Dual> e;
        std::vector<Dual> out;
        s = along(*c, dofs, to.t, seeded(to.x, X_, c->first), seeded(to.v, V_, c->first), z, e, &out);
        if (!s.ok()) return s;
        store(*c, e.zidd, A_);
        c->costs.add(to.t, out.data(), c->numbers.parameters.data());
        history(*c, out);
      }
      sendHistory(to.t);
      last_ = to;
      return {};
    }
    // the step's Newton matrix at its end: I − h²/4 f_x − h/2 f_v
    Eigen::MatrixXd fx(d, d), fv(d, d);
    for (Eigen::Index first = 0; first < 2 * d; first += kLanes) {
      Vec<Dual> x = seeded(to.x, {}, 0), v = seeded(to.v, {}, 0);
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
        if (j < d) x[j].g[j - first] = 1;
        else v[j - d].g[j - first] = 1;
      }
      dyn::MatrixROn<Dual> e;
      const Status s = dyn::evaluateOn<Dual>(st_.model, plain_.tree, dofs, to.t, x, v, z, e);
      if (!s.ok()) return s;
      for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < d; ++i) (j < d ? fx(i, j) : fv(i, j - d)) = e.zidd[i].g[j - first];
    }
    const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d) - (0.25 * h * h) * fx - (0.5 * h) * fv;
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(G);
    const Eigen::MatrixXd Xh = X_ + h * V_ + (0.25 * h * h) * A_, Vh = V_ + (0.5 * h) * A_;
    for (auto& c : chunks_) {
      // f_x X̂ + f_v V̂ + f_ρ for this chunk's parameters
      dyn::MatrixROn<Dual> e;
      Status s = along(*c, dofs, to.t, seeded(to.x, Xh, c->first), seeded(to.v, Vh, c->first), z, e, nullptr);
      if (!s.ok()) return s;
      Eigen::MatrixXd rhs(d, c->count);
      for (int j = 0; j < c->count; ++j)
        for (Eigen::Index i = 0; i < d; ++i) rhs(i, j) = e.zidd[i].g[j];
      const Eigen::MatrixXd A1 = lu.solve(rhs);
      for (int j = 0; j < c->count; ++j) {
        const Eigen::Index col = c->first + j;
        A_.col(col) = A1.col(j);
        X_.col(col) = Xh.col(col) + (0.25 * h * h) * A1.col(j);
        V_.col(col) = Vh.col(col) + (0.5 * h) * A1.col(j);
      }
      std::vector<Dual> out;
      s = along(*c, dofs, to.t, seeded(to.x, X_, c->first), seeded(to.v, V_, c->first), z, e, &out);
      if (!s.ok()) return s;
      c->costs.add(to.t, out.data(), c->numbers.parameters.data());
      history(*c, out);
    }
    sendHistory(to.t);
    last_ = to;
    return {};
  }

  /// The rows not yet passed on.
  void flush() { analysis::sendRows(histories_, columns_, rows_, sent_); }

  // the same state in other coordinates: its sensitivities through the dependent state
  Status switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                  const Eigen::VectorXd& z) override {
    const auto d = static_cast<Eigen::Index>(after.size()), p = static_cast<Eigen::Index>(st_.parameters.size());
    Eigen::MatrixXd X(d, p), V(d, p), A(d, p);
    for (auto& c : chunks_) {
      dyn::MatrixROn<Dual> e;
      const Status st = along(*c, before, last_.t, seeded(last_.x, X_, c->first), seeded(last_.v, V_, c->first), z, e, nullptr);
      if (!st.ok()) return st;
      Vec<Dual> x, v, a;
      const bool ad = partials_ == Partials::AutomaticDifferentiation;
      dyn::independentOn<Dual>(st_.model, ad ? c->numbers.tree : plain_.tree, after, e.z, e.zd, &e.zdd, x, v, &a);
      if (!ad) {  // the map's own parameter dependence (a point's coordinates in its body) by differences
        const auto zv = values(e.z), zdv = values(e.zd), zddv = values(e.zdd);
        Vec<double> x0, v0, a0;
        dyn::independentOn<double>(st_.model, nominal_.tree, after, zv, zdv, &zddv, x0, v0, &a0);
        for (int j = 0; j < c->count; ++j) {
          const auto k = static_cast<std::size_t>(c->first + j);
          for (const auto& set : moved_[k]) {
            Vec<double> xk, vk, ak;
            dyn::independentOn<double>(st_.model, set->tree, after, zv, zdv, &zddv, xk, vk, &ak);
            for (Eigen::Index i = 0; i < d; ++i) {
              x[i].g[j] += (xk[i] - x0[i]) / deltas_[k];
              v[i].g[j] += (vk[i] - v0[i]) / deltas_[k];
              a[i].g[j] += (ak[i] - a0[i]) / deltas_[k];
            }
          }
        }
      }
      store(*c, x, X);
      store(*c, v, V);
      store(*c, a, A);
    }
    X_ = X;
    V_ = V;
    A_ = A;
    last_ = s;
    return {};
  }

  void finish(Gradient& g) const {
    const std::size_t nc = st_.costs.names.size();
    g.values.assign(nc, 0.0);
    g.gradient.setZero(static_cast<Eigen::Index>(nc), static_cast<Eigen::Index>(st_.parameters.size()));
    for (const auto& c : chunks_) {
      const auto v = c->costs.values();
      for (std::size_t k = 0; k < nc; ++k) {
        g.values[k] = v[k].v;
        for (int j = 0; j < c->count; ++j) g.gradient(static_cast<Eigen::Index>(k), c->first + j) = v[k].g[j];
      }
    }
    g.steps = deltas_;
  }

 private:
  struct Chunk {
    NumbersOn<Dual> numbers;
    analysis::CostAccumulator<Dual> costs;
    Eigen::Index first;
    int count;
    Chunk(const Study& st, const std::vector<std::size_t>& seeded, const std::vector<Dual>& seeds, std::size_t f)
        : numbers(st, seeded, seeds), costs(st.costs), first(static_cast<Eigen::Index>(f)), count(static_cast<int>(seeded.size())) {}
  };
  static Eigen::VectorXd values(const Vec<Dual>& x) {
    Eigen::VectorXd v(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) v[i] = x[i].v;
    return v;
  }
  // f and the outputs along the chunk's directions: the state's by AD, the parameters' by AD
  // (the chunk's seeded numbers) or, for GSAM, by differences of the system-level evaluation
  // at the frozen state
  Status along(const Chunk& c, const std::vector<dyn::Dof>& dofs, double t, const Vec<Dual>& x, const Vec<Dual>& v, const Eigen::VectorXd& z,
               dyn::MatrixROn<Dual>& e, std::vector<Dual>* outputs) const {
    const bool ad = partials_ == Partials::AutomaticDifferentiation;
    if (Status s = dyn::evaluateOn<Dual>(st_.model, ad ? c.numbers.tree : plain_.tree, dofs, t, x, v, z, e); !s.ok()) return s;
    std::vector<double> explicitPart;  // GSAM: the outputs' own parameter derivatives, lane by lane
    if (!ad) {
      const Eigen::VectorXd xv = values(x), vv = values(v);
      dyn::MatrixROn<double> e0;
      if (Status s = dyn::evaluateOn<double>(st_.model, nominal_.tree, dofs, t, xv, vv, z, e0); !s.ok()) return s;
      const std::size_t no = st_.outputs.names.size();
      std::vector<double> o0(no), ok(no);
      if (outputs) {
        analysis::outputsOn<double>(st_.outputs, st_.model.tree, nominal_.tree, e0.z, e0.zd, e0.zdd, t, o0.data());
        explicitPart.assign(no * kLanes, 0.0);
      }
      for (int j = 0; j < c.count; ++j) {
        const auto k = static_cast<std::size_t>(c.first + j);
        const double inv = 1 / deltas_[k];
        for (const auto& set : moved_[k]) {  // GSAM: one set; LSAM: an element each, summed
          dyn::MatrixROn<double> ek;
          if (Status s = dyn::evaluateOn<double>(st_.model, set->tree, dofs, t, xv, vv, z, ek); !s.ok()) return s;
          for (Eigen::Index i = 0; i < e.z.size(); ++i) {
            e.z[i].g[j] += (ek.z[i] - e0.z[i]) * inv;
            e.zd[i].g[j] += (ek.zd[i] - e0.zd[i]) * inv;
            e.zdd[i].g[j] += (ek.zdd[i] - e0.zdd[i]) * inv;
          }
          for (Eigen::Index i = 0; i < e.zidd.size(); ++i) e.zidd[i].g[j] += (ek.zidd[i] - e0.zidd[i]) * inv;
          if (outputs) {
            analysis::outputsOn<double>(st_.outputs, st_.model.tree, set->tree, e0.z, e0.zd, e0.zdd, t, ok.data());
            for (std::size_t i = 0; i < no; ++i) explicitPart[i * kLanes + static_cast<std::size_t>(j)] += (ok[i] - o0[i]) * inv;
          }
        }
      }
    }
    if (!outputs) return {};
    // through the state (every lane, now that z, ż, z̈ carry them), plus GSAM's explicit part
    outputs->resize(st_.outputs.names.size());
    analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, ad ? c.numbers.tree : plain_.tree, e.z, e.zd, e.zdd, t, outputs->data());
    if (!ad)
      for (std::size_t i = 0; i < outputs->size(); ++i)
        for (int j = 0; j < kLanes; ++j) (*outputs)[i].g[j] += explicitPart[i * kLanes + static_cast<std::size_t>(j)];
    return {};
  }
  // x with lanes j = columns first + j of D (D empty: no derivatives)
  static Vec<Dual> seeded(const Eigen::VectorXd& x, const Eigen::MatrixXd& D, Eigen::Index first) {
    Vec<Dual> y(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      y[i] = Dual(x[i]);
      for (int j = 0; j < kLanes && D.size() && first + j < D.cols(); ++j) y[i].g[j] = D(i, first + j);
    }
    return y;
  }
  // a row of the histories: this chunk's lanes of every output
  void history(const Chunk& c, const std::vector<Dual>& out) {
    if (!histories_) return;
    const std::size_t no = out.size(), p = st_.parameters.size();
    row_.resize(1 + no + no * p);
    for (std::size_t i = 0; i < no; ++i) {
      row_[1 + i] = out[i].v;
      for (int j = 0; j < c.count; ++j) row_[1 + no + i * p + static_cast<std::size_t>(c.first + j)] = out[i].g[j];
    }
  }
  void sendHistory(double t) {
    if (!histories_) return;
    if (st_.parameters.empty()) row_.resize(1 + st_.outputs.names.size());
    row_[0] = t;
    rows_.insert(rows_.end(), row_.begin(), row_.end());
    if (rows_.size() >= 256 * columns_.size()) flush();
  }
  static void store(const Chunk& c, const Vec<Dual>& x, Eigen::MatrixXd& D) {
    for (int j = 0; j < c.count; ++j)
      for (Eigen::Index i = 0; i < x.size(); ++i) D(i, c.first + j) = x[i].g[j];
  }
  const Study& st_;
  NumbersOn<Dual> plain_;     // no parameter seeded: f_x and f_v
  NumbersOn<double> nominal_; // GSAM: the system at the parameters' values
  // GSAM: the numbers with parameter k moved by δ_k; LSAM: the same one element at a time
  std::vector<std::vector<std::unique_ptr<NumbersOn<double>>>> moved_;
  std::vector<double> deltas_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  Eigen::MatrixXd X_, V_, A_;  // d × p: ∂zⁱ/∂ρ, ∂żⁱ/∂ρ, ∂z̈ⁱ/∂ρ
  integ::State last_;
  analysis::RowSink histories_;
  Partials partials_;
  bool rungeKutta_ = false;
  std::vector<std::string> columns_;
  std::vector<double> row_, rows_;
  std::size_t sent_ = 0;
};

// ---- the run recorded, for the complex step to follow step by step ----
class Recorder : public analysis::StepObserver {
 public:
  struct Event {
    enum class Kind { Start, Step, Switch } kind;
    std::vector<dyn::Dof> dofs, before;
    integ::State from, to;  // Start and Switch: `to`
    Eigen::VectorXd z;
  };
  std::vector<Event> events;
  Status start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Start, dofs, {}, {}, s, z});
    return {};
  }
  Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Step, dofs, {}, from, to, z});
    return {};
  }
  Status switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                  const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Switch, after, before, {}, s, z});
    return {};
  }
};

// One parameter's complex-step run over the recorded steps: the trapezoidal step solved again on
// complex numbers (a₁ = f(x̂ + h²/4 a₁, v̂ + h/2 a₁) by Newton with the real Newton matrix of central
// differences of f: any matrix close to it converges, to the same answer)
Status complexRun(const Study& st, const Recorder& rec, std::size_t parameter, bool rungeKutta, std::vector<double>& gradient) {
  const double eps = 1e-30;
  const std::vector<std::size_t> seeded{parameter};
  const std::vector<Cplx> seeds{Cplx(st.table().values()[parameter], eps)};
  const NumbersOn<Cplx> n(st, seeded, seeds);
  const NumbersOn<double> real(st, {}, {});
  analysis::CostAccumulator<Cplx> costs(st.costs);
  Vec<Cplx> x, v, a;
  double t = 0;
  for (const auto& ev : rec.events) {
    switch (ev.kind) {
      case Recorder::Event::Kind::Start: {
        Status s = dyn::initialStateOn<Cplx>(st.model, n.tree, ev.dofs, ev.z, x, v);
        if (!s.ok()) return s;
        s = addCosts<Cplx>(st, n, ev.dofs, 0.0, x, v, ev.z, costs, &a);
        if (!s.ok()) return s;
        break;
      }
      case Recorder::Event::Kind::Switch: {
        dyn::MatrixROn<Cplx> e;
        const Status s = dyn::evaluateOn<Cplx>(st.model, n.tree, ev.before, t, x, v, ev.z, e);
        if (!s.ok()) return s;
        dyn::independentOn<Cplx>(st.model, n.tree, ev.dofs, e.z, e.zd, &e.zdd, x, v, &a);
        break;
      }
      case Recorder::Event::Kind::Step: {
        const double h = ev.to.t - ev.from.t;
        const auto d = x.size();
        if (rungeKutta && d > 0) {  // the explicit step again, on complex numbers
          Vec<Cplx> x1, v1;
          if (Status s = rungeKuttaStepOn<Cplx>(st, n, ev.dofs, ev.from.t, h, x, v, ev.z, x1, v1); !s.ok()) return s;
          x = x1;
          v = v1;
          t = ev.to.t;
          if (Status s = addCosts<Cplx>(st, n, ev.dofs, t, x, v, ev.z, costs, &a); !s.ok()) return s;
          break;
        }
        if (d == 0) {  // a driven mechanism: its motion is the drivers', nothing to integrate
          t = ev.to.t;
          if (Status s = addCosts<Cplx>(st, n, ev.dofs, t, x, v, ev.z, costs); !s.ok()) return s;
          break;
        }
        const Vec<Cplx> xh = x + h * v + (0.25 * h * h) * a, vh = v + (0.5 * h) * a;
        // Newton matrix I − h²/4 f_x − h/2 f_v by central differences of the real f at the
        // recorded end
        Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d);
        auto f = [&](const Eigen::VectorXd& xs, const Eigen::VectorXd& vs, Eigen::VectorXd& out) {
          dyn::MatrixROn<double> e;
          const Status s = dyn::evaluateOn<double>(st.model, real.tree, ev.dofs, ev.to.t, xs, vs, ev.z, e);
          out = e.zidd;
          return s;
        };
        Eigen::VectorXd fp, fm;
        for (Eigen::Index j = 0; j < d; ++j) {
          const double dx = 1e-7 * std::max(1.0, std::abs(ev.to.x[j])), dv = 1e-7 * std::max(1.0, std::abs(ev.to.v[j]));
          Eigen::VectorXd xs = ev.to.x, vs = ev.to.v;
          xs[j] += dx;
          if (Status s = f(xs, vs, fp); !s.ok()) return s;
          xs[j] -= 2 * dx;
          if (Status s = f(xs, vs, fm); !s.ok()) return s;
          G.col(j) -= (0.25 * h * h) * (fp - fm) / (2 * dx);
          xs[j] = ev.to.x[j];
          vs[j] += dv;
          if (Status s = f(xs, vs, fp); !s.ok()) return s;
          vs[j] -= 2 * dv;
          if (Status s = f(xs, vs, fm); !s.ok()) return s;
          G.col(j) -= (0.5 * h) * (fp - fm) / (2 * dv);
        }
        const Eigen::PartialPivLU<Eigen::MatrixXd> lu(G);
        Vec<Cplx> a1(d);
        for (Eigen::Index i = 0; i < d; ++i) a1[i] = Cplx(ev.to.a[i], a[i].imag());
        bool converged = false;
        double lastR = 0, lastI = 0;
        dyn::MatrixROn<Cplx> e;
        for (int it = 0; it < 50 && !converged; ++it) {
          const Status s = dyn::evaluateOn<Cplx>(st.model, n.tree, ev.dofs, ev.to.t, Vec<Cplx>(xh + (0.25 * h * h) * a1),
                                                 Vec<Cplx>(vh + (0.5 * h) * a1), ev.z, e);
          if (!s.ok()) return s;
          const Vec<Cplx> r = a1 - e.zidd;
          const Eigen::VectorXd dr = lu.solve(Eigen::VectorXd(r.real())), di = lu.solve(Eigen::VectorXd(r.imag()));
          for (Eigen::Index i = 0; i < d; ++i) a1[i] -= Cplx(dr[i], di[i]);
          const double scale = std::max(1.0, a1.real().cwiseAbs().maxCoeff()), iscale = a1.imag().cwiseAbs().maxCoeff();
          // converged when each part's correction is at its round-off: tiny, or no longer falling (the
          // real part starts at the double run's solution; the imaginary part converges linearly)
          const double er = dr.cwiseAbs().maxCoeff(), ei = di.cwiseAbs().maxCoeff();
          const bool realDone = er <= 1e-12 * scale || (it >= 1 && er >= 0.5 * lastR && er <= 1e-9 * scale);
          const bool imagDone = ei <= 1e-13 * iscale || (it >= 1 && ei >= 0.5 * lastI);
          converged = it >= 1 && realDone && imagDone;
          lastR = er;
          lastI = ei;
        }
        if (!converged)
          return failure(Status::Code::NotConverged, ev.to.t, "the complex-step run's step did not converge at t = " + shortNumber(ev.to.t));
        x = xh + (0.25 * h * h) * a1;
        v = vh + (0.5 * h) * a1;
        a = a1;
        t = ev.to.t;
        const Status s = addCosts<Cplx>(st, n, ev.dofs, t, x, v, ev.z, costs);
        if (!s.ok()) return s;
        break;
      }
    }
  }
  const auto values = costs.values();
  gradient.resize(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) gradient[k] = values[k].imag() / eps;
  return {};
}

analysis::SimulationSpec runSpec(const SensitivitySpec& spec, analysis::StepObserver* observer) {
  analysis::SimulationSpec s = spec.run;
  s.observer = observer;
  s.outputDt = s.tEnd;  // the rows are not the point: keep two
  s.rows = {};
  return s;
}

}  // namespace

SensitivityResult runSensitivity(const Mechanism& m, const SensitivitySpec& spec, const std::function<void(double)>& progress,
                                 const std::atomic<bool>* cancel) {
  SensitivityResult res;
  Study st;
  st.mechanism = &m;
  {
    Diagnostics d;
    auto r = resolve(m, d);
    if (!r) {
      res.status = failure(Status::Code::BadRequest, 0, "the mechanism has errors: " + (d.empty() ? std::string("?") : d.front().path + ": " + d.front().message));
      return res;
    }
    st.resolved = std::move(*r);
  }
  const bool rungeKutta = spec.run.integrator == analysis::Integrator::RK45;
  if (spec.run.formulation != analysis::Formulation::MatrixR) {
    res.status = failure(Status::Code::BadRequest, 0,
                         "sensitivities are computed for the Matrix R formulation so far (the penalty formulation's come next): "
                         "use --formulation matrix-r");
    return res;
  }
  if (rungeKutta && (spec.method == Method::Adjoint || spec.partials != Partials::AutomaticDifferentiation)) {
    res.status = failure(Status::Code::BadRequest, 0,
                         spec.method == Method::Adjoint ? "the adjoint of RK45's steps is not implemented yet: use the trapezoidal rule, or ddm, cs or fd with RK45"
                                                        : "the semi-analytical partials serve the trapezoidal rule so far: use --partials ad with RK45");
    return res;
  }
  const auto& table = *st.resolved.parameters;
  if (spec.parameters.empty()) {
    for (std::size_t k = 0; k < table.names().size(); ++k) st.parameters.push_back(k);
  } else {
    for (const auto& name : spec.parameters) {
      const int k = table.find(name);
      if (k < 0) {
        std::string known;
        for (const auto& n : table.names()) known += (known.empty() ? "" : ", ") + n;
        res.status = failure(Status::Code::BadRequest, 0, "unknown parameter '" + name + "' (the file's parameters: " + (known.empty() ? "none" : known) + ")");
        return res;
      }
      st.parameters.push_back(static_cast<std::size_t>(k));
    }
  }
  if (st.parameters.empty()) {
    res.status = failure(Status::Code::BadRequest, 0, "the file has no design parameters: add some under \"parameters\" and use them in fields");
    return res;
  }
  for (std::size_t k : st.parameters) res.parameters.push_back(table.names()[k]);
  // a parameter no field uses: its gradient is exactly zero
  {
    const auto uses = fieldsByParameter(m, table);
    for (std::size_t k : st.parameters)
      if (uses.at(table.names()[k]).empty())
        res.notes.push_back("nothing depends on parameter '" + table.names()[k] + "': its gradient is exactly 0");
  }
  st.model = dyn::compileMatrixR(st.resolved);
  if (!st.model.ok()) {
    res.status = failure(Status::Code::NotDriven, 0, st.model.error);
    return res;
  }
  st.outputs = analysis::compileOutputs(m, st.resolved, st.model.tree);
  if (auto problem = analysis::compileCosts(m, st.resolved, st.outputs, spec.costs, st.costs); !problem.empty()) {
    res.status = failure(Status::Code::BadRequest, 0, problem);
    return res;
  }
  res.costs = st.costs.names;
  const std::vector<Method> methods = spec.method == Method::Compare
                                          ? (rungeKutta ? std::vector<Method>{Method::Direct, Method::ComplexStep, Method::FiniteDifferences}
                                                        : std::vector<Method>{Method::Direct, Method::Adjoint, Method::ComplexStep, Method::FiniteDifferences})
                                          : std::vector<Method>{spec.method};
  const double share = 1.0 / static_cast<double>(methods.size());
  for (std::size_t mi = 0; mi < methods.size(); ++mi) {
    const auto started = std::chrono::steady_clock::now();
    auto part = [&](double f) {
      if (progress) progress(share * (static_cast<double>(mi) + f));
    };
    Gradient g;
    g.method = methods[mi];
    const std::size_t nc = st.costs.names.size(), np = st.parameters.size();
    g.gradient.setZero(static_cast<Eigen::Index>(nc), static_cast<Eigen::Index>(np));
    auto run = [&](const Mechanism& mech, const ResolvedMechanism& r, analysis::StepObserver* o) {
      const auto result = analysis::runSimulation(r, runSpec(spec, o), {}, cancel);
      (void)mech;
      return result;
    };
    if (g.method == Method::Direct) {
      DirectObserver o(st, spec);
      const auto r = analysis::runSimulation(st.resolved, runSpec(spec, &o), part, cancel);
      o.flush();
      res.status = r.status;
      res.steps = r.steps;
      for (const auto& w : r.warnings) res.notes.push_back(w);
      if (!res.status.ok()) return res;
      o.finish(g);
    } else if (g.method == Method::Adjoint) {
      const long steps = std::max(1L, std::lround(spec.run.tEnd / spec.run.dt));
      const long every = spec.checkpointEvery > 0 ? spec.checkpointEvery : std::max(1L, std::lround(std::sqrt(static_cast<double>(steps))));
      AdjointRecorder rec(every);
      const auto r = analysis::runSimulation(st.resolved, runSpec(spec, &rec), {}, cancel);
      res.status = r.status;
      res.steps = r.steps;
      if (!res.status.ok()) return res;
      AdjointStats stats;
      res.status = adjointGradient(st, rec, g.values, g.gradient, stats);
      if (!res.status.ok()) return res;
      g.recordBytes = stats.recordBytes;
      g.segmentBytes = stats.segmentBytes;
      g.recomputedSteps = stats.recomputedSteps;
      g.checkpointEvery = every;
    } else if (g.method == Method::ComplexStep) {
      Recorder rec;
      CostObserver values(st);
      const auto r = analysis::runSimulation(st.resolved, runSpec(spec, &rec), {}, cancel);
      res.status = r.status;
      res.steps = r.steps;
      if (!res.status.ok()) return res;
      for (std::size_t k = 0; k < np; ++k) {
        std::vector<double> column;
        res.status = complexRun(st, rec, st.parameters[k], spec.run.integrator == analysis::Integrator::RK45, column);
        if (!res.status.ok()) return res;
        for (std::size_t c = 0; c < nc; ++c) g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)) = column[c];
        part(static_cast<double>(k + 1) / static_cast<double>(np));
        if (cancel && cancel->load()) {
          res.status = failure(Status::Code::Cancelled, 0, "cancelled");
          return res;
        }
      }
      // the values from the complex run's real parts equal the double run's; take the double one
      const auto r2 = run(m, st.resolved, &values);
      g.values = values.values();
    } else {
      CostObserver values(st);
      const auto r = run(m, st.resolved, &values);
      res.status = r.status;
      res.steps = r.steps;
      if (!res.status.ok()) return res;
      g.values = values.values();
      const double scale = st.resolved.lengthScale();
      for (std::size_t k = 0; k < np; ++k) {
        const std::size_t p = st.parameters[k];
        const double value = table.values()[p];
        const double delta = spec.relativeStep * std::max(std::abs(value), 1e-3 * scale);
        g.steps.push_back(delta);
        std::vector<double> psi[2];
        for (int side = 0; side < 2; ++side) {
          Mechanism moved = m;
          moved.parameters[p].value = Number(value + (side ? -delta : delta));
          Diagnostics d;
          auto r2 = resolve(moved, d);
          if (!r2) {
            res.status = failure(Status::Code::BadRequest, 0, "parameter '" + table.names()[p] + "' moved by " + shortNumber(delta) + " makes the mechanism invalid");
            return res;
          }
          Study moved_st;
          moved_st.mechanism = &moved;
          moved_st.resolved = std::move(*r2);
          moved_st.model = dyn::compileMatrixR(moved_st.resolved);
          moved_st.outputs = analysis::compileOutputs(moved, moved_st.resolved, moved_st.model.tree);
          analysis::compileCosts(moved, moved_st.resolved, moved_st.outputs, spec.costs, moved_st.costs);
          CostObserver o(moved_st);
          const auto rr = analysis::runSimulation(moved_st.resolved, runSpec(spec, &o), {}, cancel);
          if (!rr.status.ok()) {
            res.status = rr.status;
            res.status.message = "with parameter '" + table.names()[p] + "' moved by " + shortNumber(delta) + ": " + rr.status.message;
            return res;
          }
          psi[side] = o.values();
        }
        for (std::size_t c = 0; c < nc; ++c)
          g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k)) = (psi[0][c] - psi[1][c]) / (2 * delta);
        part(static_cast<double>(k + 1) / static_cast<double>(np));
      }
    }
    g.seconds = seconds(started);
    res.methods.push_back(std::move(g));
  }
  if (progress) progress(1.0);
  return res;
}

std::string toJson(const SensitivityResult& r) {
  std::ostringstream os;
  os.precision(17);
  auto gradientJson = [&](const Gradient& g) {
    os << "{\"method\": \"" << toString(g.method) << "\", \"costs\": {";
    for (std::size_t c = 0; c < r.costs.size(); ++c) {
      os << (c ? ", " : "") << "\"" << r.costs[c] << "\": {\"value\": " << (c < g.values.size() ? g.values[c] : 0.0) << ", \"gradient\": {";
      for (std::size_t k = 0; k < r.parameters.size(); ++k)
        os << (k ? ", " : "") << "\"" << r.parameters[k] << "\": " << g.gradient(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k));
      os << "}}";
    }
    os << "}, \"seconds\": " << g.seconds;
    if (g.method == Method::Adjoint)
      os << ", \"checkpoint_every\": " << g.checkpointEvery << ", \"record_bytes\": " << g.recordBytes << ", \"segment_bytes\": " << g.segmentBytes
         << ", \"recomputed_steps\": " << g.recomputedSteps;
    if (!g.steps.empty()) {
      os << ", \"steps\": {";
      for (std::size_t k = 0; k < g.steps.size(); ++k) os << (k ? ", " : "") << "\"" << r.parameters[k] << "\": " << g.steps[k];
      os << "}";
    }
    os << "}";
  };
  if (r.methods.size() == 1) {
    gradientJson(r.methods.front());
  } else {
    os << "{\"methods\": [";
    for (std::size_t i = 0; i < r.methods.size(); ++i) {
      if (i) os << ", ";
      gradientJson(r.methods[i]);
    }
    os << "]}";
  }
  os << "\n";
  return os.str();
}

}  // namespace lw::sens
