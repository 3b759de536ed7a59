#include "sensitivity/direct.h"

namespace lw::sens::detail {
namespace {

class DirectObserver final : public DirectMethod {
 public:
  DirectObserver(const Study& st, Formulation& f, const SensitivitySpec& spec, std::vector<double> steps)
      : st_(st), f_(f), chunks_(dualChunks(st)), histories_(st, spec.histories), eventTimeTerms_(spec.eventTimeTerms), steps_(std::move(steps)) {}

  Status start(const RunPoint& p) override {
    f_.restartSwitches();
    if (Status s = f_.initial(p, S_); !s.ok()) return s;
    Eigen::VectorXd outputs;
    Eigen::MatrixXd along;
    if (Status s = f_.pointAlong(p, S_, outputs, along); !s.ok()) return s;
    node(p.t, outputs, along);
    return {};
  }

  Status step(const RunPoint& a, const RunPoint& b, const StagePoints*) override {
    Eigen::VectorXd outputs;
    Eigen::MatrixXd along;
    StageOutputs stages;  // RK45's integral costs: the quadrature's stages along S
    if (Status s = f_.stepAlong(a, b, S_, outputs, along, integrals_ ? &stages : nullptr); !s.ok()) return s;
    node(b.t, outputs, along, nullptr, stages.set ? &stages : nullptr);
    return {};
  }

  // the same state in other coordinates: its sensitivities through the change
  Status changed(const RunPoint& a, const RunPoint& b) override {
    RunPoint mapped;
    CoordinateChange m;
    if (Status s = f_.change(a, b.coords, mapped, &m); !s.ok()) return s;
    Eigen::MatrixXd T = m.Sp;
    if (S_.x.rows()) T += m.Sx * S_.x + m.Sv * S_.v;
    const auto d = b.x.size();
    S_.x = T.topRows(d);
    S_.v = T.middleRows(d, d);
    S_.a = T.bottomRows(d);
    return {};
  }

  // an impact: the jump of the sensitivities (impact_jump.h), the state after it as a node of its
  // own (the histories' second row at the event time), the costs' jump
  Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts) override {
    ImpactJump J;
    if (Status s = f_.jump(before, after, contacts, J); !s.ok()) return s;
    f_.applySwitches(contacts);  // from here on
    if (!eventTimeTerms_) J.dropEventTime();
    const Eigen::RowVectorXd dt = J.eventTime(S_.x);
    ImpactSensitivity seen;
    seen.eventTime.assign(dt.data(), dt.data() + dt.size());
    seen.coordinates = f_.coordinateNames(after.coords);
    seen.positionJump = -S_.x;
    seen.velocityJump = -S_.v;
    J.apply(S_.x, S_.v);
    seen.positionJump += S_.x;
    seen.velocityJump += S_.v;
    impacts_.push_back(std::move(seen));
    Eigen::VectorXd outputs;
    Eigen::MatrixXd along;
    if (Status s = f_.pointAlong(after, S_, outputs, along); !s.ok()) return s;
    node(after.t, outputs, along, &dt);
    return {};
  }

  void flush() override { histories_.flush(); }
  const std::vector<ImpactSensitivity>& impacts() const override { return impacts_; }
  void finish(Gradient& g) const override {
    costsOfChunks(st_, chunks_, g.values, g.gradient);
    g.steps = steps_;
  }

 private:
  // a node: the outputs and their derivatives along the sensitivities, into every chunk's costs
  // (on dual numbers, its parameters in its lanes) and the histories' row; at an impact the
  // integrals' jump with the event time (dt: dt_e/dρ); after an RK45 step its stages' outputs
  // (the integral costs' quadrature)
  void node(double t, const Eigen::VectorXd& outputs, const Eigen::MatrixXd& D, const Eigen::RowVectorXd* dt = nullptr,
            const StageOutputs* stages = nullptr) {
    const auto no = outputs.size();
    std::vector<Dual>& out = out_;
    out.resize(static_cast<std::size_t>(no));
    std::array<std::vector<Dual>, 4>& atStages = atStages_;
    auto onLanes = [&](const DualChunk& c, const Eigen::VectorXd& values, const Eigen::MatrixXd& along, std::vector<Dual>& r) {
      r.resize(static_cast<std::size_t>(no));
      for (Eigen::Index k = 0; k < no; ++k) {
        Dual& o = r[static_cast<std::size_t>(k)];
        o = Dual(values[k]);
        for (int j = 0; j < c.count; ++j) o.g[j] = along(k, c.first + j);
      }
    };
    for (auto& c : chunks_) {
      onLanes(*c, outputs, D, out);
      if (stages) {
        for (std::size_t i = 0; i < 4; ++i) onLanes(*c, stages->outputs[i], stages->along[i], atStages[i]);
        c->costs.rungeKuttaStages({atStages[0].data(), atStages[1].data(), atStages[2].data(), atStages[3].data()});
      }
      c->costs.add(t, out.data(), c->numbers.parameters.data());
      if (dt) {
        Dual moves(0.0);
        for (int j = 0; j < c->count; ++j) moves.g[j] = (*dt)[c->first + j];
        c->costs.eventTimeMoves(moves);
      }
      histories_.set(*c, out);
    }
    histories_.send(t);
  }

  const Study& st_;
  Formulation& f_;
  std::vector<std::unique_ptr<DualChunk>> chunks_;
  StateColumns S_;  // ∂(x, v, a)/∂ρ (coordinates × chosen parameters)
  HistoryRows histories_;
  bool eventTimeTerms_ = true;
  bool integrals_ = st_.costs.hasType(Cost::Type::Integral);
  std::vector<Dual> out_;                   // node's buffers, kept between nodes
  std::array<std::vector<Dual>, 4> atStages_;
  std::vector<double> steps_;  // the semi-analytical partials' δ per parameter
  std::vector<ImpactSensitivity> impacts_;
};

}  // namespace

std::unique_ptr<DirectMethod> directMethod(const Study& st, Formulation& f, const SensitivitySpec& spec, std::vector<double> steps) {
  return std::make_unique<DirectObserver>(st, f, spec, std::move(steps));
}

}  // namespace lw::sens::detail
