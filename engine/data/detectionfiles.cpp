// FileDetectionSource: images decoded on demand, boxes turned into the decoded image's pixels.
#include "data/detectionfiles.h"

#include "data/imagecodec.h"

#include <filesystem>

namespace tb {

FileDetectionSource::FileDetectionSource(std::string root, std::vector<std::string> names,
                                         std::vector<Entry> entries,
                                         std::vector<std::string> warnings, std::string description)
    : m_root(std::move(root)), m_names(std::move(names)), m_entries(std::move(entries)),
      m_description(std::move(description)) {
    m_warnings = std::move(warnings);
}

LabeledImage FileDetectionSource::load(int64_t index) const {
    const Entry& e = m_entries[static_cast<std::size_t>(index)];
    LabeledImage out;
    out.image = decodeImage(readWholeFile(e.path), e.path);
    for (const LabeledBox& b : e.labels.boxes)
        out.boxes.push_back(toPixels(b, out.image.width, out.image.height));
    return out;
}

const ImageLabels& FileDetectionSource::labels(int64_t index) const {
    return m_entries[static_cast<std::size_t>(index)].labels;
}

std::pair<int, int> FileDetectionSource::imageSize(int64_t index) const {
    const Entry& e = m_entries[static_cast<std::size_t>(index)];
    if (e.labels.width > 0 && e.labels.height > 0)
        return {e.labels.width, e.labels.height};
    return storedImageSize(readWholeFile(e.path), e.path);
}

std::string FileDetectionSource::imageName(int64_t index) const {
    const std::string& path = m_entries[static_cast<std::size_t>(index)].path;
    std::error_code ec;
    const auto relative = std::filesystem::relative(path, m_root, ec);
    return ec || relative.empty() ? path : relative.generic_string();
}

} // namespace tb
