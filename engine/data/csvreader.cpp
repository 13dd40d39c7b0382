// CSV parsing (quoted cells, header detection, label mapping) and the CsvDataset.
#include "data/csvreader.h"

#include "core/errors.h"
#include "data/channelstats.h"
#include "data/imagecodec.h"
#include "data/rawsplits.h"
#include "data/transforms.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace tb {

namespace {

// Wider tables are refused before their cells are held: a row of millions of cells is not a
// sample an MLP can take, and splitting it cost gigabytes before anything failed.
constexpr std::size_t kMaxCsvColumns = 100000;

struct Row {
    int64_t line = 0;
    std::vector<std::string> cells;
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// The non-blank lines of a CSV text, one at a time, with their 1-based line numbers.
class LineReader {
public:
    explicit LineReader(std::string_view text) : m_text(text) {
        if (m_text.starts_with("\xEF\xBB\xBF"))
            m_pos = 3; // UTF-8 byte order mark
    }
    bool next(std::string_view& line, int64_t& number) {
        while (m_pos < m_text.size()) {
            std::size_t end = m_text.find('\n', m_pos);
            if (end == std::string_view::npos)
                end = m_text.size();
            line = m_text.substr(m_pos, end - m_pos);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            ++m_line;
            m_pos = end + 1;
            if (!trim(line).empty()) {
                number = m_line;
                return true;
            }
        }
        return false;
    }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    int64_t m_line = 0;
};

// Splits one line into row.cells; "..." quotes may hold commas and "" stands for a quote.
void splitLine(std::string_view line, const std::string& name, Row& row) {
    row.cells.clear();
    std::string cell;
    bool quoted = false, wasQuoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"' && trim(cell).empty()) {
            quoted = wasQuoted = true;
            cell.clear();
        } else if (c == ',') {
            if (row.cells.size() + 1 == kMaxCsvColumns)
                throw DatasetError(name, row.line,
                                   "column " + std::to_string(kMaxCsvColumns + 1) +
                                       " starts at character " + std::to_string(i + 2) +
                                       ": a table may have at most " +
                                       std::to_string(kMaxCsvColumns) + " columns",
                                   true);
            row.cells.emplace_back(wasQuoted ? cell : std::string(trim(cell)));
            cell.clear();
            wasQuoted = false;
        } else {
            cell += c;
        }
    }
    if (quoted)
        throw DatasetError(name, row.line, "unterminated quoted cell", true);
    row.cells.emplace_back(wasQuoted ? cell : std::string(trim(cell)));
}

bool parseNumber(std::string_view s, float& v) {
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    if (s.empty())
        return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && std::isfinite(v);
}

bool isNumber(std::string_view s) {
    float v = 0;
    return parseNumber(s, v);
}

bool parseIndex(std::string_view s, int64_t& v) {
    if (s.empty())
        return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && v >= 0;
}

} // namespace

// Rows are parsed one at a time into floats, so the table costs its features and labels, not a
// string per cell of the whole file; only the first two rows are kept whole, to find a header.
CsvTable parseCsv(std::string_view text, const std::string& name, const CsvOptions& options) {
    if (options.header != "auto" && options.header != "yes" && options.header != "no")
        throw ConfigError("data.csv_header",
                          "must be auto, yes or no, not " + quoteUserData(options.header));
    LineReader lines(text);
    std::string_view line;
    Row first, second;
    if (!lines.next(line, first.line))
        throw DatasetError(name, 1, "file holds no rows", true);
    splitLine(line, name, first);
    const std::size_t cols = first.cells.size();
    if (cols < 2)
        throw DatasetError(name, first.line, "needs at least one feature column and a label column",
                           true);
    const auto requireWidth = [&](const Row& r) {
        if (r.cells.size() != cols)
            throw DatasetError(name, r.line,
                               "row has " + std::to_string(r.cells.size()) + " cells, expected " +
                                   std::to_string(cols),
                               true);
    };
    const bool hasSecond = lines.next(line, second.line);
    if (hasSecond) {
        splitLine(line, name, second);
        requireWidth(second);
    }
    int64_t labelIndex = -1;
    const bool labelIsIndex = options.label.empty() || parseIndex(options.label, labelIndex);
    bool header = options.header == "yes";
    if (options.header == "auto") {
        header = !labelIsIndex;
        for (std::size_t j = 0; j < cols && hasSecond && !header; ++j)
            header = !isNumber(first.cells[j]) && isNumber(second.cells[j]);
    }
    if (options.label.empty()) {
        labelIndex = static_cast<int64_t>(cols) - 1;
    } else if (!labelIsIndex) {
        if (!header)
            throw ConfigError("data.csv_label", quoteUserData(options.label) +
                                                    " names a column but the file has no header");
        const auto& h = first.cells;
        const auto it = std::find(h.begin(), h.end(), options.label);
        if (it == h.end())
            throw ConfigError("data.csv_label",
                              "no column named " + quoteUserData(options.label) + " in " + name);
        labelIndex = it - h.begin();
    }
    if (labelIndex >= static_cast<int64_t>(cols))
        throw ConfigError("data.csv_label", "column " + std::to_string(labelIndex) +
                                                " does not exist (" + std::to_string(cols) +
                                                " columns)");
    const auto li = static_cast<std::size_t>(labelIndex);
    CsvTable t;
    for (std::size_t j = 0; j < cols; ++j)
        if (j != li)
            t.featureNames.push_back(header ? first.cells[j] : "x" + std::to_string(j));
    if (header && !hasSecond)
        throw DatasetError(name, first.line, "file holds a header but no data rows", true);
    std::vector<std::string> labelText;
    bool integerLabels = true;
    const auto addRow = [&](const Row& row) {
        for (std::size_t j = 0; j < cols; ++j) {
            if (j == li)
                continue;
            float v = 0;
            if (!parseNumber(row.cells[j], v))
                throw DatasetError(
                    name, row.line,
                    "column " + (header ? quoteUserData(first.cells[j]) : std::to_string(j)) +
                        " holds " + quoteUserData(row.cells[j]) + ", which is not a number",
                    true);
            t.features.push_back(v);
        }
        const std::string& l = row.cells[li];
        if (l.empty())
            throw DatasetError(name, row.line, "the label cell is empty", true);
        int64_t k = 0;
        integerLabels = integerLabels && parseIndex(l, k) && k < 100000;
        labelText.push_back(l);
    };
    if (!header)
        addRow(first);
    if (hasSecond)
        addRow(second);
    Row row;
    while (lines.next(line, row.line)) {
        splitLine(line, name, row);
        requireWidth(row);
        addRow(row);
    }
    if (integerLabels) {
        int64_t maxLabel = 0;
        for (const std::string& l : labelText) {
            int64_t k = 0;
            parseIndex(l, k);
            t.labels.push_back(static_cast<int32_t>(k));
            maxLabel = std::max(maxLabel, k);
        }
        for (int64_t k = 0; k <= maxLabel; ++k)
            t.classNames.push_back(std::to_string(k));
    } else {
        std::map<std::string, int32_t> ids;
        for (const std::string& l : labelText)
            ids.emplace(l, 0);
        for (auto& [label, id] : ids) {
            id = static_cast<int32_t>(t.classNames.size());
            t.classNames.push_back(label);
        }
        for (const std::string& l : labelText)
            t.labels.push_back(ids[l]);
    }
    if (t.classNames.size() < 2)
        throw DatasetError(name, -1, "the label column holds fewer than two classes");
    return t;
}

CsvTable readCsvFile(const std::string& path, const CsvOptions& options) {
    const std::vector<uint8_t> bytes = readWholeFile(path);
    return parseCsv(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    path, options);
}

CsvDataset::CsvDataset(std::shared_ptr<const CsvTable> table, std::string description)
    : m_table(std::move(table)), m_description(std::move(description)) {}

int32_t CsvDataset::label(int64_t index) const {
    return m_table->labels[static_cast<std::size_t>(index)];
}

int32_t CsvDataset::get(int64_t index, float* out, uint64_t /*seed*/) const {
    const std::size_t f = m_table->featureNames.size();
    std::copy_n(m_table->features.data() + static_cast<std::size_t>(index) * f, f, out);
    return label(index);
}

RawSplits openCsvSplits(const DataConfig& config, uint64_t seed) {
    if (config.root.empty())
        throw ConfigError("data.root", "csv needs data.root: the path of a .csv file");
    std::error_code ec;
    auto table =
        std::make_shared<CsvTable>(readCsvFile(config.root, {config.csvLabel, config.csvHeader}));
    auto all = std::make_shared<CsvDataset>(table, "csv");
    auto [trainIdx, valIdx] = splitIndices(table->rows(), config.valFraction, seed);
    RawSplits s;
    s.train = std::make_shared<SubsetDataset>(all, std::move(trainIdx),
                                              "csv train (" + config.root + ")");
    s.validation = std::make_shared<SubsetDataset>(all, std::move(valIdx),
                                                   "csv validation (" + config.root + ")");
    s.statsSource = all;
    s.statsKey = statsCacheKey("csv", {config.root},
                               "label=" + config.csvLabel + ";header=" + config.csvHeader);
    return s;
}

} // namespace tb
