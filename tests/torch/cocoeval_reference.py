#!/usr/bin/env python3
"""COCO's box evaluation written from its definition (pycocotools' COCOeval: evaluate,
evaluateImg, accumulate and summarize for iouType 'bbox', and maskUtils.iou's box overlap), in
numpy, for tests/detect/tst_cocoeval: pycocotools is not in Debian. Where pycocotools is
installed, its own COCOeval is run on the same files too and its two AP figures reported.

usage: cocoeval_reference.py GROUND_TRUTH.json RESULTS.json [--area MIN MAX]
Prints one JSON line: {"map50", "map5095", "classes": {id: [AP at each IoU threshold] or null},
"recall50": {id: recall}, "pycocotools": {"map50", "map5095"} or the reason it did not run}
"""
import argparse
import json

import numpy as np

IOU_THRESHOLDS = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
RECALL_POINTS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
MAX_DETS = 100


def box_iou(d, g, crowd):
    """maskUtils.iou for boxes (x, y, w, h): a crowd's union is the detection's own area."""
    w = min(d[0] + d[2], g[0] + g[2]) - max(d[0], g[0])
    if w <= 0:
        return 0.0
    h = min(d[1] + d[3], g[1] + g[3]) - max(d[1], g[1])
    if h <= 0:
        return 0.0
    i = w * h
    u = d[2] * d[3] if crowd else d[2] * d[3] + g[2] * g[3] - i
    return i / u


def evaluate_img(gt, dt, area):
    if not gt and not dt:
        return None
    for g in gt:
        g["_ignore"] = 1 if g.get("iscrowd", 0) or g["area"] < area[0] or g["area"] > area[1] else 0
    gtind = np.argsort([g["_ignore"] for g in gt], kind="mergesort")
    gt = [gt[i] for i in gtind]
    dtind = np.argsort([-d["score"] for d in dt], kind="mergesort")
    dt = [dt[i] for i in dtind[0:MAX_DETS]]
    iscrowd = [int(g.get("iscrowd", 0)) for g in gt]
    ious = np.array([[box_iou(d["bbox"], g["bbox"], c) for g, c in zip(gt, iscrowd)] for d in dt])
    T, G, D = len(IOU_THRESHOLDS), len(gt), len(dt)
    gtm = np.zeros((T, G))
    dtm = np.zeros((T, D))
    gt_ig = np.array([g["_ignore"] for g in gt])
    dt_ig = np.zeros((T, D))
    for tind, t in enumerate(IOU_THRESHOLDS):
        for dind, d in enumerate(dt):
            iou = min([t, 1 - 1e-10])
            m = -1
            for gind, g in enumerate(gt):
                if gtm[tind, gind] > 0 and not iscrowd[gind]:
                    continue
                if m > -1 and gt_ig[m] == 0 and gt_ig[gind] == 1:
                    break
                if ious[dind, gind] < iou:
                    continue
                iou = ious[dind, gind]
                m = gind
            if m == -1:
                continue
            dt_ig[tind, dind] = gt_ig[m]
            dtm[tind, dind] = gt[m]["id"]
            gtm[tind, m] = d["id"]
    a = np.array([d["area"] < area[0] or d["area"] > area[1] for d in dt]).reshape((1, D))
    dt_ig = np.logical_or(dt_ig, np.logical_and(dtm == 0, np.repeat(a, T, 0)))
    return {"dtMatches": dtm, "dtScores": [d["score"] for d in dt], "gtIgnore": gt_ig,
            "dtIgnore": dt_ig}


def accumulate(evals):
    """Precision (T, R) and recall (T) of one class, or None without ground truth."""
    evals = [e for e in evals if e is not None]
    if not evals:
        return None, None
    scores = np.concatenate([e["dtScores"][0:MAX_DETS] for e in evals])
    inds = np.argsort(-scores, kind="mergesort")
    dtm = np.concatenate([e["dtMatches"][:, 0:MAX_DETS] for e in evals], axis=1)[:, inds]
    dt_ig = np.concatenate([e["dtIgnore"][:, 0:MAX_DETS] for e in evals], axis=1)[:, inds]
    gt_ig = np.concatenate([e["gtIgnore"] for e in evals])
    npig = np.count_nonzero(gt_ig == 0)
    if npig == 0:
        return None, None
    tps = np.logical_and(dtm, np.logical_not(dt_ig))
    fps = np.logical_and(np.logical_not(dtm), np.logical_not(dt_ig))
    tp_sum = np.cumsum(tps, axis=1).astype(dtype=float)
    fp_sum = np.cumsum(fps, axis=1).astype(dtype=float)
    precision = -np.ones((len(IOU_THRESHOLDS), len(RECALL_POINTS)))
    recall = -np.ones(len(IOU_THRESHOLDS))
    for t, (tp, fp) in enumerate(zip(tp_sum, fp_sum)):
        tp, fp = np.array(tp), np.array(fp)
        nd = len(tp)
        rc = tp / npig
        pr = tp / (fp + tp + np.spacing(1))
        q = np.zeros((len(RECALL_POINTS),))
        recall[t] = rc[-1] if nd else 0
        pr = pr.tolist()
        q = q.tolist()
        for i in range(nd - 1, 0, -1):
            if pr[i] > pr[i - 1]:
                pr[i - 1] = pr[i]
        inds = np.searchsorted(rc, RECALL_POINTS, side="left")
        try:
            for ri, pi in enumerate(inds):
                q[ri] = pr[pi]
        except IndexError:
            pass
        precision[t] = np.array(q)
    return precision, recall


def evaluate(gt_doc, results, area):
    images = sorted({im["id"] for im in gt_doc["images"]})
    categories = sorted({c["id"] for c in gt_doc["categories"]})
    gts, dts = {}, {}
    for g in gt_doc["annotations"]:
        gts.setdefault((g["image_id"], g["category_id"]), []).append(dict(g))
    for i, d in enumerate(results):  # loadRes: ids from 1, area from the box
        d = dict(d, id=i + 1, area=d["bbox"][2] * d["bbox"][3], iscrowd=0)
        dts.setdefault((d["image_id"], d["category_id"]), []).append(d)
    per_class, recall50, all_precision = {}, {}, []
    for c in categories:
        evals = [evaluate_img(gts.get((i, c), []), dts.get((i, c), []), area) for i in images]
        precision, recall = accumulate(evals)
        if precision is None:
            per_class[c] = None
            continue
        per_class[c] = [float(np.mean(p)) for p in precision]
        recall50[c] = float(recall[0])
        all_precision.append(precision)
    if not all_precision:
        return -1.0, -1.0, per_class, recall50
    s = np.stack(all_precision, axis=2)  # (T, R, K) as summarize reads it
    return float(np.mean(s[0][s[0] > -1])), float(np.mean(s[s > -1])), per_class, recall50


def pycocotools_figures(gt_path, results_path, area):
    try:
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
    except ImportError as e:
        return f"pycocotools is not installed ({e})"
    gt = COCO(gt_path)
    dt = gt.loadRes(results_path) if json.load(open(results_path)) else COCO()
    ev = COCOeval(gt, dt, "bbox")
    ev.params.areaRng = [list(area)]
    ev.params.areaRngLbl = ["all"]
    ev.evaluate()
    ev.accumulate()
    p = ev.eval["precision"][:, :, :, 0, -1]
    return {"map50": float(np.mean(p[0][p[0] > -1])), "map5095": float(np.mean(p[p > -1]))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ground_truth")
    parser.add_argument("results")
    parser.add_argument("--area", nargs=2, type=float, default=[0.0, 1e10])
    args = parser.parse_args()
    gt_doc = json.load(open(args.ground_truth))
    results = json.load(open(args.results))
    map50, map5095, per_class, recall50 = evaluate(gt_doc, results, args.area)
    print(json.dumps({"map50": map50, "map5095": map5095,
                      "classes": {str(c): v for c, v in per_class.items()},
                      "recall50": {str(c): v for c, v in recall50.items()},
                      "pycocotools": pycocotools_figures(args.ground_truth, args.results,
                                                         args.area)}))


if __name__ == "__main__":
    main()
