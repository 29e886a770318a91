#!/usr/bin/env python3
"""Where a training step's time goes on this GPU: a Kineto trace of two steps per configuration (torch.profiler,
CPU and CUDA, shapes recorded, each step annotated ProfilerStep#N as vtsim's trace replay reads it), the GPU's busy
time per step (the union of its kernels' intervals) against the step's wall time, the kernels that take the most,
and PyTorch's eager cost per operator on this host. Also GPT-2 small with its vocabulary padded from 50,257 to
50,304 (a multiple of 64, as nanoGPT pads it), which measures what the unaligned output layer costs in a whole step.

    python3 trace_steps.py OUT_FOLDER
    python3 trace_steps.py --summarize TRACE.json.gz STEPS    (a trace's per-step figures, offline)
"""
import gzip, json, os, sys, time

# PyTorch is imported where a step runs, so that --summarize works on a machine without it.

CONFIGS = [  # name, model, precision, batch, sequence, vocabulary
    ("gpt2-seq1024-amp-b16", "gpt2", "amp", 16, 1024, None),
    ("gpt2-vocab50304-seq1024-amp-b16", "gpt2", "amp", 16, 1024, 50304),
    ("gpt2-seq1024-fp32-b8", "gpt2", "fp32", 8, 1024, None),
    ("gpt2-vocab50304-seq1024-fp32-b8", "gpt2", "fp32", 8, 1024, 50304),
    ("resnet50-amp-b256", "resnet50", "amp", 256, None, None),
]
WARMUP, TIMED, PROFILED = 5, 20, 2


def busy_us(intervals):
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def summarize(trace, steps):
    """Per step, from a Kineto trace: the kernels, copies and memsets the GPU ran, the time it was busy with them (the
    union of their intervals), and the kernels that took the most."""
    work = [e for e in trace["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by_name = {}
    for e in work:
        entry = by_name.setdefault(e["name"], [0, 0.0])
        entry[0] += 1
        entry[1] += e["dur"]
    top = sorted(by_name.items(), key=lambda kv: -kv[1][1])[:12]
    return {"kernels_per_step": sum(1 for e in work if e["cat"] == "kernel") / steps,
            "gpu_busy_ms_per_step": busy_us([(e["ts"], e["ts"] + e["dur"]) for e in work]) / 1e3 / steps,
            "kernel_sum_ms_per_step": sum(e["dur"] for e in work) / 1e3 / steps,
            "top_kernels": [{"name": n[:160], "calls_per_step": c / steps, "ms_per_step": t / 1e3 / steps}
                            for n, (c, t) in top]}


def run(name, model, precision, batch, seq, vocab, out):
    import torch
    from train_steps import build, step_fn
    m, loss_fn, opt, _ = build(model, batch, seq, vocab)
    m.train()
    step = step_fn(loss_fn, opt, precision)
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    began = time.perf_counter()
    for _ in range(TIMED):
        step()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - began) / TIMED
    from torch.profiler import profile, ProfilerActivity, schedule
    path = os.path.join(out, name + ".trace.json")
    # One step of warm-up inside the profiler, then PROFILED steps, each closed by prof.step() (ProfilerStep#N, the
    # annotation vtsim's trace replay cuts iterations at); shapes recorded (the gradients' AccumulateGrad ops).
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=0, warmup=1, active=PROFILED),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(1 + PROFILED):
            step()
            torch.cuda.synchronize()
            prof.step()
    with open(path, "rb") as f:
        text = f.read()
    with gzip.open(path + ".gz", "wb") as g:
        g.write(text)
    os.remove(path)
    summary = {"config": name, "wall_step_ms": wall * 1e3, "samples_per_s": batch / wall}
    summary.update(summarize(json.loads(text), PROFILED))
    with open(os.path.join(out, name + ".summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"{name}: step {wall * 1e3:.1f} ms, GPU busy {summary['gpu_busy_ms_per_step']:.1f} ms, "
          f"{summary['kernels_per_step']:.0f} kernels", flush=True)
    for entry in summary["top_kernels"][:6]:
        print(f"   {entry['ms_per_step']:7.2f} ms  x{entry['calls_per_step']:.0f}  {entry['name'][:100]}", flush=True)
    del m, opt
    torch.cuda.empty_cache()


def dispatch(out):
    """PyTorch's eager cost per operator on this host: 20,000 one-element adds issued without synchronising."""
    import torch
    x = torch.zeros(1, device="cuda")
    for _ in range(1000):
        x.add_(1)
    torch.cuda.synchronize()
    began = time.perf_counter()
    for _ in range(20000):
        x.add_(1)
    issued = time.perf_counter() - began
    torch.cuda.synchronize()
    done = time.perf_counter() - began
    result = {"ops": 20000, "host_us_per_op": issued / 20000 * 1e6, "wall_us_per_op": done / 20000 * 1e6}
    with open(os.path.join(out, "dispatch.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"eager add_: {result['host_us_per_op']:.2f} us per op issued, {result['wall_us_per_op']:.2f} with the GPU")


def main():
    if sys.argv[1] == "--summarize":  # offline: TRACE.json.gz STEPS -> the summary's per-step figures
        with gzip.open(sys.argv[2], "rt") as f:
            print(json.dumps(summarize(json.load(f), int(sys.argv[3])), indent=1))
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    dispatch(out)
    for config in CONFIGS:
        try:
            run(*config, out)
        except Exception as e:
            print(f"{config[0]}: failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
