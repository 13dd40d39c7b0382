// RunsView: the table, its filters and actions over the store, and the comparison of the
// selection beneath.
#include "runs/runsview.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "runs/comparison.h"
#include "runs/comparisonview.h"
#include "runs/runsfilterproxy.h"
#include "runs/runsstore.h"
#include "runs/runstablemodel.h"
#include "themeicon.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <filesystem>
#include <set>

namespace tb::ui {

namespace {

QComboBox* filterCombo(const QString& name, const QString& accessible, QWidget* parent) {
    auto* box = new QComboBox(parent);
    box->setObjectName(name);
    box->setAccessibleName(accessible);
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    return box;
}

// Bytes under a checkpoint folder named after its run (what "delete" removes).
uint64_t checkpointBytes(const RunRecord& r) {
    if (r.checkpoint.empty())
        return 0;
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(r.checkpoint).parent_path();
    if (folder.filename() != r.id)
        return 0;
    uint64_t bytes = 0;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(folder, ec))
        if (e.is_regular_file(ec))
            bytes += e.file_size(ec);
    return bytes;
}

} // namespace

RunsView::RunsView(RunsStore& store, QWidget* parent)
    : QWidget(parent), m_store(store), m_model(new RunsTableModel(this)),
      m_proxy(new RunsFilterProxy(this)), m_comparison(new Comparison(this)),
      m_text(new QLineEdit(this)),
      m_status(filterCombo(QStringLiteral("runs-status"), tr("Show runs of status"), this)),
      m_tag(filterCombo(QStringLiteral("runs-tag"), tr("Show runs with tag"), this)),
      m_modelFilter(filterCombo(QStringLiteral("runs-model"), tr("Show runs of model"), this)),
      m_dataset(filterCombo(QStringLiteral("runs-dataset"), tr("Show runs on dataset"), this)),
      m_table(new QTableView(this)), m_open(new QPushButton(tr("&Open"), this)),
      m_useSetup(new QPushButton(tr("&Use this set-up"), this)),
      m_resume(new QPushButton(tr("Res&ume"), this)),
      m_rename(new QPushButton(tr("Rena&me..."), this)),
      m_tags(new QPushButton(tr("T&ags..."), this)),
      m_notes(new QPushButton(tr("&Notes..."), this)),
      m_delete(new QPushButton(tr("&Delete..."), this)), m_notice(new QLabel(this)),
      m_comparisonView(new ComparisonView(*m_comparison, this)) {
    setObjectName(QStringLiteral("runs-view"));
    m_proxy->setSourceModel(m_model);
    m_text->setObjectName(QStringLiteral("runs-filter"));
    m_text->setAccessibleName(tr("Filter runs"));
    m_text->setPlaceholderText(tr("Filter: name, id, model, dataset, tag, notes"));
    m_text->setClearButtonEnabled(true);
    m_status->addItem(tr("any status"), QString());
    for (const char* s : {"running", "completed", "stopped", "failed", "interrupted"})
        m_status->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    connect(m_text, &QLineEdit::textChanged, m_proxy, &RunsFilterProxy::setText);
    connect(m_status, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setStatus(m_status->currentData().toString()); });
    connect(m_tag, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setTag(m_tag->currentData().toString()); });
    connect(m_modelFilter, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setModel(m_modelFilter->currentData().toString()); });
    connect(m_dataset, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setDataset(m_dataset->currentData().toString()); });

    m_table->setObjectName(QStringLiteral("runs-table"));
    m_table->setAccessibleName(tr("Runs"));
    m_table->setAccessibleDescription(
        tr("Every recorded run; select several to compare them below"));
    m_table->setModel(m_proxy);
    m_table->setTabKeyNavigation(false); // Tab leaves the table; arrows move in it
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunsTableModel::Started, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsView::selectionChanged);
    connect(m_table, &QTableView::doubleClicked, this, &RunsView::openSelected);

    m_open->setObjectName(QStringLiteral("runs-open"));
    m_open->setToolTip(tr("Show the run in the training charts as it was drawn live"));
    m_useSetup->setObjectName(QStringLiteral("runs-use-setup"));
    m_useSetup->setToolTip(tr("Load the run's configuration into the set-up column"));
    m_resume->setObjectName(QStringLiteral("runs-resume"));
    m_resume->setToolTip(tr("Continue a stopped or interrupted run from its last checkpoint"));
    m_rename->setObjectName(QStringLiteral("runs-rename"));
    m_tags->setObjectName(QStringLiteral("runs-tags"));
    m_notes->setObjectName(QStringLiteral("runs-notes"));
    m_delete->setObjectName(QStringLiteral("runs-delete"));
    connect(m_open, &QPushButton::clicked, this, &RunsView::openSelected);
    connect(m_useSetup, &QPushButton::clicked, this, [this] {
        if (const RunRecord* r = selectedRun())
            emit useSetupRequested(QString::fromStdString(r->id));
    });
    connect(m_resume, &QPushButton::clicked, this, [this] {
        if (const RunRecord* r = selectedRun())
            emit resumeRequested(QString::fromStdString(r->id));
    });
    connect(m_rename, &QPushButton::clicked, this, &RunsView::askRename);
    connect(m_tags, &QPushButton::clicked, this, &RunsView::askTags);
    connect(m_notes, &QPushButton::clicked, this, &RunsView::askNotes);
    connect(m_delete, &QPushButton::clicked, this, &RunsView::askDelete);

    // The same commands as actions, for the window's menus; their shortcuts act while the focus
    // is in this view, so Delete in the set-up column deletes nothing here.
    const auto mirror = [this](QPushButton* button, const QKeySequence& keys) {
        auto* action = new QAction(button->text(), this);
        action->setShortcut(keys);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        action->setToolTip(button->toolTip());
        connect(action, &QAction::triggered, button, &QPushButton::click);
        addAction(action);
        m_mirrors.push_back({button, action});
        return action;
    };
    mirror(m_open, QKeySequence(Qt::Key_Return))
        ->setIcon(themeIcon(QStringLiteral("document-open")));
    mirror(m_useSetup, {});
    mirror(m_resume, {})->setIcon(themeIcon(QStringLiteral("media-playback-start")));
    mirror(m_rename, QKeySequence(Qt::Key_F2));
    mirror(m_tags, {});
    mirror(m_notes, {});
    mirror(m_delete, QKeySequence::Delete)->setIcon(themeIcon(QStringLiteral("edit-delete")));

    m_notice->setObjectName(QStringLiteral("runs-notice"));
    m_notice->setWordWrap(true);
    m_notice->setStyleSheet(QStringLiteral("color: #d13438;"));
    m_notice->hide();

    auto* filters = new QHBoxLayout;
    filters->addWidget(m_text, 1);
    filters->addWidget(m_status);
    filters->addWidget(m_tag);
    filters->addWidget(m_modelFilter);
    filters->addWidget(m_dataset);
    auto* actions = new QHBoxLayout;
    for (QPushButton* b : {m_open, m_useSetup, m_resume})
        actions->addWidget(b);
    actions->addStretch(1);
    for (QPushButton* b : {m_rename, m_tags, m_notes, m_delete})
        actions->addWidget(b);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(filters);
    topLayout->addWidget(m_notice);
    topLayout->addWidget(m_table, 1);
    topLayout->addLayout(actions);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("runs-split"));
    split->addWidget(top);
    split->addWidget(m_comparisonView);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(&m_store, &RunsStore::runsListed, this, [this](const std::vector<RunRecord>& runs) {
        // A finished run is not followed, so its deletion by another process shows only as its
        // absence here; found before the table drops its row (and with it the selection).
        QStringList gone = m_comparison->runIds();
        for (const RunRecord& r : runs)
            gone.removeAll(QString::fromStdString(r.id));
        m_model->setRuns(runs);
        for (const QString& id : gone)
            dropDeletedRun(id);
        sizeColumnsOnce();
        updateFilterChoices();
        updateActions();
    });
    connect(&m_store, &RunsStore::accessChanged, this, [this](bool readOnly, const QString& why) {
        m_readOnly = readOnly;
        showNotice(why);
        updateActions();
    });
    connect(&m_store, &RunsStore::failed, this, [this](const QString& why) {
        showNotice(why);
        emit message(why);
    });
    connect(&m_store, &RunsStore::runLoaded, this,
            [this](const QString& id, std::shared_ptr<RunSeries> s) {
                m_comparison->addLoaded(id, s);
                if (s->record().status == RunStatus::Running)
                    m_store.follow(id); // rows after what was loaded, as they land
            });
    connect(&m_store, &RunsStore::runRowsArrived, m_comparison, &Comparison::appendRows);
    connect(&m_store, &RunsStore::runDeleted, this, [this](const QString& id) {
        if (m_comparison->runIds().contains(id))
            dropDeletedRun(id);
    });
    // The parallel coordinates draw the runs the table shows; brushing there selects here.
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RunsView::scheduleShownRuns);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RunsView::scheduleShownRuns);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &RunsView::scheduleShownRuns);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &RunsView::scheduleShownRuns);
    connect(m_proxy, &QAbstractItemModel::dataChanged, this, &RunsView::scheduleShownRuns);
    connect(m_comparisonView, &ComparisonView::runsBrushed, this, &RunsView::selectRuns);
    connect(m_comparisonView, &ComparisonView::colorAssigned, this,
            [this](const QString& id, const QString& color) {
                if (!m_readOnly)
                    m_store.setColor(id, color);
            });
    updateFilterChoices();
    updateActions();
    m_store.list(); // connected now: the first listing reaches this view
}

// Columns as wide as their contents when the first runs arrive, none wider than a third of the
// table (notes can be long); after that the user's widths stay.
void RunsView::sizeColumnsOnce() {
    if (m_columnsSized || m_model->rowCount() == 0)
        return;
    m_columnsSized = true;
    m_table->resizeColumnsToContents();
    const int widest = std::max(120, m_table->viewport()->width() / 3);
    for (int c = 0; c < RunsTableModel::ColumnCount; ++c)
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), widest));
}

// Filtering and listing change the rows in bursts: the parallel coordinates follow once.
void RunsView::scheduleShownRuns() {
    if (m_shownRunsPending)
        return;
    m_shownRunsPending = true;
    QTimer::singleShot(0, this, [this] {
        m_shownRunsPending = false;
        std::vector<RunRecord> shown;
        for (int row = 0; row < m_proxy->rowCount(); ++row)
            shown.push_back(m_model->runAt(m_proxy->mapToSource(m_proxy->index(row, 0)).row()));
        m_comparisonView->setShownRuns(shown);
    });
}

void RunsView::dropDeletedRun(const QString& id) {
    m_store.unfollow(id);
    m_comparison->removeRun(id);
    showNotice(tr("Run %1 was deleted (by another program?); it is no longer compared.").arg(id));
}

QStringList RunsView::selectedRunIds() const {
    QList<QModelIndex> rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QStringList ids;
    for (const QModelIndex& i : rows)
        ids << i.data(RunsTableModel::RunIdRole).toString();
    return ids;
}

void RunsView::selectRuns(const QStringList& ids) {
    QItemSelection selection;
    for (const QString& id : ids) {
        const int row = m_model->rowOf(id);
        if (row < 0)
            continue;
        const QModelIndex at = m_proxy->mapFromSource(m_model->index(row, 0));
        if (at.isValid())
            selection.select(at, at.siblingAtColumn(RunsTableModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect |
                                                     QItemSelectionModel::Rows);
}

void RunsView::showTag(const QString& tag) {
    if (tag.isEmpty())
        return;
    if (const int at = m_tag->findData(tag); at >= 0)
        m_tag->setCurrentIndex(at);
}

const RunRecord* RunsView::selectedRun() const {
    const QStringList ids = selectedRunIds();
    return ids.size() == 1 ? m_model->run(ids.first()) : nullptr;
}

void RunsView::selectionChanged() {
    const QStringList ids = selectedRunIds();
    const QStringList before = m_comparison->runIds();
    for (const QString& id : before)
        if (!ids.contains(id))
            m_store.unfollow(id);
    if (const QStringList missing = m_comparison->setRuns(ids); !missing.isEmpty())
        m_store.load(missing);
    updateActions();
}

void RunsView::updateActions() {
    const QStringList ids = selectedRunIds();
    const RunRecord* one = selectedRun();
    m_open->setEnabled(one != nullptr);
    m_useSetup->setEnabled(one != nullptr);
    m_resume->setEnabled(
        one && !one->checkpoint.empty() &&
        (one->status == RunStatus::Stopped || one->status == RunStatus::Interrupted) &&
        !m_readOnly);
    m_rename->setEnabled(one && !m_readOnly);
    m_tags->setEnabled(!ids.isEmpty() && !m_readOnly);
    m_notes->setEnabled(one && !m_readOnly);
    bool running = false;
    for (const QString& id : ids)
        if (const RunRecord* r = m_model->run(id))
            running = running || r->status == RunStatus::Running;
    m_delete->setEnabled(!ids.isEmpty() && !running && !m_readOnly);
    m_delete->setToolTip(running ? tr("A running run cannot be deleted") : QString());
    for (const auto& [button, action] : m_mirrors)
        action->setEnabled(button->isEnabled());
}

QList<QAction*> RunsView::editActions() const {
    QList<QAction*> list;
    for (const auto& [button, action] : m_mirrors)
        list << action;
    return list;
}

void RunsView::updateFilterChoices() {
    std::set<QString> tags, models, datasets;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const RunRecord& r = m_model->runAt(row);
        for (const std::string& t : r.tags)
            tags.insert(QString::fromStdString(t));
        models.insert(QString::fromStdString(r.model));
        datasets.insert(QString::fromStdString(r.dataset));
    }
    const auto refill = [](QComboBox* box, const QString& any, const std::set<QString>& values) {
        const QString current = box->currentData().toString();
        const QSignalBlocker block(box);
        box->clear();
        box->addItem(any, QString());
        for (const QString& v : values)
            if (!v.isEmpty())
                box->addItem(v, v);
        box->setCurrentIndex(std::max(0, box->findData(current)));
    };
    refill(m_tag, tr("any tag"), tags);
    refill(m_modelFilter, tr("any model"), models);
    refill(m_dataset, tr("any dataset"), datasets);
}

void RunsView::showNotice(const QString& text) {
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

QString RunsView::notice() const {
    return m_notice->isHidden() ? QString() : m_notice->text();
}

void RunsView::openSelected() {
    const RunRecord* r = selectedRun();
    if (!r)
        return;
    if (r->steps == 0) {
        const QString why = tr("Run %1 recorded no training step, so there is nothing to chart%2.")
                                .arg(QString::fromStdString(r->id),
                                     r->error.empty() ? QString()
                                                      : tr(": it failed before its first step (%1)")
                                                            .arg(QString::fromStdString(r->error)));
        showNotice(why);
        emit message(why);
        return;
    }
    showNotice(QString());
    emit openRequested(QString::fromStdString(r->id));
}

void RunsView::renameSelected(const QString& name) {
    if (const RunRecord* r = selectedRun())
        m_store.rename(QString::fromStdString(r->id), name);
}

void RunsView::setTagsOfSelected(const QStringList& tags) {
    for (const QString& id : selectedRunIds()) {
        const RunRecord* r = m_model->run(id);
        if (!r)
            continue;
        QStringList have;
        for (const std::string& t : r->tags)
            have << QString::fromStdString(t);
        for (const QString& t : tags)
            if (!have.contains(t))
                m_store.addTag(id, t);
        for (const QString& t : have)
            if (!tags.contains(t))
                m_store.removeTag(id, t);
    }
}

void RunsView::setNotesOfSelected(const QString& notes) {
    if (const RunRecord* r = selectedRun())
        m_store.setNotes(QString::fromStdString(r->id), notes);
}

void RunsView::deleteSelected(bool checkpoints) {
    const QStringList ids = selectedRunIds();
    m_comparison->setRuns({});
    m_store.remove(ids, checkpoints);
}

QString RunsView::deleteQuestion() const {
    const QStringList ids = selectedRunIds();
    int64_t steps = 0, epochs = 0;
    uint64_t bytes = 0;
    for (const QString& id : ids)
        if (const RunRecord* r = m_model->run(id)) {
            steps += r->steps;
            epochs += r->epochs;
            bytes += checkpointBytes(*r);
        }
    QString text = tr("Delete %1? Their records go: %2 logged steps, %3 epochs, their "
                      "telemetry and logs.")
                       .arg(QString::fromStdString(formatCountOf(std::ssize(ids), "run")))
                       .arg(QString::fromStdString(formatCount(steps)))
                       .arg(epochs);
    if (bytes > 0)
        text += QLatin1Char(' ') + tr("Their checkpoints (%1) are deleted too.")
                                       .arg(QString::fromStdString(formatBytes(bytes)));
    return text + QLatin1Char(' ') + tr("This cannot be undone.");
}

void RunsView::askRename() {
    const RunRecord* r = selectedRun();
    if (!r)
        return;
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Rename run"), tr("Name:"), QLineEdit::Normal,
                              QString::fromStdString(r->name), &ok);
    if (ok)
        renameSelected(name.trimmed());
}

void RunsView::askTags() {
    const QStringList ids = selectedRunIds();
    if (ids.isEmpty())
        return;
    QStringList current;
    if (const RunRecord* r = m_model->run(ids.first()))
        for (const std::string& t : r->tags)
            current << QString::fromStdString(t);
    bool ok = false;
    const QString text =
        QInputDialog::getText(this, tr("Tags"), tr("Tags of the selected runs, comma-separated:"),
                              QLineEdit::Normal, current.join(QStringLiteral(", ")), &ok);
    if (!ok)
        return;
    QStringList tags;
    for (const QString& t : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!t.trimmed().isEmpty())
            tags << t.trimmed();
    setTagsOfSelected(tags);
}

void RunsView::askNotes() {
    const RunRecord* r = selectedRun();
    if (!r)
        return;
    bool ok = false;
    const QString notes = QInputDialog::getMultiLineText(this, tr("Notes"), tr("Notes:"),
                                                         QString::fromStdString(r->notes), &ok);
    if (ok)
        setNotesOfSelected(notes);
}

void RunsView::askDelete() {
    if (selectedRunIds().isEmpty())
        return;
    QMessageBox box(QMessageBox::Warning, tr("Delete runs"), deleteQuestion(), QMessageBox::Cancel,
                    this);
    box.setObjectName(QStringLiteral("confirm-delete"));
    QPushButton* yes = box.addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() == yes)
        deleteSelected(true);
}

} // namespace tb::ui
