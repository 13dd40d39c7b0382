// RunsTableModel: display text and sort keys per column, and the merge of a new listing.
#include "runs/runstablemodel.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "data/dataconfig.h"

#include <QColor>
#include <QDateTime>
#include <QHash>

#include <cmath>
#include <unordered_map>

namespace tb::ui {

namespace {

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

QString configValue(const RunRecord& r, const char* key) {
    const auto it = r.config.find(key);
    if (it == r.config.end())
        return {};
    return it->is_string() ? text(it->get<std::string>()) : text(it->dump());
}

bool sameRow(const RunRecord& a, const RunRecord& b) {
    return a.status == b.status && a.name == b.name && a.steps == b.steps && a.epochs == b.epochs &&
           a.tags == b.tags && a.notes == b.notes && a.bestValAcc == b.bestValAcc &&
           a.durationSec == b.durationSec && a.finalTrainLoss == b.finalTrainLoss &&
           a.meanSamplesPerSec == b.meanSamplesPerSec && a.peakMemoryBytes == b.peakMemoryBytes &&
           a.color == b.color && a.error == b.error;
}

// A missing number sorts below every present one.
QVariant number(const std::optional<double>& v) {
    return v && std::isfinite(*v) ? QVariant(*v) : QVariant(-1e300);
}

} // namespace

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setRuns(std::vector<RunRecord> runs) {
    std::unordered_map<std::string, std::size_t> incoming;
    for (std::size_t i = 0; i < runs.size(); ++i)
        incoming[runs[i].id] = i;
    // Rows that went, from the bottom so the row numbers above stay valid.
    for (int row = rowCount() - 1; row >= 0; --row)
        if (!incoming.count(m_runs[static_cast<std::size_t>(row)].id)) {
            beginRemoveRows({}, row, row);
            m_runs.erase(m_runs.begin() + row);
            endRemoveRows();
        }
    std::unordered_map<std::string, int> have;
    for (int row = 0; row < rowCount(); ++row)
        have[m_runs[static_cast<std::size_t>(row)].id] = row;
    std::vector<RunRecord> added;
    for (RunRecord& r : runs) {
        const auto it = have.find(r.id);
        if (it == have.end()) {
            added.push_back(std::move(r));
            continue;
        }
        RunRecord& mine = m_runs[static_cast<std::size_t>(it->second)];
        if (!sameRow(mine, r)) {
            mine = std::move(r);
            emit dataChanged(index(it->second, 0), index(it->second, ColumnCount - 1));
        }
    }
    if (!added.empty()) {
        const int first = rowCount();
        beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
        for (RunRecord& r : added)
            m_runs.push_back(std::move(r));
        endInsertRows();
    }
}

const RunRecord* RunsTableModel::run(const QString& id) const {
    const int row = rowOf(id);
    return row < 0 ? nullptr : &m_runs[static_cast<std::size_t>(row)];
}

int RunsTableModel::rowOf(const QString& id) const {
    const std::string key = id.toStdString();
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == key)
            return static_cast<int>(i);
    return -1;
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const RunRecord& r = m_runs[static_cast<std::size_t>(index.row())];
    if (role == RunIdRole)
        return text(r.id);
    if (role == StatusRole)
        return text(toString(r.status));
    if (role == SearchTextRole) {
        QString all = text(r.name + " " + r.id + " " + r.model + " " + r.dataset + " " + r.notes);
        for (const std::string& t : r.tags)
            all += QLatin1Char(' ') + text(t);
        return all;
    }
    const int c = index.column();
    // A run's colour once it has been drawn in a comparison (stored with it); until then a
    // blank swatch, so the names stay aligned.
    if (role == Qt::DecorationRole && c == Name)
        return r.color.empty() ? QColor(Qt::transparent) : QColor(text(r.color));
    if (role == Qt::ToolTipRole && c == Status && !r.error.empty())
        return text(r.error);
    if (role == Qt::ToolTipRole && c == Name)
        return text(r.id);
    if (role == Qt::TextAlignmentRole &&
        (c == Ranks || c == EffectiveBatch || c == BestValAcc || c == FinalTrainLoss ||
         c == SamplesPerSec || c == PeakMemory || c == Duration))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (c) {
    case Name:
        return r.name.empty() ? text(r.id) : text(r.name);
    case Status:
        return text(toString(r.status));
    case Model:
        return text(r.model);
    case Dataset:
        return text(r.dataset);
    case Device:
        return text(r.device);
    case Precision:
        return configValue(r, "precision");
    case Ranks:
        return sort ? QVariant(static_cast<qlonglong>(ranksOf(r)))
                    : QVariant(QString::number(ranksOf(r)));
    case EffectiveBatch:
        return sort ? QVariant(static_cast<qlonglong>(effectiveBatchOf(r)))
                    : QVariant(text(formatCount(effectiveBatchOf(r))));
    case BestValAcc:
        if (sort) // a segmentation's by its mIoU, the score it is shown with
            return number(r.bestMeanIoU ? r.bestMeanIoU : r.bestValAcc);
        if (!r.bestValAcc || !r.bestEpoch || *r.bestEpoch == 0)
            return QStringLiteral("-");
        if (isDetectionDataset(r.dataset)) // a detector's validation score is its mAP50-95
            return tr("mAP50-95 %1 (epoch %2)").arg(*r.bestValAcc, 0, 'f', 3).arg(*r.bestEpoch);
        if (r.bestMeanIoU) // a segmentation's is its mean IoU (its val acc: pixel accuracy)
            return tr("mIoU %1 (epoch %2)").arg(*r.bestMeanIoU, 0, 'f', 3).arg(*r.bestEpoch);
        return tr("%1% (epoch %2)").arg(*r.bestValAcc * 100.0, 0, 'f', 2).arg(*r.bestEpoch);
    case FinalTrainLoss:
        return sort ? number(r.finalTrainLoss)
                    : (r.finalTrainLoss ? QString::number(*r.finalTrainLoss, 'f', 4)
                                        : QStringLiteral("-"));
    case SamplesPerSec:
        return sort ? number(r.meanSamplesPerSec)
                    : (r.meanSamplesPerSec ? text(formatCount(std::llround(*r.meanSamplesPerSec)))
                                           : QStringLiteral("-"));
    case PeakMemory:
        return sort ? number(r.peakMemoryBytes ? std::optional<double>(double(*r.peakMemoryBytes))
                                               : std::nullopt)
                    : (r.peakMemoryBytes ? text(formatBytes(*r.peakMemoryBytes))
                                         : QStringLiteral("-"));
    case Duration:
        return sort ? number(r.durationSec)
                    : (r.durationSec ? text(formatDuration(*r.durationSec)) : QStringLiteral("-"));
    case Started:
        return sort ? QVariant(r.startedAt)
                    : QVariant(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.startedAt))
                                   .toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    case Tags: {
        QStringList tags;
        for (const std::string& t : r.tags)
            tags << text(t);
        return tags.join(QStringLiteral(", "));
    }
    case Notes:
        return text(r.notes).section(QLatin1Char('\n'), 0, 0);
    default:
        return {};
    }
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* const kNames[] = {
        QT_TR_NOOP("Name"),       QT_TR_NOOP("Status"),     QT_TR_NOOP("Model"),
        QT_TR_NOOP("Dataset"),    QT_TR_NOOP("Device"),     QT_TR_NOOP("Ranks"),
        QT_TR_NOOP("Precision"),  QT_TR_NOOP("Eff. batch"), QT_TR_NOOP("Best val acc"),
        QT_TR_NOOP("Train loss"), QT_TR_NOOP("Samples/s"),  QT_TR_NOOP("Peak memory"),
        QT_TR_NOOP("Duration"),   QT_TR_NOOP("Started"),    QT_TR_NOOP("Tags"),
        QT_TR_NOOP("Notes")};
    return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

} // namespace tb::ui
