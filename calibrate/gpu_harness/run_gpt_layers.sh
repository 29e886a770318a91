#!/bin/bash
# Issue 28's device run (gpt_layers.py): the bf16 GEMMs of GPT layers and single-GPU GPT training steps, with the
# card's description and its clocks throughout. Usage (repository root): calibrate/gpu_harness/run_gpt_layers.sh OUT
set -u
OUT=$1
H=calibrate/gpu_harness
R=/tmp/vtsim-gpt-layers
rm -rf "$R" && mkdir -p "$R" "$OUT"
pack() { tar czf "$OUT/results.tar.gz" -C "$R" . ; }
export PYTHONUNBUFFERED=1
nvidia-smi -q > "$R/nvidia-smi-q.txt" 2>&1
python3 -c "import torch, json; p = torch.cuda.get_device_properties(0); print(json.dumps({'name': p.name, \
'sms': p.multi_processor_count, 'torch': torch.__version__, 'cuda': torch.version.cuda}))" > "$R/device.json"
cat "$R/device.json"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 250 > "$R/clocks.csv" 2>&1 &
echo "== gemms ($(date -u +%T))"
timeout 200 python3 $H/gpt_layers.py "$R" --only gemms
pack
echo "== steps ($(date -u +%T))"
timeout 220 python3 $H/gpt_layers.py "$R" --only steps
kill %1 2>/dev/null
pack
echo "== done ($(date -u +%T))"
