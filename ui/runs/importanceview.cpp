// ImportanceView: parameterImportance over the compared runs, as a table with bars.
#include "runs/importanceview.h"

#include "experiments/parameterimportance.h"
#include "runs/runvalues.h"
#include "store/runrecord.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QTableWidget>

namespace tb::ui {

ImportanceView::ImportanceView(QWidget* parent)
    : QWidget(parent), m_metric(new QComboBox(this)), m_summary(new QLabel(this)),
      m_table(new QTableWidget(0, 3, this)) {
    setObjectName(QStringLiteral("importance"));
    m_metric->setObjectName(QStringLiteral("importance-metric"));
    m_metric->setAccessibleName(tr("Metric whose parameter importance is shown"));
    for (const QString& key : summaryKeys())
        m_metric->addItem(key);
    m_summary->setObjectName(QStringLiteral("importance-summary"));
    m_summary->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("importance-table"));
    m_table->setAccessibleName(tr("Parameter importance"));
    m_table->setHorizontalHeaderLabels({tr("Config key"), tr("Importance"), tr("Correlation")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setToolTip(tr("Importance: how much worse a random forest predicts the metric once "
                           "the key's values are shuffled between the runs (shares summing to "
                           "100%). Correlation: Pearson's r between the key and the metric."));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric"), this));
    controls->addWidget(m_metric);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(m_metric, &QComboBox::currentTextChanged, this, &ImportanceView::recompute);
}

void ImportanceView::setRuns(const std::vector<RunRecord>& runs) {
    m_runs = runs;
    recompute();
}

void ImportanceView::setMetric(const QString& metric) {
    m_metric->setCurrentText(metric);
}

QString ImportanceView::summary() const {
    return m_summary->text();
}

void ImportanceView::recompute() {
    const ImportanceReport report =
        parameterImportance(m_runs, m_metric->currentText().toStdString());
    m_table->setRowCount(0);
    if (!report.enoughRuns()) {
        m_summary->setText(tr("Not enough runs: %1 of the %2 compared runs recorded %3; "
                              "importance needs at least %4. Select more runs (a sweep's, by "
                              "its tag) in the table.")
                               .arg(report.runs)
                               .arg(m_runs.size())
                               .arg(QString::fromStdString(report.metric))
                               .arg(ImportanceReport::kMinimumRuns));
        return;
    }
    if (report.keys.empty()) {
        m_summary->setText(
            tr("The %1 runs share one config: no key differs between them.").arg(report.runs));
        return;
    }
    m_summary->setText(
        tr("Over %1 runs. A random forest (dlib, seeded) predicting %2 from the keys explains "
           "%3% of its variance out of bag%4.")
            .arg(report.runs)
            .arg(QString::fromStdString(report.metric))
            .arg(qRound(100.0 * report.outOfBagR2))
            .arg(report.outOfBagR2 < 0.2 ? tr(": the keys barely predict it, so read the "
                                              "ranking with care")
                                         : QString()));
    for (const KeyImportance& k : report.keys) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(k.key)));
        auto* bar = new QProgressBar(m_table);
        bar->setRange(0, 1000);
        bar->setValue(qRound(1000.0 * k.importance));
        bar->setFormat(QStringLiteral("%1 %").arg(100.0 * k.importance, 0, 'f', 1));
        bar->setAccessibleName(tr("Importance of %1").arg(QString::fromStdString(k.key)));
        m_table->setCellWidget(row, 1, bar);
        m_table->setItem(row, 1, new QTableWidgetItem(bar->format()));
        const QString r = k.correlation   ? QString::asprintf("%+.2f", *k.correlation)
                          : k.categorical ? tr("categories")
                                          : QStringLiteral("-");
        auto* item = new QTableWidgetItem(r);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 2, item);
    }
}

} // namespace tb::ui
