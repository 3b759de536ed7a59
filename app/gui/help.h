// The Help menu (issue 24): Getting Started (F1), Keyboard Shortcuts (read from the window's own
// actions, so the list cannot go stale), File Format (samples/FORMAT.md, built in), About.
#pragma once

#include <QString>

class QMainWindow;
class QMenu;
class QDialog;
class QWidget;

namespace lw::app {

/// Adds Help to `window`'s menu bar; `showStart` shows the Start page (Help > Start Page).
QMenu* addHelpMenu(QMainWindow* window, const std::function<void()>& showStart);
/// A built-in Markdown page (":/help/getting-started.md", ":/help/format.md") in a browser
/// dialog that stays open beside the window. Its object name is `name`.
QDialog* showHelpPage(QWidget* parent, const QString& title, const QString& resource, const QString& name);
/// Every shortcut of `window`'s actions and the mouse bindings, as a Markdown table.
QString shortcutsMarkdown(const QWidget* window);

}  // namespace lw::app
