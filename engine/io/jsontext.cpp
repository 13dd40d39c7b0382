// Depth-bounded JSON parsing on top of nlohmann's parser callback.
#include "io/jsontext.h"

#include "core/errors.h"

#include <filesystem>
#include <fstream>

namespace tb {

namespace {

// Thrown out of the parser callback to stop at the first level too deep.
struct TooDeep {};

nlohmann::json parseBounded(std::string_view text) {
    const nlohmann::json::parser_callback_t limitDepth =
        [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
            if ((event == nlohmann::json::parse_event_t::object_start ||
                 event == nlohmann::json::parse_event_t::array_start) &&
                static_cast<std::size_t>(depth) >= kMaxJsonDepth)
                throw TooDeep{};
            return true;
        };
    return nlohmann::json::parse(text, limitDepth);
}

} // namespace

std::string jsonErrorText(const nlohmann::json::exception& e) {
    const std::string what = e.what();
    const auto end = what.find("] ");
    return end == std::string::npos ? what : what.substr(end + 2);
}

nlohmann::json parseJson(std::string_view text, const std::string& source) {
    try {
        return parseBounded(text);
    } catch (const TooDeep&) {
        throw DatasetError(source, -1,
                           "JSON nested more than " + std::to_string(kMaxJsonDepth) +
                               " levels deep is not accepted");
    } catch (const nlohmann::json::parse_error& e) {
        throw DatasetError(source, static_cast<int64_t>(e.byte),
                           "not valid JSON: " + jsonErrorText(e));
    } catch (const nlohmann::json::exception& e) {
        // A number beyond double's range (1e999) is out_of_range.406, without an offset.
        throw DatasetError(source, -1, "not valid JSON: " + jsonErrorText(e));
    }
}

nlohmann::json parseJsonFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw DatasetError(path, -1, "is a directory, not a JSON file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DatasetError(path, -1, "cannot be opened for reading");
    // Read in chunks rather than by size: pipes (--config <(...)) and devices have none.
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxJsonFileBytes)
            throw DatasetError(path, -1,
                               "is larger than " + formatBytes(kMaxJsonFileBytes) +
                                   "; a config file or model spec is a few kilobytes");
    }
    if (in.bad())
        throw DatasetError(path, -1, "could not be read");
    return parseJson(text, path);
}

std::optional<nlohmann::json> tryParseJson(std::string_view text) {
    try {
        return parseBounded(text);
    } catch (const TooDeep&) {
        return std::nullopt;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

} // namespace tb
