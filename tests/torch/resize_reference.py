#!/usr/bin/env python3
"""Bilinear resizing as PyTorch computes it, F.interpolate(x, size, mode="bilinear",
align_corners=False), forward and backward, in float64 and in PyTorch's float32, on the inputs a
C++ test wrote (tests/backend/tst_resize). Prints one JSON line: {case: {output: {"ours": err,
"torch32": err}}} with relative errors against float64.

usage: resize_reference.py CASE.safetensors...   (each: x, dy and our y, dx; the output size is
dy's). The JSON is keyed by each file's name without its extension.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

import tbtensors


def resize(x, dy, dtype):
    x = torch.tensor(x, dtype=dtype, requires_grad=True)
    y = F.interpolate(x, size=tuple(dy.shape[2:]), mode="bilinear", align_corners=False)
    y.backward(torch.tensor(dy, dtype=dtype))
    return {"y": y.detach(), "dx": x.grad}


def compare(path):
    tensors, _ = tbtensors.read(path)
    reference = resize(tensors["x"], tensors["dy"], torch.float64)
    torch32 = resize(tensors["x"], tensors["dy"], torch.float32)
    return {name: {"ours": tbtensors.relative_error(tensors["ours." + name], ref.numpy()),
                   "torch32": tbtensors.relative_error(torch32[name].double().numpy(),
                                                       ref.numpy())}
            for name, ref in reference.items()}


def main():
    torch.set_num_threads(2)
    print(json.dumps({os.path.splitext(os.path.basename(p))[0]: compare(p) for p in sys.argv[1:]}))


if __name__ == "__main__":
    main()
