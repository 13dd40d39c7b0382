// Small-file and random-tensor helpers shared by the test suites.
#include "support/testdata.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"

#include <zlib.h>

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace tb::test {

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw Error("cannot write test file " + path);
}

void writeGzipFile(const std::string& path, const std::vector<uint8_t>& bytes) {
    gzFile f = gzopen(path.c_str(), "wb");
    if (!f)
        throw Error("cannot write test file " + path);
    const int written =
        bytes.empty() ? 0 : gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
    if (written != static_cast<int>(bytes.size()))
        throw Error("cannot write test file " + path);
}

Tensor randomTensor(const Shape& shape, uint64_t seed, float lo, float hi) {
    Tensor t = Tensor::host(shape, DType::F32);
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
        p[i] = lo + (hi - lo) * math::uniform01(seed, static_cast<uint64_t>(i));
    return t;
}

float maxAbsDiff(const Tensor& a, const Tensor& b) {
    if (a.numel() != b.numel())
        throw Error("maxAbsDiff: sizes differ");
    float m = 0.0f;
    for (int64_t i = 0; i < a.numel(); ++i)
        m = std::max(m, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
    return m;
}

std::string fashionMnistMissing() {
    std::error_code ec;
    if (std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", ec))
        return {};
    return "Fashion-MNIST is not installed (Debian package dataset-fashion-mnist): the default "
           "set-up cannot load";
}

Shape testSampleShape(const Shape& designed) {
    std::vector<int64_t> dims = designed.dims();
    for (std::size_t i = 1; i < dims.size(); ++i)
        dims[i] = std::min<int64_t>(dims[i], 64);
    return Shape(dims);
}

} // namespace tb::test
