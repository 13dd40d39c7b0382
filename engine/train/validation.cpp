// Validation: the loss op sums on the device; a classifier's logits of each batch come back to
// the host for the confusion matrix (a small copy per batch, outside the training step).
#include "train/validation.h"

#include "train/lossrows.h"
#include "train/validationtally.h"

namespace tb {

const Tensor& stageOnDevice(Backend& backend, const Tensor& host, Tensor& device) {
    if (backend.device() == host.device())
        return host;
    // The buffer's size, not the last view's: after a short last batch, a full one fits again.
    if (!device.defined() || device.buffer()->bytes() < host.bytes())
        device = backend.empty(host.shape(), host.dtype());
    device = Tensor(device.buffer(), host.shape(), host.dtype());
    backend.copy(host, device);
    return device;
}

const float* logitsOnHost(Backend& backend, const Tensor& logits, Tensor& f32, Tensor& host) {
    const Tensor* source = &logits;
    if (logits.dtype() != DType::F32) {
        if (!f32.defined() || f32.numel() < logits.numel())
            f32 = backend.empty(logits.shape(), DType::F32);
        f32 = Tensor(f32.buffer(), logits.shape(), DType::F32);
        backend.cast(logits, f32);
        source = &f32;
    }
    if (!host.defined() || host.numel() < logits.numel())
        host = Tensor::host(logits.shape(), DType::F32);
    Tensor view(host.buffer(), logits.shape(), DType::F32);
    backend.copy(*source, view);
    return view.data<float>();
}

bool validate(Backend& backend, Graph& graph, DataLoader& loader, int64_t batchSize,
              Tensor& deviceInputs, Tensor& deviceLabels, EpochEvent& epoch,
              std::stop_token& stop) {
    loader.startEpoch(0);
    // The loss op adds each batch's mean. Every batch is full but the last, which goes to its own
    // sums, so the mean over samples weighs a short last batch by its size.
    Tensor full = backend.empty({2}, DType::F32);
    Tensor last = backend.empty({2}, DType::F32);
    backend.fill(full, 0.0f);
    backend.fill(last, 0.0f);
    const Dataset& dataset = loader.dataset();
    const bool sequence = graph.positions() > 1;
    ValidationTally tally(sequence ? 0 : dataset.numClasses(),
                          sequence ? std::vector<std::string>{} : dataset.classNames());
    Tensor logitsF32, logitsHost;
    int64_t samples = 0, shortBatch = 0;
    while (auto batch = loader.next()) {
        if (stop.stop_requested())
            return false;
        const Tensor& x = stageOnDevice(backend, batch->inputs, deviceInputs);
        const Tensor& y = stageOnDevice(backend, batch->labels, deviceLabels);
        const Tensor& logits = graph.forward(x, false);
        const int64_t n = batch->labels.dim(0);
        backend.softmaxCrossEntropy(logitRows(logits), labelRows(y), 0.0f,
                                    n == batchSize ? full : last, nullptr, nullptr, 1.0f);
        // A language model predicts a token at every position: its report is the loss and
        // accuracy; a confusion matrix over the vocabulary would say little.
        if (!sequence)
            tally.add(logitsOnHost(backend, logits, logitsF32, logitsHost),
                      batch->labels.data<int32_t>(), n, batch->inputs, samples);
        samples += n;
        if (n != batchSize)
            shortBatch = n;
    }
    Tensor a = Tensor::host({2}, DType::F32), b = Tensor::host({2}, DType::F32);
    backend.copy(full, a);
    backend.copy(last, b);
    const double lossTotal = static_cast<double>(a.data<float>()[0]) * batchSize +
                             static_cast<double>(b.data<float>()[0]) * shortBatch;
    const double correct = static_cast<double>(a.data<float>()[1]) + b.data<float>()[1];
    epoch.valLoss = samples ? lossTotal / static_cast<double>(samples) : 0.0;
    // Accuracy over predictions: a language model makes one at each position of a sample.
    const double predictions = static_cast<double>(samples * graph.positions());
    epoch.valAcc = samples ? correct / predictions : 0.0;
    if (!sequence)
        epoch.validation = tally.take();
    return true;
}

} // namespace tb
