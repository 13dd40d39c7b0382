// ChartsPanel: a 3 x 2 grid (loss, validation, throughput over hardware, precision and ranks),
// so everything is visible at 1280x800 without tabs.
#include "charts/chartspanel.h"

#include "charts/hardwarechart.h"
#include "charts/losschart.h"
#include "charts/precisionchart.h"
#include "charts/rankschart.h"
#include "charts/throughputchart.h"
#include "charts/validationchart.h"
#include "train/tokenmetrics.h"

#include <QComboBox>
#include <QDateTime>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

// Below this width three charts side by side clip their tool bars.
constexpr int kThreeColumnWidth = 1100;

// A run's config as recorded (precision=32 may be the number 32).
bool textIs(const nlohmann::json& config, const char* key, const char* value) {
    const auto it = config.find(key);
    return it != config.end() && it->is_string() && it->get<std::string>() == value;
}
bool dataParallel(const nlohmann::json& config) {
    const auto ranks = config.find("ranks");
    return textIs(config, "distributed", "mpi") ||
           (ranks != config.end() && ranks->is_number_integer() && ranks->get<int>() > 1);
}

} // namespace

ChartsPanel::ChartsPanel(QWidget* parent)
    : QWidget(parent), m_loss(new LossChart(this)), m_validation(new ValidationChart(this)),
      m_throughput(new ThroughputChart(this)), m_hardware(new HardwareChart(this)),
      m_precision(new PrecisionChart(this)), m_ranks(new RanksChart(this)),
      m_xAxisCombo(new QComboBox(this)), m_grid(new QGridLayout) {
    m_xAxisCombo->setObjectName(QStringLiteral("xAxisMode"));
    m_xAxisCombo->addItem(tr("Step"), QVariant::fromValue(static_cast<int>(XAxisMode::Step)));
    m_xAxisCombo->addItem(tr("Samples seen"),
                          QVariant::fromValue(static_cast<int>(XAxisMode::Samples)));
    m_xAxisCombo->addItem(tr("Wall time"),
                          QVariant::fromValue(static_cast<int>(XAxisMode::WallTime)));
    m_xAxisCombo->setToolTip(tr("The x axis of the training charts"));
    connect(m_xAxisCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        setXAxisMode(static_cast<XAxisMode>(m_xAxisCombo->itemData(index).toInt()));
    });

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    auto* xLabel = new QLabel(tr("X axis:"), this);
    xLabel->setBuddy(m_xAxisCombo);
    bar->addWidget(xLabel);
    bar->addWidget(m_xAxisCombo);
    bar->addStretch(1);

    m_grid->setSpacing(6);
    m_precision->hide();
    m_ranks->hide();
    relayout();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addLayout(m_grid, 1);
}

void ChartsPanel::beginRun(const RunStartedEvent& run) {
    beginRun(run, QDateTime::currentMSecsSinceEpoch() / 1000.0);
}

void ChartsPanel::beginRun(const RunStartedEvent& run, double startUnixTime) {
    m_stepsPerEpoch = run.stepsPerEpoch;
    m_loss->reset(startUnixTime);
    m_validation->reset();
    m_throughput->reset(startUnixTime, tokenMetricsOf(run.config).tokensPerSample);
    m_precision->reset(startUnixTime);
    m_ranks->reset(startUnixTime);
    m_hardware->setTimeOrigin(startUnixTime);
    m_precisionShown = textIs(run.config, "precision", "16-mixed");
    m_ranksShown = dataParallel(run.config);
    m_precision->setVisible(m_precisionShown);
    m_ranks->setVisible(m_ranksShown);
    relayout();
}

void ChartsPanel::addSteps(const std::vector<StepEvent>& steps) {
    m_loss->addSteps(steps);
    m_throughput->addSteps(steps);
    m_precision->addSteps(steps);
    m_ranks->addSteps(steps);
}

void ChartsPanel::addAdvice(const AdviceEvent& advice) {
    m_loss->addAdvice(advice);
    m_throughput->addAdvice(advice);
}

void ChartsPanel::addEpochs(const std::vector<EpochEvent>& epochs) {
    m_validation->addEpochs(epochs);
}

void ChartsPanel::addSystemSamples(const std::vector<SystemSample>& samples) {
    m_hardware->addSamples(samples);
}

void ChartsPanel::replot() {
    for (ChartView* chart : charts())
        chart->replotIfDirty();
}

void ChartsPanel::setXAxisMode(XAxisMode mode) {
    m_xAxisMode = mode;
    {
        const QSignalBlocker block(m_xAxisCombo);
        m_xAxisCombo->setCurrentIndex(m_xAxisCombo->findData(static_cast<int>(mode)));
    }
    const std::initializer_list<ChartView*> trainingCharts = {m_loss, m_throughput, m_precision,
                                                              m_ranks};
    for (ChartView* chart : trainingCharts)
        chart->setXAxisMode(mode);
}

std::vector<ChartView*> ChartsPanel::charts() const {
    return {m_loss, m_validation, m_throughput, m_hardware, m_precision, m_ranks};
}

// Three columns where there is room (loss, validation, throughput over hardware and the charts
// this run shows: precision, ranks), two on a narrower window; the hardware chart takes what is
// left of the last row.
void ChartsPanel::relayout() {
    for (ChartView* chart : charts())
        m_grid->removeWidget(chart);
    for (int c = 0; c < 3; ++c)
        m_grid->setColumnStretch(c, c < m_columns ? 1 : 0);
    std::vector<ChartView*> shown;
    if (m_precisionShown)
        shown.push_back(m_precision);
    if (m_ranksShown)
        shown.push_back(m_ranks);
    const int extra = static_cast<int>(shown.size());
    if (m_columns >= 3) {
        m_grid->addWidget(m_loss, 0, 0);
        m_grid->addWidget(m_validation, 0, 1);
        m_grid->addWidget(m_throughput, 0, 2);
        m_grid->addWidget(m_hardware, 1, 0, 1, 3 - extra);
        for (int i = 0; i < extra; ++i)
            m_grid->addWidget(shown[static_cast<std::size_t>(i)], 1, 3 - extra + i);
        return;
    }
    // Two columns: the shown charts fill the cells after throughput, then the hardware chart.
    m_grid->addWidget(m_loss, 0, 0);
    m_grid->addWidget(m_validation, 0, 1);
    m_grid->addWidget(m_throughput, 1, 0);
    int cell = 3; // row * 2 + column of the next free cell
    for (ChartView* chart : shown) {
        m_grid->addWidget(chart, cell / 2, cell % 2);
        ++cell;
    }
    m_grid->addWidget(m_hardware, cell / 2, cell % 2, 1, cell % 2 == 0 ? 2 : 1);
}

void ChartsPanel::resizeEvent(QResizeEvent* event) {
    const int columns = event->size().width() >= kThreeColumnWidth ? 3 : 2;
    if (columns != m_columns) {
        m_columns = columns;
        relayout();
    }
    QWidget::resizeEvent(event);
}

} // namespace tb::ui
