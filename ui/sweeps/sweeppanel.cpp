// SweepPanel: a row per trial updated as the controller reports; counts and the best derived.
#include "sweeps/sweeppanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>

namespace tb::ui {

namespace {

enum TrialColumn {
    TrialIndexColumn,
    TrialValuesColumn,
    TrialStateColumn,
    TrialMetricColumn,
    TrialRunColumn,
    TrialColumnCount
};

QString metricText(const std::string& metric, double value) {
    if (metric.ends_with("_acc"))
        return QStringLiteral("%1 %").arg(100.0 * value, 0, 'f', 2);
    return QString::number(value, 'g', 5);
}

} // namespace

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_counts(new QLabel(this)), m_best(new QLabel(this)),
      m_table(new QTableWidget(0, TrialColumnCount, this)),
      m_stop(new QPushButton(tr("Stop Sweep"), this)),
      m_select(new QPushButton(tr("Select in Runs"), this)) {
    setObjectName(QStringLiteral("sweep-panel"));
    m_title->setObjectName(QStringLiteral("sweep-title"));
    m_title->setText(tr("No sweep yet. Run > Sweep... tries many settings of the set-up, one "
                        "run each, and says which setting mattered."));
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_progress->setObjectName(QStringLiteral("sweep-progress"));
    m_progress->setAccessibleName(tr("Trials done"));
    m_progress->setFormat(tr("%v of %m trials"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_counts->setObjectName(QStringLiteral("sweep-counts"));
    m_best->setObjectName(QStringLiteral("sweep-best"));
    m_best->setWordWrap(true);
    m_best->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("sweep-trials"));
    m_table->setAccessibleName(tr("The sweep's trials"));
    m_table->setHorizontalHeaderLabels(
        {tr("#"), tr("Values"), tr("State"), tr("Metric"), tr("Run")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(TrialValuesColumn, QHeaderView::Stretch);
    for (int c : {TrialIndexColumn, TrialStateColumn, TrialMetricColumn, TrialRunColumn})
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_stop->setObjectName(QStringLiteral("sweep-stop"));
    m_stop->setToolTip(tr("Stop the trials in progress after their current step; starting the "
                          "same sweep again trains only what is not done"));
    m_stop->setEnabled(false);
    m_select->setObjectName(QStringLiteral("sweep-select-in-runs"));
    m_select->setToolTip(tr("Compare the sweep's runs in the Runs tab (parallel coordinates, "
                            "importance)"));
    m_select->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_counts, 1);
    buttons->addWidget(m_select);
    buttons->addWidget(m_stop);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);
    layout->addWidget(m_best);
    layout->addWidget(m_table, 1);

    connect(m_stop, &QPushButton::clicked, this, &SweepPanel::stopRequested);
    connect(m_select, &QPushButton::clicked, this, [this] {
        emit selectInRunsRequested(QString::fromStdString(sweepTag(m_sweep)), runIds());
    });
}

void SweepPanel::begin(const SweepDefinition& sweep, int parallel) {
    m_sweep = sweep;
    m_running = true;
    const std::vector<SweepTrial> trials = sweepTrials(sweep);
    m_rows.assign(trials.size(), Row{});
    m_title->setText(tr("Sweep %1: %2 trials (%3%4), ranked by %5, %6 is better")
                         .arg(QString::fromStdString(sweep.name))
                         .arg(trials.size())
                         .arg(QString::fromLatin1(toString(sweep.method)))
                         .arg(parallel > 1 ? tr(", %1 at once").arg(parallel) : QString())
                         .arg(QString::fromStdString(sweep.metric.name))
                         .arg(sweep.metric.maximize ? tr("higher") : tr("lower")));
    m_table->setRowCount(static_cast<int>(trials.size()));
    for (const SweepTrial& t : trials) {
        const int row = t.index;
        auto* index = new QTableWidgetItem(QString::number(t.index + 1));
        index->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, TrialIndexColumn, index);
        m_table->setItem(row, TrialValuesColumn,
                         new QTableWidgetItem(QString::fromStdString(t.label())));
        m_table->setItem(row, TrialMetricColumn, new QTableWidgetItem);
        m_table->setItem(row, TrialRunColumn, new QTableWidgetItem);
        setState(row, TrialState::Waiting);
    }
    m_progress->setRange(0, std::max<int>(1, static_cast<int>(trials.size())));
    m_stop->setEnabled(true);
    m_select->setEnabled(false);
    updateSummary();
}

void SweepPanel::trialStarted(int index, const QString& runId) {
    if (index < 0 || index >= static_cast<int>(m_rows.size()))
        return;
    m_rows[static_cast<std::size_t>(index)].runId = runId;
    m_table->item(index, TrialRunColumn)->setText(runId);
    setState(index, TrialState::Training);
    m_table->scrollToItem(m_table->item(index, TrialIndexColumn));
    updateSummary();
}

void SweepPanel::trialFinished(const SweepTrialOutcome& outcome) {
    const int index = outcome.trial.index;
    if (index < 0 || index >= static_cast<int>(m_rows.size()))
        return;
    Row& row = m_rows[static_cast<std::size_t>(index)];
    row.runId = QString::fromStdString(outcome.runId);
    row.metric = outcome.metric;
    m_table->item(index, TrialRunColumn)->setText(row.runId);
    m_table->item(index, TrialMetricColumn)
        ->setText(outcome.metric ? metricText(m_sweep.metric.name, *outcome.metric) : QString());
    const QString unit = m_sweep.budget.epochs ? tr("epochs") : tr("steps");
    if (outcome.haltedAt)
        setState(index, TrialState::Halted,
                 tr("stopped early after %1 %2").arg(*outcome.haltedAt).arg(unit));
    else if (outcome.status == RunStatus::Completed)
        setState(index, TrialState::Completed,
                 outcome.fromEarlier ? tr("done earlier") : QString());
    else
        setState(index, TrialState::Failed, QString::fromStdString(outcome.error));
    updateSummary();
}

void SweepPanel::end(bool stopped, const QString& error) {
    m_running = false;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].state == TrialState::Training)
            setState(static_cast<int>(i), TrialState::Stopped);
    m_stop->setEnabled(false);
    if (!error.isEmpty())
        m_best->setText(tr("The sweep could not run: %1").arg(error));
    else
        updateSummary();
    if (stopped)
        m_counts->setText(m_counts->text() + tr(" - stopped; start the same sweep again to "
                                                "train the rest"));
}

void SweepPanel::setState(int index, TrialState state, const QString& detail) {
    m_rows[static_cast<std::size_t>(index)].state = state;
    static const char* const kNames[] = {"waiting",       "training", "completed",
                                         "stopped early", "failed",   "stopped"};
    QString text = tr(kNames[static_cast<int>(state)]);
    if (!detail.isEmpty())
        text = state == TrialState::Completed || state == TrialState::Halted
                   ? detail
                   : text + QStringLiteral(": ") + detail;
    QTableWidgetItem* item = m_table->item(index, TrialStateColumn);
    if (!item) {
        item = new QTableWidgetItem;
        m_table->setItem(index, TrialStateColumn, item);
    }
    item->setText(text);
    item->setToolTip(text);
}

QStringList SweepPanel::runIds() const {
    QStringList ids;
    for (const Row& row : m_rows)
        if (!row.runId.isEmpty())
            ids << row.runId;
    return ids;
}

QString SweepPanel::countsText() const {
    return m_counts->text();
}

QString SweepPanel::bestText() const {
    return m_best->text();
}

void SweepPanel::updateSummary() {
    int done = 0, training = 0, halted = 0, failed = 0;
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const Row& row = m_rows[i];
        done += row.state == TrialState::Completed || row.state == TrialState::Halted ||
                row.state == TrialState::Failed;
        training += row.state == TrialState::Training;
        halted += row.state == TrialState::Halted;
        failed += row.state == TrialState::Failed;
        if (row.state == TrialState::Completed && row.metric &&
            (!best || (m_sweep.metric.maximize ? *row.metric > *m_rows[*best].metric
                                               : *row.metric < *m_rows[*best].metric)))
            best = i;
    }
    // The best trial and those training stand out.
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        for (int c = 0; c < TrialColumnCount; ++c) {
            QTableWidgetItem* item = m_table->item(static_cast<int>(i), c);
            QFont font = item->font();
            font.setBold(best == i || m_rows[i].state == TrialState::Training);
            item->setFont(font);
        }
    m_progress->setValue(done);
    m_counts->setText(tr("%1 done, %2 training, %3 stopped early, %4 failed")
                          .arg(done)
                          .arg(training)
                          .arg(halted)
                          .arg(failed));
    m_select->setEnabled(!runIds().isEmpty());
    if (!best) {
        m_best->setText(m_running ? tr("Best so far: none completed yet.") : QString());
        return;
    }
    const int row = static_cast<int>(*best);
    m_best->setText(tr("Best so far: trial %1 (%2): %3 %4, run %5")
                        .arg(row + 1)
                        .arg(m_table->item(row, TrialValuesColumn)->text())
                        .arg(QString::fromStdString(m_sweep.metric.name))
                        .arg(metricText(m_sweep.metric.name, *m_rows[*best].metric))
                        .arg(m_rows[*best].runId));
}

} // namespace tb::ui
