// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace importer's event handlers: each trace event (X, B/E, i, C, s/t/f, b/e/n)
// becomes slices, counters or flow points of the session (the metadata, M events and top-level
// keys: chrometracemetadata.cpp).
#include "chrometracesession.h"

#include "tfcapture.h"

#include <cmath>

namespace gml::chrometrace {

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
    if (m_lastThread && m_lastGpu == gpu && pidV.raw() == m_lastPidRaw &&
        tidV.raw() == m_lastTidRaw && pidV.type == m_lastPidType && tidV.type == m_lastTidType)
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
                          const QString &name, const QString &unit, qint64 sortKey)
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
    spec.sortKey = sortKey;
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

slicestore::SliceArgs Session::checkedArgs(const TraceEventView &ev)
{
    if (ev.args.type != Value::Type::Object || ev.args.size <= 2)
        return {};
    if (const qint64 bad = json::findInvalidUtf8(ev.args.data, ev.args.size); bad >= 0) {
        m_warnings.add(QStringLiteral("utf8:args"), ev.args.offset + bad,
                       QStringLiteral("invalid UTF-8 in an event's args at byte %1 (replaced "
                                      "with U+FFFD)")
                           .arg(ev.args.offset + bad));
        m_scratch = json::repairUtf8(ev.args.raw());
        return slicestore::SliceArgs(m_scratch);
    }
    if (!ev.argMembers)
        return ev.args.raw();
    m_argSplit.clear();
    for (const json::Member &m : *ev.argMembers) {
        const Value &v = m.value;
        // A string's text with its quotes, as the record keeps it (they are in the buffer).
        m_argSplit.push_back(
            {m.key, v.isString() ? std::string_view(v.data - 1, v.size + 2) : v.raw()});
    }
    return slicestore::SliceArgs(ev.args.raw(), m_argSplit);
}

Session::Category &Session::category(std::string_view cat)
{
    for (Category &c : m_categories)
        if (c.text == cat)
            return c;
    Category c;
    c.text = std::string(cat);
    c.id = cat.empty() ? 0 : kNotInterned; // interned where its first slice is added, as before
    c.gpu = isGpuCategory(cat);
    c.runtime = isRuntimeCategory(cat);
    c.launched = isLaunchedWork(cat);
    c.sync = cat == "cuda_sync";
    c.cpuOp = isCpuOpCategory(cat);
    c.gpuAnnotation = cat == "gpu_user_annotation";
    // Kept unless the file has very many, or it is one the writer cuts (and warns of, each
    // time it is interned): those are worked out each time. Never moved once kept.
    if (m_categories.size() < kMaxCategories && cat.size() <= kMaxNameBytes) {
        m_categories.reserve(kMaxCategories);
        m_categories.push_back(std::move(c));
        return m_categories.back();
    }
    m_otherCategory = std::move(c);
    return m_otherCategory;
}

SliceId Session::addSlice(ThreadState *t, TimeNs ts, TimeNs dur, StringId name,
                          std::string_view cat, qint64 corr, qint64 ext,
                          const slicestore::SliceArgs &args)
{
    return addSlice(t, ts, dur, name, category(cat), corr, ext, args);
}

SliceId Session::addSlice(ThreadState *t, TimeNs ts, TimeNs dur, StringId name, Category &cat,
                          qint64 corr, qint64 ext, const slicestore::SliceArgs &args)
{
    if (cat.id == kNotInterned)
        cat.id = m_w.intern(cat.text);
    const StringId catId = cat.id;
    if (&cat == &m_otherCategory)
        cat.id = kNotInterned; // not kept: interned each time
    const SliceId id = m_w.addSlice(t->track, ts, dur, name, catId, corr, ext, args);
    if (!id)
        return 0; // outside the time limits: warned by the writer
    t->slices.push_back({ts, ts + dur, id});
    t->maxEnd = std::max(t->maxEnd, ts + dur);
    if (corr != kNoId) {
        if (cat.runtime)
            m_runtimeByCorr.emplace_back(corr, id);
        else if (cat.launched || cat.sync)
            m_gpuByCorr.emplace_back(corr, id, cat.sync);
    }
    if (ext != kNoId) {
        if (cat.cpuOp)
            m_opByExt.emplace_back(ext, id);
        else if (cat.launched || cat.gpuAnnotation)
            m_gpuByExt.emplace_back(ext, id);
    }
    return id;
}

// The event's correlation and external id ("External id", or the 2021 format's "external id"),
// the first of each as argInt finds it, in one pass over the args (all three keys are 11 bytes).
struct EventIds
{
    qint64 correlation = kNoId;
    qint64 external = kNoId;
};
static EventIds idsOf(const TraceEventView &ev)
{
    const Value *corr = nullptr, *ext = nullptr, *extOld = nullptr;
    if (ev.argMembers) {
        for (const json::Member &m : *ev.argMembers) {
            if (m.key.size() != 11)
                continue;
            if (!corr && m.key == "correlation")
                corr = &m.value;
            else if (!ext && m.key == "External id")
                ext = &m.value;
            else if (!extOld && m.key == "external id")
                extOld = &m.value;
        }
    }
    auto toId = [](const Value *v) {
        if (v)
            if (auto x = json::toInt64(*v))
                return *x;
        return kNoId;
    };
    EventIds ids;
    ids.correlation = toId(corr);
    ids.external = toId(ext);
    if (ids.external == kNoId)
        ids.external = toId(extOld);
    return ids;
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
    Category &cat = category(ev.cat.isString() ? ev.cat.raw() : std::string_view{});
    ThreadState *t = thread(ev.pid, ev.tid, cat.gpu);
    const StringId name = internText(ev.name, ev.offset, "name");
    const EventIds ids = idsOf(ev);
    const SliceId id =
        addSlice(t, ts, dur, name, cat, ids.correlation, ids.external, checkedArgs(ev));
    if ((ev.flowOut || ev.flowIn) && !ev.bindId.isMissing()) {
        const quint32 category = flowCategory(cat.text);
        // Both ends at once: a step of the chain, which ends the flow in and starts the next.
        const char phase = ev.flowIn && ev.flowOut ? 't' : ev.flowOut ? 's' : 'f';
        m_flows.push_back(FlowPoint{flowKey(0, ev.bindId, true), phase, true, category,
                                    quint32(m_flows.size()), t, ts, id, ev.offset});
    }
}

void Session::handleBegin(const TraceEventView &ev, TimeNs ts)
{
    const std::string cat = keyText(ev.cat);
    ThreadState *t = thread(ev.pid, ev.tid, isGpuCategory(cat));
    const EventIds ids = idsOf(ev);
    OpenSlice open;
    open.ts = ts;
    open.cat = cat;
    open.args = std::string(checkedArgs(ev).json);
    open.correlation = ids.correlation;
    open.externalId = ids.external;
    open.offset = ev.offset;
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
    addSlice(t, open.ts, ts - open.ts, name, open.cat, open.correlation, open.externalId,
             open.args.empty() ? checkedArgs(ev) : slicestore::SliceArgs(open.args));
}

void Session::handleInstant(const TraceEventView &ev, TimeNs ts)
{
    const std::string_view cat = ev.cat.isString() ? ev.cat.raw() : std::string_view{};
    const StringId name = internText(ev.name, ev.offset, "name");
    if (ev.name.isString() && ev.name.raw() == "[memory]")
        collectMemory(ev, ts);
    const char scope = ev.s.isString() && ev.s.size > 0 ? ev.s.data[0] : 't';
    if (scope == 'g') {
        // Below the processes and GPUs (a few markers each; eight ranks' worth of them had
        // filled the first screen, issue 58).
        const TrackId track = auxTrack("global", 0, TrackKind::Thread,
                                       QStringLiteral("global instant events"), {}, 3'000'000);
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

void Session::collectMemory(const TraceEventView &ev, TimeNs ts)
{
    // The five values an allocation has, found in one pass over its args (the first member of
    // each name, as ev.arg() would find it).
    enum Field { Bytes, DeviceType, DeviceId, Allocated, Reserved, Fields };
    static constexpr std::string_view kKeys[Fields] = {"Bytes", "Device Type", "Device Id",
                                                       "Total Allocated", "Total Reserved"};
    const Value *found[Fields] = {};
    for (const auto &m : *ev.argMembers)
        for (int f = 0; f < Fields; ++f)
            if (!found[f] && m.key == kKeys[f]) {
                found[f] = &m.value;
                break;
            }
    auto number = [&](Field f) -> std::optional<double> {
        const Value *v = found[f];
        if (!v || v->type != Value::Type::Number)
            return std::nullopt;
        const auto d = json::toDouble(*v);
        return d && std::isfinite(*d) ? d : std::nullopt;
    };
    const auto bytes = number(Bytes);
    if (!bytes) {
        m_warnings.add(QStringLiteral("memory bytes"), ev.offset,
                       QStringLiteral("'[memory]' event at byte %1 has no numeric 'Bytes' in "
                                      "args; left out of the memory counters")
                           .arg(ev.offset));
        return;
    }
    MemoryEvent e;
    e.pid = keyText(ev.pid);
    e.deviceType = int(number(DeviceType).value_or(0));
    e.deviceId = int(number(DeviceId).value_or(-1));
    e.ts = ts;
    e.bytes = *bytes;
    e.totalAllocated = number(Allocated);
    e.totalReserved = number(Reserved);
    m_memory.add(std::move(e));
}

void Session::writeMemory()
{
    if (m_memory.empty())
        return;
    m_memory.write(m_w, m_rank, [&](const std::string &pid, int type, int id) {
        // A GPU's counters go under the trace's row for that GPU when it has one (Kineto's
        // GPU rows use the device index as pid), else under the process that allocated.
        if (type != 0 && id >= 0)
            if (const auto it = m_gpuProcesses.find(std::to_string(id)); it != m_gpuProcesses.end())
                return MemoryCounters::Parent{it->second->track, true};
        return MemoryCounters::Parent{process(pid, false)->track, false};
    });
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
    m_flows.push_back(
        FlowPoint{key, phase, enclosing, category, quint32(m_flows.size()), t, ts, 0, ev.offset});
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
        m_async[key].push_back(
            OpenSlice{ts, name, cat, std::string(checkedArgs(ev).json), kNoId, kNoId, ev.offset});
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
                 internName(b.name, b.offset), b.cat.empty() ? 0 : m_w.intern(b.cat), kNoId, kNoId,
                 b.args);
    if (open.empty())
        m_async.erase(key);
}

void Session::event(const TraceEventView &ev)
{
    if (ev.keyCount == 0) { // "{}" padding, as the TF profiler and Kineto write at the end
        if (m_emptyEvents++ == 0)
            m_firstEmpty = ev.offset;
        return;
    }
    ++m_events;
    m_w.setPosition(ev.offset);
    if (!ev.ph.isString() || ev.ph.size == 0) {
        m_warnings.add(
            QStringLiteral("no ph"), ev.offset,
            QStringLiteral("event at byte %1 has no 'ph' (phase) string; skipped").arg(ev.offset));
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
        const QString text =
            QString::fromUtf8(ev.ts.data, qsizetype(std::min<size_t>(ev.ts.size, 40)));
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
    case 'X':
        handleComplete(ev, *ts);
        break;
    case 'B':
        handleBegin(ev, *ts);
        break;
    case 'E':
        handleEnd(ev, *ts);
        break;
    case 'i':
    case 'I':
    case 'R':
        handleInstant(ev, *ts);
        break;
    case 'C':
        handleCounter(ev, *ts);
        break;
    case 's':
    case 't':
    case 'f':
        handleFlow(ev, *ts, phase);
        break;
    case 'b':
    case 'e':
    case 'n':
        handleAsync(ev, *ts, phase);
        break;
    default:
        m_warnings.add(QStringLiteral("phase ") + QLatin1Char(phase), ev.offset,
                       QStringLiteral("events of phase '%1' are not supported (first at byte "
                                      "%2); skipped")
                           .arg(QLatin1Char(phase))
                           .arg(ev.offset));
    }
}

} // namespace gml::chrometrace
