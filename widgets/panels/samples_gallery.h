// A dialog listing the shipped sample mechanisms with their descriptions.
#pragma once

#include <QDialog>

class QListWidget;
class QLabel;

namespace lw::widgets {

class SamplesGallery : public QDialog {
  Q_OBJECT
 public:
  explicit SamplesGallery(const QString& samplesDir, QWidget* parent = nullptr);
  /// The chosen file, after exec() returned Accepted.
  QString selectedFile() const;

 private:
  QListWidget* list_;
  QLabel* description_;
};

}  // namespace lw::widgets
