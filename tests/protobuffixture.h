// SPDX-License-Identifier: GPL-3.0-or-later
// Protobuf inputs made by the project itself, for tst_protobuf and the fuzzers' seeds: a GPU
// capture as TensorFlow's profiler writes one (XSpace), and Chakra's length-prefixed stream.
#pragma once

#include "proto/chakra_et.pb.h"
#include "proto/xplane.pb.h"

#include <QByteArray>
#include <QList>

namespace gmltest {

inline QByteArray serialize(const google::protobuf::MessageLite &m)
{
    std::string s;
    m.SerializeToString(&s);
    return QByteArray(s.data(), qsizetype(s.size()));
}

inline QByteArray varint(quint64 v)
{
    QByteArray out;
    do {
        char b = char(v & 0x7f);
        v >>= 7;
        out.append(v ? char(b | 0x80) : b);
    } while (v);
    return out;
}

// A length-prefixed Chakra stream.
inline QByteArray delimited(const QList<QByteArray> &messages)
{
    QByteArray out;
    for (const QByteArray &m : messages)
        out += varint(quint64(m.size())) + m;
    return out;
}

// A GPU capture as TensorFlow writes one: CUDA API calls on "/host:CUPTI", a kernel and a copy
// on two streams of "/device:GPU:0" linked by correlation_id, an "XLA Ops" line TensorFlow
// derives, an aggregated event, and two events whose picosecond times round into one ns.
inline gml::xplane::XSpace gpuCapture()
{
    gml::xplane::XSpace space;
    space.add_hostnames("node7");
    auto *host = space.add_planes();
    host->set_id(0);
    host->set_name("/host:CUPTI");
    (*host->mutable_stat_metadata())[1].set_name("correlation_id");
    (*host->mutable_event_metadata())[1].set_name("cuLaunchKernel");
    (*host->mutable_event_metadata())[2].set_name("cudaMemcpyAsync");
    auto *thread = host->add_lines();
    thread->set_id(4242);
    thread->set_timestamp_ns(1'700'000'000'000'000'000);
    auto addEvent = [](gml::xplane::XLine *line, qint64 meta, qint64 offsetPs, qint64 durPs,
                       qint64 corrStat = -1, qint64 corr = 0) {
        auto *e = line->add_events();
        e->set_metadata_id(meta);
        e->set_offset_ps(offsetPs);
        e->set_duration_ps(durPs);
        if (corrStat >= 0) {
            auto *s = e->add_stats();
            s->set_metadata_id(corrStat);
            s->set_uint64_value(quint64(corr));
        }
        return e;
    };
    addEvent(thread, 1, 1'000'000, 5'000'000, 1, 77);
    addEvent(thread, 2, 9'000'000, 2'000'000, 1, 78);

    auto *gpu = space.add_planes();
    gpu->set_id(1);
    gpu->set_name("/device:GPU:0");
    (*gpu->mutable_stat_metadata())[10].set_name("correlation_id");
    (*gpu->mutable_stat_metadata())[11].set_name("memcpy_details");
    (*gpu->mutable_stat_metadata())[12].set_name("device_name");
    auto &kernel = (*gpu->mutable_event_metadata())[1];
    kernel.set_name("volta_sgemm_128x64_nn");
    auto &copy = (*gpu->mutable_event_metadata())[2];
    copy.set_name("MemcpyH2D");
    auto *details = copy.add_stats();
    details->set_metadata_id(11);
    details->set_str_value("kind_src:pageable size:4096");
    auto &fusion = (*gpu->mutable_event_metadata())[3];
    fusion.set_name("fusion.1");
    auto &outer = (*gpu->mutable_event_metadata())[4];
    outer.set_name("cluster_0");
    auto *stream = gpu->add_lines();
    stream->set_id(14);
    stream->set_name("Stream #14(Compute)");
    stream->set_timestamp_ns(1'700'000'000'000'000'000);
    addEvent(stream, 1, 8'000'000, 30'000'000, 10, 77);
    auto *copies = gpu->add_lines();
    copies->set_id(13);
    copies->set_name("Stream #13(MemcpyH2D)");
    copies->set_timestamp_ns(1'700'000'000'000'000'000);
    addEvent(copies, 2, 12'000'000, 4'000'000, 10, 78);
    auto *ops = gpu->add_lines();
    ops->set_id(0xdeadbeef + 4);
    ops->set_name("XLA Ops");
    ops->set_timestamp_ns(1'700'000'000'000'000'000);
    addEvent(ops, 4, 1'000, 2'000);      // [1, 3) ns
    addEvent(ops, 3, 1'500, 999);        // [1.5, 2.499) ps-exact: [1, 2) ns, still inside
    auto *aggregate = ops->add_events(); // a count without a time
    aggregate->set_metadata_id(3);
    aggregate->set_num_occurrences(12);
    return space;
}

// A small Chakra trace: metadata, two operators (the second reads the first's output) and the
// GPU kernel the first launched.
inline QByteArray smallChakraTrace()
{
    gml::chakra::GlobalMetadata meta;
    meta.set_version("0.0.4");
    auto *pid = meta.add_attr();
    pid->set_name("pid");
    pid->set_uint64_val(4242);
    QList<QByteArray> messages{serialize(meta)};
    for (quint64 id : {1, 2, 3}) {
        gml::chakra::Node n;
        n.set_id(id);
        n.set_name(id == 1 ? "aten::mm(0)" : id == 2 ? "aten::relu" : "ampere_sgemm_64x64_nn");
        n.set_type(gml::chakra::COMP_NODE);
        n.set_duration_micros(10 * id);
        if (id > 1)
            n.add_data_deps(1);
        auto *cpu = n.add_attr();
        cpu->set_name("is_cpu_op");
        cpu->set_bool_val(id != 3);
        auto *rf = n.add_attr();
        rf->set_name("rf_id");
        rf->set_int64_val(qint64(id));
        messages << serialize(n);
    }
    gml::chakra::Node coll;
    coll.set_id(4);
    coll.set_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    coll.set_type(gml::chakra::COMM_COLL_NODE);
    auto *type = coll.add_attr();
    type->set_name("comm_type");
    type->set_int64_val(gml::chakra::ALL_REDUCE);
    auto *size = coll.add_attr();
    size->set_name("comm_size");
    size->set_int64_val(1 << 20);
    messages << serialize(coll);
    return delimited(messages);
}

} // namespace gmltest
