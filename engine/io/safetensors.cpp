// safetensors reader and writer.
#include "io/safetensors.h"

#include "core/errors.h"
#include "io/jsontext.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tb {

namespace {

std::string dtypeTag(DType t) {
    switch (t) {
    case DType::F32:
        return "F32";
    case DType::F16:
        return "F16";
    case DType::BF16:
        return "BF16";
    case DType::I32:
        return "I32";
    case DType::U8:
        return "U8";
    }
    return "?";
}

bool parseDtype(const std::string& s, DType& out) {
    for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I32, DType::U8})
        if (dtypeTag(t) == s) {
            out = t;
            return true;
        }
    return false;
}

} // namespace

void writeSafetensors(const std::string& path, const std::vector<SafetensorsEntry>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    nlohmann::json header = nlohmann::json::object();
    uint64_t offset = 0;
    for (const auto& e : tensors) {
        const uint64_t bytes = e.tensor.bytes();
        header[e.name] = {{"dtype", dtypeTag(e.tensor.dtype())},
                          {"shape", e.tensor.shape().dims()},
                          {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' '); // keeps the data 8-byte aligned
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw Error("cannot write checkpoint " + tmp);
        uint64_t n = text.size();
        unsigned char len[8];
        for (int i = 0; i < 8; ++i)
            len[i] = static_cast<unsigned char>(n >> (8 * i));
        out.write(reinterpret_cast<const char*>(len), 8);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        for (const auto& e : tensors)
            out.write(static_cast<const char*>(e.tensor.raw()),
                      static_cast<std::streamsize>(e.tensor.bytes()));
        out.flush();
        if (!out)
            throw Error("cannot write checkpoint " + tmp + " (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        throw Error("cannot move checkpoint into place at " + path + ": " + ec.message());
}

SafetensorsFile readSafetensors(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DatasetError(path, -1, "cannot open the checkpoint");
    in.seekg(0, std::ios::end);
    const auto size = static_cast<uint64_t>(in.tellg());
    in.seekg(0);
    unsigned char len[8];
    if (size < 8 || !in.read(reinterpret_cast<char*>(len), 8))
        throw DatasetError(path, 0, "too short to be a safetensors file");
    uint64_t headerLen = 0;
    for (int i = 0; i < 8; ++i)
        headerLen |= static_cast<uint64_t>(len[i]) << (8 * i);
    if (headerLen > size - 8 || headerLen > (100u << 20))
        throw DatasetError(path, 0,
                           "header length " + std::to_string(headerLen) +
                               " exceeds the file size " + std::to_string(size));
    std::string text(headerLen, '\0');
    in.read(text.data(), static_cast<std::streamsize>(headerLen));
    const nlohmann::json header = parseJson(text, path + ": header");
    const uint64_t dataStart = 8 + headerLen;
    SafetensorsFile file;
    for (const auto& [name, info] : header.items()) {
        if (name == "__metadata__") {
            file.metadata = info.get<std::map<std::string, std::string>>();
            continue;
        }
        DType dtype{};
        if (!info.is_object() || !parseDtype(info.value("dtype", ""), dtype))
            throw DatasetError(path, 8, "tensor '" + name + "' has an unsupported dtype");
        const auto dims = info.at("shape").get<std::vector<int64_t>>();
        const auto offsets = info.at("data_offsets").get<std::vector<uint64_t>>();
        const Shape shape(dims);
        if (offsets.size() != 2 || offsets[1] < offsets[0] ||
            offsets[1] - offsets[0] != static_cast<uint64_t>(shape.numel()) * dtypeSize(dtype) ||
            dataStart + offsets[1] > size)
            throw DatasetError(path,
                               static_cast<int64_t>(dataStart + (offsets.empty() ? 0 : offsets[0])),
                               "tensor '" + name + "' lies outside the file or has the wrong size");
        Tensor t = Tensor::host(shape, dtype);
        in.seekg(static_cast<std::streamoff>(dataStart + offsets[0]));
        in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(t.bytes()));
        if (!in)
            throw DatasetError(path, static_cast<int64_t>(dataStart + offsets[0]),
                               "truncated tensor '" + name + "'");
        file.tensors.emplace(name, std::move(t));
    }
    return file;
}

} // namespace tb
