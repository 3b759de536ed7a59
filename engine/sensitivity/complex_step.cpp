#include "sensitivity/complex_step.h"

namespace lw::sens::detail {

Status complexStepGradient(const Study& st, Formulation& f, const RunRecord& rec, std::size_t parameter, std::vector<double>& gradient,
                           std::vector<double>* eventTimes) {
  using Kind = RunRecord::Item::Kind;
  const double eps = 1e-30;
  if (rec.saved.size() != rec.size())
    return failure(Status::Code::BadRequest, 0, "the complex step needs every point of the run recorded (interval 1)");
  std::unique_ptr<ComplexRun> run = f.complexRun(parameter, eps);
  if (eventTimes) eventTimes->clear();
  analysis::CostAccumulator<Cplx> costs(st.costs);
  std::vector<Cplx> out;
  std::array<std::vector<Cplx>, 4> stages;
  const bool integrals = st.costs.hasType(Cost::Type::Integral);
  for (std::size_t i = 0; i < rec.size(); ++i) {
    const RunRecord::Item it = rec.item(i);
    const RunPoint& p = rec.saved[i].point;
    Cplx dtau(0.0);
    Status s;
    switch (it.kind) {
      case Kind::Start: s = run->start(p); break;
      case Kind::Step: s = run->step(rec.saved[i - 1].point, p); break;
      case Kind::Change: s = run->change(rec.saved[i - 1].point, p); break;
      case Kind::Impact: s = run->impact(rec.saved[i - 1].point, p, rec.impacts[static_cast<std::size_t>(it.impact)], dtau); break;
    }
    if (!s.ok()) return s;
    if (it.kind == Kind::Change) continue;  // the same state: no node
    // RK45's integral costs: the quadrature over the step's stages
    if (it.kind == Kind::Step && integrals && run->stageOutputs(stages))
      costs.rungeKuttaStages({stages[0].data(), stages[1].data(), stages[2].data(), stages[3].data()});
    if (Status o = run->outputs(p.t, out); !o.ok()) return o;
    costs.add(p.t, out.data(), run->parameters());
    if (it.kind == Kind::Impact) {
      costs.eventTimeMoves(dtau);
      if (eventTimes) eventTimes->push_back(dtau.imag() / eps);
    }
  }
  const auto values = costs.values();
  gradient.resize(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) gradient[k] = values[k].imag() / eps;
  return {};
}

}  // namespace lw::sens::detail
