#include "panels/cost_dialog.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QLineEdit>
#include <QRegularExpression>
#include <QStringListModel>
#include <algorithm>

namespace lw::widgets {

namespace {

schema::Texts startingTexts(const Mechanism& m) {
  Cost fresh;  // an integral under a name not yet taken
  for (int n = 1; fresh.name.empty(); ++n) {
    const std::string name = "psi" + std::to_string(n);
    if (std::none_of(m.costs.begin(), m.costs.end(), [&](const Cost& c) { return c.name == name; })) fresh.name = name;
  }
  schema::Texts t = schema::textsOf(fresh);
  t["expression"] = "";
  return t;
}

// "" when the texts make a cost (written to `out` when given), else the reason
std::string costProblem(const schema::Texts& texts, Cost* out) {
  const auto name = texts.find("name");
  if (name == texts.end() || name->second.empty()) return "the cost has no name";
  Cost c;
  std::string why;
  if (!schema::costFrom(texts, c, why)) return why;
  if (out) *out = c;
  return {};
}

}  // namespace

CostDialog::CostDialog(const Mechanism& m, const QStringList& names, QWidget* parent)
    : ItemDialog(schema::costKind(), startingTexts(m),
                 [](const schema::Texts& texts) { return costProblem(texts, nullptr); },
                 parent, &m) {
  setObjectName("CostDialog");
  setWindowTitle(tr("Add Cost"));
  nameEdit()->setObjectName("CostName");
  QLineEdit* expression = expressionEdit();
  expression->setObjectName("CostExpression");
  expression->setPlaceholderText(tr("e.g. (P.x - 2)^2 + P.y^2"));
  expression->setToolTip(tr("Output components (P.x, rocker_angle), initial(P.x), parameters and t; names complete as you type"));
  QStringList all = names;
  all << "t";
  for (const QString& s : names)
    if (!s.isEmpty() && !m.outputs.empty()) all << "initial(" + s + ")";
  completer_ = new QCompleter(new QStringListModel(all, this), this);
  completer_->setCaseSensitivity(Qt::CaseInsensitive);
  completer_->setCompletionMode(QCompleter::PopupCompletion);
  completer_->setWidget(expression);
  connect(completer_, qOverload<const QString&>(&QCompleter::activated), this, &CostDialog::complete);
  connect(expression, &QLineEdit::textEdited, this, [this] {
    const QString word = wordBeforeCursor();
    if (word.isEmpty()) {
      completer_->popup()->hide();
      return;
    }
    completer_->setCompletionPrefix(word);
    if (completer_->completionCount() == 0) {
      completer_->popup()->hide();
      return;
    }
    completer_->complete();
  });
  setAdvice(tr("Names: %1").arg(names.mid(0, 12).join(", ") + (names.size() > 12 ? ", …" : "")));
  resize(480, sizeHint().height());
}

void CostDialog::setCost(const Cost& c) {
  setWindowTitle(tr("Change Cost %1").arg(QString::fromStdString(c.name)));
  const schema::Texts texts = schema::textsOf(c);
  for (const auto& [key, text] : texts) {
    if (QLineEdit* e = field(key)) {
      e->setText(QString::fromStdString(text));
      e->setCursorPosition(0);  // a long list of targets shows its start
    }
    else choose(key, QString::fromStdString(text));
  }
}

QString CostDialog::wordBeforeCursor() const {
  const QString before = expressionEdit()->text().left(expressionEdit()->cursorPosition());
  static const QRegularExpression word(R"([A-Za-z_][A-Za-z0-9_.(]*$)");
  const auto m = word.match(before);
  return m.hasMatch() ? m.captured(0) : QString();
}

void CostDialog::complete(const QString& completion) {
  QLineEdit* expression = expressionEdit();
  const int cursor = expression->cursorPosition();
  const QString word = wordBeforeCursor();
  QString text = expression->text();
  text.replace(cursor - word.size(), word.size(), completion);
  expression->setText(text);
  expression->setCursorPosition(cursor - static_cast<int>(word.size()) + static_cast<int>(completion.size()));
}

bool CostDialog::cost(Cost& out, QString& why) const {
  const std::string reason = costProblem(texts(), &out);
  why = QString::fromStdString(reason);
  return reason.empty();
}

}  // namespace lw::widgets
