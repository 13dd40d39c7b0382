// TryItPanel: a failed load says why in the status line (a checkpoint that is not one, a
// dataset this machine does not have) and keeps the canvas usable for the next model.
#include "predictions/tryitpanel.h"

#include "predictions/drawingcanvas.h"
#include "predictions/filechoosers.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace tb::ui {

TryItPanel::TryItPanel(QWidget* parent)
    : QWidget(parent),
      m_loader([](const QString& path) { return std::make_shared<Predictor>(path.toStdString()); },
               [this](const CheckpointLoader<Predictor>::Outcome& o) { loaded(o); }),
      m_status(new QLabel(this)), m_canvas(new DrawingCanvas(this)),
      m_invert(new QCheckBox(tr("Invert opened images"), this)),
      m_clear(new QPushButton(tr("Clear"), this)),
      m_open(new QPushButton(tr("Open Image…"), this)) {
    setObjectName(QStringLiteral("try-it"));
    m_status->setObjectName(QStringLiteral("try-it-status"));
    m_status->setWordWrap(true);
    m_status->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    m_status->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setText(tr("No model yet: train a run (its checkpoint is used after each epoch) "
                         "or choose a checkpoint."));
    auto* useCheckpoint = new QPushButton(tr("Use Checkpoint…"), this);
    useCheckpoint->setObjectName(QStringLiteral("try-it-checkpoint"));
    m_open->setObjectName(QStringLiteral("try-it-open"));
    m_clear->setObjectName(QStringLiteral("try-it-clear"));
    m_invert->setChecked(true);
    m_invert->setToolTip(tr("Photos show a dark object on a light page; the datasets show a "
                            "bright one on black"));

    auto* answers = new QGridLayout;
    answers->setColumnStretch(1, 1);
    for (int i = 0; i < kTop; ++i) {
        auto* name = new QLabel(this);
        auto* bar = new QProgressBar(this);
        bar->setRange(0, 1000);
        bar->setValue(0);
        bar->setTextVisible(true);
        bar->setFormat(QString());
        bar->setAccessibleName(tr("Prediction %1").arg(i + 1));
        answers->addWidget(name, i, 0);
        answers->addWidget(bar, i, 1);
        m_names.push_back(name);
        m_bars.push_back(bar);
    }

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_clear);
    buttons->addWidget(m_open);
    buttons->addWidget(m_invert);
    buttons->addStretch(1);
    buttons->addWidget(useCheckpoint);

    auto* answerColumn = new QVBoxLayout;
    answerColumn->addLayout(answers);
    answerColumn->addStretch(1);
    auto* body = new QHBoxLayout;
    body->addWidget(m_canvas, 1, Qt::AlignTop);
    body->addLayout(answerColumn, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addLayout(body, 1);
    layout->addLayout(buttons);
    layout->addStretch(0);

    connect(m_canvas, &DrawingCanvas::changed, this, &TryItPanel::predict);
    connect(m_clear, &QPushButton::clicked, m_canvas, &DrawingCanvas::clear);
    connect(m_open, &QPushButton::clicked, this, &TryItPanel::chooseImage);
    connect(useCheckpoint, &QPushButton::clicked, this, &TryItPanel::chooseCheckpoint);
    showPredictions();
}

TryItPanel::~TryItPanel() = default;

QString TryItPanel::status() const {
    return m_status->text();
}

void TryItPanel::setCheckpoint(const QString& path) {
    if (!m_loader.request(path))
        return;
    m_status->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    m_status->setStyleSheet({});
}

void TryItPanel::loaded(const CheckpointLoader<Predictor>::Outcome& result) {
    if (!result.model) {
        m_predictor.reset();
        m_status->setText(
            tr("Cannot use %1: %2").arg(QFileInfo(result.path).fileName(), result.error));
        m_status->setStyleSheet(QStringLiteral("color: #d13438;"));
        m_predictions.clear();
        showPredictions();
        return;
    }
    m_predictor = result.model;
    const Shape shape = m_predictor->sampleShape();
    const bool image = shape.rank() == 3 && (shape[0] == 1 || shape[0] == 3);
    m_status->setText(image ? tr("%1 from %2 (%3 on %4, %5 input)")
                                  .arg(QString::fromStdString(m_predictor->config().model),
                                       QFileInfo(result.path).fileName(),
                                       QString::fromStdString(m_predictor->config().displayName()),
                                       QString::fromStdString(m_predictor->config().data.name),
                                       QString::fromStdString(shape.toString()))
                            : tr("%1 reads %2 features, not an image: Try it takes image models")
                                  .arg(QString::fromStdString(m_predictor->config().model))
                                  .arg(shape.numel()));
    m_canvas->setEnabled(image);
    m_open->setEnabled(image);
    m_clear->setEnabled(image);
    emit modelLoaded();
    predict();
}

void TryItPanel::predict() {
    m_predictions.clear();
    if (m_predictor && !m_canvas->isEmpty() && m_canvas->isEnabled()) {
        const Shape s = m_predictor->sampleShape();
        m_predictions =
            m_predictor->predict(m_canvas->sample(static_cast<int>(s[0]), static_cast<int>(s[1]),
                                                  static_cast<int>(s[2])),
                                 kTop);
    }
    showPredictions();
}

void TryItPanel::showPredictions() {
    for (int i = 0; i < kTop; ++i) {
        const auto k = static_cast<std::size_t>(i);
        QProgressBar* bar = m_bars[k];
        if (k < m_predictions.size()) {
            const Prediction& p = m_predictions[k];
            m_names[k]->setText(QString::fromStdString(p.className));
            bar->setValue(static_cast<int>(p.probability * 1000.0 + 0.5));
            bar->setFormat(QString::number(100.0 * p.probability, 'f', 1) + '%');
        } else {
            m_names[k]->setText(i == 0 ? tr("(nothing drawn)") : QString());
            bar->setValue(0);
            bar->setFormat(QString());
        }
    }
}

bool TryItPanel::openImage(const QString& path) {
    QImageReader reader(path);
    const QImage image = reader.read();
    if (image.isNull()) {
        m_status->setText(tr("Cannot open %1: %2").arg(path, reader.errorString()));
        m_status->setStyleSheet(QStringLiteral("color: #d13438;"));
        return false;
    }
    m_canvas->setImage(image, m_invert->isChecked());
    return true;
}

void TryItPanel::chooseImage() {
    if (const QString path = askForImage(this); !path.isEmpty())
        openImage(path);
}

void TryItPanel::chooseCheckpoint() {
    setCheckpoint(askForCheckpoint(this, m_loader.path()));
}

} // namespace tb::ui
