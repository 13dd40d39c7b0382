#!/usr/bin/env python3
"""The zoo's unet against the same U-Net in PyTorch, written here as the widely used PyTorch
implementation (milesial/Pytorch-UNet's unet_parts.py) writes it, with bilinear upsampling
(F.interpolate, align_corners=False) and the skip joined first; from a C++ test's weights and
batch (tests/nn/tst_unet), in training mode, in float64 (the reference) and float32. Prints,
as one JSON line, how far the test's results and PyTorch's float32 ones are from float64
(||value - f64|| / ||f64||, the worst tensor named):
  {"parameters": ours, "torch_parameters": n, "output": {...}, "gradients": {...}}
output is the (N, classes, H, W) scores; gradients those of sum(output * r) for every
parameter.

usage: unet_reference.py RUN.safetensors   (init.NAME, x, r, output, grad.NAME; metadata:
width, depth, classes, parameters)
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import tbtensors  # noqa: E402


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True))

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(cin, cout))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = DoubleConv(cin, cout)

    def forward(self, deep, skip):
        up = F.interpolate(deep, scale_factor=2, mode="bilinear", align_corners=False)
        return self.conv(torch.cat([skip, up], dim=1))


class OutConv(nn.Module):
    def __init__(self, cin, classes):
        super().__init__()
        self.conv = nn.Conv2d(cin, classes, 1)

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, width, depth, classes):
        super().__init__()
        self.depth = depth
        self.inc = DoubleConv(3, width)
        for level in range(1, depth + 1):
            setattr(self, f"down{level}", Down(width << (level - 1), width << level))
        for i in range(1, depth + 1):
            level = depth - i
            setattr(self, f"up{i}", Up((width << level) * 3, width << level))
        self.outc = OutConv(width, classes)

    def forward(self, x):
        maps = [self.inc(x)]
        for level in range(1, self.depth + 1):
            maps.append(getattr(self, f"down{level}")(maps[-1]))
        x = maps[-1]
        for i in range(1, self.depth + 1):
            x = getattr(self, f"up{i}")(x, maps[self.depth - i])
        return self.outc(x)


def run(tensors, meta, dtype):
    model = UNet(int(meta["width"]), int(meta["depth"]), int(meta["classes"])).to(dtype)
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
    output = model(torch.tensor(tensors["x"], dtype=dtype))
    (output * torch.tensor(tensors["r"], dtype=dtype)).sum().backward()
    grads = {n: p.grad.detach() for n, p in model.named_parameters()}
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
        "torch_parameters": sum(p.numel() for p in model.parameters()),
        "output": tbtensors.worst({"output": tensors["output"]}, {"output": out32},
                                  {"output": out64}),
        "gradients": tbtensors.worst(ours_grads, grads32, grads64),
    }))


if __name__ == "__main__":
    main()
