// libFuzzer target: a checkpoint's safetensors header and the TrainBench metadata inside it
// (the run's config and its position), as `train --resume FILE` reads them. Only DatasetError
// and ConfigError may come out.
#include "core/errors.h"
#include "io/jsontext.h"
#include "io/safetensors.h"
#include "train/runconfig.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    constexpr uint64_t kDataBytes = 1 << 16; // what follows the header in the pretend file
    try {
        const tb::SafetensorsHeader header = tb::parseSafetensorsHeader(
            std::string_view(reinterpret_cast<const char*>(data), size), kDataBytes, "fuzz");
        for (const tb::SafetensorsTensorInfo& t : header.tensors)
            if (t.end > kDataBytes ||
                t.end - t.begin != static_cast<uint64_t>(t.shape.numel()) * tb::dtypeSize(t.dtype))
                __builtin_trap();
        if (const auto it = header.metadata.find("config"); it != header.metadata.end())
            (void)tb::RunConfig::fromJson(tb::parseJson(it->second, "fuzz: config"));
        if (const auto it = header.metadata.find("position"); it != header.metadata.end())
            (void)tb::parseJson(it->second, "fuzz: position");
    } catch (const tb::DatasetError&) {
    } catch (const tb::ConfigError&) {
    }
    return 0;
}
