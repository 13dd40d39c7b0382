// Default class names: "0", "1", ...
#include "data/dataset.h"

namespace tb {

std::vector<std::string> Dataset::classNames() const {
    std::vector<std::string> names;
    for (int i = 0; i < numClasses(); ++i)
        names.push_back(std::to_string(i));
    return names;
}

} // namespace tb
