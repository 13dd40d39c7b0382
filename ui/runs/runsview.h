// RunsView: the Runs tab. Every run of the store in a table that sorts by any column and filters
// by free text, status, tag, model and dataset; the runs selected in it compared below. Runs
// are renamed, tagged, noted and deleted here (deleting asks first and says what goes); "Open"
// shows a run in the training charts, "Use this set-up" loads its config, "Resume" continues a
// stopped or interrupted run. Runs that other processes write appear and update within a
// second (RunsStore).
#pragma once

#include <QWidget>

#include <utility>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace tb {
struct RunRecord;
}

namespace tb::ui {

class Comparison;
class ComparisonView;
class RunsFilterProxy;
class RunsStore;
class RunsTableModel;

class RunsView : public QWidget {
    Q_OBJECT
public:
    RunsView(RunsStore& store, QWidget* parent = nullptr);

    RunsTableModel* model() const { return m_model; }
    RunsFilterProxy* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    ComparisonView* comparisonView() const { return m_comparisonView; }
    Comparison* comparison() const { return m_comparison; }

    // The run ids selected, in table order.
    QStringList selectedRunIds() const;
    void selectRuns(const QStringList& ids);
    // Filters the table to the runs with this tag (a sweep's), as the tag filter does.
    void showTag(const QString& tag);

    // The edits, on the selected runs, without asking (the buttons ask first).
    void renameSelected(const QString& name);
    void setTagsOfSelected(const QStringList& tags);
    void setNotesOfSelected(const QString& notes);
    void deleteSelected(bool checkpoints);
    // The text of the delete confirmation for the selected runs: what goes.
    QString deleteQuestion() const;
    // Open, Use this set-up, Resume, Rename, Tags, Notes and Delete as actions, enabled with
    // their buttons: the window's Edit menu shows them.
    QList<QAction*> editActions() const;
    // The banner's text (store problems, a run that cannot be opened), empty when hidden.
    QString notice() const;

signals:
    void openRequested(const QString& runId);
    void useSetupRequested(const QString& runId);
    void resumeRequested(const QString& runId);
    // Edits and deletes failed, or a run cannot be opened: for the log as well.
    void message(const QString& text);

private:
    void updateActions();
    void updateFilterChoices();
    void selectionChanged();
    void showNotice(const QString& text);
    // A compared run deleted by another program: out of the comparison, saying so.
    void dropDeletedRun(const QString& id);
    void scheduleShownRuns();
    void sizeColumnsOnce();
    void openSelected();
    void askRename();
    void askTags();
    void askNotes();
    void askDelete();
    const RunRecord* selectedRun() const;

    RunsStore& m_store;
    RunsTableModel* m_model;
    RunsFilterProxy* m_proxy;
    Comparison* m_comparison;
    QLineEdit* m_text;
    QComboBox *m_status, *m_tag, *m_modelFilter, *m_dataset;
    QTableView* m_table;
    QPushButton *m_open, *m_useSetup, *m_resume, *m_rename, *m_tags, *m_notes, *m_delete;
    QLabel* m_notice;
    ComparisonView* m_comparisonView;
    bool m_readOnly = false;
    bool m_columnsSized = false;
    bool m_shownRunsPending = false;
    std::vector<std::pair<QPushButton*, QAction*>> m_mirrors; // buttons and their actions
};

} // namespace tb::ui
