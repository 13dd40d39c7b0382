// BatchFinderDialog: the tries arrive from the search's thread one by one (onTry), the result
// at the end.
#include "experiments/batchfinderdialog.h"

#include "core/errors.h"
#include "experiments/backgroundtask.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tb::ui {

BatchFinderDialog::BatchFinderDialog(std::function<RunConfig()> config, QWidget* parent)
    : QDialog(parent), m_config(std::move(config)), m_task(new BackgroundTask(this)),
      m_limit(new QSpinBox(this)), m_first(new QSpinBox(this)), m_max(new QSpinBox(this)),
      m_start(new QPushButton(tr("Start"), this)), m_apply(new QPushButton(tr("Apply"), this)),
      m_summary(new QLabel(this)), m_tries(new QTableWidget(0, 4, this)) {
    setObjectName(QStringLiteral("batch-finder"));
    setWindowTitle(tr("Find Batch Size"));
    m_limit->setObjectName(QStringLiteral("batch-finder-limit"));
    m_limit->setRange(0, 1024 * 1024);
    m_limit->setSuffix(tr(" MiB"));
    m_limit->setSpecialValueText(tr("none (only out of memory)"));
    m_limit->setToolTip(tr("A try whose peak memory (the device's, or this process's on the "
                           "CPU) passes this limit counts as too large"));
    m_first->setRange(1, 1 << 20);
    m_max->setRange(1, 1 << 20);
    const BatchFinderOptions defaults;
    setSearch(0, static_cast<int>(defaults.start), 4096);
    m_start->setObjectName(QStringLiteral("batch-finder-start"));
    m_apply->setObjectName(QStringLiteral("batch-finder-apply"));
    m_apply->setEnabled(false);
    m_summary->setObjectName(QStringLiteral("batch-finder-summary"));
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Trains a few steps at each batch size: doubling until one does not "
                          "fit, then halving the gap. An out-of-memory try is expected and "
                          "survived."));
    m_tries->setObjectName(QStringLiteral("batch-finder-tries"));
    m_tries->setHorizontalHeaderLabels({tr("Batch"), tr("Fits"), tr("Peak memory"), tr("Why not")});
    m_tries->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tries->horizontalHeader()->setStretchLastSection(true);
    m_tries->verticalHeader()->hide();
    m_tries->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tries->setWordWrap(false);
    m_tries->setMinimumSize(520, 220);

    auto* form = new QFormLayout;
    form->addRow(tr("Memory limit"), m_limit);
    form->addRow(tr("First batch"), m_first);
    form->addRow(tr("Largest batch to try"), m_max);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_apply, QDialogButtonBox::AcceptRole);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_tries, 1);
    layout->addWidget(m_summary);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(m_start, &QPushButton::clicked, this, [this] {
        if (running())
            stop();
        else
            start();
    });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (m_result.largest)
            emit applyRequested(*m_result.largest);
    });
    connect(m_task, &BackgroundTask::finished, this, [this] {
        m_start->setText(tr("Start"));
        m_start->setEnabled(m_canStart);
        emit runningChanged(false);
    });
}

void BatchFinderDialog::setSearch(int memoryLimitMiB, int start, int maxBatch) {
    m_limit->setValue(memoryLimitMiB);
    m_first->setValue(start);
    m_max->setValue(maxBatch);
}

bool BatchFinderDialog::running() const {
    return m_task->running();
}

QString BatchFinderDialog::summary() const {
    return m_summary->text();
}

void BatchFinderDialog::setCanStart(bool can) {
    m_canStart = can;
    m_start->setEnabled(can || running());
}

bool BatchFinderDialog::start() {
    if (running() || !m_canStart)
        return false;
    if (m_first->value() > m_max->value()) {
        m_summary->setText(tr("The first batch must not be larger than the largest to try."));
        return false;
    }
    m_result = {};
    m_tries->setRowCount(0);
    m_apply->setEnabled(false);
    m_apply->setText(tr("Apply"));
    BatchFinderOptions options;
    options.start = m_first->value();
    options.maxBatch = m_max->value();
    options.memoryLimitBytes = static_cast<uint64_t>(m_limit->value()) << 20;
    QPointer<BatchFinderDialog> self(this);
    options.onTry = [self](const BatchTry& t) {
        QMetaObject::invokeMethod(
            self, [self, t] { self->addTry(t); }, Qt::QueuedConnection);
    };
    m_summary->setText(
        tr("Searching from batch %1 up to %2...").arg(options.start).arg(options.maxBatch));
    const RunConfig base = m_config();
    m_task->start([self, base, options](std::stop_token stop) {
        BatchFinderResult result;
        QString error;
        try {
            result = findLargestBatch(base, options, stop);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            self, [self, result, error] { self->finish(result, error); }, Qt::QueuedConnection);
    });
    m_start->setText(tr("Stop"));
    emit runningChanged(true);
    return true;
}

void BatchFinderDialog::stop() {
    m_task->stop();
}

void BatchFinderDialog::addTry(const BatchTry& t) {
    const int row = m_tries->rowCount();
    m_tries->insertRow(row);
    const auto cell = [&](int column, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        item->setToolTip(text);
        m_tries->setItem(row, column, item);
    };
    cell(0, QString::number(t.batch));
    cell(1, t.fits ? tr("yes") : tr("no"));
    cell(2, t.peakMemoryBytes ? QString::fromStdString(formatBytes(t.peakMemoryBytes)) : QString());
    cell(3, QString::fromStdString(t.why));
    m_tries->scrollToBottom();
}

void BatchFinderDialog::finish(const BatchFinderResult& result, const QString& error) {
    m_result = result;
    if (!error.isEmpty()) {
        m_summary->setText(tr("The search failed: %1").arg(error));
        return;
    }
    QString text = result.stopped ? tr("Stopped. ") : QString();
    if (result.largest) {
        text += tr("The largest batch that fits: %1 (%2 tries).")
                    .arg(*result.largest)
                    .arg(result.tries.size());
        m_apply->setText(tr("Apply batch_size = %1").arg(*result.largest));
        m_apply->setEnabled(true);
    } else if (!result.stopped) {
        text += tr("Not even batch %1 fits: %2")
                    .arg(m_first->value())
                    .arg(result.tries.empty() ? QString()
                                              : QString::fromStdString(result.tries.front().why));
    }
    m_summary->setText(text);
}

} // namespace tb::ui
