#!/usr/bin/env python3
"""The zoo's yolov8 against YOLOv8 in PyTorch (tests/bench/torch_yolo.py, from Ultralytics'
definitions), from a C++ test's weights and batch (tests/nn/tst_yolo), in training mode, in
float64 (the reference) and float32. Prints, as one JSON line, how far the test's results and
PyTorch's float32 ones are from float64 (||value - f64|| / ||f64||, the worst tensor named):
  {"parameters": ours, "torch_parameters": n, "output": {...}, "gradients": {...}}
output is the head's maps flattened and joined, (N, 64 + classes, anchors); gradients those of
sum(output * r) for every parameter that trains.

usage: yolo_reference.py RUN.safetensors   (init.NAME, x, r, output, grad.NAME; metadata:
scale, classes, parameters)
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import tbtensors  # noqa: E402
from torch_yolo import Detect, yolov8  # noqa: E402


def run(tensors, meta, dtype):
    model = yolov8(meta["scale"], int(meta["classes"])).to(dtype)
    state = model.state_dict()
    ours = {n[len("init."):] for n in tensors if n.startswith("init.")}
    wanted = {n for n in state if not n.endswith("num_batches_tracked")}
    if ours != wanted:
        raise SystemExit(f"names differ: ours only {sorted(ours - wanted)}, "
                         f"PyTorch only {sorted(wanted - ours)}")
    with torch.no_grad():
        for name in wanted:
            state[name].copy_(torch.tensor(tensors["init." + name], dtype=dtype))
    model.train()
    x = torch.tensor(tensors["x"], dtype=dtype)
    output = Detect.flatten(model(x))
    (output * torch.tensor(tensors["r"], dtype=dtype)).sum().backward()
    grads = {n: p.grad.detach() for n, p in model.named_parameters() if p.requires_grad}
    return model, output.detach(), grads


def main():
    tensors, meta = tbtensors.read(sys.argv[1])
    torch.set_num_threads(2)
    model, out64, grads64 = run(tensors, meta, torch.float64)
    _, out32, grads32 = run(tensors, meta, torch.float32)
    ours_grads = {n: tensors["grad." + n] for n in grads64 if "grad." + n in tensors}
    if set(ours_grads) != set(grads64):
        raise SystemExit(f"gradients missing from the test's file: "
                         f"{sorted(set(grads64) - set(ours_grads))}")
    print(json.dumps({
        "parameters": int(meta["parameters"]),
        "torch_parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "output": tbtensors.worst({"output": tensors["output"]}, {"output": out32},
                        {"output": out64}),
        "gradients": tbtensors.worst(ours_grads, grads32, grads64),
    }))


if __name__ == "__main__":
    main()
