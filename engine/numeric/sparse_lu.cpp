#include "numeric/sparse_lu.h"

#include "numeric/four.h"

extern "C" {
#include <klu.h>
}

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace lw::num {

namespace {
// the pivots a refactorisation in place must keep, else KLU pivots afresh. Its reciprocal pivot
// growth (per column, the largest entry of the scaled A in the column's diagonal block over the
// largest of U's column; the smallest of these) bounds the solve's backward error, about
// eps / growth relative: above 1e-2, or above a tenth of what KLU's threshold pivoting produced at
// the last fresh factorisation (it keeps diagonal pivots down to a thousandth of their column's
// largest entry: pivoting afresh would come back to the same order). And a pivot ratio
// min |U_kk| / max |U_kk| above 1e-6.
constexpr double kMinGrowth = 1e-2, kMinPivotRatio = 1e-6;
}  // namespace

struct SparseLu::Klu {
  klu_common common{};
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
};

SparseLu::SparseLu(int n, std::vector<int> colPtr, std::vector<int> rowIdx, bool rowScaling)
    : values(rowIdx.size(), 0.0), n_(n), rowScaling_(rowScaling), colPtr_(std::move(colPtr)), rowIdx_(std::move(rowIdx)), klu_(std::make_unique<Klu>()) {
  klu_defaults(&klu_->common);
  if (!rowScaling) klu_->common.scale = -1;  // KLU: none (the pattern is valid by construction)
  klu_->symbolic = klu_analyze(n_, colPtr_.data(), rowIdx_.data(), &klu_->common);
}

SparseLu::~SparseLu() {
  if (klu_->numeric) klu_free_numeric(&klu_->numeric, &klu_->common);
  if (klu_->symbolic) klu_free_symbolic(&klu_->symbolic, &klu_->common);
}


bool SparseLu::factor() {
  Klu& k = *klu_;
  if (!k.symbolic) return false;
  if (factored_ && refactorInPlace()) {
    ++refactorisations;
    kluCurrent_ = false;
    return true;
  }
  ++factorisations;
  factored_ = kluCurrent_ = false;
  // first factorisation, or the old pivot order no longer suits these values: factor afresh
  // with partial pivoting (allocates; rare), and read the factors' pattern out of KLU
  if (k.numeric) klu_free_numeric(&k.numeric, &k.common);
  k.numeric = klu_factor(colPtr_.data(), rowIdx_.data(), values.data(), k.symbolic, &k.common);
  if (!k.numeric || k.common.status != KLU_OK) return false;
  kluCurrent_ = true;
  factored_ = extractFactors();
  return factored_;
}

double SparseLu::rcond(double refineBelow) {
  if (!factored_) return 0;
  if (f_.pivotRatio > refineBelow) return f_.pivotRatio;
  // the 1-norm estimate is KLU's: bring its factors up to date first (the pivot order is ours)
  Klu& k = *klu_;
  if (!kluCurrent_) {
    if (!klu_refactor(colPtr_.data(), rowIdx_.data(), values.data(), k.symbolic, k.numeric, &k.common)) return 0;
    kluCurrent_ = true;
  }
  if (!klu_condest(colPtr_.data(), values.data(), k.symbolic, k.numeric, &k.common) || !(k.common.condest > 0)) return 0;
  return 1 / k.common.condest;
}

namespace {

// The solve of P A Q = L U + F on right-hand sides stored as rows (w: n × RP, row-major, already
// permuted by P): blocks last to first, each by L then U; the off-block entries F of a column
// apply once its unknown is known. Each column's rows are ascending (extractFactors), so L's unit
// diagonal is its column's first entry and U's diagonal its last, as the refactorisation keeps
// them. RP, the width of a row, is fixed at compile time: each factor entry is then a few
// whole-register updates, without loop or tail.
template <std::size_t RP>
[[gnu::always_inline]] inline void sweep(const SparseLu::Factors& f, double* __restrict w) {
  // y −= a x, 4 doubles at a time
  auto subtract = [](double* y, double a, const double* x) {
    if constexpr (RP % 4 == 0) {
      for (std::size_t c = 0; c < RP; c += 4) *reinterpret_cast<Four*>(y + c) -= a * *reinterpret_cast<const Four*>(x + c);
    } else {
      for (std::size_t c = 0; c < RP; ++c) y[c] -= a * x[c];
    }
  };
  for (std::size_t b = f.blocks.size() - 1; b-- > 0;) {
    const auto k1 = static_cast<std::size_t>(f.blocks[b]), k2 = static_cast<std::size_t>(f.blocks[b + 1]);
    for (std::size_t j = k1; j < k2; ++j) {
      const double* xj = w + j * RP;
      for (auto p = static_cast<std::size_t>(f.Lp[j]) + 1; p < static_cast<std::size_t>(f.Lp[j + 1]); ++p)
        subtract(w + static_cast<std::size_t>(f.Li[p]) * RP, f.Lx[p], xj);
    }
    for (std::size_t j = k2; j-- > k1;) {
      double* xj = w + j * RP;
      const auto u0 = static_cast<std::size_t>(f.Up[j]), u1 = static_cast<std::size_t>(f.Up[j + 1]) - 1;
      const double d = f.Ux[u1];
      for (std::size_t c = 0; c < RP; ++c) xj[c] /= d;
      for (std::size_t p = u0; p < u1; ++p) subtract(w + static_cast<std::size_t>(f.Ui[p]) * RP, f.Ux[p], xj);
      for (auto p = static_cast<std::size_t>(f.Fp[j]); p < static_cast<std::size_t>(f.Fp[j + 1]); ++p)
        subtract(w + static_cast<std::size_t>(f.Fi[p]) * RP, f.Fx[p], xj);
    }
  }
}

LW_CLONE_FOR_AVX2 void solveFactoredRows(const SparseLu::Factors& f, double* w, std::size_t width) {
  switch (width) {
    case 4: sweep<4>(f, w); break;
    case 8: sweep<8>(f, w); break;
    case 1: sweep<1>(f, w); break;
    case 12: sweep<12>(f, w); break;
    default: sweep<SparseLu::kRowPanel>(f, w); break;
  }
}

}  // namespace

bool SparseLu::extractFactors() {
  Klu& k = *klu_;
  const auto n = static_cast<std::size_t>(n_);
  Factors& f = f_;
  f.P.resize(n);
  f.Q.resize(n);
  f.rowScale.resize(n);
  f.blocks.resize(static_cast<std::size_t>(k.symbolic->nblocks) + 1);
  f.Lp.resize(n + 1);
  f.Up.resize(n + 1);
  f.Fp.resize(n + 1);
  f.Li.resize(static_cast<std::size_t>(k.numeric->lnz));
  f.Lx.resize(f.Li.size());
  f.Ui.resize(static_cast<std::size_t>(k.numeric->unz));
  f.Ux.resize(f.Ui.size());
  f.Fi.resize(static_cast<std::size_t>(k.numeric->nzoff));
  f.Fx.resize(f.Fi.size());
  if (!klu_extract(k.numeric, k.symbolic, f.Lp.data(), f.Li.data(), f.Lx.data(), f.Up.data(), f.Ui.data(), f.Ux.data(), f.Fp.data(),
                   f.Fi.data(), f.Fx.data(), f.P.data(), f.Q.data(), f.rowScale.data(), f.blocks.data(), &k.common))
    return false;
  // each column's rows ascending: U's diagonal last, L's first, and U's rows in an order the
  // left-looking refactorisation can eliminate them in
  auto& column = f.column;
  auto sortColumns = [&](const std::vector<int>& ptr, std::vector<int>& idx, std::vector<double>& val) {
    for (std::size_t j = 0; j < n; ++j) {
      column.clear();
      for (auto p = static_cast<std::size_t>(ptr[j]); p < static_cast<std::size_t>(ptr[j + 1]); ++p) column.emplace_back(idx[p], val[p]);
      std::sort(column.begin(), column.end());
      for (std::size_t q = 0; q < column.size(); ++q) {
        idx[static_cast<std::size_t>(ptr[j]) + q] = column[q].first;
        val[static_cast<std::size_t>(ptr[j]) + q] = column[q].second;
      }
    }
  };
  sortColumns(f.Lp, f.Li, f.Lx);
  sortColumns(f.Up, f.Ui, f.Ux);
  // where each entry of A goes: its row in pivot order inside its column's diagonal block, or its
  // slot among the off-block entries F
  auto& Pinv = f.Pinv;
  auto& blockOf = f.blockOf;
  Pinv.resize(n);
  blockOf.resize(n);
  for (std::size_t i = 0; i < n; ++i) Pinv[static_cast<std::size_t>(f.P[i])] = static_cast<int>(i);
  for (std::size_t b = 0; b + 1 < f.blocks.size(); ++b)
    for (int j = f.blocks[b]; j < f.blocks[b + 1]; ++j) blockOf[static_cast<std::size_t>(j)] = f.blocks[b];
  f.target.assign(rowIdx_.size(), 0);
  for (std::size_t j = 0; j < n; ++j) {
    const auto c = static_cast<std::size_t>(f.Q[j]);
    for (auto p = static_cast<std::size_t>(colPtr_[c]); p < static_cast<std::size_t>(colPtr_[c + 1]); ++p) {
      const int i = Pinv[static_cast<std::size_t>(rowIdx_[p])];
      if (i >= blockOf[j]) {
        if (i > static_cast<int>(j) && blockOf[static_cast<std::size_t>(i)] != blockOf[j]) return false;  // not block triangular
        f.target[p] = i;
        continue;
      }
      int slot = -1;
      for (int q = f.Fp[j]; q < f.Fp[j + 1]; ++q)
        if (f.Fi[static_cast<std::size_t>(q)] == i) slot = q;
      if (slot < 0) return false;
      f.target[p] = -1 - slot;
    }
  }
  f.x.assign(n, 0.0);
  f.rowMax.resize(n);
  if (!rowScaling_) std::fill(f.rowScale.begin(), f.rowScale.end(), 1.0);
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double u = std::abs(f.Ux[static_cast<std::size_t>(f.Up[j + 1]) - 1]);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  f.pivotRatio = n == 0 ? 1 : hi > 0 && std::isfinite(lo) && std::isfinite(hi) ? lo / hi : 0;
  double growth = 1;
  for (std::size_t j = 0; j < n; ++j) {
    const auto c = static_cast<std::size_t>(f.Q[j]);
    double amax = 0, umax = 0;
    for (auto p = static_cast<std::size_t>(colPtr_[c]); p < static_cast<std::size_t>(colPtr_[c + 1]); ++p)
      if (f.target[p] >= 0) amax = std::max(amax, std::abs(values[p] / f.rowScale[static_cast<std::size_t>(f.target[p])]));
    for (auto p = static_cast<std::size_t>(f.Up[j]); p < static_cast<std::size_t>(f.Up[j + 1]); ++p) umax = std::max(umax, std::abs(f.Ux[p]));
    if (umax > 0) growth = std::min(growth, amax / umax);
  }
  f.minGrowth = std::min(kMinGrowth, 0.1 * growth);
  return true;
}

// The numeric factorisation of the current values on the pattern and pivot order of the last
// factorisation with pivoting (left-looking, column by column: Gilbert–Peierls without the
// search, as the pattern is known). False, with the factors unusable, when the pivots no longer
// suit: too much growth, a pivot ratio too small, or a zero or non-finite pivot.
bool SparseLu::refactorInPlace() {
  Factors& f = f_;
  const auto n = static_cast<std::size_t>(n_);
  if (rowScaling_) {  // KLU's scale: the largest entry of each row, rows of zeros left at 1
    std::fill(f.rowMax.begin(), f.rowMax.end(), 0.0);
    for (std::size_t p = 0; p < rowIdx_.size(); ++p) {
      double& m = f.rowMax[static_cast<std::size_t>(rowIdx_[p])];
      m = std::max(m, std::abs(values[p]));
    }
    for (std::size_t i = 0; i < n; ++i) {
      double& s = f.rowScale[i];
      s = f.rowMax[static_cast<std::size_t>(f.P[i])];
      if (s == 0) s = 1;
      f.rowMax[static_cast<std::size_t>(f.P[i])] = 1 / s;  // now the factor the row is multiplied by
    }
  }
  double* x = f.x.data();
  double growth = std::numeric_limits<double>::infinity(), lo = growth, hi = 0;
  for (std::size_t j = 0; j < n; ++j) {
    // A's column (scaled): into x inside the block, into F above it
    const auto c = static_cast<std::size_t>(f.Q[j]);
    double amax = 0;
    for (auto p = static_cast<std::size_t>(colPtr_[c]); p < static_cast<std::size_t>(colPtr_[c + 1]); ++p) {
      const double v = rowScaling_ ? values[p] * f.rowMax[static_cast<std::size_t>(rowIdx_[p])] : values[p];
      const int t = f.target[p];
      if (t >= 0) {
        x[t] = v;
        amax = std::max(amax, std::abs(v));
      } else {
        f.Fx[static_cast<std::size_t>(-1 - t)] = v;
      }
    }
    // U's column: the rows above the diagonal in ascending order, each eliminated with L's column
    const auto u0 = static_cast<std::size_t>(f.Up[j]), u1 = static_cast<std::size_t>(f.Up[j + 1]) - 1;
    double umax = 0;
    for (std::size_t p = u0; p < u1; ++p) {
      const auto i = static_cast<std::size_t>(f.Ui[p]);
      const double u = x[i];
      x[i] = 0;
      f.Ux[p] = u;
      umax = std::max(umax, std::abs(u));
      for (auto q = static_cast<std::size_t>(f.Lp[i]) + 1; q < static_cast<std::size_t>(f.Lp[i + 1]); ++q)
        x[f.Li[q]] -= f.Lx[q] * u;
    }
    const double pivot = x[j];
    x[j] = 0;
    f.Ux[u1] = pivot;
    const double a = std::abs(pivot);
    umax = std::max(umax, a);
    lo = std::min(lo, a);
    hi = std::max(hi, a);
    const auto l0 = static_cast<std::size_t>(f.Lp[j]) + 1, l1 = static_cast<std::size_t>(f.Lp[j + 1]);
    for (std::size_t q = l0; q < l1; ++q) {
      double& xi = x[f.Li[q]];
      f.Lx[q] = xi / pivot;
      xi = 0;
    }
    if (umax > 0) growth = std::min(growth, amax / umax);
    if (!(a > 0) || !std::isfinite(a) || !(growth > f.minGrowth)) {
      std::fill(f.x.begin(), f.x.end(), 0.0);  // a column may stop half eliminated
      return false;
    }
  }
  f.pivotRatio = n == 0 ? 1 : lo / hi;
  return f.pivotRatio > kMinPivotRatio;
}

bool SparseLu::solve(double* b, int nrhs) {
  if (!factored_) return false;
  const Factors& f = f_;
  const auto n = static_cast<std::size_t>(n_);
  f_.work.resize(n * kRowPanel);  // allocates once
  double* w = f_.work.data();
  for (int c = 0; c < nrhs; ++c) {
    double* bc = b + static_cast<std::size_t>(c) * n;
    for (std::size_t k = 0; k < n; ++k) w[k] = bc[f.P[k]] / f.rowScale[k];
    solveFactoredRows(f, w, 1);
    for (std::size_t k = 0; k < n; ++k) bc[f.Q[k]] = w[k];
  }
  return true;
}

bool SparseLu::solveRows(double* bt, int nrhs) {
  if (!factored_) return false;
  if (nrhs <= 0) return true;
  const Factors& f = f_;
  const auto r = static_cast<std::size_t>(nrhs);
  const auto n = static_cast<std::size_t>(n_);
  f_.work.resize(n * kRowPanel);  // allocates once
  double* w = f_.work.data();
  // panels of up to kRowPanel right-hand sides, each padded with zeros to a multiple of 4
  for (std::size_t c0 = 0; c0 < r; c0 += kRowPanel) {
    const std::size_t m = std::min(kRowPanel, r - c0), width = (m + 3) / 4 * 4;
    // w = P (Rs⁻¹ B): KLU factors the rows divided by their scale factors (kept in pivot order)
    for (std::size_t k = 0; k < n; ++k) {
      const double* b = bt + static_cast<std::size_t>(f.P[k]) * r + c0;
      const double s = f.rowScale[k];
      double* wk = w + k * width;
      for (std::size_t c = 0; c < m; ++c) wk[c] = b[c] / s;
      for (std::size_t c = m; c < width; ++c) wk[c] = 0;
    }
    solveFactoredRows(f, w, width);
    // X = Q w
    for (std::size_t k = 0; k < n; ++k) {
      double* x = bt + static_cast<std::size_t>(f.Q[k]) * r + c0;
      const double* wk = w + k * width;
      for (std::size_t c = 0; c < m; ++c) x[c] = wk[c];
    }
  }
  return true;
}

int SparseLu::diagonalBlocks() const { return klu_->symbolic ? klu_->symbolic->nblocks : 0; }

long SparseLu::factorNonzeros() const { return klu_->numeric ? static_cast<long>(klu_->numeric->lnz + klu_->numeric->unz) : 0; }

}  // namespace lw::num
