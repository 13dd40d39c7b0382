// Box overlaps, as pycocotools' maskUtils.iou computes them for boxes (bbIou).
#include "detect/boxes.h"

#include <algorithm>

namespace tb::detect {

double intersection(const Box& a, const Box& b) {
    const double w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
    const double h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
    return w <= 0 || h <= 0 ? 0.0 : w * h;
}

double iou(const Box& a, const Box& b) {
    const double shared = intersection(a, b);
    const double joined = a.area() + b.area() - shared;
    return joined > 0 ? shared / joined : 0.0;
}

double crowdOverlap(const Box& detection, const Box& crowd) {
    const double area = detection.area();
    return area > 0 ? intersection(detection, crowd) / area : 0.0;
}

} // namespace tb::detect
