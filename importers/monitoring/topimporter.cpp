// SPDX-License-Identifier: GPL-3.0-or-later
// top -b logs: host load, CPU, memory and the busiest processes.
#include "monitorlog.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace gml {

using namespace monitorlog;

// --- top -b ---------------------------------------------------------------------------------

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

const QRegularExpression &topFirstLine()
{
    static const QRegularExpression re(QStringLiteral(
        R"(^top - (\d{1,2}):(\d{2}):(\d{2}) up .*load average: ([^,\s]+), ([^,\s]+), ([^,\s]+)\s*$)"));
    return re;
}

// "12.2g" / "3.0g" / "630580" (KiB by default) -> MiB.
std::optional<double> topMemoryMiB(QByteArrayView v)
{
    double scale = 1.0 / 1024; // plain numbers are KiB
    if (!v.isEmpty()) {
        switch (v.back()) {
        case 'k':
        case 'K':
            scale = 1.0 / 1024;
            v.chop(1);
            break;
        case 'm':
        case 'M':
            scale = 1;
            v.chop(1);
            break;
        case 'g':
        case 'G':
            scale = 1024;
            v.chop(1);
            break;
        case 't':
        case 'T':
            scale = 1024.0 * 1024;
            v.chop(1);
            break;
        case 'p':
        case 'P':
            scale = 1024.0 * 1024 * 1024;
            v.chop(1);
            break;
        default:
            break;
        }
    }
    auto d = parseNumber(v);
    if (!d)
        return std::nullopt;
    return *d * scale;
}

// "MiB Mem : 515637.3 total, 508015.9 free, ..." -> {"total": ..., "free": ...} in MiB.
std::vector<std::pair<QString, double>> topFields(QByteArrayView rest)
{
    std::vector<std::pair<QString, double>> out;
    for (QByteArrayView part : split(rest, ',')) {
        const auto t = tokens(part);
        if (t.size() >= 2)
            if (auto d = parseNumber(t[0].text))
                out.emplace_back(text(part.sliced(t[1].column).trimmed()), *d);
    }
    return out;
}

struct ProcSample
{
    QString key; // "python (pid 91607)"
    double cpu, resMiB;
};

// The date of the first block: top prints the time of day only. From a sibling log with dates,
// else the last block's date is the file's modification date.
QDate topFirstDate(const ImportContext &ctx, const std::vector<QTime> &times, QJsonObject &meta)
{
    const QTime first = times.front();
    if (auto anchor = siblingTimeAnchor(ctx.path, ctx.timeZone)) {
        const QDateTime a = QDateTime::fromMSecsSinceEpoch(anchor->start / 1'000'000, ctx.timeZone);
        QDate date = a.date();
        qint64 best = std::numeric_limits<qint64>::max();
        for (int shift = -1; shift <= 1; ++shift) {
            const QDate d = a.date().addDays(shift);
            const qint64 diff = std::abs(QDateTime(d, first, ctx.timeZone).msecsTo(a));
            if (diff < best) {
                best = diff;
                date = d;
            }
        }
        meta.insert(
            QStringLiteral("time_placement"),
            QStringLiteral("date from %1 (top prints the time of day only)").arg(anchor->from));
        return date;
    }
    const QDateTime m = QFileInfo(ctx.path).lastModified().toTimeZone(ctx.timeZone);
    int days = 0;
    int prev = first.msecsSinceStartOfDay();
    for (const QTime &t : times) {
        if (t.msecsSinceStartOfDay() < prev)
            ++days;
        prev = t.msecsSinceStartOfDay();
    }
    QDate last = m.date();
    if (times.back() > m.time().addSecs(60))
        last = last.addDays(-1);
    meta.insert(QStringLiteral("time_placement"),
                QStringLiteral("date from the file's modification time (top prints the time "
                               "of day only; no sibling log with dates)"));
    meta.insert(QStringLiteral("time_estimated"), true);
    return last.addDays(-days);
}

// Processes worth a track: from the first two blocks in a row that show the process, at
// kBusyCpu or more in one of them; the track starts with the first of the two. A process seen
// in one block only, or never busy, has none. The rule looks back one block only, so a
// followed log read in parts gets the tracks a one-shot read gets (the last block's processes
// and the processes with a track are its tail state).
class ProcessTracks
{
public:
    static constexpr double kBusyCpu = 10.0;
    using Emit = std::function<void(const QString &key, TimeNs ts, double cpu, double resMiB)>;

    explicit ProcessTracks(const QJsonObject &state)
    {
        m_prevTs = state.value(QStringLiteral("prev_ts")).toString().toLongLong();
        const QJsonObject prev = state.value(QStringLiteral("prev")).toObject();
        for (auto it = prev.begin(); it != prev.end(); ++it) {
            const QJsonArray v = it.value().toArray();
            m_prev.insert(it.key(), {v.at(0).toDouble(), v.at(1).toDouble()});
        }
        for (const QJsonValue &k : state.value(QStringLiteral("tracked")).toArray())
            m_tracked.insert(k.toString());
    }

    void block(TimeNs ts, const std::vector<ProcSample> &procs, const Emit &emit)
    {
        QHash<QString, std::pair<double, double>> now;
        now.reserve(qsizetype(procs.size()));
        for (const ProcSample &p : procs) {
            if (now.contains(p.key))
                continue; // the same pid twice in a block: the first row counts
            now.insert(p.key, {p.cpu, p.resMiB});
            if (!m_tracked.contains(p.key)) {
                const auto before = m_prev.constFind(p.key);
                if (before == m_prev.constEnd() || std::max(before->first, p.cpu) < kBusyCpu)
                    continue;
                m_tracked.insert(p.key);
                emit(p.key, m_prevTs, before->first, before->second);
            }
            emit(p.key, ts, p.cpu, p.resMiB);
        }
        m_prev = std::move(now);
        m_prevTs = ts;
    }

    qsizetype admitted() const { return m_tracked.size(); }

    QJsonObject state() const
    {
        QJsonObject prev;
        for (auto it = m_prev.cbegin(); it != m_prev.cend(); ++it)
            prev.insert(it.key(), QJsonArray{it->first, it->second});
        QJsonArray tracked;
        for (const QString &k : m_tracked)
            tracked.append(k);
        return QJsonObject{{QStringLiteral("prev"), prev},
                           {QStringLiteral("prev_ts"), QString::number(m_prevTs)},
                           {QStringLiteral("tracked"), tracked}};
    }

private:
    QHash<QString, std::pair<double, double>> m_prev; // the last block's processes: cpu, RES
    TimeNs m_prevTs = 0;
    QSet<QString> m_tracked;
};

} // namespace

SniffResult TopBatchImporter::sniff(const QString &, const QByteArray &head) const
{
    const qsizetype nl = head.indexOf('\n');
    const QString first = QString::fromUtf8(nl < 0 ? head : head.left(nl)).trimmed();
    // Recognised by its shape alone; a block header with an odd value ("load average:
    // 1e+30") is then reported by the import with its byte offset, not taken as unrecognised.
    static const QRegularExpression shape(QStringLiteral(R"(^top - \S+ +up .*load average:)"));
    if (shape.match(first).hasMatch())
        return SniffResult{90, {}};
    // JSON (every trace of a rank folder) is never top's output: not matched against the
    // table's patterns, which cost 290 K instructions a file, most of sniffing a small trace.
    if (!first.isEmpty() && (first.front() == u'{' || first.front() == u'['))
        return SniffResult{};
    // top's process table without its block headers (filtered with grep, or not `top -b`):
    // said, rather than an unrecognised file, since nothing places its rows in time.
    static const QRegularExpression table(
        QStringLiteral(R"((^|\n)\s*PID +USER +PR +NI +VIRT +RES)"));
    static const QRegularExpression row(QStringLiteral(
        R"((^|\n) *\d+ +\S+ +(-?\d+|rt) +-?\d+ +[\d.]+[kmgtpe]? +[\d.]+[kmgtpe]? +[\d.]+[kmgtpe]? +[RSDZTtIWX] +[\d.]+ +[\d.]+ +[\d:.]+ +\S)"));
    const QString text =
        QString::fromUtf8(head.left(4096)); // the first lines; every file is sniffed
    if (table.match(text).hasMatch() || row.match(text).hasMatch())
        return SniffResult{
            0,
            QStringLiteral("top's process table without the 'top - HH:MM:SS up …' header of each "
                           "sample, which times it; expected the output of top -b")};
    return SniffResult{};
}

std::optional<QByteArray> TopBatchImporter::tailPrelude(QByteArrayView, QByteArrayView) const
{
    return QByteArray(); // each block starts with its own header: only the tail state is carried
}

namespace {

struct TopSample
{
    QString metric, unit;
    double value;
};
struct TopBlock
{
    QTime time;
    qint64 offset;
    std::vector<TopSample> samples;
    std::vector<ProcSample> procs;
};

// A block's first line, 'top - HH:MM:SS up ... load average: a, b, c': its time and load.
TopBlock topBlockAt(const Line &line, const QRegularExpressionMatch &m, WarningLog &warnings)
{
    TopBlock b;
    b.time = QTime(m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt());
    b.offset = line.offset;
    bool numeric = false;
    const double load = m.captured(4).toDouble(&numeric);
    if (numeric && std::isfinite(load) && load >= 0 && load < 1e9)
        b.samples.push_back({QStringLiteral("load average (1 min)"), QString(), load});
    else
        warnings.add(QStringLiteral("load average"), line.offset,
                     QStringLiteral("the load average '%1' at byte %2 is not a plausible "
                                    "number; not imported for that block")
                         .arg(m.captured(4))
                         .arg(line.offset));
    return b;
}

// A block's summary line (tasks, CPU, memory, swap) read into its samples; false when the line
// is none of them.
bool readTopSummary(QByteArrayView l, TopBlock &b)
{
    const qsizetype colon = l.indexOf(':');
    if (l.startsWith("Tasks:") || l.startsWith("Threads:")) {
        for (const auto &[k, v] : topFields(l.sliced(colon + 1)))
            if (k == QLatin1String("running"))
                b.samples.push_back({QStringLiteral("tasks running"), QString(), v});
    } else if (l.startsWith("%Cpu(s):")) {
        double idle = -1;
        for (const auto &[k, v] : topFields(l.sliced(colon + 1))) {
            if (k == QLatin1String("us"))
                b.samples.push_back({QStringLiteral("CPU user"), QStringLiteral("%"), v});
            else if (k == QLatin1String("sy"))
                b.samples.push_back({QStringLiteral("CPU system"), QStringLiteral("%"), v});
            else if (k == QLatin1String("wa"))
                b.samples.push_back({QStringLiteral("CPU iowait"), QStringLiteral("%"), v});
            else if (k == QLatin1String("id"))
                idle = v;
        }
        if (idle >= 0)
            b.samples.push_back({QStringLiteral("CPU busy"), QStringLiteral("%"), 100 - idle});
    } else if (colon > 0 && (l.contains(" Mem") || l.contains(" Swap")) &&
               (l.startsWith("KiB") || l.startsWith("MiB") || l.startsWith("GiB"))) {
        // The unit prefix scales every value of the line.
        const double scale = l.startsWith("KiB") ? 1.0 / 1024 : l.startsWith("GiB") ? 1024 : 1;
        const bool swap = l.contains(" Swap");
        QByteArrayView rest = l.sliced(colon + 1);
        if (const qsizetype dot = rest.indexOf(". "); swap && dot > 0)
            rest = rest.first(dot); // "0.0 used. 508425.0 avail Mem"
        for (const auto &[k, v] : topFields(rest)) {
            if (!swap && (k == QLatin1String("used") || k == QLatin1String("buff/cache")))
                b.samples.push_back(
                    {QStringLiteral("memory ") + k, QStringLiteral("MiB"), v * scale});
            else if (swap && k == QLatin1String("used"))
                b.samples.push_back(
                    {QStringLiteral("swap used"), QStringLiteral("MiB"), v * scale});
        }
    } else {
        return false;
    }
    return true;
}

// The process table of a block: its column header line ('PID USER … %CPU … COMMAND'), then
// its rows, each a process's %CPU and resident memory.
struct TopTable
{
    int pidCol = -1, cpuCol = -1, resCol = -1, cmdCol = -1;
    size_t headerTokens = 0;
    bool inTable = false;
};

void readTopTableLine(const Line &line, TopTable &table, TopBlock &b, WarningLog &warnings)
{
    const QByteArrayView l = line.text;
    auto &[pidCol, cpuCol, resCol, cmdCol, headerTokens, inTable] = table;
    if (l.trimmed().startsWith("PID ")) {
        const auto t = tokens(l);
        pidCol = cpuCol = resCol = cmdCol = -1;
        for (size_t i = 0; i < t.size(); ++i) {
            if (t[i].text == "PID")
                pidCol = int(i);
            else if (t[i].text == "%CPU")
                cpuCol = int(i);
            else if (t[i].text == "RES")
                resCol = int(i);
            else if (t[i].text == "COMMAND")
                cmdCol = int(i);
        }
        headerTokens = t.size();
        inTable = pidCol >= 0 && cpuCol >= 0 && cmdCol == int(t.size()) - 1;
    } else if (!inTable && !l.trimmed().isEmpty() && isDigit(l.trimmed().front())) {
        // Process rows with no 'PID USER … COMMAND' line above them in their block: their
        // columns cannot be told apart (issue 56: they were left out without a word).
        warnings.add(
            QStringLiteral("process rows without header"), line.offset,
            QStringLiteral(
                "process row at byte %1 comes without the column header line ('PID USER PR "
                "… %CPU … COMMAND') of its block; skipped")
                .arg(line.offset));
    } else if (inTable && !l.trimmed().isEmpty()) {
        const auto t = tokens(l);
        if (t.size() < headerTokens) {
            warnings.add(QStringLiteral("process row"), line.offset,
                         QStringLiteral("process row at byte %1 has %2 columns, expected %3; "
                                        "skipped")
                             .arg(line.offset)
                             .arg(t.size())
                             .arg(headerTokens));
            return;
        }
        const auto cpu = parseNumber(t[size_t(cpuCol)].text);
        const auto res =
            resCol >= 0 ? topMemoryMiB(t[size_t(resCol)].text) : std::optional<double>(0);
        if (!cpu || !res) {
            warnings.add(QStringLiteral("process value"), line.offset,
                         QStringLiteral("process row at byte %1: %CPU or RES is not a number; "
                                        "skipped")
                             .arg(line.offset));
            return;
        }
        const QString cmd = text(l.sliced(t[size_t(cmdCol)].column).trimmed());
        b.procs.push_back(
            {QStringLiteral("%1 (pid %2)").arg(cmd, text(t[size_t(pidCol)].text)), *cpu, *res});
    }
}

// The blocks of `top -b` output; a failure when the file does not start with one.
std::optional<ImportOutcome> readTopBlocks(const TextFile &file, WarningLog &warnings,
                                           std::vector<TopBlock> &blocks)
{
    TopTable table;
    for (const Line &line : file.lines) {
        const QByteArrayView l = line.text;
        if (l.startsWith("top - ")) {
            const auto m = topFirstLine().match(text(l).trimmed());
            if (!m.hasMatch()) {
                warnings.add(QStringLiteral("block header"), line.offset,
                             QStringLiteral("line at byte %1 starts like a top block but is not "
                                            "'top - HH:MM:SS up ... load average: a, b, c'; the "
                                            "block is skipped")
                                 .arg(line.offset));
                table.inTable = false;
                continue;
            }
            TopBlock b = topBlockAt(line, m, warnings);
            blocks.push_back(std::move(b));
            table.inTable = false;
            continue;
        }
        if (blocks.empty()) {
            if (!l.trimmed().isEmpty())
                return failed(line.offset, QStringLiteral("expected a 'top - HH:MM:SS up ...' "
                                                          "block header"));
            continue;
        }
        TopBlock &b = blocks.back();
        if (!readTopSummary(l, b))
            readTopTableLine(line, table, b, warnings);
    }
    return std::nullopt;
}

// The blocks written, dated (top prints the time of day only), with the processes that earn a
// track; a followed log's state carried to its next part.
void writeTopBlocks(ImportContext &ctx, LogImport &log, std::vector<TopBlock> &blocks)
{
    auto &warnings = log.warnings;
    auto &meta = log.meta;
    // Dates: top prints the time of day only. A part of a followed log goes on from the last
    // block's date and time.
    const QJsonObject kept = ctx.tail ? ctx.tail->state : QJsonObject();
    QDate date = QDate::fromString(kept.value(QStringLiteral("date")).toString(), Qt::ISODate);
    int prev = kept.value(QStringLiteral("time_ms")).toInt();
    if (!date.isValid()) {
        prev = blocks.front().time.msecsSinceStartOfDay();
        date = topFirstDate(
            ctx,
            [&] {
                std::vector<QTime> times;
                for (const TopBlock &b : blocks)
                    times.push_back(b.time);
                return times;
            }(),
            meta);
        // Said where the user reads warnings (Sources, grademl info), not only in the metadata:
        // a log copied today would otherwise sit on today's date without a word.
        if (meta.value(QStringLiteral("time_estimated")).toBool())
            warnings.add(QStringLiteral("date"), 0,
                         QStringLiteral("top prints no date: its blocks are dated %1 from the "
                                        "file's modification time (no sibling log with dates); "
                                        "if that is wrong, set the clock offset in Sources")
                             .arg(date.toString(Qt::ISODate)));
    }

    MonitorSink sink(*ctx.writer, QStringLiteral("top"));
    const bool estimated = meta.value(QStringLiteral("time_estimated")).toBool() ||
                           kept.value(QStringLiteral("estimated")).toBool();
    sink.setEstimated(estimated);
    const TrackId host = sink.host(QStringLiteral("host · top"));
    ProcessTracks processes(kept);
    for (TopBlock &b : blocks) {
        if (b.time.msecsSinceStartOfDay() < prev)
            date = date.addDays(1);
        prev = b.time.msecsSinceStartOfDay();
        const TimeNs ts = toNs(QDateTime(date, b.time, ctx.timeZone));
        for (const auto &s : b.samples)
            sink.sample(host, s.metric, s.unit, ts, s.value);
        processes.block(ts, b.procs, [&](const QString &key, TimeNs at, double cpu, double resMiB) {
            sink.sample(host, key + QStringLiteral(" %CPU"), QStringLiteral("%"), at, cpu);
            sink.sample(host, key + QStringLiteral(" RES"), QStringLiteral("MiB"), at, resMiB);
        });
    }
    meta.insert(QStringLiteral("processes_kept"),
                QStringLiteral(
                    "%1 processes with a track: seen in two blocks in a row, at %2% CPU or more in "
                    "one of them")
                    .arg(processes.admitted())
                    .arg(ProcessTracks::kBusyCpu));
    if (ctx.tail) {
        QJsonObject &state = ctx.tail->state;
        state = processes.state();
        state.insert(QStringLiteral("date"), date.toString(Qt::ISODate));
        state.insert(QStringLiteral("time_ms"), prev);
        state.insert(QStringLiteral("estimated"), estimated);
    }
}

} // namespace

ImportOutcome TopBatchImporter::import(ImportContext &ctx) const
{
    LogImport log;
    if (auto failure = startLog(ctx, log))
        return *failure;
    auto &[file, warnings, meta] = log;

    std::vector<TopBlock> blocks;
    if (auto failure = readTopBlocks(file, warnings, blocks))
        return *failure;
    if (ctx.tail && !ctx.tail->quiet && !blocks.empty()) {
        // A followed log: top writes a block at once, but the part may have been read while it
        // did, so the last block waits for the next one's header, or for the file to go quiet.
        const qint64 end = ctx.tail->fileOffset + ctx.tail->text.size() - ctx.tail->preludeBytes;
        ctx.tail->held = end - blocks.back().offset;
        blocks.pop_back();
    }
    if (blocks.empty() && ctx.tail) // a followed log with no finished block yet
        return finishLog(ctx, log);
    if (blocks.empty())
        return failed(0, QStringLiteral("no 'top - HH:MM:SS' blocks; expected top -b output"));

    writeTopBlocks(ctx, log, blocks);
    return finishLog(ctx, log);
}

} // namespace gml
