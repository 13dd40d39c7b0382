#include "profile/profilepanel.h"

#include "core/errors.h"
#include "profile/profiletable.h"
#include "profile/rooflinechart.h"
#include "runcontroller.h"
#include "store/runstore.h"
#include "train/layerprofile.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace tb::ui {

ProfilePanel::ProfilePanel(RunController& controller, QWidget* parent)
    : QWidget(parent), m_controller(controller),
      m_button(new QPushButton(tr("Profile %1 Steps").arg(kProfiledSteps))), m_status(new QLabel),
      m_summary(new QLabel), m_chart(new RooflineChart), m_table(new ProfileTable) {
    m_button->setObjectName(QStringLiteral("profile-button"));
    m_button->setToolTip(tr("Time the next %1 training steps layer by layer and place each layer "
                            "under this machine's roofline")
                             .arg(kProfiledSteps));
    m_status->setObjectName(QStringLiteral("profile-status"));
    m_status->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("profile-summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("profile-table"));
    m_table->setAccessibleName(tr("Profiled layers"));
    m_chart->setObjectName(QStringLiteral("roofline-chart"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_button);
    top->addWidget(m_status, 1);
    // The roofline beside what it means; the table, every column visible, below them.
    auto* overview = new QWidget;
    auto* overviewLayout = new QHBoxLayout(overview);
    overviewLayout->setContentsMargins(0, 0, 0, 0);
    overviewLayout->addWidget(m_chart, 3);
    auto* summaryScroll = new QScrollArea;
    summaryScroll->setWidget(m_summary);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    summaryScroll->setAccessibleName(tr("What bounds the step"));
    overviewLayout->addWidget(summaryScroll, 2);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(overview);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_button, &QPushButton::clicked, this, &ProfilePanel::requestProfile);
    connect(&m_controller, &RunController::stateChanged, this, [this] {
        if (m_controller.state() == RunController::State::Idle && m_waiting) {
            m_waiting = false;
            m_status->setText(
                tr("The run ended before %1 steps were profiled.").arg(kProfiledSteps));
        }
        updateButton();
    });
    connect(&m_controller, &RunController::profileArrived, this, [this](const ProfileReport& r) {
        m_waiting = false;
        showReport(r);
        updateButton();
    });
    m_status->setText(tr("Press Profile while a run trains, or open a run that was profiled "
                         "(trainbench-cli profile records one)."));
    updateButton();
}

void ProfilePanel::beginRun() {
    m_report.reset();
    m_chart->setReport({});
    m_table->setRowCount(0);
    m_summary->clear();
    updateButton();
}

void ProfilePanel::showStoredRun(const QString& runId) {
    beginRun();
    const QString path = m_controller.databasePath();
    if (path.isEmpty() || runId.isEmpty())
        return;
    try {
        RunStoreOptions readOnly;
        readOnly.readOnly = true;
        readOnly.markInterrupted = false;
        RunStore store(path.toStdString(), readOnly);
        const std::vector<ProfileReport> profiles = store.profiles(runId.toStdString());
        if (!profiles.empty())
            showReport(profiles.back());
    } catch (const Error&) {
        // no store to read, or this run is not in it: nothing was profiled that can be shown
    }
}

void ProfilePanel::showReport(const ProfileReport& r) {
    m_report = r;
    m_chart->setReport(r);
    m_chart->fit();
    m_table->setReport(r);
    m_status->setText(tr("%1 on %2, precision %3, batch %4: %5 steps after step %6, %7 ms a step. "
                         "Roofs: %8 GFLOP/s and %9 GB/s.")
                          .arg(QString::fromStdString(r.model), QString::fromStdString(r.device),
                               QString::fromStdString(r.precision))
                          .arg(r.batch)
                          .arg(r.steps)
                          .arg(r.firstStep)
                          .arg(r.stepMs, 0, 'f', 2)
                          .arg(r.roofline.peakGflops, 0, 'f', 0)
                          .arg(r.roofline.bandwidthGBs, 0, 'f', 1));
    QStringList advice;
    for (const std::string& line : profileAdvice(r))
        advice << QString::fromStdString(line);
    m_summary->setText(advice.join(QStringLiteral("\n\n")));
}

void ProfilePanel::updateButton() {
    const RunController::State state = m_controller.state();
    const bool training =
        state == RunController::State::Running || state == RunController::State::Paused;
    m_button->setEnabled(training && m_controller.canProfile() && !m_waiting);
}

void ProfilePanel::requestProfile() {
    if (!m_controller.requestProfile(kProfiledSteps))
        return;
    m_waiting = true;
    m_status->setText(tr("Profiling the next %1 steps...").arg(kProfiledSteps));
    updateButton();
}

} // namespace tb::ui
