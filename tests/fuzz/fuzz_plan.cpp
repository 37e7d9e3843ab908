// SPDX-License-Identifier: GPL-3.0-or-later
// A shard task's plan (grademl import --from-plan, issue 56): any bytes are read as a plan; one
// that is accepted holds only absolute paths, sizes from 0 to 2^53, known formats, valid time
// zones and each file once, and writes back to a plan that reads the same.
#include "fuzzimport.h"

#include "folderscanner.h"
#include "importer.h"

#include <QSet>
#include <QTimeZone>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)gmlfuzz::project(); // the QCoreApplication QTimeZone wants
    QString error;
    const auto plan =
        gml::readPlan(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)), &error);
    if (!plan) {
        if (error.isEmpty())
            abort(); // refused without a word
        return 0;
    }
    QSet<QString> seen;
    for (const gml::ScannedFile &f : *plan) {
        if (!f.importer || !f.path.startsWith(QLatin1Char('/')) || f.size < 0 ||
            f.size > (qint64(1) << 53) || f.runName.trimmed().isEmpty() ||
            (!f.timeZone.isEmpty() && !QTimeZone(f.timeZone.toUtf8()).isValid()) ||
            seen.contains(f.path))
            abort();
        seen.insert(f.path);
    }
    const auto again = gml::readPlan(gml::writePlan(*plan), &error);
    if (!again || again->size() != plan->size())
        abort();
    return 0;
}
