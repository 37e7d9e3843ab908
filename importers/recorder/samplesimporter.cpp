// SPDX-License-Identifier: GPL-3.0-or-later
#include "samplesimporter.h"

#include "inputstream.h"

#include <QHash>

#include <charconv>
#include <cmath>

namespace gml {

namespace {

constexpr qint64 kMaxSamplesBytes = qint64(4) << 30;

} // namespace

std::optional<QByteArray> SamplesImporter::tailPrelude(QByteArrayView prelude,
                                                       QByteArrayView lines) const
{
    // The format line, the host and every series declared so far.
    QByteArray out = prelude.toByteArray();
    forEachLine(lines, [&](QByteArrayView line) {
        if (out.isEmpty() || line.startsWith("host,") || line.startsWith("series,"))
            out.append(line).append('\n');
        return true;
    });
    return out;
}

SniffResult SamplesImporter::sniff(const QString &, const QByteArray &head) const
{
    return head.startsWith("grademl-samples ") ? SniffResult{100, {}} : SniffResult{};
}

namespace {

// A samples file's series and the rows they are drawn under, as its lines declare them.
class SamplesReader
{
public:
    explicit SamplesReader(ImportContext &ctx) : m_ctx(ctx), m_w(*ctx.writer) {}

    // A 'series,ID,ENTITY,METRIC,UNIT' line: its counter track under its entity's row; a
    // failure when it is malformed or declared twice.
    std::optional<ImportOutcome> declare(QByteArrayView line, qint64 offset, int lineNo);
    // A 'TIME_NS,SERIES,VALUE' line: a point of its series; a failure when it is malformed or
    // its series undeclared; a time or value past what a number holds is said in `outOfRange`.
    std::optional<ImportOutcome> sample(QByteArrayView line, qint64 offset, int lineNo,
                                        WarningLog &outOfRange);

    QString hostName = QStringLiteral("host");
    int seriesCount() const { return int(m_series.size()); }

private:
    TrackId host();
    // The row a series is drawn under: the host (its own and its cores' series), the command's
    // tree, or one process.
    TrackId rowOf(const QString &entity);

    ImportContext &m_ctx;
    TraceWriter &m_w;
    struct Series
    {
        TrackId track = 0;
    };
    QHash<int, Series> m_series;
    QHash<QString, TrackId> m_rows; // entity row -> track
    TrackId m_hostTrack = 0;
};

TrackId SamplesReader::host()
{
    if (!m_hostTrack) {
        TrackSpec s;
        s.kind = TrackKind::Host;
        s.name = QStringLiteral("host · %1 (recorded)").arg(hostName);
        s.sortKey = 2'000'000;
        s.tid = QStringLiteral("monitor");
        m_hostTrack = m_w.addTrack(s);
    }
    return m_hostTrack;
}

TrackId SamplesReader::rowOf(const QString &entity)
{
    if (entity == QLatin1String("host") ||
        (entity.startsWith(QLatin1String("cpu")) && entity.size() > 3))
        return host();
    if (auto it = m_rows.constFind(entity); it != m_rows.constEnd())
        return *it;
    TrackSpec s;
    s.kind = TrackKind::Process;
    s.parent = host();
    s.tid = QStringLiteral("monitor");
    if (entity == QLatin1String("command")) {
        s.name = QStringLiteral("command (process tree)");
        s.sortKey = 0;
    } else {
        const QStringList parts = entity.split(QLatin1Char(' '));
        s.pid = parts.value(1);
        s.name = QStringLiteral("%1 (pid %2)").arg(parts.mid(2).join(QLatin1Char(' ')), s.pid);
        s.sortKey = 1 + s.pid.toLongLong();
    }
    return *m_rows.insert(entity, m_w.addTrack(s));
}

std::optional<ImportOutcome> SamplesReader::declare(QByteArrayView line, qint64 offset, int lineNo)
{
    const QList<QByteArray> f = line.toByteArray().split(',');
    bool ok = false;
    const int id = f.size() == 5 ? f[1].toInt(&ok) : 0;
    if (!ok || f[2].isEmpty() || f[3].isEmpty())
        return ImportOutcome::failure(
            offset, QStringLiteral("line %1: expected 'series,ID,ENTITY,METRIC,UNIT' with a whole "
                                   "number ID; got '%2'")
                        .arg(m_ctx.fileLine(lineNo))
                        .arg(QString::fromUtf8(line.first(std::min<qsizetype>(line.size(), 80)))));
    if (m_series.contains(id))
        return ImportOutcome::failure(offset, QStringLiteral("line %1: series %2 is declared twice")
                                                  .arg(m_ctx.fileLine(lineNo))
                                                  .arg(id));
    const QString entity = QString::fromUtf8(f[2]);
    TrackSpec s;
    s.kind = TrackKind::Counter;
    s.parent = rowOf(entity);
    const bool core = entity.startsWith(QLatin1String("cpu"));
    s.name = core ? QStringLiteral("%1 %2").arg(entity, QString::fromUtf8(f[3]))
                  : QString::fromUtf8(f[3]);
    // The host's own series first, then its cores in order.
    s.sortKey = core ? 1000 + entity.mid(3).toInt() : id;
    s.unit = QString::fromUtf8(f[4]);
    m_series.insert(id, {m_w.addTrack(s)});
    return std::nullopt;
}

std::optional<ImportOutcome> SamplesReader::sample(QByteArrayView line, qint64 offset, int lineNo,
                                                   WarningLog &outOfRange)
{
    // TIME_NS,ID,VALUE
    const qsizetype c1 = line.indexOf(','), c2 = c1 < 0 ? -1 : line.indexOf(',', c1 + 1);
    qint64 t = 0;
    int id = -1;
    double v = 0;
    const char *b = line.data();
    std::from_chars_result rt{}, rv{};
    const bool parsed =
        c1 > 0 && c2 > c1 && (rt = std::from_chars(b, b + c1, t)).ptr == b + c1 &&
        std::from_chars(b + c1 + 1, b + c2, id).ptr == b + c2 &&
        (rv = std::from_chars(b + c2 + 1, b + line.size(), v)).ptr == b + line.size();
    if (!parsed)
        return ImportOutcome::failure(
            offset,
            QStringLiteral("line %1: expected 'TIME_NS,SERIES,VALUE' (or a 'series,' or 'host,' "
                           "line); got '%2'")
                .arg(m_ctx.fileLine(lineNo))
                .arg(QString::fromUtf8(line.first(std::min<qsizetype>(line.size(), 80)))));
    // Digits past what a 64-bit time or a double holds (2^64, 1e999, 50 MB of digits):
    // from_chars leaves the value as it was (0, 1970), so the sample is left out and said.
    if (rt.ec == std::errc::result_out_of_range || rv.ec == std::errc::result_out_of_range) {
        const bool time = rt.ec == std::errc::result_out_of_range;
        const QByteArrayView text = time ? line.first(c1) : line.sliced(c2 + 1);
        outOfRange.add(
            time ? QStringLiteral("time") : QStringLiteral("value"), offset,
            QStringLiteral("line %1: the %2 '%3' (%4 characters) is past what %5 holds; the "
                           "sample is left out")
                .arg(m_ctx.fileLine(lineNo))
                .arg(time ? QStringLiteral("time") : QStringLiteral("value"),
                     QString::fromUtf8(text.first(std::min<qsizetype>(text.size(), 24))) +
                         (text.size() > 24 ? QStringLiteral("…") : QString()))
                .arg(text.size())
                .arg(time ? QStringLiteral("a time in ns since 1970 (64 bits)")
                          : QStringLiteral("a number")));
        return std::nullopt;
    }
    const auto it = m_series.constFind(id);
    if (it == m_series.constEnd())
        return ImportOutcome::failure(
            offset,
            QStringLiteral("line %1: series %2 is used before a 'series,%2,...' line declares it")
                .arg(m_ctx.fileLine(lineNo))
                .arg(id));
    m_w.addCounter(it->track, t, v);
    return std::nullopt;
}

} // namespace

ImportOutcome SamplesImporter::import(ImportContext &ctx) const
{
    QString error;
    // A followed file is read in parts: its prelude and the lines appended (importer.h).
    const auto read = ctx.tail ? std::optional<QByteArray>(ctx.tail->text)
                               : InputStream::readAll(ctx.path, kMaxSamplesBytes,
                                                      QStringLiteral("a samples file"), &error);
    if (!read)
        return ImportOutcome::failure(-1, error);
    const QByteArray &data = *read;
    TraceWriter &w = *ctx.writer;
    QList<ImportWarning> warnings;
    SamplesReader reader(ctx);
    const QByteArrayView all(data);
    qsizetype pos = 0;
    int lineNo = 0;
    WarningLog outOfRange;
    while (pos < all.size()) {
        qsizetype nl = all.indexOf('\n', pos);
        const qint64 offset = ctx.fileOffset(pos);
        ++lineNo;
        if (nl < 0) {
            // The recorder flushes whole samples: a line without its end was cut short.
            warnings.append({QStringLiteral("the last line is cut short (the recorder stopped "
                                            "while writing it); left out"),
                             offset});
            break;
        }
        QByteArrayView line = all.sliced(pos, nl - pos);
        pos = nl + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (lineNo == 1) {
            if (line != "grademl-samples 1")
                return ImportOutcome::failure(
                    offset,
                    QStringLiteral("line 1: expected 'grademl-samples 1' (this version reads "
                                   "version 1 of the format)"));
            continue;
        }
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        if (line.startsWith("host,")) {
            reader.hostName = QString::fromUtf8(line.sliced(5));
            continue;
        }
        if (line.startsWith("series,")) {
            if (auto failure = reader.declare(line, offset, lineNo))
                return *failure;
            continue;
        }
        if (auto failure = reader.sample(line, offset, lineNo, outOfRange))
            return *failure;
        if ((lineNo & 0xffff) == 0 && ctx.progress &&
            !ctx.progress(double(pos) / double(all.size()))) {
            ImportOutcome o;
            o.status = ImportOutcome::Status::Cancelled;
            return o;
        }
    }
    if (lineNo == 0)
        return ImportOutcome::failure(
            0, QStringLiteral("empty file; expected 'grademl-samples 1' on the first line"));
    QJsonObject meta;
    meta.insert(QStringLiteral("host"), reader.hostName);
    meta.insert(QStringLiteral("series"), reader.seriesCount());
    meta.insert(QStringLiteral("values"), w.counterCount()); // with a followed file's earlier parts
    w.setSourceMetadata(meta);
    ImportOutcome o;
    o.warnings = warnings + outOfRange.list();
    return o;
}

} // namespace gml
