// SPDX-License-Identifier: GPL-3.0-or-later
#include "xplaneimporter.h"

#include "inputstream.h"
#include "jsonscan.h"
#include "proto/xplane.pb.h"
#include "protowire.h"
#include "tfcapture.h"
#include "xplanekinds.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>

#include <charconv>
#include <limits>
#include <map>
#include <unordered_map>

namespace gml {

using namespace xplanedetail;

namespace {

// libprotobuf parses at most 2 GiB from one buffer.
constexpr qint64 kMaxXplaneBytes = (qint64(1) << 31) - 1;
// Lines TensorFlow derives from a device's events have ids from here (kThreadIdDerivedMin).
constexpr qint64 kDerivedLineIdMin = 0xdeadbeef;
constexpr int kHostThreadsPid = 501;      // the trace viewer's process id for host threads
constexpr qint64 kMaxPlanesListed = 1000; // in the source's metadata; the rest are counted

// The category of a device line TensorFlow derives, by its name; empty: a stream.
std::string derivedLineCategory(const std::string &name, qint64 id)
{
    static const std::pair<const char *, const char *> known[] = {
        {"Steps", "step"},
        {"XLA Modules", "xla_module"},
        {"XLA Ops", "xla_op"},
        {"Async XLA Ops", "xla_op"},
        {"XLA TraceMe", "xla_traceme"},
        {"TensorFlow Ops", "tf_op"},
        {"TensorFlow Name Scope", "tf_name_scope"},
        {"Framework Ops", "framework_op"},
        {"Framework Name Scope", "framework_name_scope"},
        {"Launch Stats", "launch_stats"},
        {"Source code", "source"},
        {"Sparse Core Ops", "sparsecore_op"},
        {"Sparse Core Modules", "sparsecore_module"},
    };
    for (const auto &[line, cat] : known)
        if (name == line)
            return cat;
    if (id >= kDerivedLineIdMin)
        return "derived";
    return {};
}

struct PlaneTracks
{
    TrackId process = 0;
    std::unordered_map<qint64, TrackId> lines;
};

struct Context // a producer/consumer context (_pt/_p, _ct/_c)
{
    quint64 type = 0;
    quint64 id = 0;
    bool operator<(const Context &o) const { return type != o.type ? type < o.type : id < o.id; }
};

} // namespace

SniffResult XPlaneImporter::sniff(const QString &path, const QByteArray &head) const
{
    if (!path.endsWith(QLatin1String(".xplane.pb")))
        return {};
    // An XSpace starts with a plane (field 1) or, when it has none, errors, warnings or hosts.
    if (!head.isEmpty() && head[0] != 0x0a && head[0] != 0x12 && head[0] != 0x1a && head[0] != 0x22)
        return {0, QStringLiteral("named .xplane.pb but does not start like an XSpace protobuf")};
    return {95, {}};
}

// Where the planes of an XSpace lie in its bytes (fields checked already), with the space's own
// errors, warnings and hostnames: the planes are then parsed one at a time, so memory follows the
// largest plane, not the file (8 M empty planes took 2.8 GB as one XSpace).
struct Span
{
    qint64 at, size;
};
struct SpaceIndex
{
    std::vector<Span> planes; // planes with contents (an empty one has no lines)
    std::vector<std::string> errors, warnings, hostnames;
    qint64 emptyPlanes = 0, binaryAt = -1; // the first error, warning or hostname not text
};

SpaceIndex indexSpace(const QByteArray &bytes)
{
    SpaceIndex out;
    const char *const begin = bytes.constData(), *p = begin, *const end = begin + bytes.size();
    while (p < end) { // well-formed: checked above
        quint64 tag = 0, length = 0;
        protowire::readVarint(p, end, tag);
        if ((tag & 7) != 2) { // an unknown number or fixed field: skip it
            quint64 v = 0;
            if ((tag & 7) == 0)
                protowire::readVarint(p, end, v);
            else
                p += (tag & 7) == 1 ? 8 : 4;
            continue;
        }
        protowire::readVarint(p, end, length);
        const std::string_view value(p, size_t(length));
        if (out.binaryAt < 0 && (tag >> 3) >= 2 && (tag >> 3) <= 4 &&
            (json::findInvalidUtf8(value.data(), value.size()) >= 0 ||
             std::any_of(value.begin(), value.end(), [](char c) {
                 return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r';
             })))
            out.binaryAt = p - begin;
        switch (tag >> 3) {
        case 1:
            if (length > 0)
                out.planes.push_back({qint64(p - begin), qint64(length)});
            else
                ++out.emptyPlanes;
            break;
        case 2:
            out.errors.emplace_back(value);
            break;
        case 3:
            out.warnings.emplace_back(value);
            break;
        case 4:
            out.hostnames.emplace_back(value);
            break;
        default:
            break;
        }
        p += length;
    }
    return out;
}

// What the planes of one XSpace build up as they are read, one plane at a time (importPlane).
struct PlaneState
{
    explicit PlaneState(TraceWriter &writer) : w(writer) {}
    TraceWriter &w;
    WarningLog warnings;
    qint64 aggregated = 0, noMetadata = 0;
    std::map<Context, SliceId> producers;
    std::vector<std::pair<Context, SliceId>> consumers;
    std::unordered_map<quint64, SliceId> apiCalls;     // correlation_id -> CUPTI API call
    std::vector<std::pair<quint64, SliceId>> launched; // correlation_id -> GPU work
    QJsonArray planesRead;
    qint64 planesWithEvents = 0;
    qint64 events = 0;
    int otherPlanes = 0;
};

// A plane's own row, numbered as the trace viewer numbers it: device N is pid 1 + N, the host's
// threads 501, any other plane the next pid after them (`otherPlanes` counts those).
TrackSpec planeProcess(const std::string &planeName, bool device, bool hostCpu, int &otherPlanes)
{
    int pid = hostCpu ? kHostThreadsPid : kHostThreadsPid + 1 + otherPlanes;
    if (device) {
        const size_t colon = planeName.rfind(':');
        int ordinal = -1;
        const char *b = planeName.data() + colon + 1, *e = planeName.data() + planeName.size();
        if (colon != std::string::npos && std::from_chars(b, e, ordinal).ptr == e && ordinal >= 0 &&
            ordinal < 500)
            pid = 1 + ordinal;
    } else if (!hostCpu) {
        ++otherPlanes;
    }
    TrackSpec ps;
    ps.kind = device ? TrackKind::Gpu : TrackKind::Process;
    ps.name = QStringLiteral("%1 (pid %2)")
                  .arg(QString::fromStdString(planeName))
                  .arg(pid); // as the JSON's rows
    ps.pid = QString::number(pid);
    ps.sortKey = pid;
    return ps;
}

// One line of a plane as its events are stored: its track, its name for warnings, whether it
// is a GPU stream, the category its name gives (derived lines) and the stats that link events.
struct LineInfo
{
    TrackId track = 0;
    std::string name;
    qint64 timestampNs = 0;
    bool stream = false;
    StringId category = 0;
};

struct StatIds
{
    qint64 correlation = -1, producerType = -1, producer = -1, consumerType = -1, consumer = -1;
};

// An event's start and end in ns: picoseconds down to ns, start and end alike, so nested
// events stay nested. Offsets are from the line's start; one before it, or a time past the
// project's limits, is left out (nullopt, warned).
std::optional<std::pair<TimeNs, TimeNs>> eventSpan(const xplane::XEvent &event,
                                                   const LineInfo &line, WarningLog &warnings)
{
    const qint64 offset = event.offset_ps();
    const qint64 durationPs = std::max<qint64>(0, event.duration_ps());
    if (event.duration_ps() < 0)
        warnings.add(
            QStringLiteral("negative duration"), -1,
            QStringLiteral("an event has a negative duration_ps (%1, line '%2' at offset %3 ps); "
                           "expected a duration >= 0, stored as 0")
                .arg(event.duration_ps())
                .arg(QString::fromStdString(line.name))
                .arg(offset));
    if (offset < 0 || offset > std::numeric_limits<qint64>::max() - durationPs ||
        line.timestampNs > kMaxAbsTimeNs || line.timestampNs < -kMaxAbsTimeNs) {
        warnings.add(
            QStringLiteral("time"), -1,
            QStringLiteral("an event's time is out of range (line '%1' at %2 ns, offset %3 ps); "
                           "left out")
                .arg(QString::fromStdString(line.name))
                .arg(line.timestampNs)
                .arg(offset));
        return std::nullopt;
    }
    return std::pair(line.timestampNs + offset / 1000,
                     line.timestampNs + (offset + durationPs) / 1000);
}

// Stores one event as a slice of its line's track, with its args (the long name, the kind's
// args, its own stats), and keeps its correlation and producer/consumer contexts for the flows.
// False when the writer refused the slice.
bool storeEvent(const xplane::XEvent &event, const PlaneKinds::Kind &k, TimeNs ts, TimeNs end,
                const LineInfo &line, PlaneKinds &pk, const StatIds &ids, PlaneState &st,
                std::string &args)
{
    StringId cat = line.category;
    if (!cat) {
        if (line.stream)
            cat = pk.category(k.memcpy ? "gpu_memcpy" : k.memset ? "gpu_memset" : "kernel");
        else if (k.cupti)
            cat = pk.category(k.driver ? "cuda_driver" : "cuda_runtime");
        else if (k.tfOp)
            cat = pk.category("tf_op");
    }
    args.clear();
    if (!k.longName.empty()) {
        appendJsonString(args, "long_name");
        args += ':';
        appendJsonString(args, k.longName);
    }
    if (!k.args.empty()) {
        if (!args.empty())
            args += ',';
        args += k.args;
    }
    qint64 correlation = kNoId;
    std::optional<quint64> producerType, producerId, consumerType, consumerId;
    auto intValue = [](const xplane::XStat &s) -> quint64 {
        return s.value_case() == xplane::XStat::kInt64Value ? quint64(s.int64_value())
                                                            : s.uint64_value();
    };
    for (const auto &stat : event.stats()) {
        const qint64 id = stat.metadata_id();
        if (id == ids.correlation && ids.correlation >= 0)
            correlation = qint64(intValue(stat));
        else if (id == ids.producerType && ids.producerType >= 0)
            producerType = intValue(stat);
        else if (id == ids.producer && ids.producer >= 0)
            producerId = intValue(stat);
        else if (id == ids.consumerType && ids.consumerType >= 0)
            consumerType = intValue(stat);
        else if (id == ids.consumer && ids.consumer >= 0)
            consumerId = intValue(stat);
        pk.appendStat(args, stat);
    }
    std::string json;
    if (!args.empty()) {
        json.reserve(args.size() + 2);
        json += '{';
        json += args;
        json += '}';
    }
    const SliceId slice =
        st.w.addSlice(line.track, ts, end - ts, k.name, cat, correlation, kNoId, json);
    if (!slice)
        return false;
    if (correlation != kNoId) {
        if (line.stream)
            st.launched.emplace_back(quint64(correlation), slice);
        else if (k.cupti)
            st.apiCalls.emplace(quint64(correlation), slice);
    }
    if (producerType && producerId)
        st.producers.emplace(Context{*producerType, *producerId}, slice);
    if (consumerType && consumerId)
        st.consumers.emplace_back(Context{*consumerType, *consumerId}, slice);
    return true;
}

// One plane's lines and events into tracks and slices, with the launch and producer/consumer
// ends they carry (linked once every plane is read). `fraction`: how far the import is, for
// progress. Nullopt when it goes on; the outcome when it stops (cancelled).
std::optional<ImportOutcome> importPlane(const xplane::XPlane &plane, double fraction,
                                         ImportContext &ctx, PlaneState &st)
{
    TraceWriter &w = st.w;
    qint64 planeEvents = 0;
    for (const auto &line : plane.lines())
        planeEvents += line.events_size();
    const std::string planeName = utf8(plane.name());
    if (planeEvents == 0)
        return std::nullopt; // "/host:metadata", "Task Environment", ...: no timeline
    const bool device = startsWith(planeName, "/device:");
    const bool hostCpu = planeName == "/host:CPU";
    PlaneTracks tracks;
    const TrackSpec ps = planeProcess(planeName, device, hostCpu, st.otherPlanes);
    tracks.process = w.addTrack(ps);

    PlaneKinds pk(plane, w, device, st.noMetadata);
    const StatIds ids{pk.statId("correlation_id"), pk.statId("_pt"), pk.statId("_p"),
                      pk.statId("_ct"), pk.statId("_c")};

    qint64 sortKey = 0;
    if (++st.planesWithEvents <= kMaxPlanesListed) {
        QJsonObject planeInfo;
        planeInfo.insert(QStringLiteral("name"), QString::fromStdString(planeName));
        planeInfo.insert(QStringLiteral("lines"), plane.lines_size());
        planeInfo.insert(QStringLiteral("events"), planeEvents);
        st.planesRead.append(planeInfo);
    }
    std::string args;
    for (const auto &line : plane.lines()) {
        if (line.events_size() == 0)
            continue;
        LineInfo info;
        info.name = utf8(line.display_name().empty() ? line.name() : line.display_name());
        info.timestampNs = line.timestamp_ns();
        const std::string derived =
            device ? derivedLineCategory(info.name, line.id()) : std::string();
        info.stream = device && derived.empty();
        TrackId &track = tracks.lines[line.id()];
        if (!track) {
            TrackSpec ls;
            ls.parent = tracks.process;
            ls.kind = info.stream ? TrackKind::Stream : TrackKind::Thread;
            ls.name = !info.name.empty() ? QString::fromStdString(info.name)
                                         : QStringLiteral("thread %1").arg(line.id());
            ls.pid = ps.pid;
            ls.tid = QString::number(line.id());
            ls.sortKey = ++sortKey;
            track = w.addTrack(ls);
        }
        info.track = track;
        info.category = derived.empty() ? 0 : pk.category(derived);
        for (const auto &event : line.events()) {
            ++st.events;
            if (event.data_case() == xplane::XEvent::kNumOccurrences) {
                ++st.aggregated;
                continue;
            }
            const PlaneKinds::Kind &k = pk.kindOf(event.metadata_id());
            const auto span = eventSpan(event, info, st.warnings);
            if (!span || !storeEvent(event, k, span->first, span->second, info, pk, ids, st, args))
                continue;
            if ((st.events & 0xffff) == 0 && ctx.progress && !ctx.progress(fraction))
                return ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}};
        }
    }
    return std::nullopt;
}

ImportOutcome XPlaneImporter::import(ImportContext &ctx) const
{
    QString error;
    const auto read =
        InputStream::readAll(ctx.path, kMaxXplaneBytes, QStringLiteral("an xplane"), &error,
                             &ctx.contentHash); // empty for gzip
    if (!read)
        return ImportOutcome::failure(-1, error);
    const QByteArray &bytes = *read;
    // Every field checked first (libprotobuf drops a known field in the wrong wire type), then
    // the planes parsed one at a time: memory follows the largest plane, not the file (8 M
    // empty planes took 2.8 GB as one XSpace).
    protowire::UnknownFields unknown;
    if (auto problem = protowire::check(xplane::XSpace::descriptor(), bytes.constData(),
                                        bytes.size(), 0, &unknown))
        return ImportOutcome::failure(problem->offset, problem->message);
    const SpaceIndex space = indexSpace(bytes);
    const std::vector<Span> &planeSpans = space.planes;
    const std::vector<std::string> &spaceErrors = space.errors, &spaceWarnings = space.warnings,
                                   &hostnames = space.hostnames;
    const qint64 emptyPlanes = space.emptyPlanes, binaryAt = space.binaryAt;
    if (planeSpans.empty()) {
        QString message =
            emptyPlanes ? QStringLiteral("an XSpace whose %1 planes are all empty").arg(emptyPlanes)
                        : QStringLiteral("an XSpace without planes");
        if (binaryAt >= 0)
            return ImportOutcome::failure(
                binaryAt, message + QStringLiteral(", and its errors, warnings or hostnames hold "
                                                   "binary data from here, as when a plane's "
                                                   "length is lost: the file is corrupted"));
        return ImportOutcome::failure(
            0, message + QStringLiteral("; expected a TensorFlow profiler capture (planes of "
                                        "lines of events)"));
    }
    if (ctx.progress && !ctx.progress(0.1))
        return {ImportOutcome::Status::Cancelled, -1, {}, {}};

    PlaneState st(*ctx.writer);
    TraceWriter &w = st.w;
    WarningLog &warnings = st.warnings;
    const qint64 &aggregated = st.aggregated, &noMetadata = st.noMetadata;
    const std::map<Context, SliceId> &producers = st.producers;
    const std::vector<std::pair<Context, SliceId>> &consumers = st.consumers;
    const std::unordered_map<quint64, SliceId> &apiCalls = st.apiCalls;
    const std::vector<std::pair<quint64, SliceId>> &launched = st.launched;
    const QJsonArray &planesRead = st.planesRead;
    const qint64 &planesWithEvents = st.planesWithEvents, &events = st.events;
    xplane::XPlane plane;
    for (const Span &span : planeSpans) {
        if (!plane.ParseFromArray(bytes.constData() + span.at, int(span.size)))
            return ImportOutcome::failure(
                span.at, QStringLiteral("libprotobuf could not parse the plane here as an XPlane"));
        if (ctx.progress && !ctx.progress(0.1 + 0.8 * double(span.at) / double(bytes.size())))
            return {ImportOutcome::Status::Cancelled, -1, {}, {}};
        if (auto stop =
                importPlane(plane, 0.1 + 0.8 * double(span.at) / double(bytes.size()), ctx, st))
            return *stop;
    }
    qint64 launches = 0, contextFlows = 0;
    for (const auto &[corr, work] : launched) {
        auto it = apiCalls.find(corr);
        if (it != apiCalls.end()) {
            w.addFlow(FlowKind::Launch, it->second, work);
            ++launches;
        }
    }
    for (const auto &[c, consumer] : consumers) {
        auto it = producers.find(c);
        if (it != producers.end() && it->second != consumer) {
            w.addFlow(FlowKind::TraceFlow, it->second, consumer);
            ++contextFlows;
        }
    }

    QJsonObject meta;
    meta.insert(QStringLiteral("planes"), planesRead);
    if (planesWithEvents > kMaxPlanesListed)
        meta.insert(QStringLiteral("planes_not_listed"), planesWithEvents - kMaxPlanesListed);
    if (emptyPlanes > 0)
        meta.insert(QStringLiteral("empty_planes"), emptyPlanes);
    meta.insert(QStringLiteral("events"), events);
    meta.insert(QStringLiteral("aggregated_events"), aggregated);
    meta.insert(QStringLiteral("launch_flows"), launches);
    meta.insert(QStringLiteral("producer_consumer_flows"), contextFlows);
    QJsonArray hosts;
    for (const auto &h : hostnames)
        hosts.append(QString::fromStdString(utf8(h)));
    if (!hosts.isEmpty())
        meta.insert(QStringLiteral("hostnames"), hosts);
    // The trace viewer's JSON of the same capture, when it lies beside: read instead of it.
    const QFileInfo fi(ctx.path);
    const QString stem = fi.fileName().chopped(int(qstrlen(".xplane.pb")));
    for (const char *suffix : {".trace.json.gz", ".trace.json"}) {
        const QString json = stem + QLatin1String(suffix);
        if (fi.dir().exists(json)) {
            meta.insert(QStringLiteral("read_instead_of"), json);
            break;
        }
    }
    // Times relative to the capture (TensorFlow 2 normalises them): place it by its folder.
    if (const TimeNs first = w.earliest(); first < kRelativeTimeLimit) {
        if (auto start = tensorflowCaptureStart(ctx.path, ctx.timeZone)) {
            w.setClockOffset(start->first);
            meta.insert(QStringLiteral("time_placement"), start->second);
        }
    }
    w.setSourceMetadata(meta);

    ImportOutcome outcome;
    for (const auto &e : spaceErrors)
        warnings.add(QStringLiteral("xspace error ") + QString::fromStdString(utf8(e)), -1,
                     QStringLiteral("the profiler reported an error: %1")
                         .arg(QString::fromStdString(utf8(e))));
    for (const auto &e : spaceWarnings)
        warnings.add(
            QStringLiteral("xspace warning ") + QString::fromStdString(utf8(e)), -1,
            QStringLiteral("the profiler reported: %1").arg(QString::fromStdString(utf8(e))));
    outcome.warnings = warnings.list();
    if (binaryAt >= 0)
        outcome.warnings.append(ImportWarning{
            QStringLiteral("the XSpace's errors, warnings or hostnames hold binary data "
                           "(the file may be corrupted); shown as text"),
            binaryAt, 1});
    if (aggregated > 0)
        outcome.warnings.append(ImportWarning{
            QStringLiteral("%1 aggregated events (a count without a time) are counted in the "
                           "source's metadata, not drawn")
                .arg(aggregated),
            -1, aggregated});
    if (noMetadata > 0)
        outcome.warnings.append(ImportWarning{
            QStringLiteral("%1 event kinds have no metadata in their plane; their events are named "
                           "'event ID'")
                .arg(noMetadata),
            -1, noMetadata});
    if (unknown.count > 0)
        outcome.warnings.append(
            ImportWarning{QStringLiteral("%1 fields that XPlane does not define were skipped (the "
                                         "first: %2 at byte %3); the file may be "
                                         "damaged, or written by a newer TensorFlow")
                              .arg(unknown.count)
                              .arg(unknown.first)
                              .arg(unknown.firstOffset),
                          unknown.firstOffset, unknown.count});
    return outcome;
}

} // namespace gml
