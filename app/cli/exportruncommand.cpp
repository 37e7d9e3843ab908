// SPDX-License-Identifier: GPL-3.0-or-later
// grademl export FILE --run R --format chrome-json --out RUN.json[.gz]: a run (measured,
// predicted or simulated) as a Chrome trace for Perfetto and chrome://tracing (issue 59).
#include "clicommands.h"
#include "safetext.h"

#include "chromeexport.h"
#include "project.h"

#include <QElapsedTimer>

namespace gml::cli {

int exportRun(const Parsed &p, QTextStream &out, QTextStream &err)
{
    const auto usage = [&](const QString &why) {
        err << "grademl export: " << why
            << "\nusage: grademl export FILE.grademl --format chrome-json [--run NAME] --out "
               "RUN.json[.gz]\n";
        return Usage;
    };
    const QString format = p.options.value(QStringLiteral("format"));
    if (format != QLatin1String("chrome-json"))
        return usage(QStringLiteral("unknown --format '%1' (this version writes: chrome-json; "
                                    "figures are --view with --out .png, .svg or .pdf)")
                         .arg(safeText(format)));
    for (const QString &key : p.options.keys())
        if (key != QLatin1String("format") && key != QLatin1String("run") &&
            key != QLatin1String("out"))
            return usage(QStringLiteral("--format chrome-json takes --run and --out only, not --%1")
                             .arg(key));
    if (!p.flags.isEmpty())
        return usage(QStringLiteral("--format chrome-json takes no --%1").arg(p.flags.first()));
    if (p.positional.size() != 1)
        return usage(QStringLiteral("need exactly one project file"));
    const QString outPath = p.options.value(QStringLiteral("out"));
    if (!outPath.endsWith(QLatin1String(".json")) && !outPath.endsWith(QLatin1String(".json.gz")))
        return usage(
            QStringLiteral("--out must end in .json or .json.gz, got '%1'").arg(safeText(outPath)));
    if (const QString why = refusedOutput(p, "out", p.positional.first()); !why.isEmpty())
        return usage(why);
    auto project =
        openProject(p.positional.first(), false, QStringLiteral("grademl export: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int code = Ok;
    const auto run = pickRun(*project, &runName, "export", err, &code);
    if (!run)
        return code;
    QElapsedTimer timer;
    timer.start();
    QString error;
    const auto written = exportChromeTrace(*project, *run, outPath, {}, &error);
    if (!written) {
        err << "grademl export: " << p.positional.first() << ": run '" << safeText(runName)
            << "' not written to " << outPath << ": " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << ": run '" << safeText(runName) << "', " << written->slices
        << " slices, " << written->counterSamples << " counter samples, " << written->flows
        << " flows, " << written->notes << " notes, "
        << QString::number(double(written->bytes) / 1e6, 'f', 1) << " MB in "
        << QString::number(double(timer.elapsed()) / 1000.0, 'f', 2) << " s\n";
    return Ok;
}

} // namespace gml::cli
