// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometraceimporter.h"

#include "chrometracereader.h"
#include "inputstream.h"
#include "tfcapture.h"

#include <QFileInfo>
#include <QTimeZone>
#include <QRegularExpression>
#include <QDir>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

namespace gml {

using json::Value;

namespace {

bool oneOf(std::string_view s, std::initializer_list<std::string_view> list)
{
    return std::find(list.begin(), list.end(), s) != list.end();
}

// GPU-side categories of Kineto (current and 2021 spellings).
bool isGpuCategory(std::string_view cat)
{
    return oneOf(cat, {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
                       "Kernel", "Memcpy", "Memset", "gpu_instant_event"});
}
// GPU work a runtime call launches.
bool isLaunchedWork(std::string_view cat)
{
    return oneOf(cat, {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"});
}
bool isRuntimeCategory(std::string_view cat)
{
    return oneOf(cat, {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "privateuse1_runtime",
                       "privateuse1_driver"});
}
bool isCpuOpCategory(std::string_view cat)
{
    return oneOf(cat, {"cpu_op", "Operator"});
}
bool isLaunchFlowCategory(std::string_view cat)
{
    return oneOf(cat, {"ac2g", "async_cpu_to_gpu", "async"});
}

std::string keyText(const Value &v)
{
    if (v.isString())
        return json::unescape(v);
    if (v.isMissing())
        return {};
    return std::string(v.raw());
}

// The value of a decimal integer id (a pid, tid or device), or nothing when the text is not
// one or does not fit in 64 bits ("9223372036854775808" is a name, not a number).
std::optional<qint64> integerId(const std::string &s)
{
    qint64 v = 0;
    const char *end = s.data() + s.size();
    const auto [p, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc() || p != end || s[0] == '+')
        return std::nullopt;
    return v;
}

QString q(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
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

struct FlowPoint
{
    FlowKey key;
    char phase; // 's', 't', 'f'
    bool enclosing;
    quint32 category; // the event's own category (index into Session::m_flowCategories)
    quint32 seq;      // order in the file, the last tie-breaker
    ThreadState *thread;
    TimeNs ts;
    SliceId direct; // already bound (flow v2 on an X event), else 0
    qint64 offset;
};

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
    QList<ImportWarning> warnings() const { return m_warnings.list(); }

private:
    ThreadState *thread(const Value &pid, const Value &tid, bool gpu);
    ProcessState *process(const std::string &pid, bool gpu);
    TrackId auxTrack(const std::string &key, TrackId parent, TrackKind kind, const QString &name,
                     const QString &unit = {});
    StringId internText(const Value &v, qint64 offset, const char *what);
    // A name kept from an earlier event (B, async b): checked and interned like one read now.
    StringId internName(const std::string &name, qint64 offset)
    {
        const Value v{Value::Type::String, false, name.data(), name.size(), offset};
        return internText(v, offset, "name");
    }
    std::string_view checkedArgs(const TraceEventView &ev);
    SliceId addSlice(ThreadState *t, TimeNs ts, TimeNs dur, StringId name, std::string_view cat,
                     qint64 corr, qint64 ext, std::string_view args);
    void handleComplete(const TraceEventView &ev, TimeNs ts);
    void handleBegin(const TraceEventView &ev, TimeNs ts);
    void handleEnd(const TraceEventView &ev, TimeNs ts);
    void handleInstant(const TraceEventView &ev, TimeNs ts);
    void handleCounter(const TraceEventView &ev, TimeNs ts);
    void handleMetadata(const TraceEventView &ev);
    void handleFlow(const TraceEventView &ev, TimeNs ts, char phase);
    void handleAsync(const TraceEventView &ev, TimeNs ts, char phase);
    void linkCorrelations();
    void linkFlows();
    void nameTracks();
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
    std::string m_lastPidRaw;
    std::string m_lastTidRaw;
    Value::Type m_lastPidType = Value::Type::Missing;
    Value::Type m_lastTidType = Value::Type::Missing;
    bool m_lastGpu = false;

    std::vector<std::pair<qint64, SliceId>> m_runtimeByCorr;
    std::vector<std::tuple<qint64, SliceId, bool>> m_gpuByCorr; // bool: a cuda_sync event
    std::vector<qint64> m_linkedCorrelations; // launch/sync edges made from correlation ids (sorted)
    std::vector<std::pair<qint64, SliceId>> m_opByExt;
    std::vector<std::pair<qint64, SliceId>> m_gpuByExt;
    std::vector<FlowPoint> m_flows; // every s/t/f point, grouped by FlowKey in linkFlows()
    std::vector<std::string> m_flowCategories{std::string()};
    std::unordered_map<std::string, qint64> m_flowTextIds;
    std::unordered_map<std::string, std::vector<OpenSlice>> m_async;
    std::unordered_map<std::string, TrackId> m_asyncTrackOf; // async key -> track

    qint64 m_baseTimeNs = 0;
    bool m_hasBaseTime = false;
    int m_rank = -1;
    QJsonObject m_metadata;
    std::map<qint64, QString> m_deviceNames;
    std::string m_scratch;
};

void Session::topLevel(std::string_view key, std::string_view raw, qint64 offset)
{
    const QString k = QString::fromUtf8(key.data(), qsizetype(key.size()));
    QJsonParseError err;
    const QByteArray bytes(raw.data(), qsizetype(raw.size()));
    const QJsonDocument doc = QJsonDocument::fromJson("[" + bytes + "]", &err);
    if (err.error != QJsonParseError::NoError) {
        m_warnings.add(QStringLiteral("bad top-level value"), offset,
                       QStringLiteral("top-level key '%1' holds invalid JSON (%2); ignored")
                           .arg(k, err.errorString()));
        return;
    }
    const QJsonValue v = doc.array().first();
    m_metadata.insert(k, v);
    if (k == QLatin1String("baseTimeNanoseconds")) {
        json::Value num{Value::Type::Number, false, raw.data(), raw.size(), offset};
        if (auto ns = json::toInt64(num)) {
            m_baseTimeNs = *ns;
            m_hasBaseTime = true;
        }
    } else if (k == QLatin1String("distributedInfo") && v.isObject()) {
        const auto o = v.toObject();
        if (o.contains(QStringLiteral("rank")))
            m_rank = o.value(QStringLiteral("rank")).toInt(-1);
    } else if (k == QLatin1String("deviceProperties") && v.isArray()) {
        for (const auto &d : v.toArray()) {
            const auto o = d.toObject();
            m_deviceNames[o.value(QStringLiteral("id")).toInteger(-1)] =
                o.value(QStringLiteral("name")).toString();
        }
    }
}

ProcessState *Session::process(const std::string &pid, bool gpu)
{
    auto &map = gpu ? m_gpuProcesses : m_cpuProcesses;
    auto &slot = map[pid];
    if (!slot) {
        slot = std::make_unique<ProcessState>();
        slot->pid = pid;
        slot->gpu = gpu;
        TrackSpec spec;
        spec.kind = gpu ? TrackKind::Gpu : TrackKind::Process;
        spec.name = (gpu ? QStringLiteral("GPU ") : QStringLiteral("pid ")) + q(pid);
        spec.pid = q(pid);
        spec.rank = m_rank;
        slot->track = m_w.addTrack(spec);
    }
    return slot.get();
}

ThreadState *Session::thread(const Value &pidV, const Value &tidV, bool gpu)
{
    // Fast path: events of one thread come in runs; compare the raw pid/tid text (and the
    // GPU/CPU kind) with the previous event's before building a key.
    if (m_lastThread && m_lastGpu == gpu && pidV.raw() == m_lastPidRaw && tidV.raw() == m_lastTidRaw &&
        pidV.type == m_lastPidType && tidV.type == m_lastTidType)
        return m_lastThread;
    m_scratch = keyText(pidV);
    m_scratch += '\x1f';
    m_scratch += keyText(tidV);
    auto &slot = m_threads[m_scratch];
    if (!slot) {
        slot = std::make_unique<ThreadState>();
        slot->pid = keyText(pidV);
        slot->tid = keyText(tidV);
        slot->gpu = gpu;
        ProcessState *p = process(slot->pid, gpu);
        TrackSpec spec;
        spec.parent = p->track;
        spec.kind = gpu ? TrackKind::Stream : TrackKind::Thread;
        spec.name = (gpu ? QStringLiteral("stream ") : QStringLiteral("thread ")) + q(slot->tid);
        spec.pid = q(slot->pid);
        spec.tid = q(slot->tid);
        spec.rank = m_rank;
        slot->track = m_w.addTrack(spec);
    }
    m_lastPidRaw.assign(pidV.raw());
    m_lastTidRaw.assign(tidV.raw());
    m_lastPidType = pidV.type;
    m_lastTidType = tidV.type;
    m_lastGpu = gpu;
    m_lastThread = slot.get();
    return m_lastThread;
}

TrackId Session::auxTrack(const std::string &key, TrackId parent, TrackKind kind,
                          const QString &name, const QString &unit)
{
    auto it = m_auxTracks.find(key);
    if (it != m_auxTracks.end())
        return it->second;
    TrackSpec spec;
    spec.parent = parent;
    spec.kind = kind;
    spec.name = name;
    spec.unit = unit;
    spec.rank = m_rank;
    const TrackId id = m_w.addTrack(spec);
    m_auxTracks.emplace(key, id);
    return id;
}

StringId Session::internText(const Value &v, qint64 offset, const char *what)
{
    if (!v.isString()) {
        if (v.isMissing())
            return m_w.intern({});
        return m_w.intern(v.raw()); // a number used as a name
    }
    if (!v.escaped) {
        if (json::findInvalidUtf8(v.data, v.size) < 0)
            return m_w.intern(v.raw());
    }
    std::string s = json::unescape(v);
    if (const qint64 bad = json::findInvalidUtf8(s.data(), s.size()); bad >= 0) {
        m_warnings.add(QStringLiteral("utf8:") + QLatin1String(what), v.offset,
                       QStringLiteral("invalid UTF-8 in an event's %1 at byte %2 (replaced "
                                      "with U+FFFD)")
                           .arg(QLatin1String(what))
                           .arg(v.offset + 1 + bad)); // +1: the opening quote
        s = json::repairUtf8(s);
    }
    return m_w.intern(s);
}

std::string_view Session::checkedArgs(const TraceEventView &ev)
{
    if (ev.args.type != Value::Type::Object || ev.args.size <= 2)
        return {};
    if (const qint64 bad = json::findInvalidUtf8(ev.args.data, ev.args.size); bad >= 0) {
        m_warnings.add(QStringLiteral("utf8:args"), ev.args.offset + bad,
                       QStringLiteral("invalid UTF-8 in an event's args at byte %1 (replaced "
                                      "with U+FFFD)")
                           .arg(ev.args.offset + bad));
        m_scratch = json::repairUtf8(ev.args.raw());
        return m_scratch;
    }
    return ev.args.raw();
}

SliceId Session::addSlice(ThreadState *t, TimeNs ts, TimeNs dur, StringId name,
                          std::string_view cat, qint64 corr, qint64 ext, std::string_view args)
{
    const StringId catId = cat.empty() ? 0 : m_w.intern(cat);
    const SliceId id = m_w.addSlice(t->track, ts, dur, name, catId, corr, ext, args);
    if (!id)
        return 0; // outside the time limits: warned by the writer
    t->slices.push_back({ts, ts + dur, id});
    t->maxEnd = std::max(t->maxEnd, ts + dur);
    if (corr != kNoId) {
        if (isRuntimeCategory(cat))
            m_runtimeByCorr.emplace_back(corr, id);
        else if (isLaunchedWork(cat) || cat == "cuda_sync")
            m_gpuByCorr.emplace_back(corr, id, cat == "cuda_sync");
    }
    if (ext != kNoId) {
        if (isCpuOpCategory(cat))
            m_opByExt.emplace_back(ext, id);
        else if (isLaunchedWork(cat) || cat == "gpu_user_annotation")
            m_gpuByExt.emplace_back(ext, id);
    }
    return id;
}

static qint64 argInt(const TraceEventView &ev, std::string_view key)
{
    if (!ev.argMembers)
        return kNoId;
    if (const Value *v = ev.arg(key))
        if (auto x = json::toInt64(*v))
            return *x;
    return kNoId;
}

static qint64 externalIdOf(const TraceEventView &ev)
{
    const qint64 ext = argInt(ev, "External id");
    return ext != kNoId ? ext : argInt(ev, "external id");
}

void Session::handleComplete(const TraceEventView &ev, TimeNs ts)
{
    TimeNs dur = 0;
    if (!ev.dur.isMissing()) {
        auto d = json::microsToNanos(ev.dur);
        if (!d) {
            m_warnings.add(QStringLiteral("dur nan"), ev.offset,
                           QStringLiteral("event at byte %1 has a %2 'dur' (expected "
                                          "microseconds); event skipped")
                               .arg(ev.offset)
                               .arg(ev.dur.type == json::Value::Type::Number
                                        ? QStringLiteral("out-of-range")
                                        : QStringLiteral("non-numeric")));
            return;
        }
        if (*d < 0) {
            m_warnings.add(QStringLiteral("dur negative"), ev.offset,
                           QStringLiteral("event at byte %1 has a negative 'dur' (%2 µs); "
                                          "expected a duration >= 0; event skipped")
                               .arg(ev.offset)
                               .arg(QString::fromUtf8(ev.dur.data, qsizetype(ev.dur.size))));
            return;
        }
        dur = *d;
    }
    const std::string_view cat = ev.cat.isString() ? ev.cat.raw() : std::string_view{};
    ThreadState *t = thread(ev.pid, ev.tid, isGpuCategory(cat));
    const StringId name = internText(ev.name, ev.offset, "name");
    const qint64 corr = argInt(ev, "correlation");
    const qint64 ext = externalIdOf(ev);
    const SliceId id = addSlice(t, ts, dur, name, cat, corr, ext, checkedArgs(ev));
    if ((ev.flowOut || ev.flowIn) && !ev.bindId.isMissing()) {
        const quint32 category = flowCategory(cat);
        m_flows.push_back(FlowPoint{flowKey(0, ev.bindId, true), ev.flowOut ? 's' : 'f', true,
                                    category, quint32(m_flows.size()), t, ts, id, ev.offset});
    }
}

void Session::handleBegin(const TraceEventView &ev, TimeNs ts)
{
    const std::string cat = keyText(ev.cat);
    ThreadState *t = thread(ev.pid, ev.tid, isGpuCategory(cat));
    OpenSlice open{ts, {}, cat, std::string(checkedArgs(ev)), argInt(ev, "correlation"),
                   externalIdOf(ev), ev.offset};
    open.name = ev.name.isString() ? json::unescape(ev.name) : keyText(ev.name);
    t->stack.push_back(std::move(open));
}

void Session::handleEnd(const TraceEventView &ev, TimeNs ts)
{
    const std::string_view cat = ev.cat.isString() ? ev.cat.raw() : std::string_view{};
    ThreadState *t = thread(ev.pid, ev.tid, isGpuCategory(cat));
    if (t->stack.empty()) {
        m_warnings.add(QStringLiteral("E without B"), ev.offset,
                       QStringLiteral("'E' event at byte %1 has no open 'B' on its thread; "
                                      "event skipped")
                           .arg(ev.offset));
        return;
    }
    OpenSlice open = std::move(t->stack.back());
    t->stack.pop_back();
    if (ts < open.ts) {
        m_warnings.add(QStringLiteral("E before B"), ev.offset,
                       QStringLiteral("'E' event at byte %1 ends before its 'B' at byte %2 "
                                      "began; the slice is kept with duration 0")
                           .arg(ev.offset)
                           .arg(open.offset));
        ts = open.ts;
    }
    const StringId name = internName(open.name, open.offset);
    std::string_view args = open.args;
    if (args.empty())
        args = checkedArgs(ev);
    addSlice(t, open.ts, ts - open.ts, name, open.cat, open.correlation, open.externalId, args);
}

void Session::handleInstant(const TraceEventView &ev, TimeNs ts)
{
    const std::string_view cat = ev.cat.isString() ? ev.cat.raw() : std::string_view{};
    const StringId name = internText(ev.name, ev.offset, "name");
    const char scope = ev.s.isString() && ev.s.size > 0 ? ev.s.data[0] : 't';
    if (scope == 'g') {
        const TrackId track = auxTrack("global", 0, TrackKind::Thread,
                                       QStringLiteral("global instant events"));
        m_w.addSlice(track, ts, 0, name, cat.empty() ? 0 : m_w.intern(cat), kNoId, kNoId,
                     checkedArgs(ev));
        return;
    }
    if (scope == 'p') {
        const std::string pid = keyText(ev.pid);
        ProcessState *p = process(pid, false);
        const TrackId track = auxTrack("pinst\x1f" + pid, p->track, TrackKind::Thread,
                                       QStringLiteral("process instant events"));
        m_w.addSlice(track, ts, 0, name, cat.empty() ? 0 : m_w.intern(cat), kNoId, kNoId,
                     checkedArgs(ev));
        return;
    }
    ThreadState *t = thread(ev.pid, ev.tid, isGpuCategory(cat));
    addSlice(t, ts, 0, name, cat, kNoId, kNoId, checkedArgs(ev));
}

void Session::handleCounter(const TraceEventView &ev, TimeNs ts)
{
    const std::string pid = keyText(ev.pid);
    std::string name = ev.name.isString() ? json::unescape(ev.name) : keyText(ev.name);
    if (!ev.id.isMissing())
        name += " " + keyText(ev.id);
    ProcessState *p = process(pid, false);
    bool any = false;
    for (const auto &m : *ev.argMembers) {
        auto value = json::toDouble(m.value);
        if (!value || m.value.type != Value::Type::Number) {
            m_warnings.add(QStringLiteral("counter value"), ev.offset,
                           QStringLiteral("counter event at byte %1 has a non-numeric value for "
                                          "'%2'; that series sample is skipped")
                               .arg(ev.offset)
                               .arg(QString::fromUtf8(m.key.data(), qsizetype(m.key.size()))));
            continue;
        }
        const std::string series(m.key);
        const std::string trackName =
            (series == "value" || series == name) ? name : name + " " + series;
        const TrackId track = auxTrack("counter\x1f" + pid + '\x1f' + trackName, p->track,
                                       TrackKind::Counter, q(trackName));
        m_w.addCounter(track, ts, *value);
        any = true;
    }
    if (!any && ev.argMembers->empty())
        m_warnings.add(QStringLiteral("counter empty"), ev.offset,
                       QStringLiteral("counter event at byte %1 has no values in args; skipped")
                           .arg(ev.offset));
}

void Session::handleMetadata(const TraceEventView &ev)
{
    const std::string kind = keyText(ev.name);
    const std::string pid = keyText(ev.pid);
    auto argText = [&](std::string_view key) -> std::string {
        const Value *v = ev.arg(key);
        return v ? keyText(*v) : std::string();
    };
    if (kind == "process_name" || kind == "process_labels" || kind == "process_sort_index") {
        auto &meta = m_processMeta[pid];
        if (meta.offset < 0)
            meta.offset = ev.offset;
        if (kind == "process_name")
            meta.name = argText("name");
        else if (kind == "process_labels")
            meta.labels = argText("labels");
        else
            meta.sortIndex = argInt(ev, "sort_index");
    } else if (kind == "thread_name" || kind == "thread_sort_index") {
        auto &meta = m_threadMeta[pid + '\x1f' + keyText(ev.tid)];
        if (kind == "thread_name")
            meta.name = argText("name");
        else
            meta.sortIndex = argInt(ev, "sort_index");
    } else {
        m_warnings.add(QStringLiteral("M unknown"), ev.offset,
                       QStringLiteral("metadata event '%1' at byte %2 is not one of "
                                      "process_name/labels/sort_index, thread_name/sort_index; "
                                      "ignored")
                           .arg(q(kind))
                           .arg(ev.offset));
    }
}

quint32 Session::flowCategory(std::string_view cat)
{
    for (size_t i = 0; i < m_flowCategories.size(); ++i)
        if (m_flowCategories[i] == cat)
            return quint32(i);
    m_flowCategories.emplace_back(cat);
    return quint32(m_flowCategories.size() - 1);
}

FlowKey Session::flowKey(quint32 category, const Value &id, bool bind)
{
    std::string text;
    if (id.type == Value::Type::Object || id.type == Value::Type::Array)
        text = '\x02' + std::string(id.raw()); // id2 {"local": ...}, kept as written
    else
        text = keyText(id);
    if (auto n = slicestore::exactInteger(text))
        return FlowKey{category, bind ? FlowKey::Bind : FlowKey::Number, *n};
    auto [it, added] = m_flowTextIds.try_emplace(std::move(text), qint64(m_flowTextIds.size()));
    return FlowKey{category, bind ? FlowKey::BindText : FlowKey::Text, it->second};
}

void Session::handleFlow(const TraceEventView &ev, TimeNs ts, char phase)
{
    const quint32 category = flowCategory(keyText(ev.cat));
    FlowKey key;
    if (!ev.id.isMissing())
        key = flowKey(category, ev.id, false);
    else if (!ev.id2.isMissing())
        key = flowKey(category, ev.id2, false);
    else if (!ev.bindId.isMissing())
        key = flowKey(category, ev.bindId, false);
    else {
        m_warnings.add(QStringLiteral("flow without id"), ev.offset,
                       QStringLiteral("flow event at byte %1 has no 'id'; it cannot be linked "
                                      "and is skipped")
                           .arg(ev.offset));
        return;
    }
    ThreadState *t = thread(ev.pid, ev.tid, isGpuCategory(m_flowCategories[category]));
    // Chrome binds 's' and 't' to the enclosing slice, and 'f' to the next slice unless
    // bp is "e" (enclosing).
    const bool enclosing = phase != 'f' || ev.bp.equals("e");
    m_flows.push_back(FlowPoint{key, phase, enclosing, category, quint32(m_flows.size()), t, ts,
                                0, ev.offset});
}

void Session::handleAsync(const TraceEventView &ev, TimeNs ts, char phase)
{
    const std::string pid = keyText(ev.pid);
    const std::string cat = keyText(ev.cat);
    std::string key = pid + '\x1f' + cat + '\x1f';
    if (!ev.id.isMissing())
        key += keyText(ev.id);
    else if (!ev.id2.isMissing())
        key += std::string(ev.id2.raw());
    key += '\x1f' + keyText(ev.scope);
    std::string name = ev.name.isString() ? json::unescape(ev.name) : keyText(ev.name);
    ProcessState *p = process(pid, false);
    auto trackFor = [&](const std::string &trackName) {
        return auxTrack("async\x1f" + pid + '\x1f' + trackName, p->track, TrackKind::Async,
                        q(trackName));
    };
    if (phase == 'b') {
        m_async[key].push_back(OpenSlice{ts, name, cat, std::string(checkedArgs(ev)), kNoId,
                                         kNoId, ev.offset});
        return;
    }
    auto &open = m_async[key];
    if (phase == 'n') {
        const std::string trackName = open.empty() ? name : open.front().name;
        m_w.addSlice(trackFor(trackName), ts, 0, internName(name, ev.offset),
                     cat.empty() ? 0 : m_w.intern(cat), kNoId, kNoId, checkedArgs(ev));
        return;
    }
    if (open.empty()) {
        m_warnings.add(QStringLiteral("async e without b"), ev.offset,
                       QStringLiteral("async 'e' event at byte %1 has no open 'b' with the same "
                                      "category and id; skipped")
                           .arg(ev.offset));
        return;
    }
    OpenSlice b = std::move(open.back());
    open.pop_back();
    const std::string trackName = open.empty() ? b.name : open.front().name;
    m_w.addSlice(trackFor(trackName), b.ts, std::max<TimeNs>(0, ts - b.ts),
                 internName(b.name, b.offset), b.cat.empty() ? 0 : m_w.intern(b.cat), kNoId,
                 kNoId, b.args);
    if (open.empty())
        m_async.erase(key);
}

void Session::event(const TraceEventView &ev)
{
    if (ev.keyCount == 0)
        return; // "{}" padding, as the TF profiler and Kineto write at the end
    m_w.setPosition(ev.offset);
    if (!ev.ph.isString() || ev.ph.size == 0) {
        m_warnings.add(QStringLiteral("no ph"), ev.offset,
                       QStringLiteral("event at byte %1 has no 'ph' (phase) string; skipped")
                           .arg(ev.offset));
        return;
    }
    const char phase = ev.ph.data[0];
    if (phase == 'M') {
        handleMetadata(ev);
        return;
    }
    if (ev.ts.isMissing()) {
        m_warnings.add(QStringLiteral("no ts"), ev.offset,
                       QStringLiteral("event at byte %1 has no 'ts'; expected a timestamp in "
                                      "microseconds; skipped")
                           .arg(ev.offset));
        return;
    }
    const auto ts = json::microsToNanos(ev.ts);
    if (!ts) {
        const QString text = QString::fromUtf8(ev.ts.data, qsizetype(std::min<size_t>(ev.ts.size, 40)));
        if (ev.ts.type == json::Value::Type::Number)
            m_warnings.add(QStringLiteral("ts range"), ev.ts.offset,
                           QStringLiteral("event at byte %1 has a 'ts' out of range (%2 µs); "
                                          "expected microseconds within ±%3 (about 95 years "
                                          "from 1970); skipped")
                               .arg(ev.offset)
                               .arg(text)
                               .arg(kMaxAbsTimeNs / 1000));
        else
            m_warnings.add(QStringLiteral("ts nan"), ev.ts.offset,
                           QStringLiteral("event at byte %1 has a non-numeric 'ts' (%2); expected "
                                          "a number of microseconds; skipped")
                               .arg(ev.offset)
                               .arg(text));
        return;
    }
    switch (phase) {
    case 'X': handleComplete(ev, *ts); break;
    case 'B': handleBegin(ev, *ts); break;
    case 'E': handleEnd(ev, *ts); break;
    case 'i':
    case 'I':
    case 'R': handleInstant(ev, *ts); break;
    case 'C': handleCounter(ev, *ts); break;
    case 's':
    case 't':
    case 'f': handleFlow(ev, *ts, phase); break;
    case 'b':
    case 'e':
    case 'n': handleAsync(ev, *ts, phase); break;
    default:
        m_warnings.add(QStringLiteral("phase ") + QLatin1Char(phase), ev.offset,
                       QStringLiteral("events of phase '%1' are not supported (first at byte "
                                      "%2); skipped")
                           .arg(QLatin1Char(phase))
                           .arg(ev.offset));
    }
}

SliceId Session::bind(ThreadState *t, TimeNs ts, bool enclosing)
{
    const auto &v = t->slices;
    if (enclosing) {
        // The deepest slice containing ts: walking back from the last slice starting at or
        // before ts, the first that still contains ts (bounded walk).
        auto it = std::upper_bound(v.begin(), v.end(), ts,
                                   [](TimeNs x, const SliceRef &s) { return x < s.start; });
        SliceId instantAtTs = 0; // a zero-length slice at ts only if nothing spans ts
        for (int steps = 0; it != v.begin() && steps < 4096; ++steps) {
            --it;
            if (it->end > ts)
                return it->id;
            if (it->start == ts && !instantAtTs)
                instantAtTs = it->id;
        }
        return instantAtTs;
    }
    auto it = std::lower_bound(v.begin(), v.end(), ts,
                               [](const SliceRef &s, TimeNs x) { return s.start < x; });
    return it == v.end() ? 0 : it->id;
}

void Session::linkCorrelations()
{
    std::sort(m_runtimeByCorr.begin(), m_runtimeByCorr.end());
    qint64 unmatched = 0;
    for (const auto &[corr, gpu, isSync] : m_gpuByCorr) {
        auto it = std::lower_bound(m_runtimeByCorr.begin(), m_runtimeByCorr.end(),
                                   std::make_pair(corr, SliceId(0)));
        if (it == m_runtimeByCorr.end() || it->first != corr) {
            ++unmatched;
            continue;
        }
        if (isSync)
            m_w.addFlow(FlowKind::Sync, gpu, it->second);
        else
            m_w.addFlow(FlowKind::Launch, it->second, gpu);
        m_linkedCorrelations.push_back(corr);
    }
    std::sort(m_linkedCorrelations.begin(), m_linkedCorrelations.end());
    m_linkedCorrelations.erase(std::unique(m_linkedCorrelations.begin(), m_linkedCorrelations.end()),
                               m_linkedCorrelations.end());
    if (unmatched)
        m_warnings.add(QStringLiteral("corr unmatched"), -1,
                       QStringLiteral("%1 GPU events carry a correlation id that matches no "
                                      "runtime call in this file (launched before the capture "
                                      "window?); they have no launch edge")
                           .arg(unmatched));
    std::sort(m_opByExt.begin(), m_opByExt.end());
    for (const auto &[ext, gpu] : m_gpuByExt) {
        auto it = std::lower_bound(m_opByExt.begin(), m_opByExt.end(),
                                   std::make_pair(ext, SliceId(0)));
        if (it != m_opByExt.end() && it->first == ext)
            m_w.addFlow(FlowKind::CpuOpToGpu, it->second, gpu);
    }
}

void Session::linkFlows()
{
    for (auto &[key, t] : m_threads)
        std::sort(t->slices.begin(), t->slices.end(), [](const SliceRef &a, const SliceRef &b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
    qint64 dangling = 0;
    qint64 danglingOffset = -1;
    qint64 unbound = 0;
    qint64 unboundOffset = -1;
    auto phaseRank = [](char c) { return c == 's' ? 0 : c == 't' ? 1 : 2; };
    std::sort(m_flows.begin(), m_flows.end(), [&](const FlowPoint &a, const FlowPoint &b) {
        if (a.key != b.key)
            return a.key < b.key;
        if (a.ts != b.ts)
            return a.ts < b.ts;
        if (a.phase != b.phase)
            return phaseRank(a.phase) < phaseRank(b.phase);
        return a.seq < b.seq;
    });
    auto note = [](qint64 &count, qint64 &first, qint64 offset) {
        ++count;
        if (first < 0 || offset < first)
            first = offset;
    };
    for (size_t begin = 0, end; begin < m_flows.size(); begin = end) {
        const FlowKey key = m_flows[begin].key;
        for (end = begin + 1; end < m_flows.size() && m_flows[end].key == key; ++end) {
        }
        // Kineto's launch flows carry the correlation id as their id: when the correlation
        // already gave the launch edge, the flow pair adds nothing.
        const bool numericId = key.kind == FlowKey::Number || key.kind == FlowKey::Bind;
        const bool linkedById =
            numericId && std::binary_search(m_linkedCorrelations.begin(),
                                            m_linkedCorrelations.end(), key.id);
        SliceId current = 0;
        qint64 currentOffset = -1;
        for (size_t i = begin; i < end; ++i) {
            const FlowPoint &fp = m_flows[i];
            const SliceId bound = fp.direct ? fp.direct : bind(fp.thread, fp.ts, fp.enclosing);
            if (!bound)
                note(unbound, unboundOffset, fp.offset);
            if (fp.phase == 's') {
                if (current)
                    note(dangling, danglingOffset, currentOffset);
                current = bound;
                currentOffset = fp.offset;
                continue;
            }
            if (!current || !bound) {
                note(dangling, danglingOffset, fp.offset);
                current = fp.phase == 't' ? bound : 0;
                continue;
            }
            const std::string &category = m_flowCategories[fp.category];
            const FlowKind kind = isLaunchFlowCategory(category) ? FlowKind::Launch
                                  : category == "fwdbwd"         ? FlowKind::Sequence
                                                                 : FlowKind::TraceFlow;
            if (!(kind == FlowKind::Launch && linkedById))
                m_w.addFlow(kind, current, bound);
            current = fp.phase == 't' ? bound : 0;
            currentOffset = fp.offset;
        }
        if (current)
            note(dangling, danglingOffset, currentOffset);
    }
    if (unbound)
        m_warnings.add(QStringLiteral("flow unbound"), unboundOffset,
                       QStringLiteral("%1 flow events do not fall on any slice of their thread "
                                      "(first at byte %2); they link nothing")
                           .arg(unbound)
                           .arg(unboundOffset));
    if (dangling)
        m_warnings.add(QStringLiteral("flow dangling"), danglingOffset,
                       QStringLiteral("%1 flow events have no matching start or finish "
                                      "(first at byte %2; Kineto writes these for runtime calls "
                                      "that launch nothing); launch edges still come from "
                                      "correlation ids")
                           .arg(dangling)
                           .arg(danglingOffset));
}

void Session::nameTracks()
{
    const QString rankPrefix = m_rank >= 0 ? QStringLiteral("rank %1 · ").arg(m_rank) : QString();
    std::vector<std::string> unusedPids;
    qint64 unusedOffset = -1;
    for (const auto &[pid, meta] : m_processMeta) {
        if (!m_cpuProcesses.count(pid) && !m_gpuProcesses.count(pid)) {
            unusedPids.push_back(pid);
            if (unusedOffset < 0 || meta.offset < unusedOffset)
                unusedOffset = meta.offset;
        }
    }
    for (const auto &[pid, p] : m_cpuProcesses) {
        const auto meta = m_processMeta.count(pid) ? m_processMeta.at(pid) : ProcessMeta{};
        QString name = pid.empty() ? QStringLiteral("(no pid)") : QStringLiteral("pid ") + q(pid);
        if (!meta.name.empty())
            name = q(meta.name) + QStringLiteral(" (") + name + QLatin1Char(')');
        const auto number = integerId(pid);
        if (meta.name.empty() && !number && !pid.empty())
            name = q(pid);
        const qint64 sort = meta.sortIndex != kNoId ? meta.sortIndex : number.value_or(qint64(1) << 40);
        m_w.setTrackName(p->track, rankPrefix + name, sort);
    }
    for (const auto &[pid, p] : m_gpuProcesses) {
        const auto meta = m_processMeta.count(pid) ? m_processMeta.at(pid) : ProcessMeta{};
        QString name;
        qint64 sort = meta.sortIndex;
        if (const auto device = integerId(pid)) {
            const qint64 dev = *device;
            name = QStringLiteral("GPU %1").arg(dev);
            if (auto it = m_deviceNames.find(dev); it != m_deviceNames.end() && !it->second.isEmpty())
                name += QStringLiteral(" · ") + it->second;
            if (sort == kNoId) // GPUs after processes, in device order (a huge id sorts last)
                sort = (qint64(1) << 24) + std::clamp<qint64>(dev, 0, qint64(1) << 32);
        } else {
            name = q(pid);
            if (sort == kNoId)
                sort = qint64(1) << 24;
        }
        m_w.setTrackName(p->track, rankPrefix + name, sort);
    }
    for (const auto &[key, t] : m_threads) {
        const auto it = m_threadMeta.find(key);
        const ThreadMeta meta = it != m_threadMeta.end() ? it->second : ThreadMeta{};
        QString name;
        qint64 sort = meta.sortIndex;
        const auto tidNumber = integerId(t->tid);
        const bool numericTid = tidNumber.has_value();
        if (t->gpu) {
            if (t->tid == "-1")
                name = QStringLiteral("device-wide sync events");
            else if (numericTid)
                name = QStringLiteral("stream ") + q(t->tid);
            else
                name = q(t->tid).trimmed();
        } else {
            name = !meta.name.empty() ? q(meta.name).trimmed()
                   : numericTid       ? QStringLiteral("thread ") + q(t->tid)
                                      : q(t->tid);
            if (t->tid == t->pid && !name.contains(QStringLiteral("main")))
                name += QStringLiteral(" · main thread");
        }
        if (sort == kNoId)
            sort = t->tid == t->pid ? -1 : tidNumber.value_or(qint64(1) << 40);
        m_w.setTrackName(t->track, name, sort);
    }
    if (!unusedPids.empty()) {
        std::sort(unusedPids.begin(), unusedPids.end());
        QStringList shown;
        for (size_t i = 0; i < unusedPids.size() && i < 8; ++i)
            shown << q(unusedPids[i]);
        if (unusedPids.size() > 8)
            shown << QStringLiteral("…");
        m_warnings.add(QStringLiteral("M unknown pid"), unusedOffset,
                       QStringLiteral("metadata (M) events name %1 processes that have no events "
                                      "(pids %2); no tracks were made for them")
                           .arg(unusedPids.size())
                           .arg(shown.join(QStringLiteral(", "))));
    }
}

bool Session::finish(QString *error)
{
    // Close B events left open at the end of their track, as chrome://tracing does.
    for (auto &[key, t] : m_threads) {
        while (!t->stack.empty()) {
            OpenSlice open = std::move(t->stack.back());
            t->stack.pop_back();
            const TimeNs end = std::max(open.ts, t->maxEnd);
            m_warnings.add(QStringLiteral("B unmatched"), open.offset,
                           QStringLiteral("'B' event at byte %1 has no matching 'E'; closed at "
                                          "the end of its track")
                               .arg(open.offset));
            addSlice(t.get(), open.ts, end - open.ts, internName(open.name, open.offset),
                     open.cat, open.correlation, open.externalId, open.args);
        }
    }
    for (auto &[key, open] : m_async) {
        for (const auto &b : open)
            m_warnings.add(QStringLiteral("async b unmatched"), b.offset,
                           QStringLiteral("async 'b' event at byte %1 has no matching 'e'; "
                                          "skipped")
                               .arg(b.offset));
    }
    linkCorrelations();
    linkFlows();
    nameTracks();
    if (m_rank >= 0)
        m_w.setSourceRank(m_rank);
    if (m_hasBaseTime) {
        m_w.setClockOffset(m_baseTimeNs);
    } else if (const TimeNs first = m_w.earliest(); first < kRelativeTimeLimit) {
        // Times relative to the capture (TensorFlow profiler): place the capture by its folder.
        if (auto start = tensorflowCaptureStart(m_ctx.path, m_ctx.timeZone)) {
            m_w.setClockOffset(start->first);
            m_metadata.insert(QStringLiteral("time_placement"), start->second);
        }
    }
    m_w.setSourceMetadata(m_metadata);

    QJsonObject params;
    const QJsonObject dist = m_metadata.value(QStringLiteral("distributedInfo")).toObject();
    for (const auto &k : {QStringLiteral("backend"), QStringLiteral("world_size"),
                          QStringLiteral("nccl_version")})
        if (dist.contains(k))
            params.insert(k, dist.value(k));
    if (m_rank >= 0)
        params.insert(QStringLiteral("ranks"), QJsonArray{m_rank});
    QJsonArray models;
    for (const auto &[id, name] : m_deviceNames)
        if (!models.contains(name))
            models.append(name);
    if (!models.isEmpty())
        params.insert(QStringLiteral("gpu_models"), models);
    if (!params.isEmpty())
        m_w.mergeRunParams(params);
    if (m_w.failed()) {
        if (error)
            *error = m_w.errorString();
        return false;
    }
    return true;
}

} // namespace

QString ImportOutcome::describe(const QString &path) const
{
    if (errorOffset >= 0)
        return QStringLiteral("%1: at byte %2: %3").arg(path).arg(errorOffset).arg(error);
    return QStringLiteral("%1: %2").arg(path, error);
}

SniffResult ChromeTraceImporter::sniff(const QString &path, const QByteArray &head) const
{
    const QString lower = QFileInfo(path).fileName().toLower();
    const bool jsonName = lower.endsWith(QLatin1String(".json")) ||
                          lower.endsWith(QLatin1String(".json.gz"));
    qsizetype i = 0;
    if (head.startsWith("\xEF\xBB\xBF"))
        i = 3;
    while (i < head.size() && QChar::isSpace(uchar(head[i])))
        ++i;
    if (i < head.size() && head[i] == '[') {
        // A bare event array: '[' then '{' or ']'.
        qsizetype j = i + 1;
        while (j < head.size() && QChar::isSpace(uchar(head[j])))
            ++j;
        if (j >= head.size() || head[j] == '{' || head[j] == ']')
            return {90, {}};
    }
    if (i < head.size() && head[i] == '{') {
        if (head.contains("\"traceEvents\"") || head.contains("\"deviceProperties\"") ||
            head.contains("\"displayTimeUnit\""))
            return {95, {}};
        if (jsonName)
            return {0, QStringLiteral("JSON without a traceEvents array: not a trace format "
                                      "this version reads")};
    }
    // A file named like a trace whose content is not JSON, or is empty, is claimed so that
    // the import fails with a clear error instead of being skipped silently.
    if (jsonName && (i >= head.size() || (head[i] != '{' && head[i] != '[')))
        return {10, {}};
    return {0, {}};
}

ImportOutcome ChromeTraceImporter::import(ImportContext &ctx) const
{
    ImportOutcome out;
    InputStream in;
    if (!in.open(ctx.path)) {
        out.status = ImportOutcome::Status::Failed;
        out.error = QStringLiteral("cannot open: %1").arg(in.errorString());
        return out;
    }
    Session session(ctx, in);
    ChromeTraceReader reader(in, session);
    const auto status = reader.run();
    if (status == ChromeTraceReader::Status::Cancelled) {
        out.status = ImportOutcome::Status::Cancelled;
        out.error = QStringLiteral("cancelled");
        return out;
    }
    if (status == ChromeTraceReader::Status::Failed) {
        out.status = ImportOutcome::Status::Failed;
        out.errorOffset = reader.error().offset;
        out.error = reader.error().message;
        if (in.isCompressed())
            out.error += QStringLiteral(" (offset in the decompressed data)");
        return out;
    }
    QString error;
    if (!session.finish(&error)) {
        out.status = ImportOutcome::Status::Failed;
        out.error = QStringLiteral("could not write to the project: %1").arg(error);
        return out;
    }
    out.warnings = session.warnings();
    ctx.contentHash = in.wholeFileHash();
    return out;
}

} // namespace gml
