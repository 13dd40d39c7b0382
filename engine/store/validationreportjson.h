// A validation report as the run store keeps it (epoch_metrics.validation, schema 3): class
// names, the confusion matrix and the misclassified samples without their pixels, which are
// the dataset's to give back.
#pragma once

#include "events/events.h"

#include <string>

namespace tb {

// "" for a report with no classes (a run recorded before schema 3, or a failed validation).
std::string validationReportToText(const ValidationReport& report);
// The report, or an empty one when the text is empty or not a report (an edited store): the
// epoch's other metrics stay readable.
ValidationReport validationReportFromText(const std::string& text);

} // namespace tb
