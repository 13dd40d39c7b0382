#!/usr/bin/env python3
"""torchvision's own models as the reference for TrainBench's copies of them (tst_pretrained).

  save DIR CLASSES MODEL... [--wrapped MODEL]
                              writes, for each torchvision.models.MODEL(num_classes=CLASSES)
                              seeded with batch-norm statistics and affine parameters drawn at
                              random (so evaluation mode uses them) and dropout off:
                              DIR/MODEL.pth (torch.save of its state dict) and
                              DIR/MODEL.safetensors (the same tensors); for the --wrapped one
                              also DIR/MODEL-ddp.pth (names under "module."),
                              DIR/MODEL-lightning.pth ({"state_dict": {"model.<name>": ...},
                              "epoch": 1, ...}) and DIR/MODEL-imagenet.pth (1000 classes:
                              another head). One process for all: PyTorch loads once.
  compare DIR MODEL CLASSES   reads DIR/ours.safetensors (x, y, TrainBench's evaluation logits
                              and its gradients of the mean cross-entropy in training mode,
                              grad.<name>) and prints their relative errors against
                              torchvision's in float64, the gradients' beside PyTorch's own
                              float32 errors, naming the worst of them against that noise

The segmentation models (fcn_resnet50, deeplabv3_resnet50) are built with aux_loss=True and
compared as torchvision's reference trains them: logits are output["out"] and the loss is
cross_entropy(out, y, ignore_index=255) + 0.5 cross_entropy(aux, y, ignore_index=255) over
labels (N, H, W).
"""
import argparse
import copy
import json
import os
import sys

import torch
import torchvision

import tbtensors


SEGMENTATION = ("fcn_resnet50", "deeplabv3_resnet50")


def build(name, classes):
    torch.manual_seed(0)
    if name in SEGMENTATION:
        net = getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, num_classes=classes, aux_loss=True)
    else:
        net = getattr(torchvision.models, name)(weights=None, num_classes=classes)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.2, 0.2)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
            elif isinstance(module, torch.nn.Dropout):
                module.p = 0.0  # the training passes compared must be the same computation
    return net


def save(folder, name, classes, wrapped):
    state = build(name, classes).state_dict()
    torch.save(state, os.path.join(folder, name + ".pth"))
    tbtensors.write(os.path.join(folder, name + ".safetensors"),
                    {k: v.numpy() for k, v in state.items() if v.is_floating_point()})
    if wrapped:
        torch.save({"module." + k: v for k, v in state.items()},
                   os.path.join(folder, name + "-ddp.pth"))
        torch.save({"state_dict": {"model." + k: v for k, v in state.items()}, "epoch": 1,
                    "optimizer_states": [{"lr": 0.1}]},
                   os.path.join(folder, name + "-lightning.pth"))
        torch.save(build(name, 1000).state_dict(), os.path.join(folder, name + "-imagenet.pth"))
    return len(state)


def scores(output):
    return output["out"] if isinstance(output, dict) else output


def loss(output, y):
    if not isinstance(output, dict):
        return torch.nn.functional.cross_entropy(output, y)
    return sum(weight * torch.nn.functional.cross_entropy(output[key], y, ignore_index=255)
               for key, weight in (("out", 1.0), ("aux", 0.5)))


def compare(folder, name, classes):
    ours, _ = tbtensors.read(os.path.join(folder, "ours.safetensors"))
    net32 = build(name, classes)
    net = copy.deepcopy(net32).double()
    x = torch.from_numpy(ours["x"])
    y = torch.from_numpy(ours["y"]).long()
    net.eval()
    with torch.no_grad():
        logits = scores(net(x)).numpy()
    net.train()
    loss(net(x), y).backward()
    # PyTorch's own float32 run beside ours: its distance from float64 is the noise float32
    # has on this model and batch (a near-cancelling sum, such as a BN bias's, has a lot).
    net32.train()
    loss(net32(x.float()), y).backward()
    reference = dict(net.named_parameters())
    grads = {}
    for k, p in net32.named_parameters():
        if "grad." + k in ours:
            exact = reference[k].grad.numpy()
            grads[k] = (tbtensors.relative_error(ours["grad." + k], exact),
                        tbtensors.relative_error(p.grad.numpy(), exact))
    # The gradient whose error is largest against float32's noise (1e-6 for the exact ones).
    worst = max(grads, key=lambda k: grads[k][0] / (grads[k][1] + 1e-6))
    return {"logits_error": tbtensors.relative_error(ours["logits"], logits),
            "gradients": len(grads), "missing_gradients": [k for k, _ in net.named_parameters()
                                                           if "grad." + k not in ours],
            "worst_gradient": worst, "worst_gradient_error": grads[worst][0],
            "worst_gradient_torch32_error": grads[worst][1]}


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    saving = commands.add_parser("save")
    saving.add_argument("folder")
    saving.add_argument("classes", type=int)
    saving.add_argument("models", nargs="+")
    saving.add_argument("--wrapped")
    comparing = commands.add_parser("compare")
    comparing.add_argument("folder")
    comparing.add_argument("model")
    comparing.add_argument("classes", type=int)
    args = parser.parse_args()
    if args.command == "save":
        models = list(dict.fromkeys(args.models + ([args.wrapped] if args.wrapped else [])))
        print(json.dumps({"tensors": {m: save(args.folder, m, args.classes, m == args.wrapped)
                                      for m in models}}))
    else:
        print(json.dumps(compare(args.folder, args.model, args.classes)))


if __name__ == "__main__":
    main()
