// A restricted reader of the pickles in PyTorch checkpoints (protocols 2 to 5, the opcodes that
// torch.save writes). It executes nothing: it builds dicts, lists, tuples, numbers, strings and
// the references PyTorch's tensors are made of (a storage by its key, a view of it), and knows
// only the globals those need; any other global is refused, naming it, when it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tb {

// A storage the pickle refers to by key (its bytes are the file archive/data/<key>).
struct PickleStorage {
    std::string type; // PyTorch's storage class: "FloatStorage", "HalfStorage", "LongStorage"...
    std::string key;
    int64_t numel = 0;
};

// torch._utils._rebuild_tensor_v2(storage, offset, size, stride): a strided view of a storage.
struct PickleTensor {
    PickleStorage storage;
    int64_t offset = 0;
    std::vector<int64_t> size, stride;
};

struct PickleValue {
    enum class Kind { None, Bool, Int, Float, String, List, Tuple, Dict, Global, Storage, Tensor };
    Kind kind = Kind::None;
    bool boolean = false;
    int64_t integer = 0;
    double real = 0.0;
    std::string text; // String; for Global "module.name"
    // List and Tuple items; Dict entries in insertion order. Shared: the pickle's memo may refer
    // to one object from several places.
    std::shared_ptr<std::vector<PickleValue>> items;
    std::shared_ptr<std::vector<std::pair<PickleValue, PickleValue>>> entries;
    PickleStorage storage;
    PickleTensor tensor;
};

// Reads one pickle. Throws DatasetError(file, offset into the pickle, ...) for a malformed or
// cut short pickle, an opcode it does not read, or a global it refuses.
PickleValue readTorchPickle(std::string_view bytes, const std::string& file);

} // namespace tb
