// Where TrainBench keeps its data: the run database and the checkpoints.
#pragma once

#include <string>

namespace tb {

// $XDG_DATA_HOME/TrainBench, else ~/.local/share/TrainBench (HOME, else the password
// database). Only computes the path; whoever writes there creates the folders.
std::string dataDirectory();

} // namespace tb
