#!/usr/bin/env python3
"""Steady-state BERT-large SQuAD throughput from the run logs of Lambda's PyTorch benchmark.

Lambda's CSVs (pytorch/pytorch-train-throughput-fp16.csv and -fp32.csv) give run_squad.py's
`training_sequences_per_second`: the 100 steps' sequences over `e2e_train_time`, which starts before the first step
and so includes the first iterations (cuBLAS and cuDNN set-up, the loss scaler's skipped steps): 3.9 s of a 44.6 s
run on 8 V100s. vtsim predicts a step in steady state. This reads, from the same log, the DLL timestamps of
"Training Iteration: 51" and of the last one logged (101; 100 on the 8-GPU FP16 runs, whose epoch 0 is 99 steps:
step 100 opens epoch 1 and step 101 is not logged) and gives the steps between them x batch x GPUs over the time
between them.

Usage: steady_state.py CHECKOUT > steady_state.csv, CHECKOUT a clone of github.com/lambdal/deeplearning-benchmark at
commit aa5addb6 (the logs are the same as at 0551cb70, the CSVs' commit). No network; standard library only.
"""
import csv
import re
import subprocess
import sys
from datetime import datetime

# The runs behind the rows vtsim uses: each CSV value is its log's training_sequences_per_second, truncated.
RUNS = [
    "QuadroRTX8000_v1", "LambdaCloud_V100_16GB_v1", "LambdaCloud_2xV100_16GB_v1", "LambdaCloud_4xV100_16GB_v1",
    "LambdaCloud_8xV100_16GB_v1", "A100_80GB_SXM4_v1", "2xA100_80GB_SXM4_v1", "4xA100_80GB_SXM4_v1",
    "8xA100_80GB_SXM4_v1", "H100_80GB_SXM5_v1", "2xH100_80GB_SXM5_v1", "4xH100_80GB_SXM5_v1", "8xH100_80GB_SXM5_v1",
]
ITERATION = re.compile(r"DLL (\S+ \S+) - Training Epoch: \d+ Training Iteration: (\d+) ")


def git(checkout, *args):
    return subprocess.run(["git", "-C", checkout, *args], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def main():
    checkout = sys.argv[1]
    files = git(checkout, "ls-tree", "-r", "--name-only", "HEAD", "pytorch/results").split()
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["run", "precision", "gpus", "batch_per_gpu", "e2e_sequences_per_s", "from_iteration", "to_iteration",
                  "from_time", "to_time", "steady_sequences_per_s", "log"])
    for run in RUNS:
        for precision in ("FP32", "FP16"):
            logs = [f for f in files if re.fullmatch(rf"pytorch/results/{run}/PyTorch_bert_large_squad_{precision}/"
                                                     r"[^/]*\.txt", f)]
            if len(logs) != 1:
                sys.exit(f"{run} {precision}: expected one log, found {len(logs)}")
            text = git(checkout, "show", "HEAD:" + logs[0])
            gpus = int(re.search(r"nproc_per_node=(\d+)", text).group(1)) if "nproc_per_node" in text else 1
            batch = int(re.search(r"--train_batch_size=(\d+)", text).group(1))
            e2e = float(re.search(r"training_sequences_per_second : ([0-9.]+)", text).group(1))
            stamps = {int(i): t for t, i in ITERATION.findall(text)}
            last = max(stamps)
            if 51 not in stamps or last < 91:
                sys.exit(f"{logs[0]}: no Training Iteration 51 and a later one past 90")
            seconds = (datetime.fromisoformat(stamps[last]) - datetime.fromisoformat(stamps[51])).total_seconds()
            out.writerow([run, precision, gpus, batch, f"{e2e:.2f}", 51, last, stamps[51], stamps[last],
                          f"{(last - 51) * batch * gpus / seconds:.2f}", logs[0]])


if __name__ == "__main__":
    main()
