// The series side of `trainbench-cli runs`: compare --metric (series side by side, group means),
// export of several runs in long format, and watch (a run followed as it is written).
#pragma once

#include "args.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace tb {
class RunStore;
}

namespace tb::cli {

// `runs compare ID... --metric M [--x step|samples|epoch|time] [--group-by K[,K]] [--json]`.
int compareSeries(RunStore& store, const std::vector<std::string>& ids, const Args& args);
// `runs export ID... --format csv`: one row per point, run,series,x,y (x as --x says).
void exportLongCsv(RunStore& store, const std::vector<std::string>& ids, const Args& args,
                   std::ostream& out);
// `runs watch ID [--json]`: prints the run's new steps and epochs as they land, until it ends.
int watchRun(RunStore& store, const std::string& id, const Args& args);

} // namespace tb::cli
