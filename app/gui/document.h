// The open document: its mechanism, its file, its undo history and autosave, and the edit guard
// every change passes. No widgets: the main window shows the mechanism again whenever `changed`
// is emitted and puts `message`s in Messages.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <string>

#include "mechanism/mechanism.h"

class QLockFile;
class QTimer;
class QUndoStack;

namespace lw::app {

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);
  ~Document() override;

  const Mechanism& mechanism() const { return mechanism_; }
  /// The file it was opened from or saved to ("" while untitled).
  QString path() const { return path_; }
  QUndoStack* undoStack() const { return undo_; }
  /// Changed since it was opened or saved: an edit, or study choices kept without an undo step.
  bool isModified() const { return modified_; }

  /// Another document: `m` from `path` ("": untitled), no undo history, the last one's autosave
  /// removed (it was saved or discarded before).
  void reset(const Mechanism& m, const QString& path);
  /// Written to `path` (atomically): unmodified from here, under that name. False with `error`.
  bool saveTo(const QString& path, std::string& error);

  // ---- changes ----
  /// Why `m` is not a valid mechanism (its first error), or "".
  static QString whyInvalid(const Mechanism& m);
  /// The edit guard every edit passes: a joint `after` opened is closed by assembling the
  /// mechanism again (the moved bodies are part of the same step), else the edit is refused.
  /// Kept as one undo step named `description`. Returns "" when kept, else the reason;
  /// `assembled` gets what the assembly did ("" when nothing).
  QString apply(Mechanism after, const QString& description, QString* assembled = nullptr);
  /// Design parameter `index` set to `value` as one undo step named after it (the caller checked
  /// that the mechanism still assembles).
  void pushParameter(int index, double value);
  /// No undo step: what the undo commands and a live drag use.
  void replace(const Mechanism& m);
  void setParameter(int index, double value);
  /// The analysis span (end time, step) kept with the document, as the study's choices.
  void setAnalysisSpan(double tEnd, double dt);
  /// The study's choices kept with the document: modified and autosaved, no undo step.
  void setStudy(const StudySettings& s);

  // ---- autosave and recovery: a modified document is written every 30 s to the autosave folder
  // (named by process id, its original path beside it) and removed when it is saved, discarded or
  // closed; files of a process that is no longer running are offered at start-up ----
  static QString autosaveDir();
  /// Autosaves left by sessions that are not running any more.
  static QStringList recoverableFiles();
  /// Writes the autosave now if the document changed since the last one; its path, or "".
  QString autosaveNow();
  void discardAutosave();
  /// An autosave's mechanism and original path. False (the file kept as *.unrecoverable, the
  /// reasons in `problems`) if it does not load.
  static bool readAutosave(const QString& autosave, Mechanism& m, QString& path, QStringList& problems);
  /// The document was just reset from `autosave`: modified (the file on disk is older),
  /// autosaved under this process, the old copy removed.
  void recoveredFrom(const QString& autosave);

 signals:
  /// The mechanism was replaced (an edit, undo, redo, another document): show it again.
  void changed();
  void modifiedChanged(bool modified);
  /// A line for Messages (an autosave that failed).
  void message(const QString& line);

 private:
  void setModified(bool modified);
  QString autosaveFile() const;
  // Autosaves are named by a session of their own, locked for the document's life (QLockFile:
  // a lock whose process died, even by kill -9, is stale at once; a process id that another
  // process got since is not mistaken for it). No other window's files are touched.
  QString session_;
  std::unique_ptr<QLockFile> lock_;
  Mechanism mechanism_;
  QString path_;
  QUndoStack* undo_ = nullptr;
  QTimer* autosaveTimer_ = nullptr;
  bool modified_ = false;
  bool autosaveDirty_ = false;  // changed since the last autosave
};

}  // namespace lw::app
