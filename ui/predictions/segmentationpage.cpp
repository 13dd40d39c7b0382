// SegmentationPage: a class without pixels in the split has no IoU ("-"), as the report's NaN;
// the matrix counts pixels, so its recall column is each class's pixel accuracy.
#include "predictions/segmentationpage.h"

#include "predictions/classtable.h"
#include "predictions/confusionmodel.h"
#include "predictions/segmentationgallery.h"

#include <QGroupBox>
#include <QLocale>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace tb::ui {

namespace {

QTableWidgetItem* score(double v) {
    return figureItem(std::isnan(v) ? QStringLiteral("-") : QString::number(v, 'f', 3));
}

QTableWidgetItem* pixels(int64_t v) {
    return figureItem(QLocale().toString(static_cast<qlonglong>(v)));
}

} // namespace

SegmentationPage::SegmentationPage(QWidget* parent)
    : QWidget(parent),
      m_classes(makeClassTable(
          QStringLiteral("segmentation-classes"),
          {tr("Class"), tr("IoU"), tr("Accuracy"), tr("Pixels")},
          {{1, tr("Intersection over union: pixels right / (labelled + predicted - right)")},
           {2, tr("The class's labelled pixels predicted as it (its recall)")},
           {3, tr("Validation pixels labelled with the class (ignored ones left out)")}},
          this)),
      m_confusion(new ConfusionModel(this)),
      m_matrix(makeConfusionView(m_confusion, QStringLiteral("segmentation-confusion"),
                                 tr("Confusion matrix over pixels"), this)),
      m_gallery(new SegmentationGallery(this)) {
    setObjectName(QStringLiteral("segmentation-page"));

    // The figures over the images: each half of the tab's height.
    auto* figures = new QSplitter(Qt::Horizontal);
    figures->addWidget(boxed(tr("Per class"), m_classes));
    figures->addWidget(
        boxed(tr("Confusion matrix over pixels (rows: true class, columns: predicted)"), m_matrix));
    figures->setStretchFactor(0, 2);
    figures->setStretchFactor(1, 3);
    figures->setChildrenCollapsible(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(figures);
    split->addWidget(boxed(tr("Validation images, worst first, and Try it"), m_gallery));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
}

QString SegmentationPage::summaryOf(const SegmentationReport& r, double valLoss) {
    return tr("mean IoU %1, pixel accuracy %2% on %3 validation images (%4 pixels counted); "
              "validation loss %5")
        .arg(r.meanIoU, 0, 'f', 3)
        .arg(100.0 * r.pixelAccuracy, 0, 'f', 1)
        .arg(r.images)
        .arg(QLocale().toString(static_cast<qlonglong>(r.pixels)))
        .arg(valLoss, 0, 'f', 4);
}

void SegmentationPage::setReport(const SegmentationReport& r) {
    const auto classes = static_cast<int>(r.classNames.size());
    m_classes->setRowCount(classes + 1);
    m_classes->setItem(0, 0, new QTableWidgetItem(tr("all")));
    m_classes->setItem(0, 1, score(r.meanIoU));
    m_classes->setItem(0, 2, score(r.pixelAccuracy));
    m_classes->setItem(0, 3, pixels(r.pixels));
    QFont bold = m_classes->font();
    bold.setBold(true);
    for (int c = 0; c < 4; ++c)
        m_classes->item(0, c)->setFont(bold);
    m_classes->item(0, 1)->setToolTip(tr("Mean IoU over the classes that have one"));
    m_classes->item(0, 2)->setToolTip(tr("Pixel accuracy: counted pixels predicted right"));
    for (int c = 0; c < classes; ++c) {
        const auto i = static_cast<std::size_t>(c);
        int64_t labelled = 0;
        for (int p = 0; p < classes; ++p)
            labelled += r.confusion[i * r.classNames.size() + static_cast<std::size_t>(p)];
        m_classes->setItem(c + 1, 0, new QTableWidgetItem(QString::fromStdString(r.classNames[i])));
        m_classes->setItem(c + 1, 1, score(r.iou[i]));
        m_classes->setItem(c + 1, 2, score(r.classAccuracy[i]));
        m_classes->setItem(c + 1, 3, pixels(labelled));
    }
    ValidationReport matrix;
    matrix.classes = classes;
    matrix.classNames = r.classNames;
    matrix.confusion = r.confusion;
    m_confusion->setReport(matrix);
}

void SegmentationPage::clear() {
    m_classes->setRowCount(0);
    m_confusion->setReport({});
}

} // namespace tb::ui
