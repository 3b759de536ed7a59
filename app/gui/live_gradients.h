// Live gradients for the Parameters panel (issue 22, teaching): while a parameter's slider is
// dragged, the first cost's gradient of each design is computed on a worker thread, the latest
// design winning (designs asked for while one is computed are skipped but the last). A fully
// driven mechanism's are kinematic (milliseconds: they follow the slider); any other's are the
// dynamics' over the file's run (the direct method: about a second for the five-bar's 5 s), a
// computation older than kStale given up for the newer design, so they follow the slider's rests.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace lw {
struct Mechanism;
}

namespace lw::app {

class LiveGradients : public QObject {
  Q_OBJECT
 public:
  explicit LiveGradients(QObject* parent = nullptr);
  ~LiveGradients() override;
  /// Computes the gradient of `m`'s first cost (none: ready() with an empty cost and the reason).
  void request(std::shared_ptr<const Mechanism> m);
  /// Gradients delivered so far.
  int delivered() const { return delivered_; }
  /// True while a design is being computed or waits.
  bool busy() const;

 signals:
  /// `gradient` by parameter (the mechanism's order); empty `cost`: nothing to show, `note` says why.
  void ready(const QString& cost, double value, const std::vector<double>& gradient, const QString& note);

 private:
  void loop();
  std::thread worker_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::shared_ptr<const Mechanism> pending_;
  bool quit_ = false, computing_ = false;
  std::atomic<bool> cancel_{false};
  int delivered_ = 0;
  std::chrono::steady_clock::time_point started_;  // of the computation under way
  static constexpr std::chrono::milliseconds kStale{250};
};

}  // namespace lw::app
