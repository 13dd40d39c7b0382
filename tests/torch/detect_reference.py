#!/usr/bin/env python3
"""A detection head's output decoded as Ultralytics does it in inference, written from its
definitions (ultralytics/utils/tal.py make_anchors and dist2bbox, nn/modules DFL and
Detect._inference, utils/ops.py xywh2xyxy and non_max_suppression, whose suppression is
torchvision.ops.nms on boxes offset by class), for tests/detect/tst_headdecode.

usage: detect_reference.py HEAD.safetensors   (head: (N, 4 reg_max + classes, anchors);
metadata: heights, widths, strides (comma-separated), reg_max, confidence, iou, max_det,
multi_label)
Prints one JSON line: {"images": [[[x1, y1, x2, y2, score, class], ...] best first, ...]}
"""
import json
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(__file__))
import tbtensors  # noqa: E402


def make_anchors(heights, widths, strides, offset=0.5):
    points, stride_tensor = [], []
    for h, w, s in zip(heights, widths, strides):
        sx = torch.arange(end=w, dtype=torch.float32) + offset
        sy = torch.arange(end=h, dtype=torch.float32) + offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), s, dtype=torch.float32))
    return torch.cat(points), torch.cat(stride_tensor)


def dfl(box, reg_max):
    """(N, 4 reg_max, A) logits -> (N, 4, A) expected distances (DFL's fixed 1x1 convolution)."""
    n, _, a = box.shape
    weight = torch.arange(reg_max, dtype=torch.float32).view(1, reg_max, 1, 1)
    probs = box.view(n, 4, reg_max, a).transpose(2, 1).softmax(1)
    return torch.nn.functional.conv2d(probs, weight).view(n, 4, a)


def dist2bbox(distance, anchor_points, dim=1):
    lt, rb = distance.chunk(2, dim)
    x1y1 = anchor_points - lt
    x2y2 = anchor_points + rb
    return torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), dim)  # xywh


def xywh2xyxy(x):
    y = x.clone()
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def non_max_suppression(prediction, conf_thres, iou_thres, max_det, multi_label, max_nms=30000,
                        max_wh=7680):
    nc = prediction.shape[1] - 4
    xc = prediction[:, 4:4 + nc].amax(1) > conf_thres
    prediction = prediction.transpose(-1, -2)
    prediction[..., :4] = xywh2xyxy(prediction[..., :4])
    output = []
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        box, cls = x.split((4, nc), 1)
        if multi_label:
            i, j = torch.where(cls > conf_thres)
            x = torch.cat((box[i], x[i, 4 + j, None], j[:, None].float()), 1)
        else:
            conf, j = cls.max(1, keepdim=True)
            x = torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
        if x.shape[0] > max_nms:
            x = x[x[:, 4].argsort(descending=True)[:max_nms]]
        c = x[:, 5:6] * max_wh
        keep = torchvision.ops.nms(x[:, :4] + c, x[:, 4], iou_thres)[:max_det]
        output.append(x[keep])
    return output


def main():
    tensors, meta = tbtensors.read(sys.argv[1])
    ints = lambda key: [int(v) for v in meta[key].split(",")]  # noqa: E731
    reg_max = int(meta["reg_max"])
    head = torch.tensor(tensors["head"], dtype=torch.float32)
    points, strides = make_anchors(ints("heights"), ints("widths"), ints("strides"))
    box, cls = head.split((4 * reg_max, head.shape[1] - 4 * reg_max), 1)
    dbox = dist2bbox(dfl(box, reg_max), points.transpose(0, 1).unsqueeze(0)) * strides.transpose(0, 1)
    y = torch.cat((dbox, cls.sigmoid()), 1)
    out = non_max_suppression(y, float(meta["confidence"]), float(meta["iou"]),
                              int(meta["max_det"]), meta["multi_label"] == "1")
    print(json.dumps({"images": [o.tolist() for o in out]}))


if __name__ == "__main__":
    main()
