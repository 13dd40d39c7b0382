#!/usr/bin/env python3
"""torchvision loading TrainBench's PyTorch-named weights (tst_export_onnx).

  export_reference.py MODEL WEIGHTS IO CLASSES
      builds torchvision.models.MODEL(num_classes=CLASSES), loads WEIGHTS (a .safetensors file
      `trainbench-cli export --format safetensors` wrote) with load_state_dict(strict=True),
      computes the evaluation-mode logits of IO's x and prints one JSON line with their
      relative error against IO's logits (TrainBench's) and whether the top-1 agree
"""
import json
import sys

import torch
import torchvision

import tbtensors


def main(name, weights, io, classes):
    model = getattr(torchvision.models, name)(weights=None, num_classes=int(classes))
    tensors, _ = tbtensors.read(weights)
    state = {k: torch.from_numpy(v).to(torch.int64 if v.dtype.kind in "iu" else torch.float32)
             for k, v in tensors.items()}
    model.load_state_dict(state, strict=True)
    model.eval()
    batch, _ = tbtensors.read(io)
    with torch.no_grad():
        logits = model(torch.from_numpy(batch["x"]).float()).double().numpy()
    print(json.dumps({
        "relative_error": tbtensors.relative_error(logits, batch["logits"]),
        "top1_agree": bool((logits.argmax(1) == batch["logits"].argmax(1)).all()),
    }))


if __name__ == "__main__":
    main(*sys.argv[1:])
