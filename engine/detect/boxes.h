// Boxes in pixels as COCO writes them (top-left corner, width, height), and the overlaps
// detection is judged by, computed as pycocotools computes them so that our figures and a COCO
// evaluator's agree to the last bit.
#pragma once

namespace tb::detect {

struct Box {
    double x = 0, y = 0, w = 0, h = 0;
    double area() const { return w * h; }
};

// The area two boxes share (0 when they do not overlap).
double intersection(const Box& a, const Box& b);

// Intersection over union; 0 when the union is empty.
double iou(const Box& a, const Box& b);

// COCO's overlap with a crowd region: the intersection over the detection's own area (a
// detection inside a crowd box overlaps it fully, however small it is).
double crowdOverlap(const Box& detection, const Box& crowd);

} // namespace tb::detect
