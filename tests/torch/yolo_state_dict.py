#!/usr/bin/env python3
"""Writes what an Ultralytics user exports for model.pretrained: YOLOv8's state dict (from
tests/bench/torch_yolo.py, Ultralytics' module tree and names) saved with torch.save, seeded,
and prints one JSON line with each tensor's shape and sum, to check what was loaded.

usage: yolo_state_dict.py OUT.pth SCALE CLASSES
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
from torch_yolo import yolov8  # noqa: E402

out, scale, classes = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(7)
model = yolov8(scale, classes)
with torch.no_grad():  # BN statistics that are not the defaults, so loading them shows
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
state = model.state_dict()
torch.save(state, out)
print(json.dumps({name: {"shape": list(t.shape), "sum": float(t.double().sum())}
                  for name, t in state.items() if t.is_floating_point()}))
