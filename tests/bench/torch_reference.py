#!/usr/bin/env python3
"""PyTorch reference for `trainbench-cli bench`: trains the same zoo models with the same batch,
threads and optimizer on synthetic batches and prints one JSON line per model.

Run with Debian's torch and the OpenMP OpenBLAS so PyTorch has one thread pool:
  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp /usr/bin/python3 \
      tests/bench/torch_reference.py --model resnet20 --batch 128 --steps 30 --threads 2
On a GPU (tests/gpu/run-all.sh): --device cuda [--precision 16-mixed|bf16-mixed], timed like
`trainbench-cli bench --device cuda:0`: steps ending in a synchronize, then steps issued back to
back for at least 3 s (PyTorch at its best: cudnn.benchmark on, autocast + GradScaler for fp16).
"""
import argparse
import json
import os
import sys
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
import detectloss_reference  # noqa: E402
import torch_yolo  # noqa: E402
import unet_reference  # noqa: E402


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                         nn.ReLU(), nn.Linear(128, 10))


def lenet5():
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def fmnist_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
        nn.Linear(128, 10))


class ShortcutA(nn.Module):
    """Parameter-free option-A shortcut: subsample and zero-pad channels (He et al. 2016)."""

    def __init__(self, pad):
        super().__init__()
        self.pad = pad

    def forward(self, x):
        return F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, self.pad, self.pad))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = ShortcutA((cout - cin) // 2) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


def resnet(depth):
    n = (depth - 2) // 6
    layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    cin = 16
    for cout, stride in ((16, 1), (32, 2), (64, 2)):
        for i in range(n):
            layers.append(BasicBlock(cin, cout, stride if i == 0 else 1))
            cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    return nn.Sequential(*layers)


def segmentation_model(name):
    import torchvision
    model = getattr(torchvision.models.segmentation, name)(
        weights=None, weights_backbone=None, num_classes=10)
    return SegmentationScores(model)


class SegmentationScores(torch.nn.Module):
    """torchvision's dict output as the zoo's one tensor: output["out"]."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def torchvision_model(name):
    import torchvision  # only these models need it: python3-torchvision
    return getattr(torchvision.models, name)(weights=None, num_classes=10)


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention as PyTorch 1.13 runs it (no fused SDPA yet): scores, a causal mask,
    softmax, dropout, the weighted sum."""

    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head = n_head
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size), persistent=False)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(n_embd, 4 * n_embd),
                                      c_proj=nn.Linear(4 * n_embd, n_embd)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.dropout(self.mlp.c_proj(h))


class GPT(nn.Module):
    """nanoGPT's model.py GPT (tanh GELU, as GPT-2) with its parameter names: the zoo's `gpt`.
    forward returns the logits at every position, (batch, block, vocab)."""

    def __init__(self, vocab=65, block_size=64, n_layer=4, n_head=4, n_embd=128, dropout=0.0):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab, n_embd), wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList(Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)),
            ln_f=nn.LayerNorm(n_embd)))
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(t, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


MODELS = {
    "mlp": (mlp, (1, 28, 28)),
    "lenet5": (lenet5, (1, 28, 28)),
    "fmnist-cnn": (fmnist_cnn, (1, 28, 28)),
    "resnet20": (lambda: resnet(20), (3, 32, 32)),
    "resnet32": (lambda: resnet(32), (3, 32, 32)),
    # torchvision's ImageNet models at their 224 px, as the zoo's copies of them.
    **{name: (lambda name=name: torchvision_model(name), (3, 224, 224))
       for name in ("resnet18", "resnet34", "resnet50", "mobilenet_v2", "vgg11_bn")},
    # Token windows: --block-size ids each, next-token targets over a 65-character vocabulary.
    "gpt": (GPT, None),
    # YOLOv8n (tests/bench/torch_yolo.py) on --image-size px images, 10 classes, four random
    # boxes an image, with YOLOv8's loss (tests/torch/detectloss_reference.py) as the step's.
    "yolov8n": (lambda: torch_yolo.yolov8("n", classes=10), None),
    # The zoo's unet (16 wide, 3 deep; tests/torch/unet_reference.py) on --image-size px images,
    # a class of 10 at every pixel, the per-pixel cross-entropy as the step's loss.
    "unet": (lambda: unet_reference.UNet(16, 3, 10), None),
    # torchvision's segmentation models as the zoo builds them by default (output stride 8, no
    # auxiliary head: torchvision's aux_loss=None), on --image-size px images, 10 classes.
    **{name: (lambda name=name: segmentation_model(name), None)
       for name in ("fcn_resnet50", "deeplabv3_resnet50")},
}
SEGMENTATION = ("unet", "fcn_resnet50", "deeplabv3_resnet50")


def detection_targets(batch, side, classes, gen):
    """(batch * 4, 6) rows: image, class, x1, y1, x2, y2 in pixels (sides 5% to 45%)."""
    rows = []
    for i in range(batch):
        for _ in range(4):
            w, h = (side * (0.05 + 0.4 * torch.rand(2, generator=gen))).tolist()
            x, y = ((side - w) * torch.rand(1, generator=gen)).item(), ((side - h) * torch.rand(1, generator=gen)).item()
            rows.append([i, int(torch.randint(classes, (1,), generator=gen)), x, y, x + w, y + h])
    return torch.tensor(rows, dtype=torch.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mlp", choices=sorted(MODELS))
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--precision", default="32", choices=("32", "16-mixed", "bf16-mixed"))
    ap.add_argument("--n-layer", type=int, default=4)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=128)
    ap.add_argument("--block-size", type=int, default=64)
    ap.add_argument("--image-size", type=int, default=320,
                    help="the input side of yolov8n and the segmentation models")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    gpu = args.device == "cuda"
    if gpu:
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32, as in our engine
        torch.backends.cudnn.allow_tf32 = False
    build, shape = MODELS[args.model]
    if args.model == "gpt":
        model = GPT(65, args.block_size, args.n_layer, args.n_head, args.n_embd).to(args.device)
        x = torch.randint(0, 65, (args.batch, args.block_size), device=args.device)
        y = torch.randint(0, 65, (args.batch, args.block_size), device=args.device)
    elif args.model == "yolov8n":
        model = build().to(args.device)
        side = args.image_size
        x = torch.rand(args.batch, 3, side, side, device=args.device)
        y = detection_targets(args.batch, side, 10, torch.Generator().manual_seed(3))
        maps = [side // s for s in (8, 16, 32)]
        meta = {"heights": ",".join(map(str, maps)), "widths": ",".join(map(str, maps)),
                "strides": "8,16,32", "reg_max": "16", "gains": "7.5,0.5,1.5"}
    elif args.model in SEGMENTATION:
        model = build().to(args.device)
        side = args.image_size
        x = torch.randn(args.batch, 3, side, side, device=args.device)
        y = torch.randint(0, 10, (args.batch, side, side), device=args.device)
    else:
        model = build().to(args.device)
        x = torch.randn(args.batch, *shape, device=args.device)
        y = torch.randint(0, 10, (args.batch,), device=args.device)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    amp_dtype = {"16-mixed": torch.float16, "bf16-mixed": torch.bfloat16}.get(args.precision)
    scaler = torch.cuda.amp.GradScaler() if args.precision == "16-mixed" else None
    sync = torch.cuda.synchronize if gpu else (lambda: None)

    def step():
        opt.zero_grad(set_to_none=False)
        with torch.autocast(args.device, dtype=amp_dtype, enabled=amp_dtype is not None):
            if args.model == "yolov8n":
                head = torch_yolo.Detect.flatten(model(x)).float()
                loss = detectloss_reference.v8_detection_loss(head, y, meta, torch.float32)[1]
            elif args.model in SEGMENTATION:
                loss = F.cross_entropy(model(x), y, ignore_index=255)
            else:
                logits = model(x)
                loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()

    times = []
    for i in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        step()
        sync()
        if i >= args.warmup:
            times.append((time.perf_counter() - t0) * 1000.0)
    med = statistics.median(times)
    result = {"framework": "pytorch " + torch.__version__, "model": args.model,
              "batch": args.batch, "threads": args.threads, "device": args.device,
              "precision": args.precision, "median_step_ms": med,
              "samples_per_s": args.batch / med * 1000.0}
    if gpu:
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 3.0:
            for _ in range(args.steps):
                step()
            steps += args.steps
            sync()
        steady = (time.perf_counter() - t0) * 1000.0 / steps
        result.update(steady_step_ms=steady, steady_samples_per_s=args.batch / steady * 1000.0)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
