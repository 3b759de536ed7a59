#include "numeric/sparse_lu.h"

#include "numeric/four.h"

extern "C" {
#include <klu.h>
}

#include <algorithm>

namespace lw::num {

struct SparseLu::Klu {
  klu_common common{};
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
};

SparseLu::SparseLu(int n, std::vector<int> colPtr, std::vector<int> rowIdx, bool rowScaling)
    : values(rowIdx.size(), 0.0), n_(n), colPtr_(std::move(colPtr)), rowIdx_(std::move(rowIdx)), klu_(std::make_unique<Klu>()) {
  klu_defaults(&klu_->common);
  if (!rowScaling) klu_->common.scale = -1;  // KLU: none (the pattern is valid by construction)
  klu_->symbolic = klu_analyze(n_, colPtr_.data(), rowIdx_.data(), &klu_->common);
}

SparseLu::~SparseLu() {
  if (klu_->numeric) klu_free_numeric(&klu_->numeric, &klu_->common);
  if (klu_->symbolic) klu_free_symbolic(&klu_->symbolic, &klu_->common);
}

double kMinGrowth = 1e-2;
bool SparseLu::factor() {
  Klu& k = *klu_;
  if (!k.symbolic) return false;
  if (k.numeric && klu_refactor(colPtr_.data(), rowIdx_.data(), values.data(), k.symbolic, k.numeric, &k.common) &&
      klu_rcond(k.symbolic, k.numeric, &k.common) && k.common.rcond > 1e-6 &&
      klu_rgrowth(colPtr_.data(), rowIdx_.data(), values.data(), k.symbolic, k.numeric, &k.common) && k.common.rgrowth > kMinGrowth) {
    ++refactorisations;
    f_.current = false;
    return true;
  }
  ++factorisations;
  f_.current = false;
  // first factorisation, or the old pivot order no longer suits these values: factor afresh
  // with partial pivoting (allocates; rare)
  if (k.numeric) klu_free_numeric(&k.numeric, &k.common);
  k.numeric = klu_factor(colPtr_.data(), rowIdx_.data(), values.data(), k.symbolic, &k.common);
  return k.numeric && k.common.status == KLU_OK;
}

double SparseLu::rcond(double refineBelow) {
  Klu& k = *klu_;
  if (!k.numeric || !klu_rcond(k.symbolic, k.numeric, &k.common)) return 0;
  if (k.common.rcond > refineBelow) return k.common.rcond;
  if (!klu_condest(colPtr_.data(), values.data(), k.symbolic, k.numeric, &k.common) || !(k.common.condest > 0)) return 0;
  return 1 / k.common.condest;
}

bool SparseLu::solve(double* b, int nrhs) {
  return klu_->numeric && klu_solve(klu_->symbolic, klu_->numeric, n_, nrhs, b, &klu_->common);
}

namespace {

// The solve of P A Q = L U + F on right-hand sides stored as rows (w: n × RP, row-major, already
// permuted by P): blocks last to first, each by L then U; the off-block entries F of a column
// apply once its unknown is known. Diagonals are found by index (KLU's extraction puts them first
// in L, last in U; nothing here relies on that). RP, the width of a row, is fixed at compile
// time: each factor entry is then a few whole-register updates, without loop or tail.
template <std::size_t RP>
[[gnu::always_inline]] inline void sweep(const SparseLu::Factors& f, double* __restrict w) {
  // y −= a x, 4 doubles at a time
  auto subtract = [](double* y, double a, const double* x) {
    for (std::size_t c = 0; c < RP; c += 4) *reinterpret_cast<Four*>(y + c) -= a * *reinterpret_cast<const Four*>(x + c);
  };
  for (std::size_t b = f.blocks.size() - 1; b-- > 0;) {
    const auto k1 = static_cast<std::size_t>(f.blocks[b]), k2 = static_cast<std::size_t>(f.blocks[b + 1]);
    for (std::size_t j = k1; j < k2; ++j)
      for (auto p = static_cast<std::size_t>(f.Lp[j]); p < static_cast<std::size_t>(f.Lp[j + 1]); ++p) {
        const auto i = static_cast<std::size_t>(f.Li[p]);
        if (i != j) subtract(w + i * RP, f.Lx[p], w + j * RP);
      }
    for (std::size_t j = k2; j-- > k1;) {
      double* xj = w + j * RP;
      const auto u0 = static_cast<std::size_t>(f.Up[j]), u1 = static_cast<std::size_t>(f.Up[j + 1]);
      double d = 0;
      for (std::size_t p = u0; p < u1; ++p)
        if (static_cast<std::size_t>(f.Ui[p]) == j) d = f.Ux[p];
      for (std::size_t c = 0; c < RP; ++c) xj[c] /= d;
      for (std::size_t p = u0; p < u1; ++p) {
        const auto i = static_cast<std::size_t>(f.Ui[p]);
        if (i != j) subtract(w + i * RP, f.Ux[p], xj);
      }
      for (auto p = static_cast<std::size_t>(f.Fp[j]); p < static_cast<std::size_t>(f.Fp[j + 1]); ++p)
        subtract(w + static_cast<std::size_t>(f.Fi[p]) * RP, f.Fx[p], xj);
    }
  }
}

LW_CLONE_FOR_AVX2 void solveFactoredRows(const SparseLu::Factors& f, double* w, std::size_t width) {
  switch (width) {
    case 4: sweep<4>(f, w); break;
    case 8: sweep<8>(f, w); break;
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
  f.current = klu_extract(k.numeric, k.symbolic, f.Lp.data(), f.Li.data(), f.Lx.data(), f.Up.data(), f.Ui.data(), f.Ux.data(),
                          f.Fp.data(), f.Fi.data(), f.Fx.data(), f.P.data(), f.Q.data(), f.rowScale.data(), f.blocks.data(),
                          &k.common);
  return f.current;
}

bool SparseLu::solveRows(double* bt, int nrhs) {
  if (!klu_->numeric) return false;
  if (nrhs <= 0) return true;
  if (!f_.current && !extractFactors()) return false;
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
