#!/usr/bin/env python3
"""YOLOv8's detection loss written from Ultralytics' definitions (ultralytics/utils/loss.py
v8DetectionLoss and BboxLoss, utils/tal.py TaskAlignedAssigner, make_anchors, dist2bbox,
bbox2dist, utils/metrics.py bbox_iou with CIoU), on a C++ test's head output and boxes
(tests/detect/tst_detectionloss), with autograd for the gradient, in float64 (the reference) and
float32. One change from Ultralytics: torch.topk's order among equal alignments is left open,
so ties go to the lower anchor index here, as in TrainBench.

usage: detectloss_reference.py RUN.safetensors   (head (N, 4 reg_max + classes, A); boxes
(M, 6): image, class, x1, y1, x2, y2 in pixels; ours_terms (3); ours_grad; metadata: heights,
widths, strides, reg_max, gains box,cls,dfl)
Prints one JSON line: {"terms": {"ours": e, "torch32": e}, "gradient": {...},
"reference_terms": [box, cls, dfl], "positives": n}
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import tbtensors  # noqa: E402


def make_anchors(heights, widths, strides, dtype, offset=0.5):
    points, stride_tensor = [], []
    for h, w, s in zip(heights, widths, strides):
        sx = torch.arange(end=w, dtype=dtype) + offset
        sy = torch.arange(end=h, dtype=dtype) + offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), s, dtype=dtype))
    return torch.cat(points), torch.cat(stride_tensor)


def dist2bbox(distance, anchor_points, dim=-1):
    lt, rb = distance.chunk(2, dim)
    return torch.cat((anchor_points - lt, anchor_points + rb), dim)  # xyxy


def bbox2dist(anchor_points, bbox, reg_max):
    x1y1, x2y2 = bbox.chunk(2, -1)
    return torch.cat((anchor_points - x1y1, x2y2 - anchor_points), -1).clamp_(0, reg_max - 0.01)


def bbox_ciou(box1, box2, eps=1e-7):
    (b1_x1, b1_y1, b1_x2, b1_y2), (b2_x1, b2_y1, b2_x2, b2_y2) = box1.chunk(4, -1), box2.chunk(4, -1)
    w1, h1 = b1_x2 - b1_x1, b1_y2 - b1_y1 + eps
    w2, h2 = b2_x2 - b2_x1, b2_y2 - b2_y1 + eps
    inter = (b1_x2.minimum(b2_x2) - b1_x1.maximum(b2_x1)).clamp(0) * \
            (b1_y2.minimum(b2_y2) - b1_y1.maximum(b2_y1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    cw = b1_x2.maximum(b2_x2) - b1_x1.minimum(b2_x1)
    ch = b1_y2.maximum(b2_y2) - b1_y1.minimum(b2_y1)
    c2 = cw ** 2 + ch ** 2 + eps
    rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2) ** 2 + (b2_y1 + b2_y2 - b1_y1 - b1_y2) ** 2) / 4
    v = (4 / math.pi ** 2) * (torch.atan(w2 / h2) - torch.atan(w1 / h1)).pow(2)
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return iou - (rho2 / c2 + v * alpha)


class TaskAlignedAssigner:
    def __init__(self, topk=10, num_classes=80, alpha=0.5, beta=6.0, eps=1e-9):
        self.topk, self.num_classes, self.alpha, self.beta, self.eps = topk, num_classes, alpha, beta, eps

    @torch.no_grad()
    def __call__(self, pd_scores, pd_bboxes, anc_points, gt_labels, gt_bboxes, mask_gt):
        self.bs, self.n_max_boxes = pd_scores.size(0), gt_bboxes.size(1)
        if self.n_max_boxes == 0:
            return (torch.zeros_like(pd_bboxes), torch.zeros_like(pd_scores),
                    torch.zeros_like(pd_scores[..., 0]).bool())
        mask_in_gts = self.select_candidates_in_gts(anc_points, gt_bboxes)
        align_metric, overlaps = self.get_box_metrics(pd_scores, pd_bboxes, gt_labels, gt_bboxes,
                                                      mask_in_gts * mask_gt)
        mask_topk = self.select_topk_candidates(align_metric, mask_gt.expand(-1, -1, self.topk).bool())
        mask_pos = mask_topk * mask_in_gts * mask_gt
        target_gt_idx, fg_mask, mask_pos = self.select_highest_overlaps(mask_pos, overlaps)
        target_bboxes, target_scores = self.get_targets(gt_labels, gt_bboxes, target_gt_idx, fg_mask)
        align_metric *= mask_pos
        pos_align_metrics = align_metric.amax(axis=-1, keepdim=True)
        pos_overlaps = (overlaps * mask_pos).amax(axis=-1, keepdim=True)
        norm_align_metric = (align_metric * pos_overlaps / (pos_align_metrics + self.eps)).amax(-2).unsqueeze(-1)
        return target_bboxes, target_scores * norm_align_metric, fg_mask.bool()

    @staticmethod
    def select_candidates_in_gts(xy_centers, gt_bboxes, eps=1e-9):
        n_anchors = xy_centers.shape[0]
        bs, n_boxes, _ = gt_bboxes.shape
        lt, rb = gt_bboxes.view(-1, 1, 4).chunk(2, 2)
        deltas = torch.cat((xy_centers[None] - lt, rb - xy_centers[None]), dim=2).view(bs, n_boxes, n_anchors, -1)
        return deltas.amin(3).gt_(eps)

    def get_box_metrics(self, pd_scores, pd_bboxes, gt_labels, gt_bboxes, mask_gt):
        na = pd_bboxes.shape[-2]
        mask_gt = mask_gt.bool()
        overlaps = torch.zeros([self.bs, self.n_max_boxes, na], dtype=pd_bboxes.dtype)
        bbox_scores = torch.zeros([self.bs, self.n_max_boxes, na], dtype=pd_scores.dtype)
        ind = torch.zeros([2, self.bs, self.n_max_boxes], dtype=torch.long)
        ind[0] = torch.arange(end=self.bs).view(-1, 1).expand(-1, self.n_max_boxes)
        ind[1] = gt_labels.squeeze(-1)
        bbox_scores[mask_gt] = pd_scores[ind[0], :, ind[1]][mask_gt]
        pd_boxes = pd_bboxes.unsqueeze(1).expand(-1, self.n_max_boxes, -1, -1)[mask_gt]
        gt_boxes = gt_bboxes.unsqueeze(2).expand(-1, -1, na, -1)[mask_gt]
        overlaps[mask_gt] = bbox_ciou(gt_boxes, pd_boxes).squeeze(-1).clamp_(0)
        return bbox_scores.pow(self.alpha) * overlaps.pow(self.beta), overlaps

    def select_topk_candidates(self, metrics, topk_mask):
        # torch.topk, with equal metrics ordered by anchor index (a stable descending sort)
        topk_idxs = torch.sort(metrics, dim=-1, descending=True, stable=True)[1][..., :self.topk]
        topk_idxs.masked_fill_(~topk_mask, 0)
        count = torch.zeros(metrics.shape, dtype=torch.int8)
        ones = torch.ones_like(topk_idxs[:, :, :1], dtype=torch.int8)
        for k in range(self.topk):
            count.scatter_add_(-1, topk_idxs[:, :, k:k + 1], ones)
        count.masked_fill_(count > 1, 0)
        return count.to(metrics.dtype)

    def select_highest_overlaps(self, mask_pos, overlaps):
        fg_mask = mask_pos.sum(-2)
        if fg_mask.max() > 1:
            mask_multi_gts = (fg_mask.unsqueeze(1) > 1).expand(-1, self.n_max_boxes, -1)
            max_overlaps_idx = overlaps.argmax(1)
            is_max = torch.zeros(mask_pos.shape, dtype=mask_pos.dtype)
            is_max.scatter_(1, max_overlaps_idx.unsqueeze(1), 1)
            mask_pos = torch.where(mask_multi_gts, is_max, mask_pos).float()
            fg_mask = mask_pos.sum(-2)
        return mask_pos.argmax(-2), fg_mask, mask_pos

    def get_targets(self, gt_labels, gt_bboxes, target_gt_idx, fg_mask):
        batch_ind = torch.arange(end=self.bs, dtype=torch.int64)[..., None]
        target_gt_idx = target_gt_idx + batch_ind * self.n_max_boxes
        target_labels = gt_labels.long().flatten()[target_gt_idx].clamp_(0)
        target_bboxes = gt_bboxes.view(-1, 4)[target_gt_idx]
        target_scores = torch.zeros((*target_labels.shape, self.num_classes), dtype=torch.int64)
        target_scores.scatter_(2, target_labels.unsqueeze(-1), 1)
        target_scores = torch.where(fg_mask[:, :, None].repeat(1, 1, self.num_classes) > 0, target_scores, 0)
        return target_bboxes, target_scores


def df_loss(pred_dist, target):
    tl = target.long()
    tr = tl + 1
    wl = tr - target
    wr = 1 - wl
    return (F.cross_entropy(pred_dist, tl.view(-1), reduction="none").view(tl.shape) * wl +
            F.cross_entropy(pred_dist, tr.view(-1), reduction="none").view(tl.shape) * wr).mean(-1, keepdim=True)


def v8_detection_loss(head, boxes, meta, dtype):
    ints = lambda key: [int(v) for v in meta[key].split(",")]  # noqa: E731
    gains = [float(v) for v in meta["gains"].split(",")]
    reg_max = int(meta["reg_max"])
    bs, no, _ = head.shape
    nc = no - 4 * reg_max
    pred_distri, pred_scores = head.split((reg_max * 4, nc), 1)
    pred_scores = pred_scores.permute(0, 2, 1).contiguous()
    pred_distri = pred_distri.permute(0, 2, 1).contiguous()
    anchor_points, stride_tensor = make_anchors(ints("heights"), ints("widths"), ints("strides"), dtype)
    # preprocess: (b, max boxes, 5) of class and corners in pixels, zero rows as padding
    counts = [int((boxes[:, 0] == i).sum()) for i in range(bs)]
    targets = torch.zeros(bs, max(counts + [0]), 5, dtype=dtype)
    for i in range(bs):
        rows = boxes[boxes[:, 0] == i]
        targets[i, :len(rows)] = rows[:, 1:]
    gt_labels, gt_bboxes = targets.split((1, 4), 2)
    mask_gt = gt_bboxes.sum(2, keepdim=True).gt_(0)
    b, a, c = pred_distri.shape
    proj = torch.arange(reg_max, dtype=dtype)
    pred_bboxes = dist2bbox(pred_distri.view(b, a, 4, c // 4).softmax(3).matmul(proj), anchor_points)
    assigner = TaskAlignedAssigner(topk=10, num_classes=nc, alpha=0.5, beta=6.0)
    target_bboxes, target_scores, fg_mask = assigner(
        pred_scores.detach().sigmoid(), (pred_bboxes.detach() * stride_tensor).type(gt_bboxes.dtype),
        anchor_points * stride_tensor, gt_labels, gt_bboxes, mask_gt)
    target_scores_sum = max(target_scores.sum(), 1)
    loss = torch.zeros(3, dtype=dtype)
    loss[1] = F.binary_cross_entropy_with_logits(pred_scores, target_scores.to(dtype), reduction="none").sum() / target_scores_sum
    if fg_mask.sum():
        target_bboxes = target_bboxes / stride_tensor
        weight = target_scores.sum(-1)[fg_mask].unsqueeze(-1)
        iou = bbox_ciou(pred_bboxes[fg_mask], target_bboxes[fg_mask])
        loss[0] = ((1.0 - iou) * weight).sum() / target_scores_sum
        target_ltrb = bbox2dist(anchor_points, target_bboxes, reg_max - 1)
        loss[2] = (df_loss(pred_distri[fg_mask].view(-1, reg_max), target_ltrb[fg_mask]) * weight).sum() / target_scores_sum
    loss = loss * torch.tensor(gains, dtype=dtype)
    return loss, loss.sum() * bs, int(fg_mask.sum())


def run(tensors, meta, dtype):
    head = torch.tensor(tensors["head"], dtype=dtype, requires_grad=True)
    boxes = torch.tensor(tensors["boxes"], dtype=dtype).reshape(-1, 6)
    terms, total, positives = v8_detection_loss(head, boxes, meta, dtype)
    total.backward()
    return terms.detach(), head.grad.detach(), positives


def main():
    tensors, meta = tbtensors.read(sys.argv[1])
    torch.set_num_threads(2)
    terms64, grad64, positives = run(tensors, meta, torch.float64)
    terms32, grad32, _ = run(tensors, meta, torch.float32)
    err = tbtensors.relative_error
    print(json.dumps({
        "terms": {"ours": err(tensors["ours_terms"], terms64.numpy()),
                  "torch32": err(terms32.numpy(), terms64.numpy())},
        "gradient": {"ours": err(tensors["ours_grad"], grad64.numpy()),
                     "torch32": err(grad32.numpy(), grad64.numpy())},
        "reference_terms": terms64.tolist(),
        "positives": positives,
    }))


if __name__ == "__main__":
    main()
