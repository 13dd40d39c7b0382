// ComparisonView: controls over a tab per view; everything is recomputed from the Comparison's
// runs on each change (the engine's RunSeries and groupSeries do the numbers).
#include "runs/comparisonview.h"

#include "core/textformat.h"
#include "runs/comparison.h"
#include "runs/comparisonplot.h"
#include "runs/importanceview.h"
#include "runs/parallelcoordinates.h"
#include "runs/parametersplot.h"
#include "runs/runstablemodel.h"
#include "store/runexport.h"
#include "store/rungroups.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace tb::ui {

namespace {

constexpr int kSmoothingSteps = 100;

QStringList splitKeys(const QString& text) {
    QStringList keys;
    for (const QString& k : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        keys << k.trimmed();
    keys.removeAll(QString());
    return keys;
}

QTableWidget* makeTable(const QString& name, QWidget* parent) {
    auto* t = new QTableWidget(parent);
    t->setObjectName(name);
    t->setTabKeyNavigation(false); // Tab leaves the table; arrows move in it
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setAlternatingRowColors(true);
    return t;
}

} // namespace

ComparisonView::ComparisonView(Comparison& comparison, QWidget* parent)
    : QWidget(parent), m_comparison(comparison), m_series(new QComboBox(this)),
      m_x(new QComboBox(this)), m_smoothing(new QSlider(Qt::Horizontal, this)),
      m_logY(new QCheckBox(tr("Log y"), this)), m_groupBy(new QLineEdit(this)),
      m_band(new QComboBox(this)), m_target(new QLineEdit(this)), m_status(new QLabel(this)),
      m_tabs(new QTabWidget(this)), m_plot(new ComparisonPlot(this)),
      m_summary(makeTable(QStringLiteral("comparison-summary"), this)),
      m_diff(makeTable(QStringLiteral("comparison-config-diff"), this)),
      m_parameters(new ParametersPlot(this)), m_parallel(new ParallelCoordinates(this)),
      m_importance(new ImportanceView(this)) {
    setObjectName(QStringLiteral("comparison"));
    m_series->setObjectName(QStringLiteral("comparison-series"));
    m_series->setAccessibleName(tr("Series to compare"));
    m_series->setMinimumContentsLength(14);
    m_x->setObjectName(QStringLiteral("comparison-x"));
    m_x->setAccessibleName(tr("X axis of the comparison"));
    for (SeriesX x : {SeriesX::Step, SeriesX::Samples, SeriesX::Epoch, SeriesX::Time})
        m_x->addItem(QString::fromUtf8(seriesXLabel(x)), static_cast<int>(x));
    m_smoothing->setObjectName(QStringLiteral("comparison-smoothing"));
    m_smoothing->setAccessibleName(tr("Smoothing of the compared series"));
    m_smoothing->setRange(0, kSmoothingSteps - 1);
    m_smoothing->setValue(60);
    m_smoothing->setMaximumWidth(120);
    m_smoothing->setToolTip(tr("Smoothing: TensorBoard's debiased moving average (0: raw)"));
    m_logY->setObjectName(QStringLiteral("comparison-log-y"));
    m_groupBy->setObjectName(QStringLiteral("comparison-group-by"));
    m_groupBy->setAccessibleName(tr("Group runs by config keys"));
    m_groupBy->setPlaceholderText(tr("group by, e.g. lr"));
    m_groupBy->setMinimumWidth(
        m_groupBy->fontMetrics().horizontalAdvance(m_groupBy->placeholderText()) + 16);
    m_groupBy->setToolTip(tr("Config keys, comma-separated: one line per group with its mean, "
                             "n in the legend"));
    m_band->setObjectName(QStringLiteral("comparison-band"));
    m_band->setAccessibleName(tr("Band drawn around a group's mean"));
    m_band->addItem(tr("min-max band"));
    m_band->addItem(tr("+-1 std band"));
    m_target->setObjectName(QStringLiteral("comparison-target"));
    m_target->setAccessibleName(tr("Target validation accuracy in percent"));
    m_target->setValidator(new QDoubleValidator(0.0, 100.0, 2, m_target));
    m_target->setText(QStringLiteral("90"));
    m_target->setMaximumWidth(60);
    m_target->setToolTip(tr("Validation accuracy (%) the summary's 'to target' columns measure"));
    m_status->setObjectName(QStringLiteral("comparison-status"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Series"), this));
    controls->addWidget(m_series);
    controls->addWidget(new QLabel(tr("x"), this));
    controls->addWidget(m_x);
    controls->addWidget(new QLabel(tr("Smoothing"), this));
    controls->addWidget(m_smoothing);
    controls->addWidget(m_logY);
    controls->addWidget(m_groupBy, 1);
    controls->addWidget(m_band);
    controls->addWidget(new QLabel(tr("Target %"), this));
    controls->addWidget(m_target);

    m_tabs->setObjectName(QStringLiteral("comparison-tabs"));
    m_tabs->addTab(m_plot, tr("Series"));
    m_tabs->addTab(m_summary, tr("Summary"));
    m_tabs->addTab(m_diff, tr("Config diff"));
    m_tabs->addTab(m_parameters, tr("Parameters"));
    m_tabs->addTab(m_parallel, tr("Parallel coordinates"));
    m_tabs->addTab(m_importance, tr("Importance"));
    connect(m_parallel, &ParallelCoordinates::brushed, this, &ComparisonView::runsBrushed);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(m_tabs, 1);

    // Runs arrive one by one (and followed runs every poll): one rebuild for all that arrived
    // before the event loop comes round.
    connect(&m_comparison, &Comparison::changed, this, [this] {
        if (m_rebuildPending)
            return;
        m_rebuildPending = true;
        QTimer::singleShot(0, this, [this] {
            m_rebuildPending = false;
            rebuild();
        });
    });
    connect(m_series, &QComboBox::currentTextChanged, this, &ComparisonView::rebuildPlot);
    connect(m_series, &QComboBox::activated, this,
            [this] { m_wantedSeries = m_series->currentText(); });
    connect(m_x, &QComboBox::currentIndexChanged, this, [this] { rebuildPlot(); });
    connect(m_smoothing, &QSlider::valueChanged, this, [this] { rebuildPlot(); });
    connect(m_logY, &QCheckBox::toggled, this, [this] { rebuildPlot(); });
    connect(m_groupBy, &QLineEdit::editingFinished, this, &ComparisonView::rebuildPlot);
    connect(m_band, &QComboBox::currentIndexChanged, this, [this] { rebuildPlot(); });
    connect(m_target, &QLineEdit::editingFinished, this, &ComparisonView::rebuildSummary);
    rebuild();
}

void ComparisonView::setSeries(const QString& name) {
    m_wantedSeries = name;
    m_series->setCurrentText(name);
    rebuildPlot();
}

QString ComparisonView::series() const {
    return m_series->currentText();
}

void ComparisonView::setXAxis(SeriesX x) {
    m_x->setCurrentIndex(m_x->findData(static_cast<int>(x)));
}

void ComparisonView::setSmoothing(double weight) {
    m_smoothing->setValue(static_cast<int>(std::lround(weight * kSmoothingSteps)));
}

void ComparisonView::setLogY(bool on) {
    m_logY->setChecked(on);
}

void ComparisonView::setGroupBy(const QString& keys) {
    m_groupBy->setText(keys);
    rebuildPlot();
}

void ComparisonView::setBandIsStd(bool std) {
    m_band->setCurrentIndex(std ? 1 : 0);
}

void ComparisonView::setTargetAccuracy(double percent) {
    m_target->setText(QString::number(percent));
    rebuildSummary();
}

QColor ComparisonView::colorOf(const QString& runId) const {
    const RunSeries* s = m_comparison.series(runId);
    if (s && !s->record().color.empty())
        return QColor(QString::fromStdString(s->record().color));
    if (const auto it = m_assigned.find(runId); it != m_assigned.end())
        return it->second;
    // The first colour no other compared run has.
    std::set<QString> used;
    for (const RunSeries* other : m_comparison.loaded())
        if (!other->record().color.empty())
            used.insert(QColor(QString::fromStdString(other->record().color)).name());
    for (const auto& [id, c] : m_assigned)
        used.insert(c.name());
    QColor color = comparisonColor(0);
    for (int i = 0; i < 20; ++i)
        if (!used.count(comparisonColor(i).name())) {
            color = comparisonColor(i);
            break;
        }
    m_assigned[runId] = color;
    if (s) // stored with the run, so it is drawn alike everywhere from now on
        emit const_cast<ComparisonView*>(this)->colorAssigned(runId, color.name());
    return color;
}

void ComparisonView::rebuild() {
    const int chosen = static_cast<int>(m_comparison.runIds().size());
    const int loaded = static_cast<int>(m_comparison.loaded().size());
    m_status->setText(chosen == 0 ? tr("Select runs in the table to compare them.")
                      : loaded < chosen
                          ? tr("Reading %1 of %2 runs...").arg(chosen - loaded).arg(chosen)
                          : QString::fromStdString(formatCountOf(chosen, "run")));
    // No empty axes before there is anything to compare (the table's runs are, in parallel).
    m_tabs->setVisible(chosen > 0 || m_shownRuns > 1);
    rebuildSeriesChoices();
    rebuildPlot();
    rebuildSummary();
    rebuildConfigDiff();
    std::vector<RunRecord> records;
    std::vector<QColor> colors;
    for (const RunSeries* s : m_comparison.loaded()) {
        records.push_back(s->record());
        colors.push_back(colorOf(QString::fromStdString(s->record().id)));
    }
    m_parameters->setRuns(records, colors);
    m_parallel->setSelectedRunIds(m_comparison.runIds());
    m_importance->setRuns(records);
}

void ComparisonView::setShownRuns(const std::vector<RunRecord>& runs) {
    m_shownRuns = runs.size();
    m_parallel->setRuns(runs);
    m_tabs->setVisible(!m_comparison.runIds().isEmpty() || m_shownRuns > 1);
}

void ComparisonView::rebuildSeriesChoices() {
    QStringList names;
    for (const SeriesInfo& info : RunSeries::catalog())
        for (const RunSeries* s : m_comparison.loaded()) {
            const auto& have = s->names();
            if (std::find(have.begin(), have.end(), info.name) != have.end()) {
                names << QString::fromStdString(info.name);
                break;
            }
        }
    // The series the user chose stays chosen while runs that lack it come and go.
    const QString current = m_series->currentText();
    const QSignalBlocker block(m_series);
    m_series->clear();
    m_series->addItems(names);
    for (const QString& choice : {m_wantedSeries, current, QStringLiteral("val/acc")})
        if (names.contains(choice)) {
            m_series->setCurrentIndex(names.indexOf(choice));
            return;
        }
    m_series->setCurrentIndex(0);
}

void ComparisonView::rebuildPlot() {
    const std::string name = m_series->currentText().toStdString();
    const auto x = static_cast<SeriesX>(m_x->currentData().toInt());
    const SeriesInfo info = RunSeries::info(name);
    const std::vector<const RunSeries*> runs = m_comparison.loaded();
    std::vector<ComparisonLine> lines;
    const QStringList keys = splitKeys(m_groupBy->text());
    if (!keys.isEmpty()) {
        std::vector<std::string> k;
        for (const QString& key : keys)
            k.push_back(key.toStdString());
        const std::vector<SeriesGroup> groups = groupSeries(runs, k, name, x);
        const bool std = m_band->currentIndex() == 1;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            const SeriesGroup& group = groups[g];
            ComparisonLine line;
            line.id = QString::fromStdString(group.label);
            line.label =
                tr("%1 (n=%2)").arg(QString::fromStdString(group.label)).arg(group.runIds.size());
            line.color = comparisonColor(static_cast<int>(g));
            line.points.x = group.x;
            line.points.y = group.mean;
            for (std::size_t i = 0; i < group.x.size(); ++i) {
                line.bandLow.push_back(std ? group.mean[i] - group.stddev[i] : group.min[i]);
                line.bandHigh.push_back(std ? group.mean[i] + group.stddev[i] : group.max[i]);
            }
            lines.push_back(std::move(line));
        }
    } else {
        for (const RunSeries* s : runs) {
            const RunRecord& r = s->record();
            ComparisonLine line;
            line.id = QString::fromStdString(r.id);
            line.label = QString::fromStdString(r.name.empty() ? r.id : r.name);
            line.color = colorOf(line.id);
            line.points = s->points(name, x);
            lines.push_back(std::move(line));
        }
    }
    m_band->setEnabled(!keys.isEmpty());
    m_plot->setLines(std::move(lines), info, x, m_smoothing->value() / double(kSmoothingSteps),
                     m_logY->isChecked());
}

void ComparisonView::rebuildSummary() {
    const std::vector<const RunSeries*> runs = m_comparison.loaded();
    RunsTableModel model;
    std::vector<RunRecord> records;
    for (const RunSeries* s : runs)
        records.push_back(s->record());
    model.setRuns(records);
    const double target = m_target->text().toDouble();
    const QStringList extra{tr("To %1%: step").arg(target), tr("samples"), tr("time")};
    m_summary->clear();
    m_summary->setColumnCount(RunsTableModel::ColumnCount + extra.size());
    m_summary->setRowCount(model.rowCount());
    QStringList header;
    for (int c = 0; c < RunsTableModel::ColumnCount; ++c)
        header << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    m_summary->setHorizontalHeaderLabels(header + extra);
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int c = 0; c < RunsTableModel::ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(model.index(row, c).data().toString());
            if (c == RunsTableModel::Name)
                item->setData(Qt::DecorationRole,
                              colorOf(QString::fromStdString(model.runAt(row).id)));
            m_summary->setItem(row, c, item);
        }
        const RunSeries* s = m_comparison.series(QString::fromStdString(model.runAt(row).id));
        int c = RunsTableModel::ColumnCount;
        for (SeriesX x : {SeriesX::Step, SeriesX::Samples, SeriesX::Time}) {
            const auto at =
                s ? firstReaching(s->points("val/acc", x), target, true) : std::optional<double>();
            m_summary->setItem(
                row, c++,
                new QTableWidgetItem(at ? QString::number(*at, 'f', x == SeriesX::Time ? 1 : 0)
                                        : tr("not reached")));
        }
    }
    m_summary->resizeColumnsToContents();
}

void ComparisonView::rebuildConfigDiff() {
    std::vector<RunRecord> records;
    for (const RunSeries* s : m_comparison.loaded())
        records.push_back(s->record());
    const std::vector<ConfigDifference> diffs =
        records.size() >= 2 ? configDifferences(records) : std::vector<ConfigDifference>{};
    m_diff->clear();
    m_diff->setColumnCount(static_cast<int>(records.size()) + 1);
    m_diff->setRowCount(static_cast<int>(diffs.size()));
    QStringList header{tr("Key")};
    for (const RunRecord& r : records)
        header << QString::fromStdString(r.name.empty() ? r.id : r.name);
    m_diff->setHorizontalHeaderLabels(header);
    for (int row = 0; row < static_cast<int>(diffs.size()); ++row) {
        const ConfigDifference& d = diffs[static_cast<std::size_t>(row)];
        m_diff->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(d.key)));
        for (std::size_t i = 0; i < d.values.size(); ++i)
            m_diff->setItem(row, static_cast<int>(i) + 1,
                            new QTableWidgetItem(d.values[i] ? QString::fromStdString(*d.values[i])
                                                             : tr("(absent)")));
    }
    m_diff->resizeColumnsToContents();
}

} // namespace tb::ui
