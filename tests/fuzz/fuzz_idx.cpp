// libFuzzer target: the IDX reader on arbitrary bytes (plain or gzip). The first byte picks the
// rank (images, labels); only DatasetError may come out.
#include "core/errors.h"
#include "data/idxreader.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    const int rank = data[0] % 2 == 0 ? 3 : 1;
    try {
        const tb::IdxArray a = tb::parseIdx(std::span(data + 1, size - 1), "fuzz.idx", rank);
        if (rank == 3 && !a.dims.empty()) {
            tb::IdxArray labels{{a.dims[0]}, std::vector<uint8_t>(a.dims[0], 1)};
            tb::IdxDataset ds(a, labels, {"a", "b"}, "fuzz", "fuzz-labels");
            std::vector<float> out(static_cast<std::size_t>(ds.sampleShape().numel()));
            if (ds.size() > 0)
                ds.get(ds.size() - 1, out.data(), 0);
        }
    } catch (const tb::DatasetError&) {
    }
    return 0;
}
