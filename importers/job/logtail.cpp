// SPDX-License-Identifier: GPL-3.0-or-later
// A followed log read in parts (ImportJob::tailOne, used only when following a folder;
// importer.h: Importer::tailPrelude).
//
// The first import of a log a format can read in parts reads its whole lines; each later one
// reads only the whole lines appended since, after the format's prelude (its header, the
// series declared so far), and adds them to the same source and tracks in one transaction
// with the new read position. A commit is the only way the position moves: a part that fails
// or is cancelled leaves the project as it was, and the same bytes are read again next time,
// so nothing imported is lost or read twice. A line cut short (the writer is in the middle of
// it) waits for its end. A file now shorter than what was read, or whose first bytes changed
// (truncated, or replaced by a rotation), is read again from its start, with a warning.
//
// The position is kept in the source's metadata under "tail": offset (bytes read), line (the
// next line's number), prelude (base64), head (the hash of the first bytes read, up to 4 KiB),
// state (what the format numbers and places its samples by: ImportContext::Tail::state).
//
// A format may leave the last lines of a part unread (ImportContext::Tail::held: a top -b
// block whose end has not come). Its source then records the bytes read as its size, so the
// next poll reads those lines again with what follows them; once the file has been quiet for a
// second the format takes the block as finished.
#include "contenthash.h"
#include "importer.h"
#include "importjob.h"
#include "project.h"
#include "sourcerecords.h"
#include "sourcework.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace gml {

namespace {

constexpr qint64 kHeadBytes = 4096;
constexpr qint64 kMaxPartBytes = qint64(64) << 20; // one transaction's worth

struct TailState
{
    qint64 offset = 0;
    qint64 line = 1;
    QByteArray prelude;
    QString head;
    QJsonObject state;
};
constexpr qint64 kQuietNs = 1'000'000'000;

QString headHash(QFile &f, qint64 bytes)
{
    if (!f.seek(0))
        return {};
    const QByteArray head = f.read(std::min(bytes, kHeadBytes));
    ContentHash h;
    h.add(head.constData(), size_t(head.size()));
    return ContentHash::text(h.digest());
}

std::optional<TailState> stateOf(const QString &metadata)
{
    const QJsonObject tail = QJsonDocument::fromJson(metadata.toUtf8())
                                 .object()
                                 .value(QStringLiteral("tail"))
                                 .toObject();
    if (tail.isEmpty())
        return std::nullopt;
    TailState s;
    s.offset = tail.value(QStringLiteral("offset")).toInteger(-1);
    s.line = tail.value(QStringLiteral("line")).toInteger(1);
    s.prelude = QByteArray::fromBase64(tail.value(QStringLiteral("prelude")).toString().toLatin1());
    s.head = tail.value(QStringLiteral("head")).toString();
    s.state = tail.value(QStringLiteral("state")).toObject();
    if (s.offset < 0 || s.line < 1)
        return std::nullopt;
    return s;
}

QString stateText(const TailState &s)
{
    QJsonObject o;
    o.insert(QStringLiteral("offset"), s.offset);
    o.insert(QStringLiteral("line"), s.line);
    o.insert(QStringLiteral("prelude"), QString::fromLatin1(s.prelude.toBase64()));
    o.insert(QStringLiteral("head"), s.head);
    if (!s.state.isEmpty())
        o.insert(QStringLiteral("state"), s.state);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

} // namespace

bool ImportJob::keepAside(const SourceRecord &existing, const QString &why, qint64 readBytes,
                          const QString &head, QString *error)
{
    // A rotation (the file renamed, a new one begun): the lines read are in a file beside it,
    // which is imported as its own source, so this one's samples are dropped as before.
    const QFileInfo info(existing.path);
    const QFileInfoList siblings = info.absoluteDir().entryInfoList(QDir::Files | QDir::Hidden);
    for (const QFileInfo &other : siblings) {
        if (other.absoluteFilePath() == info.absoluteFilePath() || other.size() < readBytes)
            continue;
        QFile g(other.absoluteFilePath());
        if (g.open(QIODevice::ReadOnly) && headHash(g, readBytes) == head) {
            m_warnings.append(
                QStringLiteral(
                    "%1: %2; it was rotated to %3, imported as its own source, and is read "
                    "again from its start")
                    .arg(existing.path, why, other.fileName()));
            return true;
        }
    }
    const QString kept =
        QStringLiteral("%1 (read until %2, before it was %3)")
            .arg(existing.path, QDateTime::currentDateTimeUtc().toString(Qt::ISODate),
                 why.contains(QLatin1String("truncated")) ? QStringLiteral("truncated")
                                                          : QStringLiteral("replaced"));
    if (!m_project.begin(error))
        return false;
    if (!setSourcePath(m_project, existing.id, kept, error) || !m_project.commit(error)) {
        m_project.rollback();
        return false;
    }
    m_warnings.append(
        QStringLiteral(
            "%1: %2; the samples read before are kept as source \"%3\", and the file is read "
            "again from its start as a new source")
            .arg(existing.path, why, kept));
    return true;
}

// One followed log read in parts (tailOne): what it carries from one part to the next.
struct ImportJob::TailRead
{
    enum class Next { Part, Stop, Whole, Report };

    TailRead(ImportJob &job, const ScannedFile &file, int index, int count)
        : job(job), file(file), importer(*file.importer), index(index), count(count), f(file.path)
    {
    }

    ImportJob &job;
    const ScannedFile &file;
    const Importer &importer;
    int index, count;
    QFile f;
    qint64 size = 0, mtime = 0;
    SourceReport report;
    std::optional<SourceRecord> existing;
    QList<ImportWarning> restart; // the file was truncated or replaced: read from its start
    TailState at;
    bool resumed = false, any = false;

    // Where the last import of the file stopped, if it was read in parts and still applies; a
    // report when there is nothing new or the earlier samples of a truncated file cannot be
    // kept aside.
    std::optional<SourceReport> resume();
    // The next part's whole lines imported in a transaction of their own.
    Next readPart(bool *cancelled);
    // The part's source opened: its transaction begun (a continuation: its import resumed).
    bool openPart(bool cont, RunId &run, SourceId &sourceId);
    Next failed(const QString &message)
    {
        report.status = SourceReport::Status::Failed;
        report.message = file.path + QStringLiteral(": ") + message;
        return Next::Report;
    }
};

std::optional<SourceReport> ImportJob::tailOne(const ScannedFile &file, int index, int count,
                                               bool *cancelled)
{
    // Only a follower reads logs in parts: a one-shot import reads every file whole, the same
    // on one thread or several (sideimport.h).
    if (!m_following || !file.importer || !file.importer->tails())
        return std::nullopt;
    TailRead t(*this, file, index, count);
    if (!t.f.open(QIODevice::ReadOnly))
        return std::nullopt; // the whole-file path says why
    if (t.f.peek(2) == QByteArray("\x1f\x8b", 2))
        return std::nullopt; // gzip: read whole
    t.size = t.f.size();
    t.mtime = fileMtimeNs(file.path);
    QElapsedTimer timer;
    timer.start();
    t.report = startReport(file);
    t.report.inParts = true;
    if (auto done = t.resume())
        return done;
    for (bool more = true; more && t.at.offset < t.size;) {
        switch (t.readPart(cancelled)) {
        case TailRead::Next::Part:
            break;
        case TailRead::Next::Stop:
            more = false;
            break;
        case TailRead::Next::Whole:
            return std::nullopt; // this file is read whole
        case TailRead::Next::Report:
            return t.report;
        }
    }
    SourceReport &report = t.report;
    if (!t.any && report.status != SourceReport::Status::Failed) {
        // No whole line yet (or none since the last part): nothing to write.
        report.status =
            t.existing ? SourceReport::Status::Unchanged : SourceReport::Status::Skipped;
        if (!t.existing)
            report.message = QStringLiteral("no whole line yet");
    }
    report.seconds = double(timer.nsecsElapsed()) / 1e9;
    return report;
}

std::optional<SourceReport> ImportJob::TailRead::resume()
{
    existing = job.m_project.sourceByPath(file.path);
    std::optional<TailState> state;
    if (existing && existing->format == importer.format()) {
        const auto q = importedSource(job.m_project, existing->id);
        if (q && q->importerVersion == importer.version() &&
            (!q->timeZone || *q->timeZone == QString::fromUtf8(job.zoneOf(file).id()))) {
            if (existing->size == size && existing->mtimeNs == mtime) { // nothing new
                report.status = existing->status == QLatin1String("imported")
                                    ? SourceReport::Status::Unchanged
                                    : SourceReport::Status::Failed;
                report.message = existing->error;
                report.slices = q->slices;
                report.counterSamples = q->counterSamples;
                report.flows = q->flows;
                return report;
            }
            if (existing->status == QLatin1String("imported"))
                state = stateOf(q->metadata);
        }
    }
    if (state && (size < state->offset || headHash(f, state->offset) != state->head)) {
        // What was read of it is kept (issue 56: a log truncated to nothing at one poll lost
        // its samples without a word), then the file is read again from its start.
        const QString why =
            QStringLiteral("the file was %1 while it was followed (%2 bytes now, %3 read before)")
                .arg(size < state->offset ? QStringLiteral("truncated")
                                          : QStringLiteral("replaced"))
                .arg(size)
                .arg(state->offset);
        QString error;
        if (!job.keepAside(*existing, why, state->offset, state->head, &error)) {
            failed(why + QStringLiteral("; its earlier samples could not be kept aside: ") + error);
            return report;
        }
        restart.append({why + QStringLiteral("; it was read again from its start"), 0, 1});
        existing.reset();
        state.reset();
    }
    resumed = state.has_value();
    if (resumed)
        at = *state;
    return std::nullopt;
}

bool ImportJob::TailRead::openPart(bool cont, RunId &run, SourceId &sourceId)
{
    QString error;
    if (!cont) {
        if (job.openSource(file, index, count, QString(), existing, run, sourceId, &error))
            return true;
        failed(error);
        return false;
    }
    if (!job.begin(file, index, count, &error)) {
        failed(QStringLiteral("not imported: ") + error);
        return false;
    }
    existing = job.m_project.sourceByPath(file.path); // inside the transaction
    if (!existing) {
        job.m_project.rollback();
        failed(QStringLiteral("its import was deleted while it was followed"));
        return false;
    }
    run = existing->runId;
    sourceId = existing->id;
    return true;
}

ImportJob::TailRead::Next ImportJob::TailRead::readPart(bool *cancelled)
{
    if (!f.seek(at.offset))
        return Next::Stop;
    QByteArray part = f.read(std::min(size - at.offset, kMaxPartBytes));
    part.truncate(part.lastIndexOf('\n') + 1); // whole lines only: a cut one waits for its end
    if (part.isEmpty())
        return Next::Stop;
    const std::optional<QByteArray> prelude = importer.tailPrelude(at.prelude, part);
    if (!prelude)
        return !any && !resumed ? Next::Whole : Next::Stop;
    const bool cont = resumed || any;
    RunId run = 0;
    SourceId sourceId = 0;
    if (!openPart(cont, run, sourceId))
        return Next::Report;
    QString error;
    Project &project = job.m_project;
    TraceWriter writer(project, run, sourceId);
    if (cont && !writer.resume(&error)) {
        project.rollback();
        return failed(QStringLiteral("cannot continue its import: ") + error);
    }
    ImportContext ctx;
    ctx.path = file.path;
    ctx.fileSize = size;
    ctx.writer = &writer;
    ctx.timeZone = job.zoneOf(file);
    ctx.tail =
        ImportContext::Tail{at.prelude + part,
                            at.prelude.size(),
                            at.prelude.count('\n'),
                            at.offset,
                            at.line,
                            at.state,
                            QDateTime::currentMSecsSinceEpoch() * 1'000'000 - mtime >= kQuietNs,
                            0};
    const qint64 from = at.offset;
    ctx.progress = [&](double fraction) {
        const double done =
            (double(from) + fraction * double(part.size())) / double(std::max<qint64>(1, size));
        return !job.m_progress || job.m_progress(job.progressAt(index, count, file.path, done));
    };
    ImportOutcome outcome = importGuarded(importer, ctx);
    if (outcome.ok() && writer.failed())
        outcome = ImportOutcome::failure(-1, QStringLiteral("could not write to the project: ") +
                                                 writer.errorString());
    // What the format left for the next part (an unfinished block) is read again then.
    const qint64 held = std::clamp<qint64>(ctx.tail->held, 0, part.size());
    const QByteArrayView read = QByteArrayView(part).first(part.size() - held);
    TailState next{
        at.offset + read.size(), at.line + read.count('\n'), *prelude, {}, ctx.tail->state};
    if (held > 0)
        next.prelude = importer.tailPrelude(at.prelude, read).value_or(*prelude);
    next.head = headHash(f, next.offset);
    outcome.warnings += writer.warnings();
    if (!cont)
        outcome.warnings = restart + outcome.warnings;
    // The size kept is not the file's while a part is held: read again next poll.
    if (outcome.ok() && finishSource(writer, outcome.warnings, &error) &&
        setSourceTail(project, sourceId, held > 0 ? next.offset : size, mtime,
                      QStringLiteral("tail:") + next.head, stateText(next), &error) &&
        project.commit(&error)) {
        any = true;
        at = next;
        report.status = SourceReport::Status::Imported;
        report.appended = report.appended || cont;
        report.held = held > 0;
        report.slices = writer.sliceCount();
        report.counterSamples = writer.counterCount();
        report.flows = writer.flowCount();
        for (const auto &w : outcome.warnings)
            report.warnings += w.count;
        return held > 0 ? Next::Stop : Next::Part; // a held rest waits for its end
    }
    project.rollback();
    if (outcome.status == ImportOutcome::Status::Cancelled) {
        *cancelled = true;
        report.status = SourceReport::Status::Cancelled;
        report.message =
            QStringLiteral("cancelled; the lines after byte %1 were not kept").arg(at.offset);
        return Next::Report;
    }
    if (outcome.ok())
        outcome =
            ImportOutcome::failure(-1, QStringLiteral("could not write to the project: ") + error);
    report.status = SourceReport::Status::Failed;
    report.message = outcome.describe(file.path);
    // What was read before stays, and the error is kept with it.
    job.recordFailure(file, index, count, cont ? project.sourceByPath(file.path) : existing,
                      QString(), report);
    return Next::Stop;
}

} // namespace gml
