#!/usr/bin/env python3
"""TrainBench's default run as a plain PyTorch script, for tests/bench/whole_run.sh: fmnist-cnn on
Fashion-MNIST read from Debian's IDX files, normalised by the training set's mean and std,
batch 64, one DataLoader worker, SGD (lr 0.05, momentum 0.9) with a cosine schedule over every
optimizer step, two epochs, the test split evaluated after each. Prints one JSON line with the
same fields as `trainbench-cli train --json`'s per_epoch list.

  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp /usr/bin/python3 \\
      tests/bench/torch_whole_run.py --threads 2
"""
import argparse
import gzip
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from torch_reference import fmnist_cnn

ROOT = "/usr/share/datasets/fashion-mnist"


def idx(name, offset):
    with gzip.open(os.path.join(ROOT, name), "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    start = time.perf_counter()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    # uint8 pixels straight to float32 tensors: no float64 copy of the set is ever held.
    def images(name):
        return torch.from_numpy(idx(name, 16).copy()).view(-1, 1, 28, 28).float().div_(255.0)

    def labels(name):
        return torch.from_numpy(idx(name, 8).copy()).long()

    train_x, test_x = images("train-images-idx3-ubyte.gz"), images("t10k-images-idx3-ubyte.gz")
    mean, std = train_x.mean(), train_x.std()
    train_x.sub_(mean).div_(std)
    test_x.sub_(mean).div_(std)
    train = TensorDataset(train_x, labels("train-labels-idx1-ubyte.gz"))
    test = TensorDataset(test_x, labels("t10k-labels-idx1-ubyte.gz"))
    train_loader = DataLoader(train, batch_size=args.batch, shuffle=True,
                              num_workers=args.workers)
    test_loader = DataLoader(test, batch_size=args.batch, num_workers=args.workers)

    model = fmnist_cnn()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs * len(train_loader))
    per_epoch = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        t0, seen = time.perf_counter(), 0
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()
            seen += len(y)
        seconds = time.perf_counter() - t0
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in test_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        per_epoch.append({"epoch": epoch, "seconds": seconds, "samples_per_s": seen / seconds,
                          "val_acc": correct / len(test), "elapsed_s": time.perf_counter() - start})
    print(json.dumps({"framework": "pytorch " + torch.__version__, "per_epoch": per_epoch,
                      "duration_s": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
