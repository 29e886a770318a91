#!/usr/bin/env python3
"""Large-model shapes on this machine's GPU, in two parts (issue 28: where a large GPT's step goes on one GPU).

gemms  The 16-bit GEMMs of a Megatron-style GPT layer: for hidden sizes h, tensor-parallel degrees t and token
       counts M, the four weight products of a block (QKV h -> 3h/t, attention output h/t -> h, MLP up h -> 4h/t,
       down 4h/t -> h), each as its forward (Y = X W^T), input gradient (dX = dY W) and weight gradient
       (dW = dY^T X) runs them. Timed in NeuSight's protocol (25 runs between CUDA events, the mean of the 5 fastest).
       One CSV row per product: Pass, M, N, K, Precision, Latency (ms), TFLOPs.
steps  Single-GPU training steps of GPT models written here in plain PyTorch (no Megatron, no fused kernels beyond
       PyTorch's own): learned positions, pre-LN blocks (LayerNorm, fused QKV Linear with bias, causal
       F.scaled_dot_product_attention, output Linear, residual add, LayerNorm, Linear 4h, GELU (tanh), Linear h,
       residual add), final LayerNorm, LM head tied to the embedding, cross entropy; no dropout. fp32 weights under
       torch.autocast(bfloat16), AdamW(fused=True), synthetic token batches already on the GPU. Each step ends with
       torch.cuda.synchronize(); WARMUP steps are marked. One step after them runs under torch.profiler: its kernels'
       device time by name (the 60 longest) and by class (gemm, attention, other), in the same JSON line.

    python3 gpt_layers.py OUT_FOLDER [--only gemms|steps]
"""
import argparse, json, os, sys, time

import torch
import torch.nn.functional as F

WARMUP, TIMED = 4, 10

# The GEMM sweep: hidden sizes of GPT-3 2.7B ... 175B, tensor degrees, tokens per micro-batch (seq 2048 x 1 and x 4).
HIDDEN = [2560, 4096, 6144, 8192, 12288]
TENSOR = [1, 2, 4, 8]
TOKENS = [2048, 8192]

# Step configurations: name, layers, hidden, heads, sequence, micro-batch, vocab (50,257 padded to a multiple of 128
# as Megatron-LM pads it: 50,304).
STEP_CONFIGS = [
    ("gpt-h2048-l24-s2048-b8", 24, 2048, 16, 2048, 8, 50304),
    ("gpt-h4096-l12-s2048-b4", 12, 4096, 32, 2048, 4, 50304),
    ("gpt-h6144-l6-s2048-b4", 6, 6144, 48, 2048, 4, 50304),
    ("gpt-h8192-l4-s2048-b2", 4, 8192, 64, 2048, 2, 50304),
    ("gpt-h12288-l2-s2048-b1", 2, 12288, 96, 2048, 1, 50304),
]


def timed_ms(fn, runs=25, fastest=5):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    fn()
    torch.cuda.synchronize()
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return sum(times[:fastest]) / fastest


def gemms(out):
    path = os.path.join(out, "gemms-bf16.csv")
    dt = torch.bfloat16
    with open(path, "w") as f:
        f.write("Block,Hidden,Tensor,Pass,M,N,K,Precision,Latency,TFLOPs\n")
        for h in HIDDEN:
            for t in TENSOR:
                blocks = [("qkv", 3 * h // t, h), ("proj", h, h // t), ("fc1", 4 * h // t, h), ("fc2", h, 4 * h // t)]
                for tokens in TOKENS:
                    for name, n, k in blocks:
                        x = torch.randn(tokens, k, device="cuda", dtype=dt)
                        w = torch.randn(n, k, device="cuda", dtype=dt)
                        dy = torch.randn(tokens, n, device="cuda", dtype=dt)
                        cases = [("forward", lambda: F.linear(x, w), tokens, n, k),
                                 ("input_gradient", lambda: dy @ w, tokens, k, n),
                                 ("weight_gradient", lambda: dy.t() @ x, n, k, tokens)]
                        for pass_name, fn, m_, n_, k_ in cases:
                            ms = timed_ms(fn)
                            tflops = 2.0 * m_ * n_ * k_ / (ms * 1e-3) / 1e12
                            f.write(f"{name},{h},{t},{pass_name},{m_},{n_},{k_},bf16,{ms:.6f},{tflops:.2f}\n")
                        del x, w, dy
                f.flush()
                print(f"gemms h={h} t={t} done", flush=True)
    print("wrote", path)


class Block(torch.nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(h)
        self.qkv = torch.nn.Linear(h, 3 * h)
        self.proj = torch.nn.Linear(h, h)
        self.ln2 = torch.nn.LayerNorm(h)
        self.fc1 = torch.nn.Linear(h, 4 * h)
        self.fc2 = torch.nn.Linear(4 * h, h)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class Gpt(torch.nn.Module):
    def __init__(self, layers, h, heads, seq, vocab):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, h)
        self.positions = torch.nn.Embedding(seq, h)
        self.blocks = torch.nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(h)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions.weight[: ids.shape[1]]
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln(x), self.tokens.weight)


def classify(name):
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    if any(s in n for s in ("gemm", "nvjet", "cutlass", "xmma", "cublas", "sm90_", "sm80_")):
        return "gemm"
    return "other"


def steps(out, variant, only=None):
    from torch.profiler import profile, ProfilerActivity
    path = os.path.join(out, f"gpt-steps-{variant}.jsonl")
    for name, layers, h, heads, seq, batch, vocab in STEP_CONFIGS:
        if only and name not in only:
            continue
        print(f"== {name}", flush=True)
        try:
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            with torch.device("cuda"):  # built on the GPU: initialising billions of weights on the CPU takes minutes
                model = Gpt(layers, h, heads, seq, vocab)
            ids = torch.randint(0, vocab, (batch, seq), device="cuda")
            labels = torch.randint(0, vocab, (batch, seq), device="cuda")
            if variant == "autocast":
                opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)

                def step():
                    opt.zero_grad(set_to_none=True)
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        logits = model(ids)
                    loss = F.cross_entropy(logits.float().view(-1, vocab), labels.view(-1))
                    loss.backward()
                    opt.step()
            else:
                # Megatron-LM's mixed precision: bf16 weights (and residual stream), fp32 master weights and gradients
                # for the optimizer; after backward the bf16 gradients are copied into the fp32 ones, after the step
                # the fp32 weights into the bf16 ones.
                params = list(model.parameters())
                masters = [p.detach().clone() for p in params]
                for m in masters:
                    m.grad = torch.zeros_like(m)
                model.to(torch.bfloat16)
                opt = torch.optim.AdamW(masters, lr=1e-4, fused=True)

                def step():
                    for p in params:
                        p.grad = None
                    logits = model(ids)
                    loss = F.cross_entropy(logits.float().view(-1, vocab), labels.view(-1))
                    loss.backward()
                    torch._foreach_copy_([m.grad for m in masters], [p.grad for p in params])
                    opt.step()
                    torch._foreach_copy_([p.data for p in params], masters)

            times = []
            torch.cuda.synchronize()
            last = time.perf_counter()
            for i in range(WARMUP + TIMED):
                step()
                torch.cuda.synchronize()
                now = time.perf_counter()
                times.append(now - last)
                last = now
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                step()
                torch.cuda.synchronize()
            trace_path = os.path.join(out, f".{name}.trace.json")
            prof.export_chrome_trace(trace_path)
            with open(trace_path) as tf:
                events = json.load(tf)["traceEvents"]
            os.remove(trace_path)
            kernels = {}
            for e in events:
                if e.get("cat") == "kernel":
                    t, c = kernels.get(e["name"], (0.0, 0))
                    kernels[e["name"]] = (t + e["dur"], c + 1)
            by_class = {}
            for k, (t, c) in kernels.items():
                cls = classify(k)
                by_class.setdefault(cls, [0.0, 0])
                by_class[cls][0] += t / 1e3
                by_class[cls][1] += c
            top = sorted(kernels.items(), key=lambda kv: -kv[1][0])[:60]
            nparams = sum(p.numel() for p in model.parameters())
            rec = {"name": name, "layers": layers, "hidden": h, "heads": heads, "sequence": seq, "batch": batch,
                   "vocab": vocab, "parameters": nparams, "variant": variant,
                   "optimizer": "AdamW(fused=True) on fp32 weights", "attention": "F.scaled_dot_product_attention(is_causal=True)",
                   "warmup": WARMUP, "step_s": times, "peak_memory_bytes": torch.cuda.max_memory_allocated(),
                   "profiled_step_device_ms_by_class": {k: {"ms": v[0], "kernels": v[1]} for k, v in by_class.items()},
                   "profiled_step_top_kernels": [{"name": k[:200], "ms": t / 1e3, "count": c} for k, (t, c) in top],
                   "torch": torch.__version__}
            timed = sorted(times[WARMUP:])
            print(f"   median step {timed[len(timed) // 2] * 1e3:.1f} ms, peak {rec['peak_memory_bytes'] / 2**30:.1f} GiB,"
                  f" classes {json.dumps({k: round(v[0], 1) for k, v in by_class.items()})}", flush=True)
            del model, opt, step
            params = masters = None  # the bf16 weights and fp32 masters of the variant, before the next model
        except Exception as exc:  # one configuration's failure (memory) must not lose the others
            rec = {"name": name, "error": repr(exc)[:500]}
            print("   failed:", rec["error"], flush=True)
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")
        torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--only", choices=["gemms", "steps"])
    parser.add_argument("--variant", choices=["autocast", "bf16-master"], default="autocast",
                        help="steps' mixed precision: torch.autocast over fp32 weights, or Megatron-LM's bf16 weights "
                             "with fp32 master weights")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.only != "steps":
        gemms(args.out)
    if args.only != "gemms":
        steps(args.out, args.variant)


if __name__ == "__main__":
    sys.exit(main())
