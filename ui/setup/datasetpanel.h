// DatasetPanel: the dataset picker (the built-ins, or "Open..." for an IDX pair, CIFAR batches,
// an ImageFolder or a CSV), with what the chosen set holds: sample count, shape, classes and a
// grid of samples. Opening runs off the UI thread; a bad file shows its DatasetError here.
#pragma once

#include "core/shape.h"
#include "data/dataconfig.h"

#include <QFutureWatcher>
#include <QImage>
#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace tb::ui {

class WrappingLabel;

// What opening a dataset found, or why it could not be opened.
struct DatasetFacts {
    bool ok = false;
    QString error;        // the DatasetError / ConfigError text when !ok
    QString errorSubject; // the file or key it names
    int64_t trainSamples = 0;
    int64_t validationSamples = 0;
    Shape sampleShape;
    int numClasses = 0;
    QStringList classNames;
    QImage grid; // a few samples side by side; null for non-image data
    // A detection set's: its boxes counted (per image, per class, COCO's sizes), and the same
    // samples as the first epoch's augmentation draws them (mosaic, affine, HSV, flip); a
    // segmentation set's: each class's share of the pixels and the images holding it, and the
    // samples with their masks as the first epoch draws them (scale, crop, flip).
    QString boxes;
    QImage augmentedGrid;
    QString augmentations; // what that draw does, for its check box: "mosaic, scale, flip, colour"
    // Text: tokens, not classes; an excerpt of the training text as the samples.
    bool text = false;
    QString excerpt;
};

class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    explicit DatasetPanel(QWidget* parent = nullptr);

    // Shows `data` and opens it in the background.
    void setDataConfig(const DataConfig& config);
    DataConfig dataConfig() const { return m_data; }
    const DatasetFacts& facts() const { return m_facts; }
    bool loading() const { return m_watcher.isRunning(); }
    // "Open Dataset Folder..." and "Open CSV Dataset...": the button's menu and the window's
    // File menu share them.
    QList<QAction*> openActions() const { return {m_openFolder, m_openCsv}; }

signals:
    void dataConfigEdited(); // the user picked another set or location
    void factsChanged();     // a (re)open finished, successfully or not

private:
    void openChosenPath();
    void reload();
    void showFacts();

    DataConfig m_data;
    DatasetFacts m_facts;
    QFutureWatcher<DatasetFacts> m_watcher;
    int m_generation = 0;
    QComboBox* m_picker;
    QLineEdit* m_root;
    WrappingLabel* m_summary;
    WrappingLabel* m_classes;
    QLabel* m_samples;
    WrappingLabel* m_boxes;
    QCheckBox* m_augmented; // a detection set's grid as training draws it
    WrappingLabel* m_error;
    QAction* m_openFolder;
    QAction* m_openCsv;
};

// The dataset kind of a file or folder a user opened: csv for a file, cifar10 / cifar100 for
// CIFAR binary batches, fashion-mnist / mnist for IDX files, imagefolder otherwise.
std::string guessDatasetKind(const QString& path);

} // namespace tb::ui
