// Parsing JSON text that a user or another program wrote: config files, model specs, caches,
// checkpoint metadata. Every JSON parse in the engine and the CLI goes through here, so nesting
// depth is bounded in one place.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tb {

// Deeper nesting is refused: code that walks a document (copies, dump(), applyJson, layer
// specs) recurses once per level, and 100k levels overflow the stack. Real documents need < 10.
inline constexpr std::size_t kMaxJsonDepth = 128;

// Parses text as JSON. Throws DatasetError(source, byte offset, why) when the text is not JSON
// or nests deeper than kMaxJsonDepth; source names the file (or "file: field") in the message.
nlohmann::json parseJson(std::string_view text, const std::string& source);

// Config files and model specs are small; a larger "file" is a mistake (/dev/zero, a dataset).
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{64} << 20;

// The text of a JSON file, read as parseJsonFile() does; throws DatasetError(path, -1, ...) for
// what prevents reading it (missing, a folder, empty, too large).
std::string readJsonText(const std::string& path);

// Reads and parses a whole file, which may be a pipe (a shell's <(...)) or a FIFO: reading is
// bounded, and a FIFO nothing writes to reads as empty instead of blocking. Throws
// DatasetError(path, ...) when it cannot be read (a directory, a missing file), is empty or
// larger than kMaxJsonFileBytes, or does not parse (a number too large names its key).
nlohmann::json parseJsonFile(const std::string& path);

// nlohmann's message without its "[json.exception.type_error.302] " prefix, for messages that
// wrap an error from reading a parsed document.
std::string jsonErrorText(const nlohmann::json::exception& e);

// For text whose loss is harmless (caches, probes, stored copies): nullopt instead of an error.
std::optional<nlohmann::json> tryParseJson(std::string_view text);

} // namespace tb
