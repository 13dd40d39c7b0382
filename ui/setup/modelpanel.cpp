// ModelPanel: a ModelPlan (shapes only) gives the table and the estimate; nothing trains here.
#include "modelpanel.h"

#include "status/wrappinglabel.h"

#include "core/errors.h"
#include "core/textformat.h"
#include "nn/modelzoo.h"
#include "optim/optimizer.h"
#include "train/runconfig.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tb::ui {

ModelPanel::ModelPanel(QWidget* parent)
    : QWidget(parent), m_picker(new QComboBox(this)), m_table(new QTableWidget(0, 5, this)),
      m_total(new WrappingLabel(this)), m_warnings(new WrappingLabel(this)) {
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setMinimumContentsLength(16); // spec paths can be long
    m_picker->setObjectName(QStringLiteral("model"));
    m_picker->setAccessibleName(QStringLiteral("model"));
    for (const ZooEntry& entry : modelZoo()) {
        m_picker->addItem(QString::fromStdString(entry.name));
        m_picker->setItemData(m_picker->count() - 1, QString::fromStdString(entry.description),
                              Qt::ToolTipRole);
    }
    m_openSpec = new QAction(tr("Open &Model Spec..."), this);
    m_openSpec->setToolTip(tr("A model-spec JSON file (see resources/docs/model-spec.md)"));
    connect(m_openSpec, &QAction::triggered, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open a model spec"), {},
                                                          tr("Model specs (*.json)"));
        if (file.isEmpty())
            return;
        setModel(file, m_options);
        emit modelEdited(file);
    });
    auto* open = new QPushButton(tr("Open spec..."), this);
    open->setObjectName(QStringLiteral("model-open"));
    open->setToolTip(m_openSpec->toolTip());
    connect(open, &QPushButton::clicked, m_openSpec, &QAction::trigger);
    connect(m_picker, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        if (name == m_model)
            return;
        m_model = name;
        rebuild();
        emit modelEdited(name);
    });

    m_table->setObjectName(QStringLiteral("model-layers"));
    m_table->setTabKeyNavigation(false); // Tab leaves the table; arrows move in it
    m_table->setAccessibleName(tr("Layers of the model"));
    m_table->setHorizontalHeaderLabels(
        {tr("Layer"), tr("Type"), tr("Output"), tr("Params"), tr("FLOPs")});
    m_table->horizontalHeaderItem(2)->setToolTip(tr("The output shape of one sample"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    // The numbers as wide as they need; the layer names take what is left (elided if need be),
    // so the table never scrolls sideways.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setMinimumHeight(140);
    // Five columns in the set-up column's width at 1280x800: a size smaller than the form's.
    QFont small = m_table->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_table->setFont(small);
    m_table->horizontalHeader()->setFont(small);
    m_total->setObjectName(QStringLiteral("model-total"));
    m_warnings->setObjectName(QStringLiteral("model-warnings"));
    m_warnings->setStyleSheet(QStringLiteral("color: #c27c0e;")); // amber on light and dark
    m_warnings->hide();

    m_row = new QHBoxLayout;
    m_row->addWidget(m_picker, 1);
    m_row->addWidget(open);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_row);
    layout->addWidget(m_warnings); // the options widget goes above it
    layout->addWidget(m_table, 1);
    layout->addWidget(m_total);
}

namespace {

QString humanCount(int64_t value) {
    return QString::fromStdString(formatMagnitude(value));
}

// "32x28x28" for the (1, 32, 28, 28) of a one-sample plan: the batch dimension says nothing.
QString perSample(const Shape& s) {
    const std::string all = s.toString();
    return QString::fromStdString(all.rfind("1x", 0) == 0 ? all.substr(2) : all);
}

} // namespace

void ModelPanel::setModel(const QString& nameOrPath, const nlohmann::json& options) {
    if (nameOrPath == m_model && options == m_options)
        return;
    m_model = nameOrPath;
    m_options = options;
    {
        QSignalBlocker block(m_picker);
        if (m_picker->findText(nameOrPath) < 0)
            m_picker->addItem(nameOrPath);
        m_picker->setCurrentText(nameOrPath);
    }
    rebuild();
}

void ModelPanel::setOptionsWidget(QWidget* options) {
    static_cast<QVBoxLayout*>(layout())->insertWidget(1, options);
}

void ModelPanel::addRowAction(QAction* action, const QString& text, const QString& objectName) {
    auto* button = new QPushButton(text, this);
    button->setObjectName(objectName);
    button->setToolTip(action->toolTip());
    connect(button, &QPushButton::clicked, action, &QAction::trigger);
    m_row->addWidget(button);
}

void ModelPanel::setWarnings(const QStringList& warnings) {
    const QString text = warnings.join(QStringLiteral("\n"));
    if (text == m_warnings->wrappedText())
        return;
    m_warnings->setWrappedText(text);
    m_warnings->setVisible(!text.isEmpty());
}

QString ModelPanel::warnings() const {
    return m_warnings->wrappedText();
}

void ModelPanel::setInput(const Shape& sampleShape, int numClasses) {
    m_input = sampleShape;
    m_classes = numClasses;
    rebuild();
}

void ModelPanel::setPrecision(const QString& precision) {
    if (precision == m_precision)
        return;
    m_precision = precision;
    rebuild();
}

std::optional<MemoryEstimate> ModelPanel::estimate(int64_t batch,
                                                   const OptimizerConfig& optimizer) const {
    if (!m_plan || batch < 1)
        return std::nullopt;
    return m_plan->estimate(batch, optimizer);
}

void ModelPanel::rebuild() {
    m_plan.reset();
    m_table->setRowCount(0);
    m_params = 0;
    m_error.clear();
    if (m_model.isEmpty() || m_input.rank() == 0) {
        m_total->setWrappedText(tr("The layer table appears once the dataset is open."));
        emit modelRebuilt();
        return;
    }
    try {
        const DType dtype = activationDtypeOf(m_precision.toStdString());
        m_plan = std::make_unique<ModelPlan>(
            modelSpec(m_model.toStdString(), m_input, m_classes, m_options), dtype);
        if (!(m_plan->inputShape() == m_input))
            throw ConfigError("model", "the model takes " + m_plan->inputShape().toString() +
                                           " samples but the dataset has " + m_input.toString());
    } catch (const std::exception& e) {
        m_plan.reset();
        m_error = QString::fromStdString(e.what());
        m_total->setWrappedText(
            QStringLiteral("<span style='color:#d13438'>%1</span>").arg(m_error.toHtmlEscaped()));
        emit modelRebuilt();
        return;
    }
    int64_t flops = 0, trainable = 0;
    const auto rows = m_plan->layers(1);
    m_table->setRowCount(static_cast<int>(rows.size()));
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const LayerRow& r = rows[static_cast<std::size_t>(i)];
        const QStringList cells = {QString::fromStdString(r.name), QString::fromStdString(r.type),
                                   perSample(r.output), humanCount(r.params), humanCount(r.flops)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= 3)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (r.frozen) { // greyed, as a disabled control: it will not change
                item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
                item->setToolTip(tr("Frozen (finetune.freeze): keeps its weights"));
            }
            m_table->setItem(i, c, item);
        }
        m_params += r.params;
        trainable += r.frozen ? 0 : r.params;
        flops += r.flops;
    }
    m_table->resizeRowsToContents();
    QString total = tr("%1 parameters (%L2), %3 FLOPs per sample forward")
                        .arg(humanCount(m_params))
                        .arg(m_params)
                        .arg(humanCount(flops));
    if (trainable < m_params)
        total += tr("; %L1 of them train, the greyed layers are frozen").arg(trainable);
    m_total->setWrappedText(total);
    emit modelRebuilt();
}

} // namespace tb::ui
