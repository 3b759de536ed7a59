#include "sensitivity/adjoint.h"

#include "sensitivity/cost_integrand.h"

namespace lw::sens::detail {
namespace {

std::size_t bytesOf(const RunPoint& p) { return sizeof(double) * static_cast<std::size_t>(p.x.size() + p.v.size() + p.a.size() + p.aux.size()); }
std::size_t bytesOf(const PointPartials& n) {
  return sizeof(double) * static_cast<std::size_t>(n.Ox.size() + n.Ov.size() + n.Oa.size() + n.Op.size() + n.Ax.size() + n.Av.size() + n.Ap.size());
}

}  // namespace

Status adjointGradient(const Study& st, Formulation& f, const RunRecord& rec, const CostSites* sites, std::vector<double>& values,
                       Eigen::MatrixXd& gradient, AdjointStats& stats) {
  using Kind = RunRecord::Item::Kind;
  const auto nc = static_cast<Eigen::Index>(st.costs.names.size()), p = static_cast<Eigen::Index>(st.parameters.size());
  stats.recordBytes = rec.bytes();
  const auto& saved = rec.saved;
  const RunPoint& start = saved.front().point;
  f.restartSwitches();
  PointPartials n0;
  if (Status s = f.partials(start, true, n0); !s.ok()) return s;
  CostIntegrand integrand(st);
  integrand.setInitialOutputs(n0.outputs);
  const TargetTerms targets(st, integrand, sites);
  StateColumns l;  // the adjoints (coordinates × costs), sized at the last node
  Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(nc, p), beta = Eigen::MatrixXd::Zero(nc, n0.outputs.size());
  Eigen::VectorXd value = Eigen::VectorXd::Zero(nc);
  // a node's costs (weighted integrands, extremes, targets' terms): λ += gᵀ O, ∂ψ/∂ρ += g O_ρ +
  // g_ρ, β += g_init
  // `deferred`: the outputs' parameter term left to the step before the node (its weights there),
  // which takes it in its own product
  const bool rungeKutta = f.rungeKuttaQuadrature(), integrals = st.costs.hasType(Cost::Type::Integral);
  auto addNode = [&](const PointPartials& n, std::size_t item, double t, Eigen::Index d, Eigen::MatrixXd* deferred = nullptr) {
    const NodeCostTerms c = nodeCosts(st, integrand, targets, sites, rec.nodeSpan(item), rec.nodeOf(item), t, n.outputs, rungeKutta);
    value += c.g;
    if (l.x.rows() != d || l.x.cols() != nc) l.x = l.v = l.a = Eigen::MatrixXd::Zero(d, nc);
    if (n.Ox.cols()) {
      l.x += (c.gOut * n.Ox).transpose();
      l.v += (c.gOut * n.Ov).transpose();
    }
    if (n.Oa.size()) l.a += (c.gOut * n.Oa).transpose();
    if (deferred) *deferred = c.gOut.transpose();
    else n.addParameterTerms({}, c.gOut.transpose(), grad);
    grad += c.gPar;
    beta += c.gInit;
  };
  // the switch states at item `begin`: the start's, with every impact up to it applied
  auto switchesAt = [&](std::size_t begin) {
    f.restartSwitches();
    for (const auto& [item, impact] : rec.impactItems())
      if (item <= begin) f.applySwitches(rec.impacts[impact]);
  };
  // segments between saved points, last first: taken again forward and linearised, then swept
  // backward
  for (std::size_t seg = saved.size(); seg-- > 0;) {
    const std::size_t begin = saved[seg].item;
    const std::size_t end = seg + 1 < saved.size() ? saved[seg + 1].item : rec.size() - 1;
    if (end <= begin) continue;
    switchesAt(begin);
    std::vector<RunPoint> points(end - begin + 1);
    std::vector<LinearisedItem> items(end - begin);
    points[0] = saved[seg].point;
    std::size_t bytes = bytesOf(points[0]);
    for (std::size_t i = begin + 1; i <= end; ++i) {
      const RunRecord::Item it = rec.item(i);
      const RunPoint& a = points[i - begin - 1];
      RunPoint& b = points[i - begin];
      LinearisedItem& lin = items[i - begin - 1];
      Status s;
      if (it.kind == Kind::Change) {
        s = f.change(a, it.coords, b, &lin.change);
      } else if (it.kind == Kind::Impact) {
        b = saved[seg + 1].point;  // an impact ends a segment: the point after it is saved
        s = lineariseImpact(f, a, b, rec.impacts[static_cast<std::size_t>(it.impact)], lin);
      } else {
        if (i == end && seg + 1 < saved.size()) {
          b = saved[seg + 1].point;
        } else {
          s = f.replay(a, it.t1, b);
          ++stats.recomputedSteps;
        }
        if (s.ok()) s = lineariseStep(f, a, b, lin);
      }
      if (!s.ok()) return s;
      bytes += bytesOf(b) + bytesOf(lin.end);
    }
    stats.segmentBytes = std::max(stats.segmentBytes, bytes);
    for (std::size_t i = end; i > begin; --i) {
      const RunRecord::Item it = rec.item(i);
      const LinearisedItem& lin = items[i - begin - 1];
      const RunPoint& b = points[i - begin];
      if (it.kind == Kind::Change) {
        // (x, v, a) in the new set = S_x x + S_v v + S_ρ, transposed
        const CoordinateChange& m = lin.change;
        Eigen::MatrixXd L(3 * l.x.rows(), nc);
        L << l.x, l.v, l.a;
        grad += L.transpose() * m.Sp;
        l.x = m.Sx.transpose() * L;
        l.v = m.Sv.transpose() * L;
        l.a = Eigen::MatrixXd::Zero(l.x.rows(), nc);
        continue;
      }
      // a step whose own parameter terms are its end's products takes the end's outputs' in the
      // same product
      const bool joint = it.kind == Kind::Step && lin.step && lin.end.products && lin.step->endProducts() == lin.end.products.get();
      Eigen::MatrixXd endOutputs;
      addNode(lin.end, i, b.t, b.x.size(), joint ? &endOutputs : nullptr);
      if (it.kind == Kind::Impact) {
        // a⁺ = A(x, v⁺; ρ) folded into x, v⁺, then the jump transposed: with
        // s = −Δvᵀλx + wᵀλv − Δg per cost (Δg the integrands' change: integral costs, Theorem 5),
        // λx⁻ = λx + h_xᵀλv + c_x s, λv⁻ = h_vᵀλv, ∂ψ/∂ρ += λvᵀ h_ρ + s c_ρ
        const PointPartials& n = lin.end;
        l.x += n.Ax.transpose() * l.a;
        l.v += n.Av.transpose() * l.a;
        n.addParameterTerms(l.a, {}, grad);
        Eigen::VectorXd gBefore, gAfter;
        Eigen::MatrixXd gOut, gInit, gPar;
        integrand(b.t, lin.outputsBefore, gBefore, gOut, gInit, gPar);
        integrand(b.t, n.outputs, gAfter, gOut, gInit, gPar);
        Eigen::VectorXd dg = gAfter - gBefore;
        for (Eigen::Index k = 0; k < dg.size(); ++k)
          if (st.costs.types[static_cast<std::size_t>(k)] != Cost::Type::Integral) dg[k] = 0;
        const ImpactJump& J = lin.jump;
        const Eigen::RowVectorXd sk = -J.dv.transpose() * l.x + J.w.transpose() * l.v - dg.transpose();
        grad += l.v.transpose() * J.hp + sk.transpose() * J.cp;
        const Eigen::MatrixXd lxBefore = l.x + J.hx.transpose() * l.v + J.cx * sk;
        l.v = J.hv.transpose() * l.v;
        l.x = lxBefore;
        l.a = Eigen::MatrixXd::Zero(l.x.rows(), nc);
        // the impact (a segment's last item) applied its switches when linearised: the items
        // before it, whose parameter products read the numbers now, take the segment's own
        switchesAt(begin);
        continue;
      }
      if (joint) {
        lin.step->reverseWithEndOutputs(l, grad, endOutputs);
      } else if (const auto stages = integrals ? lin.step->stageOutputs() : std::vector<StepTangent::StageOutput>{}; stages.size() == 4) {
        // RK45's quadrature of the integral costs: their terms at the step's stages
        const double h = b.t - points[i - begin - 1].t;
        std::vector<Eigen::MatrixXd> wO(4);
        for (std::size_t k = 0; k < 4; ++k) {
          const NodeCostTerms c = stageCosts(st, integrand, k, h, stages[k].t, *stages[k].outputs);
          value += c.g;
          grad += c.gPar;
          beta += c.gInit;
          wO[k] = c.gOut.transpose();
        }
        lin.step->reverseWithStageOutputs(l, grad, wO);
      } else {
        lin.step->reverse(l, grad);
      }
    }
  }
  // the start: its own cost, then the initial sensitivities and the initial values' derivatives
  addNode(n0, 0, start.t, start.x.size());
  StateColumns S0;
  if (Status s = f.initial(start, S0); !s.ok()) return s;
  accelerationsFrom(n0, S0);
  grad += l.x.transpose() * S0.x + l.v.transpose() * S0.v + l.a.transpose() * S0.a;
  grad += beta * n0.outputsAlong(S0);
  gradient = grad;
  values.assign(value.data(), value.data() + value.size());
  return {};
}

}  // namespace lw::sens::detail
