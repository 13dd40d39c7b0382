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

struct Row {
    int64_t line;
    std::vector<std::string> cells;
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// Splits one line into cells; "..." quotes may hold commas and "" stands for a quote.
std::vector<std::string> splitLine(std::string_view line, const std::string& name, int64_t no) {
    std::vector<std::string> cells;
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
            cells.emplace_back(wasQuoted ? cell : std::string(trim(cell)));
            cell.clear();
            wasQuoted = false;
        } else {
            cell += c;
        }
    }
    if (quoted)
        throw DatasetError(name, no, "unterminated quoted cell", true);
    cells.emplace_back(wasQuoted ? cell : std::string(trim(cell)));
    return cells;
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

CsvTable parseCsv(std::string_view text, const std::string& name, const CsvOptions& options) {
    if (options.header != "auto" && options.header != "yes" && options.header != "no")
        throw ConfigError("data.csv_header",
                          "must be auto, yes or no, not '" + options.header + "'");
    std::vector<Row> rows;
    int64_t lineNo = 0;
    std::size_t pos = 0;
    if (text.starts_with("\xEF\xBB\xBF"))
        pos = 3; // UTF-8 byte order mark
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        ++lineNo;
        pos = end + 1;
        if (trim(line).empty())
            continue;
        rows.push_back({lineNo, splitLine(line, name, lineNo)});
    }
    if (rows.empty())
        throw DatasetError(name, 1, "file holds no rows", true);
    const std::size_t cols = rows[0].cells.size();
    if (cols < 2)
        throw DatasetError(name, rows[0].line,
                           "needs at least one feature column and a label column", true);
    for (const Row& r : rows)
        if (r.cells.size() != cols)
            throw DatasetError(name, r.line,
                               "row has " + std::to_string(r.cells.size()) + " cells, expected " +
                                   std::to_string(cols),
                               true);
    int64_t labelIndex = -1;
    const bool labelIsIndex = options.label.empty() || parseIndex(options.label, labelIndex);
    bool header = options.header == "yes";
    if (options.header == "auto") {
        header = !labelIsIndex;
        for (std::size_t j = 0; j < cols && rows.size() > 1 && !header; ++j)
            header = !isNumber(rows[0].cells[j]) && isNumber(rows[1].cells[j]);
    }
    if (options.label.empty()) {
        labelIndex = static_cast<int64_t>(cols) - 1;
    } else if (!labelIsIndex) {
        if (!header)
            throw ConfigError("data.csv_label",
                              "'" + options.label + "' names a column but the file has no header");
        const auto& h = rows[0].cells;
        const auto it = std::find(h.begin(), h.end(), options.label);
        if (it == h.end())
            throw ConfigError("data.csv_label",
                              "no column named '" + options.label + "' in " + name);
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
            t.featureNames.push_back(header ? rows[0].cells[j] : "x" + std::to_string(j));
    const std::size_t first = header ? 1 : 0;
    if (rows.size() <= first)
        throw DatasetError(name, rows[0].line, "file holds a header but no data rows", true);
    t.features.reserve((rows.size() - first) * (cols - 1));
    std::vector<std::string> labelText;
    bool integerLabels = true;
    for (std::size_t r = first; r < rows.size(); ++r) {
        const Row& row = rows[r];
        for (std::size_t j = 0; j < cols; ++j) {
            if (j == li)
                continue;
            float v = 0;
            if (!parseNumber(row.cells[j], v))
                throw DatasetError(name, row.line,
                                   "column '" + (header ? rows[0].cells[j] : std::to_string(j)) +
                                       "' holds '" + row.cells[j] + "', which is not a number",
                                   true);
            t.features.push_back(v);
        }
        const std::string& l = row.cells[li];
        if (l.empty())
            throw DatasetError(name, row.line, "the label cell is empty", true);
        int64_t k = 0;
        integerLabels = integerLabels && parseIndex(l, k) && k < 100000;
        labelText.push_back(l);
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
