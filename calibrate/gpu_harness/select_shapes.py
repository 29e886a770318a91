#!/usr/bin/env python3
"""Pick the operator shapes to time on a new GPU from NeuSight's A100 files (data/kernels/neusight/).

The shapes are the ones the kernel model was fitted on, so a new GPU's measurements compare like with like. Each
operator gets a fixed number of shapes drawn with a fixed seed, one from each of that many equal strata of its shapes
sorted by the A100's latency (so that launch-bound and device-bound shapes both appear), plus its LONGEST longest
shapes (the memory share is measured on passes of at least 128 MiB per tensor), within a time budget: an operator's 27 runs (2 warm-up + 25 timed,
as NeuSight's collector) at an estimated time of A100 latency / speedup, where speedup is a deliberately low guess
(2) of how much faster the new GPU is. Standard library only; writes one CSV of shapes per operator.

    python3 select_shapes.py ../../data/kernels/neusight OUT_FOLDER
"""
import csv, gzip, math, os, random, sys

# operator -> (shapes wanted, budget in seconds of the new GPU's time)
PLAN = {"linear": (400, 25), "bmm": (600, 20), "conv": (400, 35), "add": (300, 6), "mul": (300, 6),
        "relu": (300, 6), "gelu": (300, 6), "softmax": (300, 8), "ln": (300, 8)}
LONGEST = 15
RUNS = 27
SPEEDUP = 2.0
FLOOR_S = 40e-6  # a launch-bound operator's time, timed alone, on any GPU


def a100_rows(folder, op):
    name = [f for f in sorted(os.listdir(os.path.join(folder, op))) if f.startswith("NVIDIA_A100")][0]
    with gzip.open(os.path.join(folder, op, name), "rt", newline="") as f:
        return list(csv.DictReader(f))


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261204)
    for op, (wanted, budget) in PLAN.items():
        rows = a100_rows(source, op)
        dims = [k for k in rows[0].keys() if k in ("B", "M", "N", "K", "H", "Input_Channel", "Output_Channel",
                                                  "Kernel_Szie", "Input_Size", "Stride", "Padding")]
        seen, unique = set(), []
        for r in rows:
            key = tuple(r[d] for d in dims)
            if key not in seen:
                seen.add(key)
                unique.append(r)
        unique.sort(key=lambda r: float(r["Latency"]))
        cost = lambda r: RUNS * max(FLOOR_S, float(r["Latency"]) * 1e-3 / SPEEDUP)
        # Even in log-latency: split the sorted shapes into `wanted` strata and draw one from each.
        picked = []
        for i in range(wanted):
            lo, hi = len(unique) * i // wanted, max(len(unique) * (i + 1) // wanted, len(unique) * i // wanted + 1)
            picked.append(unique[rng.randrange(lo, hi)])
        picked += [r for r in unique[-LONGEST:] if r not in picked]
        # Over budget: drop the longest shapes first, one at a time.
        picked.sort(key=lambda r: float(r["Latency"]))
        while sum(cost(r) for r in picked) > budget:
            picked.pop()
        with open(os.path.join(out, op + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(dims + ["A100 Latency"])
            for r in picked:
                w.writerow([r[d] for d in dims] + [r["Latency"]])
        print(f"{op}: {len(picked)} shapes, A100 {float(picked[0]['Latency']):.3f}-{float(picked[-1]['Latency']):.3f} ms,"
              f" estimated {sum(cost(r) for r in picked):.1f} s")


if __name__ == "__main__":
    main()
