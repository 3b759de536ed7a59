#include "panels/item_dialog.h"

#include "panels/item_choices.h"

#include <QComboBox>
#include <algorithm>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>

namespace lw::widgets {

QStringList itemChoices(const Mechanism& m, const std::string& of) {
  QStringList out;
  auto names = [&](const auto& items) {
    for (const auto& x : items) out << QString::fromStdString(x.name);
  };
  if (of == "joints") names(m.joints);
  else if (of == "bodies") names(m.bodies);
  else if (of == "forces") names(m.forces);
  else if (of == "drivers") names(m.drivers);
  else if (of == "outputs") names(m.outputs);
  return out;
}

namespace {

using schema::FieldType;

bool listed(FieldType t) {
  return t == FieldType::Choice || t == FieldType::Point || t == FieldType::Vector || t == FieldType::Item ||
         t == FieldType::PointPair || t == FieldType::VectorPair;
}

// what a list field offers: (shown, value) pairs
std::vector<std::pair<QString, QString>> offered(const schema::Field& f, const Mechanism* m) {
  std::vector<std::pair<QString, QString>> out;
  if (f.type == FieldType::Choice) {
    for (std::size_t k = 0; k < f.choices.size(); ++k) {
      const bool planarOnly = m && m->dimension == 2 && !f.planar.empty();
      if (planarOnly && std::find(f.planar.begin(), f.planar.end(), f.choices[k]) == f.planar.end()) continue;
      out.emplace_back(QString::fromStdString(k < f.labels.size() ? f.labels[k] : f.choices[k]), QString::fromStdString(f.choices[k]));
    }
    return out;
  }
  if (!m) return out;
  // an optional reference may be left empty (a switch watches a point or a joint)
  if (!f.required && f.byDefault.empty() && f.type != FieldType::PointPair && f.type != FieldType::VectorPair)
    out.emplace_back(QObject::tr("(none)"), QString());
  const QStringList names = f.type == FieldType::Item                                        ? itemChoices(*m, f.of)
                            : f.type == FieldType::Vector || f.type == FieldType::VectorPair ? vectorChoices(*m)
                            : f.moving                                                       ? movingPointChoices(*m)
                                                                                             : pointChoices(*m);
  for (const QString& n : names) out.emplace_back(n, n);
  return out;
}

}  // namespace

ItemDialog::ItemDialog(const schema::Kind& kind, const schema::Texts& texts, Check problem, QWidget* parent, const Mechanism* m)
    : QDialog(parent), kind_(kind), check_(std::move(problem)) {
  setObjectName("ItemDialog");
  auto* form = form_ = new QFormLayout(this);
  auto textOf = [&](const schema::Field& f) {
    const auto it = texts.find(f.key);
    return QString::fromStdString(it == texts.end() || it->second.empty() ? f.byDefault : it->second);
  };
  for (const schema::Field& f : kind.fields) {
    const QString label = QString::fromStdString(f.label) + (f.required ? QStringLiteral(" *") : QString());
    if (f.type == FieldType::Constant) {  // the file's, not the user's
      constants_[f.key] = f.choices.front();
      continue;
    }
    if (listed(f.type)) {
      const bool pair = f.type == FieldType::PointPair || f.type == FieldType::VectorPair;
      const std::vector<std::string> wanted = pair ? schema::splitList(textOf(f).toStdString())
                                                   : std::vector<std::string>{textOf(f).toStdString()};
      auto makeBox = [&](int side) {
        auto* box = new QComboBox(this);
        box->setObjectName(QString::fromStdString(f.key) + (pair ? QString::number(side + 1) : QString()));
        box->setToolTip(QString::fromStdString(f.help));
        for (const auto& [shown, value] : offered(f, m)) box->addItem(shown, value);
        if (side < static_cast<int>(wanted.size()))
          if (const int at = box->findData(QString::fromStdString(wanted[static_cast<std::size_t>(side)])); at >= 0) box->setCurrentIndex(at);
        connect(box, &QComboBox::currentIndexChanged, this, [this, key = f.key] {
          if (key == "type") showRows();
          changed(key);
          update();
        });
        return box;
      };
      QComboBox* first = lists_[f.key] = makeBox(0);
      if (!pair) {
        form->addRow(label, first);
        rows_[f.key] = first;
        continue;
      }
      QComboBox* second = seconds_[f.key] = makeBox(1);
      // a pair's second defaults to another item than the first
      if (wanted.size() < 2 && second->count() > 1) second->setCurrentIndex(first->currentIndex() == 0 ? 1 : 0);
      auto* both = new QWidget(this);
      auto* layout = new QHBoxLayout(both);
      layout->setContentsMargins(0, 0, 0, 0);
      layout->addWidget(first, 1);
      layout->addWidget(second, 1);
      form->addRow(label, both);
      rows_[f.key] = both;
      continue;
    }
    if (f.type == FieldType::Items) {  // the kind's items, ticked
      auto* list = new QListWidget(this);
      list->setObjectName(QString::fromStdString(f.key));
      list->setToolTip(QString::fromStdString(f.help));
      const std::vector<std::string> ticked = schema::splitList(textOf(f).toStdString());
      const QStringList names = m ? itemChoices(*m, f.of) : QStringList();
      for (const QString& n : names) {
        auto* item = new QListWidgetItem(n, list);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(std::find(ticked.begin(), ticked.end(), n.toStdString()) != ticked.end() ? Qt::Checked : Qt::Unchecked);
      }
      list->setMaximumHeight(list->sizeHintForRow(0) * std::clamp(static_cast<int>(names.size()), 2, 5) + 6);
      form->addRow(label, list);
      checks_[f.key] = list;
      rows_[f.key] = list;
      connect(list, &QListWidget::itemChanged, this, [this, key = f.key] {
        changed(key);
        update();
      });
      continue;
    }
    const auto it = texts.find(f.key);
    auto* edit = new QLineEdit(it == texts.end() ? QString() : QString::fromStdString(it->second), this);
    edit->setObjectName(QString::fromStdString(f.key));
    QString help = QString::fromStdString(f.help);
    const char* unit = siUnit(f.quantity);
    if (*unit) help += QStringLiteral(" (%1)").arg(QString::fromUtf8(unit));
    if (f.type == FieldType::Items && m) {
      const QStringList names = itemChoices(*m, f.of);
      help += names.isEmpty() ? tr("; there are none yet") : tr("; comma-separated, of: %1").arg(names.join(", "));
    }
    edit->setToolTip(help);
    edit->setPlaceholderText(f.required                                               ? QString()
                             : f.byDefault.empty()                                    ? tr("optional")
                                                                                      : tr("optional (%1)").arg(QString::fromStdString(f.byDefault)));
    if ((f.type == FieldType::Text && f.key == "description") || f.timeAllowed) edit->setMinimumWidth(320);
    // the unit beside the label (a parameter's own unit is a field of it)
    const QString unitMark = *unit ? QStringLiteral(" (%1)").arg(QString::fromUtf8(unit)) : QString();
    form->addRow(QString::fromStdString(f.label) + unitMark + (f.required ? QStringLiteral(" *") : QString()), edit);
    fields_[f.key] = edit;
    rows_[f.key] = edit;
    connect(edit, &QLineEdit::textChanged, this, [this, key = f.key] {
      changed(key);
      update();
    });
  }
  hint_ = new QLabel(this);
  hint_->setObjectName("ItemDialogHint");
  hint_->setWordWrap(true);
  form->addRow(hint_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons_);
  showRows();
  update();
}

std::string ItemDialog::type() const {
  const auto it = lists_.find("type");
  return kind_.typeField() && it != lists_.end() ? it->second->currentData().toString().toStdString() : std::string();
}

schema::Texts ItemDialog::texts() const {
  schema::Texts out = constants_;
  const std::string t = type();
  for (const schema::Field& f : kind_.fields) {
    if (!schema::Kind::applies(f, t)) continue;
    if (const auto e = fields_.find(f.key); e != fields_.end()) out[f.key] = e->second->text().trimmed().toStdString();
    if (const auto c = checks_.find(f.key); c != checks_.end()) {
      std::vector<std::string> ticked;
      for (int r = 0; r < c->second->count(); ++r)
        if (c->second->item(r)->checkState() == Qt::Checked) ticked.push_back(c->second->item(r)->text().toStdString());
      out[f.key] = schema::joinList(ticked);
    }
    if (const auto b = lists_.find(f.key); b != lists_.end()) {
      out[f.key] = b->second->currentData().toString().toStdString();
      if (const auto s = seconds_.find(f.key); s != seconds_.end())
        out[f.key] = schema::joinList({out[f.key], s->second->currentData().toString().toStdString()});
    }
  }
  return out;
}

QWidget* ItemDialog::row(const std::string& key) const {
  const auto it = rows_.find(key);
  return it == rows_.end() ? nullptr : it->second;
}

// the rows of the fields that belong to the type chosen, less those hidden
void ItemDialog::showRows() {
  const std::string t = type();
  for (const schema::Field& f : kind_.fields)
    if (QWidget* w = row(f.key))
      form_->setRowVisible(w, schema::Kind::applies(f, t) && std::find(hidden_.begin(), hidden_.end(), f.key) == hidden_.end());
}

void ItemDialog::refresh() {
  changed("");
  update();
}

void ItemDialog::setFieldLabel(const std::string& key, const QString& label) {
  if (QWidget* w = row(key))
    if (auto* l = qobject_cast<QLabel*>(form_->labelForField(w))) l->setText(label);
}

void ItemDialog::setAdvice(const QString& advice) {
  advice_ = advice;
  update();
}

QListWidget* ItemDialog::checks(const std::string& key) const {
  const auto it = checks_.find(key);
  return it == checks_.end() ? nullptr : it->second;
}

void ItemDialog::hideField(const std::string& key) {
  hidden_.push_back(key);
  showRows();
}

QComboBox* ItemDialog::list(const std::string& key, int side) const {
  const auto& lists = side == 0 ? lists_ : seconds_;
  const auto it = lists.find(key);
  return it == lists.end() ? nullptr : it->second;
}

bool ItemDialog::choose(const std::string& key, const QString& value, int side) {
  QComboBox* box = list(key, side);
  const int at = box ? box->findData(value) : -1;
  if (at < 0) return false;
  box->setCurrentIndex(at);
  return true;
}

QLineEdit* ItemDialog::field(const std::string& key) const {
  const auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->second;
}

QString ItemDialog::problem() const { return hint_->property("problem").toString(); }

void ItemDialog::update() {
  if (!hint_) return;  // a list set while the form is built
  const QString why = check_ ? QString::fromStdString(check_(texts())) : QString();
  hint_->setProperty("problem", why);
  hint_->setText(why.isEmpty() ? (advice_.isEmpty() ? tr("Fields marked * are required.") : advice_) : why);
  hint_->setStyleSheet(why.isEmpty() ? QString() : QStringLiteral("color: #b03020"));
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

}  // namespace lw::widgets
