// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometraceimporter.h"
#include "runsort.h"

#include "chrometracesession.h"
#include "tfcapture.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimeZone>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

namespace gml {

namespace chrometrace {

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
    sortNearlySorted(m_runtimeByCorr); // ids handed out in time order: runs merged
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
    sortNearlySorted(m_linkedCorrelations);
    m_linkedCorrelations.erase(
        std::unique(m_linkedCorrelations.begin(), m_linkedCorrelations.end()),
        m_linkedCorrelations.end());
    if (unmatched)
        m_warnings.add(QStringLiteral("corr unmatched"), -1,
                       QStringLiteral("%1 GPU events carry a correlation id that matches no "
                                      "runtime call in this file (launched before the capture "
                                      "window?); they have no launch edge")
                           .arg(unmatched));
    sortNearlySorted(m_opByExt);
    for (const auto &[ext, gpu] : m_gpuByExt) {
        auto it =
            std::lower_bound(m_opByExt.begin(), m_opByExt.end(), std::make_pair(ext, SliceId(0)));
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
    sortNearlySorted(m_flows, [&](const FlowPoint &a, const FlowPoint &b) {
        if (const FlowKey ka = a.key(), kb = b.key(); ka != kb)
            return ka < kb;
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
        const FlowKey key = m_flows[begin].key();
        for (end = begin + 1; end < m_flows.size() && m_flows[end].key() == key; ++end) {
        }
        // Kineto's launch flows carry the correlation id as their id: when the correlation
        // already gave the launch edge, the flow pair adds nothing.
        const bool numericId = key.kind == FlowKey::Number || key.kind == FlowKey::Bind;
        const bool linkedById = numericId && std::binary_search(m_linkedCorrelations.begin(),
                                                                m_linkedCorrelations.end(), key.id);
        SliceId current = 0;
        qint64 currentOffset = -1;
        for (size_t i = begin; i < end; ++i) {
            const FlowPoint &fp = m_flows[i];
            const SliceId bound =
                fp.isDirect ? fp.direct() : bind(fp.thread(), fp.ts, fp.enclosing);
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

int Session::labelledRank(const std::string &pid) const
{
    // Chrome's process labels, comma-separated: "rank 3" names the process's rank (GradeML's
    // export of a run of several ranks writes it; Kineto's distributedInfo names one per file).
    if (m_rank >= 0)
        return -1;
    const auto meta = m_processMeta.find(pid);
    if (meta == m_processMeta.end())
        return -1;
    for (const QString &label : q(meta->second.labels).split(QLatin1Char(','))) {
        const QString t = label.trimmed();
        bool ok = false;
        const int rank = t.startsWith(QLatin1String("rank ")) ? t.mid(5).toInt(&ok) : -1;
        if (ok && rank >= 0)
            return rank;
    }
    return -1;
}

void Session::nameTracks()
{
    const QString sourcePrefix = m_rank >= 0 ? QStringLiteral("rank %1 · ").arg(m_rank) : QString();
    // The rank a process's name starts with: the file's, else its own label's (once).
    const auto prefixed = [&](const std::string &pid, const QString &name) {
        const int own = labelledRank(pid);
        const QString prefix = own >= 0 ? QStringLiteral("rank %1 · ").arg(own) : sourcePrefix;
        return name.startsWith(prefix) ? name : prefix + name;
    };
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
        const qint64 sort =
            meta.sortIndex != kNoId ? meta.sortIndex : number.value_or(qint64(1) << 40);
        m_w.setTrackName(p->track, prefixed(pid, name), sort);
    }
    for (const auto &[pid, p] : m_gpuProcesses) {
        const auto meta = m_processMeta.count(pid) ? m_processMeta.at(pid) : ProcessMeta{};
        QString name;
        qint64 sort = meta.sortIndex;
        // A GPU process the file names "GPU N[ · MODEL]" (GradeML's Chrome export, which gives
        // each rank's GPUs pids of their own) keeps that number and model, not its pid's.
        static const QRegularExpression named(
            QStringLiteral("^(?:rank \\d+ \u00b7 )?(GPU (\\d+)(?: \u00b7 .+)?)$"));
        const auto m = named.match(q(meta.name));
        if (m.hasMatch()) {
            name = m.captured(1);
            if (sort == kNoId)
                sort = (qint64(1) << 24) + std::min<qint64>(m.captured(2).toLongLong(), 1LL << 32);
        } else if (const auto device = integerId(pid)) {
            const qint64 dev = *device;
            name = QStringLiteral("GPU %1").arg(dev);
            if (auto it = m_deviceNames.find(dev);
                it != m_deviceNames.end() && !it->second.isEmpty())
                name += QStringLiteral(" · ") + it->second;
            if (sort == kNoId) // GPUs after processes, in device order (a huge id sorts last)
                sort = (qint64(1) << 24) + std::clamp<qint64>(dev, 0, qint64(1) << 32);
        } else {
            name = q(pid);
            if (sort == kNoId)
                sort = qint64(1) << 24;
        }
        m_w.setTrackName(p->track, prefixed(pid, name), sort);
    }
    for (const auto &[key, t] : m_threads) {
        const auto it = m_threadMeta.find(key);
        const ThreadMeta meta = it != m_threadMeta.end() ? it->second : ThreadMeta{};
        QString name;
        qint64 sort = meta.sortIndex;
        const auto tidNumber = integerId(t->tid);
        const bool numericTid = tidNumber.has_value();
        const bool mainThread = !t->gpu && isMainThreadId(q(t->pid), q(t->tid));
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
            if (mainThread && !name.contains(QStringLiteral("main")))
                name += QStringLiteral(" · main thread");
        }
        // The main thread first, whatever sort index the trace gives it (issue 73: a vLLM
        // engine trace sorted by tid opened on "thread 0", a threading bootstrap and a tqdm
        // monitor waiting, above the main thread's 128,013 slices).
        if (mainThread)
            sort = -1;
        else if (sort == kNoId)
            sort = tidNumber.value_or(qint64(1) << 40);
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
    // Empty events are the profilers' padding (one, at the end); a trace of nothing else, or
    // with many, is said (issue 56: a trace of "{}" events imported as nothing, without a word).
    if (m_emptyEvents > 1 && m_events > 0)
        m_warnings.add(
            QStringLiteral("empty events"), m_firstEmpty,
            QStringLiteral("%1 events are empty objects '{}' (the first at byte %2); skipped")
                .arg(m_emptyEvents)
                .arg(m_firstEmpty));
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
            addSlice(t.get(), open.ts, end - open.ts, internName(open.name, open.offset), open.cat,
                     open.correlation, open.externalId, open.args);
        }
    }
    for (auto &[key, open] : m_async) {
        for (const auto &b : open)
            m_warnings.add(QStringLiteral("async b unmatched"), b.offset,
                           QStringLiteral("async 'b' event at byte %1 has no matching 'e'; "
                                          "skipped")
                               .arg(b.offset));
    }
    // Each correlation and each flow point links at most one flow.
    m_w.reserveFlows(m_gpuByCorr.size() + m_gpuByExt.size() + m_flows.size());
    linkCorrelations();
    linkFlows();
    nameTracks();
    writeMemory();
    if (m_rank >= 0)
        m_w.setSourceRank(m_rank);
    // A file of several ranks: each labelled process and what is under it.
    std::set<int> labelled;
    for (const auto *processes : {&m_cpuProcesses, &m_gpuProcesses})
        for (const auto &[pid, p] : *processes)
            if (const int rank = labelledRank(pid); rank >= 0) {
                m_w.setTrackRank(p->track, rank);
                labelled.insert(rank);
            }
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
    for (const auto &k :
         {QStringLiteral("backend"), QStringLiteral("world_size"), QStringLiteral("nccl_version")})
        if (dist.contains(k))
            params.insert(k, dist.value(k));
    if (m_rank >= 0)
        params.insert(QStringLiteral("ranks"), QJsonArray{m_rank});
    else if (!labelled.empty()) {
        QJsonArray ranks;
        for (int r : labelled)
            ranks.append(r);
        params.insert(QStringLiteral("ranks"), ranks);
    }
    QJsonArray models;
    for (const auto &[id, name] : m_deviceNames)
        if (!models.contains(name))
            models.append(name);
    if (!models.isEmpty())
        params.insert(QStringLiteral("gpu_models"), models);
    // What identifies a GPU the trace names generically ("AMD Radeon Graphics"): its compute
    // units, memory and warp size, once per distinct device.
    QJsonArray properties;
    for (const auto &d : m_metadata.value(QStringLiteral("deviceProperties")).toArray()) {
        const QJsonObject o = d.toObject();
        const QJsonObject p{
            {QStringLiteral("name"), o.value(QStringLiteral("name")).toString()},
            {QStringLiteral("cus"), o.value(QStringLiteral("numSms")).toInt()},
            {QStringLiteral("mem_gib"),
             o.value(QStringLiteral("totalGlobalMem")).toDouble() / double(1ll << 30)},
            {QStringLiteral("warp"), o.value(QStringLiteral("warpSize")).toInt()}};
        if (p.value(QStringLiteral("cus")).toInt() > 0 && !properties.contains(p))
            properties.append(p);
    }
    if (!properties.isEmpty())
        params.insert(QStringLiteral("gpu_properties"), properties);
    if (!params.isEmpty())
        m_w.mergeRunParams(params);
    if (m_w.failed()) {
        if (error)
            *error = m_w.errorString();
        return false;
    }
    return true;
}

} // namespace chrometrace

QString ImportOutcome::describe(const QString &path) const
{
    if (errorOffset >= 0)
        return QStringLiteral("%1: at byte %2: %3").arg(path).arg(errorOffset).arg(error);
    return QStringLiteral("%1: %2").arg(path, error);
}

SniffResult ChromeTraceImporter::sniff(const QString &path, const QByteArray &head) const
{
    const QString lower = QFileInfo(path).fileName().toLower();
    const bool jsonName =
        lower.endsWith(QLatin1String(".json")) || lower.endsWith(QLatin1String(".json.gz"));
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
    // Reading and gunzipping on a second thread, the parse and the writer on this one.
    in.readAhead();
    chrometrace::Session session(ctx, in);
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
    if (const auto empty = session.onlyEmptyEvents()) {
        out.status = ImportOutcome::Status::Failed;
        out.errorOffset = empty->first;
        out.error =
            QStringLiteral(
                "the trace's %1 events are all empty objects '{}'; expected events with a 'ph' "
                "(phase), such as {\"ph\": \"X\", \"name\": ..., \"ts\": ...}")
                .arg(empty->second);
        return out;
    }
    QString error;
    if (!session.finish(&error)) {
        out.status = ImportOutcome::Status::Failed;
        out.error = QStringLiteral("could not write to the project: %1").arg(error);
        return out;
    }
    out.warnings = session.warnings();
    if (reader.eventCount() == 0)
        out.warnings.append(
            ImportWarning{QStringLiteral("the trace holds no events (its event array is empty): "
                                         "nothing to draw"),
                          -1, 1});
    ctx.contentHash = in.wholeFileHash();
    return out;
}

} // namespace gml
