// SPDX-License-Identifier: GPL-3.0-or-later
// grademl: the headless command line of GradeML Studio.
#include "clicommands.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

static const char kUsage[] =
    "usage: grademl COMMAND ...\n"
    "  import PATH... --project FILE.grademl [--run NAME]   import trace files or folders\n"
    "  info FILE.grademl [--json]                            runs, sources, counts, track tree\n"
    "  query FILE.grademl \"SELECT ...\"                       one read-only SQL statement, CSV out\n"
    "exit status: 0 ok, 1 some source or the command failed, 2 usage error\n";

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("grademl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(GRADEML_VERSION));
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList args = QCoreApplication::arguments().mid(1);
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("help")) {
        (args.isEmpty() ? err : out) << kUsage;
        return args.isEmpty() ? gml::cli::Usage : gml::cli::Ok;
    }
    if (args.first() == QLatin1String("--version")) {
        out << "grademl " << GRADEML_VERSION << '\n';
        return 0;
    }
    const QString command = args.takeFirst();
    if (command == QLatin1String("import"))
        return gml::cli::importCommand(args, out, err);
    if (command == QLatin1String("info"))
        return gml::cli::infoCommand(args, out, err);
    if (command == QLatin1String("query"))
        return gml::cli::queryCommand(args, out, err);
    err << "grademl: unknown command '" << command << "'\n" << kUsage;
    return gml::cli::Usage;
}
