// DetectionObjective: head to host f32, loss and gradient on the host, gradient back in the
// head's dtype.
#include "train/detectionobjective.h"

#include "data/dataset.h"

namespace tb {

DetectionObjective::DetectionObjective(const DetectOutput& head, int64_t side,
                                       const detect::DetectionLossOptions& options)
    : m_regMax(static_cast<int>(head.regMax())), m_classes(static_cast<int>(head.classes())),
      m_options(options) {
    std::vector<int64_t> sizes;
    for (int64_t stride : head.strides())
        sizes.push_back(side / stride);
    m_points = detect::anchorPoints(sizes, sizes, head.strides());
}

std::vector<detect::TargetBox> targetsOf(const float* rows, int64_t rowCount) {
    std::vector<detect::TargetBox> out;
    for (int64_t r = 0; r < rowCount; ++r) {
        const float* row = rows + r * kBoxColumns;
        if (row[0] >= 0 && row[5] == 0.0f)
            out.push_back({static_cast<int>(row[0]), {row[1], row[2], row[3], row[4]}});
    }
    return out;
}

const float* DetectionObjective::toHost(Backend& backend, const Tensor& head) {
    const Tensor* source = &head;
    if (head.dtype() != DType::F32) {
        if (!m_f32.defined() || m_f32.numel() < head.numel())
            m_f32 = backend.empty(head.shape(), DType::F32);
        m_f32 = Tensor(m_f32.buffer(), head.shape(), DType::F32);
        backend.cast(head, m_f32);
        source = &m_f32;
    }
    if (source->device() == Device::cpu())
        return source->data<float>();
    if (!m_host.defined() || m_host.numel() < head.numel())
        m_host = Tensor::host(head.shape(), DType::F32);
    Tensor view(m_host.buffer(), head.shape(), DType::F32);
    backend.copy(*source, view);
    return view.data<float>();
}

detect::DetectionLossTerms DetectionObjective::loss(Backend& backend, const Tensor& head,
                                                    const Tensor& boxRows, Tensor* dhead,
                                                    double gradScale) {
    const int64_t images = head.dim(0), anchors = head.dim(2);
    const float* values = toHost(backend, head);
    std::vector<std::vector<detect::TargetBox>> targets;
    const int64_t rows = boxRows.dim(1);
    for (int64_t i = 0; i < images; ++i)
        targets.push_back(targetsOf(boxRows.data<float>() + i * rows * kBoxColumns, rows));
    if (!dhead)
        return detect::detectionLoss(values, images, anchors, m_regMax, m_classes, m_points,
                                     targets, m_options);
    const bool hostGrad = dhead->device() == Device::cpu() && dhead->dtype() == DType::F32;
    if (!hostGrad && (!m_gradHost.defined() || m_gradHost.numel() < head.numel()))
        m_gradHost = Tensor::host(head.shape(), DType::F32);
    Tensor grad = hostGrad ? *dhead : Tensor(m_gradHost.buffer(), head.shape(), DType::F32);
    const detect::DetectionLossTerms terms = detect::detectionLoss(
        values, images, anchors, m_regMax, m_classes, m_points, targets, m_options,
        grad.data<float>(), static_cast<double>(images) * gradScale);
    if (hostGrad)
        return terms;
    if (dhead->dtype() == DType::F32) {
        backend.copy(grad, *dhead);
    } else {
        if (!m_gradDevice.defined() || m_gradDevice.numel() < head.numel())
            m_gradDevice = backend.empty(head.shape(), DType::F32);
        Tensor staged(m_gradDevice.buffer(), head.shape(), DType::F32);
        backend.copy(grad, staged);
        backend.cast(staged, *dhead);
    }
    return terms;
}

std::vector<std::vector<detect::ScoredBox>>
DetectionObjective::detections(Backend& backend, const Tensor& head,
                               const detect::NmsOptions& options) {
    const int64_t images = head.dim(0), anchors = head.dim(2), rows = head.dim(1);
    const float* values = toHost(backend, head);
    std::vector<std::vector<detect::ScoredBox>> out;
    for (int64_t i = 0; i < images; ++i)
        out.push_back(detect::detectionsOf(values + i * rows * anchors, anchors, m_regMax,
                                           m_classes, m_points, options));
    return out;
}

} // namespace tb
