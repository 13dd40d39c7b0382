// MainWindow's teaching: File > Lessons, View > Lesson Mode, experiments started from a lesson
// or a concept card, and the finders (Run > Find Learning Rate, Find Batch Size).
#include "mainwindow.h"

#include "concepts/conceptcards.h"
#include "experiments/batchfinderdialog.h"
#include "experiments/experimentpreset.h"
#include "experiments/lesson.h"
#include "experiments/lrfinderdialog.h"
#include "learn/learnpanel.h"
#include "memory/llmmemorydialog.h"
#include "setup/setuppanel.h"
#include "status/logpanel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QTabWidget>

#include <set>

namespace tb::ui {

namespace {
std::set<std::string> knownCards() {
    std::set<std::string> ids;
    for (const ConceptCard& card : conceptCards())
        ids.insert(card.id.toStdString());
    return ids;
}
} // namespace

void MainWindow::addLessonActions(QMenu* file, QMenu* view) {
    QMenu* lessons = file->addMenu(tr("&Lessons"));
    lessons->setObjectName(QStringLiteral("menu-lessons"));
    lessons->setToolTipsVisible(true);
    for (const Lesson& lesson : builtinLessons()) {
        QAction* a = lessons->addAction(QString::fromStdString(lesson.title), this,
                                        [this, lesson] { openLesson(lesson); });
        a->setObjectName(QStringLiteral("lesson-") + QString::fromStdString(lesson.id));
        a->setToolTip(QString::fromStdString(lesson.goal));
    }
    lessons->addSeparator();
    QAction* open = lessons->addAction(tr("Open Lesson &File..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Lesson"), QString(),
                                                          tr("Lessons (*.json)"));
        if (!path.isEmpty())
            openLessonFile(path);
    });
    open->setObjectName(QStringLiteral("action-open-lesson"));
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));

    m_lessonMode = view->addAction(tr("Lesson &Mode"));
    m_lessonMode->setObjectName(QStringLiteral("view-lesson-mode"));
    m_lessonMode->setCheckable(true);
    m_lessonMode->setEnabled(false);
    m_lessonMode->setToolTip(tr("Only the open lesson's controls are shown; uncheck to see all"));
    connect(m_lessonMode, &QAction::toggled, this, [this](bool on) {
        if (!on)
            leaveLesson();
    });
    view->addSeparator();
}

void MainWindow::connectLearn() {
    connect(m_learn, &LearnPanel::experimentRequested, this, &MainWindow::runExperimentNamed);
    connect(m_learn, &LearnPanel::leaveLessonRequested, this, &MainWindow::leaveLesson);
}

void MainWindow::openLesson(const Lesson& lesson, const QString& folder) {
    m_lessonFolder = folder;
    m_setup->setConfig(lessonConfig(m_setup->config(), lesson));
    QStringList controls;
    for (const std::string& key : lesson.controls)
        controls << QString::fromStdString(key);
    m_setup->setLessonControls(controls);
    QStringList sources;
    for (const std::string& e : lesson.experiments) {
        const QString name = QString::fromStdString(e);
        const bool besideTheFile =
            !folder.isEmpty() && QFileInfo::exists(QDir(folder).filePath(name));
        sources << (besideTheFile ? QDir(folder).filePath(name) : name);
    }
    m_learn->setLesson(lesson, sources);
    showTab(m_learn);
    {
        const QSignalBlocker block(m_lessonMode);
        m_lessonMode->setEnabled(true);
        m_lessonMode->setChecked(true);
    }
    m_log->addMessage(LogLevel::Info, tr("lesson: %1 (View > Lesson Mode shows every control)")
                                          .arg(QString::fromStdString(lesson.title)));
}

bool MainWindow::openLessonFile(const QString& path) {
    try {
        openLesson(loadLesson(path.toStdString(), knownCards()), QFileInfo(path).absolutePath());
        return true;
    } catch (const std::exception& e) {
        const QString why = QString::fromUtf8(e.what());
        m_log->addMessage(LogLevel::Error, tr("cannot open the lesson: %1").arg(why));
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot Open the Lesson"), why,
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("lesson-error"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return false;
    }
}

void MainWindow::leaveLesson() {
    m_setup->setLessonControls({});
    m_learn->clearLesson();
    const QSignalBlocker block(m_lessonMode);
    m_lessonMode->setChecked(false);
    m_lessonMode->setEnabled(false);
}

void MainWindow::addFinderActions(QMenu* run) {
    QAction* lr = run->addAction(tr("Find &Learning Rate..."), this, &MainWindow::showLrFinder);
    lr->setObjectName(QStringLiteral("action-find-lr"));
    lr->setToolTip(tr("A short sweep of lr on this set-up; the suggestion applies in one click"));
    QAction* batch = run->addAction(tr("Find &Batch Size..."), this, &MainWindow::showBatchFinder);
    batch->setObjectName(QStringLiteral("action-find-batch"));
    batch->setToolTip(tr("The largest batch_size this set-up trains at on its device"));
    m_finderActions = {lr, batch};
    run->addSeparator();
    QAction* llm =
        run->addAction(tr("Language Model &Memory..."), this, &MainWindow::showLlmMemory);
    llm->setObjectName(QStringLiteral("action-llm-memory"));
    llm->setToolTip(tr("What a transformer language model needs in GPU memory to run or to "
                       "train: a 7B model, a 70B one, any size"));
}

LlmMemoryDialog* MainWindow::showLlmMemory() {
    if (!m_llmMemory)
        m_llmMemory = new LlmMemoryDialog(this);
    m_llmMemory->show();
    m_llmMemory->raise();
    return m_llmMemory;
}

// The key in the set-up column changes; the rest of its config stays as the user left it.
static void setKey(SetupPanel& setup, const std::string& key, const std::string& value) {
    RunConfig c = setup.config();
    c.set(key, value);
    setup.setConfig(c);
}

LrFinderDialog* MainWindow::showLrFinder() {
    if (!m_lrFinder) {
        m_lrFinder = new LrFinderDialog(
            m_databasePath, [this] { return m_setup->config(); }, this);
        connect(m_lrFinder, &LrFinderDialog::applyRequested, this, [this](double lr) {
            setKey(*m_setup, "lr", QString::number(lr, 'g', 6).toStdString());
            m_log->addMessage(LogLevel::Info,
                              tr("lr set to %1 (the LR finder's suggestion)").arg(lr, 0, 'g', 3));
        });
        connect(m_lrFinder, &LrFinderDialog::runningChanged, this, &MainWindow::updateActions);
    }
    m_lrFinder->show();
    m_lrFinder->raise();
    return m_lrFinder;
}

BatchFinderDialog* MainWindow::showBatchFinder() {
    if (!m_batchFinder) {
        m_batchFinder = new BatchFinderDialog([this] { return m_setup->config(); }, this);
        connect(m_batchFinder, &BatchFinderDialog::applyRequested, this, [this](int64_t batch) {
            setKey(*m_setup, "batch_size", std::to_string(batch));
            m_log->addMessage(
                LogLevel::Info,
                tr("batch_size set to %1 (the batch-size finder's result)").arg(batch));
        });
        connect(m_batchFinder, &BatchFinderDialog::runningChanged, this,
                &MainWindow::updateActions);
    }
    m_batchFinder->show();
    m_batchFinder->raise();
    return m_batchFinder;
}

bool MainWindow::runExperimentNamed(const QString& idOrPath) {
    try {
        return runExperiment(findExperiment(idOrPath.toStdString()));
    } catch (const std::exception& e) {
        m_log->addMessage(LogLevel::Error, QString::fromUtf8(e.what()));
        return false;
    }
}

} // namespace tb::ui
