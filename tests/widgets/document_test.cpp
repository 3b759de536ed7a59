// The document on its own (no window): the edit guard keeps an edit as one undo step or refuses it
// with the reason and leaves everything as it was; parameters, undo and the modified state; study
// choices kept without an undo step; autosave written, read back and removed; save.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QDir>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <chrono>
#include <cstdio>
#include <thread>

#include "document.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"
#include "support/samples.h"

namespace lw::app {
namespace {

double parameter(const Document& d, const std::string& name) {
  for (const auto& p : d.mechanism().parameters)
    if (p.name == name) return p.value.value;
  throw std::runtime_error("no parameter " + name);
}

int indexOf(const Mechanism& m, const std::string& name) {
  for (std::size_t i = 0; i < m.parameters.size(); ++i)
    if (m.parameters[i].name == name) return static_cast<int>(i);
  return -1;
}

TEST(Document, AnEditIsOneUndoStepAndABrokenOneIsRefusedLeavingAllAsItWas) {
  Document doc;
  const Mechanism start = test::sampleMechanism("four-bar-synthesis");
  QSignalSpy changed(&doc, &Document::changed);
  doc.reset(start, "/tmp/x.json");
  EXPECT_EQ(changed.count(), 1);
  EXPECT_FALSE(doc.isModified());
  EXPECT_EQ(doc.undoStack()->count(), 0);
  EXPECT_EQ(doc.path(), "/tmp/x.json");
  // a coupler of 3.3 m: the loop closes again (assembled), one step
  Mechanism longer = doc.mechanism();
  longer.parameters[static_cast<std::size_t>(indexOf(longer, "L2"))].value = Number(3.3);
  QString assembled;
  EXPECT_EQ(doc.apply(longer, "Set L2 = 3.3", &assembled), "");
  EXPECT_FALSE(assembled.isEmpty()) << "a longer coupler opens the joint at C: the rocker is moved";
  EXPECT_DOUBLE_EQ(parameter(doc, "L2"), 3.3);
  EXPECT_TRUE(doc.isModified());
  EXPECT_EQ(doc.undoStack()->count(), 1);
  EXPECT_EQ(doc.undoStack()->undoText(), "Set L2 = 3.3");
  EXPECT_EQ(changed.count(), 2);
  // a coupler of 100 m cannot close the loop: refused with the reason, nothing changed
  Mechanism broken = doc.mechanism();
  broken.parameters[static_cast<std::size_t>(indexOf(broken, "L2"))].value = Number(100);
  const QString why = doc.apply(broken, "Set L2 = 100");
  EXPECT_FALSE(why.isEmpty());
  EXPECT_DOUBLE_EQ(parameter(doc, "L2"), 3.3);
  EXPECT_EQ(doc.undoStack()->count(), 1);
  EXPECT_EQ(changed.count(), 2);
  // undo: the stored document, unmodified again
  doc.undoStack()->undo();
  EXPECT_DOUBLE_EQ(parameter(doc, "L2"), 3.1);
  EXPECT_EQ(io::mechanismToString(doc.mechanism()), io::mechanismToString(start));
  EXPECT_FALSE(doc.isModified());
  // a parameter set as its own step
  doc.pushParameter(indexOf(doc.mechanism(), "L1"), 0.9);
  EXPECT_DOUBLE_EQ(parameter(doc, "L1"), 0.9);
  EXPECT_EQ(doc.undoStack()->undoText(), "Set L1 = 0.9");
  doc.undoStack()->undo();
  EXPECT_DOUBLE_EQ(parameter(doc, "L1"), 0.8);
  // another document: no history to undo into
  doc.reset(test::sampleMechanism("four-bar"), "");
  EXPECT_EQ(doc.undoStack()->count(), 0);
  EXPECT_FALSE(doc.isModified());
}

TEST(Document, StudyChoicesAndAutosaveAndSave) {
  QStandardPaths::setTestModeEnabled(true);  // ~/.qttest, not the user's autosaves
  QDir(Document::autosaveDir()).removeRecursively();
  Document doc;
  doc.reset(test::sampleMechanism("four-bar-synthesis"), "");
  EXPECT_EQ(doc.autosaveNow(), "") << "nothing to autosave while unmodified";
  StudySettings s = doc.mechanism().study;
  s.present = true;
  s.method = "avm";
  QSignalSpy modified(&doc, &Document::modifiedChanged);
  doc.setStudy(s);
  EXPECT_TRUE(doc.isModified());
  ASSERT_EQ(modified.count(), 1);
  EXPECT_EQ(doc.undoStack()->count(), 0) << "study choices are not an undo step";
  const QString file = doc.autosaveNow();
  ASSERT_FALSE(file.isEmpty());
  EXPECT_EQ(doc.autosaveNow(), "") << "written once until the next change";
  Mechanism back;
  QString path;
  QStringList problems;
  ASSERT_TRUE(Document::readAutosave(file, back, path, problems)) << problems.join("\n").toStdString();
  EXPECT_EQ(back.study.method, "avm");
  EXPECT_EQ(path, "");
  // saved: unmodified, named, the autosave gone
  QTemporaryDir dir;
  std::string error;
  ASSERT_TRUE(doc.saveTo(dir.filePath("synthesis.json"), error)) << error;
  EXPECT_FALSE(doc.isModified());
  EXPECT_EQ(doc.path(), dir.filePath("synthesis.json"));
  EXPECT_TRUE(QDir(Document::autosaveDir()).entryList(QDir::Files).isEmpty());
  // an autosave that does not load is kept aside with the reasons, not offered again
  QDir().mkpath(Document::autosaveDir());
  const QString bad = Document::autosaveDir() + "/1-bad.json";
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("{ not json");
  f.close();
  problems.clear();
  EXPECT_FALSE(Document::readAutosave(bad, back, path, problems));
  EXPECT_FALSE(problems.isEmpty());
  EXPECT_TRUE(QFile::exists(bad + ".unrecoverable"));
  QDir(Document::autosaveDir()).removeRecursively();
  QStandardPaths::setTestModeEnabled(false);
}

// Run in a child process by the test below (skipped otherwise): a window's document with unsaved
// work autosaved, its path printed, then waiting to be killed.
TEST(Document, AutosavingChildProcess) {
  if (qEnvironmentVariableIsEmpty("LW_AUTOSAVE_CHILD")) GTEST_SKIP() << "the child of AnAutosaveIsOfferedAtOnceAfterKill9";
  QStandardPaths::setTestModeEnabled(true);
  Document doc;
  doc.reset(test::sampleMechanism("four-bar-synthesis"), "");
  StudySettings s = doc.mechanism().study;
  s.present = true;
  doc.setStudy(s);
  std::printf("AUTOSAVE %s\n", qPrintable(doc.autosaveNow()));
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(120));
}

TEST(Document, AnAutosaveIsOfferedAtOnceAfterKill9AndNeverTouchedByAnotherWindow) {
  QStandardPaths::setTestModeEnabled(true);
  QDir(Document::autosaveDir()).removeRecursively();
  QProcess child;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("LW_AUTOSAVE_CHILD", "1");
  child.setProcessEnvironment(env);
  child.start(QCoreApplication::applicationFilePath(), {"--gtest_filter=Document.AutosavingChildProcess"});
  QString written;
  for (int i = 0; i < 300 && written.isEmpty(); ++i) {
    child.waitForReadyRead(100);
    for (const QString& line : QString::fromUtf8(child.readAllStandardOutput()).split('\n'))
      if (line.startsWith("AUTOSAVE ")) written = line.mid(9).trimmed();
  }
  ASSERT_FALSE(written.isEmpty()) << "the child wrote no autosave: " << child.readAllStandardError().toStdString();
  ASSERT_TRUE(QFileInfo::exists(written));
  EXPECT_FALSE(Document::recoverableFiles().contains(written)) << "its window is still running";
  // another window (this process) opening a file removes its own autosaves only
  {
    Document other;
    other.reset(test::sampleMechanism("four-bar"), "");
    EXPECT_TRUE(QFileInfo::exists(written));
  }
  child.kill();  // SIGKILL: no clean-up of any kind
  ASSERT_TRUE(child.waitForFinished(10000));
  // the very next look finds it (the lock of a dead process is stale at once)
  EXPECT_EQ(Document::recoverableFiles(), QStringList{written});
  Document after;
  after.reset(test::sampleMechanism("four-bar"), "");
  EXPECT_TRUE(QFileInfo::exists(written)) << "a new window never removes another session's autosave";
  // a crashed window whose process id this process got since (autosaves were keyed by the pid:
  // not offered while the pid lived, and deleted when this window opened a file)
  const QString reused = QDir(Document::autosaveDir()).filePath(QString::number(QCoreApplication::applicationPid()) + "-reused.json");
  ASSERT_TRUE(QFile::copy(written, reused));
  EXPECT_TRUE(Document::recoverableFiles().contains(reused));
  after.reset(test::sampleMechanism("five-bar"), "");
  EXPECT_TRUE(QFileInfo::exists(reused));
  QDir(Document::autosaveDir()).removeRecursively();
  QStandardPaths::setTestModeEnabled(false);
}

}  // namespace
}  // namespace lw::app
