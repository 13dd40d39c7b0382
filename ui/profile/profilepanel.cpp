#include "profile/profilepanel.h"

#include "core/errors.h"
#include "profile/checkpointprofiler.h"
#include "profile/profilecomparisontable.h"
#include "profile/profiletable.h"
#include "profile/rooflinechart.h"
#include "runcontroller.h"
#include "store/runstore.h"
#include "train/layerprofile.h"
#include "train/profilecomparison.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

// The most profiles "Compare with" offers, the most recently profiled runs first.
constexpr std::size_t kMaxChoices = 60;

// Whether two reports are the same profile (one read back from the store, one just made).
bool sameProfile(const ProfileReport& a, const ProfileReport& b) {
    return a.model == b.model && a.precision == b.precision && a.firstStep == b.firstStep &&
           a.steps == b.steps && a.stepMs == b.stepMs;
}

QString describe(const ProfileReport& r) {
    return QStringLiteral("%1, %2, batch %3, %4 ms")
        .arg(QString::fromStdString(r.model), QString::fromStdString(r.precision))
        .arg(r.batch)
        .arg(r.stepMs, 0, 'f', 1);
}

} // namespace

ProfilePanel::ProfilePanel(RunController& controller, QWidget* parent)
    : QWidget(parent), m_controller(controller), m_checkpointProfiler(new CheckpointProfiler(this)),
      m_button(new QPushButton(tr("Profile %1 Steps").arg(kProfiledSteps))), m_status(new QLabel),
      m_compare(new QComboBox), m_summary(new QLabel), m_chart(new RooflineChart),
      m_tables(new QStackedWidget), m_table(new ProfileTable),
      m_comparisonTable(new ProfileComparisonTable) {
    m_button->setObjectName(QStringLiteral("profile-button"));
    m_status->setObjectName(QStringLiteral("profile-status"));
    m_status->setWordWrap(true); // units keep their slash: U+2060 joins them
    m_compare->setObjectName(QStringLiteral("profile-compare"));
    m_compare->setAccessibleName(tr("Compare with another profile"));
    m_compare->setToolTip(tr("Compare this profile (B) with another (A): another run's, or another "
                             "of this run's (trainbench-cli profile --from RUN --set "
                             "precision=bf16-mixed keeps one at bf16)"));
    m_compare->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_compare->setMinimumContentsLength(28);
    m_summary->setObjectName(QStringLiteral("profile-summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("profile-table"));
    m_table->setAccessibleName(tr("Profiled layers"));
    m_comparisonTable->setObjectName(QStringLiteral("profile-comparison-table"));
    m_comparisonTable->setAccessibleName(tr("Profiled layers, compared"));
    m_chart->setObjectName(QStringLiteral("roofline-chart"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_button);
    top->addWidget(m_status, 1);
    auto* compareLabel = new QLabel(tr("Compare &with:"));
    compareLabel->setBuddy(m_compare);
    top->addWidget(compareLabel);
    top->addWidget(m_compare);
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
    m_tables->addWidget(m_table);
    m_tables->addWidget(m_comparisonTable);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(overview);
    split->addWidget(m_tables);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_button, &QPushButton::clicked, this, &ProfilePanel::profile);
    connect(m_compare, &QComboBox::currentIndexChanged, this, &ProfilePanel::compareWith);
    connect(&m_controller, &RunController::stateChanged, this, [this] {
        const RunController::State state = m_controller.state();
        if (state == RunController::State::Idle && m_waiting) {
            m_waiting = false;
            m_status->setText(
                tr("The run ended before %1 steps were profiled.").arg(kProfiledSteps));
        }
        if (state != RunController::State::Idle)
            m_checkpointProfiler->cancel(); // a run trains: the two would share the cores
        updateButton();
    });
    connect(&m_controller, &RunController::runStarted, this, [this](const RunStartedEvent& e) {
        m_runId = QString::fromStdString(e.runId);
        m_checkpoint.clear();
    });
    connect(&m_controller, &RunController::runFinished, this, [this](const RunFinishedEvent& e) {
        m_checkpoint = QString::fromStdString(e.checkpoint);
        listComparisons();
        updateButton();
    });
    connect(&m_controller, &RunController::profileArrived, this, [this](const ProfileReport& r) {
        m_waiting = false;
        showReport(r);
        updateButton();
    });
    connect(m_checkpointProfiler, &CheckpointProfiler::finished, this,
            [this](const QString& runId, const ProfileReport& r, const QString& note) {
                if (runId == m_runId) {
                    showReport(r);
                    if (!note.isEmpty())
                        m_status->setText(m_status->text() + QLatin1Char(' ') + note);
                }
                listComparisons();
                updateButton();
            });
    connect(m_checkpointProfiler, &CheckpointProfiler::failed, this,
            [this](const QString& runId, const QString& message) {
                m_status->setText(
                    tr("Profiling run %1 from its checkpoint failed: %2").arg(runId, message));
                updateButton();
            });
    m_status->setText(tr("Press Profile while a run trains, or open a run with a checkpoint to "
                         "profile it from there."));
    listComparisons();
    updateButton();
}

void ProfilePanel::beginRun() {
    m_report.reset();
    m_chart->setReport({});
    m_table->setRowCount(0);
    m_summary->clear();
    m_compare->setCurrentIndex(0);
    updateButton();
}

void ProfilePanel::showStoredRun(const QString& runId, const QString& checkpoint) {
    beginRun();
    m_runId = runId;
    m_checkpoint = checkpoint;
    updateButton();
    const std::unique_ptr<RunStore> store = openStore();
    if (store && !runId.isEmpty()) {
        try {
            const std::vector<ProfileReport> profiles = store->profiles(runId.toStdString());
            if (!profiles.empty())
                showReport(profiles.back());
        } catch (const Error&) {
            // the store cannot be read: nothing was profiled that can be shown
        }
    }
    fillComparisons(store.get());
}

std::unique_ptr<RunStore> ProfilePanel::openStore() const {
    const QString path = m_controller.databasePath();
    if (path.isEmpty())
        return nullptr;
    try {
        return openRunStoreForQueries(path.toStdString()); // as the Runs tab reads it
    } catch (const Error&) {
        return nullptr; // no store yet
    }
}

void ProfilePanel::showReport(const ProfileReport& r) {
    m_report = r;
    m_chart->setReport(r);
    m_chart->fit();
    m_table->setReport(r);
    m_status->setText(tr("%1 on %2, precision %3, batch %4: %5 steps after step %6, %7 ms a step. "
                         "Roofs: %8 GFLOP\u2060/\u2060s and %9 GB\u2060/\u2060s.")
                          .arg(QString::fromStdString(r.model), QString::fromStdString(r.device),
                               QString::fromStdString(r.precision))
                          .arg(r.batch)
                          .arg(r.steps)
                          .arg(r.firstStep)
                          .arg(r.stepMs, 0, 'f', 2)
                          .arg(r.roofline.peakGflops, 0, 'f', 0)
                          .arg(r.roofline.bandwidthGBs, 0, 'f', 1));
    showComparison();
}

void ProfilePanel::listComparisons() {
    fillComparisons(openStore().get());
}

void ProfilePanel::fillComparisons(RunStore* store) {
    const Choice selected = m_compare->currentIndex() > 0
                                ? m_choices[static_cast<std::size_t>(m_compare->currentIndex() - 1)]
                                : Choice{};
    m_choices.clear();
    try {
        for (const std::string& id : store ? store->profiledRunIds() : std::vector<std::string>{}) {
            const std::vector<ProfileReport> profiles = store->profiles(id);
            for (std::size_t i = profiles.size(); i-- > 0 && m_choices.size() < kMaxChoices;)
                m_choices.push_back(
                    {QString::fromStdString(id), static_cast<int>(i) + 1, profiles[i]});
        }
    } catch (const Error&) {
        // the store cannot be read: nothing to compare with
    }
    const QSignalBlocker quiet(m_compare);
    m_compare->clear();
    m_compare->addItem(tr("nothing"));
    int restore = 0;
    for (const Choice& c : m_choices) {
        const bool thisRun = c.runId == m_runId;
        m_compare->addItem((thisRun ? tr("this run, profile %1").arg(c.index)
                                    : tr("%1, profile %2").arg(c.runId).arg(c.index)) +
                           QStringLiteral(": ") + describe(c.report));
        if (c.runId == selected.runId && c.index == selected.index)
            restore = m_compare->count() - 1;
    }
    m_compare->setCurrentIndex(restore);
    m_compare->setEnabled(!m_choices.empty());
    compareWith(restore);
}

void ProfilePanel::compareWith(int choice) {
    if (choice > 0 && static_cast<std::size_t>(choice) <= m_choices.size())
        m_comparison = m_choices[static_cast<std::size_t>(choice - 1)].report;
    else
        m_comparison.reset();
    showComparison();
}

void ProfilePanel::showComparison() {
    const bool comparing = m_report && m_comparison && !sameProfile(*m_report, *m_comparison);
    // The profile chosen is the baseline (A, hollow points), the one shown what it became (B).
    m_chart->setComparison(
        comparing ? m_comparison : std::nullopt,
        comparing ? tr("A: %1").arg(QString::fromStdString(m_comparison->precision)) : QString());
    m_chart->fit();
    QStringList lines;
    if (comparing) {
        const ProfileComparison c = compareProfiles(*m_comparison, *m_report);
        m_comparisonTable->setComparison(c);
        m_tables->setCurrentWidget(m_comparisonTable);
        lines << tr("A is the profile compared with (hollow points): %1. B is this one.")
                     .arg(describe(*m_comparison));
        for (const std::string& line : comparisonSummary(c))
            lines << QString::fromStdString(line);
    } else {
        m_tables->setCurrentWidget(m_table);
        if (m_report)
            for (const std::string& line : profileAdvice(*m_report))
                lines << QString::fromStdString(line);
    }
    m_summary->setText(lines.join(QStringLiteral("\n\n")));
}

void ProfilePanel::updateButton() {
    const RunController::State state = m_controller.state();
    const bool training =
        state == RunController::State::Running || state == RunController::State::Paused;
    const bool fromCheckpoint = state == RunController::State::Idle && !m_checkpoint.isEmpty();
    m_button->setEnabled(
        ((training && m_controller.canProfile() && !m_waiting) || fromCheckpoint) &&
        !m_checkpointProfiler->running());
    m_button->setToolTip(
        fromCheckpoint
            ? tr("Train this run's set-up again from its checkpoint for %1 warm-up steps, time "
                 "the next %2 layer by layer and keep the profile with the run")
                  .arg(CheckpointProfiler::kWarmupSteps)
                  .arg(kProfiledSteps)
            : tr("Time the next %1 training steps layer by layer and place each layer under "
                 "this machine's roofline")
                  .arg(kProfiledSteps));
}

void ProfilePanel::profile() {
    if (m_controller.state() == RunController::State::Idle) {
        if (m_checkpoint.isEmpty() ||
            !m_checkpointProfiler->start(m_runId, m_checkpoint, m_controller.databasePath(),
                                         kProfiledSteps))
            return;
        m_status->setText(tr("Profiling run %1 from its checkpoint: %2 warm-up steps, then %3 "
                             "profiled...")
                              .arg(m_runId)
                              .arg(CheckpointProfiler::kWarmupSteps)
                              .arg(kProfiledSteps));
    } else {
        if (!m_controller.requestProfile(kProfiledSteps))
            return;
        m_waiting = true;
        m_status->setText(tr("Profiling the next %1 steps...").arg(kProfiledSteps));
    }
    updateButton();
}

} // namespace tb::ui
