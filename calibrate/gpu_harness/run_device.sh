#!/bin/bash
# One GPU machine's calibration run, in one call (README.md): kernel timings in NeuSight's protocol, vtsim's GPU probe,
# tensor-core products, single-GPU training step times, the card's description and its clocks throughout.
# Usage (from the repository root): calibrate/gpu_harness/run_device.sh OUT [VTSIM_TARBALL]
# Everything lands in OUT/results.tar.gz (re-packed after each stage, so a stage that overruns loses only itself).
set -u
OUT=$1
VT=${2:-}
H=calibrate/gpu_harness
R=/tmp/vtsim-calibration
rm -rf "$R" && mkdir -p "$R" "$OUT"
pack() { tar czf "$OUT/results.tar.gz" -C "$R" . ; }
stage() { echo "== $1 ($(date -u +%T))"; }
export PYTHONUNBUFFERED=1

stage describe
nvidia-smi -q > "$R/nvidia-smi-q.txt" 2>&1
nvidia-smi topo -m > "$R/topo.txt" 2>&1
timeout 60 python3 - > "$R/device.json" <<'PY'
import json, torch
p = torch.cuda.get_device_properties(0)
print(json.dumps({"name": p.name, "multi_processor_count": p.multi_processor_count,
                  "l2_cache_size": getattr(p, "L2_cache_size", None), "total_memory": p.total_memory,
                  "major": p.major, "minor": p.minor, "torch": torch.__version__, "cuda": torch.version.cuda,
                  "cudnn": torch.backends.cudnn.version()}, indent=1))
PY
cat "$R/device.json"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 250 > "$R/clocks.csv" 2>&1 &
pack

stage "kernels fp32"
timeout 230 python3 $H/measure_kernels.py $H/shapes "$R/kernels-fp32"
pack

if [ -n "$VT" ]; then
  stage "vtsim calibrate probe gpu"
  mkdir -p /tmp/vt && tar xJf "$VT" -C /tmp
  LIBS=/tmp/vt/lib
  for f in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    d=$(find /usr/local /opt /usr/lib -name "$f" 2>/dev/null | head -1)
    [ -n "$d" ] && LIBS=$LIBS:$(dirname "$d")
  done
  echo "libraries: $LIBS"
  LD_LIBRARY_PATH=$LIBS timeout 100 /tmp/vt/vtsim calibrate probe gpu --out "$R/h200-probe.json"
  echo "probe exit $?"
  pack
fi

# The products and convolutions on the tensor cores: 16-bit, and fp32 tensors as TF32 (PyTorch's default for
# convolutions).
for precision in fp16 bf16 tf32; do
  stage "kernels $precision"
  timeout 110 python3 $H/measure_kernels.py $H/shapes "$R/kernels-$precision" --precision $precision --ops linear,bmm,conv
  pack
done

stage "training steps"
timeout 170 python3 $H/train_steps.py "$R/steps"
kill %1 2>/dev/null
pack
stage done
ls -R "$R" | head -40
