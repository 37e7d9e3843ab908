// SPDX-License-Identifier: GPL-3.0-or-later
// nvidia-smi logs: --query-gpu CSV and dmon.
#include "monitorlog.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace gml {

using namespace monitorlog;

// --- nvidia-smi --query-gpu CSV -----------------------------------------------------------

SniffResult NvidiaSmiCsvImporter::sniff(const QString &, const QByteArray &head) const
{
    const qsizetype nl = head.indexOf('\n');
    QByteArrayView first = nl < 0 ? QByteArrayView(head) : QByteArrayView(head).first(nl);
    if (first.endsWith('\r'))
        first.chop(1);
    return looksLikeQueryHeader(first) ? SniffResult{90, {}} : SniffResult{};
}

std::optional<QByteArray> NvidiaSmiCsvImporter::tailPrelude(QByteArrayView prelude,
                                                            QByteArrayView lines) const
{
    if (!prelude.isEmpty())
        return prelude.toByteArray();
    // The header, when each row names its GPU. Without an id, GPUs are told apart by their
    // position in a sample or by the period of the rows' names, which a part may cut.
    qsizetype nl = lines.indexOf('\n');
    QByteArrayView header = lines.first(nl < 0 ? lines.size() : nl);
    if (header.endsWith('\r'))
        header.chop(1);
    const SmiColumns cols = smiColumns(header);
    if (!looksLikeQueryHeader(header) || (cols.index < 0 && cols.uuid < 0 && cols.busId < 0))
        return std::nullopt;
    return header.toByteArray() + '\n';
}

namespace {

// A row of the log that parses: its fields, where it starts, its time (when the log has a
// timestamp column).
struct SmiRow
{
    std::vector<QByteArrayView> fields;
    qint64 offset;
    std::optional<TimeNs> ts;
};

// Pass 1: the rows that parse, with their timestamps; the others are warned of and skipped.
std::vector<SmiRow> readSmiRows(const TextFile &file, const SmiColumns &cols,
                                const ImportContext &ctx, WarningLog &warnings)
{
    const QByteArrayView headerLine = file.lines[0].text;
    const size_t ncols = cols.names.size();
    std::vector<SmiRow> rows;
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
        SmiRow row{std::move(fields), line.offset, std::nullopt};
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
    return rows;
}

// Which GPU each row is (`device`) and which sample it belongs to (`sample`): by the index,
// uuid or bus id column, else by the rows' times, else by the period of the names; `meta` says
// how. Returns the identity column (-1: none).
int identifySmiRows(const std::vector<SmiRow> &rows, const SmiColumns &cols, ImportContext &ctx,
                    SamplePlacement &placement, WarningLog &warnings, QJsonObject &meta,
                    std::vector<int> &device, std::vector<qint64> &sample)
{
    const int idCol = cols.index >= 0 ? cols.index : (cols.uuid >= 0 ? cols.uuid : cols.busId);
    device.assign(rows.size(), 0);
    sample.assign(rows.size(), 0);
    if (idCol >= 0) {
        // A uuid or bus id is numbered in order of appearance, the numbering carried from one
        // part of a followed log to the next.
        QHash<QString, int> ids;
        const QJsonObject kept =
            ctx.tail ? ctx.tail->state.value(QStringLiteral("ids")).toObject() : QJsonObject();
        for (auto it = kept.begin(); it != kept.end(); ++it)
            ids.insert(it.key(), it.value().toInt());
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
            sample[i] = placement.next(QString::number(d));
        }
        if (ctx.tail && !ids.isEmpty()) {
            QJsonObject out;
            for (auto it = ids.cbegin(); it != ids.cend(); ++it)
                out.insert(it.key(), it.value());
            ctx.tail->state.insert(QStringLiteral("ids"), out);
        }
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
    return idCol;
}

// The samples written, per GPU and column (a column of text is left out, a number column keeps
// its numbers around a 'nan', and each says so); false when cancelled.
bool writeSmiSamples(const std::vector<SmiRow> &rows, const SmiColumns &cols, int idCol,
                     const std::vector<int> &device, const std::vector<qint64> &sample,
                     SamplePlacement &placement, ImportContext &ctx, LogImport &log)
{
    auto &warnings = log.warnings;
    auto &meta = log.meta;
    const size_t ncols = cols.names.size();
    MonitorSink sink(*ctx.writer, QStringLiteral("nvidia-smi"));
    TimeNs start = 0;
    if (cols.timestamp < 0) {
        sink.setEstimated(true);
        start = idCol >= 0 ? placement.start(ctx, meta)
                           : estimatedStart(ctx, sample.back() + 1, kDefaultPeriod, meta);
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
        const SmiRow &row = rows[i];
        if ((i & 1023) == 0 && !reportProgress(ctx, log, row.offset))
            return false;
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
            sink.sample(gpu, field,
                        field == QLatin1String("pstate") ? QStringLiteral("P-state") : unit, ts,
                        *value);
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
    return true;
}

} // namespace

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

    std::vector<SmiRow> rows = readSmiRows(file, cols, ctx, warnings);
    if (rows.empty() && ctx.tail) // a followed log with no row yet
        return finishLog(ctx, log);
    if (rows.empty())
        return failed(file.lines.size() > 1 ? file.lines[1].offset : headerLine.size(),
                      QStringLiteral("no sample rows after the header; expected lines of %1 "
                                     "comma-separated values")
                          .arg(ncols));

    // Device of each row and sample index.
    std::vector<int> device;
    std::vector<qint64> sample;
    SamplePlacement placement(ctx);
    const int idCol = identifySmiRows(rows, cols, ctx, placement, warnings, meta, device, sample);

    if (!writeSmiSamples(rows, cols, idCol, device, sample, placement, ctx, log))
        return ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}};
    return finishLog(ctx, log);
}

// --- nvidia-smi dmon ------------------------------------------------------------------------

SniffResult NvidiaSmiDmonImporter::sniff(const QString &, const QByteArray &head) const
{
    const qsizetype nl = head.indexOf('\n');
    const QByteArrayView first = nl < 0 ? QByteArrayView(head) : QByteArrayView(head).first(nl);
    return isDmonHeader(first.trimmed()) ? SniffResult{90, {}} : SniffResult{};
}

std::optional<QByteArray> NvidiaSmiDmonImporter::tailPrelude(QByteArrayView prelude,
                                                             QByteArrayView lines) const
{
    // The first header and its units line.
    return headerPrelude(prelude, lines, &isDmonHeader,
                         [](QByteArrayView l) { return l.startsWith('#') && !isDmonHeader(l); });
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
    if (rows.empty() && ctx.tail) // a followed log with no row yet
        return finishLog(ctx, log);
    if (rows.empty())
        return failed(0, QStringLiteral("no sample rows; expected 'nvidia-smi dmon' output"));

    MonitorSink sink(*ctx.writer, QStringLiteral("nvidia-smi dmon"));
    SamplePlacement placement(ctx);
    std::vector<qint64> sample;
    sample.reserve(rows.size());
    for (const Row &row : rows)
        sample.push_back(placement.next(text(row.t[size_t(gpuCol)].text)));
    TimeNs start = 0;
    if (!dated) {
        sink.setEstimated(true);
        start = placement.start(ctx, meta);
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

} // namespace gml
