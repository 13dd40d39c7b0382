// ConfigForm: editors for a list of RunConfig keys, generated from the config schema
// (configSchema()): a combo for choices, a check box for flags, a line edit showing the allowed
// range otherwise. Each value is validated as it is typed, by the schema's validateField (what
// the CLI's --set accepts), and an invalid one is marked at its field with the schema's message;
// keys that do not apply to the run (momentum under adamw) are hidden.
#pragma once

#include "train/runconfig.h"

#include <QMap>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <optional>

class QFormLayout;
class QLabel;

namespace tb::ui {

class WrappingLabel;

class ConfigForm : public QWidget {
    Q_OBJECT
public:
    explicit ConfigForm(const QStringList& keys, QWidget* parent = nullptr);

    // Shows the values of `config` (does not emit edited()).
    void setConfig(const RunConfig& config);
    // Sets every key that validates into `config`; returns the message of each that does not.
    QMap<QString, QString> applyTo(RunConfig& config) const;
    // Rows whose key does not apply to `config` (momentum under adamw, ...) are hidden;
    // applyTo() leaves their keys alone.
    void updateApplicability(const RunConfig& config);
    // Lesson mode: only these keys' rows are shown (with updateApplicability's rule too);
    // std::nullopt shows every row again. Takes effect at the next updateApplicability().
    void setShownKeys(std::optional<QStringList> keys) { m_shown = std::move(keys); }
    // Whether any row is shown now (a lesson may leave a whole form empty).
    bool hasShownRows() const;
    // Adds a "?" button after the key's editor (the caller connects its clicked()).
    QWidget* addHelpButton(const QString& key, const QString& tooltip);
    // A file dialog (titled `title`, with `filter`, opening where the key's path is) whose
    // choice fills the key's field as if typed.
    void chooseFile(const QString& key, const QString& title, const QString& filter);

    QWidget* editor(const QString& key) const { return m_rows.value(key).editor; }

signals:
    void edited(const QString& key);

private:
    struct Row {
        ConfigField field;
        QWidget* editor = nullptr;
        QWidget* container = nullptr; // editor plus its help button
        QLabel* label = nullptr;
        WrappingLabel* error = nullptr;
    };
    QString textOf(const Row& row) const;
    void setText(Row& row, const QString& text);
    void validate(const QString& key);
    QWidget* createEditor(const ConfigField& field, const QString& key);
    void placeAfterEditor(const QString& key, QWidget* widget);

    QFormLayout* m_layout;
    QMap<QString, Row> m_rows;
    QStringList m_order;
    std::optional<QStringList> m_shown;
};

// The schema's keys of `group`, in schema order, less `except` (keys another panel edits).
QStringList schemaKeys(ConfigGroup group, const QStringList& except = {});

// The text form of one value of RunConfig::toJson(), as --set takes it ("0.05", "a,b", "true").
QString configValueText(const nlohmann::json& value);

} // namespace tb::ui
