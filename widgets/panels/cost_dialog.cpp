#include "panels/cost_dialog.h"

#include <algorithm>
#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QStringListModel>
#include <QVBoxLayout>

#include "mechanism/mechanism.h"

namespace lw::widgets {

CostDialog::CostDialog(const Mechanism& m, const QStringList& names, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Add Cost"));
  name_ = new QLineEdit(this);
  name_->setObjectName("CostName");
  // a name not yet taken
  QString base = "psi";
  int n = 1;
  auto taken = [&m](const QString& s) {
    for (const auto& c : m.costs)
      if (QString::fromStdString(c.name) == s) return true;
    return false;
  };
  while (taken(base + QString::number(n))) ++n;
  name_->setText(base + QString::number(n));
  type_ = new QComboBox(this);
  type_->addItem(tr("Integral over the run (∫ expression dt)"), "integral");
  type_->addItem(tr("Value at the end of the run"), "terminal");
  type_->addItem(tr("Least value over the run (e.g. the worst transmission angle)"), "minimum");
  type_->addItem(tr("Greatest value over the run"), "maximum");
  expression_ = new QLineEdit(this);
  expression_->setObjectName("CostExpression");
  expression_->setPlaceholderText(tr("e.g. (P.x - 2)^2 + P.y^2"));
  expression_->setToolTip(tr("Output components (P.x, rocker_angle), initial(P.x), parameters and t; names complete as you type"));
  QStringList all = names;
  all << "t";
  for (const QString& s : names)
    if (!s.isEmpty() && m.outputs.size() > 0) all << "initial(" + s + ")";
  completer_ = new QCompleter(new QStringListModel(all, this), this);
  completer_->setCaseSensitivity(Qt::CaseInsensitive);
  completer_->setCompletionMode(QCompleter::PopupCompletion);
  completer_->setWidget(expression_);
  connect(completer_, qOverload<const QString&>(&QCompleter::activated), this, &CostDialog::complete);
  connect(expression_, &QLineEdit::textEdited, this, [this] {
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
  hint_ = new QLabel(tr("Names: %1").arg(names.mid(0, 12).join(", ") + (names.size() > 12 ? ", …" : "")), this);
  hint_->setWordWrap(true);
  auto* form = new QFormLayout;
  form->addRow(tr("Name"), name_);
  form->addRow(tr("Type"), type_);
  form->addRow(tr("Expression"), expression_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(hint_);
  layout->addWidget(buttons);
  resize(480, sizeHint().height());
}

void CostDialog::setCost(const Cost& c) {
  setWindowTitle(tr("Change Cost %1").arg(QString::fromStdString(c.name)));
  name_->setText(QString::fromStdString(c.name));
  type_->setCurrentIndex(std::max(0, type_->findData(QString(toString(c.type)))));
  expression_->setText(QString::fromStdString(c.expression.text()));
}

QString CostDialog::wordBeforeCursor() const {
  const QString before = expression_->text().left(expression_->cursorPosition());
  static const QRegularExpression word(R"([A-Za-z_][A-Za-z0-9_.(]*$)");
  const auto m = word.match(before);
  return m.hasMatch() ? m.captured(0) : QString();
}

void CostDialog::complete(const QString& completion) {
  const int cursor = expression_->cursorPosition();
  const QString word = wordBeforeCursor();
  QString text = expression_->text();
  text.replace(cursor - word.size(), word.size(), completion);
  expression_->setText(text);
  expression_->setCursorPosition(cursor - static_cast<int>(word.size()) + static_cast<int>(completion.size()));
}

bool CostDialog::cost(Cost& out, QString& why) const {
  const QString name = name_->text().trimmed();
  const QString text = expression_->text().trimmed();
  if (name.isEmpty()) {
    why = tr("the cost has no name");
    return false;
  }
  if (text.isEmpty()) {
    why = tr("the cost has no expression");
    return false;
  }
  Expression e;
  ExpressionError error;
  if (!Expression::parse(text.toStdString(), e, error)) {
    why = tr("the expression does not parse at character %1: %2").arg(error.offset + 1).arg(QString::fromStdString(error.message));
    return false;
  }
  out = Cost{};
  out.name = name.toStdString();
  const QString type = type_->currentData().toString();
  out.type = type == "terminal" ? Cost::Type::Terminal
             : type == "minimum"  ? Cost::Type::Minimum
             : type == "maximum"  ? Cost::Type::Maximum
                                  : Cost::Type::Integral;
  out.expression = e;
  return true;
}

}  // namespace lw::widgets
