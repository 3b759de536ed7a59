#include "live_gradients.h"

#include <QMetaObject>
#include <cmath>

#include "mechanism/mechanism.h"
#include "panels/background_job.h"
#include "sensitivity/sensitivity.h"

namespace lw::app {

LiveGradients::LiveGradients(QObject* parent) : QObject(parent) { worker_ = std::thread([this] { loop(); }); }

LiveGradients::~LiveGradients() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  cancel_ = true;
  wake_.notify_all();
  worker_.join();
}

void LiveGradients::request(std::shared_ptr<const Mechanism> m) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = std::move(m);
    // a long computation (a dynamic run) of an older design gives way to this one
    if (computing_ && std::chrono::steady_clock::now() - started_ > kStale) cancel_ = true;
  }
  wake_.notify_all();
}

bool LiveGradients::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computing_ || pending_ != nullptr;
}

void LiveGradients::loop() {
  widgets::runInBackground();
  for (;;) {
    std::shared_ptr<const Mechanism> m;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return quit_ || pending_; });
      if (quit_) return;
      m = std::move(pending_);
      pending_.reset();
      computing_ = true;
      cancel_ = false;
      started_ = std::chrono::steady_clock::now();
    }
    QString cost, note;
    double value = NAN;
    std::vector<double> gradient(m->parameters.size(), NAN);
    const bool kinematic = m->study.present ? m->study.analysis == "kinematics" : !m->drivers.empty();
    if (m->costs.empty() || m->parameters.empty()) {
      note = tr("Add a cost to see its gradients here");
    } else {
      sens::SensitivitySpec spec;
      spec.analysis = kinematic ? sens::Analysis::Kinematics : sens::Analysis::Dynamics;
      spec.costs = {m->costs.front().name};
      const RunSpan span = defaultSpan(*m, kinematic);
      spec.run.tEnd = span.tEnd;
      spec.run.dt = span.dt;
      const auto r = sens::runSensitivity(*m, spec, {}, &cancel_);
      if (r.status.ok()) {
        cost = QString::fromStdString(r.costs.front());
        value = r.methods.front().values.front();
        for (std::size_t k = 0; k < r.parameters.size(); ++k)
          for (std::size_t i = 0; i < m->parameters.size(); ++i)
            if (m->parameters[i].name == r.parameters[k]) gradient[i] = r.methods.front().gradient(0, static_cast<Eigen::Index>(k));
      } else if (r.status.code == Status::Code::Cancelled) {
        std::lock_guard<std::mutex> lock(mutex_);
        computing_ = false;
        if (quit_) return;
        continue;  // given up for a newer design, which waits
      } else {
        note = QString::fromStdString(r.status.message);
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      computing_ = false;
      if (quit_) return;
    }
    QMetaObject::invokeMethod(
        this,
        [this, cost, value, gradient, note] {
          ++delivered_;
          emit ready(cost, value, gradient, note);
        },
        Qt::QueuedConnection);
  }
}

}  // namespace lw::app
