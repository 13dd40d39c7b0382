"""YOLOv8 in plain PyTorch, written from Ultralytics' published definitions (ultralytics/nn/
modules: Conv, Bottleneck, C2f, SPPF, Concat, DFL, Detect; ultralytics/cfg/models/v8/yolov8.yaml
and parse_model), with the same module tree, so its state dict's names are Ultralytics' own
(model.0.conv.weight, ..., model.22.dfl.conv.weight). Ultralytics is not in Debian; this is the
reference the tests and benchmarks compare TrainBench's yolov8 models with.

    model = yolov8("n", classes=80)
    maps = model(images)               # training mode: one (N, 64 + classes, H_i, W_i) per stride
    flat = Detect.flatten(maps)        # (N, 64 + classes, anchors), as TrainBench's output
"""
import math

import torch
import torch.nn as nn

# yolov8.yaml: [from, repeats, module, args]
BACKBONE = [
    [-1, 1, "Conv", [64, 3, 2]],  # 0-P1/2
    [-1, 1, "Conv", [128, 3, 2]],  # 1-P2/4
    [-1, 3, "C2f", [128, True]],
    [-1, 1, "Conv", [256, 3, 2]],  # 3-P3/8
    [-1, 6, "C2f", [256, True]],
    [-1, 1, "Conv", [512, 3, 2]],  # 5-P4/16
    [-1, 6, "C2f", [512, True]],
    [-1, 1, "Conv", [1024, 3, 2]],  # 7-P5/32
    [-1, 3, "C2f", [1024, True]],
    [-1, 1, "SPPF", [1024, 5]],  # 9
]
HEAD = [
    [-1, 1, "Upsample", [None, 2, "nearest"]],
    [[-1, 6], 1, "Concat", [1]],  # cat backbone P4
    [-1, 3, "C2f", [512]],  # 12
    [-1, 1, "Upsample", [None, 2, "nearest"]],
    [[-1, 4], 1, "Concat", [1]],  # cat backbone P3
    [-1, 3, "C2f", [256]],  # 15 (P3/8-small)
    [-1, 1, "Conv", [256, 3, 2]],
    [[-1, 12], 1, "Concat", [1]],  # cat head P4
    [-1, 3, "C2f", [512]],  # 18 (P4/16-medium)
    [-1, 1, "Conv", [512, 3, 2]],
    [[-1, 9], 1, "Concat", [1]],  # cat head P5
    [-1, 3, "C2f", [1024]],  # 21 (P5/32-large)
    [[15, 18, 21], 1, "Detect", ["nc"]],  # Detect(P3, P4, P5)
]
SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768),
          "l": (1.00, 1.00, 512), "x": (1.00, 1.25, 512)}


class Conv(nn.Module):
    """Convolution without bias, batch norm, SiLU."""

    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, e=1.0):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 3, 1)
        self.cv2 = Conv(c_, c2, 3, 1)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        return x + self.cv2(self.cv1(x)) if self.add else self.cv2(self.cv1(x))


class C2f(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=False, e=0.5):
        super().__init__()
        self.c = int(c2 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, self.c, shortcut, e=1.0) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class Concat(nn.Module):
    def forward(self, x):
        return torch.cat(x, 1)


class DFL(nn.Module):
    """The distribution's expectation: a fixed 1x1 convolution weighing bin i by i."""

    def __init__(self, c1=16):
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = torch.arange(c1, dtype=torch.float).view(1, c1, 1, 1)
        self.c1 = c1


class Detect(nn.Module):
    reg_max = 16

    def __init__(self, nc, ch):
        super().__init__()
        self.nc = nc
        self.no = nc + self.reg_max * 4
        self.stride = torch.tensor([8.0, 16.0, 32.0])
        c2, c3 = max((16, ch[0] // 4, self.reg_max * 4)), max(ch[0], min(self.nc, 100))
        self.cv2 = nn.ModuleList(
            nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * self.reg_max, 1))
            for x in ch)
        self.cv3 = nn.ModuleList(
            nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, self.nc, 1)) for x in ch)
        self.dfl = DFL(self.reg_max)

    def bias_init(self):
        for a, b, s in zip(self.cv2, self.cv3, self.stride):
            a[-1].bias.data[:] = 1.0
            b[-1].bias.data[: self.nc] = math.log(5 / self.nc / (640 / s) ** 2)

    def forward(self, x):
        return [torch.cat((self.cv2[i](x[i]), self.cv3[i](x[i])), 1) for i in range(len(x))]

    @staticmethod
    def flatten(maps):
        return torch.cat([m.view(m.shape[0], m.shape[1], -1) for m in maps], 2)


class Model(nn.Module):
    """parse_model's Sequential-like container: each module reads the rows `f` names."""

    def __init__(self, scale, nc):
        super().__init__()
        depth, width, max_channels = SCALES[scale]
        ch, layers, self.froms = [], [], []  # ch: each row's output channels

        def channels(f):
            return 3 if not ch else ch[f]

        for f, n, name, args in BACKBONE + HEAD:
            n = max(round(n * depth), 1) if n > 1 else n
            if name in ("Conv", "C2f", "SPPF"):
                c1 = channels(f)
                c2 = math.ceil(min(args[0], max_channels) * width / 8) * 8
                if name == "Conv":
                    m = Conv(c1, c2, *args[1:])
                elif name == "C2f":
                    m = C2f(c1, c2, n, *args[1:])
                else:
                    m = SPPF(c1, c2, *args[1:])
            elif name == "Upsample":
                m, c2 = nn.Upsample(scale_factor=2, mode="nearest"), channels(f)
            elif name == "Concat":
                m, c2 = Concat(), sum(channels(x) for x in f)
            else:
                m, c2 = Detect(nc, [channels(x) for x in f]), nc + 4 * Detect.reg_max
            layers.append(m)
            self.froms.append(f)
            ch.append(c2)
        self.model = nn.ModuleList(layers)
        self.model[-1].bias_init()

    def forward(self, x):
        outputs = []
        for m, f in zip(self.model, self.froms):
            if f != -1:
                x = outputs[f] if isinstance(f, int) else [x if j == -1 else outputs[j] for j in f]
            x = m(x)
            outputs.append(x)
        return x


def yolov8(scale="n", classes=80):
    return Model(scale, classes)
