#include "panels/welcome_page.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

#include "io/mechanism_io.h"
#include "mechanism/resolved.h"

namespace lw::widgets {
namespace {

constexpr QSize kThumbnail(200, 150);
const QColor kPalette[] = {QColor(208, 64, 48), QColor(48, 128, 192), QColor(64, 160, 96), QColor(208, 128, 48),
                           QColor(128, 80, 176), QColor(32, 150, 150)};

// convex hull of 2D points (monotone chain), counter-clockwise
std::vector<QPointF> hull(std::vector<QPointF> p) {
  std::sort(p.begin(), p.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
  if (p.size() < 3) return p;
  auto cross = [](const QPointF& o, const QPointF& a, const QPointF& b) {
    return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
  };
  std::vector<QPointF> h(2 * p.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i > 0; --i) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i - 1]) <= 0) --k;
    h[k++] = p[i - 1];
  }
  h.resize(k - 1);
  return h;
}

}  // namespace

QImage mechanismThumbnail(const ResolvedMechanism& m, QSize size) {
  // the screen's axes: planar x, y; spatial isometric about the up axis (against gravity)
  Eigen::Vector3d up = Eigen::Vector3d::UnitY(), front = Eigen::Vector3d::UnitZ();
  if (m.dimension == 3 && m.gravity.norm() > 0) {
    int a = 0;
    m.gravity.cwiseAbs().maxCoeff(&a);
    up = Eigen::Vector3d::Zero();
    up[a] = m.gravity[a] > 0 ? -1 : 1;
    front = std::abs(up.z()) > 0.5 ? Eigen::Vector3d(0, -1, 0) : Eigen::Vector3d::UnitZ();
  }
  const Eigen::Vector3d side = up.cross(front);
  auto project = [&](const Eigen::Vector3d& p) {
    if (m.dimension == 2) return QPointF(p.x(), -p.y());
    return QPointF(0.707 * (p.dot(side) - p.dot(front)), -(p.dot(up) - 0.35 * (p.dot(side) + p.dot(front))));
  };
  std::vector<std::vector<QPointF>> bodies(m.bodies.size());
  QRectF box;
  for (std::size_t b = 0; b < m.bodies.size(); ++b)
    for (std::size_t i = 0; i < m.bodies[b].points.size(); ++i) {
      const QPointF q = project(m.bodies[b].position + m.bodies[b].rotation * m.bodies[b].points[i]);
      bodies[b].push_back(q);
      box |= QRectF(q, QSizeF(1e-9, 1e-9));
    }
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(QColor(246, 247, 249));
  if (box.isEmpty() && box.width() <= 0 && box.height() <= 0) return image;
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  const double margin = 14;
  const double scale = std::min((size.width() - 2 * margin) / std::max(box.width(), 1e-9),
                                (size.height() - 2 * margin) / std::max(box.height(), 1e-9));
  const QPointF offset = QPointF(size.width() / 2.0, size.height() / 2.0) - scale * box.center();
  auto toImage = [&](const QPointF& q) { return offset + scale * q; };
  const double bar = std::clamp(0.018 * std::min(size.width(), size.height()), 2.0, 6.0);
  for (std::size_t b = 1; b < bodies.size(); ++b) {
    const auto& body = m.bodies[b];
    QColor c = kPalette[(b - 1) % std::size(kPalette)];
    if (body.color) c = QColor::fromRgbF(static_cast<float>((*body.color)[0]), static_cast<float>((*body.color)[1]),
                                         static_cast<float>((*body.color)[2]));
    std::vector<QPointF> pts;
    for (const QPointF& q : bodies[b]) pts.push_back(toImage(q));
    if (pts.empty()) continue;
    const std::vector<QPointF> h = hull(pts);
    painter.setPen(QPen(c, bar, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    if (h.size() >= 3) {
      QColor fill = c;
      fill.setAlphaF(0.55f);
      painter.setBrush(fill);
      painter.drawPolygon(h.data(), static_cast<int>(h.size()));
    } else if (h.size() == 2) {
      painter.drawLine(h[0], h[1]);
    } else {
      painter.setBrush(c);
      painter.drawEllipse(h[0], 2 * bar, 2 * bar);
    }
  }
  painter.setBrush(QColor(52, 56, 64));
  painter.setPen(Qt::NoPen);
  for (const QPointF& q : bodies[0]) painter.drawRect(QRectF(toImage(q) - QPointF(bar, bar), QSizeF(2 * bar, 2 * bar)));
  painter.setBrush(Qt::white);
  painter.setPen(QPen(QColor(52, 56, 64), 1.2));
  for (const auto& j : m.joints)
    if (j.points[0].valid()) painter.drawEllipse(toImage(project(m.pointWorld(j.points[0]))), 0.8 * bar, 0.8 * bar);
  return image;
}

WelcomePage::WelcomePage(const QString& samplesDir, QWidget* parent) : QWidget(parent), samplesDir_(samplesDir) {
  auto* title = new QLabel(tr("<h1>Linkwright</h1><p>Design, analyse and animate linkages: draw one, open one of "
                              "the samples below, or a file of your own.</p>"),
                           this);
  title->setWordWrap(true);
  auto* newButton = new QPushButton(tr("New sketch"), this);
  newButton->setObjectName("WelcomeNew");
  auto* openButton = new QPushButton(tr("Open..."), this);
  auto* helpButton = new QPushButton(tr("Getting started (F1)"), this);
  connect(newButton, &QPushButton::clicked, this, &WelcomePage::newRequested);
  connect(openButton, &QPushButton::clicked, this, &WelcomePage::openDialogRequested);
  connect(helpButton, &QPushButton::clicked, this, &WelcomePage::helpRequested);
  recent_ = new QListWidget(this);
  recent_->setObjectName("WelcomeRecent");
  samples_ = new QListWidget(this);
  samples_->setObjectName("WelcomeSamples");
  samples_->setViewMode(QListView::IconMode);
  samples_->setIconSize(kThumbnail);
  samples_->setResizeMode(QListView::Adjust);
  samples_->setMovement(QListView::Static);
  samples_->setSpacing(8);
  samples_->setWordWrap(true);
  samples_->setGridSize(kThumbnail + QSize(24, 44));
  auto open = [this](QListWidgetItem* item) {
    if (item) emit openRequested(item->data(Qt::UserRole).toString());
  };
  connect(samples_, &QListWidget::itemActivated, this, open);
  connect(samples_, &QListWidget::itemClicked, this, open);
  connect(recent_, &QListWidget::itemActivated, this, open);
  connect(recent_, &QListWidget::itemClicked, this, open);

  auto* side = new QVBoxLayout;
  side->addWidget(newButton);
  side->addWidget(openButton);
  side->addWidget(helpButton);
  side->addSpacing(12);
  side->addWidget(new QLabel(tr("<b>Recent files</b>"), this));
  side->addWidget(recent_, 1);
  auto* main = new QVBoxLayout;
  main->addWidget(new QLabel(tr("<b>Samples</b> — click one to open it"), this));
  main->addWidget(samples_, 1);
  auto* columns = new QHBoxLayout;
  columns->addLayout(side, 1);
  columns->addLayout(main, 4);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title);
  layout->addLayout(columns, 1);
}

void WelcomePage::setRecentFiles(const QStringList& files) {
  recent_->clear();
  for (const QString& f : files) {
    auto* item = new QListWidgetItem(QFileInfo(f).fileName(), recent_);
    item->setData(Qt::UserRole, f);
    item->setToolTip(f);
  }
  if (files.isEmpty()) {
    auto* item = new QListWidgetItem(tr("(none yet)"), recent_);
    item->setFlags(Qt::NoItemFlags);
  }
}

void WelcomePage::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (!filled_) fillSamples();
}

void WelcomePage::fillSamples() {
  filled_ = true;
  const QDir dir(samplesDir_);
  for (const QString& file : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    const auto loaded = io::loadMechanismFile(dir.filePath(file).toStdString());
    if (!loaded.ok()) continue;
    Diagnostics d;
    const auto resolved = resolve(*loaded.mechanism, d);
    if (!resolved) continue;
    auto* item = new QListWidgetItem(QIcon(QPixmap::fromImage(mechanismThumbnail(*resolved, kThumbnail))),
                                     QString::fromStdString(loaded.mechanism->name), samples_);
    item->setData(Qt::UserRole, dir.filePath(file));
    item->setToolTip(QString::fromStdString(loaded.mechanism->description) + "\n(" + file + ")");
  }
}

}  // namespace lw::widgets
