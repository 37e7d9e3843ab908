// SPDX-License-Identifier: GPL-3.0-or-later
#include "monitoringimporters.h"

#include "inputstream.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace gml {

namespace {

constexpr TimeNs kSecond = 1'000'000'000;
constexpr TimeNs kDefaultPeriod = kSecond;
constexpr TimeNs kSampleGap = 100'000'000; // rows this far apart belong to different samples
constexpr qint64 kMaxLogBytes = qint64(1) << 30;

// One line of a text log and where it starts in the (decompressed) file.
struct Line
{
    QByteArrayView text; // without the line break
    qint64 offset = 0;
};

struct TextFile
{
    QByteArray data;
    std::vector<Line> lines;
};

bool readText(const QString &path, TextFile &out, QString *error)
{
    auto buf = InputStream::readAll(path, kMaxLogBytes, QStringLiteral("a monitoring log"), error);
    if (!buf)
        return false;
    out.data = std::move(*buf);
    const QByteArrayView all(out.data);
    qsizetype pos = 0;
    while (pos < all.size()) {
        qsizetype nl = all.indexOf('\n', pos);
        if (nl < 0)
            nl = all.size();
        QByteArrayView line = all.sliced(pos, nl - pos);
        if (line.endsWith('\r'))
            line.chop(1);
        out.lines.push_back({line, pos});
        pos = nl + 1;
    }
    return true;
}

// Whitespace-separated tokens with their column positions.
struct Token
{
    QByteArrayView text;
    qsizetype column = 0;
};
std::vector<QByteArrayView> split(QByteArrayView v, char sep)
{
    std::vector<QByteArrayView> out;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= v.size(); ++i)
        if (i == v.size() || v[i] == sep) {
            out.push_back(v.sliced(start, i - start));
            start = i + 1;
        }
    return out;
}

std::vector<Token> tokens(QByteArrayView line)
{
    std::vector<Token> out;
    qsizetype i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const qsizetype start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            out.push_back({line.sliced(start, i - start), start});
    }
    return out;
}

std::optional<double> parseNumber(QByteArrayView v, QByteArrayView *rest = nullptr)
{
    v = v.trimmed();
    double d = 0;
    const char *b = v.data(), *e = v.data() + v.size();
    if (b != e && *b == '+')
        ++b;
    const auto r = std::from_chars(b, e, d);
    if (r.ec != std::errc() || !std::isfinite(d))
        return std::nullopt;
    if (rest)
        *rest = QByteArrayView(r.ptr, e - r.ptr).trimmed();
    else if (r.ptr != e)
        return std::nullopt;
    return d;
}

bool isMissing(QByteArrayView v)
{
    v = v.trimmed();
    return v.isEmpty() || v == "N/A" || v == "-" || v.startsWith("[N/A") ||
           v.startsWith("[Not Supported") || v.startsWith("[Unknown") || v == "[Insufficient Permissions]";
}

QString text(QByteArrayView v)
{
    return QString::fromUtf8(v.data(), v.size());
}

// Saturated just past the writer's limits, which then refuse the sample with a warning (a
// date in year 4046 overflowed the multiplication; found by fuzz_dmon).
TimeNs toNs(const QDateTime &dt)
{
    constexpr qint64 limitMs = kMaxAbsTimeNs / 1'000'000 + 1;
    return std::clamp<qint64>(dt.toMSecsSinceEpoch(), -limitMs, limitMs) * 1'000'000;
}

TimeNs fileMtimeNs(const QString &path)
{
    return QFileInfo(path).lastModified().toMSecsSinceEpoch() * 1'000'000;
}

// Creates the device tracks and one counter track per (device, metric) as they first appear.
class MonitorSink
{
public:
    MonitorSink(TraceWriter &w, QString tool) : m_w(w), m_tool(std::move(tool)) {}

    void setEstimated(bool estimated) { m_estimated = estimated; }

    TrackId gpu(int index, const QString &name)
    {
        const QString key = QStringLiteral("gpu:%1").arg(index);
        if (auto it = m_devices.constFind(key); it != m_devices.constEnd())
            return *it;
        TrackSpec spec;
        spec.kind = TrackKind::Gpu;
        spec.name = name.isEmpty() ? QStringLiteral("GPU %1").arg(index)
                                   : QStringLiteral("GPU %1 · %2").arg(index).arg(name);
        spec.sortKey = 1'000'000 + index;
        spec.pid = QString::number(index);
        spec.tid = QStringLiteral("monitor");
        const TrackId id = m_w.addTrack(spec);
        m_devices.insert(key, id);
        return id;
    }

    TrackId host(const QString &name)
    {
        const QString key = QStringLiteral("host:") + name;
        if (auto it = m_devices.constFind(key); it != m_devices.constEnd())
            return *it;
        TrackSpec spec;
        spec.kind = TrackKind::Host;
        spec.name = name;
        spec.sortKey = 2'000'000;
        spec.tid = QStringLiteral("monitor");
        const TrackId id = m_w.addTrack(spec);
        m_devices.insert(key, id);
        return id;
    }

    void sample(TrackId device, const QString &metric, const QString &unit, TimeNs ts, double v)
    {
        const QString key = QString::number(device) + QLatin1Char('\x1f') + metric;
        auto it = m_counters.find(key);
        if (it == m_counters.end()) {
            TrackSpec spec;
            spec.parent = device;
            spec.kind = TrackKind::Counter;
            spec.name = m_tool + QStringLiteral(" · ") + metric +
                        (m_estimated ? QStringLiteral(" (time estimated)") : QString());
            spec.sortKey = m_counters.size();
            spec.unit = unit;
            it = m_counters.insert(key, m_w.addTrack(spec));
        }
        m_w.addCounter(*it, ts, v);
        ++m_samples;
    }

    qint64 samples() const { return m_samples; }

private:
    TraceWriter &m_w;
    QString m_tool;
    bool m_estimated = false;
    QHash<QString, TrackId> m_devices;
    QHash<QString, TrackId> m_counters;
    qint64 m_samples = 0;
};

// "utilization.gpu [%]" -> ("utilization.gpu", "%").
std::pair<QString, QString> splitHeader(QByteArrayView field)
{
    const QString f = text(field.trimmed());
    const qsizetype open = f.indexOf(QLatin1Char('['));
    if (open > 0 && f.endsWith(QLatin1Char(']')))
        return {f.left(open).trimmed(), f.mid(open + 1, f.size() - open - 2).trimmed()};
    return {f, {}};
}

std::vector<QByteArrayView> splitCsv(QByteArrayView line)
{
    auto out = split(line, ',');
    for (auto &f : out)
        f = f.trimmed();
    return out;
}

bool looksLikeQueryHeader(QByteArrayView line)
{
    static const QRegularExpression field(QStringLiteral(R"(^[a-z][a-z0-9_.]*( \[[^\]]*\])?$)"));
    const auto fields = splitCsv(line);
    if (fields.size() < 2)
        return false;
    bool known = false;
    for (const auto &f : fields) {
        const QString s = text(f);
        if (!field.match(s).hasMatch())
            return false;
        known = known || s.contains(QLatin1Char('.')) || s == QLatin1String("timestamp") ||
                s == QLatin1String("index") || s == QLatin1String("uuid") || s == QLatin1String("pstate");
    }
    return known;
}

std::optional<QDateTime> parseSmiTimestamp(QByteArrayView v, const QTimeZone &zone)
{
    const QString s = text(v.trimmed());
    QDateTime dt = QDateTime::fromString(s, QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz"));
    if (!dt.isValid())
        dt = QDateTime::fromString(s, QStringLiteral("yyyy/MM/dd HH:mm:ss"));
    if (!dt.isValid())
        return std::nullopt;
    return QDateTime(dt.date(), dt.time(), zone);
}

// The parsed form of an nvidia-smi query CSV, shared by the importer and the anchor search.
struct SmiColumns
{
    std::vector<std::pair<QString, QString>> names; // (field, unit)
    int timestamp = -1, index = -1, name = -1, uuid = -1, busId = -1, memTotal = -1;
};

SmiColumns smiColumns(QByteArrayView header)
{
    SmiColumns c;
    const auto fields = splitCsv(header);
    for (size_t i = 0; i < fields.size(); ++i) {
        c.names.push_back(splitHeader(fields[i]));
        const QString &n = c.names.back().first;
        const int k = int(i);
        if (n == QLatin1String("timestamp"))
            c.timestamp = k;
        else if (n == QLatin1String("index"))
            c.index = k;
        else if (n == QLatin1String("name") || n == QLatin1String("gpu_name"))
            c.name = k;
        else if (n == QLatin1String("uuid") || n == QLatin1String("gpu_uuid"))
            c.uuid = k;
        else if (n == QLatin1String("pci.bus_id") || n == QLatin1String("gpu_bus_id"))
            c.busId = k;
        else if (n == QLatin1String("memory.total"))
            c.memTotal = k;
    }
    return c;
}

// dmon: "#Date Time gpu pwr ..." / "# gpu pwr ...", then "#YYYYMMDD HH:MM:SS Idx W ..." units.
bool isDmonHeader(QByteArrayView line)
{
    if (!line.startsWith('#'))
        return false;
    const auto t = tokens(line.sliced(1));
    if (t.empty())
        return false;
    const auto first = t.front().text;
    return (first == "gpu" || (first == "Date" && t.size() > 2 && t[2].text == "gpu"));
}

std::optional<QDateTime> parseDmonDateTime(QByteArrayView date, QByteArrayView time,
                                           const QTimeZone &zone)
{
    const QDate d = QDate::fromString(text(date), QStringLiteral("yyyyMMdd"));
    const QTime t = QTime::fromString(text(time), QStringLiteral("HH:mm:ss"));
    if (!d.isValid() || !t.isValid())
        return std::nullopt;
    return QDateTime(d, t, zone);
}

// The first absolute time in one file, if it is a log with absolute timestamps.
std::optional<TimeNs> firstAbsoluteTime(const QString &path, const QTimeZone &zone)
{
    const QByteArray head = InputStream::head(path, 16 * 1024);
    if (head.isEmpty())
        return std::nullopt;
    std::vector<QByteArrayView> lines;
    for (QByteArrayView l : split(head, '\n'))
        lines.push_back(l.endsWith('\r') ? l.chopped(1) : l);
    if (lines.size() < 2)
        return std::nullopt;
    if (looksLikeQueryHeader(lines[0])) {
        const SmiColumns c = smiColumns(lines[0]);
        if (c.timestamp < 0)
            return std::nullopt;
        for (size_t i = 1; i < lines.size(); ++i) {
            const auto f = splitCsv(lines[i]);
            if (f.size() == c.names.size())
                if (auto dt = parseSmiTimestamp(f[size_t(c.timestamp)], zone))
                    return toNs(*dt);
        }
        return std::nullopt;
    }
    if (isDmonHeader(lines[0])) {
        const auto h = tokens(lines[0].sliced(1));
        if (h.front().text != "Date")
            return std::nullopt;
        for (size_t i = 1; i < lines.size(); ++i) {
            if (lines[i].startsWith('#'))
                continue;
            const auto t = tokens(lines[i]);
            if (t.size() >= 2)
                if (auto dt = parseDmonDateTime(t[0].text, t[1].text, zone))
                    return toNs(*dt);
        }
    }
    return std::nullopt;
}

ImportOutcome failed(qint64 offset, const QString &message)
{
    return ImportOutcome{ImportOutcome::Status::Failed, offset, message, {}};
}

// What every log import shares: the file's lines, folded warnings and the source metadata.
struct LogImport
{
    TextFile file;
    WarningLog warnings;
    QJsonObject meta;
};

// Reads the log and records the time zone its local times are read in; a failure on error.
std::optional<ImportOutcome> startLog(ImportContext &ctx, LogImport &log)
{
    QString error;
    if (!readText(ctx.path, log.file, &error))
        return failed(-1, error);
    log.meta.insert(QStringLiteral("time_zone"), QString::fromUtf8(ctx.timeZone.id()));
    return std::nullopt;
}

ImportOutcome finishLog(ImportContext &ctx, const LogImport &log)
{
    ctx.writer->setSourceMetadata(log.meta);
    ImportOutcome outcome;
    outcome.warnings = log.warnings.list();
    return outcome;
}

bool reportProgress(ImportContext &ctx, const LogImport &log, qint64 offset)
{
    const qint64 total = log.file.data.size();
    return !ctx.progress || ctx.progress(total > 0 ? double(offset) / double(total) : 0.0);
}

// The sample of each row: a new sample starts where a device of the current one repeats.
template <typename Key>
std::vector<int> samplesByRepeat(const std::vector<Key> &devices)
{
    std::vector<int> sample(devices.size());
    QSet<Key> inSample;
    int s = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
        if (inSample.contains(devices[i])) {
            ++s;
            inSample.clear();
        }
        inSample.insert(devices[i]);
        sample[i] = s;
    }
    return sample;
}

// Places samples without absolute times: the sibling anchor, else the file's modification
// time as the last sample's time. Records the rule in the source metadata.
TimeNs estimatedStart(ImportContext &ctx, qint64 samples, TimeNs period, QJsonObject &meta)
{
    meta.insert(QStringLiteral("time_estimated"), true);
    meta.insert(QStringLiteral("sampling_period_ns"), period);
    if (auto anchor = siblingTimeAnchor(ctx.path, ctx.timeZone)) {
        meta.insert(QStringLiteral("time_placement"),
                    QStringLiteral("first sample at the first timestamp of %1, one sample per %2 s")
                        .arg(anchor->from)
                        .arg(double(period) / 1e9));
        return anchor->start;
    }
    meta.insert(QStringLiteral("time_placement"),
                QStringLiteral("last sample at the file's modification time, one sample per %1 s")
                    .arg(double(period) / 1e9));
    return fileMtimeNs(ctx.path) - std::max<qint64>(samples - 1, 0) * period;
}

} // namespace

std::optional<TimeAnchor> siblingTimeAnchor(const QString &path, const QTimeZone &zone)
{
    const QFileInfo self(path);
    const QDir dir = self.absoluteDir();
    std::optional<TimeAnchor> best;
    const auto entries = dir.entryInfoList(QDir::Files | QDir::Readable, QDir::Name);
    for (const QFileInfo &f : entries) {
        if (f.absoluteFilePath() == self.absoluteFilePath() || f.size() == 0 ||
            f.size() > kMaxLogBytes)
            continue;
        if (auto t = firstAbsoluteTime(f.absoluteFilePath(), zone))
            if (!best || *t < best->start)
                best = TimeAnchor{*t, f.fileName()};
    }
    return best;
}

// --- nvidia-smi --query-gpu CSV -----------------------------------------------------------

SniffResult NvidiaSmiCsvImporter::sniff(const QString &, const QByteArray &head) const
{
    const qsizetype nl = head.indexOf('\n');
    QByteArrayView first = nl < 0 ? QByteArrayView(head) : QByteArrayView(head).first(nl);
    if (first.endsWith('\r'))
        first.chop(1);
    return looksLikeQueryHeader(first) ? SniffResult{90, {}} : SniffResult{};
}

ImportOutcome NvidiaSmiCsvImporter::import(ImportContext &ctx) const
{
    LogImport log;
    if (auto failure = startLog(ctx, log))
        return *failure;
    auto &[file, warnings, meta] = log;
    if (file.lines.empty() || !looksLikeQueryHeader(file.lines[0].text))
        return failed(0, QStringLiteral("expected an nvidia-smi --query-gpu CSV header such as "
                                        "'name, timestamp, utilization.gpu [%]'"));
    const QByteArrayView headerLine = file.lines[0].text;
    const SmiColumns cols = smiColumns(headerLine);
    const size_t ncols = cols.names.size();

    // Pass 1: the rows that parse, with their timestamps.
    struct Row
    {
        std::vector<QByteArrayView> fields;
        qint64 offset;
        std::optional<TimeNs> ts;
    };
    std::vector<Row> rows;
    for (size_t i = 1; i < file.lines.size(); ++i) {
        const Line &line = file.lines[i];
        if (line.text.trimmed().isEmpty())
            continue;
        if (line.text == headerLine) {
            warnings.add(QStringLiteral("header repeated"), line.offset,
                         QStringLiteral("the header line is repeated at byte %1 (several "
                                        "nvidia-smi runs appended to one file?); skipped")
                             .arg(line.offset));
            continue;
        }
        auto fields = splitCsv(line.text);
        if (fields.size() != ncols) {
            warnings.add(QStringLiteral("field count"), line.offset,
                         QStringLiteral("row at byte %1 has %2 fields, expected %3 as in the "
                                        "header (truncated or garbled line); skipped")
                             .arg(line.offset)
                             .arg(fields.size())
                             .arg(ncols));
            continue;
        }
        Row row{std::move(fields), line.offset, std::nullopt};
        if (cols.timestamp >= 0) {
            auto dt = parseSmiTimestamp(row.fields[size_t(cols.timestamp)], ctx.timeZone);
            if (!dt) {
                warnings.add(QStringLiteral("timestamp"), line.offset,
                             QStringLiteral("row at byte %1: timestamp '%2' is not "
                                            "yyyy/MM/dd HH:mm:ss.zzz; row skipped")
                                 .arg(line.offset)
                                 .arg(text(row.fields[size_t(cols.timestamp)])));
                continue;
            }
            row.ts = toNs(*dt);
        }
        rows.push_back(std::move(row));
    }
    if (rows.empty())
        return failed(file.lines.size() > 1 ? file.lines[1].offset : headerLine.size(),
                      QStringLiteral("no sample rows after the header; expected lines of %1 "
                                     "comma-separated values")
                          .arg(ncols));

    // Device of each row and sample index.
    const int idCol = cols.index >= 0 ? cols.index : (cols.uuid >= 0 ? cols.uuid : cols.busId);
    std::vector<int> device(rows.size()), sample(rows.size());
    if (idCol >= 0) {
        QHash<QString, int> ids;
        for (size_t i = 0; i < rows.size(); ++i) {
            const QString key = text(rows[i].fields[size_t(idCol)]);
            int d = 0;
            if (cols.index >= 0) {
                bool ok = false;
                d = key.toInt(&ok);
                if (!ok)
                    d = int(ids.size());
            }
            if (cols.index < 0 || d < 0) {
                auto it = ids.constFind(key);
                d = it != ids.constEnd() ? *it : int(ids.size());
                ids.insert(key, d);
            }
            device[i] = d;
        }
        sample = samplesByRepeat(device);
    } else if (cols.timestamp >= 0) {
        int s = 0, pos = 0;
        for (size_t i = 0; i < rows.size(); ++i) {
            if (i > 0 && *rows[i].ts - *rows[i - 1].ts >= kSampleGap) {
                ++s;
                pos = 0;
            }
            device[i] = pos++;
            sample[i] = s;
        }
        meta.insert(QStringLiteral("gpu_identity"),
                    QStringLiteral("no index column: GPU = position of the row in its sample "
                                   "(rows 100 ms or more apart start a new sample)"));
    } else {
        // No ids, no times: the period of the (name, memory.total) sequence is the GPU count.
        auto key = [&](size_t i) {
            QString k = cols.name >= 0 ? text(rows[i].fields[size_t(cols.name)]) : QString();
            if (cols.memTotal >= 0)
                k += QLatin1Char('\x1f') + text(rows[i].fields[size_t(cols.memTotal)]);
            return k;
        };
        size_t period = 1;
        for (size_t p = 1; p <= std::min<size_t>(64, rows.size()); ++p) {
            bool ok = true;
            for (size_t i = p; i < rows.size() && ok; ++i)
                ok = key(i) == key(i - p);
            if (ok) {
                period = p;
                break;
            }
        }
        if (period == 1 && rows.size() > 1 && cols.name >= 0)
            warnings.add(QStringLiteral("identity"), rows[0].offset,
                         QStringLiteral("no index, uuid, bus id or timestamp column and every row "
                                        "looks alike: all rows are taken as one GPU"));
        for (size_t i = 0; i < rows.size(); ++i) {
            device[i] = int(i % period);
            sample[i] = int(i / period);
        }
        meta.insert(QStringLiteral("gpu_identity"),
                    QStringLiteral("no index or timestamp column: %1 GPU(s) per sample, from the "
                                   "repeating sequence of names")
                        .arg(period));
    }

    MonitorSink sink(*ctx.writer, QStringLiteral("nvidia-smi"));
    TimeNs start = 0;
    if (cols.timestamp < 0) {
        sink.setEstimated(true);
        start = estimatedStart(ctx, qint64(sample.back()) + 1, kDefaultPeriod, meta);
    }
    // Per column: values that are numbers, and those that are not (the first one shown). A
    // column of text ("Enabled") is left out; a number column keeps its numbers around a 'nan'.
    struct ColumnCheck
    {
        qint64 numbers = 0, others = 0, firstOffset = -1;
        QString first;
    };
    std::vector<ColumnCheck> checks(ncols);
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row &row = rows[i];
        if ((i & 1023) == 0 && !reportProgress(ctx, log, row.offset))
            return ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}};
        const TimeNs ts = row.ts ? *row.ts : start + TimeNs(sample[i]) * kDefaultPeriod;
        const QString name = cols.name >= 0 ? text(row.fields[size_t(cols.name)]) : QString();
        const TrackId gpu = sink.gpu(device[i], name);
        for (size_t c = 0; c < ncols; ++c) {
            if (int(c) == cols.timestamp || int(c) == cols.index || int(c) == cols.name ||
                int(c) == cols.uuid || int(c) == cols.busId)
                continue;
            const QByteArrayView v = row.fields[c];
            if (isMissing(v))
                continue;
            const auto &[field, unit] = cols.names[c];
            QByteArrayView rest;
            std::optional<double> value = parseNumber(v, &rest);
            if (value && !rest.isEmpty() && text(rest) != unit) {
                value.reset();
            }
            if (!value && field == QLatin1String("pstate") && v.size() >= 2 && v[0] == 'P')
                value = parseNumber(v.sliced(1));
            auto &check = checks[c];
            if (!value) {
                if (check.others++ == 0) {
                    check.first = text(v);
                    check.firstOffset = row.offset;
                }
                continue;
            }
            ++check.numbers;
            sink.sample(gpu, field, field == QLatin1String("pstate") ? QStringLiteral("P-state") : unit,
                        ts, *value);
        }
    }
    for (size_t c = 0; c < ncols; ++c) {
        const auto &check = checks[c];
        if (check.others == 0)
            continue;
        const auto &[field, unit] = cols.names[c];
        const QString expected = unit.isEmpty() ? QStringLiteral("its unit") : unit;
        if (check.numbers == 0)
            warnings.add(QStringLiteral("non-numeric:") + field, check.firstOffset,
                         QStringLiteral("column '%1' holds no numbers in %2 (first '%3' at byte "
                                        "%4); the column is not imported")
                             .arg(field, expected, check.first)
                             .arg(check.firstOffset));
        else
            warnings.add(QStringLiteral("non-numeric value:") + field, check.firstOffset,
                         QStringLiteral("column '%1': %2 of %3 values are not numbers in %4 "
                                        "(first '%5' at byte %6); those samples are left out, "
                                        "the other %7 are imported")
                             .arg(field)
                             .arg(check.others)
                             .arg(check.others + check.numbers)
                             .arg(expected, check.first)
                             .arg(check.firstOffset)
                             .arg(check.numbers));
    }
    return finishLog(ctx, log);
}

// --- nvidia-smi dmon ------------------------------------------------------------------------

SniffResult NvidiaSmiDmonImporter::sniff(const QString &, const QByteArray &head) const
{
    const qsizetype nl = head.indexOf('\n');
    const QByteArrayView first = nl < 0 ? QByteArrayView(head) : QByteArrayView(head).first(nl);
    return isDmonHeader(first.trimmed()) ? SniffResult{90, {}} : SniffResult{};
}

ImportOutcome NvidiaSmiDmonImporter::import(ImportContext &ctx) const
{
    LogImport log;
    if (auto failure = startLog(ctx, log))
        return *failure;
    auto &[file, warnings, meta] = log;
    std::vector<QString> names, units;
    bool haveHeader = false, dated = false;
    int gpuCol = -1;
    struct Row
    {
        std::vector<Token> t;
        qint64 offset;
    };
    std::vector<Row> rows;
    for (const Line &line : file.lines) {
        const QByteArrayView l = line.text.trimmed();
        if (l.isEmpty())
            continue;
        if (l.startsWith('#')) {
            const auto t = tokens(l.sliced(1));
            if (isDmonHeader(l)) {
                std::vector<QString> n;
                for (const auto &k : t)
                    n.push_back(text(k.text));
                if (haveHeader && n != names)
                    return failed(line.offset, QStringLiteral("the column header changes mid-file "
                                                              "(expected the same columns as the "
                                                              "first header)"));
                names = std::move(n);
                dated = names.front() == QLatin1String("Date");
                gpuCol = dated ? 2 : 0;
                haveHeader = true;
            } else if (haveHeader && units.empty()) {
                for (const auto &k : t)
                    units.push_back(text(k.text));
            }
            continue;
        }
        if (!haveHeader)
            return failed(line.offset, QStringLiteral("expected the '# gpu pwr ...' header "
                                                      "before the first sample"));
        auto t = tokens(l);
        if (t.size() != names.size()) {
            warnings.add(QStringLiteral("field count"), line.offset,
                         QStringLiteral("row at byte %1 has %2 columns, expected %3; skipped")
                             .arg(line.offset)
                             .arg(t.size())
                             .arg(names.size()));
            continue;
        }
        rows.push_back({std::move(t), line.offset});
    }
    if (rows.empty())
        return failed(0, QStringLiteral("no sample rows; expected 'nvidia-smi dmon' output"));

    MonitorSink sink(*ctx.writer, QStringLiteral("nvidia-smi dmon"));
    std::vector<QString> gpus;
    for (const Row &row : rows)
        gpus.push_back(text(row.t[size_t(gpuCol)].text));
    const std::vector<int> sample = samplesByRepeat(gpus);
    TimeNs start = 0;
    if (!dated) {
        sink.setEstimated(true);
        start = estimatedStart(ctx, qint64(sample.back()) + 1, kDefaultPeriod, meta);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto &t = rows[i].t;
        TimeNs ts = start + TimeNs(sample[i]) * kDefaultPeriod;
        if (dated) {
            auto dt = parseDmonDateTime(t[0].text, t[1].text, ctx.timeZone);
            if (!dt) {
                warnings.add(QStringLiteral("time"), rows[i].offset,
                             QStringLiteral("row at byte %1: '%2 %3' is not YYYYMMDD HH:MM:SS; "
                                            "skipped")
                                 .arg(rows[i].offset)
                                 .arg(text(t[0].text), text(t[1].text)));
                continue;
            }
            ts = toNs(*dt);
        }
        bool ok = false;
        const int index = text(t[size_t(gpuCol)].text).toInt(&ok);
        if (!ok) {
            warnings.add(QStringLiteral("gpu"), rows[i].offset,
                         QStringLiteral("row at byte %1: GPU index '%2' is not a number; skipped")
                             .arg(rows[i].offset)
                             .arg(text(t[size_t(gpuCol)].text)));
            continue;
        }
        const TrackId gpu = sink.gpu(index, {});
        for (size_t c = size_t(gpuCol) + 1; c < t.size(); ++c) {
            if (isMissing(t[c].text))
                continue;
            const auto v = parseNumber(t[c].text);
            if (!v) {
                warnings.add(QStringLiteral("value:") + names[c], rows[i].offset,
                             QStringLiteral("row at byte %1: '%2' in column %3 is not a number; "
                                            "skipped")
                                 .arg(rows[i].offset)
                                 .arg(text(t[c].text), names[c]));
                continue;
            }
            sink.sample(gpu, names[c], c < units.size() ? units[c] : QString(), ts, *v);
        }
    }
    return finishLog(ctx, log);
}

// --- dcgmi dmon -----------------------------------------------------------------------------

namespace {

struct DcgmField
{
    const char *name;
    const char *label;
    const char *unit;
};
// DCGM field short names (dcgmi dmon -l) with what they measure and their unit.
constexpr DcgmField kDcgmFields[] = {
    {"POWER", "power", "W"},
    {"TOTEC", "total energy", "mJ"},
    {"TXTPT", "PCIe TX throughput", "KB/s"},
    {"RXTPT", "PCIe RX throughput", "KB/s"},
    {"GPUTL", "GPU utilization", "%"},
    {"MCUTL", "memory copy utilization", "%"},
    {"GRACT", "graphics engine active", "ratio"},
    {"SMACT", "SM active", "ratio"},
    {"SMOCC", "SM occupancy", "ratio"},
    {"TENSO", "tensor pipe active", "ratio"},
    {"DRAMA", "DRAM active", "ratio"},
    {"FP64A", "FP64 pipe active", "ratio"},
    {"FP32A", "FP32 pipe active", "ratio"},
    {"FP16A", "FP16 pipe active", "ratio"},
    {"PCITX", "PCIe TX", "B/s"},
    {"PCIRX", "PCIe RX", "B/s"},
    {"NVLTX", "NVLink TX", "B/s"},
    {"NVLRX", "NVLink RX", "B/s"},
    {"SMCLK", "SM clock", "MHz"},
    {"MMCLK", "memory clock", "MHz"},
    {"TMPTR", "GPU temperature", "C"},
    {"MMTMP", "memory temperature", "C"},
    {"FBUSD", "framebuffer used", "MiB"},
    {"FBFRE", "framebuffer free", "MiB"},
};

} // namespace

SniffResult DcgmiDmonImporter::sniff(const QString &, const QByteArray &head) const
{
    const QByteArrayView h = QByteArrayView(head).trimmed();
    return h.startsWith("#Entity") || h.startsWith("# Entity") ? SniffResult{95, {}} : SniffResult{};
}

ImportOutcome DcgmiDmonImporter::import(ImportContext &ctx) const
{
    LogImport log;
    if (auto failure = startLog(ctx, log))
        return *failure;
    auto &[file, warnings, meta] = log;
    struct Column
    {
        QString name, label, unit;
        qsizetype position = 0;
    };
    std::vector<Column> columns; // after the entity column
    QByteArray firstHeader;
    qint64 badRows = 0;
    std::pair<qint64, QString> firstBadRow;
    bool expectUnits = false;
    struct Row
    {
        QString entity;
        std::vector<Token> values;
        qint64 offset;
    };
    std::vector<Row> rows;
    for (const Line &line : file.lines) {
        const QByteArrayView l = line.text;
        if (l.trimmed().isEmpty())
            continue;
        if (l.startsWith("#Entity") || l.startsWith("# Entity")) {
            const QByteArray h = l.trimmed().toByteArray();
            if (!firstHeader.isEmpty()) {
                if (h != firstHeader)
                    return failed(line.offset, QStringLiteral("the column header changes mid-file; "
                                                              "expected the same fields as the "
                                                              "first header"));
                expectUnits = true;
                continue;
            }
            firstHeader = h;
            const auto t = tokens(l);
            for (size_t i = (t[0].text == "#" ? 2 : 1); i < t.size(); ++i) {
                Column c;
                c.name = text(t[i].text);
                c.position = t[i].column;
                c.label = c.name;
                for (const auto &f : kDcgmFields)
                    if (c.name == QLatin1String(f.name)) {
                        c.label = QStringLiteral("%1 (%2)").arg(c.name, QLatin1String(f.label));
                        c.unit = QLatin1String(f.unit);
                    }
                columns.push_back(c);
            }
            expectUnits = true;
            continue;
        }
        if (expectUnits && (l.startsWith("ID") || l.startsWith("# ID"))) {
            expectUnits = false;
            // Units sit under their column: take each token's column by position.
            for (const auto &t : tokens(l)) {
                if (t.text == "ID" || t.text == "#")
                    continue;
                for (size_t i = columns.size(); i-- > 0;) {
                    if (columns[i].position <= t.column) {
                        QString u = text(t.text);
                        if (u.endsWith(QLatin1Char('/')))
                            u += QLatin1Char('s'); // dcgmi truncates "KB/s" to the column width
                        columns[i].unit = u;
                        break;
                    }
                }
            }
            continue;
        }
        expectUnits = false;
        if (columns.empty())
            return failed(line.offset, QStringLiteral("expected the '#Entity POWER ...' header "
                                                      "line before the first sample"));
        auto t = tokens(l);
        if (t.size() < 2 || t.size() - 2 != columns.size()) {
            const QString message = QStringLiteral("row at byte %1 has %2 values, expected an "
                                                   "entity and %3 fields")
                                        .arg(line.offset)
                                        .arg(qsizetype(t.size()) - 2)
                                        .arg(columns.size());
            if (badRows++ == 0)
                firstBadRow = {line.offset, message};
            warnings.add(QStringLiteral("field count"), line.offset, message + QStringLiteral("; skipped"));
            continue;
        }
        Row row;
        row.entity = text(t[0].text) + QLatin1Char(' ') + text(t[1].text);
        row.values.assign(t.begin() + 2, t.end());
        row.offset = line.offset;
        rows.push_back(std::move(row));
    }
    if (rows.empty() && badRows > 0)
        return failed(firstBadRow.first,
                      QStringLiteral("none of the %1 sample rows matches the header (%2); "
                                     "expected 'dcgmi dmon' rows with one value per field")
                          .arg(badRows)
                          .arg(firstBadRow.second));
    if (rows.empty())
        return failed(0, QStringLiteral("no sample rows; expected 'dcgmi dmon' output"));

    std::vector<QString> entities;
    for (const Row &row : rows)
        entities.push_back(row.entity);
    const std::vector<int> sample = samplesByRepeat(entities);
    MonitorSink sink(*ctx.writer, QStringLiteral("dcgmi"));
    sink.setEstimated(true);
    const TimeNs start = estimatedStart(ctx, qint64(sample.back()) + 1, kDefaultPeriod, meta);
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row &row = rows[i];
        if ((i & 1023) == 0 && !reportProgress(ctx, log, row.offset))
            return ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}};
        const TimeNs ts = start + TimeNs(sample[i]) * kDefaultPeriod;
        TrackId device = 0;
        if (row.entity.startsWith(QLatin1String("GPU "))) {
            bool ok = false;
            const int index = row.entity.mid(4).toInt(&ok);
            if (!ok) {
                warnings.add(QStringLiteral("entity"), row.offset,
                             QStringLiteral("row at byte %1: entity '%2' has no GPU number; skipped")
                                 .arg(row.offset)
                                 .arg(row.entity));
                continue;
            }
            device = sink.gpu(index, {});
        } else {
            device = sink.host(row.entity); // GPU instances, switches, ...
        }
        for (size_t c = 0; c < columns.size(); ++c) {
            if (isMissing(row.values[c].text))
                continue;
            const auto v = parseNumber(row.values[c].text);
            if (!v) {
                warnings.add(QStringLiteral("value:") + columns[c].name, row.offset,
                             QStringLiteral("row at byte %1: '%2' in column %3 is not a number; "
                                            "skipped")
                                 .arg(row.offset)
                                 .arg(text(row.values[c].text), columns[c].name));
                continue;
            }
            sink.sample(device, columns[c].label, columns[c].unit, ts, *v);
        }
    }
    return finishLog(ctx, log);
}

// --- top -b ---------------------------------------------------------------------------------

namespace {

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
        case 'k': case 'K': scale = 1.0 / 1024; v.chop(1); break;
        case 'm': case 'M': scale = 1; v.chop(1); break;
        case 'g': case 'G': scale = 1024; v.chop(1); break;
        case 't': case 'T': scale = 1024.0 * 1024; v.chop(1); break;
        case 'p': case 'P': scale = 1024.0 * 1024 * 1024; v.chop(1); break;
        default: break;
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

} // namespace

SniffResult TopBatchImporter::sniff(const QString &, const QByteArray &head) const
{
    const qsizetype nl = head.indexOf('\n');
    const QString first = QString::fromUtf8(nl < 0 ? head : head.left(nl)).trimmed();
    // Recognised by its shape alone; a block header with an odd value ("load average:
    // 1e+30") is then reported by the import with its byte offset, not taken as unrecognised.
    static const QRegularExpression shape(QStringLiteral(R"(^top - \S+ +up .*load average:)"));
    return shape.match(first).hasMatch() ? SniffResult{90, {}} : SniffResult{};
}

ImportOutcome TopBatchImporter::import(ImportContext &ctx) const
{
    LogImport log;
    if (auto failure = startLog(ctx, log))
        return *failure;
    auto &[file, warnings, meta] = log;

    struct Sample
    {
        QString metric, unit;
        double value;
    };
    struct ProcSample
    {
        QString key; // "python (pid 91607)"
        double cpu, resMiB;
    };
    struct Block
    {
        QTime time;
        qint64 offset;
        std::vector<Sample> samples;
        std::vector<ProcSample> procs;
    };
    std::vector<Block> blocks;
    int pidCol = -1, cpuCol = -1, resCol = -1, cmdCol = -1;
    size_t headerTokens = 0;
    bool inTable = false;
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
                inTable = false;
                continue;
            }
            Block b;
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
            blocks.push_back(std::move(b));
            inTable = false;
            continue;
        }
        if (blocks.empty()) {
            if (!l.trimmed().isEmpty())
                return failed(line.offset, QStringLiteral("expected a 'top - HH:MM:SS up ...' "
                                                          "block header"));
            continue;
        }
        Block &b = blocks.back();
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
                    b.samples.push_back({QStringLiteral("memory ") + k, QStringLiteral("MiB"), v * scale});
                else if (swap && k == QLatin1String("used"))
                    b.samples.push_back({QStringLiteral("swap used"), QStringLiteral("MiB"), v * scale});
            }
        } else if (l.trimmed().startsWith("PID ")) {
            const auto t = tokens(l);
            pidCol = cpuCol = resCol = cmdCol = -1;
            for (size_t i = 0; i < t.size(); ++i) {
                if (t[i].text == "PID") pidCol = int(i);
                else if (t[i].text == "%CPU") cpuCol = int(i);
                else if (t[i].text == "RES") resCol = int(i);
                else if (t[i].text == "COMMAND") cmdCol = int(i);
            }
            headerTokens = t.size();
            inTable = pidCol >= 0 && cpuCol >= 0 && cmdCol == int(t.size()) - 1;
        } else if (inTable && !l.trimmed().isEmpty()) {
            const auto t = tokens(l);
            if (t.size() < headerTokens) {
                warnings.add(QStringLiteral("process row"), line.offset,
                             QStringLiteral("process row at byte %1 has %2 columns, expected %3; "
                                            "skipped")
                                 .arg(line.offset)
                                 .arg(t.size())
                                 .arg(headerTokens));
                continue;
            }
            const auto cpu = parseNumber(t[size_t(cpuCol)].text);
            const auto res = resCol >= 0 ? topMemoryMiB(t[size_t(resCol)].text) : std::optional<double>(0);
            if (!cpu || !res) {
                warnings.add(QStringLiteral("process value"), line.offset,
                             QStringLiteral("process row at byte %1: %CPU or RES is not a number; "
                                            "skipped")
                                 .arg(line.offset));
                continue;
            }
            const QString cmd = text(l.sliced(t[size_t(cmdCol)].column).trimmed());
            b.procs.push_back({QStringLiteral("%1 (pid %2)").arg(cmd, text(t[size_t(pidCol)].text)),
                               *cpu, *res});
        }
    }
    if (blocks.empty())
        return failed(0, QStringLiteral("no 'top - HH:MM:SS' blocks; expected top -b output"));

    // Dates: top prints the time of day only.
    QDate date;
    const int first = blocks.front().time.msecsSinceStartOfDay();
    if (auto anchor = siblingTimeAnchor(ctx.path, ctx.timeZone)) {
        const QDateTime a = QDateTime::fromMSecsSinceEpoch(anchor->start / 1'000'000, ctx.timeZone);
        date = a.date();
        qint64 best = std::numeric_limits<qint64>::max();
        for (int shift = -1; shift <= 1; ++shift) {
            const QDate d = a.date().addDays(shift);
            const qint64 diff = std::abs(QDateTime(d, blocks.front().time, ctx.timeZone)
                                             .msecsTo(a));
            if (diff < best) {
                best = diff;
                date = d;
            }
        }
        meta.insert(QStringLiteral("time_placement"),
                    QStringLiteral("date from %1 (top prints the time of day only)").arg(anchor->from));
    } else {
        // The last block's date is the file's modification date.
        const QDateTime m = QFileInfo(ctx.path).lastModified().toTimeZone(ctx.timeZone);
        int days = 0;
        int prev = first;
        for (const Block &b : blocks) {
            if (b.time.msecsSinceStartOfDay() < prev)
                ++days;
            prev = b.time.msecsSinceStartOfDay();
        }
        QDate last = m.date();
        if (blocks.back().time > m.time().addSecs(60))
            last = last.addDays(-1);
        date = last.addDays(-days);
        meta.insert(QStringLiteral("time_placement"),
                    QStringLiteral("date from the file's modification time (top prints the time "
                                   "of day only; no sibling log with dates)"));
        meta.insert(QStringLiteral("time_estimated"), true);
    }
    // Processes worth a track: seen in two blocks or more, busy at least once.
    QHash<QString, int> seen;
    QHash<QString, double> peak;
    for (const Block &b : blocks)
        for (const auto &p : b.procs) {
            ++seen[p.key];
            peak[p.key] = std::max(peak.value(p.key), p.cpu);
        }
    constexpr double kBusyCpu = 10.0;
    int leftOut = 0;
    for (auto it = seen.cbegin(); it != seen.cend(); ++it)
        if (it.value() < 2 || peak.value(it.key()) < kBusyCpu)
            ++leftOut;
    meta.insert(QStringLiteral("processes_left_out"),
                QStringLiteral("%1 processes seen in one block only or never above %2% CPU")
                    .arg(leftOut)
                    .arg(kBusyCpu));

    MonitorSink sink(*ctx.writer, QStringLiteral("top"));
    const bool estimated = meta.value(QStringLiteral("time_estimated")).toBool();
    sink.setEstimated(estimated);
    const TrackId host = sink.host(QStringLiteral("host · top"));
    int prev = first;
    for (Block &b : blocks) {
        if (b.time.msecsSinceStartOfDay() < prev)
            date = date.addDays(1);
        prev = b.time.msecsSinceStartOfDay();
        const TimeNs ts = toNs(QDateTime(date, b.time, ctx.timeZone));
        for (const auto &s : b.samples)
            sink.sample(host, s.metric, s.unit, ts, s.value);
        for (const auto &p : b.procs) {
            if (seen.value(p.key) < 2 || peak.value(p.key) < kBusyCpu)
                continue;
            sink.sample(host, p.key + QStringLiteral(" %CPU"), QStringLiteral("%"), ts, p.cpu);
            sink.sample(host, p.key + QStringLiteral(" RES"), QStringLiteral("MiB"), ts, p.resMiB);
        }
    }
    return finishLog(ctx, log);
}

} // namespace gml
