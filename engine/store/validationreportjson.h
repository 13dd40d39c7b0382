// A validation report as the run store keeps it (epoch_metrics.validation, schema 3): class
// names, the confusion matrix and the misclassified samples without their pixels, which are
// the dataset's to give back.
#pragma once

#include "events/events.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace tb {

// A square confusion matrix (row-major counts) as an array of its rows.
nlohmann::json matrixRows(const std::vector<int64_t>& matrix);

// "" for a report with no classes (a run recorded before schema 3, or a failed validation).
std::string validationReportToText(const ValidationReport& report);
// The report, or an empty one when the text is empty or not a report (an edited store): the
// epoch's other metrics stay readable.
ValidationReport validationReportFromText(const std::string& text);

// A step's loss terms as step_metrics.loss_terms keeps them (schema 8): {"box": 1.92, ...} in
// their order, "" for none; text that is not such an object reads as none.
std::string lossTermsToText(const std::vector<LossTerm>& terms);
std::vector<LossTerm> lossTermsFromText(const std::string& text);

} // namespace tb
