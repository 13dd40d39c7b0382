// libFuzzer target: the CIFAR batch reader on arbitrary bytes. The first byte picks CIFAR-10 or
// CIFAR-100 records; only DatasetError may come out.
#include "core/errors.h"
#include "data/cifarreader.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    const bool hundred = data[0] % 2 == 1;
    try {
        tb::CifarArray a = tb::parseCifar(std::span(data + 1, size - 1), "fuzz.bin", hundred);
        tb::CifarDataset ds(std::move(a), std::vector<std::string>(hundred ? 100 : 10, "c"), "f");
        std::vector<float> out(3 * 32 * 32);
        ds.get(ds.size() - 1, out.data(), 0);
    } catch (const tb::DatasetError&) {
    }
    return 0;
}
