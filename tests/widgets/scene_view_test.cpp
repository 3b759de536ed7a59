// Smoke tests of the VTK scene view: they render real frames (under Xvfb when there is no
// display), save them as PNG in $LW_TEST_ARTIFACTS (default: the current directory) and check
// the pixels. Look at the screenshots: a picture beats a pixel count.
#include "scene/scene.h"
#include "view3d/scene_view.h"
#include "view3d/scene_geometry.h"
#include <vtkPolyData.h>

#include <gtest/gtest.h>

#include <vtkCamera.h>
#include <vtkRenderer.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QMouseEvent>
#include <QTest>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>

namespace {

using lw::scene::JointGlyph;
using lw::scene::Pose;
using lw::scene::Primitive;
using lw::scene::Rgb;
using lw::scene::SceneBody;
using lw::scene::SceneFrame;
using lw::scene::SceneModel;
using lw::scene::Vec3;
using lw::widgets::SceneView;

constexpr double kPi = std::numbers::pi;

// ---- a planar crank-rocker four-bar (SI units): ground A-D, crank A-B, coupler B-C with a
// coupler point P, rocker D-C; a spring from the ground to the rocker
struct FourBar {
  double a = 0.12;  // crank |AB|
  double b = 0.36;  // coupler |BC|
  double c = 0.30;  // rocker |DC|
  Vec3 A{0, 0, 0};
  Vec3 D{0.40, 0, 0};
  Vec3 E{0.58, 0.04, 0};  // spring anchor on the ground
  double pu = 0.55;       // coupler point P in the coupler frame (x along BC)
  double pv = 0.16;

  static constexpr Rgb kCrank{0.85, 0.22, 0.18};
  static constexpr Rgb kCoupler{0.20, 0.45, 0.82};
  static constexpr Rgb kRocker{0.22, 0.66, 0.34};

  struct Pos {
    Vec3 B, C, P;
    double theta, phiCoupler, phiRocker;
  };

  // position analysis: C on the circles |C - B| = b and |C - D| = c (open branch)
  [[nodiscard]] Pos solve(double theta) const {
    Pos p{};
    p.theta = theta;
    p.B = {A[0] + a * std::cos(theta), A[1] + a * std::sin(theta), 0};
    const double dx = D[0] - p.B[0];
    const double dy = D[1] - p.B[1];
    const double e = std::hypot(dx, dy);
    const double along = (b * b - c * c + e * e) / (2 * e);
    const double h = std::sqrt(std::max(0.0, b * b - along * along));
    p.C = {p.B[0] + (along * dx - h * dy) / e, p.B[1] + (along * dy + h * dx) / e, 0};
    p.phiCoupler = std::atan2(p.C[1] - p.B[1], p.C[0] - p.B[0]);
    p.phiRocker = std::atan2(p.C[1] - D[1], p.C[0] - D[0]);
    const double cs = std::cos(p.phiCoupler);
    const double sn = std::sin(p.phiCoupler);
    p.P = {p.B[0] + pu * b * cs - pv * sn, p.B[1] + pu * b * sn + pv * cs, 0};
    return p;
  }

  [[nodiscard]] Vec3 rockerPoint(const Pos& p, double s) const {  // along D -> C
    return {D[0] + s * (p.C[0] - D[0]), D[1] + s * (p.C[1] - D[1]), 0};
  }

  [[nodiscard]] SceneModel model() const {
    SceneModel m;
    m.dimension = 2;
    m.drawingScale = 0.4;

    SceneBody ground;
    ground.name = "ground";
    ground.isGround = true;
    for (const Vec3& q : {A, D}) {  // a support under each pivot, on a common base
      Primitive support;
      support.kind = Primitive::Kind::Plate;
      support.radius = 0.012;
      support.points = {q, {q[0] + 0.035, q[1] - 0.06, 0}, {q[0] - 0.035, q[1] - 0.06, 0}};
      ground.primitives.push_back(support);
      Primitive base;
      base.kind = Primitive::Kind::Box;
      base.centre = {q[0], q[1] - 0.078, 0};
      base.size = {0.12, 0.02, 0};
      ground.primitives.push_back(base);
    }
    Primitive anchor;  // the spring's anchor post
    anchor.kind = Primitive::Kind::Bar;
    anchor.radius = 0.012;
    anchor.points = {{E[0], E[1] - 0.07, 0}, E};
    ground.primitives.push_back(anchor);
    m.bodies.push_back(ground);

    auto bar = [](double len, double radius) {
      Primitive p;
      p.kind = Primitive::Kind::Bar;
      p.radius = radius;
      p.points = {{0, 0, 0}, {len, 0, 0}};
      return p;
    };
    SceneBody crank;
    crank.name = "crank";
    crank.color = kCrank;
    crank.primitives.push_back(bar(a, 0.02));
    m.bodies.push_back(crank);

    SceneBody coupler;
    coupler.name = "coupler";
    coupler.color = kCoupler;
    Primitive plate;
    plate.kind = Primitive::Kind::Plate;
    plate.radius = 0.018;
    plate.points = {{0, 0, 0}, {b, 0, 0}, {pu * b, pv, 0}};
    coupler.primitives.push_back(plate);
    m.bodies.push_back(coupler);

    SceneBody rocker;
    rocker.name = "rocker";
    rocker.color = kRocker;
    rocker.primitives.push_back(bar(c, 0.02));
    m.bodies.push_back(rocker);

    for (const char* name : {"A", "B", "C", "D"}) m.joints.push_back({name, JointGlyph::Pin});
    m.springs.push_back({"spring"});
    return m;
  }

  [[nodiscard]] static Pose planarPose(const Vec3& origin, double angle) {
    Pose X;
    X.position = origin;
    const double cs = std::cos(angle);
    const double sn = std::sin(angle);
    X.rotation = {cs, -sn, 0, sn, cs, 0, 0, 0, 1};
    return X;
  }

  [[nodiscard]] SceneFrame frame(double theta, bool withPath = true) const {
    const Pos p = solve(theta);
    SceneFrame f;
    f.bodyPoses = {Pose{}, planarPose(A, p.theta), planarPose(p.B, p.phiCoupler), planarPose(D, p.phiRocker)};
    f.joints = {{A, {0, 0, 1}}, {p.B, {0, 0, 1}}, {p.C, {0, 0, 1}}, {D, {0, 0, 1}}};
    f.springs = {{E, rockerPoint(p, 0.55)}};
    if (withPath) {
      lw::scene::Path path;
      path.name = "coupler point";
      for (int k = 0; k <= 120; ++k) path.points.push_back(solve(2 * kPi * k / 120).P);
      f.paths.push_back(path);
    }
    return f;
  }
};

// ---- a planar slider-crank shaped like lw::scene::buildSceneModel's defaults: thin bars
// (radius 0.012 L), cube anchors centred on the ground points, a box-shaped slider block
struct SliderCrank {
  double r = 0.1;   // crank
  double l = 0.3;   // connecting rod
  double L = 0.4;   // length scale

  static constexpr Rgb kCrank{0.20, 0.47, 0.75};
  static constexpr Rgb kRod{0.85, 0.42, 0.13};
  static constexpr Rgb kBlock{0.25, 0.62, 0.33};

  [[nodiscard]] SceneModel model() const {
    SceneModel m;
    m.dimension = 2;
    m.drawingScale = L;
    SceneBody ground;
    ground.isGround = true;
    for (const Vec3& q : {Vec3{0, 0, 0}, Vec3{0.25, 0, 0}}) {
      Primitive box;
      box.kind = Primitive::Kind::Box;
      box.centre = q;
      box.size = {0.045 * L, 0.045 * L, 0.045 * L};
      ground.primitives.push_back(box);
    }
    Primitive rail;  // a contact-plane-like strip under the slider
    rail.kind = Primitive::Kind::Plate;
    rail.radius = 0.004 * L;
    rail.points = {{0.1, -0.035, 0}, {0.5, -0.035, 0}, {0.5, -0.05, 0}, {0.1, -0.05, 0}};
    ground.primitives.push_back(rail);
    m.bodies.push_back(ground);
    auto barBody = [&](const char* name, const Rgb& color, double len) {
      SceneBody b;
      b.name = name;
      b.color = color;
      Primitive bar;
      bar.kind = Primitive::Kind::Bar;
      bar.radius = 0.012 * L;
      bar.points = {{0, 0, 0}, {len, 0, 0}};
      b.primitives.push_back(bar);
      return b;
    };
    m.bodies.push_back(barBody("crank", kCrank, r));
    m.bodies.push_back(barBody("rod", kRod, l));
    SceneBody block;
    block.name = "block";
    block.color = kBlock;
    Primitive box;
    box.kind = Primitive::Kind::Box;
    box.size = {0.08, 0.05, 0.05};
    block.primitives.push_back(box);
    m.bodies.push_back(block);
    m.joints = {{"A", JointGlyph::Pin}, {"B", JointGlyph::Pin}, {"C", JointGlyph::Pin}, {"S", JointGlyph::Slider}};
    return m;
  }

  [[nodiscard]] SceneFrame frame(double theta) const {
    const Vec3 B{r * std::cos(theta), r * std::sin(theta), 0};
    const Vec3 C{B[0] + std::sqrt(l * l - B[1] * B[1]), 0, 0};
    SceneFrame f;
    f.bodyPoses = {Pose{}, FourBar::planarPose({0, 0, 0}, theta),
                   FourBar::planarPose(B, std::atan2(C[1] - B[1], C[0] - B[0])), FourBar::planarPose(C, 0)};
    f.joints = {{{0, 0, 0}, {0, 0, 1}}, {B, {0, 0, 1}}, {C, {0, 0, 1}}, {C, {1, 0, 0}}};
    return f;
  }
};

// ---- a small spatial mechanism showing every glyph kind (a pose, not a solved mechanism):
// a crank turning about X, a link with a ball end, a plate with a block, on a base plate
SceneModel spatialModel() {
  SceneModel m;
  m.dimension = 3;
  m.drawingScale = 0.5;
  SceneBody ground;
  ground.name = "ground";
  ground.isGround = true;
  Primitive base;
  base.kind = Primitive::Kind::Box;
  base.centre = {0.22, -0.1, 0.15};
  base.size = {0.7, 0.03, 0.5};
  ground.primitives.push_back(base);
  Primitive post;
  post.kind = Primitive::Kind::Bar;
  post.radius = 0.018;
  post.points = {{-0.06, -0.085, 0}, {-0.06, 0, 0}};
  ground.primitives.push_back(post);
  m.bodies.push_back(ground);

  SceneBody crank;
  crank.name = "crank";
  crank.color = {0.85, 0.25, 0.2};
  Primitive rod;
  rod.kind = Primitive::Kind::Bar;
  rod.radius = 0.014;
  rod.points = {{0, 0, 0}, {0, 0.15, 0}};
  crank.primitives.push_back(rod);
  m.bodies.push_back(crank);

  SceneBody link;
  link.name = "link";
  link.color = {0.25, 0.5, 0.85};
  Primitive linkRod = rod;
  linkRod.points = {{0, 0, 0}, {0.34, -0.06, 0.16}};
  link.primitives.push_back(linkRod);
  Primitive ball;
  ball.kind = Primitive::Kind::Sphere;
  ball.centre = {0.34, -0.06, 0.16};
  ball.radius = 0.02;
  link.primitives.push_back(ball);
  m.bodies.push_back(link);

  SceneBody plate;
  plate.name = "plate";
  plate.color = {0.3, 0.68, 0.4};
  Primitive tri;
  tri.kind = Primitive::Kind::Plate;
  tri.radius = 0.012;
  tri.points = {{0, 0, 0}, {0.14, 0, 0}, {0.06, 0, 0.12}};
  plate.primitives.push_back(tri);
  Primitive block;
  block.kind = Primitive::Kind::Box;
  block.centre = {0.065, 0.035, 0.045};
  block.size = {0.05, 0.06, 0.05};
  plate.primitives.push_back(block);
  m.bodies.push_back(plate);

  m.joints = {{"R", JointGlyph::Revolute},  {"U", JointGlyph::Universal},   {"S", JointGlyph::Spherical},
              {"P", JointGlyph::Prismatic}, {"C", JointGlyph::Cylindrical}, {"F", JointGlyph::Fixed}};
  m.springs.push_back({"k"});
  return m;
}

SceneFrame spatialFrame(double angle) {
  const double cs = std::cos(angle);
  const double sn = std::sin(angle);
  Pose crank;
  crank.rotation = {1, 0, 0, 0, cs, -sn, 0, sn, cs};  // about X
  Pose link;
  link.position = {0, 0.15 * cs, 0.15 * sn};  // the crank's tip
  const Vec3 ball{link.position[0] + 0.34, link.position[1] - 0.06, link.position[2] + 0.16};
  Pose plate;
  plate.position = {0.3, -0.075, 0.32};
  SceneFrame f;
  f.bodyPoses = {Pose{}, crank, link, plate};
  f.joints = {{{0, 0, 0}, {1, 0, 0}},      {link.position, {0, 0, 1}},  {ball, {0, 1, 0}},
              {{0.52, -0.07, 0.33}, {1, 0, 0}}, {{0.05, -0.05, 0.36}, {0, 0, 1}}, {{0.365, -0.04, 0.365}, {0, 1, 0}}};
  f.springs = {{{0.52, -0.085, 0.02}, ball}};
  return f;
}

// ---- helpers

QString artifactPath(const QString& fileName) {
  const char* dir = std::getenv("LW_TEST_ARTIFACTS");
  const QString d = dir != nullptr && *dir != '\0' ? QString::fromLocal8Bit(dir) : QDir::currentPath();
  QDir().mkpath(d);
  return QDir(d).filePath(fileName);
}

void save(const QImage& img, const QString& name) {
  const QString path = artifactPath(name);
  EXPECT_TRUE(img.save(path)) << path.toStdString();
  std::printf("[ screenshot ] %s\n", path.toLocal8Bit().constData());
}

// shows the view (800 x 600) if needed and waits until it has rendered once more
void showAndSettle(SceneView& view) {
  const long long before = view.renderCount();
  if (!view.isVisible()) {
    view.resize(800, 600);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  }
  QElapsedTimer timer;
  timer.start();
  while (view.renderCount() == before && timer.elapsed() < 5000) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  QCoreApplication::processEvents();
}

int colorDistance(QRgb p, QRgb q) {
  return std::max({std::abs(qRed(p) - qRed(q)), std::abs(qGreen(p) - qGreen(q)), std::abs(qBlue(p) - qBlue(q))});
}

struct Diff {
  double fraction = 0;     // of all pixels
  QRect box;               // bounding box of the differing pixels
};

Diff difference(const QImage& a, const QImage& b, int threshold) {
  Diff d;
  const QImage x = a.convertToFormat(QImage::Format_RGB32);
  const QImage y = b.convertToFormat(QImage::Format_RGB32);
  if (x.size() != y.size()) return d;
  long long count = 0;
  int x0 = x.width(), y0 = x.height(), x1 = -1, y1 = -1;
  for (int r = 0; r < x.height(); ++r) {
    const auto* px = reinterpret_cast<const QRgb*>(x.constScanLine(r));
    const auto* py = reinterpret_cast<const QRgb*>(y.constScanLine(r));
    for (int c = 0; c < x.width(); ++c) {
      if (colorDistance(px[c], py[c]) > threshold) {
        ++count;
        x0 = std::min(x0, c);
        x1 = std::max(x1, c);
        y0 = std::min(y0, r);
        y1 = std::max(y1, r);
      }
    }
  }
  d.fraction = static_cast<double>(count) / (static_cast<double>(x.width()) * x.height());
  if (x1 >= 0) d.box = QRect(QPoint(x0, y0), QPoint(x1, y1));
  return d;
}

// true when some pixel within `radius` of `at` (widget pixels) has the body colour's hue:
// its strongest channel is the colour's strongest one, ahead of the others by `margin`
bool hasHueNear(const QImage& img, QPointF at, const Rgb& color, int radius = 4, int margin = 40) {
  const double dpr = img.devicePixelRatio();
  const int cx = static_cast<int>(std::lround(at.x() * dpr));
  const int cy = static_cast<int>(std::lround(at.y() * dpr));
  const auto strongest = static_cast<int>(std::max_element(color.begin(), color.end()) - color.begin());
  for (int y = cy - radius; y <= cy + radius; ++y) {
    for (int x = cx - radius; x <= cx + radius; ++x) {
      if (!img.valid(x, y)) continue;
      const QRgb p = img.pixel(x, y);
      const int ch[3] = {qRed(p), qGreen(p), qBlue(p)};
      bool ok = true;
      for (int k = 0; k < 3; ++k)
        if (k != strongest && ch[strongest] < ch[k] + margin) ok = false;
      if (ok) return true;
    }
  }
  return false;
}

Vec3 midpoint(const Vec3& p, const Vec3& q) { return {(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}; }

// ---- tests

// fewer facets for small parts: a capsule of 12 segments has 12 vertices on each of its
// 2 × (12/4 + 1) rings, all on its surface (distance from the axis segment = radius); 32 is the
// default; fewer than 6 becomes 6
TEST(SceneGeometry, CapsuleFacetsFollowTheSegmentCount) {
  auto capsulePoints = [](int segments) {
    lw::widgets::detail::MeshBuilder mb;
    if (segments > 0) mb.setSegments(segments);
    mb.capsule({0, 0, 0}, {1, 0, 0}, 0.1);
    return mb.build();
  };
  const auto coarse = capsulePoints(12);
  ASSERT_EQ(coarse->GetNumberOfPoints(), 2 * (12 / 4 + 1) * 12);
  for (vtkIdType i = 0; i < coarse->GetNumberOfPoints(); ++i) {
    double p[3];
    coarse->GetPoint(i, p);
    const double along = std::clamp(p[0], 0.0, 1.0);
    EXPECT_NEAR(std::hypot(p[0] - along, p[1], p[2]), 0.1, 1e-6) << "vertex " << i;
  }
  EXPECT_EQ(capsulePoints(0)->GetNumberOfPoints(), 2 * (32 / 4 + 1) * 32);
  EXPECT_EQ(capsulePoints(3)->GetNumberOfPoints(), 2 * (2 + 1) * 6);  // 6 segments, 2 steps per rounded end
}

TEST(SceneView, PlanarFourBarIsDrawn) {
  const FourBar fb;
  SceneView view;
  view.setScene(fb.model(), fb.frame(kPi / 3));
  showAndSettle(view);
  const QImage shot = view.grabImage();
  ASSERT_FALSE(shot.isNull());
  EXPECT_EQ(shot.size(), QSize(800, 600) * view.devicePixelRatioF());
  save(shot, "scene_view_fourbar.png");

  // pixel checks without the reference grid, against the empty view's background
  view.setGridVisible(false);
  const QImage bare = view.grabImage();
  const FourBar::Pos p = fb.solve(kPi / 3);
  // each moving body shows its colour where its middle projects
  EXPECT_TRUE(hasHueNear(bare, view.projectToWidget(midpoint(fb.A, p.B)), FourBar::kCrank)) << "crank";
  EXPECT_TRUE(hasHueNear(bare, view.projectToWidget(midpoint(p.B, p.C)), FourBar::kCoupler)) << "coupler";
  EXPECT_TRUE(hasHueNear(bare, view.projectToWidget(fb.rockerPoint(p, 0.3)), FourBar::kRocker)) << "rocker";

  view.clear();
  const QImage empty = view.grabImage();
  save(empty, "scene_view_empty.png");
  const Diff d = difference(bare, empty, 40);
  EXPECT_GT(d.fraction, 0.04) << "too few pixels differ from the background";
  EXPECT_LT(d.fraction, 0.8) << "the background is gone";
  // the mechanism fills a good part of the view (the camera fits it)
  EXPECT_GT(d.box.width(), 0.5 * bare.width());
  EXPECT_GT(d.box.height(), 0.5 * bare.height());
  // pixels left and right of the drawing are background: it is centred, not clipped
  EXPECT_GT(d.box.left(), 0);
  EXPECT_LT(d.box.right(), bare.width() - 1);
}

TEST(SceneView, ShowFrameMovesTheBodiesCheaply) {
  const FourBar fb;
  SceneView view;
  view.setScene(fb.model(), fb.frame(kPi / 3));
  showAndSettle(view);
  const QImage before = view.grabImage();

  const double theta = 4.0;  // about 229 degrees: the crank points down-left
  view.showFrame(fb.frame(theta));
  showAndSettle(view);
  const QImage after = view.grabImage();
  save(after, "scene_view_fourbar_moved.png");

  const Diff d = difference(before, after, 40);
  EXPECT_GT(d.fraction, 0.01) << "showFrame did not change the picture";
  const FourBar::Pos p = fb.solve(theta);
  EXPECT_TRUE(hasHueNear(after, view.projectToWidget(midpoint(fb.A, p.B)), FourBar::kCrank));
  EXPECT_TRUE(hasHueNear(after, view.projectToWidget(fb.rockerPoint(p, 0.3)), FourBar::kRocker));

  // a sequence of frames renders each one (speed is measured in benchmarks, not asserted here)
  std::vector<SceneFrame> frames;
  for (int k = 0; k < 100; ++k) frames.push_back(fb.frame(2 * kPi * k / 100));
  const long long r0 = view.renderCount();
  for (int k = 0; k < 20; ++k) {
    view.showFrame(frames[static_cast<std::size_t>(k * 5)]);
    (void)view.grabImage();
  }
  EXPECT_GE(view.renderCount() - r0, 20);
}

TEST(SceneView, PlanarSliderCrankIsDrawn) {
  const SliderCrank sc;
  SceneView view;
  const double theta = 1.1;
  view.setScene(sc.model(), sc.frame(theta));
  showAndSettle(view);
  const QImage shot = view.grabImage();
  save(shot, "scene_view_slider_crank.png");
  const Vec3 B{sc.r * std::cos(theta), sc.r * std::sin(theta), 0};
  const Vec3 C{B[0] + std::sqrt(sc.l * sc.l - B[1] * B[1]), 0, 0};
  EXPECT_TRUE(hasHueNear(shot, view.projectToWidget(midpoint({0, 0, 0}, B)), SliderCrank::kCrank)) << "crank";
  EXPECT_TRUE(hasHueNear(shot, view.projectToWidget(midpoint(B, C)), SliderCrank::kRod)) << "rod";
  EXPECT_TRUE(hasHueNear(shot, view.projectToWidget({C[0] + 0.03, C[1] + 0.018, 0}), SliderCrank::kBlock))
      << "block";
}

TEST(SceneView, SpatialMechanismIsDrawn) {
  SceneView view;
  view.setScene(spatialModel(), spatialFrame(0.6));
  showAndSettle(view);
  const QImage shot = view.grabImage();
  save(shot, "scene_view_spatial.png");

  view.setGridVisible(false);
  const QImage bare = view.grabImage();
  view.clear();
  const QImage empty = view.grabImage();
  const Diff d = difference(bare, empty, 40);
  EXPECT_GT(d.fraction, 0.03);
  EXPECT_GT(d.box.width(), 0.4 * bare.width());
  EXPECT_GT(d.box.height(), 0.4 * bare.height());
  EXPECT_GT(d.box.left(), 0);
  EXPECT_LT(d.box.right(), bare.width() - 1);
}

TEST(SceneView, MouseRotatesAndWheelZooms) {
  const FourBar fb;
  SceneView view;
  view.setScene(fb.model(), fb.frame(1.0));
  showAndSettle(view);
  vtkCamera* cam = view.renderer()->GetActiveCamera();
  const double scale0 = cam->GetParallelScale();
  double pos0[3];
  cam->GetPosition(pos0);

  // left drag: trackball rotation
  const QPointF a(400, 300);
  const QPointF b(520, 240);
  QMouseEvent press(QEvent::MouseButtonPress, a, view.mapToGlobal(a), Qt::LeftButton, Qt::LeftButton,
                    Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &press);
  for (int k = 1; k <= 6; ++k) {
    const QPointF m = a + (b - a) * (k / 6.0);
    QMouseEvent move(QEvent::MouseMove, m, view.mapToGlobal(m), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&view, &move);
  }
  QMouseEvent release(QEvent::MouseButtonRelease, b, view.mapToGlobal(b), Qt::LeftButton, Qt::NoButton,
                      Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &release);
  showAndSettle(view);
  double pos1[3];
  cam->GetPosition(pos1);
  EXPECT_GT(std::hypot(pos1[0] - pos0[0], pos1[1] - pos0[1], pos1[2] - pos0[2]), 1e-6) << "no rotation";
  save(view.grabImage(), "scene_view_fourbar_rotated.png");

  // wheel forward: zoom in (smaller parallel scale)
  view.resetCamera();
  const QPointF c(400, 300);
  QWheelEvent wheel(c, view.mapToGlobal(c), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(&view, &wheel);
  EXPECT_LT(cam->GetParallelScale(), scale0);

  // R resets the camera
  QTest::keyClick(&view, Qt::Key_R);
  EXPECT_NEAR(cam->GetParallelScale(), scale0, 1e-9 * scale0);
}

}  // namespace

