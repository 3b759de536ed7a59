#include "panels/item_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace lw::widgets {

ItemDialog::ItemDialog(const schema::Kind& kind, const schema::Texts& texts, Check problem, QWidget* parent)
    : QDialog(parent), kind_(kind), check_(std::move(problem)) {
  setObjectName("ItemDialog");
  auto* form = new QFormLayout(this);
  for (const schema::Field& f : kind.fields) {
    const auto it = texts.find(f.key);
    auto* edit = new QLineEdit(it == texts.end() ? QString() : QString::fromStdString(it->second), this);
    edit->setObjectName(QString::fromStdString(f.key));
    QString help = QString::fromStdString(f.help);
    const char* unit = siUnit(f.quantity);
    if (*unit) help += QStringLiteral(" (%1)").arg(QString::fromUtf8(unit));
    edit->setToolTip(help);
    edit->setPlaceholderText(f.required ? QString() : tr("optional"));
    if (f.type == schema::FieldType::Text && f.key == "description") edit->setMinimumWidth(320);
    form->addRow(QString::fromStdString(f.label) + (f.required ? QStringLiteral(" *") : QString()), edit);
    fields_[f.key] = edit;
    connect(edit, &QLineEdit::textChanged, this, &ItemDialog::update);
  }
  hint_ = new QLabel(this);
  hint_->setObjectName("ItemDialogHint");
  hint_->setWordWrap(true);
  form->addRow(hint_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons_);
  update();
}

schema::Texts ItemDialog::texts() const {
  schema::Texts out;
  for (const auto& [key, edit] : fields_) out[key] = edit->text().trimmed().toStdString();
  return out;
}

QLineEdit* ItemDialog::field(const std::string& key) const {
  const auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->second;
}

QString ItemDialog::problem() const { return hint_->property("problem").toString(); }

void ItemDialog::update() {
  const QString why = check_ ? QString::fromStdString(check_(texts())) : QString();
  hint_->setProperty("problem", why);
  hint_->setText(why.isEmpty() ? tr("Fields marked * are required.") : why);
  hint_->setStyleSheet(why.isEmpty() ? QString() : QStringLiteral("color: #b03020"));
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

}  // namespace lw::widgets
