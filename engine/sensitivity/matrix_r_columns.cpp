// MatrixRColumns (matrix_r_columns.h): the Matrix R tangent's columns at a point of a run.
#include "sensitivity/matrix_r_columns.h"

#include <algorithm>

#include "outputs/outputs.h"
#include "sensitivity/parameter_products.h"

namespace lw::sens::detail {
namespace {
// the lanes' passes `lanes` columns take, eight a pass
Eigen::Index passes(std::size_t lanes) { return static_cast<Eigen::Index>((lanes + kLanes - 1) / kLanes); }
}  // namespace

MatrixRColumns::MatrixRColumns(const Study& st, FormulationNumbers& numbers) : st_(st), n_(numbers) {}

Status MatrixRColumns::runPipeline(double t, int coords, const std::vector<dyn::Dof>& dofs, const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                                 const Eigen::VectorXd& zStart, dyn::MatrixROn<double>& e) {
  const auto c = static_cast<std::size_t>(coords);
  if (pointData_.size() <= c) pointData_.resize(c + 1);
  if (!pointData_[c]) {
    pointData_[c] = std::make_unique<dyn::MatrixRData>(st_.model, &n_.real().tree);
    pointData_[c]->dofs = dofs;
    pointData_[c]->dofsAreTheCoordinates = dyn::coordinatesAreTheDofs(st_.model, pointData_[c]->dofs);
  }
  dyn::MatrixRData& d = *pointData_[c];
  lastAt_.valid = false;  // the tangent may read this pipeline's factors: set it again
  dyn::restoreState(d, t, zStart, d.zd.size() == zStart.size() ? d.zd : Eigen::VectorXd::Zero(zStart.size()));
  if (Status s = dyn::evaluate(st_.model, d, t, x, v); !s.ok()) return s;
  e.z = d.z;
  e.zd = d.zd;
  e.zdd = d.zdd;
  e.zidd = d.zidd;
  e.R = d.R;
  e.Mbar = d.Mbar;
  return {};
}

Status MatrixRColumns::at(const RunPoint& p, const std::vector<dyn::Dof>& dofs, Eigen::VectorXd* outputs, Eigen::VectorXd* f) {
  // set at this very point already, nothing run since (a caller that tried the products first)
  LastAt& last = lastAt_;
  const bool again = last.valid && last.t == p.t && last.coords == p.coords && last.x == p.x && last.v == p.v && last.aux == p.aux;
  if (!again) {
    if (Status s = runPipeline(p.t, p.coords, dofs, p.x, p.v, p.aux, last.e); !s.ok()) return s;
    // the pipeline just run at p: its factorisations serve the tangent
    const dyn::MatrixRData* evaluated = pointData_[static_cast<std::size_t>(p.coords)].get();
    if (Status s = tangent_.at(st_.model, n_.real().tree, dofs, p.t, last.e, evaluated); !s.ok()) return s;
    last = {true, p.t, p.coords, p.x, p.v, p.aux, std::move(last.e)};
    tangentPoint_ = {p.t, last.e.z, last.e.zd, last.e.zdd, false};
  }
  const dyn::MatrixROn<double>& e = last.e;
  if (outputs) {
    outputs->resize(static_cast<Eigen::Index>(st_.outputs.names.size()));
    analysis::outputsOn<double>(st_.outputs, st_.model.tree, n_.real().tree, e.z, e.zd, e.zdd, p.t, outputs->data());
  }
  if (f) *f = e.zidd;
  return {};
}

void MatrixRColumns::alongLanes(const dyn::TreeNumbers<Dual>& nums, bool seeded, double t, const Vec<Dual>& dx, const Vec<Dual>& dv, Vec<Dual>& r) {
  const auto d = dx.size(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
  const std::size_t np = 3 * st_.outputs.points.size();
  lanes_.pr.resize(np);
  lanes_.pv.resize(np);
  lanes_.pa.resize(np);
  lanes_.out.resize(static_cast<std::size_t>(no));
  Vec<Dual>&zidd = lanes_.zidd, &z = lanes_.z, &zd = lanes_.zd, &zdd = lanes_.zdd;
  tangent_.along(nums, seeded, dx, dv, zidd, z, zd, zdd, st_.outputs.points, lanes_.pr.data(), lanes_.pv.data(), lanes_.pa.data());
  r.resize(d + no);
  r.head(d) = zidd;
  analysis::outputsFromPoints<Dual>(st_.outputs, st_.model.tree, nums, z, zd, zdd, t, lanes_.pr.data(), lanes_.pv.data(), lanes_.pa.data(),
                                    lanes_.out.data());
  for (Eigen::Index k = 0; k < no; ++k) r[d + k] = lanes_.out[static_cast<std::size_t>(k)];
}

void MatrixRColumns::columns(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param, Eigen::MatrixXd& F) {
  const Eigen::Index d = DX.rows();
  // the products cost about a pass of the lanes; the parameters' own columns at the fixed state
  // then go on the lanes alone
  std::vector<int> own, ownParam;
  for (std::size_t c = 0; c < param.size(); ++c)
    if (param[c] >= 0) {
      own.push_back(static_cast<int>(c));
      ownParam.push_back(param[c]);
    }
  // the parameters' columns alone would take (the same ones apart)
  const LanePlan plan = lanePlan(t, DX, DV, param);
  const bool apart = plan.laned != param && passes(plan.own.size()) < passes(own.size());
  const Eigen::Index parameterPasses = apart ? passes(plan.own.size()) : passes(own.size());
  // every parameter by the lanes kernel on doubles through the state Jacobians (alongNumbers),
  // the state's columns by products: no dual number at all. The state Jacobians' dense algebra
  // grows as nz² against a pass's nz: worth it where the lanes would take two passes or more,
  // where the products serve the state anyway, or on a small tree (the five-bar's adjoint 318 →
  // 295 M instructions; the grid 1×15's direct method, one pass of lanes, 346 → 374 M with it)
  const bool numbersWorth = plan.passes >= 2 || parameterPasses < plan.passes || st_.model.tree.nz <= 12;
  if (const Eigen::MatrixXd* G = nullptr; numbersWorth && parameterProductsCover(st_, n_) && stateProducts(t, G)) {
    Eigen::MatrixXd Fp;
    if (numbersParts(t, param, Fp)) {
      F.noalias() = G->leftCols(d) * DX;
      F.noalias() += G->rightCols(d) * DV;
      F += Fp;
      return;
    }
  }
  // the parameters' own columns on the lanes, the state's by products where that saves two passes
  // or more: the products cost up to about two (the buggy's, the tyres' and dampers' derivatives
  // on jets: 545 k instructions a point against 282 k a pass)
  const Eigen::MatrixXd* G = nullptr;
  if (parameterPasses + 2 > plan.passes || !stateProducts(t, G)) {
    lanesAlone(t, DX, DV, param, F, &plan);
    return;
  }
  const Eigen::MatrixXd still = Eigen::MatrixXd::Zero(d, static_cast<Eigen::Index>(own.size()));
  F.noalias() = G->leftCols(d) * DX;
  F.noalias() += G->rightCols(d) * DV;
  if (own.empty()) return;
  Eigen::MatrixXd Fp;
  lanesAlone(t, still, still, ownParam, Fp);
  for (std::size_t i = 0; i < own.size(); ++i) F.col(own[i]) += Fp.col(static_cast<Eigen::Index>(i));
}

bool MatrixRColumns::stateProducts(double t, const Eigen::MatrixXd*& G) {
  TangentPoint& tp = tangentPoint_;
  if (tp.t != t || tp.products == 0) return false;
  G = &stateProducts_;
  if (tp.products == 1) return true;
  tp.products = 0;
  if (!tangent_.stateJacobiansCover()) return false;  // before the motion pass it would need
  const dyn::RecursiveModel& tree = st_.model.tree;
  ensureMotion(t);
  dyn::MatrixRTangent::StateJacobians& J = jacobians_;
  if (!tangent_.stateJacobians(n_.real().tree, inertiaState_, J)) return false;
  Eigen::MatrixXd &Oz = outputsBy_.z, &Ozd = outputsBy_.zd, &Ozdd = outputsBy_.zdd;
  if (!analysis::outputPartials(st_.outputs, tree, n_.real().tree, tp.z, tp.zd, tp.zdd, t, outputsBy_.values, Oz, Ozd, Ozdd, &inertiaState_))
    return false;
  outputsBy_.pointsSet = false;
  const Eigen::Index d = J.fx.rows(), no = outputsBy_.values.size();
  stateProducts_.resize(d + no, 2 * d);
  stateProducts_ << J.fx, J.fv, Oz * J.zx + Ozd * J.zdx + Ozdd * J.zddx, Ozd * J.zdv + Ozdd * J.zddv;
  tp.products = 1;
  return true;
}

namespace {
// A loop's point's A_ρ and O_ρ as products: the outputs' weights through their partials by the
// dependent z, ż, z̈ and their points, then the tangent's parameter transpose
// (dyn::MatrixRParameterTranspose) and each parameter's fields dotted
struct LoopProducts final : ParameterProducts {
  const Study* st = nullptr;
  const FormulationNumbers* numbers = nullptr;
  std::shared_ptr<const dyn::MatrixRParameterTranspose> transpose;
  Eigen::MatrixXd Oz, Ozd, Ozdd, Opoints;  // the outputs by the dependent z, ż, z̈ and by their points' [r; v; a]
  Eigen::Index d = 0;
  void add(const Eigen::MatrixXd& wA, const Eigen::MatrixXd& wO, Eigen::MatrixXd& gradient) const override {
    const Eigen::Index nz = st->model.tree.nz, np = 3 * static_cast<Eigen::Index>(st->outputs.points.size());
    thread_local dyn::NumbersAdjoint adjoint;
    thread_local Eigen::VectorXd wi, wz, wzd, wzdd, wp, wTau;
    for (Eigen::Index c = 0; c < std::max(wA.cols(), wO.cols()); ++c) {
      if (wA.size()) wi = wA.col(c);
      else wi.setZero(d);
      if (wO.size()) {
        wz.noalias() = Oz.transpose() * wO.col(c);
        wzd.noalias() = Ozd.transpose() * wO.col(c);
        wzdd.noalias() = Ozdd.transpose() * wO.col(c);
        wp.noalias() = Opoints.transpose() * wO.col(c);
      } else {
        wz.setZero(nz);
        wzd.setZero(nz);
        wzdd.setZero(nz);
        wp.setZero(3 * np);
      }
      transpose->adjoint(numbers->real().tree, wi, wz, wzd, wzdd, wp.data(), wp.data() + np, wp.data() + 2 * np, adjoint, wTau);
      addLanesProducts(*st, *numbers, transpose->state(), adjoint, wTau.data(), transpose->points(), c, gradient);
    }
  }
};
}  // namespace

bool MatrixRColumns::productsServe() const {
  // the products cost a column per cost (a reverse pass each), the parameters' lanes on doubles
  // nothing per cost: on the five-bar (1 s, 5 parameters, callgrind) the products with one cost
  // take 252 M instructions against 299 M, with three 302 M against 306 M, with five 349 M
  // against 310 M
  return st_.costs.names.size() <= 3 * static_cast<std::size_t>(passes(st_.parameters.size())) && parameterProductsCover(st_, n_);
}

bool MatrixRColumns::productPartials(double t, PointPartials& n) {
  const Eigen::MatrixXd* G = nullptr;
  if (!productsServe() || !stateProducts(t, G)) return false;
  const dyn::MatrixRTangent::StateJacobians& J = jacobians_;
  auto owned = std::make_shared<LoopProducts>();
  owned->st = &st_;
  owned->numbers = &n_;
  owned->d = J.fx.rows();
  owned->Oz = outputsBy_.z;
  owned->Ozd = outputsBy_.zd;
  owned->Ozdd = outputsBy_.zdd;
  owned->Opoints = outputsByPoints(t);
  const Eigen::Index d = J.fx.rows(), no = outputsBy_.values.size();
  n.outputs = outputsBy_.values;
  n.Ax = J.fx;
  n.Av = J.fv;
  n.Ox = G->bottomLeftCorner(no, d);
  n.Ov = G->bottomRightCorner(no, d);
  n.Oa.resize(0, 0);
  n.Ap.resize(0, 0);
  n.Op.resize(0, 0);
  // the products keep the point's motion (the tangent's next point computes its own)
  owned->transpose = tangent_.parameterTranspose(dyn::MatrixRTangent::StateJacobians(J), std::move(inertiaState_), st_.outputs.points);
  inertiaState_ = dyn::MotionAtState();
  tangentPoint_.motion = false;
  if (!owned->transpose) return false;
  n.products = std::move(owned);
  return true;
}

const Eigen::MatrixXd& MatrixRColumns::outputsByPoints(double t) {
  TangentPoint& tp = tangentPoint_;
  if (!outputsBy_.pointsSet) {
    ensureMotion(t);
    outputsBy_.points = detail::outputsByPoints(st_, n_, t, tp.z, tp.zd, tp.zdd, inertiaState_);
    outputsBy_.pointsSet = true;
  }
  return outputsBy_.points;
}

void MatrixRColumns::ensureMotion(double t) {
  TangentPoint& tp = tangentPoint_;
  if (tp.motion) return;
  inertiaState_.compute(st_.model.tree, n_.real().tree, tp.z.data(), tp.zd.data(), tp.zdd.data(), t);
  tp.motion = true;
}

bool MatrixRColumns::numbersParts(double t, const std::vector<int>& param, Eigen::MatrixXd& Fp) {
  const Eigen::Index d = jacobians_.fx.rows(), no = outputsBy_.values.size();
  Fp = Eigen::MatrixXd::Zero(d + no, static_cast<Eigen::Index>(param.size()));
  ensureMotion(t);
  const Eigen::MatrixXd* Opoints = no > 0 && !st_.outputs.points.empty() ? &outputsByPoints(t) : nullptr;
  dyn::MatrixRTangent::NumbersAlong along;
  Eigen::MatrixXd O;
  for (std::size_t ch = 0; ch < n_.chunkCount(); ++ch) {
    const Eigen::Index first = n_.chunkFirst(ch), count = n_.chunkSize(ch);
    bool used = false;
    for (int j : param) used = used || (j >= first && j < first + count);
    if (!used) continue;
    if (!tangent_.alongNumbers(n_.real().tree, inertiaState_, jacobians_, *n_.lanesOf(n_.chunk(ch)), n_.chunk(ch).tree, st_.outputs.points, along))
      return false;
    if (no > 0) {
      O.noalias() = outputsBy_.z * along.z;
      O.noalias() += outputsBy_.zd * along.zd;
      O.noalias() += outputsBy_.zdd * along.zdd;
      if (Opoints) O.noalias() += *Opoints * along.points;
    }
    for (std::size_t c = 0; c < param.size(); ++c) {
      const int j = param[c];
      if (j < first || j >= first + count) continue;
      const auto l = static_cast<Eigen::Index>(j - first), col = static_cast<Eigen::Index>(c);
      Fp.col(col).head(d) = along.zidd.col(l);
      if (no > 0) Fp.col(col).tail(no) = O.col(l);
    }
  }
  return true;
}

MatrixRColumns::LanePlan MatrixRColumns::lanePlan(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param) const {
  const Eigen::Index d = DX.rows(), n = DX.cols();
  LanePlan plan;
  plan.laned = param;
  if (inertialServes(t, param))
    for (int& j : plan.laned)
      if (j >= 0 && n_.inertial()[static_cast<std::size_t>(j)]) j = -1;
  for (Eigen::Index c = 0; c < n; ++c) {
    const bool laneParameter = plan.laned[static_cast<std::size_t>(c)] >= 0;
    if (laneParameter) plan.own.push_back(static_cast<int>(c));
    if (laneParameter || !DX.col(c).isZero(0.0) || !DV.col(c).isZero(0.0)) plan.kept.push_back(static_cast<int>(c));
  }
  const std::size_t m = plan.own.size(), k = plan.kept.size(), byState = static_cast<std::size_t>(2 * d) + m;
  plan.byStateColumns = passes(byState) < passes(k);
  plan.apart = plan.laned != param && std::min(passes(byState), passes(k)) < passes(static_cast<std::size_t>(n));
  plan.passes = plan.apart ? std::min(passes(byState), passes(k)) : passes(static_cast<std::size_t>(n));
  return plan;
}

void MatrixRColumns::lanesAlone(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param, Eigen::MatrixXd& F,
                                const LanePlan* planned) {
  const Eigen::Index d = DX.rows(), n = DX.cols();
  LanePlan mine;
  if (!planned) mine = lanePlan(t, DX, DV, param);
  const LanePlan& plan = planned ? *planned : mine;
  const std::vector<int>&laned = plan.laned, &kept = plan.kept, &own = plan.own;
  const auto m = static_cast<Eigen::Index>(own.size()), k = static_cast<Eigen::Index>(kept.size());
  if (!plan.apart) {
    packedLaneColumns(t, DX, DV, param, F);  // nothing saved
    return;
  }
  Eigen::MatrixXd Fi;
  inertialParts(t, param, Fi);
  if (plan.byStateColumns) {
    Eigen::MatrixXd DX2 = Eigen::MatrixXd::Zero(d, 2 * d + m), DV2 = DX2, G;
    DX2.leftCols(d).setIdentity();
    DV2.middleCols(d, d).setIdentity();
    std::vector<int> param2(static_cast<std::size_t>(2 * d), -1);
    for (int c : own) param2.push_back(param[static_cast<std::size_t>(c)]);
    packedLaneColumns(t, DX2, DV2, param2, G);
    F = G.leftCols(d) * DX + G.middleCols(d, d) * DV;
    for (Eigen::Index i = 0; i < m; ++i) F.col(own[static_cast<std::size_t>(i)]) += G.col(2 * d + i);
  } else {
    Eigen::MatrixXd DXk(d, k), DVk(d, k), G;
    std::vector<int> paramk;
    for (Eigen::Index i = 0; i < k; ++i) {
      const int c = kept[static_cast<std::size_t>(i)];
      DXk.col(i) = DX.col(c);
      DVk.col(i) = DV.col(c);
      paramk.push_back(laned[static_cast<std::size_t>(c)]);
    }
    packedLaneColumns(t, DXk, DVk, paramk, G);
    F = Eigen::MatrixXd::Zero(G.rows(), n);
    for (Eigen::Index i = 0; i < k; ++i) F.col(kept[static_cast<std::size_t>(i)]) = G.col(i);
  }
  F += Fi;
}

// Do the parameters that touch only masses and inertias leave the lanes at this point (any
// among `param`, AD partials, no output that reads masses itself: the reactions; the others
// read points, coordinates and geometry, or nothing: energies), the lanes kernel taking them?
bool MatrixRColumns::inertialServes(double t, const std::vector<int>& param) const {
  if (n_.semiAnalytical() || st_.outputs.reactions || tangentPoint_.t != t) return false;
  bool any = false;
  for (int j : param) any = any || (j >= 0 && n_.inertial()[static_cast<std::size_t>(j)]);
  if (!any) return false;
  for (std::size_t ch = 0; ch < n_.chunkCount(); ++ch)
    if (!dyn::numbersLanesCovered(st_.model.tree, n_.inertialLanes(ch), n_.chunk(ch).tree)) return false;
  return true;
}

// The parameter parts [f_ρ; O_ρ] (columns as `param`, zero but where the parameter touches
// only masses and inertias; inertialServes): at the fixed state the positions, rates and loops
// do not move, τ's lanes come from the lanes kernel on doubles and MatrixRTangent::alongInertia
// projects them
void MatrixRColumns::inertialParts(double t, const std::vector<int>& param, Eigen::MatrixXd& Fi) {
  const dyn::RecursiveModel& tree = st_.model.tree;
  if (!tangentPoint_.motion) {
    inertiaState_.compute(tree, n_.real().tree, tangentPoint_.z.data(), tangentPoint_.zd.data(), tangentPoint_.zdd.data(), t);
    tangentPoint_.motion = true;
  }
  const auto nz = static_cast<std::size_t>(tree.nz), np = 3 * st_.outputs.points.size();
  const auto no = static_cast<Eigen::Index>(st_.outputs.names.size());
  Vec<Dual>& zidd = lanes_.zidd;
  Vec<Dual>& z = lanes_.z;
  Vec<Dual>& zd = lanes_.zd;
  Vec<Dual>& zdd = lanes_.zdd;
  std::vector<Dual>&pr = lanes_.pr, &pv = lanes_.pv, &pa = lanes_.pa, &out = lanes_.out, &tau = lanes_.tau;
  tau.resize(nz);
  pr.resize(np);
  pv.resize(np);
  pa.resize(np);
  out.resize(static_cast<std::size_t>(no));
  for (std::size_t ch = 0; ch < n_.chunkCount(); ++ch) {
    bool used = false;
    for (int j : param) used = used || (j >= n_.chunkFirst(ch) && j < n_.chunkFirst(ch) + n_.chunkSize(ch) && n_.inertial()[static_cast<std::size_t>(j)]);
    if (!used) continue;
    dyn::inverseDynamicsAlongNumbers(tree, n_.real().tree, inertiaState_, n_.inertialLanes(ch), n_.chunk(ch).tree, tau.data(), {}, nullptr, nullptr,
                                     nullptr);
    const Vec<Dual> tauv = Eigen::Map<const Vec<Dual>>(tau.data(), static_cast<Eigen::Index>(nz));
    tangent_.alongInertia(n_.real().tree, inertiaState_, tauv, zidd, z, zd, zdd, st_.outputs.points, pr.data(), pv.data(), pa.data());
    analysis::outputsFromPoints<Dual>(st_.outputs, tree, n_.plain().tree, z, zd, zdd, t, pr.data(), pv.data(), pa.data(), out.data());
    if (Fi.size() == 0) Fi = Eigen::MatrixXd::Zero(zidd.size() + no, static_cast<Eigen::Index>(param.size()));
    for (std::size_t c = 0; c < param.size(); ++c) {
      const int j = param[c];
      if (j < n_.chunkFirst(ch) || j >= n_.chunkFirst(ch) + n_.chunkSize(ch) || !n_.inertial()[static_cast<std::size_t>(j)]) continue;
      const auto l = static_cast<int>(j - n_.chunkFirst(ch));
      for (Eigen::Index i = 0; i < zidd.size(); ++i) Fi(i, static_cast<Eigen::Index>(c)) = zidd[i].g[l];
      for (Eigen::Index k = 0; k < no; ++k) Fi(zidd.size() + k, static_cast<Eigen::Index>(c)) = out[static_cast<std::size_t>(k)].g[l];
    }
  }
}

void MatrixRColumns::packedLaneColumns(double t, const Eigen::MatrixXd& DX, const Eigen::MatrixXd& DV, const std::vector<int>& param, Eigen::MatrixXd& F) {
  const Eigen::Index d = DX.rows(), n = DX.cols(), no = static_cast<Eigen::Index>(st_.outputs.names.size());
  F.resize(d + no, n);
  Vec<Dual> dx(d), dv(d), r;
  std::vector<int> lanes(kLanes);
  for (Eigen::Index first = 0; first < n; first += kLanes) {
    bool seeded = false;
    for (Eigen::Index i = 0; i < d; ++i) dx[i] = dv[i] = Dual(0.0);
    for (int l = 0; l < kLanes; ++l) {
      const Eigen::Index c = first + l;
      lanes[static_cast<std::size_t>(l)] = c < n ? param[static_cast<std::size_t>(c)] : -1;
      seeded = seeded || lanes[static_cast<std::size_t>(l)] >= 0;
      if (c >= n) continue;
      for (Eigen::Index i = 0; i < d; ++i) {
        dx[i].g[l] = DX(i, c);
        dv[i].g[l] = DV(i, c);
      }
    }
    alongLanes(seeded ? n_.seededInLanes(lanes).tree : n_.plain().tree, seeded, t, dx, dv, r);
    for (int l = 0; l < kLanes && first + l < n; ++l)
      for (Eigen::Index i = 0; i < d + no; ++i) F(i, first + l) = r[i].g[l];
  }
}

}  // namespace lw::sens::detail
