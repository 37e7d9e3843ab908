// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tracewriter.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QTimeZone>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace gml {

// What an importer is given for one source file.
struct ImportContext
{
    QString path;
    qint64 fileSize = 0;
    TraceWriter *writer = nullptr;
    // Fraction of the file read so far (0..1); returns false to cancel.
    std::function<bool(double)> progress;
    // The time zone of the host that wrote local-time logs (nvidia-smi, top): an explicit
    // setting, else the folder's grademl.json, else this machine's.
    QTimeZone timeZone = QTimeZone::systemTimeZone();
    // Set by an importer that read every byte of the file (InputStream::wholeFileHash): the
    // file's ContentHash, so the job need not read the file a second time to record it.
    std::optional<quint64> contentHash;

    // Set when a followed log is read in parts (logtail.cpp; more lines may come, so a header
    // with no row yet is no error): the importer reads `text` instead of the file. It is the
    // format's prelude (the lines read before that it needs to read on: a header, series
    // declarations) followed by the file's whole lines from byte `fileOffset`.
    struct Tail
    {
        QByteArray text;
        qsizetype preludeBytes = 0;
        qint64 preludeLines = 0;
        qint64 fileOffset = 0; // where text[preludeBytes] is in the file
        qint64 firstLine = 1;  // the line number of that byte in the file
        // What the format carries from one part to the next besides its prelude: how its
        // samples are numbered and placed in time (monitorlog.h: SamplePlacement). In: what the
        // last part left (empty on the first); the import updates it for the next.
        QJsonObject state;
        // The file has not changed for a second: its writer is between writes, so a block
        // with no end line yet (top -b) is finished.
        bool quiet = false;
        // Out: the bytes at the end of `text` the format did not read (an unfinished block);
        // they are read again, with what follows them, in the next part.
        qint64 held = 0;
    };
    std::optional<Tail> tail;
    // A byte offset or a 1-based line number in what the importer read, in the file.
    qint64 fileOffset(qint64 offset) const
    {
        return tail && offset >= tail->preludeBytes ? tail->fileOffset + offset - tail->preludeBytes
                                                    : offset;
    }
    qint64 fileLine(qint64 line) const
    {
        return tail && line > tail->preludeLines ? tail->firstLine + line - tail->preludeLines - 1
                                                 : line;
    }
};

// The result of importing one source: an error value, never an exception.
struct [[nodiscard]] ImportOutcome
{
    enum class Status { Imported, Failed, Cancelled };
    Status status = Status::Imported;
    qint64 errorOffset = -1; // byte offset in the (decompressed) file, -1 if not applicable
    QString error;           // what was wrong and what was expected, without the path
    QList<ImportWarning> warnings;

    bool ok() const { return status == Status::Imported; }
    // A failed import: what was wrong at `offset` (-1: no position).
    static ImportOutcome failure(qint64 offset, const QString &error)
    {
        return {Status::Failed, offset, error, {}};
    }
    // "<path>: byte <offset>: <message>" — the form every error is shown in.
    QString describe(const QString &path) const;
};

// How sure an importer is that it reads a file, from its first bytes.
struct SniffResult
{
    int confidence = 0; // 0: not mine; 100: certainly mine
    QString reason;     // for files no importer takes: why not (shown as the skip reason)
};

class Importer
{
public:
    // What a file of this format is to run grouping (rungrouping.h): one process's trace of a
    // job (a rank, a span on the job's clock), a log of a machine's monitors written beside
    // such traces, or neither (grouped with its folder only).
    enum class Kind { Trace, Monitor, Other };

    virtual ~Importer() = default;
    virtual QString format() const = 0; // stable name stored in source.format
    virtual Kind kind() const { return Kind::Other; }
    virtual int version() const = 0; // bump when the same file would import differently
    // head: the first bytes of the file, decompressed when it is gzip.
    virtual SniffResult sniff(const QString &path, const QByteArray &head) const = 0;
    virtual ImportOutcome import(ImportContext &context) const = 0;
    // True when the import links to slices that other sources of the run wrote (execution
    // traces): such files are imported after the others, and again when any of them is.
    virtual bool linksToRun() const { return false; }
    // True when the import touches the project only through its TraceWriter: the file can then
    // be imported on another thread into a side project (sideimport.h) and copied in.
    virtual bool importsAside() const { return !linksToRun(); }
    // Extra state that decides whether an unchanged file must be read again (the files an
    // importer reads besides `path`); compared with the stored hash.
    virtual QString fingerprint(const QString &path) const
    {
        Q_UNUSED(path);
        return {};
    }
    // Logs that grow by whole lines while a job runs (the recorder's samples, nvidia-smi -l)
    // are read in parts when followed (logtail.cpp). Given the prelude so far (empty at the start
    // of the file) and the whole lines just read, returns the new prelude: the lines a later
    // part needs before its own to be read alone. Nullopt: this file cannot be read in parts
    // (its format does not grow by lines, or its times are placed from the whole file) and is
    // read whole each time it changes.
    virtual std::optional<QByteArray> tailPrelude(QByteArrayView prelude,
                                                  QByteArrayView lines) const
    {
        Q_UNUSED(prelude);
        Q_UNUSED(lines);
        return std::nullopt;
    }
    virtual bool tails() const { return false; } // tailPrelude may say yes
    // A log a tool appends to for as long as the job runs (GPU and host monitors, the
    // recorder's samples, an MLflow run's metrics): followed, it is read while it grows rather
    // than once it stops changing; one not read in parts is read whole at most every 30 s.
    virtual bool grows() const { return tails(); }
};

// Calls f on each line of `text` (without its break) until f returns false.
template <typename F> void forEachLine(QByteArrayView text, F f)
{
    qsizetype pos = 0;
    while (pos < text.size()) {
        qsizetype nl = text.indexOf('\n', pos);
        if (nl < 0)
            nl = text.size();
        if (!f(text.sliced(pos, nl - pos)))
            return;
        pos = nl + 1;
    }
}

// All importers known to the folder scanner, most specific first.
const std::vector<std::unique_ptr<Importer>> &importers();
// The importer of a stored format (source.format); null when none is.
const Importer *importerOf(const QString &format);

// importer.import(ctx), with what it throws (a bug, a failed allocation) turned into a failed
// outcome, so that such a file fails alone and the program and the rest of the folder go on.
ImportOutcome importGuarded(const Importer &importer, ImportContext &ctx);

} // namespace gml
