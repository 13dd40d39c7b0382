// PrCurveChart: the curves are COCO's 101-point interpolated precision (monotone by
// construction), so a line per class reads as a staircase of where precision gives way.
#include "charts/prcurvechart.h"

#include "charts/chartstyle.h"
#include "charts/csvfield.h"

#include <QTextStream>

#include <algorithm>
#include <qcustomplot.h>

namespace tb::ui {

namespace {

constexpr int kRecallPoints = 101; // recall 0, 0.01, ..., 1

double recallAt(int i) {
    return i / double(kRecallPoints - 1);
}

void setCurve(QCPGraph* graph, const std::vector<double>& precision) {
    QVector<QCPGraphData> points;
    points.reserve(kRecallPoints);
    for (int i = 0; i < kRecallPoints && i < static_cast<int>(precision.size()); ++i)
        points.append({recallAt(i), precision[static_cast<std::size_t>(i)]});
    graph->data()->set(points, true);
}

// The class's index among all the set's classes, so that its colour is its boxes' colour in the
// images (the report lists only the classes with ground truth).
int colorIndex(const DetectionReport& report, std::size_t row) {
    const std::string& name = report.classes[row].name;
    const auto it = std::find(report.classNames.begin(), report.classNames.end(), name);
    return it != report.classNames.end() ? static_cast<int>(it - report.classNames.begin())
                                         : static_cast<int>(row);
}

} // namespace

PrCurveChart::PrCurveChart(QWidget* parent) : ChartView(tr("Precision-recall at IoU 0.5"), parent) {
    plot()->xAxis->setLabel(tr("recall"));
    plot()->yAxis->setLabel(tr("precision"));
    plot()->legend->setVisible(true);
}

void PrCurveChart::setReport(const DetectionReport& report) {
    m_report = report;
    plot()->clearGraphs();
    m_classGraphs.clear();
    m_mean = nullptr;
    std::vector<double> mean(kRecallPoints, 0.0);
    int curves = 0;
    for (std::size_t c = 0; c < report.classes.size(); ++c) {
        const DetectionClassResult& r = report.classes[c];
        if (r.precision50.size() != kRecallPoints)
            continue; // stored before the curves were kept
        QCPGraph* graph = plot()->addGraph();
        graph->setName(tr("%1 %2").arg(QString::fromStdString(r.name)).arg(r.ap50, 0, 'f', 3));
        graph->setPen(seriesPen(seriesColor(colorIndex(report, c)), 1.0));
        setCurve(graph, r.precision50);
        m_classGraphs.push_back(graph);
        for (int i = 0; i < kRecallPoints; ++i)
            mean[static_cast<std::size_t>(i)] += r.precision50[static_cast<std::size_t>(i)];
        ++curves;
    }
    if (curves > 0) {
        for (double& p : mean)
            p /= curves;
        m_mean = plot()->addGraph();
        m_mean->setName(tr("all classes %1 mAP50").arg(report.map50, 0, 'f', 3));
        m_mean->setPen(seriesPen(palette().color(QPalette::WindowText), 3.0));
        setCurve(m_mean, mean);
    }
    // More than a dozen classes make an unreadable legend: the mean's line is named alone.
    if (m_classGraphs.size() > 12)
        for (QCPGraph* g : m_classGraphs)
            g->removeFromLegend();
    markDirty();
    fit();
}

void PrCurveChart::highlightClass(int index) {
    for (std::size_t c = 0; c < m_classGraphs.size(); ++c) {
        QColor color = seriesColor(colorIndex(m_report, c));
        const bool chosen = static_cast<int>(c) == index;
        if (index >= 0 && !chosen)
            color.setAlpha(60);
        m_classGraphs[c]->setPen(seriesPen(color, chosen ? 2.5 : 1.0));
    }
    markDirty();
    refresh();
}

void PrCurveChart::fitToData() {
    plot()->xAxis->setRange(0.0, 1.0);
    plot()->yAxis->setRange(0.0, 1.02);
}

void PrCurveChart::writeCsv(QTextStream& out) const {
    out << "recall";
    for (const DetectionClassResult& r : m_report.classes)
        if (r.precision50.size() == kRecallPoints)
            out << ",\"" << QString::fromStdString(r.name).replace('"', QStringLiteral("\"\""))
                << '"';
    out << '\n';
    for (int i = 0; i < kRecallPoints; ++i) {
        out << csvField(recallAt(i));
        for (const DetectionClassResult& r : m_report.classes)
            if (r.precision50.size() == kRecallPoints)
                out << ',' << csvField(r.precision50[static_cast<std::size_t>(i)]);
        out << '\n';
    }
}

} // namespace tb::ui
