// The Start page (issue 24): what a new user sees when the application opens without a file —
// New sketch, Open, Getting started, the recent files, and the shipped samples as pictures of
// their stored configuration, each opened by a click.
#pragma once

#include <QImage>
#include <QSize>
#include <QStringList>
#include <QWidget>

class QListWidget;
class QListWidgetItem;

namespace lw {
struct ResolvedMechanism;
}

namespace lw::widgets {

/// A schematic picture of the stored configuration: links as bars (plates for three or more
/// points), ground pivots as squares, joints as rings; planar models onto their plane, spatial
/// ones isometric with the up axis against gravity.
QImage mechanismThumbnail(const ResolvedMechanism& m, QSize size);

class WelcomePage : public QWidget {
  Q_OBJECT
 public:
  explicit WelcomePage(const QString& samplesDir, QWidget* parent = nullptr);
  void setRecentFiles(const QStringList& files);
  QListWidget* samples() const { return samples_; }
  QListWidget* recent() const { return recent_; }

 signals:
  void openRequested(const QString& path);
  void newRequested();
  void openDialogRequested();
  void helpRequested();

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  void fillSamples();  // on first show: loading and drawing every sample is not for start-up
  QString samplesDir_;
  QListWidget* samples_;
  QListWidget* recent_;
  bool filled_ = false;
};

}  // namespace lw::widgets
