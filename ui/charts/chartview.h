// ChartView: the QCustomPlot view under every live chart. Drag pans, the wheel zooms, a
// double-click or "Fit" returns to autoscale (all data, always); with the keyboard focus on the
// plot, arrows pan, + and - zoom, Home fits and Ctrl+E opens the export menu; colours follow the
// palette; each chart exports its own PNG, SVG and CSV; it replots only when new data arrived.
#pragma once

#include "charts/xaxismode.h"

#include <QWidget>

class QCPAxis;
class QCPAxisRect;
class QCPRange;
class QCPLayoutGrid;
class QCPMarginGroup;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QTextStream;
class QToolButton;

namespace tb::ui {

class ChartView : public QWidget {
    Q_OBJECT

public:
    explicit ChartView(const QString& title, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QString title() const;

    XAxisMode xAxisMode() const { return m_xAxisMode; }
    // Moves every point to the new x keys; charts that are not keyed by step ignore it.
    void setXAxisMode(XAxisMode mode);

    // True until the user pans or zooms: the ranges then show all data after every replot.
    bool isAutoscaling() const { return !m_userZoomed; }
    // Back to autoscale, replotted now (the "Fit" button, double-click and Home).
    void fit();
    // Moves every axis rect's view by a fraction of its visible range (x right, y up), or
    // scales it about its centre (below 1 zooms in): the keyboard's pan and zoom.
    void pan(double dx, double dy);
    void zoom(double factor);

    void markDirty() { m_dirty = true; }
    bool isDirty() const { return m_dirty; }
    // Replots if data changed since the last replot; a hidden chart stays dirty until it is
    // shown. Returns whether it replotted. The panel calls it once per tick.
    bool replotIfDirty();

    // Write the chart as it is now (PNG or SVG, its widget size) or all its data (CSV, a header
    // row then one row per point). False, with exportFailed() emitted, when the file cannot be
    // written.
    bool exportPng(const QString& path);
    bool exportSvg(const QString& path);
    bool exportCsv(const QString& path);

signals:
    // An export could not be written: the path and why, for the window to show.
    void exportFailed(const QString& path, const QString& reason);

public:
protected:
    // One header line then data rows, comma separated; missing values as empty fields.
    virtual void writeCsv(QTextStream& out) const = 0;
    // Sets every axis range to show all data (called before a replot while autoscaling).
    virtual void fitToData() = 0;
    // The x-axis mode changed: re-key the plotted data.
    virtual void xAxisModeChanged() {}

    // Another axis rect at (row, column) of the chart's grid, its margins aligned with the
    // others and styled like the default rect; with linkX its x range is kept in step with the
    // first one's (the same keys), else it has its own (another quantity on x).
    QCPAxisRect* addAxisRect(int row, int column, bool linkX = true);
    // How much of the height row `row` of axis rects takes, relative to the others (1 each).
    void setRowStretch(int row, double factor);
    // Removes every axis rect but the first (for charts whose layout depends on the data).
    void removeExtraAxisRects();
    // Where a chart adds its own controls, left of "Fit" and "Export".
    QHBoxLayout* controls() const { return m_controls; }
    // Replots now if dirty, for changes the user made (slider, axis mode) between ticks.
    void refresh();

    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    static QCPRange shifted(QCPAxis* axis, double fraction);
    void userMovedTheView();
    void styleAxisRect(QCPAxisRect* rect);
    void applyPalette();
    void linkXAxis(QCPAxisRect* rect);
    void chooseAndExportPng();
    void chooseAndExportSvg();
    void chooseAndExportCsv();
    bool failExport(const QString& path, const QString& reason);
    void showContextMenu(const QPoint& pos);
    // After each layout: vertical axis titles shown only where their rect is tall enough,
    // ticks as many as the rect's height keeps apart, legend columns as many as fit, so no
    // title, tick label or legend entry is drawn over another at any size.
    void fitDecorations();

    QCustomPlot* m_plot;
    QLabel* m_title;
    QToolButton* m_export;
    QHBoxLayout* m_controls;
    QCPLayoutGrid* m_rects;
    QCPMarginGroup* m_marginGroup;
    XAxisMode m_xAxisMode = XAxisMode::Step;
    bool m_userZoomed = false;
    bool m_dirty = false;
    bool m_linkingX = false;
    bool m_legendDropped = false; // fitDecorations hid the legend for want of height
    QList<QCPAxis*> m_linkedX;    // x axes that move together
};

} // namespace tb::ui
