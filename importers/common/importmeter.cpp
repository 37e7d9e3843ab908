// SPDX-License-Identifier: GPL-3.0-or-later
#include "importmeter.h"

#include <algorithm>
#include <cmath>

namespace gml {

QString humanBytes(qint64 n)
{
    if (n >= (qint64(1) << 30))
        return QString::number(double(n) / double(1 << 30), 'f', 2) + QStringLiteral(" GiB");
    if (n >= (1 << 20))
        return QString::number(double(n) / double(1 << 20), 'f', 1) + QStringLiteral(" MiB");
    if (n >= (1 << 10))
        return QString::number(double(n) / double(1 << 10), 'f', 1) + QStringLiteral(" KiB");
    return QString::number(n) + QStringLiteral(" B");
}

QString secondsLeft(double seconds)
{
    const qint64 s = qint64(std::ceil(std::max(0.0, seconds)));
    return s < 60 ? QStringLiteral("%1 s").arg(s)
                  : QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
}

ImportMeter::ImportMeter(const QList<ScannedFile> &files)
{
    m_sizeBefore.assign(size_t(files.size()) + 1, 0);
    for (qsizetype i = 0; i < files.size(); ++i)
        m_sizeBefore[size_t(i) + 1] =
            m_sizeBefore[size_t(i)] + (files[i].importer ? files[i].size : 0);
    m_clock.start();
}

ImportMeter::Reading ImportMeter::at(const ImportProgress &p) const
{
    Reading r;
    r.total = m_sizeBefore.back();
    const size_t files = m_sizeBefore.size() - 1;
    if (p.stage != ImportProgress::Stage::Reading)
        r.done = r.total;
    else if (files > 0) {
        const size_t i = size_t(std::clamp(p.fileIndex, 0, int(files) - 1));
        const qint64 own = m_sizeBefore[i + 1] - m_sizeBefore[i];
        r.done = m_sizeBefore[i] + qint64(std::clamp(p.fraction, 0.0, 1.0) * double(own));
    }
    const double seconds = double(m_clock.elapsed()) / 1000.0;
    r.rate = seconds > 0.5 ? double(r.done) / seconds : 0;
    return r;
}

QString ImportMeter::line(const ImportProgress &p, const QString &shownPath) const
{
    switch (p.stage) {
    case ImportProgress::Stage::Relinking:
        return QStringLiteral("linking execution traces again [%1/%2] %3")
            .arg(p.fileIndex + 1)
            .arg(p.fileCount)
            .arg(shownPath);
    case ImportProgress::Stage::Aligning:
        return QStringLiteral("aligning the clocks of run '%1' (%2/%3)")
            .arg(p.run)
            .arg(p.fileIndex + 1)
            .arg(p.fileCount);
    case ImportProgress::Stage::Reading:
        break;
    }
    const Reading r = at(p);
    QString line = QStringLiteral("[%1/%2] %3 %4% · %5 of %6")
                       .arg(p.fileIndex + 1)
                       .arg(p.fileCount)
                       .arg(shownPath)
                       .arg(int(p.fraction * 100))
                       .arg(humanBytes(r.done), humanBytes(r.total));
    if (r.rate > 0)
        line += QStringLiteral(" · %1/s · %2 left")
                    .arg(humanBytes(qint64(r.rate)))
                    .arg(secondsLeft(double(r.total - r.done) / r.rate));
    return line;
}

} // namespace gml
