#!/usr/bin/env python3
"""torchvision's ImageFolder + DataLoader on a folder of images, as the reference for
trainbench-cli bench-data on the same folder (imagefolder_loader.sh).

  torch_imagefolder.py ROOT --size 224 --batch 64 --workers 2 --batches 40 [--augment]

Training samples as torchvision's ImageNet recipe prepares them (RandomResizedCrop + flip with
--augment, else Resize(size * 8/7) + CenterCrop), ToTensor and Normalize; prints one JSON line
with samples_per_s over the batches after the first (which starts the workers).
"""
import argparse
import json
import time

import torch
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--batches", type=int, default=40)
    p.add_argument("--augment", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(1)  # the loader's work is in its workers, as ours
    crop = ([T.RandomResizedCrop(a.size), T.RandomHorizontalFlip()] if a.augment
            else [T.Resize(round(a.size * 8 / 7)), T.CenterCrop(a.size)])
    transform = T.Compose(crop + [T.ToTensor(), T.Normalize([0.485, 0.456, 0.406],
                                                             [0.229, 0.224, 0.225])])
    loader = DataLoader(ImageFolder(a.root, transform), batch_size=a.batch, shuffle=True,
                        num_workers=a.workers, drop_last=True)
    it = iter(loader)
    next(it)
    start = time.perf_counter()
    n = 0
    for _ in range(a.batches):
        n += next(it)[0].shape[0]
    seconds = time.perf_counter() - start
    print(json.dumps({"samples_per_s": n / seconds, "batches": a.batches, "seconds": seconds}))


if __name__ == "__main__":
    main()
