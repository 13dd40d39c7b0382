// ParametersPlot: values per run by key (summary columns, then the flattened config), each axis
// numeric when every value is a number, else one tick per category.
#include "runs/parametersplot.h"

#include "charts/csvfield.h"
#include "runs/runvalues.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextStream>
#include <qcustomplot.h>

#include <cmath>
#include <set>

namespace tb::ui {

ParametersPlot::ParametersPlot(QWidget* parent)
    : ChartView(tr("Parameters"), parent), m_xKey(new QComboBox(this)),
      m_yKey(new QComboBox(this)) {
    setObjectName(QStringLiteral("parameters-plot"));
    m_xKey->setObjectName(QStringLiteral("parameters-x"));
    m_yKey->setObjectName(QStringLiteral("parameters-y"));
    m_xKey->setAccessibleName(tr("Parameter on the x axis"));
    m_yKey->setAccessibleName(tr("Parameter on the y axis"));
    controls()->addWidget(new QLabel(tr("x"), this));
    controls()->addWidget(m_xKey);
    controls()->addWidget(new QLabel(tr("y"), this));
    controls()->addWidget(m_yKey);
    plot()->legend->setVisible(false);
    for (QComboBox* box : {m_xKey, m_yKey})
        connect(box, &QComboBox::currentTextChanged, this, &ParametersPlot::redraw);
}

QStringList ParametersPlot::keys() const {
    // Config keys whose value is not the same in every run: the others place every run alike.
    return summaryKeys() + differingConfigKeys(m_values);
}

void ParametersPlot::setRuns(const std::vector<RunRecord>& runs,
                             const std::vector<QColor>& colors) {
    m_runs = runs;
    m_colors = colors;
    m_values.clear();
    for (const RunRecord& r : runs)
        m_values.push_back(valuesOfRun(r));
    const QString x = xKey(), y = yKey();
    const QStringList available = keys();
    for (QComboBox* box : {m_xKey, m_yKey}) {
        const QSignalBlocker block(box);
        box->clear();
        box->addItems(available);
    }
    // By default the first key that differs against the best validation accuracy.
    const int summaryCount = static_cast<int>(summaryKeys().size());
    const QString defaultX =
        available.size() > summaryCount ? available[summaryCount] : QStringLiteral("samples_per_s");
    // A key the user picked stays; one that was only the default follows the new default.
    const bool keepX = available.contains(x) && x != m_defaultX;
    m_defaultX = defaultX;
    setKeys(keepX ? x : defaultX, available.contains(y) ? y : QStringLiteral("best_val_acc"));
}

void ParametersPlot::setKeys(const QString& x, const QString& y) {
    {
        const QSignalBlocker bx(m_xKey), by(m_yKey);
        m_xKey->setCurrentText(x);
        m_yKey->setCurrentText(y);
    }
    redraw();
}

QString ParametersPlot::xKey() const {
    return m_xKey->currentText();
}

QString ParametersPlot::yKey() const {
    return m_yKey->currentText();
}

std::vector<QString> ParametersPlot::valuesOf(const QString& key) const {
    std::vector<QString> out;
    for (const auto& values : m_values) {
        const auto it = values.find(key);
        out.push_back(it == values.end() ? QString() : it->second);
    }
    return out;
}

void ParametersPlot::redraw() {
    plot()->clearGraphs();
    m_graphs.clear();
    m_points.assign(m_runs.size(), std::nullopt);
    std::vector<std::vector<double>> coords(2);
    QCPAxis* axes[2] = {plot()->xAxis, plot()->yAxis};
    const QString names[2] = {xKey(), yKey()};
    for (int a = 0; a < 2; ++a) {
        const std::vector<QString> values = valuesOf(names[a]);
        bool numeric = true;
        for (const QString& v : values) {
            bool ok = false;
            v.toDouble(&ok);
            numeric = numeric && (v.isEmpty() || ok);
        }
        if (numeric) {
            axes[a]->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
            for (const QString& v : values)
                coords[a].push_back(v.isEmpty() ? qQNaN() : v.toDouble());
        } else { // categories, in sorted order, at 0, 1, 2, ...
            std::set<QString> categories(values.begin(), values.end());
            categories.erase(QString());
            QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
            std::map<QString, double> at;
            for (const QString& c : categories) {
                at[c] = static_cast<double>(at.size());
                ticker->addTick(at[c], c);
            }
            axes[a]->setTicker(ticker);
            for (const QString& v : values)
                coords[a].push_back(v.isEmpty() ? qQNaN() : at[v]);
        }
        axes[a]->ticker()->setTickCount(4);
        axes[a]->setLabel(names[a]);
    }
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        auto* g = plot()->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        const QColor color = i < m_colors.size() ? m_colors[i] : QColor(Qt::gray);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 9));
        g->setName(QString::fromStdString(m_runs[i].name.empty() ? m_runs[i].id : m_runs[i].name));
        if (std::isfinite(coords[0][i]) && std::isfinite(coords[1][i])) {
            g->addData(coords[0][i], coords[1][i]);
            m_points[i] = QPointF(coords[0][i], coords[1][i]);
        }
        m_graphs.push_back(g);
    }
    markDirty();
    refresh();
}

std::optional<QPointF> ParametersPlot::pointOf(const QString& runId) const {
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        if (QString::fromStdString(m_runs[i].id) == runId)
            return m_points[i];
    return std::nullopt;
}

void ParametersPlot::fitToData() {
    plot()->rescaleAxes();
    for (QCPAxis* axis : {plot()->xAxis, plot()->yAxis}) {
        const QCPRange r = axis->range();
        const double pad = r.size() > 0 ? r.size() * 0.08 : 0.5;
        axis->setRange(r.lower - pad, r.upper + pad);
    }
}

void ParametersPlot::writeCsv(QTextStream& out) const {
    out << "run," << csvField(xKey()) << ',' << csvField(yKey()) << '\n';
    const std::vector<QString> xs = valuesOf(xKey()), ys = valuesOf(yKey());
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        out << QString::fromStdString(m_runs[i].id) << ',' << csvField(xs[i]) << ','
            << csvField(ys[i]) << '\n';
}

} // namespace tb::ui
