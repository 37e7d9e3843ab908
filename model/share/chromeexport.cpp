// SPDX-License-Identifier: GPL-3.0-or-later
#include "chromeexport.h"

#include "jsonsink.h"

#include "notes.h"
#include "outputfile.h"
#include "project.h"
#include "projectsummary.h"
#include "runrecords.h"
#include "trackrecords.h"
#include "trackrows.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace gml {

namespace {

// Kineto's correlation and External ids count per process: in one file holding several ranks
// they would link one rank's launches to another's kernels. Each rank's ids are moved to a
// range of their own (rank << 40, above any id a tracer hands out) in the args written.
constexpr int kRankIdShift = 40;

std::string withRankIds(std::string_view args, int rank)
{
    QJsonObject o =
        QJsonDocument::fromJson(QByteArray::fromRawData(args.data(), qsizetype(args.size())))
            .object();
    for (const QString &key : {QStringLiteral("correlation"), QStringLiteral("External id"),
                               QStringLiteral("external id")}) {
        const QJsonValue v = o.value(key);
        if (v.isDouble())
            o.insert(key, double(v.toInteger() + (qint64(rank) << kRankIdShift)));
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

// Where a row's events go: its process (pid) and its thread (tid) there.
struct Place
{
    qint64 pid = 0, tid = 0;
};

std::optional<qint64> numberOf(const QString &text)
{
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    return ok && v >= 0 && v < (qint64(1) << 31) ? std::optional<qint64>(v) : std::nullopt;
}

// Hands out ids: the one a row asks for while no other row took it, else the smallest free one.
class Ids
{
public:
    qint64 take(std::optional<qint64> wanted)
    {
        if (wanted && m_taken.insert(*wanted).second)
            return *wanted;
        while (m_taken.count(m_next))
            ++m_next;
        m_taken.insert(m_next);
        return m_next;
    }

private:
    std::set<qint64> m_taken;
    qint64 m_next = 1;
};

// The rows of a run placed as processes and threads: a row's process is its nearest row (itself
// included) that is a process or a GPU, else the topmost row above it.
struct Layout
{
    struct Process
    {
        qint64 pid = 0;
        QString name;
        qint64 sortKey = 0;
        QString device; // a GPU's device name, kept where its pid is its device number
        int rank = -1;  // written as process_labels "rank N" when the run has several ranks
        Ids tids;
    };
    int onlyRank = -1;                    // the run's rank when it has exactly one
    std::map<TrackId, Process> processes; // by the process row's id
    std::unordered_map<TrackId, Place> places;
    std::vector<std::pair<TrackId, QString>> threadNames; // rows of slices, in track order
};

Layout placeRows(const std::vector<TrackRow> &rows)
{
    std::unordered_map<TrackId, const TrackRow *> byId;
    std::set<int> ranks;
    for (const TrackRow &r : rows) {
        byId[r.id] = &r;
        if (r.rank >= 0)
            ranks.insert(r.rank);
    }
    const auto processOf = [&](const TrackRow &r) {
        const TrackRow *at = &r;
        for (;;) {
            if (at->kind == TrackKind::Process || at->kind == TrackKind::Gpu)
                return at;
            auto up = byId.find(at->parent);
            if (at->parent == 0 || up == byId.end())
                return at;
            at = up->second;
        }
    };
    Layout out;
    // Pids first, in track order, so that a row's own pid wins over a fresh one.
    Ids pids;
    std::vector<const TrackRow *> placed;
    for (const TrackRow &r : rows) {
        if (r.sliceCount == 0 && r.counterCount == 0)
            continue;
        placed.push_back(&r);
        const TrackRow *p = processOf(r);
        if (out.processes.count(p->id))
            continue;
        Layout::Process proc;
        proc.pid = pids.take(numberOf(p->pid));
        proc.sortKey = p->sortKey;
        // The name without what an importer adds again (its rank, "(pid N)", a GPU's device).
        QString name = p->name;
        const QString rankPrefix = QStringLiteral("rank %1 · ").arg(p->rank);
        if (p->rank >= 0 && name.startsWith(rankPrefix))
            name = name.mid(rankPrefix.size());
        const QString pidSuffix = QStringLiteral(" (pid %1)").arg(p->pid);
        if (!p->pid.isEmpty() && name.endsWith(pidSuffix) && QString::number(proc.pid) == p->pid)
            name.chop(pidSuffix.size());
        const QString gpuPrefix = QStringLiteral("GPU %1 · ").arg(proc.pid);
        if (p->kind == TrackKind::Gpu && name.startsWith(gpuPrefix))
            proc.device = name.mid(gpuPrefix.size());
        proc.name = ranks.size() > 1 && p->rank >= 0 ? rankPrefix + name : name;
        proc.rank = ranks.size() > 1 ? p->rank : -1;
        out.processes.emplace(p->id, std::move(proc));
    }
    if (ranks.size() == 1)
        out.onlyRank = *ranks.begin();
    for (const TrackRow *r : placed) {
        const TrackRow *p = processOf(*r);
        Layout::Process &proc = out.processes.at(p->id);
        if (r->kind == TrackKind::Counter) {
            out.places[r->id] = {proc.pid, 0};
            continue;
        }
        // The thread's name: the rows between its process and it.
        QStringList path;
        for (const TrackRow *at = r; at && at != p;) {
            path.prepend(at->name);
            auto up = byId.find(at->parent);
            at = up == byId.end() ? nullptr : up->second;
        }
        const QString name = path.isEmpty() ? r->name : path.join(QStringLiteral(" › "));
        out.places[r->id] = {proc.pid, proc.tids.take(numberOf(r->tid))};
        out.threadNames.emplace_back(r->id, name);
    }
    return out;
}

// A slice's place and start, for the flows that bind to it.
struct SliceAt
{
    SliceId id;
    TrackId track;
    TimeNs start;
    qint64 correlation, externalId;
    bool operator<(const SliceAt &o) const { return id < o.id; }
};

class Writer
{
public:
    Writer(Project &project, JsonSink &sink, TimeNs base)
        : m_project(project), m_sink(sink), m_base(base)
    {
    }

    std::string &out() { return m_sink.buffer(); }
    void begin(char phase, qint64 pid, qint64 tid)
    {
        std::string &o = out();
        o += m_first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
        m_first = false;
        o += phase;
        o += "\",\"pid\":";
        o += std::to_string(pid);
        o += ",\"tid\":";
        o += std::to_string(tid);
    }
    void ts(TimeNs t)
    {
        out() += ",\"ts\":";
        appendMicros(out(), t - m_base);
    }
    void name(StringId id)
    {
        out() += ",\"name\":";
        appendJsonString(out(), text(id));
    }
    const std::string &text(StringId id)
    {
        auto it = m_text.find(id);
        if (it == m_text.end())
            it = m_text.emplace(id, m_project.string(id).toStdString()).first;
        return it->second;
    }
    void category(StringId id)
    {
        if (id == 0)
            return;
        out() += ",\"cat\":";
        appendJsonString(out(), text(id));
    }
    void args(std::string_view json)
    {
        if (json.empty())
            return;
        out() += ",\"args\":";
        // A trace's args that were not an object are kept as its value.
        const bool object = json.front() == '{';
        if (!object)
            out() += "{\"value\":";
        out() += json;
        if (!object)
            out() += '}';
    }
    void metadata(const char *what, qint64 pid, qint64 tid, const char *key, const QString &value)
    {
        begin('M', pid, tid);
        out() += ",\"name\":\"";
        out() += what;
        out() += "\",\"args\":{\"";
        out() += key;
        out() += "\":";
        appendJsonString(out(), value);
        out() += "}}";
    }
    void sortIndex(const char *what, qint64 pid, qint64 tid, qint64 index)
    {
        begin('M', pid, tid);
        out() += ",\"name\":\"";
        out() += what;
        out() += "\",\"args\":{\"sort_index\":";
        out() += std::to_string(index);
        out() += "}}";
    }

private:
    Project &m_project;
    JsonSink &m_sink;
    TimeNs m_base;
    bool m_first = true;
    std::unordered_map<StringId, std::string> m_text;
};

// The file's head: the time unit, the base time, who wrote it and the run, the one rank and
// the GPUs as Kineto writes them (for an importer to name ranks and GPUs again), and the
// opening of traceEvents.
void writeHead(std::string &o, const Layout &layout, const QString &runName, TimeNs base)
{
    o += "{\"displayTimeUnit\":\"ns\",\"baseTimeNanoseconds\":";
    o += std::to_string(std::max<TimeNs>(0, base));
    o += ",\"otherData\":{\"exported_by\":\"GradeML Studio\",\"run\":";
    appendJsonString(o, runName);
    o += '}';
    // What Kineto writes for an importer (GradeML's among them) to name ranks and GPUs again.
    if (layout.onlyRank >= 0) {
        o += ",\"distributedInfo\":{\"rank\":";
        o += std::to_string(layout.onlyRank);
        o += '}';
    }
    bool firstDevice = true;
    for (const auto &[track, proc] : layout.processes) {
        if (proc.device.isEmpty())
            continue;
        o += firstDevice ? ",\"deviceProperties\":[" : ",";
        firstDevice = false;
        o += "{\"id\":";
        o += std::to_string(proc.pid);
        o += ",\"name\":";
        appendJsonString(o, proc.device);
        o += '}';
    }
    if (!firstDevice)
        o += ']';
    o += ",\n\"traceEvents\":[";
}

// The processes' and threads' names and order, and each rank's label.
void writeNames(Writer &w, const Layout &layout, const std::vector<TrackRow> &rows)
{
    for (const auto &[track, proc] : layout.processes) {
        w.metadata("process_name", proc.pid, 0, "name", proc.name);
        w.sortIndex("process_sort_index", proc.pid, 0, proc.sortKey);
        // A run of several ranks in one file: each process says its rank (Chrome's process
        // labels), which an importer reads back as Kineto's distributedInfo of one rank.
        if (proc.rank >= 0)
            w.metadata("process_labels", proc.pid, 0, "labels",
                       QStringLiteral("rank %1").arg(proc.rank));
    }
    std::unordered_map<TrackId, const TrackRow *> rowOf;
    for (const TrackRow &r : rows)
        rowOf[r.id] = &r;
    for (const auto &[track, name] : layout.threadNames) {
        const Place at = layout.places.at(track);
        w.metadata("thread_name", at.pid, at.tid, "name", name);
        w.sortIndex("thread_sort_index", at.pid, at.tid, rowOf.at(track)->sortKey);
    }
}

// Flows, bound to their slices by place and start; false with `why` when a read or the sink
// fails.
bool writeFlows(Project &project, const std::vector<TrackRow> &rows, std::vector<SliceAt> &slices,
                const Layout &layout, Writer &w, JsonSink &sink, ChromeExportResult &result,
                QString &why)
{
    std::string &o = sink.buffer();
    // Flows, bound to their slices by place and start.
    std::sort(slices.begin(), slices.end());
    const auto sliceAt = [&](SliceId id) -> const SliceAt * {
        auto it = std::lower_bound(slices.begin(), slices.end(), SliceAt{id, 0, 0, -1, -1});
        return it != slices.end() && it->id == id ? &*it : nullptr;
    };
    std::set<SourceId> sources;
    for (const TrackRow &r : rows)
        if (r.source)
            sources.insert(r.source);
    // Above the ranks' correlation ids (rank << 40, 4,096 ranks) and below 2^53, which a viewer
    // that reads JSON numbers as doubles still tells apart.
    qint64 nextFlowId = qint64(1) << 52;
    for (const SourceId source : sources) {
        std::vector<FlowRow> flows;
        if (!flowsOfSource(project, source,
                           {FlowKind::Launch, FlowKind::Sync, FlowKind::Sequence,
                            FlowKind::Collective, FlowKind::Data, FlowKind::Workflow,
                            FlowKind::CpuOpToGpu, FlowKind::TraceFlow},
                           flows, &why))
            return false;
        for (const FlowRow &f : flows) {
            const SliceAt *from = sliceAt(f.from), *to = sliceAt(f.to);
            if (!from || !to)
                continue;
            // Derived again by an import from the slices' own ids: not written twice.
            if ((f.kind == FlowKind::Sync && from->correlation >= 0 && to->correlation >= 0) ||
                (f.kind == FlowKind::CpuOpToGpu && from->externalId >= 0 && to->externalId >= 0))
                continue;
            const bool launch = f.kind == FlowKind::Launch;
            const qint64 id = launch && from->correlation >= 0 ? from->correlation : nextFlowId++;
            const QString cat = launch                         ? QStringLiteral("ac2g")
                                : f.kind == FlowKind::Sequence ? QStringLiteral("fwdbwd")
                                                               : flowKindName(f.kind);
            for (const SliceAt *end : {from, to}) {
                const Place at = layout.places.at(end->track);
                w.begin(end == from ? 's' : 'f', at.pid, at.tid);
                o += ",\"id\":";
                o += std::to_string(id);
                w.ts(end->start);
                o += ",\"cat\":";
                appendJsonString(o, cat);
                o += ",\"name\":";
                appendJsonString(o, cat);
                if (end == to)
                    o += ",\"bp\":\"e\"";
                o += '}';
            }
            ++result.flows;
            if (!sink.flush(false, &why))
                return false;
        }
    }
    return true;
}

// The run's notes, as global instants (a range note keeps its end in its args).
void writeNotes(Project &project, const QString &runName, TimeNs base, Writer &w, std::string &o,
                ChromeExportResult &result, QString &why)
{
    // Notes of this run, as global instants (a range note keeps its end in its args).
    const std::vector<Note> notes = listNotes(project, &why);
    for (const Note &n : notes) {
        if (n.run != runName)
            continue;
        w.begin('i', 0, 0);
        o += ",\"s\":\"g\",\"cat\":\"grademl.note\",\"name\":";
        appendJsonString(o, n.text);
        w.ts(n.start);
        o += ",\"args\":{\"kind\":";
        appendJsonString(o, Note::kindName(n.kind));
        if (n.kind == Note::Kind::Range) {
            o += ",\"end_us\":";
            appendMicros(o, n.end - base);
        }
        if (n.kind == Note::Kind::Slice) {
            o += ",\"slice\":";
            appendJsonString(o, n.sliceName);
            o += ",\"track\":";
            appendJsonString(o, n.trackName);
        }
        if (!n.created.isEmpty()) {
            o += ",\"created\":";
            appendJsonString(o, n.created);
        }
        o += "}}";
        ++result.notes;
    }
}

} // namespace

std::optional<ChromeExportResult> exportChromeTrace(Project &project, RunId run,
                                                    const QString &path,
                                                    const std::function<bool(double)> &progress,
                                                    QString *error)
{
    QString why;
    const auto fail = [&](const QString &what) {
        if (error)
            *error = what;
        return std::nullopt;
    };
    const std::vector<TrackRow> rows = tracksOfRun(project, run, &why);
    if (!why.isEmpty())
        return fail(why);
    const auto spans = runSpans(project);
    const auto span = spans.value(run, {0, 0});
    const TimeNs base = span.first;
    const Layout layout = placeRows(rows);
    const QString runName = gml::runName(project, run).value_or(QString());

    JsonSink sink(path, path.endsWith(QLatin1String(".gz"), Qt::CaseInsensitive), project.path());
    if (!sink.open(&why))
        return fail(why);
    Writer w(project, sink, base);
    ChromeExportResult result;
    std::string &o = sink.buffer();
    writeHead(o, layout, runName, base);
    writeNames(w, layout, rows);
    qint64 total = 0;
    for (const TrackRow &r : rows)
        total += r.sliceCount + r.counterCount;
    qint64 done = 0;
    const auto goOn = [&] {
        return !progress || progress(total > 0 ? double(done) / double(total) : 1.0);
    };
    std::vector<SliceAt> slices;
    SliceRecordReader reader(project);
    for (const TrackRow &r : rows) {
        const auto place = layout.places.find(r.id);
        if (place == layout.places.end())
            continue;
        if (!goOn())
            return fail(QStringLiteral("cancelled"));
        const Place at = place->second;
        if (r.kind == TrackKind::Counter) {
            for (const CounterPoint &p : counterPoints(project, r.id)) {
                w.begin('C', at.pid, at.tid);
                o += ",\"name\":";
                appendJsonString(o, r.name);
                w.ts(p.ts);
                // "value": the series a reader names after the counter alone.
                o += ",\"args\":{\"value\":";
                o += std::isfinite(p.value) ? QByteArray::number(p.value, 'g', 17).toStdString()
                                            : std::string("0");
                o += "}}";
                ++result.counterSamples;
                if (++done % 4096 == 0 && !goOn())
                    return fail(QStringLiteral("cancelled"));
                if (!sink.flush(false, &why))
                    return fail(why);
            }
            continue;
        }
        const bool async = r.kind == TrackKind::Async;
        const bool moveIds = layout.onlyRank < 0 && r.rank > 0;
        const qint64 idOffset = moveIds ? qint64(r.rank) << kRankIdShift : 0;
        std::string moved;
        bool ok = true;
        const bool read = reader.read(
            r.id,
            [&](const SliceRecord &s) {
                if (!ok)
                    return;
                slices.push_back({s.id, r.id, s.start,
                                  s.correlation >= 0 ? s.correlation + idOffset : -1,
                                  s.externalId >= 0 ? s.externalId + idOffset : -1});
                w.begin(async ? 'b' : 'X', at.pid, at.tid);
                if (async) {
                    o += ",\"id\":";
                    o += std::to_string(s.id);
                }
                w.ts(s.start);
                if (!async) {
                    o += ",\"dur\":";
                    appendMicros(o, std::max<TimeNs>(0, s.duration));
                }
                w.name(s.name);
                w.category(s.category);
                if (moveIds && !s.args.empty() && (s.correlation >= 0 || s.externalId >= 0)) {
                    moved = withRankIds(s.args, r.rank);
                    w.args(moved);
                } else {
                    w.args(s.args);
                }
                o += '}';
                if (async) {
                    w.begin('e', at.pid, at.tid);
                    o += ",\"id\":";
                    o += std::to_string(s.id);
                    w.ts(s.start + std::max<TimeNs>(0, s.duration));
                    w.name(s.name);
                    w.category(s.category);
                    o += '}';
                }
                ++result.slices;
                if (++done % 4096 == 0 && !goOn()) {
                    ok = false;
                    why = QStringLiteral("cancelled");
                }
                if (ok && !sink.flush(false, &why))
                    ok = false;
            },
            &why);
        if (!read || !ok)
            return fail(why);
    }

    if (!writeFlows(project, rows, slices, layout, w, sink, result, why))
        return fail(why);

    writeNotes(project, runName, base, w, o, result, why);
    o += "\n]}\n";
    if (!sink.commit(&why))
        return fail(why);
    result.bytes = sink.written();
    if (progress)
        progress(1.0);
    return result;
}

} // namespace gml
