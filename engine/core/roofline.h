// A device's two roofs: the most arithmetic it does per second and the most bytes its memory
// delivers. A layer can go no faster than its FLOPs at peakGflops nor its bytes at
// bandwidthGBs; their ratio is the ridge point, in FLOP per byte.
#pragma once

#include <string>

namespace tb {

struct Roofline {
    double peakGflops = 0.0;
    double bandwidthGBs = 0.0;
    std::string peakSource;      // how the compute roof was found
    std::string bandwidthSource; // and the memory roof
    bool known() const { return peakGflops > 0.0 && bandwidthGBs > 0.0; }
    double ridge() const { return known() ? peakGflops / bandwidthGBs : 0.0; }
};

} // namespace tb
