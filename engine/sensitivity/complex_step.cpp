#include "sensitivity/complex_step.h"

#include <Eigen/LU>

#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "sensitivity/impact_jump.h"

namespace lw::sens::detail {

Status complexRun(const Study& st, const Recorder& rec, std::size_t parameter, bool rungeKutta, std::vector<double>& gradient) {
  const double eps = 1e-30;
  const std::vector<std::size_t> seeded{parameter};
  const std::vector<Cplx> seeds{Cplx(st.table().values()[parameter], eps)};
  NumbersOn<Cplx> n(st, seeded, seeds);  // not const: switches turn forces on and off
  NumbersOn<Dual> plain(st, {}, {});
  const std::vector<events::GapSource> sources = events::gapSources(st.model.tree);
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
      case Recorder::Event::Kind::Impact: {
        const int c = ev.contacts.front();
        dyn::MatrixROn<Cplx> e;
        if (Status s = dyn::evaluateOn<Cplx>(st.model, n.tree, ev.dofs, t, x, v, ev.z, e); !s.ok()) return s;
        std::vector<Cplx> gaps(events::gapSources(st.model.tree).size());
        events::contactGapsOn<Cplx, Cplx>(st.model.tree, n.tree, e.z.data(), gaps.data());
        Eigen::VectorXd gap, rate;
        events::contactGaps(st.model.tree, e.z.real(), e.zd.real(), gap, rate);
        if (Status s = differentiableImpact(st, ev.contacts, t, rate[c]); !s.ok()) return s;
        // the imaginary part only: the real event time is the run's (the replayed state's gap is
        // round-off of the replay's Newton tolerance, and a real shift would mix it into the
        // derivative parts at second order)
        const Cplx dtau(0.0, -gaps[static_cast<std::size_t>(c)].imag() / rate[c]);
        const Vec<Cplx> xc = x + v * dtau, vc = v + a * dtau;
        events::ImpactOn<Cplx> jump;
        if (events::applySwitches(st.model.tree, sources, ev.contacts, n.tree)) {
          events::applySwitches(st.model.tree, sources, ev.contacts, plain.tree);
          jump.zidPlus = vc;  // the equations of motion switch; the velocities stay
        } else if (Status s = events::impactOn<Cplx>(st.model, n.tree, ev.dofs, t, xc, vc, ev.z, ev.contacts, jump); !s.ok()) {
          return s;
        }
        if (Status s = dyn::evaluateOn<Cplx>(st.model, n.tree, ev.dofs, t, xc, jump.zidPlus, ev.z, e); !s.ok()) return s;
        x = xc - jump.zidPlus * dtau;
        v = jump.zidPlus - e.zidd * dtau;
        if (Status s = addCosts<Cplx>(st, n, ev.dofs, t, x, v, ev.z, costs, &a); !s.ok()) return s;
        costs.eventTimeMoves(dtau);
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
        // Newton matrix I − h²/4 f_x − h/2 f_v at the recorded end, f_x and f_v by forward AD
        // (differences of f lose digits where the reduced mass matrix is ill-conditioned, and the
        // imaginary part then converges slowly)
        Eigen::MatrixXd G = Eigen::MatrixXd::Identity(d, d);
        for (Eigen::Index first = 0; first < 2 * d; first += kLanes) {
          Vec<Dual> xs = ev.to.x.cast<Dual>(), vs = ev.to.v.cast<Dual>();
          for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j) {
            if (j < d) xs[j].g[j - first] = 1;
            else vs[j - d].g[j - first] = 1;
          }
          dyn::MatrixROn<Dual> e;
          if (Status s = dyn::evaluateOn<Dual>(st.model, plain.tree, ev.dofs, ev.to.t, xs, vs, ev.z, e); !s.ok()) return s;
          for (Eigen::Index j = first; j < std::min(2 * d, first + kLanes); ++j)
            for (Eigen::Index i = 0; i < d; ++i) G(i, j % d) -= (j < d ? 0.25 * h * h : 0.5 * h) * e.zidd[i].g[j - first];
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
          // the imaginary parts are eps times the sensitivities: where those are zero (a pendulum's
          // motion does not depend on its mass) the floor is eps times the state's scale
          const bool imagDone = ei <= 1e-13 * std::max(iscale, eps * scale) || (it >= 1 && ei >= 0.5 * lastI);
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

}  // namespace lw::sens::detail
