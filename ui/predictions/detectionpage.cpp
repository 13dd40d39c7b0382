// DetectionPage: the table's first row is "all" (the means COCO and Ultralytics report); the
// matrix's counts are Ultralytics' (confidence above 0.25, IoU above 0.45).
#include "predictions/detectionpage.h"

#include "charts/prcurvechart.h"
#include "predictions/classtable.h"
#include "predictions/confusionmodel.h"
#include "predictions/detectiongallery.h"

#include <QGroupBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

QTableWidgetItem* number(double v, int decimals) {
    return figureItem(QString::number(v, 'f', decimals));
}

QTableWidgetItem* count(int64_t v) {
    return figureItem(QString::number(v));
}

} // namespace

DetectionPage::DetectionPage(QWidget* parent)
    : QWidget(parent),
      m_classes(makeClassTable(
          QStringLiteral("detection-classes"),
          {tr("Class"), tr("Instances"), tr("P"), tr("R"), tr("mAP50"), tr("mAP50-95")},
          {{2, tr("Precision where the IoU-0.5 curve's F1 is best")},
           {3, tr("Recall where the IoU-0.5 curve's F1 is best")},
           {5, tr("AP averaged over IoU thresholds 0.50, 0.55, ..., 0.95 (COCO's headline "
                  "figure)")}},
          this)),
      m_curves(new PrCurveChart(this)), m_confusion(new ConfusionModel(this)),
      m_matrix(makeConfusionView(m_confusion, QStringLiteral("detection-confusion"),
                                 tr("Detection confusion matrix"), this)),
      m_gallery(new DetectionGallery(this)) {
    setObjectName(QStringLiteral("detection-page"));
    connect(m_classes, &QTableWidget::currentCellChanged, this,
            [this](int row) { m_curves->highlightClass(row - 1); }); // row 0 is "all"

    // Two rows of two: the figures over the matrix and the images, so that each keeps about
    // half the tab's width, which a 1280 px window leaves for it.
    auto* figures = new QSplitter(Qt::Horizontal);
    figures->addWidget(boxed(tr("Per class"), m_classes));
    figures->addWidget(m_curves);
    figures->setChildrenCollapsible(false);
    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(
        boxed(tr("Confusion matrix (rows: true class, columns: predicted)"), m_matrix));
    lower->addWidget(boxed(tr("Validation images and Try it"), m_gallery));
    lower->setStretchFactor(0, 2);
    lower->setStretchFactor(1, 3);
    lower->setChildrenCollapsible(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(figures);
    split->addWidget(lower);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
}

QString DetectionPage::summaryOf(const DetectionReport& r) {
    return tr("mAP50-95 %1, mAP50 %2, precision %3, recall %4 on %5 validation images (%6 "
              "boxes); validation loss: box %7, cls %8, dfl %9")
        .arg(r.map5095, 0, 'f', 3)
        .arg(r.map50, 0, 'f', 3)
        .arg(r.precision, 0, 'f', 3)
        .arg(r.recall, 0, 'f', 3)
        .arg(r.images)
        .arg(r.instances)
        .arg(r.boxLoss, 0, 'f', 3)
        .arg(r.clsLoss, 0, 'f', 3)
        .arg(r.dflLoss, 0, 'f', 3);
}

void DetectionPage::setReport(const DetectionReport& r) {
    m_classes->setRowCount(static_cast<int>(r.classes.size()) + 1);
    m_classes->setItem(0, 0, new QTableWidgetItem(tr("all")));
    m_classes->setItem(0, 1, count(r.instances));
    m_classes->setItem(0, 2, number(r.precision, 3));
    m_classes->setItem(0, 3, number(r.recall, 3));
    m_classes->setItem(0, 4, number(r.map50, 3));
    m_classes->setItem(0, 5, number(r.map5095, 3));
    QFont bold = m_classes->font();
    bold.setBold(true);
    for (int c = 0; c < 6; ++c)
        m_classes->item(0, c)->setFont(bold);
    for (std::size_t i = 0; i < r.classes.size(); ++i) {
        const DetectionClassResult& c = r.classes[i];
        const int row = static_cast<int>(i) + 1;
        m_classes->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(c.name)));
        m_classes->setItem(row, 1, count(c.instances));
        m_classes->setItem(row, 2, number(c.precision, 3));
        m_classes->setItem(row, 3, number(c.recall, 3));
        m_classes->setItem(row, 4, number(c.ap50, 3));
        m_classes->setItem(row, 5, number(c.ap5095, 3));
    }
    m_curves->setReport(r);
    m_confusion->setDetectionReport(r);
}

void DetectionPage::clear() {
    m_classes->setRowCount(0);
    m_curves->setReport({});
    m_confusion->setReport({});
}

} // namespace tb::ui
