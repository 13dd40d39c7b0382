// LlmMemoryDialog: Run > Language Model Memory... A what-if calculator for transformer language
// models far beyond this machine (train/llmmemory.h): pick a size (a preset, or a parameter
// count and shape), inference or training, precision, optimizer, batch, context, accumulation,
// activation checkpointing and the attention kind, and see where the memory goes, which common
// GPUs hold it, and the arithmetic behind each part. What `trainbench-cli summary --params`
// prints.
#pragma once

#include "train/llmmemory.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QRadioButton;
class QSpinBox;

namespace tb::ui {

class LlmMemoryChart;

class LlmMemoryDialog : public QDialog {
    Q_OBJECT

public:
    explicit LlmMemoryDialog(QWidget* parent = nullptr);

    // Sets the fields from a preset's shape ("llama-7b"); false for an unknown name.
    bool choosePreset(const QString& name);
    void setTraining(bool training);
    void setPrecision(const QString& precision);
    void setCheckpointing(bool on);
    // "flash" (a fused kernel, the default) or "eager" (the attention scores stored).
    void setAttention(const QString& kind);
    void setBatch(int batch);

    LlmMemoryQuery query() const;
    const LlmMemoryEstimate& estimate() const { return m_estimate; }
    LlmMemoryChart* chart() const { return m_chart; }
    QString fitsText() const;

private:
    void recompute();
    void shapeEdited();

    QComboBox* m_preset;
    QDoubleSpinBox* m_params; // billions
    QSpinBox* m_layers;
    QSpinBox* m_width;
    QSpinBox* m_heads;
    QSpinBox* m_kvHeads;
    QSpinBox* m_context;
    QSpinBox* m_vocab;
    QRadioButton* m_inference;
    QRadioButton* m_training;
    QComboBox* m_precision;
    QComboBox* m_optimizer;
    QSpinBox* m_batch;
    QSpinBox* m_accumulation;
    QCheckBox* m_checkpointing;
    QComboBox* m_attention; // data: "flash" or "eager"
    LlmMemoryChart* m_chart;
    QLabel* m_total;
    QLabel* m_fits;
    QLabel* m_working;
    LlmMemoryEstimate m_estimate;
    bool m_settingPreset = false;
};

} // namespace tb::ui
