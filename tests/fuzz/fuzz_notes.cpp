// SPDX-License-Identifier: GPL-3.0-or-later
// Notes as another program may have written them (issue 56): the input is split into note rows
// (kind, run, start, end, bookmark, text) inserted past the schema's checks, then listed; every
// note listed has its range in order, a bookmark of 0 to 9, and text safe to print.
#include "fuzzimport.h"

#include "notes.h"
#include "safetext.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gml::Project &project = gmlfuzz::project();
    QString error;
    if (!project.begin(&error))
        abort();
    (void)project.db().exec("PRAGMA ignore_check_constraints = 1;");
    auto insert = project.db().prepare(
        "INSERT INTO note(kind, run, start_ns, end_ns, slice_id, bookmark, text) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    static const char *const kinds[] = {"time", "range", "slice"};
    size_t at = 0;
    while (at + 18 <= size) {
        qint64 start = 0, end = 0;
        std::memcpy(&start, data + at, 8);
        std::memcpy(&end, data + at + 8, 8);
        const int kind = data[at + 16] % 3, bookmark = int(int8_t(data[at + 17]));
        at += 18;
        const size_t len = std::min<size_t>(size - at, 64);
        const QByteArray text(reinterpret_cast<const char *>(data + at), qsizetype(len));
        at += len;
        insert.reset();
        insert.bind(1, std::string_view(kinds[kind]));
        insert.bind(
            2, std::string_view(text.constData(), size_t(std::min<qsizetype>(text.size(), 8))));
        insert.bind(3, start);
        insert.bind(4, end);
        insert.bind(5, start & 0xffff);
        insert.bind(6, qint64(bookmark));
        insert.bind(7, std::string_view(text.constData(), size_t(text.size())));
        (void)insert.exec();
    }
    (void)project.db().exec("PRAGMA ignore_check_constraints = 0;");
    for (const gml::Note &n : gml::listNotes(project, &error)) {
        if (n.end < n.start || n.bookmark < 0 || n.bookmark > 9)
            abort();
        for (const QChar c : gml::safeText(n.text, 4000))
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                abort();
    }
    project.rollback();
    return 0;
}
