// LrFinderDialog: the sweep's steps reach the chart as they are logged (a sink on the
// trainer's thread posting to this one); at the end the finder's own curve and suggestion
// replace the live one.
#include "experiments/lrfinderdialog.h"

#include "experiments/backgroundtask.h"
#include "experiments/lrfinderchart.h"

#include <QDialogButtonBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tb::ui {

namespace {
// Forwards each logged step to the dialog, on its thread.
class StepForwarder final : public EventSink {
public:
    explicit StepForwarder(std::function<void(const StepEvent&)> post) : m_post(std::move(post)) {}
    void onEvent(const Event& e) override {
        if (const auto* s = std::get_if<StepEvent>(&e))
            m_post(*s);
    }

private:
    std::function<void(const StepEvent&)> m_post;
};
} // namespace

LrFinderDialog::LrFinderDialog(QString databasePath, std::function<RunConfig()> config,
                               QWidget* parent)
    : QDialog(parent), m_databasePath(std::move(databasePath)), m_config(std::move(config)),
      m_task(new BackgroundTask(this)), m_minLr(new QLineEdit(this)), m_maxLr(new QLineEdit(this)),
      m_steps(new QSpinBox(this)), m_start(new QPushButton(tr("Start"), this)),
      m_apply(new QPushButton(this)), m_summary(new QLabel(this)),
      m_chart(new LrFinderChart(this)) {
    setObjectName(QStringLiteral("lr-finder"));
    setWindowTitle(tr("Find Learning Rate"));
    const LrFinderOptions defaults;
    for (QLineEdit* e : {m_minLr, m_maxLr}) {
        auto* validator = new QDoubleValidator(1e-12, 1e6, 12, e);
        validator->setNotation(QDoubleValidator::ScientificNotation);
        validator->setLocale(QLocale::c());
        e->setValidator(validator);
    }
    m_minLr->setObjectName(QStringLiteral("lr-finder-min"));
    m_maxLr->setObjectName(QStringLiteral("lr-finder-max"));
    m_steps->setObjectName(QStringLiteral("lr-finder-steps"));
    m_start->setObjectName(QStringLiteral("lr-finder-start"));
    m_apply->setObjectName(QStringLiteral("lr-finder-apply"));
    m_summary->setObjectName(QStringLiteral("lr-finder-summary"));
    m_steps->setRange(20, 5000);
    setSweep(defaults.minLr, defaults.maxLr, defaults.steps);
    m_summary->setWordWrap(true);
    m_summary->setText(tr("A short run of the set-up whose learning rate rises exponentially "
                          "from the lowest to the highest; the loss against lr shows where "
                          "training works. The run is recorded, tagged lr-find."));
    m_apply->setEnabled(false);
    m_apply->setText(tr("Apply"));
    m_chart->setMinimumSize(480, 300);

    auto* form = new QFormLayout;
    form->addRow(tr("Lowest lr"), m_minLr);
    form->addRow(tr("Highest lr"), m_maxLr);
    form->addRow(tr("Steps"), m_steps);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_apply, QDialogButtonBox::AcceptRole);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_chart, 1);
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
        if (m_result.suggested)
            emit applyRequested(*m_result.suggested);
    });
    connect(m_task, &BackgroundTask::finished, this, [this] {
        m_start->setText(tr("Start"));
        m_start->setEnabled(m_canStart);
        emit runningChanged(false);
    });
}

void LrFinderDialog::setSweep(double minLr, double maxLr, int steps) {
    m_minLr->setText(QString::number(minLr, 'g', 6));
    m_maxLr->setText(QString::number(maxLr, 'g', 6));
    m_steps->setValue(steps);
}

bool LrFinderDialog::running() const {
    return m_task->running();
}

QString LrFinderDialog::summary() const {
    return m_summary->text();
}

void LrFinderDialog::setCanStart(bool can) {
    m_canStart = can;
    m_start->setEnabled(can || running());
}

bool LrFinderDialog::start() {
    if (running() || !m_canStart)
        return false;
    bool okMin = false, okMax = false;
    LrFinderOptions options;
    options.minLr = QLocale::c().toDouble(m_minLr->text(), &okMin);
    options.maxLr = QLocale::c().toDouble(m_maxLr->text(), &okMax);
    options.steps = m_steps->value();
    if (!okMin || !okMax || !(options.minLr > 0.0) || !(options.maxLr > options.minLr)) {
        m_summary->setText(tr("The lowest lr must be above 0 and below the highest."));
        return false;
    }
    m_result = {};
    m_ema.reset(options.smoothing);
    m_chart->clear();
    m_apply->setEnabled(false);
    m_apply->setText(tr("Apply"));
    m_summary->setText(tr("Sweeping lr from %1 to %2 over %3 steps...")
                           .arg(options.minLr, 0, 'g', 3)
                           .arg(options.maxLr, 0, 'g', 3)
                           .arg(options.steps));
    RunSessionOptions session;
    session.databasePath = m_databasePath.toStdString();
    const RunConfig base = m_config();
    QPointer<LrFinderDialog> self(this);
    m_task->start([self, base, options, session](std::stop_token stop) {
        StepForwarder forward([self](const StepEvent& s) {
            QMetaObject::invokeMethod(
                self, [self, s] { self->addStep(s); }, Qt::QueuedConnection);
        });
        LrFinderResult result;
        QString error;
        try {
            result = findLearningRate(base, options, session, {&forward}, stop);
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

void LrFinderDialog::stop() {
    m_task->stop();
}

void LrFinderDialog::addStep(const StepEvent& step) {
    m_chart->addPoint(step.lr, step.loss, m_ema.add(step.loss));
}

void LrFinderDialog::finish(const LrFinderResult& result, const QString& error) {
    m_result = result;
    if (!error.isEmpty()) {
        m_summary->setText(tr("The sweep failed: %1").arg(error));
        return;
    }
    m_chart->setCurve(result.lr, result.loss, result.smoothed, result.suggested);
    QString text = result.stopped ? tr("Stopped after %1 steps. ").arg(result.lr.size())
                   : result.diverged
                       ? tr("The loss diverged at lr %1, ending the sweep. ")
                             .arg(result.lr.empty() ? 0.0 : result.lr.back(), 0, 'g', 3)
                       : QString();
    if (result.suggested) {
        text += tr("Suggested lr: %1, %2.")
                    .arg(*result.suggested, 0, 'g', 3)
                    .arg(QString::fromStdString(result.method));
        m_apply->setText(tr("Apply lr = %1").arg(*result.suggested, 0, 'g', 3));
        m_apply->setEnabled(true);
    } else {
        text += QString::fromStdString(result.method);
    }
    m_summary->setText(text);
}

} // namespace tb::ui
