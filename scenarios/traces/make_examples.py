#!/usr/bin/env python3
"""Writes the example traces of scenarios/traces/ (README.md there says what they are).

Synthetic, not measured: a small multi-layer perceptron, as PyTorch profiler (Kineto) traces would record it, with
the kernel durations below:
- mlp-ddp-kineto.json: trained with DDP on 2 ranks, rank 0's trace;
- mlp-single-kineto.json: trained on one GPU without DDP, profiled with record_shapes=True, so that the autograd
  engine's AccumulateGrad ops carry their gradients' shapes; its optimizer is a plain loop of small kernels, one per
  tensor, which the CPU's launches pace;
- mlp-ddp-chakra.et: the DDP program's first iteration as an MLCommons Chakra execution trace (protobuf records,
  each preceded by its varint length; the fields are Chakra's schema/protobuf/et_def.proto, encoded here by hand so
  that no protobuf package is needed): a CPU operator of LAUNCH_US per kernel launch, each GPU kernel depending on
  its operator, each allreduce on its operator and its bucket's gradient kernels, the optimizer on the last
  allreduce. Chakra durations are whole microseconds.
The timeline follows the rules a GPU runs by: a kernel starts when its launch call has returned and the previous
kernel on its stream has ended; the NCCL stream waits for the gradients of its bucket (DDP's event on the compute
stream); the optimizer waits for the last allreduce. Run it from the repository root:
python3 scenarios/traces/make_examples.py
"""

import json
import os

LAUNCH_US = 5.0  # one cudaLaunchKernel on the CPU
STEPS = 3
STEP_GAP_US = 40.0  # the CPU between iterations (data loader, prof.step())
COMPUTE_STREAM = 7
NCCL_STREAM = 20
# Layers: (forward GEMM us, backward dgrad GEMM us, backward wgrad GEMM us, parameters)
LAYERS = [(120.0, 110.0, 130.0, 1024 * 1024 + 1024),
          (240.0, 230.0, 250.0, 2048 * 1024 + 2048),
          (240.0, 230.0, 250.0, 1024 * 2048 + 1024),
          (60.0, 55.0, 65.0, 1024 * 10 + 10)]
# Each layer's weight (out, in); its bias has `out` elements.
SHAPES = [(1024, 1024), (2048, 1024), (1024, 2048), (10, 1024)]
RELU_US = 15.0
ACCUMULATE_GRAD_US = 3.0  # the CPU's time in one AccumulateGrad op
FOREACH_KERNEL_US = 2.0  # one small optimizer kernel (a loop over tensors, not fused)
SGD_KERNELS_PER_TENSOR = 2  # momentum update, parameter update
# DDP buckets, in the order their gradients become ready (the last layers' first): the layers each holds.
BUCKETS = [[3, 2], [1, 0]]
NCCL_US_PER_MB = 90.0  # a 2-rank allreduce's time per MB of fp32 gradients on this synthetic cluster
OPTIMIZER_US = 45.0


class Timeline:
    def __init__(self):
        self.events = []
        self.cpu_us = 1000.0
        self.stream_end = {COMPUTE_STREAM: 0.0, NCCL_STREAM: 0.0}
        self.correlation = 1
        self.external = 1

    def launch(self, name, dur_us, stream, after_us=0.0, args=None, cat="kernel"):
        """Launches one kernel: the runtime call on the CPU, then the kernel on its stream. Returns its end."""
        correlation = self.correlation
        self.correlation += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                            "ts": round(self.cpu_us, 3), "dur": LAUNCH_US,
                            "args": {"correlation": correlation, "External id": self.external}})
        self.external += 1
        self.cpu_us += LAUNCH_US
        start = max(self.cpu_us, self.stream_end[stream], after_us)
        kernel_args = {"device": 0, "stream": stream, "correlation": correlation}
        kernel_args.update(args or {})
        # Kineto prints times in microseconds with 3 decimals.
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": round(start, 3),
                            "dur": round(dur_us, 3), "args": kernel_args})
        self.stream_end[stream] = start + dur_us
        return start + dur_us


DEVICE_PROPERTIES = [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85045379072, "computeMajor": 8,
                      "computeMinor": 0}]


def profiled(iteration):
    """STEPS iterations on a fresh timeline, each inside its ProfilerStep#N annotation. At the end of each the CPU
    waits for the step's GPU work (loss.item()) before prof.step(). Returns the events."""
    timeline = Timeline()
    for step in range(STEPS):
        step_start = timeline.cpu_us
        annotation = {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (step + 1), "pid": 1,
                      "tid": 1, "ts": step_start, "dur": 0.0, "args": {}}
        timeline.events.append(annotation)
        iteration(timeline)
        # (Kept on the trace's grid of 1 ns, so that the next step's annotation and launches line up as printed.)
        timeline.cpu_us = round(max(timeline.cpu_us, timeline.stream_end[COMPUTE_STREAM]) + 1.0, 3)
        annotation["dur"] = round(timeline.cpu_us - step_start, 3)
        timeline.cpu_us += STEP_GAP_US
    return timeline.events


def forward(timeline):
    for forward_us, _, _, _ in LAYERS:
        timeline.launch("ampere_sgemm_128x64_tn", forward_us, COMPUTE_STREAM)
        timeline.launch("void at::native::vectorized_elementwise_kernel<4, at::native::relu_kernel>", RELU_US,
                        COMPUTE_STREAM)


def ddp_iteration(timeline):
    forward(timeline)
    gradient_ready = {}
    for layer in reversed(range(len(LAYERS))):
        _, dgrad, wgrad, _ = LAYERS[layer]
        timeline.launch("ampere_sgemm_64x64_nt", dgrad, COMPUTE_STREAM)
        gradient_ready[layer] = timeline.launch("ampere_sgemm_128x128_nn", wgrad, COMPUTE_STREAM)
        for bucket in BUCKETS:
            if layer == min(bucket):  # the bucket's last gradient: DDP launches its allreduce
                elements = sum(LAYERS[l][3] for l in bucket)
                ready = max(gradient_ready[l] for l in bucket)
                timeline.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                                NCCL_US_PER_MB * elements * 4 / 1e6, NCCL_STREAM, after_us=ready,
                                args={"Collective name": "allreduce", "In msg nelems": elements,
                                      "Out msg nelems": elements, "Group size": 2, "dtype": "Float",
                                      "Process Group Name": "0", "Process Group Description": "default_pg"})
    timeline.launch("void at::native::multi_tensor_apply_kernel<adam>", OPTIMIZER_US, COMPUTE_STREAM,
                    after_us=timeline.stream_end[NCCL_STREAM])


def mlp_ddp_trace():
    return {"schemaVersion": 1, "deviceProperties": DEVICE_PROPERTIES,
            "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
            "traceEvents": profiled(ddp_iteration)}


def accumulate_grad(timeline, dims):
    """The autograd engine stores one gradient: a CPU op with its shape (record_shapes=True)."""
    timeline.events.append({"ph": "X", "cat": "cpu_op", "name": "torch::autograd::AccumulateGrad", "pid": 1,
                            "tid": 2, "ts": round(timeline.cpu_us, 3), "dur": ACCUMULATE_GRAD_US,
                            "args": {"Input Dims": [list(dims)], "Input type": ["float"]}})
    timeline.cpu_us += ACCUMULATE_GRAD_US


def single_iteration(timeline):
    forward(timeline)
    for layer in reversed(range(len(LAYERS))):
        _, dgrad, wgrad, _ = LAYERS[layer]
        timeline.launch("ampere_sgemm_64x64_nt", dgrad, COMPUTE_STREAM)
        timeline.launch("ampere_sgemm_128x128_nn", wgrad, COMPUTE_STREAM)
        accumulate_grad(timeline, SHAPES[layer])
        accumulate_grad(timeline, SHAPES[layer][:1])
    # AMP's GradScaler reads back whether a gradient overflowed: the CPU waits for the GPU before the optimizer.
    timeline.cpu_us = max(timeline.cpu_us, timeline.stream_end[COMPUTE_STREAM])
    # The optimizer: SGD with momentum as a loop, SGD_KERNELS_PER_TENSOR small kernels per tensor.
    for _ in range(2 * len(LAYERS) * SGD_KERNELS_PER_TENSOR):
        timeline.launch("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
                        FOREACH_KERNEL_US, COMPUTE_STREAM)


def mlp_single_trace():
    return {"schemaVersion": 1, "deviceProperties": DEVICE_PROPERTIES, "traceEvents": profiled(single_iteration)}


# --- Chakra: protobuf's wire format (developers.google.com/protocol-buffers/docs/encoding) --------------------------

def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def field_string(number, text):
    return field_bytes(number, text.encode())


# Chakra's field numbers (schema/protobuf/et_def.proto).
NODE_ID, NODE_NAME, NODE_TYPE, NODE_CTRL_DEPS, NODE_DATA_DEPS, NODE_DURATION, NODE_ATTR = 1, 2, 3, 4, 5, 7, 10
ATTR_NAME, ATTR_INT64, ATTR_BOOL = 1, 9, 27
COMP_NODE, COMM_COLL_NODE = 4, 7
ALL_REDUCE = 0


def attribute(name, number, value):
    return field_bytes(NODE_ATTR, field_string(ATTR_NAME, name) + field_varint(number, value))


class ChakraTrace:
    def __init__(self):
        self.records = []
        self.next_id = 1
        self.last_cpu = None

    def node(self, name, node_type, duration_us, data_deps=(), attributes=b""):
        node_id = self.next_id
        self.next_id += 1
        body = field_varint(NODE_ID, node_id) + field_string(NODE_NAME, name) + field_varint(NODE_TYPE, node_type)
        if data_deps:
            body += field_bytes(NODE_DATA_DEPS, b"".join(varint(d) for d in data_deps))
        body += field_varint(NODE_DURATION, int(round(duration_us))) + attributes
        self.records.append(body)
        return node_id

    def cpu_op(self, name, duration_us):
        """A CPU operator, after the previous one (the CPU runs them in order)."""
        deps = [self.last_cpu] if self.last_cpu else []
        self.last_cpu = self.node(name, COMP_NODE, duration_us, deps, attribute("is_cpu_op", ATTR_BOOL, 1))
        return self.last_cpu

    def kernel(self, name, duration_us, stream, deps=()):
        """A GPU kernel launched by a CPU operator of LAUNCH_US."""
        launch = self.cpu_op("cudaLaunchKernel", LAUNCH_US)
        return self.node(name, COMP_NODE, duration_us, [launch, *deps],
                         attribute("is_cpu_op", ATTR_BOOL, 0) + attribute("stream", ATTR_INT64, stream))

    def allreduce(self, name, duration_us, size_bytes, deps):
        launch = self.cpu_op("record_param_comms", LAUNCH_US)
        return self.node(name, COMM_COLL_NODE, duration_us, [launch, *deps],
                         attribute("comm_type", ATTR_INT64, ALL_REDUCE) + attribute("comm_size", ATTR_INT64, size_bytes)
                         + attribute("stream", ATTR_INT64, NCCL_STREAM))

    def serialized(self):
        metadata = field_string(1, "0.0.4")
        return b"".join(varint(len(record)) + record for record in [metadata] + self.records)


def mlp_ddp_chakra():
    trace = ChakraTrace()
    trace.cpu_op("ProfilerStep#1", 0)
    for forward, _, _, _ in LAYERS:
        trace.kernel("ampere_sgemm_128x64_tn", forward, COMPUTE_STREAM)
        trace.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::relu_kernel>", RELU_US,
                     COMPUTE_STREAM)
    gradient = {}
    allreduces = []
    for layer in reversed(range(len(LAYERS))):
        _, dgrad, wgrad, _ = LAYERS[layer]
        trace.kernel("ampere_sgemm_64x64_nt", dgrad, COMPUTE_STREAM)
        gradient[layer] = trace.kernel("ampere_sgemm_128x128_nn", wgrad, COMPUTE_STREAM)
        for bucket in BUCKETS:
            if layer == min(bucket):
                elements = sum(LAYERS[l][3] for l in bucket)
                allreduces.append(trace.allreduce(
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                    NCCL_US_PER_MB * elements * 4 / 1e6, elements * 4, [gradient[l] for l in bucket]))
    trace.kernel("void at::native::multi_tensor_apply_kernel<adam>", OPTIMIZER_US, COMPUTE_STREAM, [allreduces[-1]])
    return trace.serialized()


def main():
    folder = os.path.dirname(os.path.abspath(__file__))
    for name, trace in (("mlp-ddp-kineto.json", mlp_ddp_trace()), ("mlp-single-kineto.json", mlp_single_trace())):
        with open(os.path.join(folder, name), "w") as out:
            json.dump(trace, out, indent=0)
            out.write("\n")
    with open(os.path.join(folder, "mlp-ddp-chakra.et"), "wb") as out:
        out.write(mlp_ddp_chakra())


if __name__ == "__main__":
    main()
