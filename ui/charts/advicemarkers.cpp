// AdviceMarkers: QCustomPlot items in the axis rect's coordinates; the label sits at the top of
// the rect (axis-rect ratio in y), so it stays in view whatever the y range.
#include "charts/advicemarkers.h"

#include "concepts/conceptcards.h"
#include "train/advisor.h"

#include <QToolTip>
#include <qcustomplot.h>

namespace tb::ui {

namespace {
const QColor kMarkerColor(0x2b, 0x7b, 0xb9); // the log's advice colour
constexpr const char* kConceptProperty = "tbConcept";
constexpr const char* kMessageProperty = "tbMessage";
} // namespace

AdviceMarkers::AdviceMarkers(QCustomPlot* plot, QCPAxisRect* rect)
    : QObject(plot), m_plot(plot), m_rect(rect) {
    connect(m_plot, &QCustomPlot::itemClick, this, [this](QCPAbstractItem* item, QMouseEvent*) {
        const QString card = item->property(kConceptProperty).toString();
        if (!card.isEmpty())
            showConceptCard(m_plot, card);
    });
    // The advice in full under the pointer: the label only names the rule.
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        QCPAbstractItem* item = m_plot->itemAt(event->position(), false);
        const QString message = item ? item->property(kMessageProperty).toString() : QString();
        if (!message.isEmpty())
            QToolTip::showText(event->globalPosition().toPoint(), message, m_plot);
    });
}

void AdviceMarkers::add(const AdviceEvent& advice, const StepKeys& keys, XAxisMode mode) {
    Marker m;
    m.step = advice.step;
    m.rule = QString::fromStdString(advice.rule);
    const QString card = QString::fromStdString(conceptCardOfRule(advice.rule));
    QPen pen(kMarkerColor, 1.0, Qt::DashLine);
    pen.setCosmetic(true);
    m.line = new QCPItemStraightLine(m_plot);
    m.line->setClipAxisRect(m_rect);
    m.line->setPen(pen);
    m.label = new QCPItemText(m_plot);
    m.label->setClipAxisRect(m_rect);
    m.label->setText(m.rule);
    m.label->setColor(kMarkerColor);
    m.label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m.label->setPadding(QMargins(3, 2, 3, 2));
    m.label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m.label->setProperty(kMessageProperty, QString::fromStdString(advice.message));
    for (QCPAbstractItem* item :
         {static_cast<QCPAbstractItem*>(m.line), static_cast<QCPAbstractItem*>(m.label)}) {
        item->setClipToAxisRect(true);
        for (QCPItemPosition* p : item->positions())
            p->setAxes(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
        if (findConceptCard(card))
            item->setProperty(kConceptProperty, card);
    }
    m.label->position->setAxisRect(m_rect);
    place(m, keys, mode);
    m_markers.push_back(m);
}

void AdviceMarkers::place(Marker& m, const StepKeys& keys, XAxisMode mode) {
    double x = static_cast<double>(m.step);
    if (const auto i = keys.indexOfStep(m.step))
        x = keys.key(*i, mode);
    m.line->point1->setCoords(x, 0.0);
    m.line->point2->setCoords(x, 1.0);
    m.label->position->setCoords(x, 0.0);
}

void AdviceMarkers::rekey(const StepKeys& keys, XAxisMode mode) {
    for (Marker& m : m_markers)
        place(m, keys, mode);
}

void AdviceMarkers::clear() {
    for (const Marker& m : m_markers) {
        m_plot->removeItem(m.line);
        m_plot->removeItem(m.label);
    }
    m_markers.clear();
}

double AdviceMarkers::x(int i) const {
    return m_markers[static_cast<std::size_t>(i)].line->point1->coords().x();
}

} // namespace tb::ui
