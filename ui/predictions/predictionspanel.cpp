// PredictionsPanel: the misclassified grid keeps each sample's pixels as the run sent them;
// a stored run's epochs carry only the indices (the store keeps no pixels), so the grid lists
// them by index and says so.
#include "predictions/predictionspanel.h"

#include "predictions/confusionmodel.h"
#include "predictions/detectiongallery.h"
#include "predictions/detectionpage.h"
#include "predictions/generatepanel.h"
#include "predictions/sampleimage.h"
#include "predictions/segmentationgallery.h"
#include "predictions/segmentationpage.h"
#include "predictions/tryitpanel.h"
#include "train/tokenmetrics.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tb::ui {

namespace {
constexpr int kThumbnail = 56;

} // namespace

PredictionsPanel::PredictionsPanel(QWidget* parent)
    : QWidget(parent), m_epochPicker(new QComboBox(this)), m_summary(new QLabel(this)),
      m_confusion(new ConfusionModel(this)),
      m_table(makeConfusionView(m_confusion, QStringLiteral("confusion-matrix"),
                                tr("Confusion matrix"), this)),
      m_missesNote(new QLabel(this)), m_misses(new QListWidget(this)),
      m_tryIt(new TryItPanel(this)), m_pages(new QStackedWidget(this)),
      m_samples(new QPlainTextEdit(this)), m_generate(new GeneratePanel(this)),
      m_detection(new DetectionPage(this)), m_segmentation(new SegmentationPage(this)) {
    setObjectName(QStringLiteral("predictions-panel"));
    m_epochPicker->setObjectName(QStringLiteral("predictions-epoch"));
    m_epochPicker->setAccessibleName(tr("Epoch shown"));
    m_epochPicker->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_summary->setObjectName(QStringLiteral("predictions-summary"));
    m_summary->setWordWrap(true); // a detector's figures take more than a line at 1280 px

    m_table->setWordWrap(false);

    m_misses->setObjectName(QStringLiteral("misclassified"));
    m_misses->setAccessibleName(tr("Misclassified validation samples"));
    m_misses->setViewMode(QListView::IconMode);
    m_misses->setIconSize({kThumbnail, kThumbnail});
    m_misses->setGridSize({kThumbnail + 60, kThumbnail + 48});
    m_misses->setResizeMode(QListView::Adjust);
    m_misses->setMovement(QListView::Static);
    m_misses->setWordWrap(true);
    m_missesNote->setWordWrap(true);

    auto* header = new QHBoxLayout;
    m_epochRow = new QWidget(this);
    auto* epochRow = new QHBoxLayout(m_epochRow);
    epochRow->setContentsMargins(0, 0, 0, 0);
    epochRow->addWidget(new QLabel(tr("Epoch:"), m_epochRow));
    epochRow->addWidget(m_epochPicker);
    header->addWidget(m_epochRow);
    header->addWidget(m_summary, 1);

    auto* matrixBox = new QGroupBox(tr("Confusion matrix (rows: true class, columns: predicted)"));
    auto* matrixLayout = new QVBoxLayout(matrixBox);
    matrixLayout->addWidget(m_table);
    auto* missesBox = new QGroupBox(tr("Misclassified validation samples"));
    auto* missesLayout = new QVBoxLayout(missesBox);
    missesLayout->addWidget(m_missesNote);
    missesLayout->addWidget(m_misses, 1);
    auto* tryBox = new QGroupBox(tr("Try it"));
    auto* tryLayout = new QVBoxLayout(tryBox);
    tryLayout->addWidget(m_tryIt);

    auto* left = new QSplitter(Qt::Vertical);
    left->addWidget(matrixBox);
    left->addWidget(missesBox);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(tryBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    // A language model's page: what it wrote after each epoch, and Generate.
    m_samples->setObjectName(QStringLiteral("epoch-samples"));
    m_samples->setAccessibleName(tr("Text written after each epoch"));
    m_samples->setReadOnly(true);
    m_samples->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* samplesBox = new QGroupBox(tr("What the model wrote after each epoch"));
    auto* samplesLayout = new QVBoxLayout(samplesBox);
    samplesLayout->addWidget(m_samples);
    auto* generateBox = new QGroupBox(tr("Generate"));
    auto* generateLayout = new QVBoxLayout(generateBox);
    generateLayout->addWidget(m_generate);
    auto* language = new QSplitter(Qt::Horizontal);
    language->addWidget(samplesBox);
    language->addWidget(generateBox);
    language->setStretchFactor(0, 1);
    language->setStretchFactor(1, 1);
    language->setChildrenCollapsible(false);

    m_pages->addWidget(split);
    m_pages->addWidget(language);
    m_pages->addWidget(m_detection);
    m_pages->addWidget(m_segmentation);
    // Only the page shown asks for room: a stacked widget otherwise takes the widest page's
    // minimum, and the language page would scroll sideways for the classifier's.
    connect(m_pages, &QStackedWidget::currentChanged, this, [this](int current) {
        for (int i = 0; i < m_pages->count(); ++i)
            m_pages->widget(i)->setSizePolicy(
                i == current ? QSizePolicy::Preferred : QSizePolicy::Ignored,
                i == current ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    });
    language->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_detection->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_segmentation->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_pages, 1);

    connect(m_epochPicker, &QComboBox::activated, this, [this](int index) {
        m_followNewest = index == m_epochPicker->count() - 1;
        show(m_epochs[static_cast<std::size_t>(index)]);
    });
    beginRun({});
}

bool PredictionsPanel::showsLanguageModel() const {
    return m_pages->currentIndex() == 1;
}

bool PredictionsPanel::showsDetector() const {
    return m_pages->currentIndex() == 2;
}

bool PredictionsPanel::showsSegmentation() const {
    return m_pages->currentIndex() == 3;
}

std::optional<double> PredictionsPanel::meanIoUOfEpoch(int64_t epoch) const {
    for (const EpochEvent& e : m_epochs)
        if (e.epoch == epoch && e.validation.segmentation)
            return e.validation.segmentation->meanIoU;
    return std::nullopt;
}

std::vector<int64_t> PredictionsPanel::newestWorstImages() const {
    std::vector<int64_t> indices;
    if (!m_epochs.empty() && m_epochs.back().validation.segmentation)
        for (const ImageIoU& image : m_epochs.back().validation.segmentation->worstImages)
            indices.push_back(image.index);
    return indices;
}

void PredictionsPanel::beginRun(const QString& runId) {
    m_pages->setCurrentIndex(0);
    m_epochRow->setVisible(true);
    m_samples->clear();
    m_runId = runId;
    if (!m_checkpoint.isEmpty()) {
        m_checkpoint.clear();
        emit checkpointChanged({});
    }
    m_epochs.clear();
    m_followNewest = true;
    m_epochPicker->clear();
    m_epochPicker->setEnabled(false);
    m_confusion->setReport({});
    m_detection->clear();
    m_segmentation->clear();
    m_misses->clear();
    m_summary->setText(runId.isEmpty()
                           ? tr("No run yet.")
                           : tr("Run %1: the matrix appears after its first epoch.").arg(runId));
    m_missesNote->clear();
    m_missesNote->hide();
}

void PredictionsPanel::addEpochs(const std::vector<EpochEvent>& epochs) {
    for (const EpochEvent& e : epochs) {
        if (!e.sample.empty())
            addSample(e);
        if (e.validation.classes == 0 && !e.validation.detection && !e.validation.segmentation)
            continue; // a language model's, or recorded before the store kept reports
        m_epochs.push_back(e);
        m_epochPicker->addItem(
            e.validation.detection ? tr("%1 (mAP50-95 %2)")
                                         .arg(e.epoch)
                                         .arg(e.validation.detection->map5095, 0, 'f', 3)
            : e.validation.segmentation
                ? tr("%1 (mIoU %2)").arg(e.epoch).arg(e.validation.segmentation->meanIoU, 0, 'f', 3)
                : tr("%1 (val acc %2%)").arg(e.epoch).arg(100.0 * e.valAcc, 0, 'f', 1));
    }
    m_epochPicker->setEnabled(!m_epochs.empty());
    if (m_followNewest && !m_epochs.empty()) {
        m_epochPicker->setCurrentIndex(m_epochPicker->count() - 1);
        show(m_epochs.back());
    }
}

void PredictionsPanel::setCheckpoint(const QString& path) {
    if (path.isEmpty())
        return;
    m_checkpoint = path;
    emit checkpointChanged(path);
    if (showsLanguageModel())
        m_generate->setCheckpoint(path);
    else if (showsDetector())
        m_detection->gallery()->setCheckpoint(path);
    else if (showsSegmentation())
        m_segmentation->gallery()->setCheckpoint(path, newestWorstImages());
    else
        m_tryIt->setCheckpoint(path);
}

void PredictionsPanel::addSample(const EpochEvent& epoch) {
    if (!showsLanguageModel()) {
        m_pages->setCurrentIndex(1);
        m_epochRow->setVisible(false); // the samples list every epoch
        m_generate->setCheckpoint(m_checkpoint);
    }
    m_summary->setText(tr("Epoch %1: validation loss %2 nats a token (perplexity %3, %4 bits a "
                          "token), next-token accuracy %5%")
                           .arg(epoch.epoch)
                           .arg(epoch.valLoss, 0, 'f', 3)
                           .arg(perplexity(epoch.valLoss), 0, 'f', 2)
                           .arg(bitsPerToken(epoch.valLoss), 0, 'f', 3)
                           .arg(100.0 * epoch.valAcc, 0, 'f', 1));
    m_samples->appendPlainText(tr("── after epoch %1 (validation loss %2) ──")
                                   .arg(epoch.epoch)
                                   .arg(epoch.valLoss, 0, 'f', 3));
    m_samples->appendPlainText(QString::fromStdString(epoch.sample) + QStringLiteral("\n"));
}

int PredictionsPanel::shownEpoch() const {
    const int i = m_epochPicker->currentIndex();
    return i < 0 ? 0 : static_cast<int>(m_epochs[static_cast<std::size_t>(i)].epoch);
}

void PredictionsPanel::showEpoch(int epoch) {
    for (std::size_t i = 0; i < m_epochs.size(); ++i)
        if (m_epochs[i].epoch == epoch) {
            m_epochPicker->setCurrentIndex(static_cast<int>(i));
            m_followNewest = i + 1 == m_epochs.size();
            show(m_epochs[i]);
        }
}

void PredictionsPanel::show(const EpochEvent& epoch) {
    const ValidationReport& r = epoch.validation;
    if (r.detection) {
        if (!showsDetector()) {
            m_pages->setCurrentIndex(2);
            m_detection->gallery()->setCheckpoint(m_checkpoint);
        }
        m_detection->setReport(*r.detection);
        m_summary->setText(DetectionPage::summaryOf(*r.detection));
        return;
    }
    if (r.segmentation) {
        if (!showsSegmentation()) {
            m_pages->setCurrentIndex(3);
            if (!m_checkpoint.isEmpty())
                m_segmentation->gallery()->setCheckpoint(m_checkpoint, newestWorstImages());
        }
        m_segmentation->setReport(*r.segmentation);
        m_summary->setText(SegmentationPage::summaryOf(*r.segmentation, epoch.valLoss));
        return;
    }
    m_confusion->setReport(r);
    int64_t total = 0, correct = 0;
    for (int t = 0; t < r.classes; ++t)
        for (int p = 0; p < r.classes; ++p) {
            total += r.count(t, p);
            correct += t == p ? r.count(t, p) : 0;
        }
    // The class recalled worst: where to look first.
    int worst = 0;
    for (int c = 1; c < r.classes; ++c)
        if (m_confusion->recall(c) < m_confusion->recall(worst))
            worst = c;
    QString summary = tr("%1 of %2 validation samples right (%3%)")
                          .arg(correct)
                          .arg(total)
                          .arg(total ? 100.0 * double(correct) / double(total) : 0.0, 0, 'f', 1);
    if (correct < total)
        summary += tr("; recalled worst: %1 (%2%)")
                       .arg(m_confusion->className(worst))
                       .arg(100.0 * m_confusion->recall(worst), 0, 'f', 1);
    m_summary->setText(summary);
    m_misses->clear();
    bool withoutPixels = false;
    for (const MisclassifiedSample& s : r.misclassified) {
        const QImage image = sampleImage(s.shape, s.pixels);
        withoutPixels = withoutPixels || image.isNull();
        auto* item = new QListWidgetItem(
            tr("%1\nas %2 (%3%)")
                .arg(m_confusion->className(s.label), m_confusion->className(s.predicted))
                .arg(100.0 * s.confidence, 0, 'f', 0),
            m_misses);
        if (!image.isNull())
            item->setIcon(QPixmap::fromImage(
                image.scaled(kThumbnail, kThumbnail, Qt::KeepAspectRatio, Qt::FastTransformation)));
        item->setToolTip(
            tr("validation sample %1: a %2 the model took for a %3, %4% sure")
                .arg(s.index)
                .arg(m_confusion->className(s.label), m_confusion->className(s.predicted))
                .arg(100.0 * s.confidence, 0, 'f', 1));
        item->setData(Qt::UserRole, static_cast<qlonglong>(s.index));
    }
    m_missesNote->setVisible(withoutPixels || r.misclassified.empty());
    m_missesNote->setText(
        r.misclassified.empty() ? tr("None: every validation sample was classified right.")
        : withoutPixels
            ? tr("The first %1 misses, by validation index: the run store keeps which samples "
                 "were missed, not their pixels (those are shown while a run trains).")
                  .arg(r.misclassified.size())
            : QString());
}

} // namespace tb::ui
