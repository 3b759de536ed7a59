#include "panels/samples_gallery.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace lw::widgets {

SamplesGallery::SamplesGallery(const QString& samplesDir, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Samples"));
  resize(640, 460);
  list_ = new QListWidget(this);
  description_ = new QLabel(this);
  description_->setWordWrap(true);
  description_->setMinimumHeight(70);
  description_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Mechanisms shipped with Linkwright:"), this));
  layout->addWidget(list_, 1);
  layout->addWidget(description_);
  layout->addWidget(buttons);

  // the title and description come from each file (only for display: opening validates fully)
  const QDir dir(samplesDir);
  for (const QString& name : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    QFile f(dir.filePath(name));
    QString title = name, description;
    if (f.open(QIODevice::ReadOnly)) {
      const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
      if (o.contains("name")) title = o.value("name").toString() + "  (" + name + ")";
      description = o.value("description").toString();
    }
    auto* item = new QListWidgetItem(title, list_);
    item->setData(Qt::UserRole, dir.filePath(name));
    item->setData(Qt::UserRole + 1, description);
    item->setToolTip(description);
  }
  connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    description_->setText(item ? item->data(Qt::UserRole + 1).toString() : QString());
  });
  connect(list_, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  if (list_->count() > 0) list_->setCurrentRow(0);
  buttons->button(QDialogButtonBox::Open)->setEnabled(list_->count() > 0);
}

QString SamplesGallery::selectedFile() const {
  const QListWidgetItem* item = list_->currentItem();
  return item ? item->data(Qt::UserRole).toString() : QString();
}

}  // namespace lw::widgets
