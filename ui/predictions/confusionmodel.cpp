// ConfusionModel: the cell colours mix the palette's base towards its highlight by the cell's
// share of its row, so they follow a light or a dark theme.
#include "predictions/confusionmodel.h"

#include <QHeaderView>
#include <QTableView>

#include "charts/chartstyle.h"

#include <QApplication>
#include <QColor>
#include <QPalette>

#include <cmath>
#include <limits>

namespace tb::ui {

QTableView* makeConfusionView(ConfusionModel* model, const QString& objectName,
                              const QString& accessibleName, QWidget* parent) {
    auto* view = new QTableView(parent);
    view->setObjectName(objectName);
    view->setAccessibleName(accessibleName);
    view->setModel(model);
    view->setSelectionMode(QAbstractItemView::NoSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    view->horizontalHeader()->setMinimumSectionSize(30);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    view->verticalHeader()->setMinimumSectionSize(16);
    QObject::connect(model, &QAbstractItemModel::modelReset, view, [model, view] {
        if (model->columnCount() > 0)
            view->horizontalHeader()->setSectionResizeMode(model->recallColumn(),
                                                           QHeaderView::ResizeToContents);
    });
    return view;
}

ConfusionModel::ConfusionModel(QObject* parent) : QAbstractTableModel(parent) {}

void ConfusionModel::setReport(const ValidationReport& report) {
    beginResetModel();
    m_report = report;
    m_report.misclassified.clear(); // the grid's; not needed here
    m_background = false;
    endResetModel();
}

void ConfusionModel::setDetectionReport(const DetectionReport& report) {
    beginResetModel();
    m_report = {};
    const std::size_t n = report.classNames.size() + 1;
    if (report.confusion.size() == n * n) { // stored before the matrix was kept: none
        m_report.classNames = report.classNames;
        m_report.classNames.push_back(tr("background").toStdString());
        m_report.classes = static_cast<int>(n);
        m_report.confusion = report.confusion;
    }
    m_background = true;
    endResetModel();
}

int64_t ConfusionModel::rowTotal(int label) const {
    int64_t total = 0;
    for (int p = 0; p < m_report.classes; ++p)
        total += m_report.count(label, p);
    return total;
}

double ConfusionModel::recall(int label) const {
    const int64_t total = rowTotal(label);
    if (isBackground(label))
        return std::numeric_limits<double>::quiet_NaN();
    return total ? static_cast<double>(m_report.count(label, label)) / static_cast<double>(total)
                 : std::numeric_limits<double>::quiet_NaN();
}

QString ConfusionModel::className(int c) const {
    const auto i = static_cast<std::size_t>(c);
    return i < m_report.classNames.size() && !m_report.classNames[i].empty()
               ? QString::fromStdString(m_report.classNames[i])
               : tr("class %1").arg(c);
}

int ConfusionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_report.classes;
}

int ConfusionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || m_report.classes == 0 ? 0 : m_report.classes + 1;
}

QVariant ConfusionModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const int label = index.row();
    if (index.column() == recallColumn()) {
        const double r = recall(label);
        if (role == Qt::DisplayRole)
            return std::isnan(r) ? QStringLiteral("-") : QString::number(100.0 * r, 'f', 1) + '%';
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::ToolTipRole)
            return isBackground(label) ? tr("The background has no objects to recall")
                   : m_background
                       ? tr("Recall of %1: the share of its boxes found as %1 (confidence above "
                            "0.25, IoU above 0.45)")
                             .arg(className(label))
                       : tr("Recall of %1: the share of its validation samples predicted as %1")
                             .arg(className(label));
        if (role == Qt::UserRole)
            return r;
        return {};
    }
    const int predicted = index.column();
    const int64_t n = m_report.count(label, predicted);
    const int64_t total = rowTotal(label);
    const double share = total ? static_cast<double>(n) / static_cast<double>(total) : 0.0;
    switch (role) {
    case Qt::DisplayRole:
        return QString::number(n);
    case Qt::UserRole:
        return static_cast<qlonglong>(n);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignCenter);
    case Qt::BackgroundRole: {
        const QPalette palette = QApplication::palette();
        const QColor hot = label == predicted ? palette.color(QPalette::Highlight)
                                              : QColor(0xd1, 0x34, 0x38); // the error red
        return mixColors(palette.color(QPalette::Base), hot, std::sqrt(share));
    }
    case Qt::ForegroundRole: {
        const QPalette palette = QApplication::palette();
        return std::sqrt(share) > 0.55 ? palette.color(QPalette::HighlightedText)
                                       : palette.color(QPalette::Text);
    }
    case Qt::ToolTipRole:
        if (isBackground(label))
            return tr("False positives: %1 detections of %2 where there was no object")
                .arg(n)
                .arg(className(predicted));
        if (isBackground(predicted))
            return tr("Missed: %1 of %2 %3 boxes found by no detection (%4%)")
                .arg(n)
                .arg(total)
                .arg(className(label))
                .arg(100.0 * share, 0, 'f', 1);
        return tr("%1 predicted as %2: %3 of %4 (%5%)")
            .arg(className(label), className(predicted))
            .arg(n)
            .arg(total)
            .arg(100.0 * share, 0, 'f', 1);
    default:
        return {};
    }
}

QVariant ConfusionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role == Qt::ToolTipRole)
        return orientation == Qt::Vertical ? tr("true class: %1").arg(className(section))
               : section == recallColumn() ? tr("recall")
                                           : tr("predicted: %1").arg(className(section));
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return className(section);
    // Predicted classes by number: the rows name them, and ten names do not fit across.
    return section == recallColumn() ? tr("Recall")
           : isBackground(section)   ? tr("bg")
                                     : QString::number(section);
}

} // namespace tb::ui
