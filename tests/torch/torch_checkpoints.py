#!/usr/bin/env python3
"""Writes the PyTorch checkpoints tst_torchcheckpoint reads, with torch.save itself, into the
folder given, and prints one JSON line of what each holds (every tensor's dtype, shape and
values in row-major order; for the torchvision model, each tensor's shape and sum):

  plain.pth      float32, float64, float16, bfloat16, int64, uint8 and bool tensors, a
                 transposed (non-contiguous) view and two views of one storage at offsets
  nested.pth     {"model": <state dict>, "epoch": 3, "optimizer": {"lr": [0.1]}}
  resnet18.pth   torchvision's resnet18 state dict, seeded (when torchvision is installed)
  legacy.pth     the pre-1.6 format (_use_new_zipfile_serialization=False)
  evil.pth       a zip laid out as torch.save's whose pickle calls os.system
  oversized.pth  plain.pth with the storage of "w" (12 floats) an entry that inflates to
                 256 MiB (zeros: a few hundred KB in the file)
  undersized.pth plain.pth with that storage cut to half
"""
import collections
import json
import os
import pickle
import sys
import zipfile

import torch


def values(t):
    t = t.detach().contiguous()
    if t.dtype in (torch.float16, torch.bfloat16, torch.float64):
        t = t.float()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    return t.reshape(-1).tolist()


def describe(state):
    return {name: {"dtype": str(t.dtype), "shape": list(t.shape), "values": values(t)}
            for name, t in state.items()}


class RunsACommand:
    def __reduce__(self):
        return (os.system, ("touch evil-ran",))


def swap_storage(folder, source, target, change):
    """Copies the archive `source` to `target` with its first storage's bytes changed."""
    with zipfile.ZipFile(os.path.join(folder, source)) as src, \
            zipfile.ZipFile(os.path.join(folder, target), "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            dst.writestr(info.filename, change(data) if info.filename.endswith("/data/0") else data)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 7
    shared = torch.arange(10, dtype=torch.float32) * 0.5
    plain = collections.OrderedDict([
        ("w", torch.randn(3, 4)),
        ("double", torch.randn(2, 2, dtype=torch.float64)),
        ("half", torch.randn(5).half()),
        ("bfloat", torch.randn(2, 3).bfloat16()),
        ("bn.num_batches_tracked", torch.tensor(7)),
        ("bytes", torch.arange(6, dtype=torch.uint8)),
        ("mask", torch.tensor([True, False, True])),
        ("transposed", base.t()),
        ("view.head", shared[:3]),
        ("view.tail", shared[4:].view(2, 3)),
    ])
    torch.save(plain, os.path.join(out, "plain.pth"))

    model = collections.OrderedDict([("fc.weight", torch.randn(2, 3)), ("fc.bias", torch.zeros(2))])
    torch.save({"model": model, "epoch": 3, "optimizer": {"lr": [0.1]}},
               os.path.join(out, "nested.pth"))

    report = {"plain": describe(plain), "nested": describe(model)}
    try:
        import torchvision
        net = torchvision.models.resnet18(weights=None)
        state = net.state_dict()
        torch.save(state, os.path.join(out, "resnet18.pth"))
        report["resnet18"] = {name: {"shape": list(t.shape), "sum": float(t.double().sum())}
                              for name, t in state.items()}
    except ImportError:
        report["resnet18"] = None

    swap_storage(out, "plain.pth", "oversized.pth", lambda data: bytes(256 << 20))
    swap_storage(out, "plain.pth", "undersized.pth", lambda data: data[:len(data) // 2])
    torch.save(plain, os.path.join(out, "legacy.pth"), _use_new_zipfile_serialization=False)
    with zipfile.ZipFile(os.path.join(out, "evil.pth"), "w") as z:
        z.writestr("evil/data.pkl", pickle.dumps({"w": RunsACommand()}, protocol=2))
        z.writestr("evil/version", "3\n")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
