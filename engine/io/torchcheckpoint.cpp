// readTorchCheckpoint: the zip's archive/data.pkl read by the restricted pickle reader, each
// tensor gathered from its storage file (archive/data/<key>) into a contiguous host tensor.
#include "io/torchcheckpoint.h"

#include "core/errors.h"
#include "core/half.h"
#include "io/torchpickle.h"

#include <zip.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>

namespace tb {

namespace {

// The zip archive, closed on every way out.
struct Archive {
    zip_t* zip = nullptr;
    ~Archive() {
        if (zip)
            zip_discard(zip); // read-only: nothing to write back
    }
};

// One whole entry of the archive; `what` names it in errors.
// An entry's bytes. With `expected` (a storage's size as the pickle declares it), an entry of
// another size is refused before anything is inflated: a small file must not inflate to
// gigabytes, nor a tensor be read from the first bytes of a storage that is not its own.
std::string readEntry(zip_t* zip, zip_int64_t index, const std::string& path,
                      const std::string& what, std::optional<uint64_t> expected = {}) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        throw DatasetError(path, -1, "cannot read " + what + " in the archive");
    if (expected && st.size != *expected)
        throw DatasetError(path, -1,
                           what + " holds " + std::to_string(st.size) +
                               " bytes where the pickle declares " + std::to_string(*expected));
    if (st.size > (uint64_t{1} << 40))
        throw DatasetError(path, -1, what + " claims " + std::to_string(st.size) + " bytes");
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(zip_fopen_index(zip, index, 0),
                                                           zip_fclose);
    if (!file)
        throw DatasetError(path, -1,
                           "cannot open " + what + " in the archive: " + zip_strerror(zip));
    std::string out(static_cast<std::size_t>(st.size), '\0');
    if (zip_fread(file.get(), out.data(), st.size) != static_cast<zip_int64_t>(st.size))
        throw DatasetError(path, -1, what + " is cut short or corrupt");
    return out;
}

// A storage type's element size and the dtype its tensors are read as.
struct StorageKind {
    const char* type;
    std::size_t bytes;
    DType dtype;
};
constexpr StorageKind kStorageKinds[] = {
    {"FloatStorage", 4, DType::F32}, {"DoubleStorage", 8, DType::F32},
    {"HalfStorage", 2, DType::F16},  {"BFloat16Storage", 2, DType::BF16},
    {"LongStorage", 8, DType::I32},  {"IntStorage", 4, DType::I32},
    {"ShortStorage", 2, DType::I32}, {"CharStorage", 1, DType::I32},
    {"ByteStorage", 1, DType::U8},   {"BoolStorage", 1, DType::U8},
};

const StorageKind& storageKind(const std::string& type, const std::string& path) {
    for (const StorageKind& k : kStorageKinds)
        if (type == k.type)
            return k;
    throw DatasetError(path, -1, "a tensor of storage type " + type + " (not readable here)");
}

// The storage element at `src`, widened or narrowed into the tensor's element at `out`.
void convert(const StorageKind& k, const char* src, void* out, const std::string& name,
             const std::string& path) {
    const std::string type = k.type;
    if (type == "FloatStorage" || type == "HalfStorage" || type == "BFloat16Storage" ||
        type == "ByteStorage" || type == "BoolStorage" || type == "IntStorage") {
        std::memcpy(out, src, k.bytes);
        return;
    }
    if (type == "DoubleStorage") {
        double d;
        std::memcpy(&d, src, 8);
        const float f = static_cast<float>(d);
        std::memcpy(out, &f, 4);
        return;
    }
    int64_t v = 0;
    if (type == "LongStorage")
        std::memcpy(&v, src, 8);
    else if (type == "ShortStorage") {
        int16_t s;
        std::memcpy(&s, src, 2);
        v = s;
    } else { // CharStorage: int8
        v = static_cast<int8_t>(*src);
    }
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
        throw DatasetError(path, -1,
                           name + " holds " + std::to_string(v) + ", beyond a 32-bit integer");
    const auto i = static_cast<int32_t>(v);
    std::memcpy(out, &i, 4);
}

class Reader {
public:
    Reader(zip_t* zip, std::string prefix, const std::string& path)
        : m_zip(zip), m_prefix(std::move(prefix)), m_path(path) {}

    void collect(const PickleValue& v, const std::string& name, TorchCheckpoint& out) {
        if (v.kind == PickleValue::Kind::Tensor) {
            out.tensors[name] = tensorOf(v.tensor, name);
            return;
        }
        if (v.kind != PickleValue::Kind::Dict)
            return; // numbers, strings, lists: not weights
        for (const auto& [key, value] : *v.entries) {
            if (key.kind != PickleValue::Kind::String)
                continue;
            collect(value, name.empty() ? key.text : name + "." + key.text, out);
        }
    }

private:
    // The storage's bytes: numel elements of its type, as the pickle declares (checked before
    // the entry is inflated).
    const std::string& storageBytes(const PickleStorage& s, const StorageKind& kind) {
        auto it = m_storages.find(s.key);
        if (it != m_storages.end())
            return it->second;
        const std::string entry = m_prefix + "data/" + s.key;
        const zip_int64_t index = zip_name_locate(m_zip, entry.c_str(), 0);
        if (index < 0)
            throw DatasetError(m_path, -1, "the archive has no storage " + entry);
        if (s.numel < 0 || static_cast<uint64_t>(s.numel) > (uint64_t{1} << 40) / kind.bytes)
            throw DatasetError(m_path, -1,
                               "storage " + entry + " declares " + std::to_string(s.numel) +
                                   " elements");
        const uint64_t declared = static_cast<uint64_t>(s.numel) * kind.bytes;
        return m_storages
            .emplace(s.key, readEntry(m_zip, index, m_path, "storage " + entry, declared))
            .first->second;
    }

    Tensor tensorOf(const PickleTensor& t, const std::string& name) {
        const StorageKind& kind = storageKind(t.storage.type, m_path);
        const std::string& bytes = storageBytes(t.storage, kind);
        const auto elements = static_cast<int64_t>(bytes.size() / kind.bytes);
        if (t.size.size() > static_cast<std::size_t>(Shape::kMaxRank))
            throw DatasetError(m_path, -1,
                               name + " has " + std::to_string(t.size.size()) + " dimensions");
        int64_t count = 1;
        for (int64_t d : t.size) {
            if (d < 0 || (d > 0 && count > std::numeric_limits<int64_t>::max() / d))
                throw DatasetError(m_path, -1, name + " has an impossible size");
            count *= d;
        }
        const Shape shape(t.size);
        // The farthest element the view reaches must lie in the storage.
        int64_t last = t.offset;
        for (std::size_t i = 0; i < t.size.size(); ++i) {
            if (t.stride[i] < 0)
                throw DatasetError(m_path, -1, name + " has a negative stride");
            if (t.size[i] > 1 && t.stride[i] > 0 && t.size[i] - 1 > (elements - last) / t.stride[i])
                throw DatasetError(m_path, -1, name + " reaches past its storage");
            if (t.size[i] > 0)
                last += (t.size[i] - 1) * t.stride[i];
        }
        if (t.offset < 0 || (count > 0 && last >= elements))
            throw DatasetError(m_path, -1,
                               name + " reaches element " + std::to_string(last) +
                                   " of a storage of " + std::to_string(elements));
        Tensor out = Tensor::host(shape, kind.dtype);
        auto* dst = static_cast<char*>(out.raw());
        const std::size_t outBytes = dtypeSize(kind.dtype);
        std::vector<int64_t> index(t.size.size(), 0);
        for (int64_t n = 0; n < count; ++n) {
            int64_t at = t.offset;
            for (std::size_t i = 0; i < index.size(); ++i)
                at += index[i] * t.stride[i];
            convert(kind, bytes.data() + static_cast<std::size_t>(at) * kind.bytes,
                    dst + static_cast<std::size_t>(n) * outBytes, name, m_path);
            for (std::size_t i = index.size(); i-- > 0;) { // row-major odometer
                if (++index[i] < t.size[i])
                    break;
                index[i] = 0;
            }
        }
        return out;
    }

    zip_t* m_zip;
    std::string m_prefix; // "archive/" (the folder torch.save names after the file)
    const std::string& m_path;
    std::map<std::string, std::string> m_storages; // read once, shared by views
};

} // namespace

TorchCheckpoint readTorchCheckpoint(const std::string& path) {
    Archive archive;
    int error = 0;
    archive.zip = zip_open(path.c_str(), ZIP_RDONLY, &error);
    if (!archive.zip) {
        zip_error_t e;
        zip_error_init_with_code(&e, error);
        const std::string why = zip_error_strerror(&e);
        zip_error_fini(&e);
        if (error == ZIP_ER_NOENT)
            throw DatasetError(path, -1, "file does not exist");
        if (error == ZIP_ER_OPEN || error == ZIP_ER_READ || error == ZIP_ER_MEMORY)
            throw DatasetError(path, -1, "cannot be read: " + why);
        // What it is instead, from its first bytes: a damaged zip, or PyTorch's older format.
        char magic[4] = {};
        std::ifstream(path, std::ios::binary).read(magic, sizeof magic);
        if (std::memcmp(magic, "PK\x03\x04", 4) == 0)
            throw DatasetError(path, -1,
                               "a zip archive that is cut short or damaged (" + why + ")");
        if (static_cast<unsigned char>(magic[0]) == 0x80)
            throw DatasetError(path, -1,
                               "PyTorch's format from before 1.6 (_use_new_zipfile_"
                               "serialization=False), which is read only by running its pickle: "
                               "save it again with a current PyTorch, "
                               "torch.save(torch.load(\"old.pth\"), \"new.pth\")");
        throw DatasetError(
            path, -1, "not a PyTorch checkpoint (torch.save writes a zip archive; " + why + ")");
    }
    // The pickle is <folder>/data.pkl; the storages are <folder>/data/<key>.
    zip_int64_t pickle = -1;
    std::string prefix;
    const zip_int64_t entries = zip_get_num_entries(archive.zip, 0);
    for (zip_int64_t i = 0; i < entries; ++i) {
        const std::string name = zip_get_name(archive.zip, static_cast<zip_uint64_t>(i), 0);
        const std::size_t slash = name.find('/');
        if (slash != std::string::npos && name.substr(slash + 1) == "data.pkl") {
            pickle = i;
            prefix = name.substr(0, slash + 1);
            break;
        }
    }
    if (pickle < 0)
        throw DatasetError(path, -1, "a zip without the data.pkl a torch.save checkpoint holds");
    if (const zip_int64_t order = zip_name_locate(archive.zip, (prefix + "byteorder").c_str(), 0);
        order >= 0 && readEntry(archive.zip, order, path, "byteorder") != "little")
        throw DatasetError(path, -1, "a checkpoint saved on a big-endian machine");
    const std::string bytes = readEntry(archive.zip, pickle, path, prefix + "data.pkl");
    const PickleValue root = readTorchPickle(bytes, path + " (" + prefix + "data.pkl)");
    if (root.kind != PickleValue::Kind::Dict)
        throw DatasetError(path, -1, "holds no state dict (its pickle is not a dict)");
    TorchCheckpoint out;
    Reader(archive.zip, prefix, path).collect(root, "", out);
    if (out.tensors.empty())
        throw DatasetError(path, -1, "holds no tensors");
    return out;
}

} // namespace tb
