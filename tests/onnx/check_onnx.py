#!/usr/bin/env python3
"""Other people's code on TrainBench's ONNX exports (tst_export_onnx).

  check_onnx.py DIR   for every DIR/NAME.onnx beside DIR/NAME.io.safetensors (x: a batch of
                      inputs, logits: TrainBench's evaluation-mode logits for it), runs
                      onnx.checker.check_model with full checking (python3-onnx) and computes
                      the batch with OpenCV's DNN module (python3-opencv); prints one JSON line
                      {NAME: {"checker": "ok" | error, "opencv": {"relative_error", "top1_agree"}
                      | {"error"}}}
A missing module is reported as {"unavailable": reason} for that checker, not a failure here.
"""
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "torch"))
import tbtensors  # noqa: E402


def compare(logits, reference):
    """Top-1 agreement over the class axis (the last; the second of a segmentation's (N, classes,
    H, W)), wherever the reference's best class leads the next by more than float32 can blur
    (1e-5 of the largest score): a near-tie may go either way."""
    logits = np.asarray(logits, dtype=np.float64).reshape(reference.shape)
    axis = 1 if reference.ndim == 4 else -1
    ranked = np.sort(reference, axis=axis)
    margin = np.take(ranked, -1, axis=axis) - np.take(ranked, -2, axis=axis)
    tie = margin <= 1e-5 * np.abs(reference).max()
    agree = (logits.argmax(axis) == reference.argmax(axis)) | tie
    return {
        "relative_error": tbtensors.relative_error(logits, reference),
        "top1_agree": bool(agree.all()),
    }


def main(folder):
    try:
        import onnx
    except ImportError as e:
        onnx = None
        onnx_missing = str(e)
    try:
        import cv2
    except ImportError as e:
        cv2 = None
        cv2_missing = str(e)
    results = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.onnx"))):
        name = os.path.basename(path)[:-len(".onnx")]
        tensors, _ = tbtensors.read(os.path.join(folder, name + ".io.safetensors"))
        result = {}
        if onnx is None:
            result["checker"] = {"unavailable": onnx_missing}
        else:
            try:
                onnx.checker.check_model(onnx.load(path), full_check=True)
                result["checker"] = "ok"
            except Exception as e:  # the checker's own exception types vary by version
                result["checker"] = str(e)
        if cv2 is None:
            result["opencv"] = {"unavailable": cv2_missing}
        else:
            try:
                net = cv2.dnn.readNetFromONNX(path)
                net.setInput(tensors["x"].astype(np.float32))
                result["opencv"] = compare(net.forward(), tensors["logits"])
            except cv2.error as e:
                lines = [line.strip() for line in str(e).splitlines() if "error:" in line]
                result["opencv"] = {"error": lines[-1] if lines else str(e).strip()}
        results[name] = result
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1])
