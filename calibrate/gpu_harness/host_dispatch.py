#!/usr/bin/env python3
"""The host's side of a training step on this machine (issue 27, item 3: the host, separately).

ops     PyTorch's eager cost per operator: each operator on tiny tensors, 3,000 calls issued without synchronising
        (the host's time per call), once under torch.no_grad and once recording autograd's graph.
steps   Host-bound training steps: models at shapes so small that every kernel ends long before the host has issued
        the next, so a phase's wall time is the host's. Each phase (forward with the loss, backward, optimizer) is
        timed on its own (synchronised before and after), 20 steps after 5 untimed ones; one more step runs under
        torch.profiler with each phase annotated, which gives the phase's kernels, copies and memsets (launches) and
        the GPU's busy time (the union of their intervals). host us per launch = phase wall / launches. Each
        kernel's launch call (the CUDA runtime or driver call whose correlation id it carries: cudaLaunchKernel,
        cuLaunchKernel and their forms) is kept by its duration, `launch_call_us`: what a library's own launch
        inside a framework's call costs the host (the profiler's callbacks lengthen it a little).
        Modes: eager fp32, eager under autocast(bfloat16), the whole step captured as one CUDA graph and replayed
        (capturable AdamW), and torch.compile (default mode and reduce-overhead, which replays CUDA graphs).

    python3 host_dispatch.py OUT_FOLDER [--budget SECONDS]
"""
import argparse, json, os, platform, sys, time

import torch
import torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity, record_function

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_layers import Gpt  # noqa: E402  (plain-PyTorch GPT: pre-LN blocks, fused attention, tied head)
from trace_steps import busy_us  # noqa: E402  (the union of kernel intervals)

STARTED = time.perf_counter()
WARMUP, TIMED = 5, 20
LAUNCHES = ("kernel", "gpu_memcpy", "gpu_memset")


def elapsed():
    return time.perf_counter() - STARTED


def cpu_description():
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu_model": model, "logical_cpus": os.cpu_count(), "python": platform.python_version(),
            "torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(0)}


def op_table():
    d = "cuda"
    one = torch.zeros(1, device=d)
    small = torch.randn(8, 64, device=d)
    w = torch.randn(64, 64, device=d)
    b = torch.randn(64, device=d)
    a3 = torch.randn(2, 8, 64, device=d)
    b3 = torch.randn(2, 64, 8, device=d)
    img = torch.randn(1, 16, 8, 8, device=d)
    filt = torch.randn(16, 16, 3, 3, device=d)
    labels = torch.randint(0, 64, (8,), device=d)
    table = torch.randn(512, 64, device=d)
    ids = torch.randint(0, 512, (8,), device=d)
    rm, rv = torch.zeros(16, device=d), torch.ones(16, device=d)
    return {
        "add_1": (lambda t: t[0] + 1, [one]),
        "add": (lambda t: t[0] + t[0], [small]),
        "mul": (lambda t: t[0] * t[0], [small]),
        "relu": (lambda t: F.relu(t[0]), [small]),
        "gelu": (lambda t: F.gelu(t[0]), [small]),
        "softmax": (lambda t: F.softmax(t[0], dim=-1), [small]),
        "layer_norm": (lambda t: F.layer_norm(t[0], (64,), t[1], t[2]), [small, b, b]),
        "linear": (lambda t: F.linear(t[0], t[1], t[2]), [small, w, b]),
        "bmm": (lambda t: torch.bmm(t[0], t[1]), [a3, b3]),
        "conv2d_3x3": (lambda t: F.conv2d(t[0], t[1], padding=1), [img, filt]),
        "batch_norm_train": (lambda t: F.batch_norm(t[0], rm, rv, training=True), [img]),
        "cross_entropy": (lambda t: F.cross_entropy(t[0], labels), [small]),
        "embedding": (lambda t: F.embedding(ids, t[0]), [table]),
    }


def ops(result):
    calls = 3000
    rows = []
    for name, (fn, tensors) in op_table().items():
        for grad in (False, True):
            args = [t.detach().clone().requires_grad_(grad and t.is_floating_point()) for t in tensors]
            with torch.set_grad_enabled(grad):
                for _ in range(200):
                    fn(args)
                torch.cuda.synchronize()
                began = time.perf_counter()
                for _ in range(calls):
                    fn(args)
                issued = time.perf_counter() - began
                torch.cuda.synchronize()
                done = time.perf_counter() - began
            rows.append({"op": name, "autograd": grad, "calls": calls, "host_us_per_call": issued / calls * 1e6,
                         "wall_us_per_call": done / calls * 1e6})
            print(f"  {name:18s} autograd={grad!s:5s} {issued / calls * 1e6:7.2f} us", flush=True)
    result["ops"] = rows


def build(model, precision, cache=True):
    """A host-bound model and its loss closure. cache: autocast's cast cache (off for graph capture, as PyTorch's
    CUDA Graphs notes require)."""
    d = "cuda"
    if model.startswith("resnet50"):
        import torchvision
        m = torchvision.models.resnet50().to(d).to(memory_format=torch.channels_last)
        # Two 64 x 64 images: the last stage's maps are 2 x 2, so batch norm has more than one value per channel.
        x = torch.randn(2, 3, 64, 64, device=d).to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (2,), device=d)
        forward = lambda: F.cross_entropy(m(x), y)
    else:
        layers, h, heads = {"gpt-l12-h256": (12, 256, 4), "gpt-l24-h1024": (24, 1024, 16)}[model]
        seq, vocab = 16, 512
        with torch.device(d):
            m = Gpt(layers, h, heads, seq, vocab)
        ids = torch.randint(0, vocab, (1, seq), device=d)
        labels = torch.randint(0, vocab, (1, seq), device=d)
        forward = lambda: F.cross_entropy(m(ids).float().view(-1, vocab), labels.view(-1))
    m.train()
    if precision == "bf16-autocast":
        fp32_forward = forward

        def forward():
            with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=cache):
                return fp32_forward()
    return m, forward


def optimizer(m, model, capturable=False):
    if model.startswith("resnet50"):
        return torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9), "SGD momentum (foreach)"
    if capturable:
        return torch.optim.AdamW(m.parameters(), lr=1e-4, capturable=True), "AdamW (foreach, capturable)"
    return torch.optim.AdamW(m.parameters(), lr=1e-4), "AdamW (foreach)"


def profiled_phases(phases):
    """One step under the profiler, each phase annotated and synchronised: launches and GPU busy time per phase."""
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for name, fn in phases:
            with record_function("vtsim_" + name):
                fn()
                torch.cuda.synchronize()
    path = f"/tmp/vtsim-host-dispatch-{os.getpid()}.json"
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    os.remove(path)
    windows = {e["name"][len("vtsim_"):]: (e["ts"], e["ts"] + e["dur"]) for e in events
               if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("vtsim_")}
    work = [e for e in events if e.get("cat") in LAUNCHES]
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    out = {}
    for name, (begin, end) in windows.items():
        inside = [e for e in work if begin <= e["ts"] <= end]
        launched = [calls.get(e.get("args", {}).get("correlation")) for e in inside if e["cat"] == "kernel"]
        out[name] = {"kernels": sum(1 for e in inside if e["cat"] == "kernel"), "launches": len(inside),
                     "gpu_busy_us": busy_us([(e["ts"], e["ts"] + e["dur"]) for e in inside]),
                     "launch_call_us": [round(c["dur"], 3) for c in launched if c is not None and "dur" in c]}
    return out


def timed_phases(phases, steps):
    walls = {name: [] for name, _ in phases}
    for _ in range(steps):
        for name, fn in phases:
            torch.cuda.synchronize()
            began = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            walls[name].append((time.perf_counter() - began) * 1e6)
    return walls


def summarise(name, mode, walls, counts, extra):
    rec = {"config": name, "mode": mode, **extra, "phases": {}}
    for phase, w in walls.items():
        mean = sum(w) / len(w)
        c = counts.get(phase, {})
        launches = c.get("launches", 0)
        rec["phases"][phase] = {"wall_us": mean, "wall_us_min": min(w), **c,
                                "host_us_per_launch": mean / launches if launches else None,
                                "gpu_busy_fraction": c.get("gpu_busy_us", 0) / mean if mean else None}
    desc = ", ".join(f"{p} {v['wall_us']:.0f} us / {v.get('launches', 0)} launches"
                     for p, v in rec["phases"].items())
    print(f"  {name} {mode}: {desc}", flush=True)
    return rec


def eager(model, precision, compiled=None):
    m, forward = build(model, precision)
    opt, opt_name = optimizer(m, model)
    if compiled:
        m.compile(mode=compiled)  # in place: the loss closure calls m(...)
    state = {}

    def fwd():
        opt.zero_grad(set_to_none=True)
        state["loss"] = forward()

    def bwd():
        state.pop("loss").backward()

    phases = [("forward", fwd), ("backward", bwd), ("optimizer", opt.step)]
    timed_phases(phases, WARMUP)
    walls = timed_phases(phases, TIMED)
    counts = profiled_phases(phases)
    params = sum(p.numel() for p in m.parameters())
    mode = ("torch.compile " + compiled) if compiled else "eager"
    return summarise(model, mode, walls, counts, {"precision": precision, "optimizer": opt_name,
                                                  "parameters": params})


def graphed(model, precision):
    """The whole step (zero_grad, forward, backward, optimizer) captured as one CUDA graph and replayed."""
    m, forward = build(model, precision, cache=False)
    opt, opt_name = optimizer(m, model, capturable=True)

    def step():
        opt.zero_grad(set_to_none=False)
        forward().backward()
        opt.step()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    # The same step eager (with the capturable optimizer), for its launch count and wall time.
    eager_walls = timed_phases([("step", step)], TIMED)
    eager_counts = profiled_phases([("step", step)])
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    replay = graph.replay
    timed_phases([("replay", replay)], WARMUP)
    walls = timed_phases([("replay", replay)], TIMED)
    counts = profiled_phases([("replay", replay)])
    rec = summarise(model, "cuda graph", walls, counts, {"precision": precision, "optimizer": opt_name})
    rec["eager_same_step"] = summarise(model, "eager, same step", eager_walls, eager_counts, {})["phases"]["step"]
    r, e = rec["phases"]["replay"], rec["eager_same_step"]
    if e.get("launches"):
        # Kernels captured in the graph: the eager step's launches (the profiler may not see a replay's kernels).
        rec["gap_us_per_node"] = (r["wall_us"] - r.get("gpu_busy_us", 0)) / e["launches"] \
            if r.get("launches") else None
        rec["wall_us_per_node"] = r["wall_us"] / e["launches"]
    return rec


def steps(result, budget, save, only=None):
    plan = [("eager", "gpt-l12-h256", "fp32"), ("eager", "gpt-l12-h256", "bf16-autocast"),
            ("eager", "gpt-l24-h1024", "fp32"), ("eager", "gpt-l24-h1024", "bf16-autocast"),
            ("eager", "resnet50-64px-b2", "fp32"), ("eager", "resnet50-64px-b2", "bf16-autocast"),
            ("graph", "gpt-l12-h256", "fp32"), ("graph", "gpt-l24-h1024", "bf16-autocast"),
            ("graph", "resnet50-64px-b2", "fp32"),
            ("default", "gpt-l12-h256", "fp32"), ("reduce-overhead", "gpt-l12-h256", "fp32"),
            ("default", "resnet50-64px-b2", "fp32")]
    result["steps"] = []
    for mode, model, precision in plan:
        if only and only not in model:
            continue
        if elapsed() > budget:
            print(f"  budget spent: {mode} {model} {precision} not run", flush=True)
            result.setdefault("not_run", []).append([mode, model, precision])
            continue
        try:
            torch.cuda.empty_cache()
            if mode == "eager":
                rec = eager(model, precision)
            elif mode == "graph":
                rec = graphed(model, precision)
            else:
                rec = eager(model, precision, compiled=mode)
            result["steps"].append(rec)
            save()
        except Exception as e:  # one configuration's failure must not cost the others
            print(f"  {mode} {model} {precision}: failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
            result.setdefault("failed", []).append([mode, model, precision, f"{type(e).__name__}: {str(e)[:300]}"])
            save()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--budget", type=float, default=240.0)
    parser.add_argument("--only", help="run only the step configurations whose model name contains this")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    result = {"machine": cpu_description()}
    print(json.dumps(result["machine"]), flush=True)
    path = os.path.join(args.out, "host-dispatch" + (f"-{args.only}" if args.only else "") + ".json")

    def save():  # after every configuration: a run killed by its time limit keeps what it measured
        with open(path, "w") as f:
            json.dump(result, f, indent=1)

    if not args.only:
        print("== ops", flush=True)
        ops(result)
        save()
    print(f"== steps ({elapsed():.0f} s)", flush=True)
    steps(result, args.budget, save, args.only)
    print(f"== written {path} ({elapsed():.0f} s)", flush=True)


if __name__ == "__main__":
    main()
