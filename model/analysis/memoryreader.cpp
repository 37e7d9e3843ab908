// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryreport.h"

#include "memoryevents.h"

#include "project.h"
#include "projectsummary.h"
#include "projecttime.h"
#include "sliceclass.h"
#include "slicestore.h"
#include "sourcerecords.h"
#include "sourcesummary.h"
#include "trackrecords.h"

#include <QFileInfo>
#include <QHash>

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

namespace gml {

QString memoryDeviceLabel(int deviceType, int deviceId)
{
    if (deviceType == 0)
        return QStringLiteral("CPU");
    if (deviceType == 1 || deviceType == 6) // CUDA, HIP
        return QStringLiteral("GPU %1").arg(deviceId);
    return QStringLiteral("device type %1 · %2").arg(deviceType).arg(deviceId);
}

namespace {

// Operators that only carve out a tensor for their caller: an allocation inside one belongs
// to the operator that called it.
bool isAllocatorPrimitive(const QString &name)
{
    static const QStringList names{
        QStringLiteral("aten::empty"),
        QStringLiteral("aten::empty_strided"),
        QStringLiteral("aten::empty_like"),
        QStringLiteral("aten::new_empty"),
        QStringLiteral("aten::new_empty_strided"),
        QStringLiteral("aten::resize_"),
        QStringLiteral("aten::as_strided_"),
        QStringLiteral("aten::set_"),
    };
    return names.contains(name);
}

// Reads a run's [memory] events, thread by thread, with the operator and call path around each,
// then accounts each device's (account()).
class MemoryReader
{
public:
    MemoryReader(Project &project, StringId memoryName, MemoryDetail detail)
        : m_project(project), m_reader(project.db()), m_events(memoryName, detail), m_detail(detail)
    {
    }
    bool readTrack(const TrackRow &t, TimeNs offset, QString *error);
    bool empty() const { return m_events.size() == 0; }
    // Each device's events in time order, accounted; the warnings of what was dropped.
    void finish() { m_events.finish(report, m_texts); }
    MemoryReport report;

private:
    struct Name
    {
        QString text;
        bool step = false, primitive = false;
    };
    // Operators and call paths, each text once (events hold their index).
    int intern(const QString &text)
    {
        const auto it = m_textIndex.constFind(text);
        if (it != m_textIndex.constEnd())
            return *it;
        m_texts.push_back(text);
        return *m_textIndex.insert(text, int(m_texts.size()) - 1);
    }
    void nameRows(const MemoryThread &t);
    void attributeEvents(size_t firstEvent);

    Project &m_project;
    slicestore::TrackReader m_reader;
    MemoryEvents m_events;
    const MemoryDetail m_detail;
    std::unordered_map<StringId, Name> m_names;
    std::vector<QString> m_texts;
    QHash<QString, int> m_textIndex;
    std::vector<NestRow> m_rows; // the track's, nested
    std::vector<int> m_parent;
};

bool MemoryReader::readTrack(const TrackRow &t, TimeNs offset, QString *error)
{
    const MemoryThread thread{t.id, t.rank, t.source, t.parentPid.isEmpty() ? t.pid : t.parentPid};
    const size_t firstEvent = m_events.size();
    const bool ok =
        readNestRows(m_reader, t.id, true, offset, m_rows, {}, [&](const slicestore::Row &x) {
            m_events.onRow(m_reader, x, thread, offset);
        });
    if (!ok) {
        if (error)
            *error = m_reader.errorString();
        return false;
    }
    nameRows(thread);
    if (m_detail == MemoryDetail::Full)
        attributeEvents(firstEvent);
    return true;
}

// The track's rows nested, their names read once, its ProfilerStep ranges its process's steps.
void MemoryReader::nameRows(const MemoryThread &t)
{
    nestRows(m_rows, m_parent);
    // The peaks need only the outermost rows' names (the steps).
    const bool rootsOnly = m_detail == MemoryDetail::Peaks;
    std::vector<StringId> unnamed;
    for (size_t i = 0; i < m_rows.size(); ++i)
        if ((!rootsOnly || m_parent[i] < 0) && !m_names.count(m_rows[i].name)) {
            unnamed.push_back(m_rows[i].name);
            m_names.emplace(m_rows[i].name, Name{});
        }
    QHash<StringId, QString> read;
    m_project.strings(unnamed, read);
    for (const StringId id : unnamed) {
        Name &n = m_names[id];
        n.text = read.value(id);
        n.step = isProfilerStep(n.text);
        n.primitive = isAllocatorPrimitive(n.text);
    }
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_parent[i] < 0 && m_names[m_rows[i].name].step)
            m_events.addStep(t, m_rows[i].start, m_rows[i].end);
}

void MemoryReader::attributeEvents(size_t firstEvent)
{
    // Each event's operator: the innermost slice around it (the last to start at or before
    // it, or one it nests in), allocator primitives left for their caller. A row's call
    // path is its parent's and its own name, made once per row.
    std::vector<int> pathOf(m_rows.size(), -1);
    std::function<int(int)> pathOfRow = [&](int r) -> int {
        if (pathOf[size_t(r)] >= 0)
            return pathOf[size_t(r)];
        const Name &n = m_names[m_rows[size_t(r)].name];
        const QString own = n.step ? QStringLiteral("ProfilerStep#*") : n.text;
        const int p = m_parent[size_t(r)];
        return pathOf[size_t(r)] = intern(
                   p < 0 ? own : m_texts[size_t(pathOfRow(p))] + QStringLiteral(" › ") + own);
    };
    for (MemoryEvent &e : m_events.eventsFrom(firstEvent)) {
        auto after = std::upper_bound(m_rows.begin(), m_rows.end(), e.ts,
                                      [](TimeNs t, const NestRow &r) { return t < r.start; });
        int r = int(after - m_rows.begin()) - 1;
        while (r >= 0 && m_rows[size_t(r)].end < e.ts)
            r = m_parent[size_t(r)];
        while (r >= 0 && m_parent[size_t(r)] >= 0 && m_names[m_rows[size_t(r)].name].primitive)
            r = m_parent[size_t(r)];
        if (r < 0) {
            e.op = e.path = intern(QStringLiteral("(outside any operator)"));
            continue;
        }
        e.op = intern(m_names[m_rows[size_t(r)].name].text);
        e.path = pathOfRow(r);
    }
}

// Devices of processes without a rank, from several files: each says its file.
void nameFiles(Project &project, RunId run, MemoryReport &report)
{
    std::set<SourceId> rankless;
    for (const DeviceMemory &d : report.devices)
        if (d.rank < 0)
            rankless.insert(d.source);
    if (rankless.size() > 1) {
        const auto paths = sourcePaths(project, run);
        for (DeviceMemory &d : report.devices)
            if (d.rank < 0 && paths.count(d.source))
                d.file = QFileInfo(paths.at(d.source)).fileName();
    }
}

} // namespace

std::optional<MemoryReport> memoryReport(Project &project, RunId run, QString *error,
                                         MemoryDetail detail)
{
    const StringId memoryName = existingString(project, QStringLiteral("[memory]"));
    MemoryReader reader(project, memoryName, detail);
    MemoryReport &report = reader.report;
    report.runStart = runSpans(project).value(run).first;
    if (!memoryName) {
        report.problem = QStringLiteral("no memory events: record with the PyTorch profiler's "
                                        "profile_memory=True");
        return report;
    }
    QString readError;
    const std::vector<TrackRow> tracks = tracksOfRun(project, run, &readError);
    const auto offsets = sourceOffsets(project, run, &readError);
    if (!readError.isEmpty()) {
        if (error)
            *error = readError;
        return std::nullopt;
    }
    for (const TrackRow &t : tracks) {
        if (t.kind != TrackKind::Thread || t.sliceCount <= 0)
            continue;
        const TimeNs offset = offsets.count(t.source) ? offsets.at(t.source) : 0;
        if (!reader.readTrack(t, offset, error))
            return std::nullopt;
    }
    if (reader.empty()) {
        report.problem = QStringLiteral("no memory events in this run: record with the PyTorch "
                                        "profiler's profile_memory=True");
        return report;
    }
    reader.finish();
    nameFiles(project, run, report);
    return report;
}

std::optional<MemoryReport> memoryPeaks(Project &project, RunId run,
                                        const std::vector<RunSourceWork> &sources, QString *error)
{
    QString readError;
    if (rankThreadsSpanSources(project, run, &readError) || !readError.isEmpty())
        return memoryReport(project, run, error, MemoryDetail::Peaks);
    MemoryReport report;
    report.runStart = runSpans(project).value(run).first;
    for (const RunSourceWork &s : sources)
        for (const SourceWork::Memory &m : s.work.memory) {
            DeviceMemory d;
            d.device = m.device;
            d.pid = m.pid;
            d.rank = m.rank;
            d.source = s.source;
            d.events = m.events;
            d.peakAllocated = m.peakAllocated;
            d.peakAt = m.peakAt + s.offset;
            d.peakReserved = m.peakReserved;
            d.totalsRecorded = m.totalsRecorded;
            d.byAddress = m.byAddress;
            d.unmatchedFrees = m.unmatchedFrees;
            d.unmatchedFreeBytes = m.unmatchedFreeBytes;
            for (const SourceWork::Memory::Iteration &it : m.iterations)
                d.iterations.push_back(
                    {it.start + s.offset, it.end + s.offset, it.atStart, it.peak, it.atEnd});
            report.devices.push_back(std::move(d));
        }
    if (report.devices.empty()) {
        report.problem = QStringLiteral("no memory events in this run: record with the PyTorch "
                                        "profiler's profile_memory=True");
        return report;
    }
    // Each source's devices are in the report's order already; merged, the order is the
    // report's (stable, by rank, kind, name and file).
    orderMemoryDevices(report.devices);
    nameFiles(project, run, report);
    return report;
}

} // namespace gml
