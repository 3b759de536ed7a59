#include "document.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>
#include <QUuid>

#include "simulation/assembly.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"

namespace lw::app {
namespace {

// A design parameter's value changed; undo restores the old one.
class SetParameterCommand : public QUndoCommand {
 public:
  SetParameterCommand(Document* d, int index, double before, double after, const QString& name)
      : QUndoCommand(QObject::tr("Set %1 = %2").arg(name).arg(after)), d_(d), index_(index), before_(before), after_(after) {}
  void redo() override { d_->setParameter(index_, after_); }
  void undo() override { d_->setParameter(index_, before_); }

 private:
  Document* d_;
  int index_;
  double before_, after_;
};

// any other edit: the whole mechanism before and after
class ReplaceMechanismCommand : public QUndoCommand {
 public:
  ReplaceMechanismCommand(Document* d, Mechanism before, Mechanism after, const QString& text)
      : QUndoCommand(text), d_(d), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { d_->replace(after_); }
  void undo() override { d_->replace(before_); }

 private:
  Document* d_;
  Mechanism before_, after_;
};

}  // namespace

Document::Document(QObject* parent)
    : QObject(parent),
      session_(QUuid::createUuid().toString(QUuid::Id128)),
      lock_(std::make_unique<QLockFile>(autosaveDir() + "/locks/" + session_ + ".lock")),
      undo_(new QUndoStack(this)),
      autosaveTimer_(new QTimer(this)) {
  QDir().mkpath(autosaveDir() + "/locks");
  lock_->setStaleLockTime(0);  // stale only when its process is gone, never by age
  lock_->tryLock(0);
  connect(undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { setModified(!clean); });
  connect(undo_, &QUndoStack::indexChanged, this, [this] { autosaveDirty_ = true; });
  autosaveTimer_->setInterval(30000);
  connect(autosaveTimer_, &QTimer::timeout, this, &Document::autosaveNow);
  autosaveTimer_->start();
}

Document::~Document() = default;  // the lock is released: what is left of this session is recoverable

void Document::setModified(bool modified) {
  if (modified_ == modified) return;
  modified_ = modified;
  emit modifiedChanged(modified);
}

void Document::reset(const Mechanism& m, const QString& path) {
  discardAutosave();
  path_ = path;
  undo_->clear();  // edits of another document cannot be undone here
  setModified(false);
  replace(m);
}

bool Document::saveTo(const QString& path, std::string& error) {
  if (!io::saveMechanismFile(mechanism_, path.toStdString(), error)) return false;
  discardAutosave();  // under the old name
  path_ = path;
  undo_->setClean();
  setModified(false);
  return true;
}

QString Document::whyInvalid(const Mechanism& m) {
  Diagnostics d;
  if (resolve(m, d)) return {};
  for (const auto& x : d)
    if (x.isError()) return QString::fromStdString(x.format());
  return tr("the mechanism does not resolve");
}

QString Document::apply(Mechanism after, const QString& description, QString* assembled) {
  const analysis::AssemblyResult a = analysis::closeOpenedJoints(mechanism_, after);
  if (!a.ok) return QString::fromStdString(a.error);
  if (assembled) *assembled = QString::fromStdString(a.description);
  undo_->push(new ReplaceMechanismCommand(this, mechanism_, std::move(after), description));
  return {};
}

void Document::pushParameter(int index, double value) {
  const Parameter& p = mechanism_.parameters[static_cast<std::size_t>(index)];
  undo_->push(new SetParameterCommand(this, index, p.value.value, value, QString::fromStdString(p.name)));
}

void Document::replace(const Mechanism& m) {
  mechanism_ = m;
  emit changed();
}

void Document::setParameter(int index, double value) {
  mechanism_.parameters[static_cast<std::size_t>(index)].value = Number(value);
  emit changed();
}

void Document::setAnalysisSpan(double tEnd, double dt) {
  if (mechanism_.analysis.tEnd == tEnd && mechanism_.analysis.dt == dt) return;
  mechanism_.analysis.tEnd = tEnd;
  mechanism_.analysis.dt = dt;
  setModified(true);
  autosaveDirty_ = true;
}

void Document::setStudy(const StudySettings& s) {
  mechanism_.study = s;
  setModified(true);
  autosaveDirty_ = true;
}

// ---- autosave and recovery ----

QString Document::autosaveDir() { return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave"; }

QString Document::autosaveFile() const {
  const QString base = path_.isEmpty() ? QStringLiteral("untitled") : QFileInfo(path_).completeBaseName();
  return autosaveDir() + "/" + session_ + "-" + base + ".json";
}

QString Document::autosaveNow() {
  if (mechanism_.bodies.empty() || !modified_ || !autosaveDirty_) return {};
  QDir().mkpath(autosaveDir());
  const QString file = autosaveFile();
  std::string err;
  if (!io::saveMechanismFile(mechanism_, file.toStdString(), err)) {
    emit message(tr("Autosave failed: %1").arg(QString::fromStdString(err)));
    return {};
  }
  QFile origin(file + ".origin");  // where the document belongs, for recovery
  if (origin.open(QIODevice::WriteOnly | QIODevice::Truncate)) origin.write(path_.toUtf8());
  autosaveDirty_ = false;
  return file;
}

void Document::discardAutosave() {
  QDir dir(autosaveDir());
  const QString prefix = session_ + "-";
  for (const QString& f : dir.entryList({prefix + "*"}, QDir::Files)) dir.remove(f);
  autosaveDirty_ = true;  // the next modification autosaves again
}

QStringList Document::recoverableFiles() {
  QStringList out;
  const QDir dir(autosaveDir());
  for (const QFileInfo& f : dir.entryInfoList({"*.json"}, QDir::Files, QDir::Time)) {
    // its session's lock: held by a running window (this one's too), or free (stale: that window
    // crashed, or none ever held it)
    QDir().mkpath(dir.filePath("locks"));
    QLockFile lock(dir.filePath("locks/" + f.fileName().section('-', 0, 0) + ".lock"));
    lock.setStaleLockTime(0);
    if (lock.tryLock(0)) lock.unlock();
    else if (lock.error() == QLockFile::LockFailedError) continue;  // held: its window runs
    out << f.absoluteFilePath();
  }
  return out;
}

bool Document::readAutosave(const QString& autosave, Mechanism& m, QString& path, QStringList& problems) {
  io::LoadResult r = io::loadMechanismFile(autosave.toStdString());
  if (!r.ok()) {
    // kept for a rescue by hand, but not offered again at every start
    const QString kept = autosave + ".unrecoverable";
    QFile::remove(kept);
    QFile::rename(autosave, kept);
    for (const auto& d : r.diagnostics) problems << QString::fromStdString(d.format(autosave.toStdString()));
    problems << tr("%1 could not be recovered; it is kept as %2").arg(autosave, kept);
    return false;
  }
  QFile origin(autosave + ".origin");
  path = origin.open(QIODevice::ReadOnly) ? QString::fromUtf8(origin.readAll()) : QString();
  m = *r.mechanism;
  return true;
}

void Document::recoveredFrom(const QString& autosave) {
  undo_->resetClean();  // unsaved: the file on disk is older
  setModified(true);
  autosaveDirty_ = true;
  autosaveNow();  // under this process, before the old copy goes
  QFile::remove(autosave);
  QFile::remove(autosave + ".origin");
}

}  // namespace lw::app
