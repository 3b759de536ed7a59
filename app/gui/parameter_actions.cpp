// The main window's design-parameter actions (issue 36): Model > Add Parameter... (the item
// schema's parameter form), a parameter's fields edited in Properties, the Parameters and the
// Study panel, rename, delete, Make Design Parameter and Parameterise Length. Each goes through
// the edit guard like any edit (main_window.h).
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "document.h"
#include "main_window.h"
#include "mechanism/parameter_edits.h"
#include "mechanism/schema.h"
#include "panels/item_dialog.h"
#include "panels/model_tree.h"
#include "panels/parameters_panel.h"
#include "panels/property_editor.h"

namespace lw::app {

bool MainWindow::addParameter(const std::function<void(widgets::ItemDialog&)>& accept) {
  if (!mechanism_) return false;
  Parameter fresh;
  fresh.value = 1;
  {
    Mechanism probe = *mechanism_;
    fresh.name = edit::addParameter(probe, fresh).item;  // the fresh name ("p1", ...)
  }
  const Mechanism& m = *mechanism_;
  widgets::ItemDialog dialog(schema::parameterKind(), schema::textsOf(fresh), [&m](const schema::Texts& texts) {
    Parameter p;
    std::string why;
    if (!schema::parameterFrom(texts, p, why)) return why;
    return edit::parameterProblem(m, p);
  }, this);
  dialog.setWindowTitle(tr("Add parameter"));
  const bool accepted = accept ? (accept(dialog), true) : dialog.exec() == QDialog::Accepted;
  if (!accepted) return false;
  Parameter p;
  std::string why;
  if (!schema::parameterFrom(dialog.texts(), p, why)) {
    refuseEdit(tr("Add parameter"), QString::fromStdString(why));
    return false;
  }
  Mechanism after = *mechanism_;
  if (!keepIfValid(after, edit::addParameter(after, p), tr("The parameter was not added"))) return false;
  tree_->selectPath(QStringLiteral("parameters[%1]").arg(mechanism_->parameters.size() - 1));
  return true;
}

bool MainWindow::editParameterField(int index, const QString& key, const QString& text) {
  return editParameterFields(index, {{key, text}});
}

bool MainWindow::editParameterFields(int index, const std::vector<std::pair<QString, QString>>& fields) {
  if (!mechanism_ || index < 0 || static_cast<std::size_t>(index) >= mechanism_->parameters.size()) return false;
  const Parameter& old = mechanism_->parameters[static_cast<std::size_t>(index)];
  QStringList said;
  schema::Texts texts = schema::textsOf(old);
  bool changed = false;
  for (const auto& [key, text] : fields) {
    if (!texts.contains(key.toStdString())) return false;
    said << tr("%1 = %2").arg(key, text.trimmed().isEmpty() ? tr("(none)") : text.trimmed());
    changed = changed || texts[key.toStdString()] != text.trimmed().toStdString();
    texts[key.toStdString()] = text.trimmed().toStdString();
  }
  if (!changed) return true;
  const QString what = tr("Parameter %1: %2").arg(QString::fromStdString(old.name), said.join(", "));
  Parameter p;
  std::string why;
  bool kept = false;
  if (!schema::parameterFrom(texts, p, why)) {
    refuseEdit(what, QString::fromStdString(why));
  } else {
    Mechanism after = *mechanism_;
    kept = keepIfValid(after, edit::changeParameter(after, old.name, p), what + tr(" refused"));
  }
  if (!kept) {  // the panels show the document's values again
    parameters_->setParameters(mechanism_->parameters);
    properties_->setMechanism(*mechanism_);
  }
  return kept;
}

bool MainWindow::deleteParameter(int index, std::optional<bool> replaceUses) {
  if (!mechanism_ || index < 0 || static_cast<std::size_t>(index) >= mechanism_->parameters.size()) return false;
  const std::string name = mechanism_->parameters[static_cast<std::size_t>(index)].name;
  const auto uses = edit::parameterUses(*mechanism_, name);
  bool replace = false;
  if (!uses.empty()) {
    if (!replaceUses) {
      QStringList listed;
      for (std::size_t i = 0; i < uses.size() && i < 8; ++i) listed << QString::fromStdString(uses[i]);
      if (uses.size() > 8) listed << tr("and %n more", "", static_cast<int>(uses.size() - 8));
      QMessageBox ask(QMessageBox::Question, tr("Delete parameter %1").arg(QString::fromStdString(name)),
                      tr("Parameter %1 is used by:\n%2\n\nReplace each use by its value and delete it?")
                          .arg(QString::fromStdString(name), listed.join("\n")),
                      QMessageBox::Cancel, this);
      QPushButton* yes = ask.addButton(tr("Replace by Value and Delete"), QMessageBox::AcceptRole);
      ask.setDefaultButton(QMessageBox::Cancel);
      ask.exec();
      replaceUses = ask.clickedButton() == yes;
    }
    replace = *replaceUses;
  }
  Mechanism after = *mechanism_;
  return keepIfValid(after, edit::deleteParameter(after, name, replace), tr("Parameter %1 was not deleted").arg(QString::fromStdString(name)));
}

// an edit that makes a parameter: kept through the edit guard, then where to find it said
bool MainWindow::keepParameterMade(Mechanism after, const edit::EditResult& r, const QString& refused, const QString& said) {
  if (!keepIfValid(after, r, refused)) return false;
  const schema::Texts p = schema::textsOf(mechanism_->parameters.back());
  log(said.arg(QString::fromStdString(r.item), QString::fromStdString(p.at("min") + " … " + p.at("max"))));
  return true;
}

bool MainWindow::makeDesignParameter(const QString& path) {
  if (!mechanism_) return false;
  Mechanism after = *mechanism_;
  const edit::EditResult r = edit::makeDesignParameter(after, path.toStdString());
  return keepParameterMade(after, r, tr("%1 was not made a parameter").arg(path),
                           tr("%1 is now the parameter %2 (range %3): edit it in the Parameters panel or select it in the model tree")
                               .arg(path, QStringLiteral("%1"), QStringLiteral("%2")));
}

bool MainWindow::parameteriseLength(const QString& body) {
  if (!mechanism_) return false;
  Mechanism after = *mechanism_;
  const edit::EditResult r = edit::parameteriseLength(after, body.toStdString());
  return keepParameterMade(after, r, tr("The length of %1 was not made a parameter").arg(body),
                           tr("The length of %1 is the parameter %2 (range %3): change it in the Parameters panel (its slider), "
                              "the link stays a link")
                               .arg(body, QStringLiteral("%1"), QStringLiteral("%2")));
}

}  // namespace lw::app
