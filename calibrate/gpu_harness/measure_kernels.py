#!/usr/bin/env python3
"""Time PyTorch operators on this machine's GPU as NeuSight's collector timed them, in NeuSight's CSV columns.

Protocol (NeuSight, neusight/Dataset/collect.py, measure_once): per shape, record a CUDA event, call the operator,
record a second event, synchronise; 25 times; the shape's latency is the mean of the 5 fastest, in milliseconds.
cudnn.benchmark is on (cuDNN times its algorithms on a shape's first call and keeps the fastest) and TF32 is off, so
fp32 runs on the CUDA cores; `--precision tf32` keeps fp32 tensors and lets cuBLAS and cuDNN run them as TF32 on the
tensor cores (PyTorch's `allow_tf32` flags, both on). Two untimed calls first (cuDNN's search, cuBLAS's heuristics, the allocator).

After an operator's shapes are timed, each shape runs once more under torch.profiler, separated by a one-element
fill, to record which kernels the libraries ran (`Kernels`, and the longest of them as `Kernel Name`).

    python3 measure_kernels.py SHAPES_FOLDER OUT_FOLDER [--precision fp32|tf32|fp16|bf16] [--ops linear,bmm,...]

Writes OUT_FOLDER/<op>.csv, with vtsim's `Precision` column beside NeuSight's; the launch grid columns of
NeuSight's files are left out (vtsim reads past them).
"""
import argparse, csv, os, sys, time

import torch
import torch.nn.functional as F

RUNS, KEPT, WARMUP = 25, 5, 2
CHUNK = 50


def make(op, shape, dtype):
    dev = "cuda"
    g = lambda *s: torch.randn(*s, device=dev, dtype=dtype)
    if op == "linear":  # (B x M) x N input, K x N weight: N is the reduction (data/kernels/README.md)
        x, w = g(shape["B"], shape["M"], shape["N"]), g(shape["K"], shape["N"])
        return lambda: F.linear(x, w)
    if op == "bmm":  # B products of (M x N) by (N x K)
        a, b = g(shape["B"], shape["M"], shape["N"]), g(shape["B"], shape["N"], shape["K"])
        return lambda: torch.bmm(a, b)
    if op == "conv":
        k = shape["Kernel_Szie"]
        x = g(shape["B"], shape["Input_Channel"], shape["Input_Size"], shape["Input_Size"])
        w = g(shape["Output_Channel"], shape["Input_Channel"], k, k)
        return lambda: F.conv2d(x, w, stride=shape["Stride"], padding=shape["Padding"])
    x = g(shape["B"], shape["H"])
    if op == "add":
        y = g(shape["B"], shape["H"])
        return lambda: x + y
    if op == "mul":
        y = g(shape["B"], shape["H"])
        return lambda: x * y
    if op == "relu":
        return lambda: F.relu(x)
    if op == "gelu":
        return lambda: F.gelu(x)
    if op == "softmax":
        return lambda: F.softmax(x, dim=-1)
    if op == "ln":
        w, b = g(shape["H"]), g(shape["H"])
        return lambda: F.layer_norm(x, (shape["H"],), w, b)
    raise ValueError(op)


def time_once(fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def kernels_of(fns):
    """The kernels each callable launches, in order: one profiled pass, each call after a one-element fill."""
    from torch.profiler import profile, ProfilerActivity
    marker = torch.zeros(1, device="cuda")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i, fn in enumerate(fns):
            marker.fill_(float(i))
            fn()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    events.sort(key=lambda e: e.time_range.start)
    groups, current = [], None
    for e in events:
        if "FillFunctor" in e.name:
            if current is not None:
                groups.append(current)
            current = []
        elif current is not None:
            current.append((e.name, e.time_range.elapsed_us()))
    if current is not None:
        groups.append(current)
    return groups if len(groups) == len(fns) else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("shapes")
    p.add_argument("out")
    p.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"])
    p.add_argument("--ops", default="linear,bmm,conv,add,mul,relu,gelu,softmax,ln")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.benchmark = True
    dtype = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[a.precision]
    device = torch.cuda.get_device_name(0)
    os.makedirs(a.out, exist_ok=True)
    for op in a.ops.split(","):
        began = time.time()
        with open(os.path.join(a.shapes, op + ".csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        dims = [k for k in rows[0].keys() if k != "A100 Latency"]
        shapes = [{k: int(r[k]) for k in dims} for r in rows]
        out = open(os.path.join(a.out, op + ".csv"), "w", newline="")
        w = csv.writer(out)
        w.writerow(["OPName", "Latency", "Device", "Precision", "Torch Version", "CUDNN Version", "Kernel Name",
                    "CUDA Version", "Kernels"] + dims)
        kept, named = 0, 0
        for first in range(0, len(shapes), CHUNK):  # a chunk's tensors are held until its profiled pass
            timed = []
            for shape in shapes[first:first + CHUNK]:
                try:
                    fn = make(op, shape, dtype)
                    for _ in range(WARMUP):
                        fn()
                    torch.cuda.synchronize()
                    times = sorted(time_once(fn) for _ in range(RUNS))
                    timed.append((shape, sum(times[:KEPT]) / KEPT, fn))
                except torch.OutOfMemoryError:
                    torch.cuda.empty_cache()
            try:
                kernels = kernels_of([fn for _, _, fn in timed])
            except Exception as e:  # the timings stand without the kernel names
                print(f"{op}: no kernel names ({e})", file=sys.stderr)
                kernels = None
            for i, (shape, latency, _) in enumerate(timed):
                ran = kernels[i] if kernels else []
                main_kernel = max(ran, key=lambda k: k[1])[0] if ran else ""
                w.writerow([op, repr(latency), device, a.precision, "p" + torch.__version__,
                            torch.backends.cudnn.version(), main_kernel, "cu" + str(torch.version.cuda),
                            "".join(";" + k[0] for k in ran)] + [shape[d] for d in dims])
            kept += len(timed)
            named += len(timed) if kernels else 0
            out.flush()
            del timed
            torch.cuda.empty_cache()
        out.close()
        print(f"{op} ({a.precision}): {kept}/{len(shapes)} shapes in {time.time() - began:.1f} s,"
              f" kernel names for {named}", flush=True)


if __name__ == "__main__":
    main()
