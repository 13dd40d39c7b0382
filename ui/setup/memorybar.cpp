// MemoryBar: painted by hand (a QProgressBar has one segment, this needs four and a legend).
#include "memorybar.h"

#include "core/errors.h"

#include <QPainter>

#include <array>

namespace tb::ui {

namespace {

constexpr int kBarHeight = 14;

struct Segment {
    const char* name;
    QColor color;
};

const std::array<Segment, 4> kSegments = {{{"weights", QColor(0x3b, 0x82, 0xc4)},
                                           {"gradients", QColor(0x8e, 0x6c, 0xc8)},
                                           {"optimizer", QColor(0xd9, 0x8c, 0x2b)},
                                           {"activations", QColor(0x3a, 0xa6, 0x6b)}}};

QString bytes(int64_t b) {
    return QString::fromStdString(formatBytes(static_cast<uint64_t>(b)));
}

} // namespace

MemoryBar::MemoryBar(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("memory-bar"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize MemoryBar::sizeHint() const {
    return {320, kBarHeight + 3 * fontMetrics().height() + 8};
}

QSize MemoryBar::minimumSizeHint() const {
    return {200, sizeHint().height()};
}

bool MemoryBar::fits() const {
    return !m_estimate || m_capacity == 0 ||
           static_cast<uint64_t>(m_estimate->total()) <= m_capacity;
}

void MemoryBar::setEstimate(const std::optional<MemoryEstimate>& estimate, uint64_t capacityBytes,
                            const QString& deviceName) {
    m_estimate = estimate;
    m_capacity = capacityBytes;
    if (!estimate)
        m_caption = tr("No estimate while the model does not build.");
    else if (capacityBytes == 0)
        m_caption = tr("About %1 for training on %2").arg(bytes(estimate->total()), deviceName);
    else
        m_caption = tr("About %1 of %2 on %3%4")
                        .arg(bytes(estimate->total()), bytes(static_cast<int64_t>(capacityBytes)),
                             deviceName,
                             fits() ? QString()
                                    : tr(": will not fit. Lower batch_size (with "
                                         "accumulate_grad_batches to keep the effective batch) "
                                         "or use 16-mixed."));
    setToolTip(estimate ? tr("weights %1, gradients %2, optimizer state %3, activations %4 "
                             "(+ %5 of activation gradients); library workspaces are extra")
                              .arg(bytes(estimate->weights), bytes(estimate->gradients),
                                   bytes(estimate->optimizerState), bytes(estimate->activations),
                                   bytes(estimate->activationGradients))
                        : QString());
    update();
}

void MemoryBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF bar(0.5, 0.5, width() - 1.0, kBarHeight);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(bar, 3, 3);
    if (m_estimate) {
        const std::array<int64_t, 4> parts = {
            m_estimate->weights, m_estimate->gradients, m_estimate->optimizerState,
            m_estimate->activations + m_estimate->activationGradients};
        const double scale = static_cast<double>(
            std::max<uint64_t>(m_capacity, static_cast<uint64_t>(m_estimate->total())));
        double x = bar.left();
        p.setPen(Qt::NoPen);
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const double w = scale > 0 ? bar.width() * static_cast<double>(parts[i]) / scale : 0;
            p.setBrush(fits() ? kSegments[i].color : QColor(0xd1, 0x34, 0x38));
            p.drawRect(QRectF(x, bar.top() + 1, w, bar.height() - 2));
            x += w;
        }
    }
    // Legend, then the caption below it.
    const QFontMetrics fm = fontMetrics();
    int x = 0;
    const int y = kBarHeight + 4;
    for (const Segment& s : kSegments) {
        p.setBrush(s.color);
        p.setPen(Qt::NoPen);
        p.drawRect(x, y + (fm.height() - 8) / 2, 8, 8);
        p.setPen(palette().color(QPalette::WindowText));
        const QString name = tr(s.name);
        p.drawText(x + 11, y + fm.ascent(), name);
        x += 11 + fm.horizontalAdvance(name) + 12;
    }
    p.setPen(fits() ? palette().color(QPalette::WindowText) : QColor(0xd1, 0x34, 0x38));
    p.drawText(QRect(0, y + fm.height() + 2, width(), 2 * fm.height()),
               Qt::TextWordWrap | Qt::AlignLeft, m_caption);
}

} // namespace tb::ui
