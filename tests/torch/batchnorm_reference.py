#!/usr/bin/env python3
"""Batch norm in float64 and in PyTorch's float32 on the inputs a C++ test wrote, and how far
the test's own outputs and PyTorch's float32 ones are from float64 (tests/backend/
tst_batchnorm_precision). Prints one JSON line: {output: {"ours": err, "torch32": err}}.

usage: batchnorm_reference.py CASE.safetensors...   (each: x, dy, gamma, beta and our outputs;
its metadata says eps, momentum, whether a ReLU is fused and which outputs to compare). The
JSON is keyed by each file's name without its extension.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

import tbtensors


def batch_norm(x, dy, gamma, beta, eps, momentum, relu, dtype):
    x = torch.tensor(x, dtype=dtype, requires_grad=True)
    gamma = torch.tensor(gamma, dtype=dtype, requires_grad=True)
    beta = torch.tensor(beta, dtype=dtype, requires_grad=True)
    c = x.shape[1]
    running_mean = torch.zeros(c, dtype=dtype)
    running_var = torch.ones(c, dtype=dtype)
    y = F.batch_norm(x, running_mean, running_var, gamma, beta, training=True,
                     momentum=momentum, eps=eps)
    if relu:
        y = torch.relu(y)
    y.backward(torch.tensor(dy, dtype=dtype))
    return {"y": y.detach(), "dx": x.grad, "dgamma": gamma.grad, "dbeta": beta.grad,
            "running_mean": running_mean, "running_var": running_var}


def compare(path):
    tensors, meta = tbtensors.read(path)
    args = (tensors["x"], tensors["dy"], tensors["gamma"], tensors["beta"], float(meta["eps"]),
            float(meta["momentum"]), meta["relu"] == "1")
    reference = batch_norm(*args, torch.float64)
    torch32 = batch_norm(*args, torch.float32)
    result = {}
    for name in meta["compare"].split(","):
        result[name] = {"ours": tbtensors.relative_error(tensors["ours." + name], reference[name]),
                        "torch32": tbtensors.relative_error(torch32[name], reference[name])}
    return result


def main():
    torch.set_num_threads(2)
    print(json.dumps({os.path.splitext(os.path.basename(p))[0]: compare(p) for p in sys.argv[1:]}))


if __name__ == "__main__":
    main()
