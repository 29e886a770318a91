#!/usr/bin/env python3
"""The 16-bit and TF32 square GEMMs of a `vtsim calibrate probe gpu` profile as rows in NeuSight's columns (plus
vtsim's `Precision`), so that `vtsim kernels` and `vtsim validate` check the kernel model's tensor-core products on
them (TF32 ones run on the tensor_gemm family fitted to 16-bit kernels: a check of that derivation).

The probe times batches of back-to-back cublasGemmEx calls (calibrate/gpu_probe.hpp), as DeepBench timed the GEMMs
the tensor_gemm family is fitted to, so a row's Latency is the device's time without a per-call host floor; the
CUDA-core (fp32) points are left out (the kernel model's fp32 GEMM family carries the host floor of PyTorch's
operators timed one at a time, which these points do not have).

    python3 probe_gemms.py PROFILE.json OUT.csv
"""
import json, sys


def main():
    profile, out = sys.argv[1], sys.argv[2]
    gpu = json.load(open(profile))["gpu"]
    with open(out, "w") as f:
        f.write("OPName,Latency,Device,Precision,B,M,N,K\n")
        for point in gpu["gemm"]:
            if point["precision"] not in ("fp16", "bf16", "tf32"):
                continue
            m, n, k = point["m"], point["n"], point["k"]
            milliseconds = 2.0 * m * n * k / (point["tflops"] * 1e12) * 1e3
            # linear: (B x M) x N input by a K x N weight, reduction N (data/kernels/README.md)
            f.write(f"linear,{milliseconds!r},{gpu['name']},{point['precision']},1,{m},{k},{n}\n")


if __name__ == "__main__":
    main()
