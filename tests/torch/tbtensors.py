"""Reads the .safetensors files the C++ tests write (numpy only: Debian has no safetensors
package). Tensors come back as float64 numpy arrays (integers as int64); metadata as a dict."""
import json
import struct

import numpy as np

_DTYPES = {"F32": np.float32, "I32": np.int32, "U8": np.uint8}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = body[begin:end]
        if info["dtype"] == "BF16":  # bf16 is the top half of an f32
            bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            values = bits.view(np.float32)
        else:
            values = np.frombuffer(raw, dtype=_DTYPES[info["dtype"]])
        values = values.reshape(info["shape"])
        tensors[name] = values.astype(np.int64 if values.dtype.kind in "iu" else np.float64)
    return tensors, metadata


def relative_error(value, reference):
    """||value - reference|| / ||reference|| in float64 (0 when both are zero)."""
    value = np.asarray(value, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    scale = np.linalg.norm(reference)
    diff = np.linalg.norm(value - reference)
    return float(diff / scale) if scale > 0 else float(diff)


def worst(ours, torch32, reference):
    """The largest relative error to `reference` (float64 torch tensors by name) over the named
    tensors, of ours (numpy) and of PyTorch's float32 run (torch tensors), and the tensor where
    ours is worst: {"ours", "torch32", "worst"}."""
    out = {"ours": 0.0, "torch32": 0.0, "worst": ""}
    for name, ref in reference.items():
        e = relative_error(ours[name], ref.numpy())
        if e >= out["ours"]:
            out.update(ours=e, worst=name)
        out["torch32"] = max(out["torch32"],
                             relative_error(torch32[name].double().numpy(), ref.numpy()))
    return out


def write(path, tensors):
    """Writes {name: numpy array} as .safetensors (float arrays as F32, integers as I32)."""
    header, chunks, offset = {}, [], 0
    for name, value in tensors.items():
        value = np.ascontiguousarray(value)
        value = value.astype(np.int32 if value.dtype.kind in "iu" else np.float32)
        raw = value.tobytes()
        header[name] = {"dtype": "I32" if value.dtype == np.int32 else "F32",
                        "shape": list(value.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
