#include "media_export.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QStandardPaths>
#include <QSvgGenerator>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>

#include "panels/analysis_panel.h"
#include "view3d/scene_view.h"
#include "sketch/sketch_view.h"

namespace lw::app {

QString ffmpegProgram() { return QStandardPaths::findExecutable("ffmpeg"); }

bool exportSceneImage(widgets::SceneView& view, const QString& path, QString* error, int scale) {
  // a larger picture is rendered at its size: the widget grows for the one frame (the resize is
  // synchronous for a shown widget, and the framebuffer follows), then returns to its place
  const QSize shown = view.size();
  if (scale > 1) view.resize(shown * scale);
  const QImage image = view.grabImage();
  if (scale > 1) view.resize(shown);
  if (image.isNull() || !image.save(path, "PNG")) {
    if (error) *error = QCoreApplication::translate("export", "Cannot write the picture to %1").arg(path);
    return false;
  }
  return true;
}

bool exportSketchImage(widgets::SketchView& view, const QString& path, QString* error, int scale) {
  QWidget* port = view.viewport();
  if (QFileInfo(path).suffix().compare("svg", Qt::CaseInsensitive) == 0) {
    // vector: the view renders itself (items, banner and all) into an SVG painter
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(port->size());
    svg.setViewBox(QRect(QPoint(0, 0), port->size()));
    svg.setTitle(QStringLiteral("Linkwright sketch"));
    QPainter painter;
    if (!painter.begin(&svg)) {
      if (error) *error = QCoreApplication::translate("export", "Cannot write the drawing to %1").arg(path);
      return false;
    }
    view.render(&painter, QRectF(), port->rect());
    painter.end();
    return QFileInfo(path).size() > 0;
  }
  QImage image = port->grab().toImage();
  if (scale > 1) {  // drawn again at the larger size (lines and text stay sharp)
    image = QImage(port->size() * scale, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    view.render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), port->rect());
  }
  if (image.isNull() || !image.save(path, "PNG")) {
    if (error) *error = QCoreApplication::translate("export", "Cannot write the picture to %1").arg(path);
    return false;
  }
  return true;
}

bool exportAnimation(widgets::SceneView& view, widgets::PlaybackBar& playback, const QString& path,
                     const AnimationOptions& options, const std::function<bool(int, int)>& progress, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  const auto results = playback.results();
  if (!results || results->rows < 2) return fail(QCoreApplication::translate("export", "Run an analysis first: there is no motion to export"));
  const QString ffmpeg = ffmpegProgram();
  if (ffmpeg.isEmpty())
    return fail(QCoreApplication::translate("export", "ffmpeg was not found: install it (Debian: apt install ffmpeg) to export animations"));
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "gif" && suffix != "mp4" && suffix != "webm")
    return fail(QCoreApplication::translate("export", "An animation is a .gif, .mp4 or .webm file"));

  // the frames: one every 1/fps of real time (times the speed), from the rows' own times
  const double t0 = results->time(0), t1 = results->time(results->rows - 1);
  const int frames = std::clamp(static_cast<int>(std::floor((t1 - t0) / options.speed * options.framesPerSecond)) + 1, 2,
                                options.maxFrames);
  QTemporaryDir dir;
  if (!dir.isValid()) return fail(QCoreApplication::translate("export", "Cannot make a folder for the frames"));
  const int keepRow = playback.currentRow();
  playback.pause();
  std::size_t row = 0;
  for (int k = 0; k < frames; ++k) {
    const double t = t0 + (t1 - t0) * k / (frames - 1);
    while (row + 1 < results->rows && results->time(row + 1) <= t + 1e-12) ++row;
    playback.showRow(static_cast<int>(row));
    QImage image = view.grabImage();
    // even sizes: H.264 in 4:2:0 needs them
    image = image.copy(0, 0, image.width() & ~1, image.height() & ~1);
    if (!image.save(dir.filePath(QString("frame_%1.png").arg(k, 5, 10, QChar('0'))), "PNG")) {
      playback.showRow(keepRow);
      return fail(QCoreApplication::translate("export", "Cannot write the frames"));
    }
    if (progress && !progress(k + 1, frames + 1)) {
      playback.showRow(keepRow);
      return fail(QCoreApplication::translate("export", "Export cancelled"));
    }
  }
  playback.showRow(keepRow);

  QStringList args{"-y", "-loglevel", "error", "-framerate", QString::number(options.framesPerSecond), "-i",
                   dir.filePath("frame_%05d.png")};
  if (suffix == "gif")  // a palette of the animation's own colours: no banding
    args << "-filter_complex" << "[0:v]split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer" << "-loop" << "0";
  else if (suffix == "mp4")
    args << "-c:v" << "libx264" << "-pix_fmt" << "yuv420p" << "-crf" << "20";
  else
    args << "-c:v" << "libvpx-vp9" << "-b:v" << "0" << "-crf" << "32";
  args << path;
  QProcess encoder;
  encoder.start(ffmpeg, args);
  if (!encoder.waitForStarted(10000)) return fail(QCoreApplication::translate("export", "ffmpeg did not start"));
  while (!encoder.waitForFinished(200)) {
    if (progress && !progress(frames, frames + 1)) {
      encoder.kill();
      encoder.waitForFinished();
      QFile::remove(path);
      return fail(QCoreApplication::translate("export", "Export cancelled"));
    }
  }
  if (encoder.exitStatus() != QProcess::NormalExit || encoder.exitCode() != 0)
    return fail(QCoreApplication::translate("export", "ffmpeg failed: %1").arg(QString::fromLocal8Bit(encoder.readAllStandardError()).trimmed()));
  if (progress) progress(frames + 1, frames + 1);
  return true;
}

}  // namespace lw::app
