#include "memory/llmmemorychart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>
#include <qcustomplot.h>

#include <algorithm>

namespace tb::ui {

namespace {

struct Part {
    const char* name;
    int64_t LlmMemoryEstimate::*bytes;
};

const Part kParts[] = {
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "weights"), &LlmMemoryEstimate::weights},
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "gradients"), &LlmMemoryEstimate::gradients},
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "optimizer state"), &LlmMemoryEstimate::optimizerState},
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "activations"), &LlmMemoryEstimate::activations},
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "logits"), &LlmMemoryEstimate::logits},
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "KV cache"), &LlmMemoryEstimate::kvCache},
    {QT_TRANSLATE_NOOP("LlmMemoryChart", "runtime"), &LlmMemoryEstimate::runtime},
};

} // namespace

LlmMemoryChart::LlmMemoryChart(QWidget* parent) : ChartView(tr("GPU memory"), parent) {
    QCPAxis* value = plot()->xAxis;
    QCPAxis* bar = plot()->yAxis;
    QCPBars* below = nullptr;
    int color = 0;
    for (const Part& p : kParts) {
        auto* bars = new QCPBars(bar, value);
        bars->setName(tr(p.name));
        bars->setWidth(0.6);
        const QColor c = seriesColor(color++);
        bars->setPen(QPen(c.darker(130)));
        bars->setBrush(c);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_parts.push_back(bars);
    }
    value->setLabel(tr("memory (GB, 10^9 bytes)"));
    bar->setTicks(false);
    bar->setTickLabels(false);
    bar->setRange(0.4, 1.6);
    for (const GpuMemory& g : commonGpus()) {
        auto* line = new QCPItemStraightLine(plot());
        QPen pen(palette().color(QPalette::WindowText), 1.0, Qt::DashLine);
        pen.setCosmetic(true);
        line->setPen(pen);
        const double x = static_cast<double>(g.bytes) / 1e9;
        line->point1->setCoords(x, 0.0);
        line->point2->setCoords(x, 1.0);
        auto* label = new QCPItemText(plot());
        label->setText(QString::fromStdString(g.name) +
                       QStringLiteral("\n%1 GB").arg(x, 0, 'f', 0));
        label->setColor(palette().color(QPalette::WindowText));
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(x, 0.02);
        label->setPadding(QMargins(2, 0, 2, 0));
        m_gpuLines.push_back(line);
        m_gpuLabels.push_back(label);
    }
}

void LlmMemoryChart::setEstimate(const LlmMemoryEstimate& estimate) {
    m_estimate = estimate;
    for (std::size_t i = 0; i < m_parts.size(); ++i) {
        m_parts[i]->data()->clear();
        const double gb = static_cast<double>(estimate.*(kParts[i].bytes)) / 1e9;
        m_parts[i]->addData(1.0, gb);
    }
    // Only the parts this use has are named in the legend, in the bar's order.
    for (QCPBars* part : m_parts)
        part->removeFromLegend();
    for (QCPBars* part : m_parts)
        if (!part->data()->isEmpty() && part->data()->begin()->value > 0.0)
            part->addToLegend();
    markDirty();
    fit();
}

std::vector<double> LlmMemoryChart::partsGb() const {
    std::vector<double> out;
    for (std::size_t i = 0; i < m_parts.size(); ++i)
        out.push_back(static_cast<double>(m_estimate.*(kParts[i].bytes)) / 1e9);
    return out;
}

void LlmMemoryChart::fitToData() {
    const double total = static_cast<double>(m_estimate.total()) / 1e9;
    // The bar and the next GPU above it (or the largest, when none holds it).
    double right = total;
    for (const GpuMemory& g : commonGpus()) {
        right = std::max(right, static_cast<double>(g.bytes) / 1e9);
        if (static_cast<double>(g.bytes) / 1e9 >= total)
            break;
    }
    plot()->xAxis->setRange(0.0, right * 1.08);
    plot()->yAxis->setRange(0.4, 1.6);
    // Every card in view has its line; a label only where it has room beside the last one
    // labelled, two rows of them staggered.
    double labelled = -1e300;
    int shown = 0;
    for (std::size_t i = 0; i < m_gpuLines.size(); ++i) {
        const double x = m_gpuLines[i]->point1->coords().x();
        const bool inView = x <= right * 1.08;
        m_gpuLines[i]->setVisible(inView);
        const bool room = inView && x - labelled > 0.07 * right;
        m_gpuLabels[i]->setVisible(room);
        if (room) {
            m_gpuLabels[i]->position->setCoords(x, shown++ % 2 == 0 ? 0.02 : 0.16);
            labelled = x;
        }
    }
}

void LlmMemoryChart::writeCsv(QTextStream& out) const {
    out << "part,bytes\n";
    for (const Part& p : kParts)
        out << csvField(QString::fromUtf8(p.name)) << ',' << m_estimate.*(p.bytes) << '\n';
    out << "total," << m_estimate.total() << '\n';
}

} // namespace tb::ui
