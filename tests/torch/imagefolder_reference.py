#!/usr/bin/env python3
"""torchvision's ImageNet evaluation transform as the reference for ImageFolder's (tst_imagefolder).

  eval IMAGE SIZE OURS   applies Resize(round(SIZE * 8 / 7)) + CenterCrop(SIZE) + ToTensor to
                         IMAGE as PIL reads it, and prints how far tensor "x" of OURS (a
                         .safetensors file: TrainBench's sample of the same image) is from it:
                         the largest and the mean absolute difference, in [0, 1] pixel units
"""
import json
import sys

import numpy as np
import torchvision.transforms as T
from PIL import Image

import tbtensors


def evaluate(image, size, ours_path):
    transform = T.Compose([T.Resize(round(size * 8 / 7)), T.CenterCrop(size), T.ToTensor()])
    reference = transform(Image.open(image).convert("RGB")).numpy().astype(np.float64)
    ours, _ = tbtensors.read(ours_path)
    diff = np.abs(ours["x"].reshape(reference.shape) - reference)
    return {"max_abs_diff": float(diff.max()), "mean_abs_diff": float(diff.mean())}


def main():
    if len(sys.argv) != 5 or sys.argv[1] != "eval":
        sys.exit(__doc__)
    print(json.dumps(evaluate(sys.argv[2], int(sys.argv[3]), sys.argv[4])))


if __name__ == "__main__":
    main()
