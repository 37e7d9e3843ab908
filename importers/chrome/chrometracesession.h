// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the Chrome trace importer: one import's state (Session), read event by event
// from ChromeTraceReader (chrometraceevents.cpp), then linked and named when the file ends
// (chrometraceimporter.cpp).

#include "chromememory.h"
#include "chrometracereader.h"
#include "importer.h"
#include "inputstream.h"

#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace gml::chrometrace {

using json::Value;

inline bool oneOf(std::string_view s, std::initializer_list<std::string_view> list)
{
    return std::find(list.begin(), list.end(), s) != list.end();
}

// GPU-side categories of Kineto (current and 2021 spellings).
inline bool isGpuCategory(std::string_view cat)
{
    return oneOf(cat, {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
                       "Kernel", "Memcpy", "Memset", "gpu_instant_event"});
}
// GPU work a runtime call launches.
inline bool isLaunchedWork(std::string_view cat)
{
    return oneOf(cat, {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"});
}
inline bool isRuntimeCategory(std::string_view cat)
{
    return oneOf(cat, {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "privateuse1_runtime",
                       "privateuse1_driver"});
}
inline bool isCpuOpCategory(std::string_view cat)
{
    return oneOf(cat, {"cpu_op", "Operator"});
}
inline bool isLaunchFlowCategory(std::string_view cat)
{
    return oneOf(cat, {"ac2g", "async_cpu_to_gpu", "async"});
}

inline std::string keyText(const Value &v)
{
    if (v.isString())
        return json::unescape(v);
    if (v.isMissing())
        return {};
    return std::string(v.raw());
}

// The value of a decimal integer id (a pid, tid or device), or nothing when the text is not
// one or does not fit in 64 bits ("9223372036854775808" is a name, not a number).
inline std::optional<qint64> integerId(const std::string &s)
{
    qint64 v = 0;
    const char *end = s.data() + s.size();
    const auto [p, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc() || p != end || s[0] == '+')
        return std::nullopt;
    return v;
}

inline QString q(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// An integer argument of the event (kNoId when absent or not an integer).
inline qint64 argInt(const TraceEventView &ev, std::string_view key)
{
    if (!ev.argMembers)
        return kNoId;
    if (const Value *v = ev.arg(key))
        if (auto x = json::toInt64(*v))
            return *x;
    return kNoId;
}

struct SliceRef
{
    TimeNs start;
    TimeNs end;
    SliceId id;
};

struct OpenSlice
{
    TimeNs ts;
    std::string name;
    std::string cat;
    std::string args;
    qint64 correlation;
    qint64 externalId;
    qint64 offset;
};

struct ThreadState
{
    TrackId track = 0;
    std::string pid;
    std::string tid;
    bool gpu = false;
    std::vector<OpenSlice> stack; // open B events
    std::vector<SliceRef> slices; // for binding flow events
    TimeNs maxEnd = std::numeric_limits<TimeNs>::min();
};

struct ProcessState
{
    TrackId track = 0;
    std::string pid;
    bool gpu = false;
};

struct ProcessMeta
{
    std::string name;
    std::string labels;
    qint64 sortIndex = kNoId;
    qint64 offset = -1;
};

struct ThreadMeta
{
    std::string name;
    qint64 sortIndex = kNoId;
};

// Which flow events belong together: Chrome pairs them by category and id (or, for flow v2
// on X events, by bind_id alone). Ids that are exact integers (Kineto's correlation ids) are
// kept as numbers; any other id text is numbered in Session::m_flowTextIds.
struct FlowKey
{
    enum : quint8 { Number, Text, Bind, BindText };
    quint32 category; // index into Session::m_flowCategories; 0 for Bind keys
    quint8 kind;
    qint64 id;
    auto operator<=>(const FlowKey &) const = default;
};

// One s/t/f point, 48 bytes (a 256 MB trace holds half a million at the parse's peak): its
// key's fields flat, and the slice it is bound to already (flow v2 on an X event) or else the
// thread to bind it on, never both.
struct FlowPoint
{
    FlowPoint(const FlowKey &key, char phase, bool enclosing, quint32 category, quint32 seq,
              ThreadState *thread, TimeNs ts, SliceId direct, qint64 offset)
        : id(key.id), ts(ts), offset(offset), keyCategory(key.category), category(category),
          seq(seq), kind(key.kind), phase(phase), enclosing(enclosing), isDirect(direct != 0)
    {
        if (isDirect)
            to.direct = direct;
        else
            to.thread = thread;
    }
    FlowKey key() const { return FlowKey{keyCategory, kind, id}; }
    SliceId direct() const { return isDirect ? to.direct : 0; }
    ThreadState *thread() const { return isDirect ? nullptr : to.thread; }

    qint64 id; // the key's
    TimeNs ts;
    qint64 offset;
    union {
        SliceId direct;
        ThreadState *thread;
    } to;
    quint32 keyCategory; // the key's
    quint32 category;    // the event's own category (index into Session::m_flowCategories)
    quint32 seq;         // order in the file, the last tie-breaker
    quint8 kind;         // the key's
    char phase;          // 's', 't', 'f'
    bool enclosing;
    bool isDirect;
};
static_assert(sizeof(FlowPoint) == 48);

class Session final : public ChromeTraceReader::Handler
{
public:
    Session(ImportContext &ctx, InputStream &in) : m_ctx(ctx), m_in(in), m_w(*ctx.writer) {}

    void topLevel(std::string_view key, std::string_view raw, qint64 offset) override;
    void event(const TraceEventView &ev) override;
    void warning(qint64 offset, const QString &message) override
    {
        m_warnings.add(message, offset, message);
    }
    bool progress(qint64 pos) override
    {
        if (!m_ctx.progress)
            return true;
        return m_ctx.progress(m_ctx.fileSize > 0 ? double(pos) / double(m_ctx.fileSize) : 0.0);
    }

    bool finish(QString *error);
    // Where the first of them is and how many, when every event read was an empty '{}'.
    std::optional<std::pair<qint64, qint64>> onlyEmptyEvents() const
    {
        return m_events == 0 && m_emptyEvents > 0
                   ? std::optional(std::pair{m_firstEmpty, m_emptyEvents})
                   : std::nullopt;
    }
    QList<ImportWarning> warnings() const { return m_warnings.list(); }

private:
    ThreadState *thread(const Value &pid, const Value &tid, bool gpu);
    ProcessState *process(const std::string &pid, bool gpu);
    TrackId auxTrack(const std::string &key, TrackId parent, TrackKind kind, const QString &name,
                     const QString &unit = {}, qint64 sortKey = 0);
    StringId internText(const Value &v, qint64 offset, const char *what);
    // A name kept from an earlier event (B, async b): checked and interned like one read now.
    StringId internName(const std::string &name, qint64 offset)
    {
        const Value v{Value::Type::String, false, name.data(), name.size(), offset};
        return internText(v, offset, "name");
    }
    // The event's args for the writer: split into the members the reader found (valid UTF-8),
    // or as text (repaired, or none).
    slicestore::SliceArgs checkedArgs(const TraceEventView &ev);
    // What a category says, worked out once per distinct category of the file (a file has a
    // dozen; each complete event compared its category with five lists and interned it).
    struct Category
    {
        std::string text;
        StringId id = 0; // 0: the empty category; kNotInterned until its first slice
        bool gpu = false;
        bool runtime = false;       // its events launch GPU work (isRuntimeCategory)
        bool launched = false;      // GPU work a runtime call launches (isLaunchedWork)
        bool sync = false;          // cuda_sync
        bool cpuOp = false;         // an operator (isCpuOpCategory)
        bool gpuAnnotation = false; // gpu_user_annotation
    };
    static constexpr StringId kNotInterned = -1;
    Category &category(std::string_view cat);
    SliceId addSlice(ThreadState *t, TimeNs ts, TimeNs dur, StringId name, std::string_view cat,
                     qint64 corr, qint64 ext, const slicestore::SliceArgs &args);
    SliceId addSlice(ThreadState *t, TimeNs ts, TimeNs dur, StringId name, Category &cat,
                     qint64 corr, qint64 ext, const slicestore::SliceArgs &args);
    void handleComplete(const TraceEventView &ev, TimeNs ts);
    void handleBegin(const TraceEventView &ev, TimeNs ts);
    void handleEnd(const TraceEventView &ev, TimeNs ts);
    void handleInstant(const TraceEventView &ev, TimeNs ts);
    void collectMemory(const TraceEventView &ev, TimeNs ts);
    void writeMemory();
    void handleCounter(const TraceEventView &ev, TimeNs ts);
    void handleMetadata(const TraceEventView &ev);
    void handleFlow(const TraceEventView &ev, TimeNs ts, char phase);
    void handleAsync(const TraceEventView &ev, TimeNs ts, char phase);
    void linkCorrelations();
    void linkFlows();
    void nameTracks();
    // The rank a process's labels name ("rank 3"), when the file names none; -1 else.
    int labelledRank(const std::string &pid) const;
    static SliceId bind(ThreadState *t, TimeNs ts, bool enclosing);
    quint32 flowCategory(std::string_view cat);
    FlowKey flowKey(quint32 category, const Value &id, bool bind);

    ImportContext &m_ctx;
    InputStream &m_in;
    TraceWriter &m_w;
    WarningLog m_warnings;

    std::unordered_map<std::string, std::unique_ptr<ThreadState>> m_threads;
    std::unordered_map<std::string, std::unique_ptr<ProcessState>> m_cpuProcesses;
    std::unordered_map<std::string, std::unique_ptr<ProcessState>> m_gpuProcesses;
    std::unordered_map<std::string, TrackId> m_auxTracks;
    std::unordered_map<std::string, ProcessMeta> m_processMeta;
    std::unordered_map<std::string, ThreadMeta> m_threadMeta;
    ThreadState *m_lastThread = nullptr;
    qint64 m_events = 0, m_emptyEvents = 0, m_firstEmpty = -1; // events read; "{}" among them
    std::string m_lastPidRaw;
    std::string m_lastTidRaw;
    Value::Type m_lastPidType = Value::Type::Missing;
    Value::Type m_lastTidType = Value::Type::Missing;
    bool m_lastGpu = false;

    std::vector<std::pair<qint64, SliceId>> m_runtimeByCorr;
    std::vector<std::tuple<qint64, SliceId, bool>> m_gpuByCorr; // bool: a cuda_sync event
    std::vector<qint64>
        m_linkedCorrelations; // launch/sync edges made from correlation ids (sorted)
    std::vector<std::pair<qint64, SliceId>> m_opByExt;
    std::vector<std::pair<qint64, SliceId>> m_gpuByExt;
    std::vector<FlowPoint> m_flows; // every s/t/f point, grouped by FlowKey in linkFlows()
    std::vector<std::string> m_flowCategories{std::string()};
    std::unordered_map<std::string, qint64> m_flowTextIds;
    std::unordered_map<std::string, std::vector<OpenSlice>> m_async;
    std::unordered_map<std::string, TrackId> m_asyncTrackOf; // async key -> track
    MemoryCounters m_memory;

    qint64 m_baseTimeNs = 0;
    bool m_hasBaseTime = false;
    int m_rank = -1;
    QJsonObject m_metadata;
    std::map<qint64, QString> m_deviceNames;
    std::string m_scratch;
    std::vector<slicestore::ArgMember> m_argSplit; // checkedArgs: the members of the last args
    std::vector<Category> m_categories; // category(): found by a scan (kMaxCategories kept)
    Category m_otherCategory;           // one not kept
    static constexpr size_t kMaxCategories = 64;
};

} // namespace gml::chrometrace
