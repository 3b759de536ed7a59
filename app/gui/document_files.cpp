// The main window's documents: new, open, save (atomic), recent files, autosave and recovery.
// Part of MainWindow (main_window.h).
#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTime>
#include <QTimer>
#include <Eigen/Core>
#include <QActionGroup>
#include <QTreeWidgetItem>
#include <QLineEdit>
#include <QInputDialog>
#include <QMenu>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "simulation/assembly.h"
#include "simulation/result_size.h"
#include "document.h"
#include "help.h"
#include "playback_presenter.h"
#include "media_export.h"
#include "dynamics/recursive_model.h"
#include "io/mechanism_io.h"
#include "plots/gradient_plot.h"
#include "plots/history_plot.h"
#include "mechanism/resolved.h"
#include "panels/analysis_panel.h"
#include "panels/model_tree.h"
#include "panels/parameters_panel.h"
#include "panels/property_editor.h"
#include "panels/contact_dialog.h"
#include "panels/limit_dialog.h"
#include "panels/switch_dialog.h"
#include "panels/driver_dialog.h"
#include "panels/initial_velocity_dialog.h"
#include "panels/force_dialog.h"
#include "panels/joint_dialog.h"
#include "mechanism/fields.h"
#include "panels/samples_gallery.h"
#include "panels/welcome_page.h"
#include "panels/structure_panel.h"
#include "plots/plot_panel.h"
#include "scene/scene_builder.h"
#include "panels/sweep_panel.h"
#include "view3d/scene_view.h"
#include "sketch/sketch_view.h"
#include "kinematics/natural_model.h"
#include "topology/mobility.h"
#include "kinematics/structural_groups.h"

namespace lw::app {
namespace {
constexpr int kMaxRecent = 8;
}  // namespace

void MainWindow::setDocument(const Mechanism& m, const QString& path, const QString& sampleOrigin) {
  // every view starts afresh: a selection, a plot's columns or a filter of the last document
  // would point at the wrong items of this one
  presenter_->clear(true);
  gradients_->clear();
  histories_->clear();
  sweep_->clear();
  tree_->setCurrentItem(nullptr);
  properties_->showItem(QString());
  scene_->setSelection(widgets::SceneView::Pick::Kind::None, -1);
  sampleOrigin_ = sampleOrigin;
  doc_->reset(m, path);  // shown through Document::changed
  setWindowModified(doc_->isModified());
  showDocumentName();
  scene_->resetCamera();
  sketch_->fit();
  views_->setCurrentWidget(scene_);  // an opened mechanism is shown in 3D (New switches to the sketch)
}

void MainWindow::showDocumentName() {
  const QString title = !doc_->path().isEmpty() ? QFileInfo(doc_->path()).fileName()
                        : !sampleOrigin_.isEmpty() ? tr("%1 (sample copy)").arg(QFileInfo(sampleOrigin_).fileName())
                                                   : tr("Untitled");
  setWindowTitle(title + "[*] — Linkwright");
  plots_->setExportBase(suggestedPath(""));
}

QString MainWindow::currentFile() const { return doc_->path(); }
QUndoStack* MainWindow::undoStack() const { return doc_->undoStack(); }

void MainWindow::newDocument() {
  if (!maybeSave()) return;
  setDocument(edit::emptyPlanar("Untitled"), {});
  views_->setCurrentWidget(sketch_);  // a new mechanism is drawn
}

bool MainWindow::openFile(const QString& path, bool interactive) {
  const io::LoadResult r = io::loadMechanismFile(path.toStdString());
  const QString name = QFileInfo(path).fileName();
  if (!r.ok()) {
    QStringList lines;
    int errors = 0;
    for (const auto& d : r.diagnostics) {
      lines << QString::fromStdString(d.format(name.toStdString()));
      errors += d.isError();
    }
    for (const QString& l : lines) log(l);
    log(tr("%1 was not opened; the current document is unchanged").arg(name));
    if (interactive) {
      QMessageBox box(QMessageBox::Warning, tr("Cannot open %1").arg(name),
                      (r.ioError ? tr("The file could not be read.")
                                 : errors == 1 ? tr("%1 is not a valid mechanism: 1 problem found.").arg(name)
                                               : tr("%1 is not a valid mechanism: %2 problems found.").arg(name).arg(errors)) +
                          tr(" The current document is unchanged."),
                      QMessageBox::Ok, this);
      box.setInformativeText(lines.mid(0, 5).join("\n"));
      box.setDetailedText(lines.join("\n"));
      box.exec();
    }
    return false;
  }
  for (const auto& d : r.diagnostics) log(QString::fromStdString(d.format(name.toStdString())));
  if (const QString why = tooLargeForTheWindow(*r.mechanism, memoryLimit_); !why.isEmpty()) {
    log(tr("%1 was not opened: %2; the current document is unchanged").arg(name, why));
    if (interactive) QMessageBox::warning(this, tr("Cannot open %1").arg(name), tr("%1 was not opened: %2.").arg(name, why));
    return false;
  }
  // a sample opens as an untitled copy: its first Save asks where (Enter on the close prompt wrote
  // into the installed samples)
  const bool sample = QFileInfo(path).canonicalPath() == QDir(samplesDir()).canonicalPath();
  setDocument(*r.mechanism, sample ? QString() : path, sample ? QFileInfo(path).absoluteFilePath() : QString());
  addRecent(QFileInfo(path).absoluteFilePath());
  log(sample ? tr("Opened a copy of the sample %1 (Save asks where to keep it)").arg(path) : tr("Opened %1").arg(path));
  return true;
}

QString MainWindow::tooLargeForTheWindow(const Mechanism& m, double limitBytes) {
  // the window holds about 26 kB per body and joint with its model rows, drawn as instances
  // (measured: grid 100 × 100, 50 200 parts, 1.46 GB); it allows itself half the machine's
  // memory: a grid of 300 × 300 squares grew to 8 GB without ever showing
  const double parts = static_cast<double>(m.bodies.size() + m.joints.size());
  const double bytes = 180e6 + 26e3 * parts, limit = limitBytes > 0 ? limitBytes : analysis::defaultResultBytesLimit();
  if (bytes <= limit) return {};
  return tr("its %1 bodies and %2 joints would take about %3 in the window, more than the %4 it allows itself (%5); "
            "analyse it with linkwright-cli (check, kinematics, simulate, sensitivity)")
      .arg(m.bodies.size())
      .arg(m.joints.size())
      .arg(QString::fromStdString(analysis::byteSize(bytes)), QString::fromStdString(analysis::byteSize(limit)),
           limitBytes > 0 ? tr("its limit") : tr("half of this machine's memory"));
}

QString MainWindow::suggestedPath(const QString& suffix) const {
  const QString source = !doc_->path().isEmpty() ? doc_->path() : sampleOrigin_;
  const QString base = source.isEmpty() ? tr("mechanism") : QFileInfo(source).completeBaseName();
  QString folder = !doc_->path().isEmpty() ? QFileInfo(doc_->path()).absolutePath()
                                           : QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (folder.isEmpty() || !QDir(folder).exists()) folder = QDir::homePath();
  return QDir(folder).filePath(base + suffix);
}

void MainWindow::open() {
  if (!maybeSave()) return;
  const QString dir = doc_->path().isEmpty() ? samplesDir() : QFileInfo(doc_->path()).absolutePath();
  const QString file = QFileDialog::getOpenFileName(this, tr("Open mechanism"), dir,
                                                    tr("Linkwright mechanisms (*.json);;All files (*)"));
  if (!file.isEmpty()) openFile(file);
}

void MainWindow::showSamples() {
  if (!maybeSave()) return;
  widgets::SamplesGallery gallery(samplesDir(), this);
  if (gallery.exec() == QDialog::Accepted && !gallery.selectedFile().isEmpty())
    openFile(gallery.selectedFile());
}

bool MainWindow::saveTo(const QString& path) {
  if (mechanism_->bodies.empty()) {
    QMessageBox::information(this, tr("Nothing to save"), tr("The mechanism is empty."));
    return false;
  }
  std::string err;
  if (!doc_->saveTo(path, err)) {
    log(QString::fromStdString(err));
    QMessageBox::critical(this, tr("Cannot save"), QString::fromStdString(err));
    return false;
  }
  setWindowModified(false);
  sampleOrigin_.clear();  // saved: a document of its own
  showDocumentName();
  addRecent(QFileInfo(path).absoluteFilePath());
  log(tr("Saved %1").arg(path));
  return true;
}

bool MainWindow::save() { return doc_->path().isEmpty() ? saveAs() : saveTo(doc_->path()); }

bool MainWindow::saveAs() {
  const QString file = QFileDialog::getSaveFileName(this, tr("Save mechanism"), suggestedPath(".json"),
                                                    tr("Linkwright mechanisms (*.json)"));
  if (file.isEmpty()) return false;
  return saveTo(file.endsWith(".json") ? file : file + ".json");
}

QString MainWindow::autosaveDir() { return Document::autosaveDir(); }
QStringList MainWindow::recoverableFiles() { return Document::recoverableFiles(); }
QString MainWindow::autosaveNow() { return doc_->autosaveNow(); }

bool MainWindow::recover(const QString& autosave) {
  Mechanism m;
  QString path;
  QStringList problems;
  if (!Document::readAutosave(autosave, m, path, problems)) {
    for (const QString& p : problems) log(p);
    statusBar()->showMessage(tr("The autosave could not be recovered (see Messages)"), 8000);
    return false;
  }
  if (const QString why = tooLargeForTheWindow(m, memoryLimit_); !why.isEmpty()) {  // kept on disk for the CLI
    log(tr("%1 was not recovered: %2").arg(autosave, why));
    return false;
  }
  setDocument(m, path);
  doc_->recoveredFrom(autosave);
  setWindowModified(true);
  log(tr("Recovered %1 from %2").arg(path.isEmpty() ? tr("an untitled mechanism") : path, autosave));
  return true;
}

bool MainWindow::offerRecovery() {
  const QStringList files = recoverableFiles();
  if (files.isEmpty()) return false;
  const auto answer = QMessageBox::question(
      this, tr("Recover unsaved work"),
      tr("Linkwright did not close normally. Recover the unsaved mechanism (%1 found)?\n"
         "No keeps the files in %2.").arg(files.size()).arg(autosaveDir()));
  return answer == QMessageBox::Yes && recover(files.first());
}

bool MainWindow::maybeSave() {
  if (!isWindowModified()) return true;
  const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                           tr("The mechanism has unsaved changes. Save them?"),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  settings.setValue("recentFiles", files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = QSettings().value("recentFiles").toStringList();
  for (const QString& f : files) {
    QAction* a = recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] {
      if (maybeSave()) openFile(f);
    });
    a->setStatusTip(f);
  }
  recentMenu_->setEnabled(!files.isEmpty());
  welcome_->setRecentFiles(files);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  doc_->discardAutosave();
  setStartPageMode(false);  // the docks as the user arranged them, not hidden by the Start page
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState(kLayoutVersion));
  event->accept();
}

}  // namespace lw::app
