#include "panels/analysis_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "analysis/run.h"
#include "outputs/outputs.h"
#include "simulation/simulation_run.h"
#include "mechanism/resolved.h"
#include "panels/background_job.h"
#include "panels/time_fields.h"

namespace lw::widgets {
namespace {

struct Choice {
  const char* label;
  const char* tip;
  bool kinematics;
  analysis::KinematicsMethod method;
  analysis::Formulation formulation;
  analysis::Integrator integrator;
};
// short labels (a side dock is narrow); the tooltips say the rest
const Choice kChoices[] = {
    {"Kinematics: structural groups", "The drivers move the mechanism group by group (modular, seed 002)", true,
     analysis::KinematicsMethod::ModularTD, {}, {}},
    {"Kinematics: global", "The drivers move the mechanism; all constraints solved together (sparse)", true,
     analysis::KinematicsMethod::GlobalSparse, {}, {}},
    {"Dynamics: Matrix R, trapezoidal", "Motion under forces: semi-recursive Matrix R, trapezoidal rule (seed 000)", false,
     {}, analysis::Formulation::MatrixR, analysis::Integrator::Trapezoidal},
    {"Dynamics: Matrix R, RK45", "Motion under forces: semi-recursive Matrix R, adaptive Runge–Kutta 4(5)", false, {},
     analysis::Formulation::MatrixR, analysis::Integrator::RK45},
    {"Dynamics: penalty", "Motion under forces: penalty formulation, trapezoidal rule (seed 004)", false, {},
     analysis::Formulation::Penalty, analysis::Integrator::Trapezoidal},
    // the global formulations on natural coordinates
    {"Dynamics: index-3 (global)",
     "Motion under forces in natural coordinates: index-3 augmented Lagrangian with projections, trapezoidal rule "
     "(seeds 001, 003)",
     false, {}, analysis::Formulation::Index3, analysis::Integrator::Trapezoidal},
    {"Dynamics: index-1, RK45 (global)",
     "Motion under forces in natural coordinates: index-1 with Baumgarte stabilisation, adaptive Runge–Kutta 4(5) "
     "(seed 003)",
     false, {}, analysis::Formulation::Index1, analysis::Integrator::RK45},
    {"Dynamics: penalty (global)",
     "Motion under forces in natural coordinates: penalty formulation, adaptive Runge–Kutta 4(5) (seed 001)",
     false, {}, analysis::Formulation::PenaltyGlobal, analysis::Integrator::RK45},
};

const Choice& choiceAt(int index) { return kChoices[std::clamp(index, 0, static_cast<int>(std::size(kChoices)) - 1)]; }

}  // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent) : QWidget(parent) {
  choice_ = new QComboBox(this);
  for (const auto& c : kChoices) {
    choice_->addItem(tr(c.label));
    choice_->setItemData(choice_->count() - 1, tr(c.tip), Qt::ToolTipRole);
  }
  choice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // the whole label; the row wraps when narrow
  choice_->setToolTip(tr("Kinematics drives the mechanism by its drivers; dynamics integrates its motion under forces"));
  tEnd_ = secondsField(this, false);
  dt_ = secondsField(this, true);
  dt_->setToolTip(tr("Time step; for Runge–Kutta, which chooses its own steps, the interval between frames when "
                   "\"Frames every\" is \"every step\""));
  outputDt_ = new QDoubleSpinBox(this);
  outputDt_->setRange(0, 10);
  outputDt_->setDecimals(6);
  outputDt_->setSuffix(" s");
  outputDt_->setSpecialValueText(tr("every step"));
  outputDt_->setValue(0);
  outputDt_->setToolTip(tr("Dynamics: keep a frame every so many seconds (long runs of large models need less memory); "
                           "the simulation still integrates every step. Trapezoidal rule: a whole number of steps; "
                           "Runge–Kutta: any interval, frames from its dense output (it chooses its own steps)"));
  run_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this);
  run_->setToolTip(tr("Run the analysis in the background (Ctrl+R)"));
  // its key (Ctrl+R) is the Analysis menu's action, listed in Help > Keyboard Shortcuts
  stop_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"), this);
  stop_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  status_ = new QLabel(tr("No mechanism"), this);
  status_->setWordWrap(true);
  auto* form = new QFormLayout;
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow dock: the field under its label, never clipped
  form->addRow(tr("Analysis"), choice_);
  for (QDoubleSpinBox* field : {tEnd_, dt_})
    connect(field, &QDoubleSpinBox::valueChanged, this, [this] {
      if (!showing_) emit spanEdited(tEnd_->value(), dt_->value());
    });
  form->addRow(tr("End time"), tEnd_);
  form->addRow(tr("Step"), dt_);
  form->addRow(tr("Frames every"), outputDt_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(stop_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addStretch(1);
  connect(run_, &QPushButton::clicked, this, &AnalysisPanel::run);
  auto showRowsEvery = [this](int index) {
    outputDt_->setEnabled(!choiceAt(index).kinematics);
  };
  connect(choice_, &QComboBox::currentIndexChanged, this, showRowsEvery);
  showRowsEvery(choice_->currentIndex());
  connect(stop_, &QPushButton::clicked, this, &AnalysisPanel::stop);
  run_->setEnabled(false);
}

QString AnalysisPanel::statusText() const { return status_->text(); }

AnalysisPanel::~AnalysisPanel() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void AnalysisPanel::setMechanism(std::shared_ptr<const ResolvedMechanism> m, double tEnd, double dt,
                                 std::shared_ptr<const Mechanism> source) {
  stop();
  ++generation_;
  mechanism_ = std::move(m);
  source_ = std::move(source);
  run_->setEnabled(mechanism_ != nullptr && !running_);
  // a sensible default: kinematics moves a driven mechanism, dynamics one without drivers
  if (mechanism_) choice_->setCurrentIndex(mechanism_->drivers.empty() ? 2 : 0);
  showing_ = true;
  if (tEnd > 0) tEnd_->setValue(tEnd);
  if (dt > 0) dt_->setValue(dt);
  showing_ = false;
  status_->setText(mechanism_ ? tr("Ready") : tr("No mechanism"));
  progress_->setValue(0);
}

void AnalysisPanel::run() {
  if (!mechanism_ || !source_ || running_) return;  // the run resolves the source itself
  if (worker_.joinable()) worker_.join();
  const Choice c = choiceAt(choice_->currentIndex());
  const double tEnd = tEnd_->value(), dt = dt_->value(), outputDt = outputDt_->value();
  cancel_ = false;
  running_ = true;
  run_->setEnabled(false);
  stop_->setEnabled(true);
  progress_->setValue(0);
  status_->setText(tr("Running..."));
  auto source = source_;
  const unsigned generation = generation_;
  worker_ = std::thread([this, c, tEnd, dt, outputDt, source, generation] {
    runInBackground();
    auto progress = throttledProgress(this, [this](int permille) { progress_->setValue(permille); });
    auto r = std::make_shared<RunResults>();
    analysis::AnalysisSpec spec;
    if (c.kinematics) {
      analysis::KinematicsSpec k;
      k.method = c.method;
      k.tEnd = tEnd;
      k.dt = dt;
      spec.job = k;
    } else {
      analysis::SimulationSpec d;
      d.formulation = c.formulation;
      d.integrator = c.integrator;
      d.tEnd = tEnd;
      d.dt = dt;
      d.outputDt = outputDt;
      spec.job = d;
    }
    // the file's outputs become named columns, its costs are evaluated
    analysis::Results out = analysis::run(*source, spec, progress, &cancel_);
    if (auto* s = std::get_if<analysis::SimulationResult>(&out.of)) {
      r->warnings = s->warnings;
      r->events = s->events;
    }
    analysis::RunTable& t = *out.table();
    r->columns = std::move(t.columns);
    r->values = std::move(t.values);
    r->poses = std::move(t.poses);
    r->ok = t.status.ok();
    r->message = t.status.message;
    r->rows = r->columns.empty() ? 0 : r->values.size() / r->columns.size();
    r->units = analysis::columnUnits(r->columns, source.get());
    QMetaObject::invokeMethod(this, [this, r, generation] { finish(r, generation); }, Qt::QueuedConnection);
  });
}

void AnalysisPanel::stop() {
  if (running_) cancel_ = true;
}

void AnalysisPanel::finish(std::shared_ptr<RunResults> r, unsigned generation) {
  if (worker_.joinable()) worker_.join();
  running_ = false;
  run_->setEnabled(mechanism_ != nullptr);
  stop_->setEnabled(false);
  if (generation != generation_) return;  // the mechanism changed while it ran
  if (r->ok) progress_->setValue(1000);
  QString summary = r->ok ? tr("Done: %1 frames").arg(r->rows)
                          : tr("Stopped: %1 (%2 frames kept)").arg(QString::fromStdString(r->message)).arg(r->rows);
  // the events: how many impacts and switches, and when (the first few)
  if (!r->events.empty()) {
    QStringList times;
    for (std::size_t k = 0; k < r->events.size() && k < 4; ++k) times << QString::number(r->events[k].t, 'g', 6);
    if (r->events.size() > 4) times << QStringLiteral("…");
    summary += tr("; %1 at t = %2 s").arg(QString::fromStdString(events::eventCounts(r->events)), times.join(QStringLiteral(", ")));
  }
  // the warnings where the user looks: the panel's status and Messages (a successful run with
  // contacts used to say nothing while bodies went through their floor)
  QString shown = summary;
  for (const auto& w : r->warnings) shown += "\n" + tr("Warning: %1").arg(QString::fromStdString(w));
  status_->setText(shown);
  emit message(summary);
  for (const auto& w : r->warnings) emit message(tr("Warning: %1").arg(QString::fromStdString(w)));
  if (r->rows > 0) emit finished(r);
}

// ---- playback ----

PlaybackBar::PlaybackBar(QWidget* parent) : QWidget(parent) {
  playButton_ = new QToolButton(this);
  playButton_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  playButton_->setToolTip(tr("Play / pause (Space)"));
  playButton_->setShortcut(Qt::Key_Space);
  auto* stepBack = new QToolButton(this);
  stepBack->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
  stepBack->setToolTip(tr("Previous frame"));
  auto* stepFwd = new QToolButton(this);
  stepFwd->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
  stepFwd->setToolTip(tr("Next frame"));
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setToolTip(tr("Scrub through the motion"));
  time_ = new QLabel("t = 0 s", this);
  time_->setMinimumWidth(90);
  speed_ = new QComboBox(this);
  for (const char* s : {"0.1x", "0.25x", "0.5x", "1x", "2x", "4x"}) speed_->addItem(s);
  speed_->setCurrentIndex(3);
  speed_->setToolTip(tr("Playback speed (slow motion for teaching)"));
  loop_ = new QCheckBox(tr("Loop"), this);
  paths_ = new QCheckBox(tr("Paths"), this);
  paths_->setObjectName("ShowPaths");
  paths_->setChecked(true);
  paths_->setToolTip(tr("Show the paths the coupler points trace over the run"));
  connect(paths_, &QCheckBox::toggled, this, &PlaybackBar::showPathsChanged);
  velocities_ = new QCheckBox(tr("Velocities"), this);
  velocities_->setObjectName("ShowVelocities");
  velocities_->setToolTip(tr("Velocity arrows at the points (the fastest point's arrow is a fifth of the motion's size)"));
  connect(velocities_, &QCheckBox::toggled, this, &PlaybackBar::showVelocitiesChanged);
  timer_ = new QTimer(this);
  timer_->setInterval(16);  // about 60 frames per second
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  for (QWidget* w : std::initializer_list<QWidget*>{stepBack, playButton_, stepFwd}) layout->addWidget(w);
  layout->addWidget(slider_, 1);
  layout->addWidget(time_);
  layout->addWidget(speed_);
  layout->addWidget(loop_);
  layout->addWidget(paths_);
  layout->addWidget(velocities_);
  connect(playButton_, &QToolButton::clicked, this, [this] { playing() ? pause() : play(); });
  connect(stepBack, &QToolButton::clicked, this, [this] { pause(); showRow(currentRow() - 1); });
  connect(stepFwd, &QToolButton::clicked, this, [this] { pause(); showRow(currentRow() + 1); });
  connect(slider_, &QSlider::sliderPressed, this, [this] { emit animatingChanged(true); });
  connect(slider_, &QSlider::sliderReleased, this, [this] { emit animatingChanged(playing()); });
  connect(slider_, &QSlider::valueChanged, this, [this](int row) {
    if (!results_ || row < 0 || static_cast<std::size_t>(row) >= results_->rows) return;
    time_->setText(QString("t = %1 s").arg(results_->time(static_cast<std::size_t>(row)), 0, 'f', 3));
    if (!timer_->isActive()) playTime_ = results_->time(static_cast<std::size_t>(row));
    emit rowChanged(row);
  });
  connect(timer_, &QTimer::timeout, this, &PlaybackBar::tick);
  setEnabled(false);
}

void PlaybackBar::setResults(std::shared_ptr<const RunResults> r) {
  pause();
  results_ = std::move(r);
  setEnabled(results_ && results_->rows > 0);
  slider_->setRange(0, results_ ? static_cast<int>(results_->rows) - 1 : 0);
  playTime_ = results_ && results_->rows ? results_->time(0) : 0;
  slider_->setValue(0);
  // the label follows the slider's changes only: a slider already at 0 would keep the old time
  time_->setText(QString("t = %1 s").arg(playTime_, 0, 'f', 3));
  if (results_ && results_->rows) emit rowChanged(0);
}

int PlaybackBar::currentRow() const { return slider_->value(); }
bool PlaybackBar::playing() const { return timer_->isActive(); }
bool PlaybackBar::showPaths() const { return paths_->isChecked(); }
bool PlaybackBar::showVelocities() const { return velocities_->isChecked(); }

void PlaybackBar::play() {
  if (!results_ || results_->rows == 0) return;
  if (currentRow() >= static_cast<int>(results_->rows) - 1) showRow(0);
  playTime_ = results_->time(static_cast<std::size_t>(currentRow()));
  sinceTick_.start();
  timer_->start();
  playButton_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
  emit animatingChanged(true);
}

void PlaybackBar::pause() {
  if (timer_->isActive()) emit animatingChanged(false);
  timer_->stop();
  playButton_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
}

void PlaybackBar::showRow(int row) {
  if (!results_ || results_->rows == 0) return;
  slider_->setValue(std::clamp(row, 0, static_cast<int>(results_->rows) - 1));
}

void PlaybackBar::tick() {
  if (!results_ || results_->rows == 0) return;
  const double speeds[] = {0.1, 0.25, 0.5, 1, 2, 4};
  // the motion advances by the wall-clock time since the last frame (a software renderer beside
  // other work drew 1 s of motion in 10 s when each tick counted 16 ms); a stall longer than a
  // quarter second (a debugger, a suspended machine) is not made up
  const double elapsed = std::min(0.25, static_cast<double>(sinceTick_.restart()) / 1000.0);
  playTime_ += elapsed * speeds[std::clamp(speed_->currentIndex(), 0, 5)];
  const double last = results_->time(results_->rows - 1);
  if (playTime_ > last) {
    if (loop_->isChecked()) {
      playTime_ = results_->time(0);
    } else {
      showRow(static_cast<int>(results_->rows) - 1);
      pause();
      return;
    }
  }
  // the last row not after the playback time (frames are skipped when they come faster than 60 Hz)
  std::size_t lo = 0, hi = results_->rows - 1;
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (results_->time(mid) <= playTime_) lo = mid;
    else hi = mid - 1;
  }
  if (static_cast<int>(lo) != currentRow()) slider_->setValue(static_cast<int>(lo));
}

}  // namespace lw::widgets
