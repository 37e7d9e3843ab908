// SPDX-License-Identifier: GPL-3.0-or-later
// grademl note: notes and bookmarks of a project (model/store/notes.h): add, list, remove.
#include "clicommands.h"

#include "notes.h"
#include "project.h"
#include "projectsummary.h"
#include "safetext.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <limits>

namespace gml::cli {

namespace {

constexpr char kNoteUsage[] =
    "usage: grademl note FILE.grademl add (--at T | --range A:B | --slice ID) --text TEXT [--run "
    "NAME] [--bookmark N]\n"
    "       grademl note FILE.grademl list [--json]\n"
    "       grademl note FILE.grademl remove ID\n"
    "  a time is after the run's start with a unit (250ms, 1.5s, 120us), as analyze and flame\n"
    "  take it, or @NS on the project clock (as grademl info prints start_ns and end_ns);\n"
    "  --bookmark 1-9 makes the note that bookmark (the studio jumps to it with the key).\n";

std::optional<qint64> integer(const QString &text)
{
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    return ok ? std::optional<qint64>(v) : std::nullopt;
}

} // namespace

namespace {

// The note `add` asks for: its text and where (--at, --range or --slice) and its bookmark;
// empty, or what is wrong with the options. `relative`: its times are after its run's start
// (placeNote moves them onto the project clock).
QString noteToAdd(const Parsed &p, Note &note, bool *relative)
{
    *relative = false;
    QString problem;
    const int where = int(p.options.contains(QStringLiteral("at"))) +
                      int(p.options.contains(QStringLiteral("range"))) +
                      int(p.options.contains(QStringLiteral("slice")));
    note.text = p.options.value(QStringLiteral("text"));
    if (where != 1)
        problem = QStringLiteral("add needs one of --at NS, --range A:B, --slice ID");
    else if (note.text.trimmed().isEmpty())
        problem = QStringLiteral("add needs --text TEXT");
    if (problem.isEmpty() && p.options.contains(QStringLiteral("at"))) {
        const auto at = parseRunTime(p.options.value(QStringLiteral("at")));
        if (!at)
            problem = QStringLiteral("--at expects a time after the run's start (250ms) or @NS on "
                                     "the project clock, got '%1'")
                          .arg(safeText(p.options.value(QStringLiteral("at"))));
        else {
            note.start = note.end = at->ns;
            *relative = !at->absolute;
        }
    }
    if (problem.isEmpty() && p.options.contains(QStringLiteral("range"))) {
        const auto ab = parseRunTimes(p.options.value(QStringLiteral("range")));
        const auto a = ab ? std::optional<RunTime>(ab->first) : std::nullopt;
        const auto b = ab ? std::optional<RunTime>(ab->second) : std::nullopt;
        if (!a || !b)
            problem = QStringLiteral("--range expects START:END after the run's start (10ms:250ms) "
                                     "or @NS:@NS on the project clock, got '%1'")
                          .arg(safeText(p.options.value(QStringLiteral("range"))));
        else {
            note.kind = Note::Kind::Range;
            note.start = a->ns;
            note.end = b->ns;
            *relative = !a->absolute;
        }
    }
    if (problem.isEmpty() && p.options.contains(QStringLiteral("slice")) &&
        !integer(p.options.value(QStringLiteral("slice"))))
        problem = QStringLiteral("--slice expects a slice id, got '%1'")
                      .arg(safeText(p.options.value(QStringLiteral("slice"))));
    if (problem.isEmpty() && p.options.contains(QStringLiteral("bookmark"))) {
        const auto n = integer(p.options.value(QStringLiteral("bookmark")));
        if (!n || *n < 1 || *n > 9)
            problem = QStringLiteral("--bookmark expects 1 to 9, got '%1'")
                          .arg(safeText(p.options.value(QStringLiteral("bookmark"))));
        else
            note.bookmark = int(*n);
    }
    return problem;
}

// `note FILE list`: every note, a line each, or as JSON.
int listNotesCommand(Project &project, bool json, QTextStream &out, QTextStream &err)
{
    QString error;
    const auto notes = listNotes(project, &error);
    if (!error.isEmpty()) {
        err << "grademl note: " << error << '\n';
        return SomeFailed;
    }
    if (json) {
        QJsonArray a;
        for (const Note &n : notes)
            a.append(n.toJson());
        out << QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("notes"), a}})
                                     .toJson(QJsonDocument::Indented));
        return Ok;
    }
    for (const Note &n : notes) {
        out << n.id << (n.bookmark ? QStringLiteral(" [%1]").arg(n.bookmark) : QString()) << "  "
            << Note::kindName(n.kind) << "  "
            << (n.run.isEmpty() ? QStringLiteral("-") : safeText(n.run)) << "  " << n.start;
        if (n.end != n.start)
            out << ':' << n.end << " (" << formatDuration(n.end - n.start) << ')';
        if (n.kind == Note::Kind::Slice)
            out << "  " << safeText(n.sliceName)
                << (n.slice ? QString() : QStringLiteral(" (not found)"));
        // Control characters and escape sequences in a note are shown, not run by the terminal.
        out << "  " << safeText(n.text, 4000) << '\n';
    }
    return Ok;
}

// Where the note goes: on its slice (--slice), else at its time or range, which must lie in the
// project, on the run there or the one named. Usage or SomeFailed with what is wrong; Ok when
// `note` is placed.
int placeNote(Project &project, const Parsed &p, Note &note, bool relative, QTextStream &err)
{
    QString error;
    if (relative) { // after the start of the run named, or of the only measured one
        QString runName = p.options.value(QStringLiteral("run"));
        int exitCode = Ok;
        const auto run = pickRun(project, &runName, "note", err, &exitCode);
        if (!run)
            return exitCode;
        const TimeNs start = runSpans(project).value(*run).first;
        if (note.end > std::numeric_limits<TimeNs>::max() - std::max<TimeNs>(start, 0)) {
            err << "grademl note: " << formatDuration(note.end) << " after the start of run '"
                << runName << "' is outside the project\n";
            return Usage;
        }
        note.start += start;
        note.end += start;
    }
    if (!p.options.contains(QStringLiteral("slice"))) {
        // A time or range is on the project's clock, inside what it holds (-5 ns or 9e18 ns
        // were accepted: issue 56).
        TimeNs first = 0, last = -1;
        for (const auto &[a, b] : runSpans(project)) {
            first = last < first ? a : std::min(first, a);
            last = std::max(last, b);
        }
        if (last < first) {
            err << "grademl note: the project holds no data to put a note on\n";
            return SomeFailed;
        }
        if (note.start < first || note.end > last) {
            err << "grademl note: " << (note.kind == Note::Kind::Range ? "--range " : "--at ")
                << note.start
                << (note.kind == Note::Kind::Range ? QStringLiteral(":%1").arg(note.end)
                                                   : QString())
                << " is outside the project, which spans " << first << ':' << last
                << " ns on its clock (as grademl info prints start_ns and end_ns)\n";
            return Usage;
        }
    }
    if (p.options.contains(QStringLiteral("slice"))) {
        const auto onSlice = noteOnSlice(
            project, *integer(p.options.value(QStringLiteral("slice"))), note.text, &error);
        if (!onSlice) {
            err << "grademl note: " << error << '\n';
            return SomeFailed;
        }
        const int bookmark = note.bookmark;
        note = *onSlice;
        note.bookmark = bookmark;
    } else {
        note.run = p.options.contains(QStringLiteral("run"))
                       ? p.options.value(QStringLiteral("run"))
                       : runAt(project, note.start);
        if (p.options.contains(QStringLiteral("run")) && !project.findRun(note.run)) {
            err << "grademl note: no run '" << note.run << "'\n";
            return SomeFailed;
        }
    }
    return Ok;
}

} // namespace

int noteCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args,
              {QStringLiteral("at"), QStringLiteral("range"), QStringLiteral("slice"),
               QStringLiteral("text"), QStringLiteral("run"), QStringLiteral("bookmark")},
              {QStringLiteral("json")});
    const QString action = p.positional.value(1);
    QString problem = p.error;
    if (problem.isEmpty() &&
        (p.positional.size() < 2 ||
         !QStringList{QStringLiteral("add"), QStringLiteral("list"), QStringLiteral("remove")}
              .contains(action)))
        problem = QStringLiteral("need a project file and add, list or remove");
    Note note;
    bool relative = false;
    if (problem.isEmpty() && action == QLatin1String("add"))
        problem = noteToAdd(p, note, &relative);
    if (problem.isEmpty() && action == QLatin1String("remove") &&
        (p.positional.size() != 3 || !integer(p.positional[2])))
        problem = QStringLiteral("remove needs a note id (grademl note FILE list)");
    if (!problem.isEmpty()) {
        err << "grademl note: " << problem << '\n' << kNoteUsage;
        return Usage;
    }
    const bool writing = action != QLatin1String("list");
    auto project =
        openProject(p.positional.first(), writing, QStringLiteral("grademl note: "), err);
    if (!project)
        return SomeFailed;
    QString error;
    if (action == QLatin1String("list"))
        return listNotesCommand(*project, p.flags.contains(QStringLiteral("json")), out, err);
    if (action == QLatin1String("remove")) {
        if (!removeNote(*project, *integer(p.positional[2]), &error)) {
            err << "grademl note: " << error << '\n';
            return SomeFailed;
        }
        return Ok;
    }
    if (const int placed = placeNote(*project, p, note, relative, err); placed != Ok)
        return placed;
    const auto id = addNote(*project, note, &error);
    if (!id) {
        err << "grademl note: " << error << '\n';
        return SomeFailed;
    }
    out << *id << '\n';
    return Ok;
}

} // namespace gml::cli
