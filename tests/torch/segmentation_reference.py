#!/usr/bin/env python3
"""The ops a segmentation model adds, as PyTorch computes them, in float64 and in PyTorch's
float32, on the inputs a C++ test wrote (tests/backend/tst_segmentationops), forward and
backward: bilinear resizing, F.interpolate(x, size, mode="bilinear", align_corners=False), and
the per-pixel loss, F.cross_entropy(logits, labels, ignore_index). Prints one JSON line: {case:
{output: {"ours": err, "torch32": err}}} with relative errors against float64.

usage: segmentation_reference.py CASE.safetensors...   The JSON is keyed by each file's name
without its extension. A resize case holds x, dy and our y, dx (the output size is dy's); a loss
case holds logits, labels, the gradient's scale and our loss, dlogits, and its metadata says
ignore_index.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

import tbtensors


def resize(tensors, _meta, dtype):
    x = torch.tensor(tensors["x"], dtype=dtype, requires_grad=True)
    dy = tensors["dy"]
    y = F.interpolate(x, size=tuple(dy.shape[2:]), mode="bilinear", align_corners=False)
    y.backward(torch.tensor(dy, dtype=dtype))
    return {"y": y.detach(), "dx": x.grad}


def pixel_loss(tensors, meta, dtype):
    logits = torch.tensor(tensors["logits"], dtype=dtype, requires_grad=True)
    labels = torch.tensor(tensors["labels"]).long()
    loss = F.cross_entropy(logits, labels, ignore_index=int(meta["ignore_index"]))
    (loss * float(tensors["grad_scale"][0])).backward()
    return {"loss": loss.detach().reshape(1), "dlogits": logits.grad}


def compare(path):
    tensors, meta = tbtensors.read(path)
    op = pixel_loss if "logits" in tensors else resize
    reference = op(tensors, meta, torch.float64)
    torch32 = op(tensors, meta, torch.float32)
    return {name: {"ours": tbtensors.relative_error(tensors["ours." + name], ref.numpy()),
                   "torch32": tbtensors.relative_error(torch32[name].double().numpy(),
                                                       ref.numpy())}
            for name, ref in reference.items()}


def main():
    torch.set_num_threads(2)
    print(json.dumps({os.path.splitext(os.path.basename(p))[0]: compare(p) for p in sys.argv[1:]}))


if __name__ == "__main__":
    main()
