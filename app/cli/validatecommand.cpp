// SPDX-License-Identifier: GPL-3.0-or-later
// grademl validate: how far a prediction lands from a run measured with the change made.
#include "clicommands.h"
#include "outputfile.h"
#include "safetext.h"

#include "calibration.h"
#include "dependencygraph.h"
#include "devicecatalog.h"
#include "predictedrun.h"
#include "project.h"
#include "validation.h"
#include "whatif.h"

#include <QFileInfo>
#include <QJsonDocument>

namespace gml::cli {

namespace {

const QString kValidateUsage =
    QStringLiteral(
        "usage: grademl validate FILE.grademl --run A [TRANSFORMS] --against B [--top N] [--json]\n"
        "                        [--fit OUT.json] [--calibration FILE]\n"
        "  Replays run A with the transforms (as grademl whatif does) and sets the prediction "
        "against\n"
        "  run B, measured with that change made: the error end to end, on the mean, median and "
        "p90\n"
        "  iteration and step by step (in order), per kernel family and for the N operators "
        "(default\n"
        "  10) that took the most time in B, by call path; with the model's assumptions. Without\n"
        "  transforms, A's identity replay against B (A against itself: every error is 0).\n"
        "  --fit OUT.json writes B's time over the prediction's per kernel family, for the host's\n"
        "  launch path and for data loading: --calibration OUT.json (here, in grademl whatif and\n"
        "  in the What-if panel) applies them to another run of the same hardware change.\n") +
    QLatin1String(kTransformOptionsHelp);

struct FitNames
{
    QString predicted, measured, project;
};

// --fit OUT.json: the calibration of this pair, written whole or not at all.
bool writeFit(const QString &path, const sim::WhatIfResult &result,
              const sim::DependencyGraph &measured, const sim::WhatIfContext &context,
              const QList<sim::Transform> &transforms, const FitNames &names, QTextStream &err)
{
    QString why;
    auto fit = sim::fitCalibration(result, measured, &why);
    if (!fit) {
        err << "grademl validate: --fit: " << why << '\n';
        return false;
    }
    fit->predictedRun = names.predicted;
    fit->measuredRun = names.measured;
    fit->project = QFileInfo(names.project).fileName();
    // The vendors of the change: a device transform's target against the measured GPU.
    const sim::DeviceCatalog &cat = sim::DeviceCatalog::builtin();
    const sim::Device *from = cat.device(context.measuredDevice);
    fit->sameVendor = true;
    if (const QString target = sim::targetDevice(transforms); !target.isEmpty()) {
        const sim::Device *to = cat.device(target);
        fit->sameVendor = from && to && from->vendor == to->vendor;
    }
    if (!writeOutput(path, QJsonDocument(fit->toJson()).toJson(QJsonDocument::Indented), &why,
                     {names.project})) {
        err << "grademl validate: --fit " << safeText(why) << '\n';
        return false;
    }
    err << "calibration written to " << safeText(path) << ": " << fit->factors() << '\n';
    if (!fit->outOfRange.isEmpty())
        err << "left out, their ratio outside " << sim::Calibration::kMinFactor << " to "
            << sim::Calibration::kMaxFactor
            << " (not the same work): " << fit->outOfRange.join(QStringLiteral(", ")) << '\n';
    return true;
}

} // namespace

int validateCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args,
              transformOptions() + QStringList{QStringLiteral("run"), QStringLiteral("against"),
                                               QStringLiteral("top"), QStringLiteral("fit")},
              {QStringLiteral("json")});
    auto usage = [&](const QString &why) {
        err << "grademl validate: " << why << '\n' << kValidateUsage;
        return Usage;
    };
    if (!p.error.isEmpty())
        return usage(p.error);
    if (p.positional.size() != 1)
        return usage(QStringLiteral("need one project file"));
    if (!p.options.contains(QStringLiteral("run")) ||
        !p.options.contains(QStringLiteral("against")))
        return usage(QStringLiteral(
            "need --run (the run to predict from) and --against (the measured run)"));
    bool ok = true;
    const int top = p.options.value(QStringLiteral("top"), QStringLiteral("10")).toInt(&ok);
    if (!ok || top < 0)
        return usage(QStringLiteral("--top expects a number of operators, 0 or more"));
    QString why;
    auto given = transformsOfOptions(p, &why);
    if (!given)
        return usage(why);
    // Refused before the replay, not after it: --fit naming the project (or any project, a
    // link, a device) would replace it.
    if (const QString refused = refusedOutput(p, "fit", p.positional.first()); !refused.isEmpty())
        return usage(refused);
    auto project =
        openProject(p.positional.first(), false, QStringLiteral("grademl validate: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run")),
            againstName = p.options.value(QStringLiteral("against"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "validate", err, &exitCode);
    if (!run)
        return exitCode;
    const auto against = pickRun(*project, &againstName, "validate", err, &exitCode);
    if (!against)
        return exitCode;
    QList<sim::Transform> transforms = *given;
    if (p.options.contains(QStringLiteral("scenario"))) {
        auto s =
            sim::loadScenario(*project, *run, p.options.value(QStringLiteral("scenario")), &why);
        if (!s) {
            err << "grademl validate: " << why << '\n';
            return SomeFailed;
        }
        transforms = s->transforms + transforms;
    }
    auto graphOf = [&](qint64 id,
                       const QString &name) -> std::shared_ptr<const sim::DependencyGraph> {
        auto built = sim::DependencyGraph::build(*project, id, &why);
        if (!built) {
            err << "grademl validate: run '" << name << "': " << why << '\n';
            return nullptr;
        }
        return std::make_shared<const sim::DependencyGraph>(std::move(*built));
    };
    const auto graph = graphOf(*run, runName);
    const auto measured = graphOf(*against, againstName);
    if (!graph || !measured)
        return SomeFailed;
    sim::WhatIfContext context = sim::WhatIfContext::forRun(*graph, *project, *run);
    if (!applyContextOptions(p, context, &why)) { // a bad input file: exit 2, as a bad option
        err << "grademl validate: " << why << '\n';
        return Usage;
    }
    const auto result = sim::whatIf(graph, transforms, context, &why);
    if (!result) {
        err << "grademl validate: run '" << safeText(runName) << "': " << why << '\n';
        return SomeFailed;
    }
    if (p.options.contains(QStringLiteral("fit")) &&
        !writeFit(p.options.value(QStringLiteral("fit")), *result, *measured, context, transforms,
                  {runName, againstName, p.positional.first()}, err))
        return SomeFailed;
    sim::ValidationReport report = sim::validate(*result, *measured, top);
    report.predictedRun = runName;
    report.measuredRun = againstName;
    if (p.flags.contains(QStringLiteral("json")))
        out << QString::fromUtf8(QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
    else
        out << report.toText();
    return Ok;
}

} // namespace gml::cli
