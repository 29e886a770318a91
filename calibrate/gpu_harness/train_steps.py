#!/usr/bin/env python3
"""Single-GPU training step times on this machine's GPU, one JSON line per iteration (`vtsim calibrate import
step-times` reads them; the first WARMUP iterations are marked and can be skipped with --skip-first).

Models are built from their published configurations with random weights (nothing is downloaded) and trained on
synthetic batches already on the GPU, so a step is the model's forward, backward and optimizer step alone:
  resnet50   torchvision.models.resnet50(), SGD with momentum 0.9, channels_last, 224 x 224 images
  bert-large transformers BertForPreTraining(BertConfig(hidden 1024, 24 layers, 16 heads, intermediate 4096)),
             masked-LM and next-sentence heads, AdamW
  gpt2       transformers GPT2LMHeadModel(GPT2Config()) (124M: 12 layers, hidden 768), AdamW
Precision: fp32 is PyTorch's default (matmuls without TF32; cuDNN convolutions may use TF32, PyTorch's default);
amp is torch.autocast fp16 with a GradScaler. Attention is transformers' default implementation (recorded).
Each step ends with torch.cuda.synchronize(); its time is the wall time from the previous step's end.

    python3 train_steps.py OUT_FOLDER [--only NAME,...]
"""
import argparse, json, os, sys, time

import torch

WARMUP, TIMED = 10, 30
CONFIGS = [  # name, model, precision, batch, sequence
    ("resnet50-amp-b256", "resnet50", "amp", 256, None),
    ("resnet50-fp32-b128", "resnet50", "fp32", 128, None),
    ("bert-large-seq128-amp-b64", "bert-large", "amp", 64, 128),
    ("bert-large-seq512-fp32-b8", "bert-large", "fp32", 8, 512),
    ("gpt2-seq1024-amp-b16", "gpt2", "amp", 16, 1024),
    ("gpt2-seq1024-fp32-b8", "gpt2", "fp32", 8, 1024),
]


def build(model, batch, seq, vocab=None):
    dev = "cuda"
    if model == "resnet50":
        import torchvision
        m = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
        x = torch.randn(batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (batch,), device=dev)
        loss = lambda: torch.nn.functional.cross_entropy(m(x), y)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        return m, loss, opt, {}
    import transformers
    if model == "bert-large":
        cfg = transformers.BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                      intermediate_size=4096, max_position_embeddings=512)
        m = transformers.BertForPreTraining(cfg).to(dev)
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), device=dev)
        labels = ids.clone()
        nsp = torch.randint(0, 2, (batch,), device=dev)
        loss = lambda: m(input_ids=ids, labels=labels, next_sentence_label=nsp).loss
    else:
        cfg = transformers.GPT2Config() if vocab is None else transformers.GPT2Config(vocab_size=vocab)
        m = transformers.GPT2LMHeadModel(cfg).to(dev)
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), device=dev)
        loss = lambda: m(input_ids=ids, labels=ids).loss
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    info = {"attention": getattr(m.config, "_attn_implementation", "unknown"), "transformers": transformers.__version__}
    return m, loss, opt, info


def step_fn(loss_fn, opt, precision):
    """One training step: zero the gradients, forward and backward (under autocast with a GradScaler for amp), and
    the optimizer's step."""
    scaler = torch.amp.GradScaler("cuda") if precision == "amp" else None

    def step():
        opt.zero_grad(set_to_none=True)
        if scaler:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = loss_fn()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss_fn().backward()
            opt.step()
    return step


def run(name, model, precision, batch, seq, out):
    m, loss_fn, opt, info = build(model, batch, seq)
    m.train()
    step_once = step_fn(loss_fn, opt, precision)
    params = sum(p.numel() for p in m.parameters())
    with open(os.path.join(out, name + ".jsonl"), "w") as f:
        torch.cuda.synchronize()
        last = time.perf_counter()
        for step in range(WARMUP + TIMED):
            step_once()
            torch.cuda.synchronize()
            now = time.perf_counter()
            record = {"step": step, "step_time": now - last, "warmup": step < WARMUP, "config": name,
                      "model": model, "precision": precision, "batch": batch, "parameters": params}
            if seq:
                record["sequence"] = seq
            record.update(info)
            f.write(json.dumps(record) + "\n")
            last = now
    records = [json.loads(l) for l in open(os.path.join(out, name + ".jsonl"))]
    times = sorted(r["step_time"] for r in records if not r["warmup"])
    print(f"{name}: {params / 1e6:.1f}M parameters, median step {times[len(times) // 2] * 1e3:.1f} ms,"
          f" peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB", flush=True)
    del m, opt
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--only", default="")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, model, precision, batch, seq in CONFIGS:
        if a.only and name not in a.only.split(","):
            continue
        try:
            run(name, model, precision, batch, seq, a.out)
        except Exception as e:  # one configuration's failure does not lose the others
            print(f"{name}: failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
