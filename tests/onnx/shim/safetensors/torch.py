"""safetensors.torch.load_file for the tests, on tests/torch/tbtensors.py."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "torch"))
import tbtensors  # noqa: E402


def load_file(path):
    tensors, _ = tbtensors.read(path)
    return {name: torch.from_numpy(v).to(torch.int64 if v.dtype.kind in "iu" else torch.float32)
            for name, v in tensors.items()}
