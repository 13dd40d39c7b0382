// CSV tables: numeric feature columns plus one label column (by name or index, default last),
// with an optional header row. Labels are integers or class-name strings (sorted names -> ids).
#pragma once

#include "data/dataset.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct CsvOptions {
    std::string label;           // column name or 0-based index; empty = last column
    std::string header = "auto"; // auto | yes | no
};

struct CsvTable {
    std::vector<std::string> featureNames;
    std::vector<float> features; // (rows, featureNames.size())
    std::vector<int32_t> labels;
    std::vector<std::string> classNames;
    int64_t rows() const { return static_cast<int64_t>(labels.size()); }
};

// Parses CSV text. Throws DatasetError(name, line, ..., lineBased = true) for ragged rows,
// non-numeric feature cells, empty labels or a table without data, and ConfigError
// ("data.csv_label" / "data.csv_header") for a label column or header mode that does not fit.
CsvTable parseCsv(std::string_view text, const std::string& name, const CsvOptions& options);
// Reads and parses a file; DatasetError(path, -1, ...) when it is missing or unreadable.
CsvTable readCsvFile(const std::string& path, const CsvOptions& options);

class CsvDataset : public Dataset {
public:
    CsvDataset(std::shared_ptr<const CsvTable> table, std::string description);

    int64_t size() const override { return m_table->rows(); }
    Shape sampleShape() const override {
        return {static_cast<int64_t>(m_table->featureNames.size())};
    }
    int numClasses() const override { return static_cast<int>(m_table->classNames.size()); }
    std::vector<std::string> classNames() const override { return m_table->classNames; }
    int32_t label(int64_t index) const override;
    int32_t get(int64_t index, float* out, uint64_t seed) const override;
    std::string description() const override { return m_description; }

private:
    std::shared_ptr<const CsvTable> m_table;
    std::string m_description;
};

} // namespace tb
