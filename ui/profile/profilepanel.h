// ProfilePanel, the Profile tab: where a step's time goes, layer by layer. "Profile 20 Steps"
// asks the run training now for a profile (RunController::requestProfile); the newest profile of
// the run the charts show (live, or recorded with a stored run) is drawn on the roofline and
// listed in the table, with what bounds the step and what helps.
#pragma once

#include "events/profilereport.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;

namespace tb::ui {

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
    // A recorded run is opened: its newest profile, when it has one, is drawn.
    void showStoredRun(const QString& runId);
    void showReport(const ProfileReport& report);
    const std::optional<ProfileReport>& report() const { return m_report; }

    RooflineChart* chart() const { return m_chart; }
    ProfileTable* table() const { return m_table; }
    QPushButton* profileButton() const { return m_button; }

private:
    void updateButton();
    void requestProfile();

    RunController& m_controller;
    QPushButton* m_button;
    QLabel* m_status;
    QLabel* m_summary;
    RooflineChart* m_chart;
    ProfileTable* m_table;
    std::optional<ProfileReport> m_report;
    bool m_waiting = false; // a profile was asked for and has not arrived
};

} // namespace tb::ui
