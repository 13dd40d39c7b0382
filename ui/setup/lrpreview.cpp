// LrPreview: the engine's own LrSchedule, so the preview is the rate the run will use.
#include "lrpreview.h"

#include <QEvent>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

namespace tb::ui {

LrPreview::LrPreview(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    setObjectName(QStringLiteral("lr-preview"));
    m_plot->addGraph();
    m_plot->graph(0)->setPen(QPen(QColor(0x3b, 0x82, 0xc4), 1.6));
    m_plot->graph(0)->setName(tr("lr"));
    m_plot->addGraph();
    m_plot->graph(1)->setPen(QPen(QColor(0xd9, 0x7a, 0x1e), 1.6, Qt::DashLine));
    m_plot->legend->setFont(font());
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->xAxis->setLabel(tr("optimizer step"));
    m_plot->yAxis->setLabel(tr("learning rate"));
    m_plot->setMinimumHeight(120);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    applyPalette();
}

void LrPreview::setSchedule(const ScheduleConfig& schedule, float baseLr, int64_t totalSteps,
                            float headLrMult) {
    QVector<double> steps, rates, headRates;
    if (totalSteps > 0) {
        const LrSchedule lr(schedule, baseLr, totalSteps);
        const int64_t points = std::min<int64_t>(400, totalSteps);
        for (int64_t i = 0; i < points; ++i) {
            const int64_t step = i * (totalSteps - 1) / std::max<int64_t>(points - 1, 1);
            steps << static_cast<double>(step);
            rates << static_cast<double>(lr.lr(step));
            if (headLrMult != 1.0f)
                headRates << static_cast<double>(lr.lr(step) * headLrMult);
        }
    }
    m_plot->graph(0)->setData(steps, rates, true);
    m_plot->graph(1)->setData(headRates.isEmpty() ? QVector<double>() : steps, headRates, true);
    m_plot->graph(1)->setName(tr("classifier head (%1x)").arg(static_cast<double>(headLrMult)));
    // The legend tells the two groups apart; one curve needs none.
    m_plot->legend->setVisible(!headRates.isEmpty());
    m_plot->rescaleAxes();
    m_plot->yAxis->setRangeLower(0.0);
    m_plot->yAxis->setRangeUpper(std::max(m_plot->yAxis->range().upper * 1.08, 1e-12));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int LrPreview::pointCount() const {
    return m_plot->graph(0)->dataCount();
}

int LrPreview::headPointCount() const {
    return m_plot->graph(1)->dataCount();
}

void LrPreview::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

void LrPreview::applyPalette() {
    const QPalette pal = palette();
    m_plot->setBackground(pal.color(QPalette::Base));
    m_plot->legend->setBrush(pal.color(QPalette::Base));
    m_plot->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
    m_plot->legend->setTextColor(pal.color(QPalette::Text));
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(pal.color(QPalette::Mid)));
        axis->setTickPen(QPen(pal.color(QPalette::Mid)));
        axis->setSubTickPen(QPen(pal.color(QPalette::Mid)));
        axis->setTickLabelColor(pal.color(QPalette::Text));
        axis->setLabelColor(pal.color(QPalette::Text));
        axis->grid()->setPen(QPen(pal.color(QPalette::Midlight), 0, Qt::DotLine));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace tb::ui
