// BatchFinderDialog: Run > Find Batch Size. The largest batch the set-up trains at on its
// device (engine/experiments/batchfinder.h: doubling, then bisection, each try a few real
// steps, an out-of-memory failure survived), optionally under a peak-memory limit the user sets
// (on the CPU, where running out of memory means swapping). Each try is listed as it ends; the
// result applies to the set-up with one click.
#pragma once

#include "experiments/batchfinder.h"

#include <QDialog>

#include <functional>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tb::ui {

class BackgroundTask;

class BatchFinderDialog : public QDialog {
    Q_OBJECT

public:
    BatchFinderDialog(std::function<RunConfig()> config, QWidget* parent = nullptr);

    bool start();
    void stop();
    bool running() const;
    // Whether Start may be pressed: not while a run or an experiment trains (Stop stays).
    void setCanStart(bool can);
    // The limit in MiB (0: none), the first batch and the largest to try.
    void setSearch(int memoryLimitMiB, int start, int maxBatch);
    const BatchFinderResult& result() const { return m_result; }
    QTableWidget* tries() const { return m_tries; }
    QPushButton* applyButton() const { return m_apply; }
    QString summary() const;

signals:
    void applyRequested(int64_t batchSize);
    void runningChanged(bool running);

private:
    void addTry(const BatchTry& t);
    void finish(const BatchFinderResult& result, const QString& error);

    std::function<RunConfig()> m_config;
    BackgroundTask* m_task;
    BatchFinderResult m_result;
    QSpinBox* m_limit;
    QSpinBox* m_first;
    QSpinBox* m_max;
    QPushButton* m_start;
    bool m_canStart = true;
    QPushButton* m_apply;
    QLabel* m_summary;
    QTableWidget* m_tries;
};

} // namespace tb::ui
