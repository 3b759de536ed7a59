#include "panels/output_dialog.h"

#include <algorithm>

#include "mechanism/edits.h"

namespace lw::widgets {

namespace {

schema::Texts startingTexts(const Mechanism& m, const Output* existing) {
  if (existing) return schema::textsOf(*existing);
  Output fresh;
  fresh.name = edit::unusedName("output", [&](const std::string& n) {
    return std::any_of(m.outputs.begin(), m.outputs.end(), [&](const Output& o) { return o.name == n; }) ||
           std::any_of(m.parameters.begin(), m.parameters.end(), [&](const Parameter& p) { return p.name == n; });
  });
  return schema::textsOf(fresh);
}

}  // namespace

OutputDialog::OutputDialog(const Mechanism& m, const Output* existing, QWidget* parent)
    : ItemDialog(schema::outputKind(), startingTexts(m, existing),
                 [&m, existing](const schema::Texts& texts) -> std::string {
                   Output o;
                   std::string why;
                   if (!schema::outputFrom(texts, o, why)) return why;
                   if (existing) return {};
                   if (!edit::validName(o.name)) return "Name: '" + o.name + "' is not a name: letters, digits and _, starting with a letter or _";
                   for (const Output& x : m.outputs)
                     if (x.name == o.name) return "Name: there is already an output " + o.name;
                   for (const Parameter& p : m.parameters)
                     if (p.name == o.name) return "Name: " + o.name + " is a parameter (costs could not tell them apart)";
                   return {};
                 },
                 parent, &m) {
  setObjectName("OutputDialog");
  setWindowTitle(existing ? tr("Change output %1").arg(QString::fromStdString(existing->name)) : tr("Add output"));
  if (existing) hideField("name");  // kept on a change
}

bool OutputDialog::output(Output& out, QString& why) const { return read(&schema::outputFrom, out, why); }

}  // namespace lw::widgets
