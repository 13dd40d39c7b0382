// LrPreview: a small plot of the learning rate over the whole run, for the chosen schedule.
#pragma once

#include "optim/lrschedule.h"

#include <QWidget>

class QCustomPlot;

namespace tb::ui {

class LrPreview : public QWidget {
    Q_OBJECT
public:
    explicit LrPreview(QWidget* parent = nullptr);

    // Samples the schedule at up to 400 points over [0, totalSteps). With a head multiplier other
    // than 1 (finetune.head_lr_mult) the classifier head's group is a second curve.
    void setSchedule(const ScheduleConfig& schedule, float baseLr, int64_t totalSteps,
                     float headLrMult = 1.0f);
    int pointCount() const;
    // The head group's curve: empty when it is the base rate (for tests).
    int headPointCount() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyPalette();
    QCustomPlot* m_plot;
};

} // namespace tb::ui
