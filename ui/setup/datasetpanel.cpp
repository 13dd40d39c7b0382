// DatasetPanel: opens the set with the engine's own readers (openDatasets), so what the panel
// shows is exactly what training will read.
#include "datasetpanel.h"

#include "predictions/boxpainter.h"
#include "predictions/maskpainter.h"
#include "status/wrappinglabel.h"

#include "core/errors.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/detectiondataset.h"
#include "data/detectioninfo.h"
#include "data/rawsplits.h"
#include "data/segmentationdataset.h"
#include "data/segmentationinfo.h"
#include "data/textdataset.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <functional>

namespace tb::ui {

namespace {

constexpr int kGridSamples = 16;
constexpr int kGridColumns = 8;
constexpr int kCellPixels = 40;

// Sample i as an image, each channel stretched to its own min..max (samples are normalised).
QImage sampleImage(const Dataset& set, int64_t index) {
    const Shape shape = set.sampleShape();
    const int channels = static_cast<int>(shape[0]);
    const int h = static_cast<int>(shape[1]), w = static_cast<int>(shape[2]);
    std::vector<float> pixels(static_cast<std::size_t>(shape.numel()));
    set.get(index, pixels.data(), 0);
    QImage image(w, h, QImage::Format_RGB32);
    const std::size_t plane = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> lo(static_cast<std::size_t>(channels)), hi(lo.size());
    for (int c = 0; c < channels; ++c) {
        const auto begin = pixels.begin() + static_cast<std::ptrdiff_t>(plane * c);
        const auto [mn, mx] =
            std::minmax_element(begin, begin + static_cast<std::ptrdiff_t>(plane));
        lo[static_cast<std::size_t>(c)] = *mn;
        hi[static_cast<std::size_t>(c)] = std::max(*mx, *mn + 1e-6f);
    }
    const auto level = [&](int c, std::size_t i) {
        const auto cc = static_cast<std::size_t>(c);
        return static_cast<int>(255.0f * (pixels[plane * cc + i] - lo[cc]) / (hi[cc] - lo[cc]));
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) +
                                  static_cast<std::size_t>(x);
            const int r = level(0, i);
            const int g = channels >= 3 ? level(1, i) : r;
            const int b = channels >= 3 ? level(2, i) : r;
            image.setPixel(x, y, qRgb(r, g, b));
        }
    return image;
}

QImage sampleGrid(const Dataset& set) {
    const Shape shape = set.sampleShape();
    if (shape.rank() != 3 || (shape[0] != 1 && shape[0] != 3) || set.size() == 0)
        return {};
    const int count = static_cast<int>(std::min<int64_t>(kGridSamples, set.size()));
    const int rows = (count + kGridColumns - 1) / kGridColumns;
    QImage grid(kGridColumns * kCellPixels, rows * kCellPixels, QImage::Format_RGB32);
    grid.fill(Qt::black);
    QPainter painter(&grid);
    for (int i = 0; i < count; ++i) {
        const int64_t index = set.size() * i / count; // spread over the set, deterministic
        const QImage image = sampleImage(set, index)
                                 .scaled(kCellPixels - 2, kCellPixels - 2, Qt::KeepAspectRatio,
                                         Qt::FastTransformation);
        painter.drawImage((i % kGridColumns) * kCellPixels + 1,
                          (i / kGridColumns) * kCellPixels + 1, image);
    }
    return grid;
}

// A labelled set's first images (at most 8) drawn by tile(index, side), four to a row and each
// centred in its cell.
QImage labelledGrid(int64_t size, const std::function<QImage(int, int)>& tile) {
    constexpr int kColumns = 4, kCell = kGridColumns * kCellPixels / kColumns, kImages = 8;
    const int count = static_cast<int>(std::min<int64_t>(kImages, size));
    if (count == 0)
        return {};
    const int rows = (count + kColumns - 1) / kColumns;
    QImage grid(kColumns * kCell, rows * kCell, QImage::Format_RGB32);
    grid.fill(Qt::black);
    QPainter painter(&grid);
    for (int i = 0; i < count; ++i) {
        const QImage drawn = tile(i, kCell - 2);
        painter.drawImage((i % kColumns) * kCell + 1 + (kCell - 2 - drawn.width()) / 2,
                          (i / kColumns) * kCell + 1 + (kCell - 2 - drawn.height()) / 2, drawn);
    }
    return grid;
}

// A detection set's first images, boxes drawn and named: as they are (not letterboxed), or as
// the first epoch of a run with the default seed draws them (as dataset-info --augmented).
QImage detectionGrid(const DetectionDataset& set, bool augmented) {
    return labelledGrid(set.size(), [&](int i, int side) {
        const LabeledImage sample = augmented ? firstEpochSample(set, i, 0) : set.source().load(i);
        return paintLabels(sample.image, sample.boxes, set.classNames(), side);
    });
}

// A segmentation set's first images with their masks laid over, as the model sees them
// (resized to the input) or as the first epoch of a run with the default seed draws them.
QImage segmentationGrid(const SegmentationDataset& set, bool augmented) {
    return labelledGrid(set.size(), [&](int i, int side) {
        const SegmentedImage sample =
            set.segmentedSample(i, augmented ? sampleSeed(epochSeed(0, 0), i) : 0);
        return paintMask(sample.image, &sample.mask, 0.55f, side);
    });
}

// "Pixels: background 90.1%, circle 3.2%, ...; 5.5% ignored (object borders). Images with
// each class: circle 1,120, ..."
QString pixelSummary(const SegmentationSplitStats& st, const std::vector<std::string>& names) {
    const double counted = std::max<double>(1.0, double(st.pixels));
    QStringList shares, images;
    for (std::size_t c = 0; c < names.size() && c < st.pixelsPerClass.size(); ++c) {
        shares << QStringLiteral("%1 %2%")
                      .arg(QString::fromStdString(names[c]))
                      .arg(100.0 * double(st.pixelsPerClass[c]) / counted, 0, 'f', 1);
        images << QStringLiteral("%1 %L2")
                      .arg(QString::fromStdString(names[c]))
                      .arg(st.imagesPerClass[c]);
    }
    const double all = std::max<double>(1.0, double(st.pixels + st.ignored));
    return QStringLiteral("Pixels of the %L1 training images: %2; %3% ignored (255: object "
                          "borders). Images holding each class: %4")
        .arg(st.images)
        .arg(shares.join(QStringLiteral(", ")))
        .arg(100.0 * double(st.ignored) / all, 0, 'f', 1)
        .arg(images.join(QStringLiteral(", ")));
}

// "1,234 boxes in 640 images (1 to 8 an image, 1.9 on average, 12 without any); COCO's sizes at
// 96 px: 40% small, 52% medium, 8% large; circle 250, square 260, ..."
QString boxSummary(const DetectionSplitStats& st, const std::vector<std::string>& names,
                   int inputSize) {
    const double sized = std::max<double>(1.0, double(st.small + st.medium + st.large));
    QString text = QStringLiteral("%L1 boxes in %L2 training images (up to %3 an image, %4 on "
                                  "average, %L5 without any); COCO's sizes at %6 px: %7% small, "
                                  "%8% medium, %9% large; ")
                       .arg(st.boxes)
                       .arg(st.images)
                       .arg(st.mostBoxes)
                       .arg(double(st.boxes) / std::max<double>(1.0, double(st.images)), 0, 'f', 1)
                       .arg(st.background)
                       .arg(inputSize)
                       .arg(100.0 * double(st.small) / sized, 0, 'f', 0)
                       .arg(100.0 * double(st.medium) / sized, 0, 'f', 0)
                       .arg(100.0 * double(st.large) / sized, 0, 'f', 0);
    QStringList perClass;
    for (std::size_t c = 0; c < names.size() && c < st.boxesPerClass.size(); ++c)
        perClass << QStringLiteral("%1 %L2")
                        .arg(QString::fromStdString(names[c]))
                        .arg(st.boxesPerClass[c]);
    return text + perClass.join(QStringLiteral(", "));
}

DatasetFacts openFacts(DataConfig data) {
    DatasetFacts f;
    try {
        const DatasetSplits splits = openDatasets(data, 0);
        f.trainSamples = splits.train->size();
        f.validationSamples = splits.validation->size();
        f.sampleShape = splits.train->sampleShape();
        f.numClasses = splits.train->numClasses();
        for (const std::string& n : splits.train->classNames())
            f.classNames << QString::fromStdString(n);
        if (const auto* text = dynamic_cast<const TextDataset*>(splits.validation.get())) {
            f.text = true;
            // Control characters (fortune's backspaces) as escapes, since they draw as boxes,
            // and the space as the open box the list would lose it without.
            for (QString& name : f.classNames)
                if (name == QStringLiteral(" "))
                    name = QStringLiteral("\u2423");
                else if (name.size() == 1 && name[0].unicode() < 0x20)
                    name = name == QStringLiteral("\n") ? QStringLiteral("\\n")
                           : name == QStringLiteral("\t")
                               ? QStringLiteral("\\t")
                               : QStringLiteral("\\x%1").arg(name[0].unicode(), 2, 16,
                                                             QLatin1Char('0'));
            std::vector<float> window(static_cast<std::size_t>(text->sampleShape().numel()));
            std::vector<int32_t> next(window.size());
            text->sample(0, window.data(), next.data(), 0);
            std::vector<int32_t> ids(window.begin(), window.end());
            f.excerpt = QString::fromStdString(
                decodeTokens(text->corpus().tokens, text->corpus().byteLevel, ids));
        }
        const auto* detection = dynamic_cast<const DetectionDataset*>(splits.train.get());
        f.grid = detection ? detectionGrid(*detection, false) : sampleGrid(*splits.train);
        if (isSegmentationDataset(data.name)) {
            // The raw split: the normalised one's samples are no longer 8-bit pixels.
            const RawSplits raw = openRawSplits(data, 0);
            const auto& set = dynamic_cast<const SegmentationDataset&>(*raw.train);
            f.grid = segmentationGrid(set, false);
            if (set.augmented())
                f.augmentedGrid = segmentationGrid(set, true);
            f.augmentations = QStringLiteral("scale, crop, flip");
            f.boxes = pixelSummary(segmentationStats(set.source()), set.classNames());
        }
        if (detection) {
            f.augmentedGrid = detectionGrid(*detection, true);
            f.augmentations = QStringLiteral("mosaic, scale, flip, colour");
            f.boxes = boxSummary(detectionStats(detection->source(), detection->imageSize()),
                                 detection->classNames(), detection->imageSize());
        }
        f.ok = true;
    } catch (const DatasetError& e) {
        f.error = QString::fromStdString(e.what());
        f.errorSubject = QString::fromStdString(e.file());
    } catch (const ConfigError& e) {
        f.error = QString::fromStdString(e.what());
        f.errorSubject = QString::fromStdString(e.field());
    } catch (const std::exception& e) {
        f.error = QString::fromStdString(e.what());
    }
    return f;
}

} // namespace

std::string guessDatasetKind(const QString& path) {
    const QFileInfo info(path);
    if (!info.isDir())
        return "csv";
    const QDir dir(path);
    if (!dir.entryList({"data_batch_1.bin"}, QDir::Files).isEmpty())
        return "cifar10";
    if (!dir.entryList({"train.bin"}, QDir::Files).isEmpty())
        return "cifar100";
    if (!dir.entryList({"*idx3-ubyte*"}, QDir::Files).isEmpty())
        return path.contains(QLatin1String("fashion"), Qt::CaseInsensitive) ? "fashion-mnist"
                                                                            : "mnist";
    return "imagefolder";
}

DatasetPanel::DatasetPanel(QWidget* parent)
    : QWidget(parent), m_picker(new QComboBox(this)), m_root(new QLineEdit(this)),
      m_summary(new WrappingLabel(this)), m_classes(new WrappingLabel(this)),
      m_samples(new QLabel(this)), m_boxes(new WrappingLabel(this)),
      m_augmented(new QCheckBox(this)), m_error(new WrappingLabel(this)) {
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setMinimumContentsLength(16); // spec paths can be long
    m_picker->setObjectName(QStringLiteral("dataset"));
    m_picker->setAccessibleName(QStringLiteral("dataset"));
    for (const std::string& name : datasetNames())
        m_picker->addItem(QString::fromStdString(name));
    m_root->setObjectName(QStringLiteral("data.root"));
    m_root->setAccessibleName(QStringLiteral("data.root"));
    m_root->setAccessibleDescription(tr("Where the dataset's files are"));
    m_root->setPlaceholderText(tr("the dataset's default location"));
    auto* open = new QPushButton(tr("Open..."), this);
    open->setObjectName(QStringLiteral("dataset-open"));
    open->setToolTip(tr("A folder of IDX files, CIFAR batches or class subfolders, or a CSV file"));
    auto* menu = new QMenu(open);
    m_openFolder = menu->addAction(tr("Open Dataset &Folder..."), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a dataset folder"));
        if (!dir.isEmpty()) {
            m_root->setText(dir);
            openChosenPath();
        }
    });
    m_openFolder->setToolTip(tr("A folder of IDX files, CIFAR batches or class subfolders"));
    m_openCsv = menu->addAction(tr("Open &CSV Dataset..."), this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open a CSV dataset"), {},
                                                          tr("CSV files (*.csv);;All files (*)"));
        if (!file.isEmpty()) {
            m_root->setText(file);
            openChosenPath();
        }
    });
    open->setMenu(menu);

    m_summary->setObjectName(QStringLiteral("dataset-summary"));
    m_classes->setObjectName(QStringLiteral("dataset-classes"));
    m_samples->setObjectName(QStringLiteral("dataset-samples"));
    m_samples->setMinimumHeight(2 * kCellPixels);
    m_boxes->setObjectName(QStringLiteral("dataset-boxes"));
    m_boxes->hide();
    m_augmented->setObjectName(QStringLiteral("dataset-augmented"));
    m_augmented->setToolTip(tr("The same images after the first epoch's augmentation, their "
                               "boxes or masks moved with them"));
    m_augmented->hide();
    connect(m_augmented, &QCheckBox::toggled, this, [this](bool on) {
        m_samples->setPixmap(QPixmap::fromImage(on ? m_facts.augmentedGrid : m_facts.grid));
    });
    m_error->setObjectName(QStringLiteral("dataset-error"));
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #d13438;"));
    m_error->hide();

    auto* rootRow = new QHBoxLayout;
    rootRow->addWidget(m_root, 1);
    rootRow->addWidget(open);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(QStringLiteral("dataset"), m_picker);
    form->addRow(QStringLiteral("data.root"), rootRow);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(m_classes);
    layout->addWidget(m_boxes);
    layout->addWidget(m_samples);
    layout->addWidget(m_augmented);
    layout->addWidget(m_error);

    connect(m_picker, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        m_data.name = name.toStdString();
        m_data.root.clear();
        m_root->clear();
        reload();
        emit dataConfigEdited();
    });
    connect(m_root, &QLineEdit::editingFinished, this, [this] {
        if (m_root->text().toStdString() == m_data.root)
            return;
        m_data.root = m_root->text().trimmed().toStdString();
        reload();
        emit dataConfigEdited();
    });
    connect(&m_watcher, &QFutureWatcher<DatasetFacts>::finished, this, [this] {
        if (m_watcher.property("generation").toInt() != m_generation)
            return; // a newer choice is loading
        m_facts = m_watcher.result();
        showFacts();
        emit factsChanged();
    });
}

void DatasetPanel::openChosenPath() {
    const QString path = m_root->text().trimmed();
    const std::string kind = guessDatasetKind(path);
    m_data.root = path.toStdString();
    {
        QSignalBlocker block(m_picker);
        m_picker->setCurrentText(QString::fromStdString(kind));
    }
    m_data.name = kind;
    reload();
    emit dataConfigEdited();
}

void DatasetPanel::setDataConfig(const DataConfig& config) {
    m_data = config;
    {
        QSignalBlocker block(m_picker);
        m_picker->setCurrentText(QString::fromStdString(config.name));
    }
    m_root->setText(QString::fromStdString(config.root));
    reload();
}

void DatasetPanel::reload() {
    m_summary->setWrappedText(tr("Opening %1...").arg(QString::fromStdString(m_data.name)));
    m_error->hide();
    const int generation = ++m_generation;
    m_watcher.setProperty("generation", generation);
    m_watcher.setFuture(QtConcurrent::run(openFacts, m_data));
}

void DatasetPanel::showFacts() {
    m_error->setVisible(!m_facts.ok);
    m_samples->setVisible(m_facts.ok && !m_facts.grid.isNull());
    m_classes->setVisible(m_facts.ok);
    m_boxes->setVisible(m_facts.ok && !m_facts.boxes.isEmpty());
    m_boxes->setWrappedText(m_facts.boxes);
    m_augmented->setVisible(m_facts.ok && !m_facts.augmentedGrid.isNull());
    m_augmented->setText(tr("As training draws them (%1)").arg(m_facts.augmentations));
    if (!m_facts.ok) {
        m_summary->setWrappedText(tr("Cannot open this dataset:"));
        m_error->setWrappedText(m_facts.error);
        return;
    }
    if (m_facts.text) {
        m_summary->setWrappedText(
            tr("%L1 training and %L2 validation windows of %3 tokens, a vocabulary of %4. "
               "It reads: \u201c%5\u201d")
                .arg(m_facts.trainSamples)
                .arg(m_facts.validationSamples)
                .arg(m_facts.sampleShape.numel())
                .arg(m_facts.numClasses)
                .arg(m_facts.excerpt.simplified()));
        m_classes->setWrappedText(
            tr("Vocabulary: %1").arg(m_facts.classNames.join(QStringLiteral(" "))));
    } else {
        m_summary->setWrappedText(
            tr("%L1 training and %L2 validation samples of shape %3, %4 classes")
                .arg(m_facts.trainSamples)
                .arg(m_facts.validationSamples)
                .arg(QString::fromStdString(m_facts.sampleShape.toString()))
                .arg(m_facts.numClasses));
        m_classes->setWrappedText(
            tr("Classes: %1").arg(m_facts.classNames.join(QStringLiteral(", "))));
    }
    const bool augmented = m_augmented->isChecked() && !m_facts.augmentedGrid.isNull();
    m_samples->setPixmap(QPixmap::fromImage(augmented ? m_facts.augmentedGrid : m_facts.grid));
}

} // namespace tb::ui
