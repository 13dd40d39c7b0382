#!/usr/bin/env python3
"""The zoo's GPT as nanoGPT writes it in PyTorch (tests/bench/torch_reference.py's GPT), from a
C++ test's initial weights on its batches (tests/nn/tst_gpt), in float64 (the reference) and
float32. Prints, as one JSON line, how far the test's float32 results and PyTorch's float32
ones are from float64 (||value - f64|| / ||f64||; the worst tensor named):
  {"parameters": ours, "torch_parameters": n, "logits": {...}, "gradients": {...},
   "loss": {...}, "final": {...}, "clipped_steps": k}
logits and gradients are the first step's; loss the largest relative difference of a step's
loss over the run (AdamW, weight decay on matrices only as nanoGPT's configure_optimizers,
clip_grad_norm_ before each step); final the weights after it.

usage: gpt_reference.py RUN.safetensors   (init.NAME, x.STEP, y.STEP, logits0, grad0.NAME,
loss, clip and final.NAME; metadata: steps, lr, clip, parameters, options)
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import tbtensors  # noqa: E402
from torch_reference import GPT  # noqa: E402


def build(tensors, meta, dtype):
    options = json.loads(meta["options"])
    vocab, width = tensors["init.transformer.wte.weight"].shape
    block = tensors["init.transformer.wpe.weight"].shape[0]
    model = GPT(vocab, block, options["n_layer"], options["n_head"], width).to(dtype)
    params = dict(model.named_parameters())  # the tied lm_head.weight appears once, as wte
    ours = {n[len("init."):] for n in tensors if n.startswith("init.")}
    if ours != set(params):
        raise SystemExit(f"names differ: ours only {sorted(ours - set(params))}, "
                         f"PyTorch only {sorted(set(params) - ours)}")
    with torch.no_grad():
        for name, p in params.items():
            p.copy_(torch.tensor(tensors["init." + name], dtype=dtype))
    model.train()
    return model, params


def loss_of(model, tensors, step, dtype):
    x = torch.tensor(tensors[f"x.{step}"], dtype=torch.long)
    y = torch.tensor(tensors[f"y.{step}"], dtype=torch.long)
    logits = model(x)
    return logits, F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))


def run(tensors, meta, dtype):
    model, params = build(tensors, meta, dtype)
    decay = [p for p in params.values() if p.dim() >= 2]
    no_decay = [p for p in params.values() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=float(meta["lr"]), betas=(0.9, 0.95), eps=1e-8)
    losses, clipped, logits0, grads0 = [], 0, None, None
    for step in range(int(meta["steps"])):
        opt.zero_grad()
        logits, loss = loss_of(model, tensors, step, dtype)
        loss.backward()
        if step == 0:
            logits0 = logits.detach().clone()
            grads0 = {n: p.grad.detach().clone() for n, p in params.items()}
        norm = torch.nn.utils.clip_grad_norm_(params.values(), float(meta["clip"]))
        clipped += int(norm > float(meta["clip"]))
        opt.step()
        losses.append(loss.item())
    final = {n: p.detach().clone() for n, p in params.items()}
    return model, logits0, grads0, losses, final, clipped


def main():
    torch.set_num_threads(2)
    tensors, meta = tbtensors.read(sys.argv[1])
    model64, logits64, grads64, losses64, final64, clipped = run(tensors, meta, torch.float64)
    _, logits32, grads32, losses32, final32, _ = run(tensors, meta, torch.float32)
    err = tbtensors.relative_error
    ours_losses = tensors["loss"]

    def curve(losses):
        return max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))

    print(json.dumps({
        "parameters": int(meta["parameters"]),
        "torch_parameters": sum(p.numel() for p in model64.parameters()),
        "logits": {"ours": err(tensors["logits0"], logits64.numpy()),
                   "torch32": err(logits32.double().numpy(), logits64.numpy()),
                   "worst": "logits"},
        "gradients": tbtensors.worst({n: tensors["grad0." + n] for n in grads64}, grads32,
                                     grads64),
        "loss": {"ours": curve(ours_losses), "torch32": curve(losses32), "worst": "loss"},
        "final": tbtensors.worst({n: tensors["final." + n] for n in final64}, final32, final64),
        "clipped_steps": clipped,
        "ours_clipped_steps": int(tensors["clip"][1]),
    }))


if __name__ == "__main__":
    main()
