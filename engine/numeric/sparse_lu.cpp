#include "numeric/sparse_lu.h"

extern "C" {
#include <klu.h>
}

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
    return true;
  }
  ++factorisations;
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

long SparseLu::factorNonzeros() const { return klu_->numeric ? static_cast<long>(klu_->numeric->lnz + klu_->numeric->unz) : 0; }

}  // namespace lw::num
