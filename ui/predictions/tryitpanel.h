// TryItPanel: "Try it": draw on a canvas or open an image and see the top five predictions of
// the current run's newest checkpoint, or of any saved checkpoint. The model loads on a worker
// thread (it opens the run's dataset for its classes and normalisation); each prediction is one
// sample on the CPU, fast enough to follow every stroke.
#pragma once

#include "predictions/checkpointloader.h"
#include "train/predictor.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace tb::ui {

class DrawingCanvas;

class TryItPanel : public QWidget {
    Q_OBJECT

public:
    static constexpr int kTop = 5;

    explicit TryItPanel(QWidget* parent = nullptr);
    ~TryItPanel() override;

    // Loads the model of this checkpoint (the current run's newest, or one the user chose);
    // the same path again does nothing.
    void setCheckpoint(const QString& path);
    QString checkpoint() const { return m_loader.path(); }
    // True once a model is loaded and can answer.
    bool modelReady() const { return m_predictor != nullptr; }
    // What the label under the title says: the model, or why there is none.
    QString status() const;
    // The answers shown now, most probable first (empty before the first stroke).
    const std::vector<Prediction>& predictions() const { return m_predictions; }
    DrawingCanvas* canvas() const { return m_canvas; }
    // Opens an image file onto the canvas; false (and the status says why) when it cannot.
    bool openImage(const QString& path);

signals:
    void modelLoaded();

private:
    void chooseCheckpoint();
    void chooseImage();
    void loaded(const CheckpointLoader<Predictor>::Outcome& outcome);
    void predict();
    void showPredictions();

    std::shared_ptr<Predictor> m_predictor;
    CheckpointLoader<Predictor> m_loader;
    std::vector<Prediction> m_predictions;
    QLabel* m_status;
    DrawingCanvas* m_canvas;
    QCheckBox* m_invert;
    QPushButton* m_clear;
    QPushButton* m_open;
    std::vector<QLabel*> m_names;
    std::vector<QProgressBar*> m_bars;
};

} // namespace tb::ui
