// SetupPanel: the groups are built from the config schema (ConfigForm); the dataset and model
// panels add what a form cannot show (files, samples, layers).
#include "setuppanel.h"

#include "concepts/conceptcards.h"
#include "configform.h"
#include "core/errors.h"
#include "datasetpanel.h"
#include "lrpreview.h"
#include "memorybar.h"
#include "modelpanel.h"
#include "train/devicechoices.h"
#include "train/pretrainedinput.h"
#include "train/stepplan.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

namespace tb::ui {

namespace {

// The performance knobs a newcomer turns, together (the schema files batch_size under data and
// accumulate_grad_batches under optimization); then the rest of the performance and precision
// keys from the schema. `device` has its own combo, `dataset`, `data.root` and `model` their
// pickers.
const QStringList kKnobKeys = {"batch_size", "accumulate_grad_batches"};

// `distributed` is not among them: the window starts a data-parallel job with `ranks`, and is
// never itself a rank that mpirun started.
QStringList performanceKeys() {
    return kKnobKeys + schemaKeys(ConfigGroup::Performance, {"device", "distributed"}) +
           schemaKeys(ConfigGroup::Precision);
}

bool sameData(const DataConfig& a, const DataConfig& b) {
    return a.name == b.name && a.root == b.root && a.valFraction == b.valFraction &&
           a.augment == b.augment && a.normalize == b.normalize && a.imageSize == b.imageSize &&
           a.csvLabel == b.csvLabel && a.csvHeader == b.csvHeader &&
           a.syntheticSamples == b.syntheticSamples && a.syntheticClasses == b.syntheticClasses;
}

QGroupBox* group(const QString& title, QWidget* content, const QString& name) {
    auto* box = new QGroupBox(title);
    box->setObjectName(name);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(content);
    return box;
}

QGroupBox* enclosingGroup(QWidget* w) {
    while (w && !qobject_cast<QGroupBox*>(w))
        w = w->parentWidget();
    return static_cast<QGroupBox*>(w);
}

} // namespace

SetupPanel::SetupPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildDatasetGroup());
    layout->addWidget(buildModelGroup());
    layout->addWidget(buildTrainingGroup());
    layout->addWidget(buildPerformanceGroup());
    m_logging = new ConfigForm(schemaKeys(ConfigGroup::Logging));
    connect(m_logging, &ConfigForm::edited, this, &SetupPanel::refresh);
    layout->addWidget(
        group(tr("Logging and checkpoints"), m_logging, QStringLiteral("group-logging")));
    layout->addStretch(1);
    setConfig(RunConfig());
}

QWidget* SetupPanel::buildDatasetGroup() {
    auto* content = new QWidget;
    m_dataset = new DatasetPanel(content);
    m_data = new ConfigForm(
        schemaKeys(ConfigGroup::Data, QStringList{"dataset", "data.root"} + kKnobKeys), content);
    connect(m_data, &ConfigForm::edited, this, &SetupPanel::refresh);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_dataset);
    layout->addWidget(m_data);
    connect(m_dataset, &DatasetPanel::dataConfigEdited, this, &SetupPanel::refresh);
    connect(m_dataset, &DatasetPanel::factsChanged, this, [this] {
        const DatasetFacts& f = m_dataset->facts();
        m_model->setInput(f.ok ? f.sampleShape : Shape(), f.numClasses);
    });
    return group(tr("Dataset"), content, QStringLiteral("group-dataset"));
}

QWidget* SetupPanel::buildModelGroup() {
    auto* content = new QWidget;
    m_model = new ModelPanel(content);
    connect(m_model, &ModelPanel::modelEdited, this, &SetupPanel::refresh);
    connect(m_model, &ModelPanel::modelRebuilt, this, &SetupPanel::refresh);
    m_modelOptions = new ConfigForm(schemaKeys(ConfigGroup::Model, {"model"}), content);
    connect(m_modelOptions, &ConfigForm::edited, this, &SetupPanel::refresh);
    m_openWeights = new QAction(tr("Open Pretrained &Weights..."), this);
    m_openWeights->setObjectName(QStringLiteral("action-open-weights"));
    m_openWeights->setToolTip(tr("Start from pretrained weights: a PyTorch .pth/.pt state dict "
                                 "or a .safetensors file (model.pretrained)"));
    connect(m_openWeights, &QAction::triggered, this, [this] {
        m_modelOptions->chooseFile(QStringLiteral("model.pretrained"), tr("Pretrained weights"),
                                   tr("Weights (*.pth *.pt *.safetensors);;All files (*)"));
    });
    m_model->addRowAction(m_openWeights, tr("Pretrained weights..."),
                          QStringLiteral("model-open-weights"));
    m_model->setOptionsWidget(m_modelOptions);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_model, 1);
    return group(tr("Model"), content, QStringLiteral("group-model"));
}

QWidget* SetupPanel::buildTrainingGroup() {
    auto* content = new QWidget;
    m_training = new ConfigForm(schemaKeys(ConfigGroup::Optimization, kKnobKeys), content);
    connect(m_training, &ConfigForm::edited, this, &SetupPanel::refresh);
    m_lrPreview = new LrPreview(content);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_training);
    layout->addWidget(new QLabel(tr("Learning rate over the run:"), content));
    layout->addWidget(m_lrPreview);
    return group(tr("Hyperparameters"), content, QStringLiteral("group-training"));
}

QWidget* SetupPanel::buildPerformanceGroup() {
    auto* content = new QWidget;
    m_device = new QComboBox(content);
    m_device->setObjectName(QStringLiteral("device"));
    // The greyed GPU entry carries a long reason: the combo must not grow to fit it.
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_device->setMinimumContentsLength(16);
    fillDevices();
    connect(m_device, &QComboBox::currentIndexChanged, this, &SetupPanel::refresh);
    auto* deviceHelp = new QToolButton(content);
    deviceHelp->setText(QStringLiteral("?"));
    deviceHelp->setAutoRaise(true);
    deviceHelp->setObjectName(QStringLiteral("device-help"));
    connect(deviceHelp, &QToolButton::clicked, this, [this] { showConceptCard(this, "device"); });
    auto* deviceRow = new QHBoxLayout;
    deviceRow->addWidget(m_device, 1);
    deviceRow->addWidget(deviceHelp);
    auto* deviceForm = new QFormLayout;
    deviceForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    deviceForm->setContentsMargins(0, 0, 0, 0);
    deviceForm->addRow(QStringLiteral("device"), deviceRow);

    const QStringList knobs = performanceKeys();
    m_performance = new ConfigForm(knobs, content);
    connect(m_performance, &ConfigForm::edited, this, &SetupPanel::refresh);
    for (const QString& key : knobs)
        if (const ConceptCard* card = findConceptCard(key)) {
            QWidget* button = m_performance->addHelpButton(key, card->title);
            connect(static_cast<QToolButton*>(button), &QToolButton::clicked, this,
                    [this, key] { showConceptCard(this, key); });
        }
    m_effectiveBatch = new QLabel(content);
    m_effectiveBatch->setObjectName(QStringLiteral("effective-batch"));
    m_memory = new MemoryBar(content);

    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(deviceForm);
    layout->addWidget(m_performance);
    layout->addWidget(m_effectiveBatch);
    layout->addWidget(new QLabel(tr("Training memory (estimate):"), content));
    layout->addWidget(m_memory);
    return group(tr("Performance"), content, QStringLiteral("group-performance"));
}

// auto, cpu and every GPU the plugin reports; without a usable GPU one greyed entry says why.
void SetupPanel::fillDevices() {
    for (const DeviceChoice& choice : deviceChoices()) {
        m_device->addItem(QString::fromStdString(choice.label),
                          QString::fromStdString(choice.value));
        if (choice.usable)
            continue;
        auto* model = static_cast<QStandardItemModel*>(m_device->model());
        QStandardItem* item = model->item(m_device->count() - 1);
        item->setEnabled(false);
        item->setToolTip(QString::fromStdString(choice.reason));
    }
}

void SetupPanel::refreshDevices() {
    const QString chosen = m_device->currentData().toString();
    {
        QSignalBlocker block(m_device);
        m_device->clear();
        fillDevices();
        if (m_device->findData(chosen) < 0)
            m_device->addItem(chosen, chosen);
        m_device->setCurrentIndex(m_device->findData(chosen));
    }
    refresh();
}

void SetupPanel::setConfig(const RunConfig& config) {
    m_base = config;
    for (ConfigForm* form : forms())
        form->setConfig(config);
    const int index = m_device->findData(QString::fromStdString(config.device));
    {
        QSignalBlocker block(m_device);
        if (index >= 0)
            m_device->setCurrentIndex(index);
        else {
            m_device->addItem(QString::fromStdString(config.device),
                              QString::fromStdString(config.device));
            m_device->setCurrentIndex(m_device->count() - 1);
        }
    }
    m_model->setModel(QString::fromStdString(config.model), config.modelOptions);
    m_model->setPrecision(QString::fromStdString(config.precision));
    m_dataset->setDataConfig(config.data); // opens it; factsChanged() refreshes again
    refresh();
}

void SetupPanel::setLessonControls(const QStringList& keys) {
    m_lessonControls = keys;
    for (ConfigForm* form : forms())
        form->setShownKeys(keys.isEmpty() ? std::nullopt : std::optional<QStringList>(keys));
    refresh();
}

std::vector<ConfigForm*> SetupPanel::forms() const {
    return {m_data, m_modelOptions, m_training, m_performance, m_logging};
}

QWidget* SetupPanel::editorOf(const QString& key) const {
    for (ConfigForm* form : forms())
        if (QWidget* editor = form->editor(key))
            return editor;
    return findChild<QWidget*>(key); // the dataset, data.root, model and device pickers
}

QList<QAction*> SetupPanel::openActions() const {
    return m_dataset->openActions() << m_model->openSpecAction() << m_openWeights;
}

bool SetupPanel::busy() const {
    return m_dataset->loading();
}

RunConfig SetupPanel::config() const {
    return m_current;
}

void SetupPanel::refreshPretrainedWarnings(const RunConfig& config) {
    const DatasetFacts& facts = m_dataset->facts();
    const QString path = QString::fromStdString(config.modelOptions.value("pretrained", ""));
    const DataConfig& d = config.data;
    const QString inputs =
        QStringList{path,
                    QFileInfo(path).lastModified().toString(Qt::ISODateWithMs),
                    QString::fromStdString(d.name),
                    QString::number(d.imageSize),
                    QString::fromStdString(d.normStats),
                    QString::number(d.normalize),
                    facts.ok ? QString::fromStdString(facts.sampleShape.toString()) : QString()}
            .join(QLatin1Char('\n'));
    if (inputs == m_pretrainedWarningsFor)
        return;
    m_pretrainedWarningsFor = inputs;
    QStringList warnings;
    if (facts.ok)
        for (const std::string& w : pretrainedInputWarnings(config, facts.sampleShape))
            warnings << QString::fromStdString(w);
    m_model->setWarnings(warnings);
}

int64_t SetupPanel::totalSteps(const RunConfig& c) const {
    const DatasetFacts& f = m_dataset->facts();
    if (!f.ok)
        return c.maxSteps > 0 ? c.maxSteps : 0;
    return planSteps(c, f.trainSamples).totalSteps; // the trainer's own plan
}

void SetupPanel::refresh() {
    RunConfig c = m_base;
    c.data = m_dataset->dataConfig();
    c.model = m_model->model().toStdString();
    const QString device = m_device->currentData().toString();
    if (!device.isEmpty())
        c.device = device.toStdString();
    c.distributed = "none"; // ranks > 1 sets mpi again as the form applies it
    QMap<QString, QString> errors;
    for (ConfigForm* form : forms()) {
        errors.insert(form->applyTo(c));
        form->updateApplicability(c);
    }
    // In lesson mode, groups whose every row is hidden go too (the pickers' groups stay).
    for (ConfigForm* form : {m_training, m_logging})
        if (QGroupBox* box = enclosingGroup(form))
            box->setVisible(m_lessonControls.isEmpty() || form->hasShownRows());
    if (!sameData(c.data, m_dataset->dataConfig()))
        m_dataset->setDataConfig(c.data); // reopens; factsChanged() refreshes again
    m_model->setModel(QString::fromStdString(c.model), c.modelOptions);
    m_model->setPrecision(QString::fromStdString(c.precision));
    refreshPretrainedWarnings(c);

    const int64_t effective = c.ranks * c.batchSize * c.accumulateGradBatches;
    m_effectiveBatch->setText(
        c.ranks > 1 ? tr("Effective batch: %1 ranks x %2 x %3 = %4 samples per optimizer step")
                          .arg(c.ranks)
                          .arg(c.batchSize)
                          .arg(c.accumulateGradBatches)
                          .arg(effective)
                    : tr("Effective batch: %1 x %2 = %3 samples per optimizer step")
                          .arg(c.batchSize)
                          .arg(c.accumulateGradBatches)
                          .arg(effective));
    m_lrPreview->setSchedule(c.schedule, c.lr, totalSteps(c), c.headLrMult);
    m_memory->setEstimate(m_model->estimate(c.batchSize, c.optimizer), deviceMemoryBytes(c.device),
                          QString::fromStdString(c.device));

    QString blocker;
    if (!errors.isEmpty())
        blocker = errors.first();
    else if (m_dataset->loading())
        blocker = tr("Opening the dataset...");
    else if (!m_dataset->facts().ok)
        blocker = tr("The dataset cannot be opened: %1").arg(m_dataset->facts().error);
    else if (!m_model->error().isEmpty())
        blocker = m_model->error();
    else
        try {
            c.validate();
        } catch (const ConfigError& e) {
            blocker = QString::fromStdString(e.what());
        }
    m_current = c;
    m_blocker = blocker;
    emit changed();
}

} // namespace tb::ui
