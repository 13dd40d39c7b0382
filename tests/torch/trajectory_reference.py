#!/usr/bin/env python3
"""A zoo model trained for the steps a C++ test ran (tests/nn/tst_float64_trajectory), from the
same initial state on the same batches, in PyTorch float64 (the reference) and float32; prints
how far the test's float32 results and PyTorch's float32 ones are from float64, as one JSON line:
  {"first_step": {param: {"ours": e, "torch32": e}}, "loss": {...}, "final": {tensor: {...}}}
first_step compares the gradients of the first step (||value - f64|| / ||f64||), loss the loss
curves (the largest relative difference of a step's loss), final the parameters and batch-norm
statistics after the last step (for information: see the test on why it asserts the curve).

usage: trajectory_reference.py RUN.safetensors   (init.NAME, x.STEP, y.STEP, grad0.NAME,
loss and final.NAME tensors; metadata: model, steps, lr, momentum, the state names in order)
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import tbtensors  # noqa: E402
import torch_reference  # noqa: E402


def train(tensors, meta, names, dtype):
    model = torch_reference.MODELS[meta["model"]][0]().to(dtype)
    state = [(k, v) for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")]
    if len(state) != len(names):
        raise SystemExit(f"{len(names)} tensors from the test, {len(state)} in the PyTorch model")
    ours_to_torch = {}
    with torch.no_grad():
        for ours, (theirs, value) in zip(names, state):
            init = torch.tensor(tensors["init." + ours], dtype=dtype)
            if init.shape != value.shape:
                raise SystemExit(f"{ours} {tuple(init.shape)} vs {theirs} {tuple(value.shape)}")
            value.copy_(init)
            ours_to_torch[ours] = theirs
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=float(meta["lr"]),
                          momentum=float(meta["momentum"]))
    params = dict(model.named_parameters())
    first_grads, losses = {}, []
    for step in range(int(meta["steps"])):
        x = torch.tensor(tensors[f"x.{step}"], dtype=dtype)
        y = torch.tensor(tensors[f"y.{step}"], dtype=torch.long)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        losses.append(loss.item())
        if step == 0:
            first_grads = {ours: params[t].grad.detach().clone()
                           for ours, t in ours_to_torch.items() if t in params}
        opt.step()
    final = model.state_dict()
    return first_grads, losses, {ours: final[t] for ours, t in ours_to_torch.items()}


def main():
    torch.set_num_threads(2)
    tensors, meta = tbtensors.read(sys.argv[1])
    names = meta["order"].split(",")
    grads64, losses64, final64 = train(tensors, meta, names, torch.float64)
    grads32, losses32, final32 = train(tensors, meta, names, torch.float32)
    err = tbtensors.relative_error

    def curve_error(losses):
        return max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))

    result = {
        "first_step": {n: {"ours": err(tensors["grad0." + n], grads64[n]),
                           "torch32": err(grads32[n], grads64[n])} for n in grads64},
        "loss": {"ours": curve_error(tensors["loss"].tolist()), "torch32": curve_error(losses32)},
        "final": {n: {"ours": err(tensors["final." + n], final64[n]),
                      "torch32": err(final32[n], final64[n])} for n in final64},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
