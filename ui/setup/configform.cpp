// ConfigForm: one row per key; validation reuses RunConfig::set so the window and the CLI accept
// exactly the same values.
#include "configform.h"

#include "core/errors.h"
#include "status/wrappinglabel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QVBoxLayout>

namespace tb::ui {

QString configValueText(const nlohmann::json& value) {
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_boolean())
        return value.get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.is_number_float()) // most values are float: 0.05f reads 0.05, not 0.0500000007
        return QString::number(value.get<double>(), 'g', 7);
    if (value.is_array()) {
        QStringList parts;
        for (const auto& v : value)
            parts << configValueText(v);
        return parts.join(',');
    }
    return QString::fromStdString(value.dump());
}

namespace {

// "1 to 65536", "more than 0, up to 100": the schema's range, shown in an empty field.
QString placeholderFor(const ConfigField& f) {
    if (f.type == "string") // a path or a name, empty by default: its meaning is the tooltip
        return QObject::tr("not set");
    if (f.min.is_null() && f.max.is_null())
        return QString::fromStdString(f.type);
    const QString lo = configValueText(f.min), hi = configValueText(f.max);
    if (f.max.is_null())
        return f.minOpen ? QObject::tr("more than %1").arg(lo) : QObject::tr("%1 or more").arg(lo);
    return f.minOpen ? QObject::tr("more than %1, up to %2").arg(lo, hi)
                     : QObject::tr("%1 to %2").arg(lo, hi);
}

} // namespace

QStringList schemaKeys(ConfigGroup group, const QStringList& except) {
    QStringList keys;
    for (const ConfigField& f : configSchema()) {
        const QString key = QString::fromStdString(f.key);
        if (f.group == group && !except.contains(key))
            keys << key;
    }
    return keys;
}

ConfigForm::ConfigForm(const QStringList& keys, QWidget* parent)
    : QWidget(parent), m_layout(new QFormLayout(this)) {
    m_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_layout->setContentsMargins(0, 0, 0, 0);
    for (const QString& key : keys) {
        const ConfigField* field = findConfigField(key.toStdString());
        Q_ASSERT_X(field, "ConfigForm", "a key the schema does not have");
        if (!field)
            continue;
        Row row;
        row.field = *field;
        row.editor = createEditor(*field, key);
        const QString tip =
            tr("%1 (default %2)")
                .arg(QString::fromStdString(field->help), configValueText(field->defaultValue));
        row.editor->setToolTip(tip);
        // Screen readers say the key and what it does; a checkbox has no text of its own.
        row.editor->setAccessibleName(key);
        row.editor->setAccessibleDescription(QString::fromStdString(field->help));
        row.container = new QWidget(this);
        auto* line = new QHBoxLayout;
        line->setContentsMargins(0, 0, 0, 0);
        line->addWidget(row.editor, 1);
        // Never wider than the column, and as tall as the lines it wraps to.
        row.error = new WrappingLabel(this);
        row.error->setObjectName(key + QStringLiteral("-error"));
        row.error->setStyleSheet(QStringLiteral("color: #d13438;"));
        row.error->hide();
        auto* column = new QVBoxLayout(row.container);
        column->setContentsMargins(0, 0, 0, 0);
        column->setSpacing(2);
        column->addLayout(line);
        column->addWidget(row.error);
        row.label = new QLabel(key, this);
        row.label->setToolTip(tip);
        row.label->setBuddy(row.editor);
        // Qt relates a label to the widget it names only among that widget's siblings, and the
        // row's label is not the editor's (the editor sits in the row's container). A hidden
        // twin beside the editor gives screen readers the relation; without it a combo box is
        // announced by its value alone on Linux ("auto", twice in one form).
        auto* named = new QLabel(key, row.container);
        named->setBuddy(row.editor);
        named->hide();
        m_layout->addRow(row.label, row.container);
        m_rows.insert(key, row);
        m_order << key;
    }
}

QWidget* ConfigForm::createEditor(const ConfigField& field, const QString& key) {
    QWidget* editor = nullptr;
    if (field.type == "bool") {
        auto* box = new QCheckBox(this);
        connect(box, &QCheckBox::toggled, this, [this, key] {
            validate(key);
            emit edited(key);
        });
        editor = box;
    } else if (!field.choices.empty()) {
        auto* combo = new QComboBox(this);
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(12);
        for (const std::string& c : field.choices)
            combo->addItem(QString::fromStdString(c));
        connect(combo, &QComboBox::currentTextChanged, this, [this, key] {
            validate(key);
            emit edited(key);
        });
        editor = combo;
    } else {
        auto* edit = new QLineEdit(this);
        edit->setPlaceholderText(placeholderFor(field));
        connect(edit, &QLineEdit::textEdited, this, [this, key] {
            validate(key);
            emit edited(key);
        });
        editor = edit;
    }
    editor->setObjectName(key);
    return editor;
}

void ConfigForm::placeAfterEditor(const QString& key, QWidget* widget) {
    if (auto it = m_rows.find(key); it != m_rows.end()) {
        auto* column = static_cast<QVBoxLayout*>(it->container->layout());
        static_cast<QHBoxLayout*>(column->itemAt(0)->layout())->addWidget(widget);
    }
}

QWidget* ConfigForm::addHelpButton(const QString& key, const QString& tooltip) {
    auto* button = new QToolButton(this);
    button->setText(QStringLiteral("?"));
    button->setObjectName(key + QStringLiteral("-help"));
    button->setToolTip(tooltip);
    button->setAccessibleName(tr("What %1 does").arg(key));
    button->setAutoRaise(true);
    placeAfterEditor(key, button);
    return button;
}

void ConfigForm::chooseFile(const QString& key, const QString& title, const QString& filter) {
    auto it = m_rows.find(key);
    if (it == m_rows.end())
        return;
    const QString file = QFileDialog::getOpenFileName(this, title, textOf(*it), filter);
    if (file.isEmpty())
        return;
    setText(*it, file);
    validate(key);
    emit edited(key);
}

QString ConfigForm::textOf(const Row& row) const {
    if (auto* box = qobject_cast<QCheckBox*>(row.editor))
        return box->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
    if (auto* combo = qobject_cast<QComboBox*>(row.editor))
        return combo->currentText();
    return static_cast<QLineEdit*>(row.editor)->text().trimmed();
}

void ConfigForm::setText(Row& row, const QString& text) {
    QSignalBlocker block(row.editor);
    if (auto* box = qobject_cast<QCheckBox*>(row.editor))
        box->setChecked(text == QLatin1String("true"));
    else if (auto* combo = qobject_cast<QComboBox*>(row.editor)) {
        if (combo->findText(text) < 0)
            combo->addItem(text); // a value from a config file the built-in choices lack
        combo->setCurrentText(text);
    } else
        static_cast<QLineEdit*>(row.editor)->setText(text);
}

void ConfigForm::setConfig(const RunConfig& config) {
    const nlohmann::json values = config.toJson();
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        const std::string key = it.key().toStdString();
        if (values.contains(key))
            setText(*it, configValueText(values[key]));
        validate(it.key());
    }
}

QMap<QString, QString> ConfigForm::applyTo(RunConfig& config) const {
    QMap<QString, QString> errors;
    for (const QString& key : m_order) {
        const Row& row = m_rows[key];
        if (!row.field.appliesTo(config))
            continue; // momentum under adamw, model.hidden for a CNN: not this run's keys
        const QString text = textOf(row);
        if (text.isEmpty() && row.field.type != "string" && row.field.type != "list") {
            errors.insert(key, tr("%1: needs a value").arg(key));
            continue;
        }
        try {
            config.set(key.toStdString(), text.toStdString());
        } catch (const ConfigError& e) {
            errors.insert(key, QString::fromStdString(e.what()));
        }
    }
    return errors;
}

void ConfigForm::validate(const QString& key) {
    Row& row = m_rows[key];
    QString message;
    const QString text = textOf(row);
    if (text.isEmpty() && row.field.type != "string" && row.field.type != "list")
        message = tr("%1: needs a value").arg(key);
    else if (const auto error = validateField(key.toStdString(), text.toStdString()))
        message = QString::fromStdString(*error);
    row.error->setWrappedText(message);
    row.error->setVisible(!message.isEmpty());
    row.editor->setProperty("invalid", !message.isEmpty());
    row.editor->setStyleSheet(message.isEmpty() ? QString()
                                                : QStringLiteral("border: 1px solid #d13438;"));
}

void ConfigForm::updateApplicability(const RunConfig& config) {
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it)
        m_layout->setRowVisible(it->label, it->field.appliesTo(config) &&
                                               (!m_shown || m_shown->contains(it.key())));
}

bool ConfigForm::hasShownRows() const {
    for (const Row& row : std::as_const(m_rows))
        if (!row.label->isHidden())
            return true;
    return false;
}

} // namespace tb::ui
