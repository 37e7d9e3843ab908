// SPDX-License-Identifier: GPL-3.0-or-later
// Writes the fuzzers' seed corpora: small, valid inputs of every format, made here so the
// project ships no binary seed. Usage: grademl-fuzz-seeds OUTDIR (one folder per target).
#include "../gziputil.h"
#include "../nsysfixture.h"
#include "../protobuffixture.h"
#include "rankfacts.h"
#include "slicestore.h"

#include <QDir>
#include <QFile>
#include <QString>

#include <cstdio>
#include <cstring>

namespace {

QString g_out;

void put(const char *target, const char *name, const QByteArray &bytes)
{
    const QString dir = g_out + QLatin1Char('/') + QLatin1String(target);
    QDir().mkpath(dir);
    QFile f(dir + QLatin1Char('/') + QLatin1String(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) {
        fprintf(stderr, "cannot write %s\n", qPrintable(f.fileName()));
        exit(1);
    }
}

// A chunk as slice_chunk stores it, in the slicechunk target's framing.
QByteArray chunk(int rows, bool withArgs)
{
    using namespace gml::slicestore;
    ArgsEncoder encoder;
    std::string records;
    std::vector<Row> list;
    for (int i = 0; i < rows; ++i) {
        Row r;
        r.ts = 1000 + i * 37;
        r.dur = 10 + i % 5;
        r.name = 1 + i % 3;
        r.cat = i % 2;
        r.correlation = i % 4 ? qint64(i) : kNull;
        r.id = i;
        if (withArgs && i % 2 == 0) {
            const std::string json = "{\"External id\":" + std::to_string(i) +
                                     ",\"stream\":7,\"name\":\"k" + std::to_string(i % 3) +
                                     "\",\"grid\":[1,2,3],\"f\":0.5,\"ok\":true,\"n\":null}";
            r.hasArgs = true;
            encoder.add(json, records, r);
        }
        list.push_back(r);
    }
    std::string data, args;
    encode(list, records, encoder, data, args);
    QByteArray out(4, '\0');
    const uint32_t n = uint32_t(data.size());
    std::memcpy(out.data(), &n, 4);
    out += QByteArray(data.data(), qsizetype(data.size()));
    out += QByteArray(args.data(), qsizetype(args.size()));
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: grademl-fuzz-seeds OUTDIR\n");
        return 2;
    }
    g_out = QString::fromLocal8Bit(argv[1]);

    const QByteArray kineto =
        R"({"distributedInfo":{"rank":0,"world_size":2},"deviceProperties":[{"id":0,"name":"GPU"}],
"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":1700000000000.5,"dur":20,"args":{"External id":3,"Record function id":9}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":1700000000005,"dur":4,"args":{"correlation":11,"External id":3}},
{"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":7,"ts":1700000000012,"dur":30,"args":{"correlation":11,"External id":3,"device":0,"stream":7}},
{"ph":"s","id":11,"pid":1,"tid":2,"ts":1700000000005,"cat":"ac2g","name":"ac2g"},
{"ph":"f","id":11,"pid":0,"tid":7,"ts":1700000000012,"cat":"ac2g","name":"ac2g","bp":"e"},
{"ph":"B","name":"step","pid":1,"tid":2,"ts":1700000000000},{"ph":"E","pid":1,"tid":2,"ts":1700000000050},
{"ph":"i","name":"mark","pid":1,"tid":2,"ts":1700000000001,"s":"t"},
{"ph":"C","name":"mem","pid":1,"ts":1700000000003,"args":{"bytes":1024}},
{"ph":"b","cat":"async","name":"req","id":"0x5","pid":1,"tid":2,"ts":1700000000002},
{"ph":"e","cat":"async","name":"req","id":"0x5","pid":1,"tid":2,"ts":1700000000009},
{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":20,"ts":1700000000045,"dur":9,"args":{"correlation":12}},
{"ph":"X","cat":"cuda_sync","name":"cudaDeviceSynchronize","pid":0,"tid":7,"ts":1700000000060,"dur":1,"args":{"correlation":13}}
]})";
    put("chrometrace", "kineto.json", kineto);
    put("chrometrace", "kineto.json.gz", gmltest::gzip(kineto));
    put("chrometrace", "array.json",
        R"([{"ph":"X","name":"a","pid":"p","tid":"t","ts":1,"dur":2},{"ph":"X","name":"b\u00e9\n","pid":1,"tid":1,"ts":"3","dur":1.25}])");
    put("chrometrace", "tf.json",
        R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"MatMul","pid":3,"tid":0,"ts":5.5,"dur":1,"args":{"long_name":"dense/MatMul"}},{}]})");

    put("nvidiasmi", "query.csv",
        "timestamp, name, index, pstate, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
        "2023/02/21 15:16:55.262, NVIDIA A100-SXM4-40GB, 0, P0, 33 %, 1024 MiB, 57.50 W\n"
        "2023/02/21 15:16:55.262, NVIDIA A100-SXM4-40GB, 1, P0, 0 %, 0 MiB, [N/A]\n"
        "2023/02/21 15:16:56.262, NVIDIA A100-SXM4-40GB, 0, P2, 35 %, 2048 MiB, 60.00 W\n");
    put("nvidiasmi", "noindex.csv", "name, memory.total [MiB]\nA100, 40960 MiB\nA100, 40960 MiB\n");
    put("dmon", "dated.txt",
        "#Date       Time        gpu   pwr gtemp    sm\n#YYYYMMDD   HH:MM:SS    Idx     W     C    "
        " %\n"
        " 20230221   15:16:55      0    43    48     5\n 20230221   15:16:55      1    44     -    "
        " 6\n"
        " 20230221   15:16:56      0    45    49     7\n");
    put("dmon", "plain.txt",
        "# gpu   pwr    sm\n# Idx     W     %\n    0    43     5\n    0    44     6\n");
    put("dcgmi", "dmon.txt",
        "#Entity   POWER             TOTEC                   GPUTL             SMACT\n"
        "ID         W                 mJ                                                          "
        "\n"
        "GPU 0     57.976            1268376700              0                 0.000\n"
        "GPU 1     N/A               N/A                     3                 0.100\n"
        "GPU 0     60.527            1268437741              11                0.250\n");
    put("top", "top.txt",
        "top - 15:16:05 up  5:03,  3 users,  load average: 1.22, 0.73, 0.79\n"
        "Tasks: 1306 total,   2 running, 1304 sleeping,   0 stopped,   0 zombie\n"
        "%Cpu(s):  0.7 us,  0.2 sy,  0.0 ni, 99.1 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st\n"
        "MiB Mem : 1031710.+total, 998000.1 free,  12345.6 used,  21364.8 buff/cache\n"
        "MiB Swap:      0.0 total,      0.0 free,      0.0 used. 1013000.0 avail Mem\n\n"
        "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
        "  91607 user      20   0   12.2g   3.0g 630580 R 101.0   0.3   0:05.01 python\n"
        "      1 root      20   0  167420  11840   8392 S   0.0   0.0   0:10.00 systemd\n\n"
        "top - 15:16:06 up  5:03,  3 users,  load average: 1.30, 0.75, 0.80\n"
        "Tasks: 1306 total,   1 running, 1305 sleeping,   0 stopped,   0 zombie\n");
    put("samples", "grademl-samples.csv",
        "grademl-samples 1\nhost,node7\nseries,0,host,memory "
        "used,MiB\n1700000000000000000,0,1024.5\n"
        "series,1,cpu0,busy,%\nseries,2,process 4242 python3,cpu,%\n1700000000100000000,1,99.5\n"
        "1700000000100000000,2,100\nseries,3,command,processes,\n1700000000100000000,3,2\n");
    put("executiontrace", "et.json",
        R"({"schema":"1.0.1","pid":5,"time":"2024","start_ts":1,"nodes":[
{"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1,"rf_id":0,"inputs":[],"outputs":[]},
{"id":2,"name":"aten::add","parent":1,"rf_id":1,"scope":0,"inputs":[[1,1,0,4,4,"cpu"],1.0],"outputs":[[2,2,0,4,4,"cpu"]]},
{"id":3,"name":"## step ##","parent":1,"rf_id":2,"scope":7,"inputs":[],"outputs":[]},
{"id":4,"name":"aten::mul","parent":1,"rf_id":3,"inputs":[[[2,2,0,4,4,"cpu"]]],"outputs":[[3,3,0,4,4,"cpu"]]}]})");
    put("executiontrace", "attrs.json", R"({"schema":"1.0.2-chakra.0.0.4","pid":5,"nodes":[
{"id":2,"name":"aten::add","ctrl_deps":1,"attrs":[{"name":"rf_id","value":1},{"name":"scope","value":0}],
 "inputs":{"values":[[1,1,0,4,4,"cpu"]]},"outputs":{"values":[[2,2,0,4,4,"cpu"]]}}]})");
    put("chakra", "small.et", gmltest::smallChakraTrace());
    put("simjson", "transforms.json",
        R"([{"op":"scale","select":{"name":"^k1$","kind":["kernel"],"rank":0,"from_ns":0,"to_ns":500000},"factor":0.5},
{"op":"insert","select":{"name":"^aten::add$"},"duration_ns":20000,"name":"hook"},
{"op":"fuse","select":{"kind":["kernel"]},"model":"overhead","overhead_ns":1000},
{"op":"reschedule","select":{"name":"nccl"},"priority":1},{"op":"device","target":"H100"},{"op":"amp"},
{"op":"compute","factor":2},{"op":"memory","factor":1.5},{"op":"input","factor":0},{"op":"host","factor":2},
{"op":"link","link":"network","bandwidth_gbps":50,"latency_us":3},{"op":"workers","workers":8,"grad_mb":100,"bucket_mb":25,"algorithm":"tree"},
{"op":"set","select":{"name":"k2"},"duration_ns":1000},{"op":"remove","select":{"name":"aten"}},{"op":"unsync"}])");
    put("simjson", "cluster.json",
        R"({"name":"two","nodes":2,"gpu":"V100","gpus_per_node":2,"cpu":"xeon-6148","cpus_per_node":2,"gpus_per_pcie_switch":2,
"intra_link":"nvlink2","intra_gbps":150,"host_link":"pcie3","host_gbps":12,"network":"ib-edr","network_gbps":12.5,
"network_latency_us":2,"oversubscription":2,"storage":"nvme","storage_gbps":3})");

    put("simjson", "workflow.json",
        R"({"workflow":{"name":"speech","steps":[{"name":"train","folder":"train"},{"name":"tune","runs":["fuzz","x"]},
{"name":"eval","run":"eval-job","folders":["eval","../other"]}],"edges":[["train","tune"],{"from":"tune","to":"eval"},["eval","train"]]}})");

    put("xplane", "gpu.xplane.pb", gmltest::serialize(gmltest::gpuCapture()));

    QString error;
    const QString nsysDir = g_out + QStringLiteral("/nsys");
    QDir().mkpath(nsysDir);
    if (!gmltest::writeNsysExport(nsysDir + QStringLiteral("/export.sqlite"), 4, {}, &error)) {
        fprintf(stderr, "cannot write the Nsight seed: %s\n", qPrintable(error));
        return 1;
    }

    put("slicechunk", "args.bin", chunk(40, true));
    put("slicechunk", "plain.bin", chunk(7, false));

    // Issue 56: plans, notes, followed logs, what a cluster reads of a shard.
    put("plan", "plan.json",
        R"({"files":[{"path":"/job/rank0.pt.trace.json","size":1024,"format":"chrome-trace","run":"job","run_from_folder":true,)"
        R"("timezone":"Europe/Paris","workflow_file":"","experiment":"","workload":""},)"
        R"({"path":"/job/nvidia-smi.csv","size":77,"format":"nvidia-smi-csv","run":"job"}]})");
    {
        QByteArray notes;
        for (int i = 0; i < 3; ++i) {
            const qint64 start = 1'700'000'000'000'000'000 + i * 1000, end = start - 5 + i * 20;
            notes += QByteArray(reinterpret_cast<const char *>(&start), 8) +
                     QByteArray(reinterpret_cast<const char *>(&end), 8);
            notes += char(i);
            notes += char(i == 2 ? 11 : i);
            notes += QByteArray("note \x1b[31m");
            notes += char(0);
            notes += "x";
        }
        put("notes", "rows.bin", notes);
    }
    put("follow", "samples.bin",
        QByteArray(1, char(1 | (60 << 1))) +
            "grademl-samples 1\nhost,h\nseries,0,host,cpu busy,%\n"
            "1700000000000000000,0,1\n1700000000100000000,0,2\n1700000000200000000,0,"
            "3\n1700000000300000000,0,4\n");
    put("follow", "smi.bin",
        QByteArray(1, char(0 | (90 << 1))) +
            "timestamp, index, utilization.gpu [%]\n2023/02/21 15:16:55.262, 0, 33 %\n"
            "2023/02/21 15:16:56.262, 0, 35 %\n2023/02/21 15:16:57.262, 0, 37 %\n");
    put("shardmeta", "identity.bin",
        QByteArray("\x01\x04\x15") + "0123456789abcdefstamp" + QByteArray(16, '\0'));
    // Issue 74: rank facts carrying a rank's GPU, an iteration and its shard's kernels (one
    // past the exact durations), launches and step time.
    {
        using namespace gml::sim;
        RankFacts f;
        f.loads.push_back({0, 1000, 500, 0});
        f.families.push_back({QStringLiteral("gemm"), 200, 900});
        f.detail.carried = true;
        GpuBreakdown b;
        b.device = QStringLiteral("rank 0 · GPU 0");
        b.rank = 0;
        b.end = 2000;
        b.time = {2000, 1000, 500, 0, 500};
        b.streams.push_back({QStringLiteral("stream 7"), 1500});
        b.longestGaps.push_back({100, 200, IdleCause::DataLoading, -1});
        b.queue.push_back({0, 2000, 2, 1.5});
        f.detail.gpus.push_back(b);
        IterationBreakdown it;
        it.name = QStringLiteral("ProfilerStep#0");
        it.device = b.device;
        it.rank = 0;
        it.end = 2000;
        it.time = b.time;
        f.detail.iterations.push_back(it);
        ShardDetail shard;
        KernelStat k;
        k.name = QStringLiteral("volta_sgemm_128x64_nt");
        k.family = QStringLiteral("gemm");
        std::vector<gml::TimeNs> durations;
        for (int i = 0; i < 200; ++i)
            durations.push_back(100 + i * 7);
        k.count = 200;
        k.durations = gml::DurationSketch::fromSorted(durations);
        shard.kernels.push_back(k);
        shard.launch.launches = shard.launch.calls = 3;
        shard.launch.delays = gml::DurationSketch::fromSorted({5, 9, 40});
        shard.lowestRank = 0;
        shard.summary.iterations = 1;
        shard.summary.stepTime = shard.summary.stepTimeAll = 2000;
        shard.summary.flops = 1e12;
        f.detail.shard = shard;
        put("shardmeta", "detail.bin",
            QByteArray("\x01\x04\x15") + "0123456789abcdefstamp" + qCompress(f.toCbor()));
    }
    // Issue 70: a calibration file as validate --fit writes it, gate specs (then the runs'
    // metrics as doubles), and the shape texts of an op (dims, types, concrete inputs, flops).
    put("calibration", "fit.json",
        R"({"format":"grademl_calibration","version":1,"predicted_run":"a","measured_run":"b",)"
        R"("project":"p.grademl","transforms":["device H100"],"same_vendor":false,)"
        R"("families":{"gemm":0.62,"elementwise":1.1,"attention":2.5},"host":1.3,"loading":0.9})");
    // Issue 75: version 2, lines per family and the spreads of the host classes.
    put("calibration", "fit2.json",
        R"({"format":"grademl_calibration","version":2,"predicted_run":"a","measured_run":"b",)"
        R"("transforms":["run on MI300X"],"same_vendor":false,"families":{"gemm":1.08},)"
        R"("kernels":{"gemm":{"floor_us":3.6,"factor":1.65,"sigma":0.1,"shapes":9,)"
        R"("from_us":5.8,"to_us":103.4}},"classes":{"host":{"floor_us":0,"factor":0.63,)"
        R"("sigma":0.2,"shapes":40,"from_us":1,"to_us":90}},"host_share":0.3,"host":0.63,)"
        R"("launch":1.0})");
    {
        QByteArray gates("step_time<+5%\ngpu_busy>-2pt\npeak_memory<+512MiB\nend_to_end<+3ms\n"
                         "energy<+10J\nmfu>-1pt\nstep_time<5");
        gates += '\0';
        for (double v : {25e6, 26e6, 24e6, 25.5e6, 25e6, 0.8,  0.3,  4e10,   1200.0, 9e7,
                         27e6, 28e6, 26e6, 27.5e6, 27e6, 0.78, 0.31, 4.2e10, 1250.0, 9.5e7})
            gates += QByteArray(reinterpret_cast<const char *>(&v), sizeof v);
        put("gate", "gates.bin", gates);
    }
    put("shapes", "mm.bin",
        QByteArray("[[64,128],[128,256]]") + '\0' + "[\"c10::Half\",\"c10::Half\"]" + '\0' +
            "[\"\",\"\"]" + '\0' + "4194304");
    put("shapes", "conv.bin",
        QByteArray("[[8,3,224,224],[64,3,7,7],[64],[],[],[],[]]") + '\0' +
            "[\"float\",\"float\",\"float\",\"GenericList\",\"GenericList\","
            "\"GenericList\",\"Bool\"]" +
            '\0' + "[\"\",\"\",\"\",\"[2, 2]\",\"[3, 3]\",\"[1, 1]\",\"False\"]" + '\0' + "");
    put("shapes", "attention.bin",
        QByteArray("[[2,8,512,64],[2,8,512,64],[2,8,512,64]]") + '\0' +
            "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Bool\"]" + '\0' +
            "[\"\",\"\",\"\",\"True\"]" + '\0' + "-5");
    return 0;
}
