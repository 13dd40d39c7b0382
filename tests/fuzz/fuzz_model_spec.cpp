// libFuzzer target: a user's model spec (JSON), built into a graph as `summary --model spec.json`
// does. Only DatasetError (not JSON) and ConfigError (naming the layer and option) may come out.
#include "support/hostonlybackend.h"

#include "core/errors.h"
#include "io/jsontext.h"
#include "nn/graph.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

// The fuzzer hunts parsing and checking bugs; a spec that asks for gigabytes is the memory
// checks' business (and would only trip the fuzzer's RSS limit), so large sizes are skipped.
bool small(const nlohmann::json& v) {
    if (v.is_number())
        return v.get<double>() <= 64;
    if (v.is_array() || v.is_object()) {
        for (const auto& item : v)
            if (!small(item))
                return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static tb::test::HostOnlyBackend backend;
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const nlohmann::json spec = tb::parseJson(text, "spec.json");
        if (!small(spec))
            return 0;
        tb::Graph graph(spec, backend, tb::DType::F32, 0);
        (void)graph.summary(2);
    } catch (const tb::DatasetError&) {
    } catch (const tb::ConfigError&) {
    }
    return 0;
}
