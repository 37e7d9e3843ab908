// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "folderscanner.h"
#include "importjob.h"

#include <QElapsedTimer>
#include <QString>

#include <vector>

namespace gml {

// "1.9 GiB", "412.0 MiB", "12.5 KiB", "17 B".
QString humanBytes(qint64 bytes);
// "42 s", "3 min 20 s": a time left, to the second.
QString secondsLeft(double seconds);

// How far an import job has got, for a progress line (grademl import) or dialog (the studio):
// the stage, the file and its share, the bytes of all the files, the rate and the time left,
// measured from the meter's construction.
class ImportMeter
{
public:
    explicit ImportMeter(const QList<ScannedFile> &files);

    struct Reading
    {
        qint64 done = 0; // bytes of the job's files read (the files before, the share of this one)
        qint64 total = 0;
        double rate = 0; // bytes/s, once half a second was measured; 0 before
    };
    Reading at(const ImportProgress &progress) const;
    // "[3/16] rank2.pt.trace.json 45% · 412.0 MiB of 1.86 GiB · 97.3 MiB/s · 16 s left" while
    // reading files (`shownPath`: the file as the user should see it), else the stage:
    // "aligning the clocks of run 'job' (2/5)", "linking execution traces again [1/3] et.json".
    QString line(const ImportProgress &progress, const QString &shownPath) const;

private:
    std::vector<qint64> m_sizeBefore; // bytes of the importable files before each
    QElapsedTimer m_clock;
};

} // namespace gml
