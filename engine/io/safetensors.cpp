// safetensors reader and writer.
#include "io/safetensors.h"

#include "core/errors.h"
#include "core/regularfile.h"
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

// One tensor's entry: {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}.
SafetensorsTensorInfo tensorInfo(const std::string& name, const nlohmann::json& info,
                                 uint64_t dataBytes, const std::string& path) {
    const auto fail = [&](const std::string& why) -> SafetensorsTensorInfo {
        throw DatasetError(path, 8, "header: tensor " + quoteUserData(name) + " " + why);
    };
    SafetensorsTensorInfo t;
    t.name = name;
    if (!info.is_object())
        return fail("is " + info.dump() + ", not an object");
    const auto dtype = info.find("dtype");
    if (dtype == info.end() || !dtype->is_string() ||
        !parseDtype(dtype->get<std::string>(), t.dtype))
        return fail("has an unsupported dtype");
    const auto shape = info.find("shape");
    if (shape == info.end() || !shape->is_array() ||
        shape->size() > static_cast<std::size_t>(Shape::kMaxRank))
        return fail("needs a \"shape\" of at most " + std::to_string(Shape::kMaxRank) + " sizes");
    // Sizes multiply without overflow: each factor is checked against the data that exists.
    uint64_t bytes = dtypeSize(t.dtype);
    std::vector<int64_t> dims;
    for (const auto& d : *shape) {
        if (!d.is_number_unsigned() ||
            (d.get<uint64_t>() > 0 && bytes > dataBytes / d.get<uint64_t>()))
            return fail("has the shape " + shape->dump() + ", not sizes that fit in the file");
        bytes *= d.get<uint64_t>();
        dims.push_back(d.get<int64_t>());
    }
    t.shape = Shape(dims);
    const auto offsets = info.find("data_offsets");
    if (offsets == info.end() || !offsets->is_array() || offsets->size() != 2 ||
        !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
        return fail("needs \"data_offsets\": [begin, end]");
    t.begin = (*offsets)[0].get<uint64_t>();
    t.end = (*offsets)[1].get<uint64_t>();
    if (t.end < t.begin || t.end - t.begin != bytes || t.end > dataBytes)
        return fail("lies outside the file or has the wrong size");
    return t;
}

} // namespace

SafetensorsHeader parseSafetensorsHeader(std::string_view json, uint64_t dataBytes,
                                         const std::string& path) {
    const nlohmann::json header = parseJson(json, path + ": header");
    if (!header.is_object())
        throw DatasetError(path, 8, "header is not a JSON object");
    SafetensorsHeader out;
    for (const auto& [name, info] : header.items()) {
        if (name != "__metadata__") {
            out.tensors.push_back(tensorInfo(name, info, dataBytes, path));
            continue;
        }
        if (!info.is_object())
            throw DatasetError(path, 8, "header: __metadata__ is not an object");
        for (const auto& [key, value] : info.items()) {
            if (!value.is_string())
                throw DatasetError(
                    path, 8, "header: __metadata__ " + quoteUserData(key) + " is not a string");
            out.metadata[key] = value.get<std::string>();
        }
    }
    return out;
}

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
    // Whatever fails (a full disk, the rename), no half-written temporary stays behind.
    auto fail = [&](const std::string& message) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw Error(message);
    };
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            fail("cannot write checkpoint " + tmp);
        uint64_t n = text.size();
        unsigned char len[8];
        for (int i = 0; i < 8; ++i)
            len[i] = static_cast<unsigned char>(n >> (8 * i));
        out.write(reinterpret_cast<const char*>(len), 8);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        for (const auto& e : tensors)
            out.write(static_cast<const char*>(e.tensor.raw()),
                      static_cast<std::streamsize>(e.tensor.bytes()));
        out.close(); // writes the last buffered bytes: check after it
        if (!out)
            fail("cannot write checkpoint " + tmp + " (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        fail("cannot move checkpoint into place at " + path + ": " + ec.message());
}

namespace {

// Reads and checks the header of an open file of `size` bytes; *dataStart is where the tensors'
// bytes begin.
SafetensorsHeader readHeader(std::ifstream& in, uint64_t size, const std::string& path,
                             uint64_t* dataStart) {
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
    *dataStart = 8 + headerLen;
    return parseSafetensorsHeader(text, size - *dataStart, path);
}

std::ifstream openSafetensors(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DatasetError(path, -1, "cannot open the checkpoint");
    return in;
}

} // namespace

std::map<std::string, std::string> readSafetensorsMetadata(const std::string& path) {
    const uint64_t size = regularFileSize(path);
    std::ifstream in = openSafetensors(path);
    uint64_t dataStart = 0;
    return readHeader(in, size, path, &dataStart).metadata;
}

SafetensorsFile readSafetensors(const std::string& path) {
    const uint64_t size = regularFileSize(path);
    std::ifstream in = openSafetensors(path);
    uint64_t dataStart = 0;
    const SafetensorsHeader header = readHeader(in, size, path, &dataStart);
    SafetensorsFile file;
    file.metadata = header.metadata;
    for (const SafetensorsTensorInfo& info : header.tensors) {
        Tensor t = Tensor::host(info.shape, info.dtype);
        in.seekg(static_cast<std::streamoff>(dataStart + info.begin));
        in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(t.bytes()));
        if (!in)
            throw DatasetError(path, static_cast<int64_t>(dataStart + info.begin),
                               "truncated tensor " + quoteUserData(info.name));
        file.tensors.emplace(info.name, std::move(t));
    }
    return file;
}

} // namespace tb
