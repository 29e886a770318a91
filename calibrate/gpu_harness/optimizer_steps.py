#!/usr/bin/env python3
"""What an optimizer step costs on this GPU, implementation by implementation (issue 27: the optimizer's passes).

For the parameter tensors of two models (transformers' BertForPreTraining, BERT-large: 335M parameters in about 400
tensors; gpt_layers.py's GPT with 24 layers of hidden size 2,048: 1.3B parameters), gradients set to random values,
each torch.optim implementation's step() is timed: 3 untimed steps, then 20 between CUDA events (the mean, and the
host's time to issue a step without synchronising), and one more under torch.profiler for its kernels and the GPU's
busy time. fp32 parameters, gradients and state, as autocast and Megatron's masters keep them.

    python3 optimizer_steps.py OUT_FOLDER
"""
import json, os, sys, time

import torch
from torch.profiler import profile, ProfilerActivity

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_steps import busy_us  # noqa: E402  (the union of kernel intervals)

WARMUP, TIMED = 3, 20


def parameters_of(model):
    with torch.device("cuda"):
        if model == "bert-large":
            import transformers
            cfg = transformers.BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                          intermediate_size=4096, max_position_embeddings=512)
            m = transformers.BertForPreTraining(cfg)
        else:
            from gpt_layers import Gpt
            m = Gpt(24, 2048, 16, 2048, 50304)
    params = [p for p in m.parameters() if p.requires_grad]
    for p in params:
        p.grad = torch.randn_like(p)
    return params


OPTIMIZERS = [  # name, constructor
    ("adamw-fused", lambda ps: torch.optim.AdamW(ps, lr=1e-4, fused=True)),
    ("adamw-foreach", lambda ps: torch.optim.AdamW(ps, lr=1e-4, foreach=True)),
    ("adamw-for-loop", lambda ps: torch.optim.AdamW(ps, lr=1e-4, foreach=False)),
    ("adam-foreach", lambda ps: torch.optim.Adam(ps, lr=1e-4, foreach=True)),
    ("sgd-momentum-fused", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, fused=True)),
    ("sgd-momentum-foreach", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, foreach=True)),
    ("sgd-momentum-for-loop", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, foreach=False)),
]


def measure(params, make):
    opt = make(params)
    for _ in range(WARMUP):
        opt.step()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    host = 0.0
    start.record()
    for _ in range(TIMED):
        began = time.perf_counter()
        opt.step()
        host += time.perf_counter() - began
    stop.record()
    torch.cuda.synchronize()
    step_ms = start.elapsed_time(stop) / TIMED
    path = f"/tmp/vtsim-optimizer-{os.getpid()}.json"
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        opt.step()
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    os.remove(path)
    names = {}
    for e in events:
        names[e["name"][:120]] = names.get(e["name"][:120], 0) + 1
    del opt
    torch.cuda.empty_cache()
    return {"step_ms": step_ms, "host_issue_ms": host / TIMED * 1e3, "launches": len(events),
            "gpu_busy_ms": busy_us([(e["ts"], e["ts"] + e["dur"]) for e in events]) / 1e3,
            "kernels": sorted(names.items(), key=lambda kv: -kv[1])[:12]}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    result = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "models": []}
    path = os.path.join(out, "optimizer-steps.json")
    for model in ("bert-large", "gpt-h2048-l24"):
        try:
            params = parameters_of(model)
        except Exception as e:  # one model's failure must not cost the other
            print(f"{model}: failed: {type(e).__name__}: {e}", flush=True)
            continue
        entry = {"model": model, "tensors": len(params), "parameters": sum(p.numel() for p in params),
                 "optimizers": {}}
        print(f"== {model}: {entry['tensors']} tensors, {entry['parameters']:,} parameters", flush=True)
        for name, make in OPTIMIZERS:
            try:
                r = measure(params, make)
                entry["optimizers"][name] = r
                print(f"  {name:22s} {r['step_ms']:8.3f} ms  host {r['host_issue_ms']:7.3f} ms  "
                      f"{r['launches']:5d} launches  busy {r['gpu_busy_ms']:8.3f} ms", flush=True)
            except Exception as e:
                entry["optimizers"][name] = {"failed": f"{type(e).__name__}: {str(e)[:200]}"}
                print(f"  {name}: failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
            with open(path, "w") as f:
                json.dump({**result, "models": result["models"] + [entry]}, f, indent=1)
        result["models"].append(entry)
        del params
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
