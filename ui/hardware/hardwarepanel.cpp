// HardwarePanel: gauges are QProgressBars created the first time a metric is seen, so a metric
// the driver does not report shows as absent, never as 0.
#include "hardwarepanel.h"

#include "concepts/conceptcards.h"
#include "telemetry/doctorreport.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

QString gib(uint64_t bytes) {
    return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 'f', 1);
}

} // namespace

// The engine's doctor report (telemetry/doctorreport.h), the same rows `trainbench-cli doctor`
// prints, as a table under section headings; a problem row in the warning colour.
QString environmentReport() {
    const std::vector<DoctorRow> rows = doctorReportOfThisMachine();
    QString html = QStringLiteral("<table cellspacing='4'>");
    std::string section;
    for (const DoctorRow& row : rows) {
        if (row.section != section) {
            section = row.section;
            html += QStringLiteral("<tr><td colspan='2'><b>%1</b></td></tr>")
                        .arg(QString::fromStdString(section).toHtmlEscaped());
        }
        const QString value = QString::fromStdString(row.value).toHtmlEscaped();
        html += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>")
                    .arg(QString::fromStdString(row.label).toHtmlEscaped(),
                         row.problem ? QStringLiteral("<span style='color:#d13438'>%1</span>")
                                           .arg(value)
                                     : value);
    }
    html += QStringLiteral("</table><p><a href='concept:environment'>%1</a></p>")
                .arg(QObject::tr("What this check means"));
    return html;
}

HardwarePanel::HardwarePanel(QWidget* parent)
    : QWidget(parent), m_report(new QLabel(this)), m_gpuStatus(new QLabel(this)),
      m_gauges(new QGridLayout) {
    m_report->setObjectName(QStringLiteral("hardware-report"));
    m_report->setTextFormat(Qt::RichText);
    m_report->setWordWrap(true);
    m_report->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_report->setText(environmentReport());
    connect(m_report, &QLabel::linkActivated, this, [this](const QString& link) {
        showConceptCard(this, link.section(QLatin1Char(':'), 1));
    });
    m_gpuStatus->setObjectName(QStringLiteral("hardware-gpu-status"));
    m_gpuStatus->setWordWrap(true);
    auto* check = new QGroupBox(tr("Environment check"), this);
    auto* checkLayout = new QVBoxLayout(check);
    checkLayout->addWidget(m_report);
    auto* live = new QGroupBox(tr("Live"), this);
    auto* liveLayout = new QVBoxLayout(live);
    liveLayout->addWidget(m_gpuStatus);
    liveLayout->addLayout(m_gauges);
    m_gauges->setColumnStretch(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(check);
    layout->addWidget(live);
    layout->addStretch(1);
}

QString HardwarePanel::reportText() const {
    return m_report->text();
}

void HardwarePanel::setGpuStatus(const QString& status) {
    m_gpuStatus->setText(status.isEmpty() ? QString() : tr("No GPU readings: %1").arg(status));
    m_gpuStatus->setVisible(!status.isEmpty());
}

QProgressBar* HardwarePanel::gauge(const QString& key, const QString& title) {
    for (const auto& [k, bar] : m_bars)
        if (k == key)
            return bar;
    const int row = static_cast<int>(m_bars.size());
    auto* label = new QLabel(title, this);
    auto* bar = new QProgressBar(this);
    bar->setObjectName(QStringLiteral("gauge-") + key);
    bar->setRange(0, 1000);
    m_gauges->addWidget(label, row, 0);
    m_gauges->addWidget(bar, row, 1);
    m_bars.emplace_back(key, bar);
    return bar;
}

void HardwarePanel::addSamples(const std::vector<SystemSample>& samples) {
    if (samples.empty())
        return;
    const SystemSample& s = samples.back();
    const auto set = [](QProgressBar* bar, double fraction, const QString& text) {
        bar->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000.0));
        bar->setFormat(text);
    };
    if (s.host.cpuPercent)
        set(gauge(QStringLiteral("cpu"), tr("CPU")), *s.host.cpuPercent / 100.0,
            QStringLiteral("%1 %").arg(*s.host.cpuPercent, 0, 'f', 0));
    if (s.host.ramUsedBytes && s.host.ramTotalBytes && *s.host.ramTotalBytes > 0)
        set(gauge(QStringLiteral("ram"), tr("RAM")),
            static_cast<double>(*s.host.ramUsedBytes) / static_cast<double>(*s.host.ramTotalBytes),
            tr("%1 of %2 GiB").arg(gib(*s.host.ramUsedBytes), gib(*s.host.ramTotalBytes)));
    for (const GpuSample& g : s.gpus) {
        const QString prefix = QStringLiteral("gpu%1-").arg(g.index);
        const QString name = QStringLiteral("cuda:%1").arg(g.index);
        if (g.utilPercent)
            set(gauge(prefix + "util", tr("%1 utilisation").arg(name)), *g.utilPercent / 100.0,
                QStringLiteral("%1 %").arg(*g.utilPercent, 0, 'f', 0));
        if (g.memUsedBytes && g.memTotalBytes && *g.memTotalBytes > 0)
            set(gauge(prefix + "mem", tr("%1 memory").arg(name)),
                static_cast<double>(*g.memUsedBytes) / static_cast<double>(*g.memTotalBytes),
                tr("%1 of %2 GiB").arg(gib(*g.memUsedBytes), gib(*g.memTotalBytes)));
        if (g.temperatureC)
            set(gauge(prefix + "temp", tr("%1 temperature").arg(name)), *g.temperatureC / 100.0,
                QStringLiteral("%1 °C").arg(*g.temperatureC, 0, 'f', 0));
        if (g.powerW)
            set(gauge(prefix + "power", tr("%1 power").arg(name)),
                g.powerLimitW && *g.powerLimitW > 0 ? *g.powerW / *g.powerLimitW : 0.0,
                g.powerLimitW
                    ? tr("%1 of %2 W").arg(*g.powerW, 0, 'f', 0).arg(*g.powerLimitW, 0, 'f', 0)
                    : QStringLiteral("%1 W").arg(*g.powerW, 0, 'f', 0));
    }
}

} // namespace tb::ui
