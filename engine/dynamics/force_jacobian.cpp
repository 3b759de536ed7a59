#include "dynamics/force_jacobian.h"

#include <algorithm>
#include <cmath>

#include "dynamics/generalized_forces.h"
#include "numeric/colouring.h"
#include "numeric/scalar.h"

namespace lw::dyn {

using Chunk = num::Dual<kForceChunk>;

bool parseTangentMethod(const std::string& s, TangentMethod& out) {
  if (s == "differences") out = TangentMethod::CentralDifferences;
  else if (s == "dense-ad") out = TangentMethod::DenseAD;
  else if (s == "sparse-ad") out = TangentMethod::SparseAD;
  else return false;
  return true;
}

const char* tangentMethodName(TangentMethod m) {
  switch (m) {
    case TangentMethod::CentralDifferences: return "differences";
    case TangentMethod::DenseAD: return "dense-ad";
    case TangentMethod::SparseAD: return "sparse-ad";
  }
  return "";
}

struct ForceJacobian::Work {
  Work(const RecursiveModel& m, const TreeNumbers<double>& numbers) : onDouble(m, numbers), onDual(m, numbers) {}
  GeneralizedForces<double> onDouble;
  GeneralizedForces<Chunk> onDual;
  Eigen::VectorXd z, zd, Qp, Qm;             // central differences
  std::vector<Chunk> zc, zdc, zddc, Qc;      // AD
  std::vector<std::vector<int>> byColour;    // sparse AD: the columns of each colour
};

std::vector<std::vector<int>> forceJacobianPattern(const RecursiveModel& m, const Eigen::VectorXd& z,
                                                   const Eigen::VectorXd& zd, double t) {
  const auto n = static_cast<std::size_t>(m.nz);
  std::vector<num::Pattern> zp(n), zdp(n), Q(n);
  for (std::size_t i = 0; i < n; ++i) {
    zp[i] = num::Pattern(z[static_cast<Eigen::Index>(i)], static_cast<int>(i));
    zdp[i] = num::Pattern(zd[static_cast<Eigen::Index>(i)], static_cast<int>(n + i));
  }
  GeneralizedForces<num::Pattern> forces(m);
  forces(zp.data(), zdp.data(), t, Q.data());
  std::vector<std::vector<int>> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = Q[i].deps;
  return rows;
}

ForceJacobian::ForceJacobian(const RecursiveModel& m, TangentMethod method, const TreeNumbers<double>* numbers)
    : m_(&m), method_(method), w_(std::make_unique<Work>(m, numbers ? *numbers : m.numbers)) {
  const auto n = static_cast<std::size_t>(m.nz);
  w_->z.resize(m.nz);
  w_->zd.resize(m.nz);
  w_->Qp.resize(m.nz);
  w_->Qm.resize(m.nz);
  w_->zc.resize(n);
  w_->zdc.resize(n);
  w_->zddc.resize(n);
  w_->Qc.resize(n);
  if (method == TangentMethod::SparseAD && n > 0) {
    pattern_ = forceJacobianPattern(m, m.z0, Eigen::VectorXd::Ones(m.nz), 0.0);
    const num::ColumnColouring c = num::colourColumns(pattern_, 2 * m.nz);
    colour_ = c.colour;
    colours_ = c.count;
    w_->byColour.assign(static_cast<std::size_t>(colours_), {});
    for (std::size_t j = 0; j < colour_.size(); ++j) w_->byColour[static_cast<std::size_t>(colour_[j])].push_back(static_cast<int>(j));
  }
}
ForceJacobian::~ForceJacobian() = default;
ForceJacobian::ForceJacobian(ForceJacobian&&) noexcept = default;

int ForceJacobian::passes() const {
  switch (method_) {
    case TangentMethod::CentralDifferences: return 4 * m_->nz;
    case TangentMethod::DenseAD: return (2 * m_->nz + kForceChunk - 1) / kForceChunk;
    case TangentMethod::SparseAD: return (colours_ + kForceChunk - 1) / kForceChunk;
  }
  return 0;
}

void ForceJacobian::compute(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, double t, Eigen::MatrixXd& K,
                            Eigen::MatrixXd& C, const Eigen::VectorXd* zdd) {
  const int n = m_->nz;
  Work& w = *w_;
  K.resize(n, n);
  C.resize(n, n);
  auto column = [&](int j) { return j < n ? K.col(j) : C.col(j - n); };
  if (method_ == TangentMethod::CentralDifferences) {
    w.z = z;
    w.zd = zd;
    for (int j = 0; j < 2 * n; ++j) {
      Eigen::VectorXd& x = j < n ? w.z : w.zd;
      const int i = j < n ? j : j - n;
      const double h = 6e-6 * std::max(1.0, std::abs(x[i]));  // ε^(1/3) scaled (seed 004 §8.13)
      const double keep = x[i];
      x[i] = keep + h;
      w.onDouble(w.z.data(), w.zd.data(), t, w.Qp.data(), zdd ? zdd->data() : nullptr);
      x[i] = keep - h;
      w.onDouble(w.z.data(), w.zd.data(), t, w.Qm.data(), zdd ? zdd->data() : nullptr);
      x[i] = keep;
      column(j) = -(w.Qp - w.Qm) / (2 * h);
    }
    return;
  }
  const auto un = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < un; ++i) {
    w.zc[i] = Chunk(z[static_cast<Eigen::Index>(i)]);
    w.zdc[i] = Chunk(zd[static_cast<Eigen::Index>(i)]);
    if (zdd) w.zddc[i] = Chunk((*zdd)[static_cast<Eigen::Index>(i)]);
  }
  const Chunk* acc = zdd ? w.zddc.data() : nullptr;
  auto seed = [&](int col, int dir, double v) {
    if (col < n) w.zc[static_cast<std::size_t>(col)].g[dir] = v;
    else w.zdc[static_cast<std::size_t>(col - n)].g[dir] = v;
  };
  if (method_ == TangentMethod::DenseAD) {
    for (int c0 = 0; c0 < 2 * n; c0 += kForceChunk) {
      const int width = std::min(kForceChunk, 2 * n - c0);
      for (int k = 0; k < width; ++k) seed(c0 + k, k, 1.0);
      w.onDual(w.zc.data(), w.zdc.data(), t, w.Qc.data(), acc);
      for (int k = 0; k < width; ++k) {
        auto col = column(c0 + k);
        for (std::size_t r = 0; r < un; ++r) col[static_cast<Eigen::Index>(r)] = -w.Qc[r].g[k];
        seed(c0 + k, k, 0.0);
      }
    }
    return;
  }
  // sparse: direction k of a pass seeds every column of colour c0 + k; each nonzero (r, j) is read
  // from the direction of j's colour
  K.setZero();
  C.setZero();
  for (int c0 = 0; c0 < colours_; c0 += kForceChunk) {
    const int width = std::min(kForceChunk, colours_ - c0);
    for (int k = 0; k < width; ++k)
      for (int j : w.byColour[static_cast<std::size_t>(c0 + k)]) seed(j, k, 1.0);
    w.onDual(w.zc.data(), w.zdc.data(), t, w.Qc.data(), acc);
    for (std::size_t r = 0; r < un; ++r)
      for (int j : pattern_[r]) {
        const int k = colour_[static_cast<std::size_t>(j)] - c0;
        if (k < 0 || k >= width) continue;
        const double v = -w.Qc[r].g[k];
        if (j < n) K(static_cast<Eigen::Index>(r), j) = v;
        else C(static_cast<Eigen::Index>(r), j - n) = v;
      }
    for (int k = 0; k < width; ++k)
      for (int j : w.byColour[static_cast<std::size_t>(c0 + k)]) seed(j, k, 0.0);
  }
}

}  // namespace lw::dyn
