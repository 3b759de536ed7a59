#include "panels/study_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>

#include "plots/history_plot.h"
#include "sensitivity/sensitivity.h"
#include "panels/background_job.h"
#include "panels/time_fields.h"

namespace lw::widgets {
namespace {

struct MethodChoice {
  const char* label;
  const char* key;  // as in the file and the CLI
  const char* tip;
};
const MethodChoice kMethods[] = {
    {"Direct (DDM)", "ddm", "Differentiates every step beside the run: exact, one pass per eight parameters; sensitivity histories"},
    {"Adjoint (AVM)", "avm", "One backward pass for all parameters (checkpoints): fast for many parameters"},
    {"Complex step", "cs", "The run again in complex arithmetic per parameter: exact to round-off, the reference"},
    {"Finite differences", "fd", "Central differences of whole runs, two per parameter: approximate"},
    {"Compare all", "compare", "Every method, side by side with their relative differences and times"},
};
enum Column { kCheck, kName, kValue, kRange };

}  // namespace

StudyPanel::StudyPanel(QWidget* parent) : QWidget(parent) {
  costs_ = new QListWidget(this);
  costs_->setObjectName("StudyCosts");
  costs_->setToolTip(tr("The costs whose gradients are computed (the file's \"costs\"); double-click one to change it"));
  costs_->setMaximumHeight(64);
  parameters_ = new QTableWidget(0, 4, this);
  parameters_->setObjectName("StudyParameters");
  parameters_->setHorizontalHeaderLabels({QString(), tr("Parameter"), tr("Value"), tr("Range")});
  parameters_->verticalHeader()->hide();
  parameters_->horizontalHeader()->setStretchLastSection(true);
  parameters_->setSelectionMode(QAbstractItemView::NoSelection);
  parameters_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  parameters_->setToolTip(tr("The design parameters to differentiate with respect to, and to tune; double-click a range to "
                             "change it (0.5 … 1.5)"));
  parameters_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  parameters_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  analysis_ = new QComboBox(this);
  analysis_->addItem(tr("Dynamics"), "dynamics");
  analysis_->addItem(tr("Kinematics (driven)"), "kinematics");
  analysis_->setToolTip(tr("Dynamics: the motion under forces (trapezoidal rule); kinematics: a fully driven mechanism's motion"));
  formulation_ = new QComboBox(this);
  formulation_->setObjectName("StudyFormulation");
  const std::pair<const char*, const char*> formulations[] = {
      {"Matrix R", "matrix-r"}, {"Penalty", "penalty"}, {"Index-3 (global)", "index3"}, {"Index-1 (global)", "index1"}, {"Penalty (global)", "penalty-global"}};
  const char* formulationTips[] = {
      "Semi-recursive Matrix R in independent coordinates (seed 000); parameter partials by forward AD",
      "Semi-recursive penalty formulation in all the tree's coordinates (seed 004); partials by forward AD",
      "Index-3 augmented Lagrangian with projections in natural coordinates (seeds 001, 003); parameter partials by forward AD",
      "Index-1 with Baumgarte stabilisation in natural coordinates (seed 003); parameter partials by forward AD",
      "Penalty formulation in natural coordinates (seed 001); parameter partials by forward AD"};
  for (std::size_t i = 0; i < std::size(formulations); ++i) {
    formulation_->addItem(tr(formulations[i].first), formulations[i].second);
    formulation_->setItemData(static_cast<int>(i), tr(formulationTips[i]), Qt::ToolTipRole);
  }
  formulation_->setToolTip(tr("The formulation of the dynamics whose gradients are computed (the same motion, to its discretisation)"));
  method_ = new QComboBox(this);
  for (const auto& m : kMethods) {
    method_->addItem(tr(m.label), m.key);
    method_->setItemData(method_->count() - 1, tr(m.tip), Qt::ToolTipRole);
  }
  method_->setToolTip(tr("How the gradients are computed; Compare runs all of them"));
  tEnd_ = secondsField(this, false);
  dt_ = secondsField(this, true);
  run_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run Study"), this);
  run_->setObjectName("RunStudy");
  run_->setToolTip(tr("Compute the gradients of the chosen costs in the background (Ctrl+G)"));
  // its key (Ctrl+G) is the Analysis menu's action, listed in Help > Keyboard Shortcuts
  stop_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"), this);
  stop_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  status_ = new QLabel(tr("No mechanism"), this);
  status_->setWordWrap(true);
  status_->setMinimumHeight(2 * fontMetrics().lineSpacing() + 4);  // two lines: the table gives way, not the outcome

  auto* form = new QFormLayout;
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  form->addRow(tr("Analysis"), analysis_);
  form->addRow(tr("Formulation"), formulation_);
  form->addRow(tr("Method"), method_);
  form->addRow(tr("End time"), tEnd_);
  form->addRow(tr("Step"), dt_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(stop_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Costs"), this));
  layout->addWidget(costs_);
  layout->addWidget(new QLabel(tr("Parameters"), this));
  layout->addWidget(parameters_, 1);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(progress_);
  layout->addWidget(status_);

  connect(run_, &QPushButton::clicked, this, &StudyPanel::run);
  connect(stop_, &QPushButton::clicked, this, &StudyPanel::stop);
  auto changed = [this] {
    if (!filling_) emit settingsChanged();
  };
  connect(costs_, &QListWidget::itemChanged, this, changed);
  connect(costs_, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) { emit costChangeRequested(item->text()); });
  connect(parameters_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (filling_) return;
    if (item->column() != kRange) return emit settingsChanged();
    // "0.5 … 1.5", "0.5..1.5", "0.5, 1.5" or "0.5 to 1.5"; an end left empty (or ∞) has no bound
    QString text = item->text().trimmed();
    const QString name = parameters_->item(item->row(), kName)->text();
    {
      const QSignalBlocker block(parameters_);
      item->setText(item->data(Qt::UserRole).toString());  // shown again when the window accepts it
    }
    if (text.isEmpty() || text == tr("none")) return emit rangeEdited(name, QString(), QString());
    for (const QString& sep : {QStringLiteral("…"), QStringLiteral("..."), QStringLiteral(".."), QStringLiteral(","), QStringLiteral(" to ")})
      if (const auto at = text.indexOf(sep); at > 0 || (at == 0 && sep != QStringLiteral(","))) {
        auto end = [](QString e) {
          e = e.trimmed();
          return e == QStringLiteral("∞") || e == QStringLiteral("−∞") || e == QStringLiteral("-∞") ? QString() : e;
        };
        return emit rangeEdited(name, end(text.left(at)), end(text.mid(at + sep.size())));
      }
    emit message(tr("Range of %1: \"%2\" is not a range: type the least and greatest values as 0.5 … 1.5").arg(name, text));
  });
  connect(analysis_, &QComboBox::currentIndexChanged, this, changed);
  connect(analysis_, &QComboBox::currentIndexChanged, this, [this](int i) { formulation_->setEnabled(i == 0); });
  connect(formulation_, &QComboBox::currentIndexChanged, this, changed);
  connect(method_, &QComboBox::currentIndexChanged, this, changed);
  run_->setEnabled(false);
}

StudyPanel::~StudyPanel() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void StudyPanel::setMechanism(std::shared_ptr<const Mechanism> m) {
  stop();
  ++generation_;
  mechanism_ = std::move(m);
  filling_ = true;
  costs_->clear();
  parameters_->setRowCount(0);
  if (mechanism_) {
    const StudySettings& s = mechanism_->study;
    for (const auto& c : mechanism_->costs) {
      auto* item = new QListWidgetItem(QString::fromStdString(c.name), costs_);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      const bool chosen = s.costs.empty() || std::find(s.costs.begin(), s.costs.end(), c.name) != s.costs.end();
      item->setCheckState(chosen ? Qt::Checked : Qt::Unchecked);
      item->setToolTip(c.type == Cost::Type::Targets ? tr("%1 through %2 target points").arg(QString::fromStdString(c.output)).arg(c.targets.size())
                                                     : QString::fromStdString(c.expression.text()));
    }
    parameters_->setRowCount(static_cast<int>(mechanism_->parameters.size()));
    for (int r = 0; r < parameters_->rowCount(); ++r) {
      const Parameter& p = mechanism_->parameters[static_cast<std::size_t>(r)];
      auto* check = new QTableWidgetItem;
      check->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
      const bool chosen = s.parameters.empty() || std::find(s.parameters.begin(), s.parameters.end(), p.name) != s.parameters.end();
      check->setCheckState(chosen ? Qt::Checked : Qt::Unchecked);
      parameters_->setItem(r, kCheck, check);
      auto* name = new QTableWidgetItem(QString::fromStdString(p.name));
      name->setToolTip(QString::fromStdString(p.description));
      name->setFlags(name->flags() & ~Qt::ItemIsEditable);
      parameters_->setItem(r, kName, name);
      const QString unit = p.unit.empty() ? QString() : " " + QString::fromStdString(p.unit);
      auto* value = new QTableWidgetItem(p.value.isLiteral() ? QString::number(p.value.value, 'g', 6) + unit
                                                             : QString::fromStdString(p.value.expression.text()));
      value->setFlags(value->flags() & ~Qt::ItemIsEditable);
      parameters_->setItem(r, kValue, value);
      QString range = tr("none");
      if (p.hasMin || p.hasMax)
        range = QStringLiteral("%1 … %2").arg(p.hasMin ? QString::number(p.min, 'g', 6) : QStringLiteral("−∞"),
                                             p.hasMax ? QString::number(p.max, 'g', 6) : QStringLiteral("∞"));
      auto* rangeItem = new QTableWidgetItem(range);
      rangeItem->setData(Qt::UserRole, range);
      rangeItem->setToolTip(tr("Double-click to change: the least and greatest values as 0.5 … 1.5 (empty: no range)"));
      parameters_->setItem(r, kRange, rangeItem);
    }
    parameters_->resizeColumnsToContents();
    analysis_->setCurrentIndex(s.analysis == "kinematics" ? 1 : 0);
    // without a stored study, a driven mechanism is studied kinematically
    if (!s.present) analysis_->setCurrentIndex(mechanism_->drivers.empty() ? 0 : 1);
    const int formulation = formulation_->findData(QString::fromStdString(s.formulation));
    formulation_->setCurrentIndex(formulation >= 0 ? formulation : 0);
    formulation_->setEnabled(analysis_->currentIndex() == 0);
    const int method = method_->findData(QString::fromStdString(s.method));
    method_->setCurrentIndex(method >= 0 ? method : 0);
    if (mechanism_->analysis.tEnd > 0) tEnd_->setValue(mechanism_->analysis.tEnd);
    if (mechanism_->analysis.dt > 0) dt_->setValue(mechanism_->analysis.dt);
  }
  filling_ = false;
  const bool ready = mechanism_ && !mechanism_->costs.empty() && !mechanism_->parameters.empty();
  run_->setEnabled(ready && !running_);
  status_->setText(!mechanism_                         ? tr("No mechanism")
                   : mechanism_->costs.empty()         ? tr("The mechanism has no costs: add one (an integral, an end value or target "
                                                            "points of an output) to study its gradients")
                   : mechanism_->parameters.empty()    ? tr("The mechanism has no design parameters to differentiate with respect to")
                                                       : tr("Ready"));
  progress_->setValue(0);
}

std::vector<std::string> StudyPanel::chosenCosts() const {
  std::vector<std::string> out;
  for (int i = 0; i < costs_->count(); ++i)
    if (costs_->item(i)->checkState() == Qt::Checked) out.push_back(costs_->item(i)->text().toStdString());
  return out;
}

std::vector<std::string> StudyPanel::chosenParameters() const {
  std::vector<std::string> out;
  for (int r = 0; r < parameters_->rowCount(); ++r)
    if (parameters_->item(r, kCheck)->checkState() == Qt::Checked) out.push_back(parameters_->item(r, kName)->text().toStdString());
  return out;
}

StudySettings StudyPanel::settings() const {
  StudySettings s = mechanism_ ? mechanism_->study : StudySettings{};
  s.present = true;
  s.analysis = analysis_->currentData().toString().toStdString();
  s.formulation = formulation_->currentData().toString().toStdString();
  s.method = method_->currentData().toString().toStdString();
  // all ticked is stored as "all" (empty): parameters added later are in the study too
  s.costs = chosenCosts();
  if (static_cast<int>(s.costs.size()) == costs_->count()) s.costs.clear();
  s.parameters = chosenParameters();
  if (static_cast<int>(s.parameters.size()) == parameters_->rowCount()) s.parameters.clear();
  return s;
}

void StudyPanel::run() {
  if (!mechanism_ || running_) return;
  if (worker_.joinable()) worker_.join();
  if (chosenCosts().empty() || chosenParameters().empty()) {
    status_->setText(chosenCosts().empty() ? tr("Tick at least one cost") : tr("Tick at least one parameter"));
    return;
  }
  sens::SensitivitySpec spec;
  sens::parseMethod(method_->currentData().toString().toStdString(), spec.method);
  spec.analysis = analysis_->currentIndex() == 1 ? sens::Analysis::Kinematics : sens::Analysis::Dynamics;
  if (spec.analysis == sens::Analysis::Dynamics) analysis::parseFormulation(formulation_->currentData().toString().toStdString(), spec.run.formulation);
  spec.costs = chosenCosts();
  spec.parameters = chosenParameters();
  spec.run.tEnd = tEnd_->value();
  spec.run.dt = dt_->value();
  // the direct method's histories, kept for the plot: at most 4·10⁶ numbers (32 MB), rows thinned
  // out evenly between impacts, both rows of an impact always kept
  std::shared_ptr<StudyHistories> histories;
  if (spec.method == sens::Method::Direct || spec.method == sens::Method::Compare) {
    histories = std::make_shared<StudyHistories>();
    struct Thinning {
      double every = 0, lastKept = -INFINITY;
      std::vector<double> previous;
      bool previousKept = false;
    };
    auto thin = std::make_shared<Thinning>();
    const double tEnd = spec.run.tEnd;
    spec.histories = [histories, thin, tEnd](const std::vector<std::string>& columns, std::span<const double> rows) {
      const std::size_t nc = columns.size();
      if (histories->columns.empty()) {
        histories->columns = columns;
        for (std::size_t c = 1; c < nc && columns[c].rfind("d(", 0) != 0; ++c) histories->outputs.push_back(columns[c]);
        thin->every = tEnd * static_cast<double>(nc) / 4e6;
      }
      for (std::size_t r = 0; r + nc <= rows.size(); r += nc) {
        const double t = rows[r];
        const bool jump = !thin->previous.empty() && thin->previous[0] == t;
        if (jump && !thin->previousKept) histories->values.insert(histories->values.end(), thin->previous.begin(), thin->previous.end());
        const bool keep = jump || t - thin->lastKept >= thin->every;
        if (keep) {
          histories->values.insert(histories->values.end(), rows.begin() + static_cast<long>(r), rows.begin() + static_cast<long>(r + nc));
          thin->lastKept = t;
        }
        thin->previous.assign(rows.begin() + static_cast<long>(r), rows.begin() + static_cast<long>(r + nc));
        thin->previousKept = keep;
      }
    };
  }
  cancel_ = false;
  running_ = true;
  run_->setEnabled(false);
  stop_->setEnabled(true);
  progress_->setValue(0);
  status_->setText(tr("Computing gradients..."));
  auto mech = mechanism_;
  const unsigned generation = generation_;
  worker_ = std::thread([this, spec, mech, generation, histories] {
    runInBackground();
    const auto started = std::chrono::steady_clock::now();
    auto progress = throttledProgress(this, [this](int permille) { progress_->setValue(permille); });
    auto r = std::make_shared<sens::SensitivityResult>(sens::runSensitivity(*mech, spec, progress, &cancel_));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    QMetaObject::invokeMethod(this, [this, r, histories, generation, seconds] { finish(r, histories, generation, seconds); }, Qt::QueuedConnection);
  });
}

void StudyPanel::stop() {
  if (running_) cancel_ = true;
}

void StudyPanel::finish(std::shared_ptr<sens::SensitivityResult> r, std::shared_ptr<StudyHistories> h, unsigned generation,
                        double seconds) {
  if (worker_.joinable()) worker_.join();
  running_ = false;
  run_->setEnabled(mechanism_ != nullptr);
  stop_->setEnabled(false);
  if (generation != generation_) return;  // the mechanism changed while it ran
  if (!r->status.ok()) {
    const QString why = QString::fromStdString(r->status.message);
    status_->setText(tr("Stopped: %1").arg(why));
    emit message(tr("Sensitivity study: %1").arg(why));
    return;
  }
  progress_->setValue(1000);
  const QString summary = tr("Gradients of %1 cost(s) with respect to %2 parameter(s) over %3 steps, in %4 s")
                              .arg(r->costs.size())
                              .arg(r->parameters.size())
                              .arg(r->steps)
                              .arg(seconds, 0, 'g', 3);
  status_->setText(summary);
  emit message(tr("Sensitivity study: %1").arg(summary));
  for (const auto& n : r->notes) emit message(tr("Note: %1").arg(QString::fromStdString(n)));
  if (h) {
    h->parameters = r->parameters;
    h->impacts = r->impacts;
    emit historiesReady(h);
  }
  emit finished(r);
}

}  // namespace lw::widgets
