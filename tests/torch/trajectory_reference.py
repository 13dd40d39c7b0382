#!/usr/bin/env python3
"""A zoo model trained for the steps a C++ test ran (tests/nn/tst_float64_trajectory), from the
same initial state on the same batches, in PyTorch float64 (the reference) and float32; prints
how far the test's float32 results and PyTorch's float32 ones are from float64, as one JSON line:
  {"first_step": {param: {"ours": e, "torch32": e}}, "relu_ties": {"ours": {...}, "torch32":
   {...}}, "loss": {...}, "final": {tensor: {...}}}
first_step compares the gradients of the first step (||value - f64|| / ||f64||), each with
float64 on the ReLU pattern its own run took (a pre-activation within float32 rounding of zero
may flip in any float32 run); relu_ties counts the ReLU inputs where that pattern differs from
float64's and the farthest of them from zero (|x| / the RMS of its layer's inputs); loss the
loss curves (the largest relative difference of a step's loss), final the parameters and
batch-norm statistics after the last step (for information: see the test on why it asserts the
curve).

usage: trajectory_reference.py RUN.safetensors   (init.NAME, x.STEP, y.STEP, relu0.K (the K-th
ReLU's output in the first step), grad0.NAME, loss and final.NAME tensors; metadata: model,
steps, lr, momentum, the state names in order)
"""
import contextlib
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import tbtensors  # noqa: E402
import torch_reference  # noqa: E402


def build(tensors, meta, names, dtype):
    """The model in dtype, in training mode, from the test's initial state; ours -> its names."""
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
    return model, ours_to_torch


@contextlib.contextmanager
def relus(patterns=None, inputs=None):
    """Within it, the k-th call of F.relu (every ReLU of the zoo's PyTorch models) applies
    patterns[k], a boolean tensor (another run's ReLU pattern), where one is given, and appends
    its input to `inputs` where that is a list."""
    original, calls = F.relu, [0]

    def relu(x, inplace=False):
        k = calls[0]
        calls[0] += 1
        if inputs is not None:
            inputs.append(x.detach().clone())
        if patterns is None:
            return original(x, inplace=inplace)
        if k >= len(patterns) or patterns[k].shape != x.shape:
            raise SystemExit(f"ReLU {k} of the PyTorch model has no pattern of shape "
                             f"{tuple(x.shape)} from the test")
        return x * patterns[k].to(x.dtype)

    F.relu = relu
    try:
        yield
    finally:
        F.relu = original


def first_step(tensors, meta, names, dtype, patterns=None, inputs=None):
    """The first step's parameter gradients in dtype, on the given ReLU patterns if any."""
    model, ours_to_torch = build(tensors, meta, names, dtype)
    x = torch.tensor(tensors["x.0"], dtype=dtype)
    y = torch.tensor(tensors["y.0"], dtype=torch.long)
    with relus(patterns, inputs):
        F.cross_entropy(model(x), y).backward()
    params = dict(model.named_parameters())
    return {ours: params[t].grad.detach().clone() for ours, t in ours_to_torch.items()
            if t in params}


def ties(patterns, inputs64):
    """How many ReLU inputs a run's patterns put on the other side of zero than float64 did,
    and the farthest of them from zero relative to the RMS of its layer's inputs."""
    count, margin = 0, 0.0
    for pattern, x in zip(patterns, inputs64):
        differs = pattern != (x > 0)
        count += int(differs.sum())
        if differs.any():
            rms = float(x.pow(2).mean().sqrt())
            margin = max(margin, float(x[differs].abs().max()) / rms)
    return {"count": count, "margin": margin}


def train(tensors, meta, names, dtype):
    model, ours_to_torch = build(tensors, meta, names, dtype)
    opt = torch.optim.SGD(model.parameters(), lr=float(meta["lr"]),
                          momentum=float(meta["momentum"]))
    losses = []
    for step in range(int(meta["steps"])):
        x = torch.tensor(tensors[f"x.{step}"], dtype=dtype)
        y = torch.tensor(tensors[f"y.{step}"], dtype=torch.long)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        losses.append(loss.item())
        opt.step()
    final = model.state_dict()
    return losses, {ours: final[t] for ours, t in ours_to_torch.items()}


def main():
    torch.set_num_threads(2)
    tensors, meta = tbtensors.read(sys.argv[1])
    names = meta["order"].split(",")
    err = tbtensors.relative_error

    inputs64, inputs32 = [], []
    first_step(tensors, meta, names, torch.float64, inputs=inputs64)
    grads32 = first_step(tensors, meta, names, torch.float32, inputs=inputs32)
    if sum(1 for n in tensors if n.startswith("relu0.")) != len(inputs64):
        raise SystemExit(f"the PyTorch model has {len(inputs64)} ReLUs, the test's another count")
    patterns = {"ours": [torch.tensor(tensors[f"relu0.{k}"]) > 0 for k in range(len(inputs64))],
                "torch32": [x > 0 for x in inputs32]}
    grads = {"ours": {n: tensors["grad0." + n] for n in names if "grad0." + n in tensors},
             "torch32": grads32}
    first, relu_ties = {}, {}
    for run, pattern in patterns.items():
        relu_ties[run] = ties(pattern, inputs64)
        grads64 = first_step(tensors, meta, names, torch.float64, patterns=pattern)
        for n, reference in grads64.items():
            first.setdefault(n, {})[run] = err(grads[run][n], reference)

    losses64, final64 = train(tensors, meta, names, torch.float64)
    losses32, final32 = train(tensors, meta, names, torch.float32)

    def curve_error(losses):
        return max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))

    result = {
        "first_step": first,
        "relu_ties": relu_ties,
        "loss": {"ours": curve_error(tensors["loss"].tolist()), "torch32": curve_error(losses32)},
        "final": {n: {"ours": err(tensors["final." + n], final64[n]),
                      "torch32": err(final32[n], final64[n])} for n in final64},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
