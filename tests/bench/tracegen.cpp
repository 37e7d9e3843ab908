// SPDX-License-Identifier: GPL-3.0-or-later
// grademl-tracegen: writes deterministic, Kineto-like PyTorch profiler traces of a
// data-parallel training job (one file per rank). Used for the demo folder and to make big
// benchmark inputs at run time. Nothing here is copied from a real trace.
//
//   grademl-tracegen --out DIR [--ranks N] [--steps N] [--layers N] [--target-mb MB] [--seed S]
//                    [--monitor] [--healthy] [--slow-rank R] [--host-skew-us US] [--kernel-scale F]
//                    [--gemm-scale F] [--host-scale F] [--memory]
//
// Per rank and step: a ProfilerStep#N annotation on the Python main thread, a host-to-device
// copy of the batch, forward and backward CPU ops (aten::linear -> aten::addmm ->
// cudaLaunchKernel), kernels on the compute stream (7) linked by correlation id, External id
// and ac2g flow events, a gradient all-reduce (record_param_comms + NCCL kernel on stream 20)
// and an optimizer step; between steps, the next batch is loaded (a DataLoader annotation of
// 15-30 ms, the GPU idle). Ranks run in lockstep: a step's all-reduce kernel ends on every
// rank when the last rank has joined it (plus the transfer), within 2 us across ranks. With
// --host-skew-us, the second half of the ranks is written as if recorded on a second host whose
// clock runs that far ahead (to exercise clock alignment). With --target-mb (fractional: 0.5),
// steps are added until each file reaches that size. With --healthy, nothing is wrong for the
// analysis to find: batches come ready from loader workers (a 50-150 us __next__), copies are from
// pinned memory, matmuls run in FP16 on tensor cores, the host never synchronises with the GPU and
// runs ahead of it, and a one-rank job has no all-reduce. The matmul ops record their FLOPs
// ("flops", as with_flops=True does). With --slow-rank R, rank R's kernels take 1.5 times as long
// (a slower GPU): it arrives last at every all-reduce. With --kernel-scale F, every compute kernel
// (not the copies, not the all-reduce) takes F times as long, and everything else is drawn from the
// same random numbers: the same job on a GPU F times slower, the measured twin a what-if prediction
// is validated against (grademl validate). --gemm-scale F makes the matmul kernels F times as long
// again and
// --host-scale F the host's ops, launch calls and data loading (not the gaps between ops): a
// hardware change whose truth is known, for calibration (grademl validate --fit). With --monitor,
// the folder also gets nvidia-smi.csv, as written by
//   nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,power.draw
//              --format=csv -lms 10
// on the same host (GPU utilization = the busy share of each 10 ms window, from the kernels and
// copies written to the traces), and grademl.json saying its local time is UTC.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kGpusPerNode = 8; // a rank's file lists its node's GPUs

struct Rng
{
    uint64_t s;
    uint64_t next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    // Uniform in [lo, hi) nanoseconds.
    int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo)); }
};

class Writer
{
public:
    explicit Writer(FILE *f) : m_f(f) {}
    void event(const char *fmt, ...) __attribute__((format(printf, 2, 3)))
    {
        std::fputs(m_first ? "\n  " : ",\n  ", m_f);
        m_first = false;
        va_list ap;
        va_start(ap, fmt);
        std::vfprintf(m_f, fmt, ap);
        va_end(ap);
    }
    long bytes() const { return std::ftell(m_f); }

private:
    FILE *m_f;
    bool m_first = true;
};

// Microseconds with nanosecond precision, relative to the base time, as Kineto writes them.
std::string us(int64_t ns)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    return buf;
}

struct Rank
{
    int rank;
    int pid;
    int tid;
    int gpu;
    Writer *w;
    Rng rng;
    int64_t corr = 1;
    int64_t ext = 1;
    int64_t gpuFree[2] = {0, 0}; // stream 7, stream 20
    bool record = false;         // --monitor: keep the GPU busy intervals
    bool healthy = false;        // --healthy: nothing for the analysis to find
    bool allReduce = true;       // a gradient all-reduce per step (not in a healthy one-rank job)
    double slow = 1.0; // --slow-rank: this rank's kernels take that much longer; --kernel-scale too
    std::vector<std::pair<int64_t, int64_t>> busy; // GPU work [start, end)
    double gemm = 1.0; // --gemm-scale: the matmul kernels take that much longer again
    double host = 1.0; // --host-scale: the host's ops, launch calls and data loading too
    int64_t h(int64_t ns) const { return int64_t(double(ns) * host); }
    // --memory: the allocator's state, and what the next op does inside its inner op (called
    // with the inner op's start).
    bool memory = false;
    int64_t nextAddr = 0x7f2000000000;
    int64_t allocated = 0, reserved = 0;
    std::vector<std::pair<int64_t, int64_t>> activations; // (addr, bytes) per layer
    void (*inside)(Rank &, int64_t) = nullptr;
    int insideLayer = 0;
    // --kernel-floor-us: every kernel takes this much longer, whatever its size (a GPU's
    // per-kernel floor); --gemm-size: the model's matmuls this many times the default length
    // (another model); --small-kernels: an activation kernel of 2-6 us after each linear.
    int64_t floorNs = 0;
    double gemmSize = 1.0;
    bool smallKernels = false;
    int64_t lateNs = 0; // --late-rank: a kernel this long before each all-reduce
};

// A profile_memory event at `ts`: +bytes allocates at addr, -bytes frees it.
void memoryEvent(Rank &r, int64_t ts, int64_t bytes, int64_t addr)
{
    r.allocated += bytes;
    const int64_t chunk = 20 << 20;
    r.reserved = std::max(r.reserved, (r.allocated + chunk - 1) / chunk * chunk);
    r.w->event(
        R"J({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": %d, "tid": %d, "ts": %s, "args": {"Total Reserved": %)J" PRId64
        R"J(, "Total Allocated": %)J" PRId64 R"J(, "Bytes": %)J" PRId64 R"J(, "Addr": %)J" PRId64
        R"J(, "Device Id": %d, "Device Type": 1}})J",
        r.pid, r.tid, us(ts).c_str(), r.reserved, r.allocated, bytes, addr, r.gpu);
}

int64_t allocate(Rank &r, int64_t ts, int64_t bytes)
{
    const int64_t addr = r.nextAddr;
    r.nextAddr += bytes;
    memoryEvent(r, ts, bytes, addr);
    return addr;
}

void forwardMemory(Rank &r, int64_t at)
{
    const int64_t bytes = int64_t(r.insideLayer + 1) << 20;
    r.activations[size_t(r.insideLayer)] = {allocate(r, at + 500, bytes), bytes};
}

void backwardMemory(Rank &r, int64_t at)
{
    const int64_t workspace = allocate(r, at + 500, 2 << 20);
    const auto [addr, bytes] = r.activations[size_t(r.insideLayer)];
    memoryEvent(r, at + 1'000, -bytes, addr);
    memoryEvent(r, at + 1'500, -(2 << 20), workspace);
}

void lossMemory(Rank &r, int64_t at)
{
    allocate(r, at + 500, 256 << 10);
}

// A kernel launched but not written yet: a collective, whose end depends on every rank.
struct Pending
{
    const char *kernel = nullptr;
    int stream = 0;
    int64_t start = 0;
    int64_t corr = 0;
    int64_t ext = 0;
};

void writeKernel(Rank &r, const char *kernel, int stream, int64_t kStart, int64_t kernelNs,
                 int64_t corr, int64_t ext, const std::string &extraArgs = {})
{
    r.gpuFree[stream == 7 ? 0 : 1] = kStart + kernelNs;
    if (r.record)
        r.busy.emplace_back(kStart, kStart + kernelNs);
    r.w->event(
        R"J({"ph": "X", "cat": "kernel", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"queued": 0, "device": %d, "context": 1, "stream": %d, "correlation": %)J" PRId64
        R"J(, "registers per thread": 128, "shared memory": 49152, "blocks per SM": 2.5, "warps per SM": 10, "grid": [160, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %%": 50, "External id": %)J" PRId64
        R"J(%s}})J",
        kernel, r.gpu, stream, us(kStart).c_str(), us(kernelNs).c_str(), r.gpu, stream, corr, ext,
        extraArgs.c_str());
    r.w->event(R"J({"ph": "f", "id": %)J" PRId64
               R"J(, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g", "bp": "e"})J",
               corr, r.gpu, stream, us(kStart).c_str());
}

// A CPU op that launches one kernel; returns the end of the op on the CPU. With `defer`, the
// kernel is not written: its start and ids go there, for writeKernel once its length is known.
int64_t launchOp(Rank &r, int64_t t, const char *op, const char *inner, const char *kernel,
                 int64_t kernelNs, int stream, Pending *defer = nullptr, bool matmul = false)
{
    const int64_t ext = r.ext++;
    const int64_t corr = r.corr++;
    kernelNs = r.floorNs + int64_t(double(kernelNs) * r.slow * (matmul ? r.gemm : 1.0));
    const int64_t opDur = r.h(r.rng.range(18'000, 40'000));
    const int64_t innerStart = t + r.h(r.rng.range(2'000, 4'000));
    const int64_t innerDur = opDur - (innerStart - t) - r.h(2'000);
    const int64_t launchStart = innerStart + r.h(r.rng.range(3'000, 6'000));
    const int64_t launchDur = r.h(r.rng.range(4'000, 8'000));
    r.w->event(
        R"J({"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
        R"J(, "Sequence number": %)J" PRId64 R"J(, "Fwd thread id": 0}})J",
        op, r.pid, r.tid, us(t).c_str(), us(opDur).c_str(), ext, ext);
    // A matmul records its FLOPs, as the profiler does with with_flops=True: its 2·M·N·K, here
    // the kernel's time at 60% of an A100's FP32 peak, or 50% of its FP16 tensor-core peak.
    char flops[48] = "";
    if (matmul)
        std::snprintf(flops, sizeof flops, ", \"flops\": %.0f",
                      double(kernelNs) * 1e-9 * (r.healthy ? 312e12 * 0.5 : 19.5e12 * 0.6));
    // A --memory run records shapes too (record_shapes=True): a batch of 256 through 1024-wide
    // layers.
    const char *shapes = "";
    if (r.memory && matmul)
        shapes =
            std::strcmp(inner, "aten::addmm") == 0
                ? R"J(, "Input Dims": [[1024], [256, 1024], [1024, 1024]], "Input type": ["float", "float", "float"])J"
                : R"J(, "Input Dims": [[256, 1024], [1024, 1024]], "Input type": ["float", "float"])J";
    r.w->event(
        R"J({"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
        R"J(%s%s}})J",
        inner, r.pid, r.tid, us(innerStart).c_str(), us(innerDur).c_str(), ext + 100000000, flops,
        shapes);
    if (r.memory && r.inside)
        r.inside(r, innerStart);
    r.inside = nullptr;
    r.w->event(
        R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"cbid": 211, "correlation": %)J" PRId64
        R"J(, "External id": %)J" PRId64 R"J(}})J",
        r.pid, r.tid, us(launchStart).c_str(), us(launchDur).c_str(), corr, ext);
    r.w->event(R"J({"ph": "s", "id": %)J" PRId64
               R"J(, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"})J",
               corr, r.pid, r.tid, us(launchStart).c_str());
    const int64_t kStart = std::max(r.gpuFree[stream == 7 ? 0 : 1],
                                    launchStart + launchDur + r.rng.range(2'000, 9'000));
    if (defer)
        *defer = {kernel, stream, kStart, corr, ext};
    else
        writeKernel(r, kernel, stream, kStart, kernelNs, corr, ext);
    return t + opDur;
}

// A step up to the launch of the gradient all-reduce, whose kernel goes to `allReduce`.
void writeStepUntilAllReduce(Rank &r, int layers, int64_t &t, Pending *allReduce)
{
    // Batch copy host -> device.
    {
        const int64_t corr = r.corr++;
        const int64_t ext = r.ext++;
        const int64_t d = r.rng.range(15'000, 25'000);
        r.w->event(
            R"J({"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
            R"J(}})J",
            r.pid, r.tid, us(t + 1'000).c_str(), us(d + 6'000).c_str(), ext);
        r.w->event(
            R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"cbid": 41, "correlation": %)J" PRId64
            R"J(, "External id": %)J" PRId64 R"J(}})J",
            r.pid, r.tid, us(t + 2'000).c_str(), us(d).c_str(), corr, ext);
        const int64_t mStart = std::max(r.gpuFree[0], t + 4'000);
        // 6 MiB: from pageable memory at ~60 GB/s as written, or pinned at ~22 GB/s.
        const int64_t mDur =
            r.healthy ? r.rng.range(270'000, 300'000) : r.rng.range(80'000, 120'000);
        r.gpuFree[0] = mStart + mDur;
        if (r.record)
            r.busy.emplace_back(mStart, mStart + mDur);
        r.w->event(
            R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (%s -> Device)", "pid": %d, "tid": 7, "ts": %s, "dur": %s, "args": {"device": %d, "context": 1, "stream": 7, "correlation": %)J" PRId64
            R"J(, "bytes": 6291456, "memory bandwidth (GB/s)": %.1f, "External id": %)J" PRId64
            R"J(}})J",
            r.healthy ? "Pinned" : "Pageable", r.gpu, us(mStart).c_str(), us(mDur).c_str(), r.gpu,
            corr, 6291456.0 / double(mDur), ext);
        t += d + 8'000;
    }
    // A healthy job runs its matmuls on tensor cores in FP16 (AMP).
    const char *gemmNn = r.healthy ? "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"
                                   : "volta_sgemm_128x64_nn";
    const char *gemmNt = r.healthy ? "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nt"
                                   : "volta_sgemm_128x64_nt";
    r.activations.resize(size_t(layers));
    for (int l = 0; l < layers; ++l) {
        r.inside = forwardMemory;
        r.insideLayer = l;
        // Each draw in a named value, the kernel's first: the order gcc gave the arguments
        // (right to left), which the shipped demo was generated with; clang's is left to right.
        const int64_t gemm = int64_t(double(r.rng.range(60'000, 160'000)) * r.gemmSize);
        const int64_t gap = r.rng.range(1'000, 3'000);
        t = launchOp(r, t + gap, "aten::linear", "aten::addmm", gemmNn, gemm, 7, nullptr, true);
        if (r.smallKernels) {
            const int64_t gelu = r.rng.range(2'000, 6'000);
            const int64_t geluGap = r.rng.range(1'000, 3'000);
            t = launchOp(r, t + geluGap, "aten::gelu", "aten::gelu",
                         "void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::GeluCUDAKernelImpl>",
                         gelu, 7);
        }
    }
    r.inside = lossMemory;
    t = launchOp(r, t + 2'000, "aten::cross_entropy_loss", "aten::log_softmax",
                 "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>",
                 r.rng.range(8'000, 12'000), 7);
    for (int l = layers - 1; l >= 0; --l) {
        r.inside = backwardMemory;
        r.insideLayer = l;
        const int64_t gemm = int64_t(double(r.rng.range(90'000, 220'000)) * r.gemmSize);
        const int64_t gap = r.rng.range(1'000, 3'000);
        t = launchOp(r, t + gap, "autograd::engine::evaluate_function: AddmmBackward0", "aten::mm",
                     gemmNt, gemm, 7, nullptr, true);
    }
    // Gradient all-reduce on the NCCL stream, after backward on the compute stream.
    if (r.allReduce) {
        if (r.lateNs > 0) // a straggling op on the late rank's GPU before it joins
            t = launchOp(r, t + 1'000, "aten::index_put_", "aten::_index_put_impl_",
                         "void at::native::index_put_kernel<float>", r.lateNs, 7);
        const int64_t before = r.gpuFree[0];
        r.gpuFree[1] = std::max(r.gpuFree[1], before);
        r.w->event(
            R"J({"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
            R"J(}})J",
            r.pid, r.tid, us(t + 1'000).c_str(), us(45'000).c_str(), r.ext + 200000000);
        t = launchOp(
            r, t + 2'000, "record_param_comms", "c10d::allreduce_",
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 0, 20,
            allReduce);
    }
}

// The rest of the step: optimizer, synchronisation, loading the next batch.
void writeStepAfterAllReduce(Rank &r, int step, int64_t stepStart, int64_t &t)
{
    t = launchOp(r, t + 3'000, "Optimizer.step#SGD.step", "aten::_foreach_add_",
                 "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<2>>",
                 r.rng.range(20'000, 40'000), 7);
    // cudaDeviceSynchronize waits for both streams at the end of the step (not in a healthy
    // job, whose host runs ahead of the GPU).
    int64_t syncEnd = t;
    if (!r.healthy) {
        const int64_t syncStart = t + 2'000;
        syncEnd = std::max({r.gpuFree[0], r.gpuFree[1], syncStart + 5'000}) + 3'000;
        r.w->event(
            R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"cbid": 165, "correlation": %)J" PRId64
            R"J(}})J",
            r.pid, r.tid, us(syncStart).c_str(), us(syncEnd - syncStart).c_str(), r.corr++);
    }
    // Loading the next batch: the GPU waits for the input pipeline (a healthy job takes a
    // batch its DataLoader workers have ready).
    const int64_t loadStart = syncEnd + r.rng.range(20'000, 40'000);
    const int64_t loadDur =
        r.h(r.healthy ? r.rng.range(50'000, 150'000) : r.rng.range(15'000'000, 30'000'000));
    r.w->event(
        R"J({"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
        R"J(}})J",
        r.pid, r.tid, us(loadStart).c_str(), us(loadDur).c_str(), r.ext++);
    t = loadStart + loadDur + r.rng.range(40'000, 90'000);
    r.w->event(
        R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
        R"J(}})J",
        step, r.pid, r.tid, us(stepStart).c_str(), us(t - stepStart - 1'000).c_str(), r.ext++);
}

int usage(FILE *to = stderr, int status = 2)
{
    std::fprintf(
        to,
        "usage: grademl-tracegen --out DIR [--ranks N] [--steps N] [--layers N] "
        "[--target-mb MB] [--seed S] [--monitor] [--healthy] [--slow-rank R] [--host-skew-us US]\n"
        "                        [--kernel-scale F] [--gemm-scale F] [--host-scale F] "
        "[--kernel-floor-us US] [--gemm-size F] [--small-kernels] [--memory]\n"
        "                        [--collective-mb MB [--link-gbps GBPS] [--slow-link-gbps "
        "GBPS]] [--late-rank R [--late-us US]] [--warmup-ms MS]\n");
    return status;
}

// "2023/11/14 22:13:20.123" in UTC, as nvidia-smi prints local time on a host set to UTC.
std::string smiTime(int64_t ns)
{
    const std::time_t secs = std::time_t(ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  int(ns / 1'000'000 % 1000));
    return buf;
}

// The share of [lo, hi) covered by the union of the intervals (sorted by start).
double busyShare(const std::vector<std::pair<int64_t, int64_t>> &busy, int64_t lo, int64_t hi)
{
    int64_t covered = 0, reach = lo;
    for (const auto &[s, e] : busy) {
        if (s >= hi)
            break;
        const int64_t a = std::max(s, reach), b = std::min(e, hi);
        if (b > a) {
            covered += b - a;
            reach = b;
        }
    }
    return double(covered) / double(hi - lo);
}

bool writeMonitor(const std::string &out,
                  std::vector<std::vector<std::pair<int64_t, int64_t>>> busy, int64_t baseTime,
                  int64_t end)
{
    const std::string path = out + "/nvidia-smi.csv";
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::perror(path.c_str());
        return false;
    }
    for (auto &b : busy)
        std::sort(b.begin(), b.end());
    std::fprintf(
        f, "timestamp, index, name, utilization.gpu [%%], memory.used [MiB], power.draw [W]\n");
    constexpr int64_t period = 10'000'000;
    for (int64_t t = period; t <= end + period; t += period) {
        for (size_t g = 0; g < busy.size(); ++g) {
            const double share = busyShare(busy[g], t - period, t);
            // Each GPU answers a few hundred microseconds after the previous one.
            const int64_t at = baseTime + t + int64_t(g) * 350'000;
            std::fprintf(f, "%s, %zu, NVIDIA A100-SXM4-40GB, %d %%, %d MiB, %.2f W\n",
                         smiTime(at).c_str(), g, int(share * 100 + 0.5), 9342 + int(g) * 16,
                         58.0 + 322.0 * share);
        }
    }
    std::fclose(f);
    const std::string settings = out + "/grademl.json";
    FILE *s = std::fopen(settings.c_str(), "wb");
    if (!s) {
        std::perror(settings.c_str());
        return false;
    }
    std::fprintf(s, "{\"timezone\": \"UTC\"}\n");
    std::fclose(s);
    return true;
}

// --collective-mb: what the all-reduce kernels record (Kineto's collective args) and how fast
// the ring moves it.
struct Comm
{
    int64_t bytes = 0;
    double linkGBps = 240;     // --link-gbps: each link's bus bandwidth (NVLink 3 at 80%)
    double slowLinkGBps = 1e9; // --slow-link-gbps: one link of the ring at this
    int ranks = 1;
    std::string args;
    void makeArgs()
    {
        if (bytes <= 0)
            return;
        std::string list;
        for (int r = 0; r < ranks; ++r)
            list += (r ? ", " : "") + std::to_string(r);
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      R"J(, "Collective name": "allreduce", "In msg nelems": %)J" PRId64
                      R"J(, "Out msg nelems": %)J" PRId64
                      R"J(, "Group size": %d, "dtype": "Float", "Process Group Name": "0", )J",
                      bytes / 4, bytes / 4, ranks);
        args = buf + std::string(R"J("Process Group Ranks": "[)J") + list + "]\"";
    }
} comm;

} // namespace

int main(int argc, char **argv)
{
    std::string out;
    int ranks = 2, steps = 4, layers = 6;
    double targetMb = 0; // fractional: --target-mb 0.5
    uint64_t seed = 42;
    bool monitor = false;
    bool healthy = false;
    bool memory = false;
    int slowRank = -1;
    double kernelScale = 1.0;
    double gemmScale = 1.0;
    double hostScale = 1.0;
    double floorUs = 0;
    int lateRank = -1;
    double lateUs = 5000;
    double gemmSize = 1.0;
    double warmupMs = 0;
    bool smallKernels = false;
    long long skewUs = 0;
    for (int i = 1; i < argc; ++i) {
        auto need = [&](const char *flag) {
            if (std::strcmp(argv[i], flag) != 0 || i + 1 >= argc)
                return false;
            ++i;
            return true;
        };
        if (need("--out"))
            out = argv[i];
        else if (need("--ranks"))
            ranks = std::atoi(argv[i]);
        else if (need("--steps"))
            steps = std::atoi(argv[i]);
        else if (need("--layers"))
            layers = std::atoi(argv[i]);
        else if (need("--target-mb"))
            targetMb = std::atof(argv[i]);
        else if (need("--seed"))
            seed = std::strtoull(argv[i], nullptr, 10);
        else if (need("--host-skew-us"))
            skewUs = std::atoll(argv[i]);
        else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
            return usage(stdout, 0);
        else if (std::strcmp(argv[i], "--monitor") == 0)
            monitor = true;
        else if (std::strcmp(argv[i], "--healthy") == 0)
            healthy = true;
        else if (std::strcmp(argv[i], "--memory") == 0)
            memory = true;
        else if (need("--slow-rank"))
            slowRank = std::atoi(argv[i]);
        else if (need("--kernel-scale"))
            kernelScale = std::atof(argv[i]);
        else if (need("--gemm-scale"))
            gemmScale = std::atof(argv[i]);
        else if (need("--host-scale"))
            hostScale = std::atof(argv[i]);
        else if (need("--kernel-floor-us"))
            floorUs = std::atof(argv[i]);
        else if (need("--gemm-size"))
            gemmSize = std::atof(argv[i]);
        else if (std::strcmp(argv[i], "--small-kernels") == 0)
            smallKernels = true;
        else if (need("--collective-mb"))
            comm.bytes = int64_t(std::atof(argv[i]) * 1e6) / 4 * 4;
        else if (need("--link-gbps"))
            comm.linkGBps = std::atof(argv[i]);
        else if (need("--slow-link-gbps"))
            comm.slowLinkGBps = std::atof(argv[i]);
        else if (need("--late-rank"))
            lateRank = std::atoi(argv[i]);
        else if (need("--late-us"))
            lateUs = std::atof(argv[i]);
        else if (need("--warmup-ms"))
            warmupMs = std::atof(argv[i]);
        else
            return usage();
    }
    if (out.empty() || ranks < 1 || steps < 1 || layers < 1 || !(kernelScale > 0) ||
        !(gemmScale > 0) || !(hostScale > 0) || !(floorUs >= 0) || !(gemmSize > 0) ||
        comm.bytes < 0 || !(comm.linkGBps > 0) || !(comm.slowLinkGBps > 0) || !(warmupMs >= 0) ||
        warmupMs > 1e7)
        return usage();
    std::error_code mkdirError;
    std::filesystem::create_directories(out, mkdirError);
    if (mkdirError) {
        std::fprintf(stderr, "grademl-tracegen: cannot create %s: %s\n", out.c_str(),
                     mkdirError.message().c_str());
        return 1;
    }
    const int64_t baseTime = 1'700'000'000'000'000'000LL; // 2023-11-14, ns since the epoch
    // The ranks of a data-parallel job: steps in lockstep, because each step's all-reduce
    // ends on every rank when the last rank has joined it.
    std::vector<std::unique_ptr<Writer>> writers;
    std::vector<FILE *> files;
    std::vector<Rank> rs;
    std::vector<int64_t> t(size_t(ranks), 0);
    for (int rank = 0; rank < ranks; ++rank) {
        const std::string path = out + "/rank" + std::to_string(rank) + ".pt.trace.json";
        FILE *f = std::fopen(path.c_str(), "wb");
        if (!f) {
            std::perror(path.c_str());
            return 1;
        }
        std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
        std::fprintf(f, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
        // The GPUs of the rank's node (8 a node), as a real rank's file lists what its process
        // sees: not every GPU of the job (issue 74: at 4,096 ranks, 96% of each file).
        const int nodeFirst = rank / kGpusPerNode * kGpusPerNode;
        const int nodeEnd = std::min(ranks, nodeFirst + kGpusPerNode);
        for (int g = nodeFirst; g < nodeEnd; ++g)
            std::fprintf(f,
                         "    {\"id\": %d, \"name\": \"NVIDIA A100-SXM4-40GB\", "
                         "\"totalGlobalMem\": 42298834944, \"computeMajor\": 8, \"computeMinor\": "
                         "0, \"numSms\": 108, \"warpSize\": 32}%s\n",
                         g, g + 1 < nodeEnd ? "," : "");
        std::fprintf(
            f,
            "  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": "
            "%d, \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": "
            "\"default_pg\", \"backend_config\": \"cuda:nccl\", \"pg_size\": %d, \"ranks\": [",
            rank, ranks, ranks);
        for (int g = 0; g < ranks; ++g)
            std::fprintf(f, "%s%d", g ? ", " : "", g);
        std::fprintf(f, "]}], \"nccl_version\": \"2.18.1\"},\n  \"traceEvents\": [");
        files.push_back(f);
        writers.push_back(std::make_unique<Writer>(f));
        rs.push_back(Rank{rank,
                          4000 + rank,
                          4000 + rank,
                          rank,
                          writers.back().get(),
                          Rng{seed * 7919 + uint64_t(rank) + 1},
                          1,
                          1,
                          {0, 0},
                          monitor,
                          healthy,
                          !healthy || ranks > 1,
                          (rank == slowRank ? 1.5 : 1.0) * kernelScale,
                          {},
                          gemmScale,
                          hostScale,
                          memory,
                          0x7f2000000000,
                          0,
                          0,
                          {},
                          nullptr,
                          0,
                          int64_t(floorUs * 1e3),
                          gemmSize,
                          smallKernels,
                          rank == lateRank ? int64_t(lateUs * 1e3) : 0});
        Rank &r = rs.back();
        Writer &w = *writers.back();
        w.event(
            R"J({"name": "process_name", "ph": "M", "ts": 0, "pid": %d, "tid": 0, "args": {"name": "python3"}})J",
            r.pid);
        w.event(
            R"J({"name": "process_labels", "ph": "M", "ts": 0, "pid": %d, "tid": 0, "args": {"labels": "CPU"}})J",
            r.pid);
        w.event(
            R"J({"name": "thread_name", "ph": "M", "ts": 0, "pid": %d, "tid": %d, "args": {"name": "thread %d (python3)"}})J",
            r.pid, r.tid, r.tid);
        w.event(
            R"J({"name": "process_name", "ph": "M", "ts": 0, "pid": %d, "tid": 0, "args": {"name": "python3"}})J",
            r.gpu);
        w.event(
            R"J({"name": "process_labels", "ph": "M", "ts": 0, "pid": %d, "tid": 0, "args": {"labels": "GPU %d"}})J",
            r.gpu, r.gpu);
        w.event(
            R"J({"name": "thread_name", "ph": "M", "ts": 0, "pid": %d, "tid": 7, "args": {"name": "stream 7 "}})J",
            r.gpu);
        w.event(
            R"J({"name": "thread_name", "ph": "M", "ts": 0, "pid": %d, "tid": 20, "args": {"name": "stream 20 "}})J",
            r.gpu);
        // Ranks start within a few ms of each other, as on one host (with --collective-mb,
        // the ranks of each 8-GPU host so).
        t[size_t(rank)] = 1'000'000 + (comm.bytes > 0 ? rank % 8 : rank) * 1'300'000LL;
    }
    Rng collectives{seed * 104729 + 7};
    comm.ranks = ranks;
    comm.makeArgs();
    std::vector<Pending> allReduce(static_cast<size_t>(ranks));
    std::vector<int64_t> stepStart(static_cast<size_t>(ranks));
    for (int step = 0;
         step < steps || (targetMb > 0 && double(writers[0]->bytes()) < targetMb * 1e6); ++step) {
        int64_t joined = 0;
        for (size_t i = 0; i < rs.size(); ++i) {
            stepStart[i] = t[i];
            // --warmup-ms: the first step compiles its graph first (torch.compile's first
            // call), as a real job's first step is its slowest.
            if (step == 0 && warmupMs > 0) {
                const int64_t d = int64_t(warmupMs * 1e6);
                rs[i].w->event(
                    R"J({"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/0", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %)J" PRId64
                    R"J(}})J",
                    rs[i].pid, rs[i].tid, us(t[i] + 1'000).c_str(), us(d).c_str(), rs[i].ext++);
                t[i] += d + 2'000;
            }
            writeStepUntilAllReduce(rs[i], layers, t[i], &allReduce[i]);
            joined = std::max(joined, allReduce[i].start);
        }
        // The ring finishes a transfer time after the last rank joined, on every rank within
        // a microsecond or two. With --collective-mb, the kernels record their message and
        // the transfer is the ring's: 2(n-1)/n x bytes at the bus bandwidth of its slowest
        // link (--link-gbps, --slow-link-gbps), plus 20 us of latency.
        int64_t transfer = collectives.range(300'000, 500'000);
        if (comm.bytes > 0)
            transfer = 20'000 + int64_t(2.0 * (ranks - 1) / ranks * double(comm.bytes) /
                                        std::min(comm.linkGBps, comm.slowLinkGBps));
        const int64_t done = joined + transfer;
        for (size_t i = 0; i < rs.size(); ++i) {
            const Pending &p = allReduce[i];
            if (rs[i].allReduce)
                writeKernel(rs[i], p.kernel, p.stream, p.start,
                            done + rs[i].rng.range(0, 2'000) - p.start, p.corr, p.ext, comm.args);
            writeStepAfterAllReduce(rs[i], step, stepStart[i], t[i]);
        }
    }
    std::vector<std::vector<std::pair<int64_t, int64_t>>> busy;
    int64_t end = 0;
    for (size_t i = 0; i < rs.size(); ++i) {
        busy.push_back(std::move(rs[i].busy));
        end = std::max(end, t[i]);
        // --host-skew-us: the second half of the ranks ran on another host whose clock is
        // that far ahead (their times are written shifted).
        const int64_t skew = 2 * int(i) >= ranks && ranks > 1 ? int64_t(skewUs) * 1000 : 0;
        std::fprintf(files[i],
                     "\n  ],\n  \"traceName\": \"%s\",\n  \"displayTimeUnit\": \"ms\",\n  "
                     "\"baseTimeNanoseconds\": %" PRId64 "\n}\n",
                     ("rank" + std::to_string(i) + ".pt.trace.json").c_str(), baseTime + skew);
        std::fclose(files[i]);
    }
    if (monitor && !writeMonitor(out, std::move(busy), baseTime, end))
        return 1;
    return 0;
}
