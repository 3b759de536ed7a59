#include "panels/structure_panel.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainterPath>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace lw::widgets {
namespace {

constexpr double kNodeW = 190, kNodeH = 62, kGapY = 18;

// A node that selects its group when clicked.
class GroupNode : public QGraphicsRectItem {
 public:
  GroupNode(const QRectF& r, int index, StructurePanel* panel) : QGraphicsRectItem(r), index_(index), panel_(panel) {
    setCursor(Qt::PointingHandCursor);
  }

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* e) override {
    panel_->selectGroup(panel_->currentGroup() == index_ ? -1 : index_);
    e->accept();
  }

 private:
  int index_;
  StructurePanel* panel_;
};

QString join(const std::vector<std::string>& names) {
  QStringList l;
  for (const auto& n : names) l << QString::fromStdString(n);
  return l.join(", ");
}

}  // namespace

StructurePanel::StructurePanel(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel(tr("No mechanism"), this);
  summary_->setWordWrap(true);
  scene_ = new QGraphicsScene(this);
  view_ = new QGraphicsView(scene_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  view_->setToolTip(tr("Structural groups in solve order; click a group to highlight its bodies"));
  prev_ = new QToolButton(this);
  prev_->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
  prev_->setToolTip(tr("Previous group in the solve order"));
  next_ = new QToolButton(this);
  next_->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
  next_->setToolTip(tr("Next group in the solve order"));
  all_ = new QToolButton(this);
  all_->setText(tr("All"));
  all_->setToolTip(tr("Show the whole mechanism"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(prev_);
  buttons->addWidget(next_);
  buttons->addWidget(all_);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(summary_);
  layout->addLayout(buttons);
  layout->addWidget(view_, 1);
  connect(prev_, &QToolButton::clicked, this, &StructurePanel::previous);
  connect(next_, &QToolButton::clicked, this, &StructurePanel::next);
  connect(all_, &QToolButton::clicked, this, [this] { selectGroup(-1); });
  setDiagram({});
}

void StructurePanel::setDiagram(StructureDiagram d) {
  d_ = std::move(d);
  current_ = -1;
  if (d_.pending) summary_->setText(tr("Analysing the structure…"));
  else if (d_.groups.empty() && d_.error.empty()) summary_->setText(tr("No mechanism"));
  else if (!d_.ok) summary_->setText(tr("<span style='color:#b00'>Cannot decompose: %1</span>").arg(QString::fromStdString(d_.error).toHtmlEscaped()));
  else summary_->setText(tr("%1 DOF, %2 structural groups; solve order top to bottom").arg(d_.dof).arg(d_.groups.size()));
  redraw();
  emit highlightBodies({});
}

void StructurePanel::selectGroup(int index) {
  if (index < -1 || index >= static_cast<int>(d_.groups.size())) return;
  current_ = index;
  redraw();
  emit highlightBodies(index < 0 ? std::vector<int>{} : d_.groups[static_cast<std::size_t>(index)].bodyIndices);
}

void StructurePanel::next() {
  if (!d_.groups.empty()) selectGroup(current_ + 1 < static_cast<int>(d_.groups.size()) ? current_ + 1 : 0);
}

void StructurePanel::previous() {
  if (!d_.groups.empty()) selectGroup(current_ > 0 ? current_ - 1 : static_cast<int>(d_.groups.size()) - 1);
}

void StructurePanel::redraw() {
  scene_->clear();
  const bool any = !d_.groups.empty();
  prev_->setEnabled(any);
  next_->setEnabled(any);
  all_->setEnabled(any && current_ >= 0);
  if (!any) return;

  // the frame first, then the groups in solve order, top to bottom (fits a side dock)
  auto place = [](int slot) { return QPointF(0, slot * (kNodeH + kGapY)); };
  const QColor solved(214, 232, 248), current(255, 210, 120), pending(245, 245, 245), frame(225, 225, 225);
  std::vector<QRectF> rects;
  scene_->addRect(QRectF(place(0), QSizeF(kNodeW, kNodeH)), QPen(Qt::darkGray), frame);
  scene_->addText(tr("Frame\n(ground)"))->setPos(place(0) + QPointF(8, 6));
  for (std::size_t i = 0; i < d_.groups.size(); ++i) {
    const auto& g = d_.groups[i];
    const QRectF r(place(static_cast<int>(i) + 1), QSizeF(kNodeW, kNodeH));
    rects.push_back(r);
    const int idx = static_cast<int>(i);
    const QColor fill = current_ < 0 ? solved : idx == current_ ? current : idx < current_ ? solved : pending;
    auto* node = new GroupNode(r, idx, this);
    node->setPen(QPen(idx == current_ ? QColor(200, 120, 0) : QColor(90, 110, 140), idx == current_ ? 2.5 : 1.2));
    node->setBrush(fill);
    node->setToolTip(tr("%1 — %2\nbodies: %3").arg(QString::fromStdString(g.name), QString::fromStdString(g.kind), join(g.bodies)));
    scene_->addItem(node);
    auto* text = new QGraphicsTextItem(node);
    text->setHtml(QString("<b>%1. %2</b><br><small>%3</small><br>%4")
                      .arg(i + 1)
                      .arg(QString::fromStdString(g.name).toHtmlEscaped(), QString::fromStdString(g.kind).toHtmlEscaped(),
                           join(g.bodies).toHtmlEscaped()));
    text->setTextWidth(kNodeW - 10);
    text->setPos(r.topLeft() + QPointF(4, 2));
    text->setAcceptedMouseButtons(Qt::NoButton);
  }
  // arrows from each input (group or frame) to the group, bowing out to the right: the further
  // back the input, the wider the bow, so arrows do not overlap
  const QRectF frameRect(place(0), QSizeF(kNodeW, kNodeH));
  const QColor ink(90, 110, 140);
  for (std::size_t i = 0; i < d_.groups.size(); ++i)
    for (int in : d_.groups[i].inputs) {
      const QRectF from = in < 0 ? frameRect : rects[static_cast<std::size_t>(in)];
      const QRectF& to = rects[i];
      const QPointF a(from.right(), from.center().y()), b(to.right(), to.center().y() + 8);
      const double bow = 14 + 0.25 * (b.y() - a.y());
      QPainterPath path(a);
      path.cubicTo(a + QPointF(bow, 0), b + QPointF(bow, 0), b);
      scene_->addPath(path, QPen(ink, 1.2));
      QPolygonF head;
      head << b << b + QPointF(8, -4) << b + QPointF(8, 4);
      scene_->addPolygon(head, QPen(ink), ink);
    }
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-6, -6, 6, 6));
  if (current_ >= 0) view_->ensureVisible(rects[static_cast<std::size_t>(current_)]);
}

}  // namespace lw::widgets
