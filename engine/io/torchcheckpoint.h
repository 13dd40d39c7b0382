// Reading PyTorch checkpoints: what torch.save() writes for a state dict (.pth / .pt, the zip
// format PyTorch has written since 1.6), without executing anything in the file. Its pickle is
// read by a restricted reader that builds only dicts, lists, tuples, numbers, strings and
// tensors; a global it does not know (anything but OrderedDict, PyTorch's tensor rebuilders and
// its storage types) is refused, naming it, before anything is built from it.
#pragma once

#include "core/tensor.h"

#include <map>
#include <string>

namespace tb {

struct TorchCheckpoint {
    // Every tensor of the state dict by its name, as host tensors in the nearest dtype: f32 for
    // float and double, f16, bf16, i32 for the integer types (int64 counters such as
    // num_batches_tracked, checked to fit), u8 for uint8 and bool. Nested dicts ({"model":
    // {...}, "optimizer": ...}) give dotted names ("model.conv1.weight").
    std::map<std::string, Tensor> tensors;
};

// Throws DatasetError(path, offset, ...) for a file that is not such a checkpoint, is cut short
// or malformed (the offset is into the pickle), holds a global the reader refuses, or a tensor
// whose storage is missing or too small.
TorchCheckpoint readTorchCheckpoint(const std::string& path);

} // namespace tb
