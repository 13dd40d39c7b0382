// ProfilePanel, the Profile tab: where a step's time goes, layer by layer. "Profile 20 Steps"
// asks the run training now for a profile (RunController::requestProfile), or, for a run that
// has finished, measures it again from its checkpoint (CheckpointProfiler). The newest profile
// of the run the charts show (live, or recorded with a stored run) is drawn on the roofline and
// listed in the table, with what bounds the step and what helps; "Compare with" sets another
// profile beside it as the baseline (another run's, or another of the same run's, such as the
// one in 32-bit of a run profiled again at bf16).
#pragma once

#include "events/profilereport.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace tb {
class RunStore;
}

namespace tb::ui {

class CheckpointProfiler;
class ProfileComparisonTable;
class ProfileTable;
class RooflineChart;
class RunController;

class ProfilePanel : public QWidget {
    Q_OBJECT

public:
    static constexpr int kProfiledSteps = 20;

    explicit ProfilePanel(RunController& controller, QWidget* parent = nullptr);

    // A new run trains: what was drawn goes.
    void beginRun();
    // A recorded run is opened: its newest profile, when it has one, is drawn; with its
    // checkpoint it can be profiled again.
    void showStoredRun(const QString& runId, const QString& checkpoint = {});
    void showReport(const ProfileReport& report);
    const std::optional<ProfileReport>& report() const { return m_report; }
    // The profile set beside it (nullopt: none).
    const std::optional<ProfileReport>& comparison() const { return m_comparison; }

    RooflineChart* chart() const { return m_chart; }
    ProfileTable* table() const { return m_table; }
    ProfileComparisonTable* comparisonTable() const { return m_comparisonTable; }
    QPushButton* profileButton() const { return m_button; }
    QComboBox* compareBox() const { return m_compare; }

private:
    struct Choice {
        QString runId;
        int index = 0; // among the run's profiles, from 1
        ProfileReport report;
    };
    void updateButton();
    void profile();
    // The run store for reading, null without one.
    std::unique_ptr<RunStore> openStore() const;
    // "Compare with" lists the store's profiles (none without a store), keeping the choice.
    void listComparisons();
    void fillComparisons(RunStore* store);
    void compareWith(int choice);
    void showComparison();

    RunController& m_controller;
    CheckpointProfiler* m_checkpointProfiler;
    QPushButton* m_button;
    QLabel* m_status;
    QComboBox* m_compare;
    QLabel* m_summary;
    RooflineChart* m_chart;
    QStackedWidget* m_tables;
    ProfileTable* m_table;
    ProfileComparisonTable* m_comparisonTable;
    std::optional<ProfileReport> m_report, m_comparison;
    std::vector<Choice> m_choices; // the compare box's entries after "none"
    QString m_runId, m_checkpoint; // the run shown, and its checkpoint once it has one
    bool m_waiting = false;        // a live profile was asked for and has not arrived
};

} // namespace tb::ui
