// What the panels that run engine jobs on a worker thread share (analysis, study, tuning): the
// worker yields the processor to the window, and progress reaches the window a few times a second.
#pragma once

#include <QMetaObject>
#include <QObject>
#include <chrono>
#include <functional>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace lw::widgets {

/// Called on a worker thread: lower its priority (nice 10), so that the window's event loop (and
/// a software renderer's threads) are scheduled first and the window stays responsive however
/// busy the processors are. Linux schedules threads one by one: this changes only the caller.
inline void runInBackground() { setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10); }

/// A progress callback for the engine (on the worker) that calls `show(permille)` on `receiver`'s
/// thread at most every 100 ms, and always at the end: every repaint of a window with a 3D view
/// recomposes the whole window, which a software renderer pays for.
inline std::function<void(double)> throttledProgress(QObject* receiver, std::function<void(int)> show) {
  using Clock = std::chrono::steady_clock;
  return [receiver, show = std::move(show), last = Clock::time_point{}, shown = -1](double f) mutable {
    const int permille = static_cast<int>(1000 * f);
    const auto now = Clock::now();
    if (permille == shown || (permille < 1000 && now - last < std::chrono::milliseconds(100))) return;
    last = now;
    shown = permille;
    QMetaObject::invokeMethod(receiver, [show, permille] { show(permille); }, Qt::QueuedConnection);
  };
}

}  // namespace lw::widgets
