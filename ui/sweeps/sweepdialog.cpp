// SweepDialog: the form is turned into a sweep file's JSON and parsed as one, so the window and
// `trainbench-cli sweep` accept and refuse the same sweeps.
#include "sweeps/sweepdialog.h"

#include "core/errors.h"
#include "store/runsummary.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

enum KeyTableColumn { KeyColumn, ValuesColumn, ScaleColumn, StepsColumn };

// The keys a sweep can vary: numbers and choices (not names, paths or lists).
QStringList sweepableKeys() {
    QStringList keys;
    for (const ConfigField& f : configSchema())
        if (f.type == "int" || f.type == "float" || f.type == "bool" || f.type == "choice")
            keys << QString::fromStdString(f.key);
    return keys;
}

// A number as JSON when the text is one (ranges need numbers), else the text.
nlohmann::json valueJson(const QString& text) {
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (ok)
        return text.contains(QLatin1Char('.')) ||
                       text.contains(QLatin1Char('e'), Qt::CaseInsensitive)
                   ? nlohmann::json(v)
                   : nlohmann::json(text.toLongLong());
    return text.toStdString();
}

} // namespace

SweepDialog::SweepDialog(const RunConfig& base, QWidget* parent)
    : QDialog(parent), m_base(base), m_name(new QLineEdit(this)),
      m_parameters(new QTableWidget(0, 4, this)), m_add(new QPushButton(tr("Add Key"), this)),
      m_remove(new QPushButton(tr("Remove Key"), this)), m_method(new QComboBox(this)),
      m_count(new QSpinBox(this)), m_seed(new QSpinBox(this)),
      m_budget(new QGroupBox(tr("Successive halving budget"), this)), m_unit(new QComboBox(this)),
      m_min(new QSpinBox(this)), m_max(new QSpinBox(this)), m_reduction(new QSpinBox(this)),
      m_metric(new QComboBox(this)), m_goal(new QComboBox(this)), m_parallel(new QSpinBox(this)),
      m_preview(new QLabel(this)), m_start(new QPushButton(tr("Start Sweep"), this)),
      m_save(new QPushButton(tr("Save As..."), this)) {
    setObjectName(QStringLiteral("sweep-dialog"));
    setWindowTitle(tr("Sweep"));
    m_name->setObjectName(QStringLiteral("sweep-name"));
    m_name->setText(QStringLiteral("sweep-") +
                    QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmm")));
    m_name->setToolTip(tr("Tags the trials' runs sweep:NAME; the same name resumes the sweep"));

    m_parameters->setObjectName(QStringLiteral("sweep-parameters"));
    m_parameters->setAccessibleName(tr("Keys to sweep and their values"));
    m_parameters->setHorizontalHeaderLabels({tr("Key"), tr("Values"), tr("Scale"), tr("Points")});
    m_parameters->horizontalHeader()->setSectionResizeMode(ValuesColumn, QHeaderView::Stretch);
    m_parameters->verticalHeader()->hide();
    m_parameters->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_parameters->setMinimumSize(560, 150);
    m_add->setObjectName(QStringLiteral("sweep-add-key"));
    m_remove->setObjectName(QStringLiteral("sweep-remove-key"));

    m_method->setObjectName(QStringLiteral("sweep-method"));
    m_method->setAccessibleName(tr("Search method"));
    m_method->addItem(tr("Grid: every combination"), static_cast<int>(SweepMethod::Grid));
    m_method->addItem(tr("Random: seeded draws"), static_cast<int>(SweepMethod::Random));
    m_method->addItem(tr("Successive halving (ASHA)"), static_cast<int>(SweepMethod::Halving));
    m_count->setObjectName(QStringLiteral("sweep-count"));
    m_count->setRange(0, 10000);
    m_count->setValue(16);
    m_count->setToolTip(tr("Trials drawn at random (halving: 0 starts the grid's trials)"));
    m_seed->setObjectName(QStringLiteral("sweep-seed"));
    m_seed->setRange(0, 1 << 30);
    m_unit->setObjectName(QStringLiteral("sweep-budget-unit"));
    m_unit->setAccessibleName(tr("Budget unit"));
    m_unit->addItem(tr("epochs"), QStringLiteral("epochs"));
    m_unit->addItem(tr("steps"), QStringLiteral("steps"));
    for (QSpinBox* box : {m_min, m_max})
        box->setRange(1, 1 << 30);
    m_min->setObjectName(QStringLiteral("sweep-budget-min"));
    m_max->setObjectName(QStringLiteral("sweep-budget-max"));
    m_min->setValue(1);
    m_max->setValue(9);
    m_reduction->setObjectName(QStringLiteral("sweep-budget-reduction"));
    m_reduction->setRange(2, 100);
    m_reduction->setValue(3);
    m_reduction->setToolTip(tr("At each rung only the best 1/reduction of the trials go on"));
    auto* budget = new QFormLayout(m_budget);
    budget->addRow(tr("Unit"), m_unit);
    budget->addRow(tr("First rung"), m_min);
    budget->addRow(tr("Full budget"), m_max);
    budget->addRow(tr("Reduction"), m_reduction);

    m_metric->setObjectName(QStringLiteral("sweep-metric"));
    m_metric->setAccessibleName(tr("Metric that ranks the trials"));
    for (const SummaryMetric& m : summaryMetrics())
        m_metric->addItem(QString::fromStdString(m.name));
    m_goal->setObjectName(QStringLiteral("sweep-goal"));
    m_goal->setAccessibleName(tr("Goal"));
    m_goal->addItem(tr("maximize"), QStringLiteral("maximize"));
    m_goal->addItem(tr("minimize"), QStringLiteral("minimize"));
    m_parallel->setObjectName(QStringLiteral("sweep-parallel"));
    m_parallel->setRange(1, std::max(1, QThread::idealThreadCount()));
    m_parallel->setToolTip(tr("Trials trained at once, the cores split between them"));

    m_preview->setObjectName(QStringLiteral("sweep-preview"));
    m_preview->setWordWrap(true);
    m_start->setObjectName(QStringLiteral("sweep-start"));
    m_start->setDefault(true);
    m_save->setObjectName(QStringLiteral("sweep-save"));

    auto* rowButtons = new QHBoxLayout;
    rowButtons->addWidget(m_add);
    rowButtons->addWidget(m_remove);
    rowButtons->addStretch(1);
    auto* keysBox = new QGroupBox(tr("Keys of the set-up to vary"), this);
    auto* keysLayout = new QVBoxLayout(keysBox);
    keysLayout->addWidget(m_parameters);
    keysLayout->addLayout(rowButtons);

    auto* searchBox = new QGroupBox(tr("Search"), this);
    auto* search = new QFormLayout(searchBox);
    search->addRow(tr("Name"), m_name);
    search->addRow(tr("Method"), m_method);
    search->addRow(tr("Trials"), m_count);
    search->addRow(tr("Seed"), m_seed);
    auto* metricRow = new QHBoxLayout;
    metricRow->addWidget(m_metric, 1);
    metricRow->addWidget(m_goal);
    search->addRow(tr("Metric"), metricRow);
    search->addRow(tr("At once"), m_parallel);
    auto* columns = new QHBoxLayout;
    columns->addWidget(searchBox, 1);
    columns->addWidget(m_budget, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons->addButton(m_save, QDialogButtonBox::ActionRole);
    buttons->addButton(m_start, QDialogButtonBox::AcceptRole);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(keysBox, 1);
    layout->addLayout(columns);
    layout->addWidget(m_preview);
    layout->addWidget(buttons);

    connect(m_add, &QPushButton::clicked, this, [this] {
        addRow();
        updatePreview();
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (m_parameters->currentRow() >= 0)
            removeParameter(m_parameters->currentRow());
    });
    connect(m_method, &QComboBox::currentIndexChanged, this, [this] {
        updateMethodFields();
        updatePreview();
    });
    connect(m_metric, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        if (const SummaryMetric* m = findSummaryMetric(name.toStdString()))
            m_goal->setCurrentIndex(m->higherIsBetter ? 0 : 1);
        updatePreview();
    });
    connect(m_unit, &QComboBox::currentIndexChanged, this, &SweepDialog::updatePreview);
    for (QSpinBox* box : {m_count, m_seed, m_min, m_max, m_reduction})
        connect(box, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
    connect(m_goal, &QComboBox::currentIndexChanged, this, &SweepDialog::updatePreview);
    connect(m_name, &QLineEdit::textChanged, this, &SweepDialog::updatePreview);
    connect(m_save, &QPushButton::clicked, this, &SweepDialog::saveAs);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    // A start worth editing: the learning rate on a log range, the batch size listed.
    addParameter(QStringLiteral("lr"), QStringLiteral("0.0003, 0.03"), Scale::Log, 3);
    addParameter(QStringLiteral("batch_size"),
                 QStringLiteral("%1, %2").arg(base.batchSize).arg(base.batchSize * 2));
    updateMethodFields();
    updatePreview();
}

void SweepDialog::addRow() {
    const int row = m_parameters->rowCount();
    m_parameters->insertRow(row);
    auto* key = new QComboBox(m_parameters);
    key->addItems(sweepableKeys());
    key->setAccessibleName(tr("Key of row %1").arg(row + 1));
    auto* values = new QLineEdit(m_parameters);
    values->setPlaceholderText(tr("0.01, 0.1  (a range: min, max)"));
    values->setAccessibleName(tr("Values of row %1").arg(row + 1));
    auto* scale = new QComboBox(m_parameters);
    scale->addItem(tr("list"));
    scale->addItem(tr("linear range"));
    scale->addItem(tr("log range"));
    scale->setAccessibleName(tr("Scale of row %1").arg(row + 1));
    auto* steps = new QSpinBox(m_parameters);
    steps->setRange(2, 1000);
    steps->setValue(3);
    steps->setAccessibleName(tr("Points of row %1 on a grid").arg(row + 1));
    steps->setToolTip(tr("A range in a grid: this many points, the ends included"));
    m_parameters->setCellWidget(row, KeyColumn, key);
    m_parameters->setCellWidget(row, ValuesColumn, values);
    m_parameters->setCellWidget(row, ScaleColumn, scale);
    m_parameters->setCellWidget(row, StepsColumn, steps);
    // A key chosen: its current set-up value, or every choice it has, as a start.
    connect(key, &QComboBox::currentTextChanged, this, [this, values](const QString& k) {
        const ConfigField* f = findConfigField(k.toStdString());
        if (f && (f->type == "choice" || f->type == "bool")) {
            QStringList all;
            for (const std::string& c :
                 f->type == "bool" ? std::vector<std::string>{"true", "false"} : f->choices)
                all << QString::fromStdString(c);
            values->setText(all.join(QStringLiteral(", ")));
        } else if (f) {
            const nlohmann::json v = m_base.toJson().value(k.toStdString(), nlohmann::json());
            values->setText(
                QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
        }
        updatePreview();
    });
    connect(values, &QLineEdit::textChanged, this, &SweepDialog::updatePreview);
    connect(scale, &QComboBox::currentIndexChanged, this, [this, steps, scale] {
        steps->setEnabled(scale->currentIndex() != 0);
        updatePreview();
    });
    connect(steps, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
    steps->setEnabled(false);
    key->setCurrentIndex(-1);
}

void SweepDialog::addParameter(const QString& key, const QString& values, Scale scale, int steps) {
    addRow();
    const int row = m_parameters->rowCount() - 1;
    static_cast<QComboBox*>(m_parameters->cellWidget(row, KeyColumn))->setCurrentText(key);
    static_cast<QLineEdit*>(m_parameters->cellWidget(row, ValuesColumn))->setText(values);
    static_cast<QComboBox*>(m_parameters->cellWidget(row, ScaleColumn))
        ->setCurrentIndex(static_cast<int>(scale));
    static_cast<QSpinBox*>(m_parameters->cellWidget(row, StepsColumn))->setValue(steps);
    updatePreview();
}

void SweepDialog::removeParameter(int row) {
    m_parameters->removeRow(row);
    updatePreview();
}

int SweepDialog::parameterCount() const {
    return m_parameters->rowCount();
}

void SweepDialog::setName(const QString& name) {
    m_name->setText(name);
}

void SweepDialog::setMethod(SweepMethod method) {
    m_method->setCurrentIndex(m_method->findData(static_cast<int>(method)));
}

void SweepDialog::setCount(int count) {
    m_count->setValue(count);
}

void SweepDialog::setSeed(int seed) {
    m_seed->setValue(seed);
}

void SweepDialog::setBudget(bool epochs, int min, int max, int reduction) {
    m_unit->setCurrentIndex(epochs ? 0 : 1);
    m_min->setValue(min);
    m_max->setValue(max);
    m_reduction->setValue(reduction);
}

void SweepDialog::setMetric(const QString& metric) {
    m_metric->setCurrentText(metric);
}

void SweepDialog::setParallel(int parallel) {
    m_parallel->setValue(parallel);
}

int SweepDialog::parallel() const {
    return m_parallel->value();
}

nlohmann::json SweepDialog::json() const {
    const auto method = static_cast<SweepMethod>(m_method->currentData().toInt());
    nlohmann::json sweep{{"name", m_name->text().trimmed().toStdString()},
                         {"method", toString(method)},
                         {"metric", m_metric->currentText().toStdString()},
                         {"goal", m_goal->currentData().toString().toStdString()},
                         {"seed", m_seed->value()},
                         {"config", m_base.toJson()}};
    const bool drawn =
        method == SweepMethod::Random || (method == SweepMethod::Halving && m_count->value() > 0);
    if (drawn)
        sweep["count"] = m_count->value();
    if (method == SweepMethod::Halving)
        sweep["budget"] = {{"unit", m_unit->currentData().toString().toStdString()},
                           {"min", m_min->value()},
                           {"max", m_max->value()},
                           {"reduction", m_reduction->value()}};
    nlohmann::json parameters = nlohmann::json::object();
    for (int row = 0; row < m_parameters->rowCount(); ++row) {
        const QString key =
            static_cast<QComboBox*>(m_parameters->cellWidget(row, KeyColumn))->currentText();
        if (key.isEmpty())
            continue;
        QStringList values;
        for (const QString& v : static_cast<QLineEdit*>(m_parameters->cellWidget(row, ValuesColumn))
                                    ->text()
                                    .split(QLatin1Char(','), Qt::SkipEmptyParts))
            values << v.trimmed();
        const int scale =
            static_cast<QComboBox*>(m_parameters->cellWidget(row, ScaleColumn))->currentIndex();
        nlohmann::json spec;
        if (scale == 0) {
            spec["values"] = nlohmann::json::array();
            for (const QString& v : values)
                spec["values"].push_back(valueJson(v));
        } else {
            spec["min"] = values.size() > 0 ? valueJson(values[0]) : nlohmann::json();
            spec["max"] = values.size() > 1 ? valueJson(values[1]) : nlohmann::json();
            spec["scale"] = scale == 2 ? "log" : "linear";
            if (!drawn)
                spec["steps"] =
                    static_cast<QSpinBox*>(m_parameters->cellWidget(row, StepsColumn))->value();
        }
        parameters[key.toStdString()] = spec;
    }
    sweep["parameters"] = parameters;
    return sweep;
}

std::optional<SweepDefinition> SweepDialog::definition() const {
    try {
        return parseSweepDefinition(json(), "sweep");
    } catch (const Error&) {
        return std::nullopt;
    }
}

QString SweepDialog::problem() const {
    try {
        parseSweepDefinition(json(), "sweep");
        return {};
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
}

void SweepDialog::updateMethodFields() {
    const auto method = static_cast<SweepMethod>(m_method->currentData().toInt());
    m_count->setEnabled(method != SweepMethod::Grid);
    m_seed->setEnabled(method != SweepMethod::Grid);
    m_budget->setEnabled(method == SweepMethod::Halving);
}

void SweepDialog::updatePreview() {
    const std::optional<SweepDefinition> sweep = definition();
    m_start->setEnabled(sweep.has_value());
    m_save->setEnabled(sweep.has_value());
    if (!sweep) {
        m_preview->setStyleSheet(QStringLiteral("color: #d13438;"));
        m_preview->setText(problem());
        return;
    }
    m_preview->setStyleSheet({});
    const auto trials = static_cast<int>(sweepTrials(*sweep).size());
    QString text = (trials == 1 ? tr("1 trial, a run tagged sweep:%1")
                                : tr("%1 trials, each a run tagged sweep:%2").arg(trials))
                       .arg(QString::fromStdString(sweep->name));
    if (sweep->method == SweepMethod::Halving) {
        QStringList rungs;
        for (const int64_t r : sweep->budget.rungs())
            rungs << QString::number(r);
        text += tr("; judged after %1 %2, the best 1/%3 going on to %4")
                    .arg(rungs.join(QStringLiteral(", ")),
                         sweep->budget.epochs ? tr("epochs") : tr("steps"))
                    .arg(sweep->budget.reduction)
                    .arg(sweep->budget.max);
    }
    m_preview->setText(text + QLatin1Char('.'));
}

void SweepDialog::saveAs() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Sweep File"),
                                                      m_name->text() + QStringLiteral(".json"),
                                                      tr("Sweep files (*.json)"));
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    const QByteArray text = QByteArray::fromStdString(json().dump(2) + "\n");
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        QMessageBox::warning(this, tr("Could not write a file"),
                             tr("Could not write %1: %2").arg(path, file.errorString()));
}

} // namespace tb::ui
