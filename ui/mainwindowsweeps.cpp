// MainWindow's sweeps: Run > Sweep... on the set-up column's config, the Sweep tab following
// the trials, and the trials compared in the Runs tab when the sweep ends.
#include "mainwindow.h"

#include "core/textformat.h"
#include "experiments/experimentcontroller.h"
#include "runcontroller.h"
#include "runs/runsview.h"
#include "setup/setuppanel.h"
#include "status/failurebanner.h"
#include "status/logpanel.h"
#include "sweeps/sweepcontroller.h"
#include "sweeps/sweepdialog.h"
#include "sweeps/sweeppanel.h"

namespace tb::ui {

SweepDialog* MainWindow::showSweepDialog() {
    auto* dialog = new SweepDialog(m_setup->config(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (const auto sweep = dialog->definition())
            startSweep(*sweep, dialog->parallel());
    });
    dialog->open();
    return dialog;
}

bool MainWindow::startSweep(const SweepDefinition& sweep, int parallel) {
    if (m_controller->state() != RunController::State::Idle || m_experiments->running() ||
        m_sweeps->running())
        return false;
    m_banner->hide();
    m_sweepPanel->begin(sweep, parallel);
    showTab(m_sweepPanel);
    return m_sweeps->start(sweep, parallel);
}

void MainWindow::connectSweeps() {
    connect(m_sweeps, &SweepController::started, this, [this](const QString& name, int trials) {
        m_log->addMessage(LogLevel::Info,
                          tr("sweep %1: %2, each a run tagged sweep:%1")
                              .arg(name, QString::fromStdString(formatCountOf(trials, "trial"))));
        updateActions();
    });
    connect(m_sweeps, &SweepController::trialStarted, m_sweepPanel, &SweepPanel::trialStarted);
    connect(m_sweeps, &SweepController::trialFinished, this, [this](const SweepTrialOutcome& t) {
        m_sweepPanel->trialFinished(t);
        if (t.status == RunStatus::Failed)
            m_log->addMessage(LogLevel::Error, tr("sweep trial %1 (%2) failed: %3")
                                                   .arg(t.trial.index + 1)
                                                   .arg(QString::fromStdString(t.trial.label()),
                                                        QString::fromStdString(t.error)));
    });
    connect(m_sweeps, &SweepController::finished, this, [this](bool stopped, const QString& error) {
        m_sweepPanel->end(stopped, error);
        const QString name = QString::fromStdString(m_sweeps->sweep().name);
        if (!error.isEmpty())
            m_log->addMessage(LogLevel::Error, tr("sweep %1: %2").arg(name, error));
        else
            m_log->addMessage(stopped ? LogLevel::Warning : LogLevel::Info,
                              stopped ? tr("sweep %1 stopped; start it again to train "
                                           "the trials not done")
                                            .arg(name)
                                      : tr("sweep %1 done").arg(name));
        if (const QStringList ids = m_sweepPanel->runIds(); !ids.isEmpty() && !stopped)
            compareInRuns(ids, QString::fromStdString(sweepTag(m_sweeps->sweep())), {});
        updateActions();
    });
    connect(m_sweepPanel, &SweepPanel::stopRequested, m_sweeps, &SweepController::stop);
    connect(m_sweepPanel, &SweepPanel::selectInRunsRequested, this,
            [this](const QString& tag, const QStringList& ids) { compareInRuns(ids, tag, {}); });
}

} // namespace tb::ui
