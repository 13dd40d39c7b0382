// libFuzzer target: the restricted pickle reader that PyTorch checkpoints' data.pkl goes through
// (model.pretrained). Untrusted input by design: only DatasetError may come out, nothing may be
// built from a global it refuses, and no input may crash it, exhaust memory or loop.
#include "core/errors.h"
#include "io/torchpickle.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    try {
        (void)tb::readTorchPickle(std::string_view(reinterpret_cast<const char*>(data), size),
                                  "fuzz");
    } catch (const tb::DatasetError&) {
    }
    return 0;
}
