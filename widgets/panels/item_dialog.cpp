#include "panels/item_dialog.h"

#include "panels/item_choices.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace lw::widgets {

ItemDialog::ItemDialog(const schema::Kind& kind, const schema::Texts& texts, Check problem, QWidget* parent, const Mechanism* m)
    : QDialog(parent), kind_(kind), check_(std::move(problem)) {
  setObjectName("ItemDialog");
  auto* form = form_ = new QFormLayout(this);
  for (const schema::Field& f : kind.fields) {
    const auto it = texts.find(f.key);
    if (f.type == schema::FieldType::Constant) {  // the file's, not the user's
      constants_[f.key] = f.choices.front();
      continue;
    }
    if (f.type == schema::FieldType::Choice || f.type == schema::FieldType::Point || f.type == schema::FieldType::Vector) {
      auto* box = new QComboBox(this);
      box->setObjectName(QString::fromStdString(f.key));
      box->setToolTip(QString::fromStdString(f.help));
      if (f.type == schema::FieldType::Choice) {
        for (std::size_t k = 0; k < f.choices.size(); ++k)
          box->addItem(QString::fromStdString(k < f.labels.size() ? f.labels[k] : f.choices[k]), QString::fromStdString(f.choices[k]));
      } else if (m) {
        const QStringList offered = f.type == schema::FieldType::Vector ? vectorChoices(*m)
                                    : f.moving                          ? movingPointChoices(*m)
                                                                        : pointChoices(*m);
        for (const QString& o : offered) box->addItem(o, o);
      }
      const QString wanted = QString::fromStdString(it == texts.end() || it->second.empty() ? f.byDefault : it->second);
      if (const int at = box->findData(wanted); at >= 0) box->setCurrentIndex(at);
      form->addRow(QString::fromStdString(f.label) + (f.required ? QStringLiteral(" *") : QString()), box);
      lists_[f.key] = box;
      connect(box, &QComboBox::currentIndexChanged, this, &ItemDialog::update);
      continue;
    }
    auto* edit = new QLineEdit(it == texts.end() ? QString() : QString::fromStdString(it->second), this);
    edit->setObjectName(QString::fromStdString(f.key));
    QString help = QString::fromStdString(f.help);
    const char* unit = siUnit(f.quantity);
    if (*unit) help += QStringLiteral(" (%1)").arg(QString::fromUtf8(unit));
    edit->setToolTip(help);
    edit->setPlaceholderText(f.required ? QString() : tr("optional"));
    if (f.type == schema::FieldType::Text && f.key == "description") edit->setMinimumWidth(320);
    // the unit beside the label (a parameter's own unit is a field of it)
    const QString unitMark = *unit ? QStringLiteral(" (%1)").arg(QString::fromUtf8(unit)) : QString();
    form->addRow(QString::fromStdString(f.label) + unitMark + (f.required ? QStringLiteral(" *") : QString()), edit);
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
  schema::Texts out = constants_;
  for (const auto& [key, edit] : fields_) out[key] = edit->text().trimmed().toStdString();
  for (const auto& [key, box] : lists_) out[key] = box->currentData().toString().toStdString();
  return out;
}

void ItemDialog::hideField(const std::string& key) {
  if (QLineEdit* e = field(key)) form_->setRowVisible(e, false);
  if (QComboBox* b = list(key)) form_->setRowVisible(b, false);
}

QComboBox* ItemDialog::list(const std::string& key) const {
  const auto it = lists_.find(key);
  return it == lists_.end() ? nullptr : it->second;
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
