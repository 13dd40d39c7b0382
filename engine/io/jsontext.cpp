// Depth-bounded JSON parsing on top of nlohmann's parser callback, and reading JSON files
// (regular files, pipes and devices alike, bounded in size).
#include "io/jsontext.h"

#include "core/errors.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// For a number the parser could not represent (out_of_range.406: "number overflow parsing
// '1e999'"): where in the text it is and the key it is the value of, when it has one, so the
// message can name both; nlohmann reports neither.
struct NumberPlace {
    int64_t offset = -1;
    std::string token, key;
};

NumberPlace locateNumber(std::string_view text, const std::string& what) {
    NumberPlace place;
    const auto open = what.find("parsing '");
    const auto close = open == std::string::npos ? open : what.find('\'', open + 9);
    if (close == std::string::npos)
        return place;
    place.token = what.substr(open + 9, close - open - 9);
    const auto at = text.find(place.token);
    if (place.token.empty() || at == std::string_view::npos)
        return place;
    place.offset = static_cast<int64_t>(at);
    auto i = at;
    const auto skipSpaceBack = [&] {
        while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1])))
            --i;
    };
    skipSpaceBack();
    if (i == 0 || text[i - 1] != ':')
        return place; // an array element: no key
    --i;
    skipSpaceBack();
    if (i == 0 || text[i - 1] != '"')
        return place;
    const auto end = --i;
    while (i > 0 && !(text[i - 1] == '"' && (i < 2 || text[i - 2] != '\\')))
        --i;
    if (i > 0)
        place.key = std::string(text.substr(i, end - i));
    return place;
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
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond double's range (1e999): out_of_range.406, without an offset or key.
        const NumberPlace place = locateNumber(text, e.what());
        if (place.offset < 0)
            throw DatasetError(source, -1, "not valid JSON: " + jsonErrorText(e));
        throw DatasetError(source, place.offset,
                           (place.key.empty() ? "a number" : "the value of \"" + place.key + "\"") +
                               ", " + place.token +
                               ", is beyond the range of a number (about 1.8e308)");
    } catch (const nlohmann::json::exception& e) {
        throw DatasetError(source, -1, "not valid JSON: " + jsonErrorText(e));
    }
}

std::string readJsonText(const std::string& path) {
    // Opened without blocking: a FIFO that no program writes to would otherwise hang open()
    // (and Ctrl-C with it); it reads as empty instead. Pipes (--config <(...)) and devices have
    // no size, so the text is read in chunks up to the bound.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw DatasetError(path, -1, std::string("cannot be opened for reading: ") +
                                         std::strerror(errno));
    const std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
        ::close(*f);
        delete f;
    });
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode))
        throw DatasetError(path, -1, "is a folder, not a JSON file");
    const bool pipe = S_ISFIFO(st.st_mode);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK); // from here, wait for a writer's data
    std::string text;
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw DatasetError(path, -1, std::string("could not be read: ") + std::strerror(errno));
        if (n == 0)
            break;
        text.append(chunk, static_cast<std::size_t>(n));
        if (text.size() > kMaxJsonFileBytes)
            throw DatasetError(path, -1,
                               "is larger than " + formatBytes(kMaxJsonFileBytes) +
                                   "; a config file or model spec is a few kilobytes");
    }
    if (text.empty())
        throw DatasetError(path, -1,
                           pipe ? "is a pipe that nothing was written to (no program had it open "
                                  "for writing)"
                                : "is empty, not a JSON file");
    return text;
}

nlohmann::json parseJsonFile(const std::string& path) {
    return parseJson(readJsonText(path), path);
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
