#include "help.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QAbstractButton>
#include <QFile>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <functional>
#include <map>

namespace lw::app {
namespace {

QDialog* browserDialog(QWidget* parent, const QString& title, const QString& markdown, const QString& name) {
  // one dialog per page: asking again raises it
  if (auto* open = parent->findChild<QDialog*>(name)) {
    open->show();
    open->raise();
    open->activateWindow();
    return open;
  }
  auto* dialog = new QDialog(parent);
  dialog->setObjectName(name);
  dialog->setWindowTitle(title);
  dialog->resize(720, 620);
  auto* browser = new QTextBrowser(dialog);
  browser->setOpenExternalLinks(true);
  browser->setMarkdown(markdown);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(browser);
  layout->addWidget(buttons);
  dialog->show();
  return dialog;
}

}  // namespace

QDialog* showHelpPage(QWidget* parent, const QString& title, const QString& resource, const QString& name) {
  QFile f(resource);
  const QString text = f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll())
                                                   : QObject::tr("The page %1 is missing from this build.").arg(resource);
  return browserDialog(parent, title, text, name);
}

QString shortcutsMarkdown(const QWidget* window) {
  // by menu text, without the accelerator's '&'; sorted for reading
  std::map<QString, QString> keys;
  for (const QAction* a : window->findChildren<QAction*>()) {
    if (a->shortcut().isEmpty() || a->text().isEmpty()) continue;
    QString text = a->text();
    text.remove('&');
    keys[text] = a->shortcut().toString(QKeySequence::NativeText);
  }
  // buttons with keys of their own (Space plays and pauses): named by their tip, before its "(key)"
  for (const QAbstractButton* b : window->findChildren<QAbstractButton*>()) {
    if (b->shortcut().isEmpty()) continue;
    QString text = !b->toolTip().isEmpty() ? b->toolTip().section(" (", 0, 0) : b->text();
    text.remove('&');
    if (!text.isEmpty()) keys[text] = b->shortcut().toString(QKeySequence::NativeText);
  }
  QString md = QObject::tr("# Keyboard shortcuts\n\n| Command | Keys |\n|---|---|\n");
  for (const auto& [text, key] : keys) md += "| " + text + " | " + key + " |\n";
  md += QObject::tr(
      "\n# Keys in the views\n\n| Where | Keys | What |\n|---|---|---|\n"
      "| 3D view | R | resets the camera |\n"
      "| 3D view | Esc | cancels a Shift + drag |\n"
      "| Sketch | Esc | drops the link or slider being drawn |\n"
      "| Sketch, Link tool | digits, Enter | a link of the typed length along the mouse's direction (Backspace corrects) |\n"
      "| Sketch, Add Target Path | Enter, Del, Esc | makes the clicked targets a cost, removes the last target, cancels |\n");
  md += QObject::tr(
      "\n# Mouse\n\n| Where | What |\n|---|---|\n"
      "| 3D view | left drag turns the camera, middle drag or Shift + left drag pans, the wheel zooms |\n"
      "| 3D view | a click selects a body or joint; Shift + drag a joint or a handle moves it (Esc cancels) |\n"
      "| 3D view | right click: add a point, edit, change or delete |\n"
      "| Sketch | the wheel zooms, middle drag pans; Select (S) drags points or the driven link; Shift + drag a point changes the geometry in the pose shown |\n"
      "| Sketch | right click: Parameterise Length of a link, Add Target Path for a point; a click on the banner shows or hides the legend |\n"
      "| Properties | right click on a number: Make Design Parameter |\n"
      "| Model tree | select a joint or driver, then Model > Report Force in Selected Joint or Driver: its force or torque in the next run's columns |\n"
      "| Plots | right click on a column: Make Cost (integral, end, least or greatest value) |\n"
      "| Plots | a click moves playback to that time |\n");
  return md;
}

QMenu* addHelpMenu(QMainWindow* window, const std::function<void()>& showStart) {
  QMenu* help = window->menuBar()->addMenu(QObject::tr("&Help"));
  QAction* start = help->addAction(QObject::tr("&Getting Started"), window, [window] {
    showHelpPage(window, QObject::tr("Getting started — Linkwright"), ":/help/getting-started.md", "HelpGettingStarted");
  });
  start->setObjectName("HelpGettingStarted");
  start->setShortcut(QKeySequence::HelpContents);
  QAction* keys = help->addAction(QObject::tr("&Keyboard Shortcuts"), window, [window] {
    browserDialog(window, QObject::tr("Keyboard shortcuts — Linkwright"), shortcutsMarkdown(window), "HelpShortcuts");
  });
  keys->setObjectName("HelpShortcuts");
  QAction* format = help->addAction(QObject::tr("&File Format"), window, [window] {
    showHelpPage(window, QObject::tr("Mechanism file format — Linkwright"), ":/help/format.md", "HelpFormat");
  });
  format->setObjectName("HelpFormat");
  help->addAction(QObject::tr("&Start Page"), window, showStart)->setObjectName("HelpStartPage");
  help->addSeparator();
  help->addAction(QObject::tr("&About Linkwright"), window, [window] {
    QMessageBox::about(window, QObject::tr("About Linkwright"),
                       QObject::tr("<h3>Linkwright %1</h3><p>Design, analyse and animate linkages: structural groups, "
                                   "semi-recursive and penalty dynamics, exact sensitivities through impacts.</p>"
                                   "<p>Built on Qt %2, VTK 9, Eigen, SuiteSparse, QCustomPlot, nlohmann-json, CLI11, "
                                   "ColPack and Boost.</p>")
                           .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
  })->setObjectName("HelpAbout");
  return help;
}

}  // namespace lw::app
