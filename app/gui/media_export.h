// Sharing a result (issue 24): the 3D view or the sketch as an image (PNG; the sketch also as SVG,
// vector), and the playback of a run as an animated GIF or a video (MP4, WebM) encoded by ffmpeg
// (a well-kept tool, not a hand-written encoder) from frames drawn by the 3D view.
#pragma once

#include <QString>
#include <functional>

namespace lw::widgets {
class SceneView;
class SketchView;
class PlaybackBar;
}  // namespace lw::widgets

namespace lw::app {

/// The 3D view's picture as PNG (`path` ends in .png), `scale` times the view's size in pixels
/// (rendered again at that size, not enlarged: for slides and papers). False with `error`.
bool exportSceneImage(widgets::SceneView& view, const QString& path, QString* error, int scale = 1);
/// The sketch as PNG (`scale` times the view's size, drawn again at that size), or as SVG
/// (vector) when `path` ends in .svg. False with `error`.
bool exportSketchImage(widgets::SketchView& view, const QString& path, QString* error, int scale = 1);

struct AnimationOptions {
  int framesPerSecond = 25;
  double speed = 1;       // playback speed: 0.5 = slow motion
  int maxFrames = 1500;   // a minute at 25 frames per second
};

/// The shown run, played by `playback` into `view` frame by frame and encoded by ffmpeg into
/// `path` (.gif, .mp4 or .webm by its suffix). `progress(done, total)` returns false to cancel.
/// The playback row is restored afterwards. False with `error` (no run, ffmpeg missing or failing,
/// cancelled).
bool exportAnimation(widgets::SceneView& view, widgets::PlaybackBar& playback, const QString& path,
                     const AnimationOptions& options, const std::function<bool(int, int)>& progress, QString* error);

/// The ffmpeg program (on PATH), or empty.
QString ffmpegProgram();

}  // namespace lw::app
