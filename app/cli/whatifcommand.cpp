// SPDX-License-Identifier: GPL-3.0-or-later
// grademl whatif: replay a run's dependency graph, as measured and with transforms.
#include "clicommands.h"
#include "safetext.h"

#include "calibration.h"
#include "dependencygraph.h"
#include "devicecatalog.h"
#include "predictedrun.h"
#include "project.h"
#include "smallinput.h"
#include "whatif.h"

#include <QFile>
#include <QJsonDocument>

#include <cmath>

namespace gml::cli {

const char kTransformOptionsHelp[] =
    "transforms, applied in this order:\n"
    "  --scenario NAME       the transforms of a scenario saved with --save-scenario\n"
    "  --transforms JSON     a JSON array of transforms, or @FILE holding one (docs/whatif.md)\n"
    "  --scale 'REGEX=F'     multiply the time of the slices whose name matches REGEX (0 removes "
    "them);\n"
    "                        may be given more than once\n"
    "  --preset P[,P...]     amp, fusedadam, input=N (data loading N times faster), input=free,\n"
    "                        loader=N (data loading from the step's thread onto N DataLoader "
    "workers),\n"
    "                        host=N (the host's launch path N times faster), host=free, unsync\n"
    "                        (synchronising calls stop waiting for the GPU)\n"
    "  --device ID           run on a catalog GPU (grademl whatif --devices); --from-device ID "
    "names the\n"
    "                        measured GPU when the trace does not; --host-factor F: the new "
    "machine's\n"
    "                        host CPU F times faster (else assumed unchanged, and the report says "
    "so)\n"
    "  --calibration FILE    factors fitted on a measured pair of the same change (grademl "
    "validate\n"
    "                        --fit), applied after the transforms\n"
    "  --bandwidth GBPS      network bandwidth of collectives; --latency US their per-step "
    "latency;\n"
    "                        --measured-link ID the link they ran over (default: the GPU's peer "
    "link\n"
    "                        within 8 ranks; across nodes the run's tag network, else its\n"
    "                        reference server's network)\n"
    "  --host-bandwidth GBPS host<->device copy bandwidth\n"
    "  --workers N           N-way data parallel (--grad-mb MB: gradient size, else estimated;\n"
    "                        --bucket-mb MB: bucket size, default 25)\n"
    "  --algorithm A         collectives as ring or tree (NCCL's cost model); --measured-algorithm "
    "A\n"
    "                        the one they were measured with (default ring)\n"
    "  --reschedule 'REGEX=P' the slices whose name matches REGEX get priority P on their "
    "resource\n"
    "                        (higher runs first when both are ready); may be given more than "
    "once\n";

namespace {

const QString kWhatIfUsage =
    QStringLiteral("usage: grademl whatif FILE.grademl [--run NAME] [TRANSFORMS] [--save RUN] "
                   "[--save-scenario NAME] [--json]\n"
                   "       grademl whatif --devices\n") +
    QLatin1String(kTransformOptionsHelp) +
    QStringLiteral("  --save RUN            write the predicted run into the project as run RUN "
                   "(kind predicted)\n");

double number(const Parsed &p, const char *key, bool *ok)
{
    const QString v = p.options.value(QString::fromLatin1(key));
    bool good = false;
    const double d = v.toDouble(&good);
    if (!good || !std::isfinite(d) || d < 0)
        *ok = false;
    return d;
}

void listDevices(QTextStream &out)
{
    const auto &cat = sim::DeviceCatalog::builtin();
    out << "devices (peak dense TFLOP/s fp32 / fp16, memory GB/s, GB, W max / idle):\n";
    for (const auto &d : cat.devices())
        out << "  " << d.id.leftJustified(10)
            << QStringLiteral("%1 / %2 TF, %3 GB/s, %4 GB, %5 / %6 W  %7\n")
                   .arg(d.fp32Tflops)
                   .arg(d.fp16Tflops)
                   .arg(d.memBwGBps)
                   .arg(d.memGB)
                   .arg(d.maxW)
                   .arg(d.idleW)
                   .arg(d.name);
    out << "links (GB/s per direction, latency):\n";
    for (const auto &l : cat.links())
        out << "  " << l.id.leftJustified(10)
            << QStringLiteral("%1 GB/s, %2 us  %3\n").arg(l.bwGBps).arg(l.latencyUs).arg(l.name);
}

} // namespace

const QStringList &transformOptions()
{
    static const QStringList options = {
        QStringLiteral("scale"),          QStringLiteral("preset"),
        QStringLiteral("device"),         QStringLiteral("from-device"),
        QStringLiteral("calibration"),    QStringLiteral("bandwidth"),
        QStringLiteral("latency"),        QStringLiteral("measured-link"),
        QStringLiteral("host-bandwidth"), QStringLiteral("workers"),
        QStringLiteral("grad-mb"),        QStringLiteral("bucket-mb"),
        QStringLiteral("scenario"),       QStringLiteral("transforms"),
        QStringLiteral("algorithm"),      QStringLiteral("measured-algorithm"),
        QStringLiteral("reschedule"),     QStringLiteral("host-factor")};
    return options;
}

std::optional<QList<sim::Transform>> transformsOfOptions(const Parsed &p, QString *why)
{
    QList<sim::Transform> transforms;
    auto has = [&](const char *k) { return p.options.contains(QString::fromLatin1(k)); };
    auto usage = [&](const QString &text) {
        *why = text;
        return std::nullopt;
    };
    if (has("transforms")) {
        QByteArray text = p.options.value(QStringLiteral("transforms")).toUtf8();
        // Messages name the file the transforms came from, else the option.
        QString source = QStringLiteral("--transforms");
        if (text.startsWith('@')) {
            source = QString::fromUtf8(text.mid(1));
            QString error;
            const auto bytes = readSmallInput(source, QStringLiteral("a transforms file"), &error);
            if (!bytes)
                return usage(QStringLiteral("--transforms @") + safeText(error));
            text = *bytes;
        }
        QJsonParseError pe;
        const auto doc = QJsonDocument::fromJson(text, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isArray())
            return usage(QStringLiteral("%1: not a JSON array (offset %2: %3)")
                             .arg(source)
                             .arg(pe.offset)
                             .arg(pe.error != QJsonParseError::NoError
                                      ? pe.errorString()
                                      : QStringLiteral("expected '['")));
        auto list = sim::transformsFromJson(doc.array(), why);
        if (!list)
            return usage(source + QStringLiteral(": ") + *why);
        transforms += *list;
    }
    for (const QString &s : p.repeated.value(QStringLiteral("scale"))) {
        auto t = sim::parseScale(s, why);
        if (!t)
            return std::nullopt;
        transforms.append(*t);
    }
    for (const QString &preset :
         p.options.value(QStringLiteral("preset")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        auto t = sim::parsePreset(preset.trimmed(), why);
        if (!t)
            return std::nullopt;
        transforms.append(*t);
    }
    if (has("device")) {
        const QString id = p.options.value(QStringLiteral("device"));
        if (!sim::DeviceCatalog::builtin().device(id))
            return usage(
                QStringLiteral("no device '%1' in the catalog (grademl whatif --devices)").arg(id));
        auto t = sim::Transform::device(id);
        if (has("host-factor")) {
            bool good = false;
            t.hostFactor = p.options.value(QStringLiteral("host-factor")).toDouble(&good);
            if (!good || !(t.hostFactor > 0) || !std::isfinite(t.hostFactor))
                return usage(QStringLiteral("--host-factor expects a speed-up above 0"));
        }
        transforms.append(t);
    } else if (has("host-factor")) {
        return usage(QStringLiteral("--host-factor goes with --device"));
    }
    for (const QString &s : p.repeated.value(QStringLiteral("reschedule"))) {
        auto t = sim::parseReschedule(s, why);
        if (!t)
            return std::nullopt;
        transforms.append(*t);
    }
    const QString algorithm = p.options.value(QStringLiteral("algorithm"));
    for (const char *key : {"algorithm", "measured-algorithm"})
        if (has(key) &&
            !sim::collectiveAlgorithms().contains(p.options.value(QString::fromLatin1(key))))
            return usage(QStringLiteral("--%1 must be ring or tree").arg(QString::fromLatin1(key)));
    bool ok = true;
    if (has("bandwidth") || has("latency") || (has("algorithm") && !has("workers"))) {
        auto t = sim::Transform::network(has("bandwidth") ? number(p, "bandwidth", &ok) : 0,
                                         has("latency") ? number(p, "latency", &ok) : -1);
        t.algorithm = algorithm;
        transforms.append(t);
    }
    if (has("host-bandwidth")) {
        auto t = sim::Transform::network(number(p, "host-bandwidth", &ok));
        t.link = QStringLiteral("host");
        transforms.append(t);
    }
    if (has("workers")) {
        const double n = number(p, "workers", &ok);
        auto t = sim::Transform::dataParallel(int(n));
        if (n < 1 || n != double(int(n)))
            ok = false;
        if (has("grad-mb"))
            t.gradMB = number(p, "grad-mb", &ok);
        if (has("bucket-mb"))
            t.bucketMB = number(p, "bucket-mb", &ok);
        t.algorithm = algorithm;
        transforms.append(
            t); // its all-reduces are inserted first, so link transforms apply to them
    }
    if (!ok)
        return usage(QStringLiteral(
            "a numeric option is not a number of 0 or more (--workers: a whole number)"));
    if (has("measured-link") &&
        !sim::DeviceCatalog::builtin().link(p.options.value(QStringLiteral("measured-link"))))
        return usage(QStringLiteral("no link '%1' in the catalog (grademl whatif --devices)")
                         .arg(safeText(p.options.value(QStringLiteral("measured-link")))));

    return transforms;
}

bool applyContextOptions(const Parsed &p, sim::WhatIfContext &context, QString *why)
{
    if (p.options.contains(QStringLiteral("calibration"))) {
        QString error;
        auto c = sim::Calibration::load(p.options.value(QStringLiteral("calibration")), &error);
        if (!c) {
            *why = QStringLiteral("--calibration ") + safeText(error);
            return false;
        }
        context.calibration = std::make_shared<const sim::Calibration>(std::move(*c));
    }
    if (p.options.contains(QStringLiteral("from-device")))
        context.measuredDevice = p.options.value(QStringLiteral("from-device"));
    if (p.options.contains(QStringLiteral("measured-link")))
        context.measuredNetwork = p.options.value(QStringLiteral("measured-link"));
    if (p.options.contains(QStringLiteral("measured-algorithm")))
        context.measuredAlgorithm = p.options.value(QStringLiteral("measured-algorithm"));
    return true;
}

int whatifCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const QStringList valued =
        transformOptions() +
        QStringList{QStringLiteral("run"), QStringLiteral("save"), QStringLiteral("save-scenario")};
    const Parsed p = parse(args, valued, {QStringLiteral("json"), QStringLiteral("devices")});
    auto usage = [&](const QString &why) {
        err << "grademl whatif: " << why << '\n' << kWhatIfUsage;
        return Usage;
    };
    if (!p.error.isEmpty())
        return usage(p.error);
    if (p.flags.contains(QStringLiteral("devices"))) {
        listDevices(out);
        return Ok;
    }
    if (p.positional.size() != 1)
        return usage(QStringLiteral("need one project file"));
    auto has = [&](const char *k) { return p.options.contains(QString::fromLatin1(k)); };

    // Transforms given on the command line (the scenario's come first, read below).
    QString why;
    auto given = transformsOfOptions(p, &why);
    if (!given)
        return usage(why);
    QList<sim::Transform> transforms = *given;
    const bool writes = has("save") || has("save-scenario");
    auto project =
        openProject(p.positional.first(), writes, QStringLiteral("grademl whatif: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "whatif", err, &exitCode);
    if (!run)
        return exitCode;
    if (has("scenario")) {
        auto s =
            sim::loadScenario(*project, *run, p.options.value(QStringLiteral("scenario")), &why);
        if (!s) {
            err << "grademl whatif: " << why << '\n';
            return SomeFailed;
        }
        transforms = s->transforms + transforms;
    }
    auto built = sim::DependencyGraph::build(*project, *run, &why);
    if (!built) {
        err << "grademl whatif: run '" << safeText(runName) << "': " << why << '\n';
        return SomeFailed;
    }
    const auto graph = std::make_shared<const sim::DependencyGraph>(std::move(*built));
    sim::WhatIfContext context = sim::WhatIfContext::forRun(*graph, *project, *run);
    context.readMemory(*project, *run);
    if (!applyContextOptions(p, context, &why)) { // a bad input file: exit 2, as a bad option
        err << "grademl whatif: " << why << '\n';
        return Usage;
    }
    const auto result = sim::whatIf(graph, transforms, context, &why);
    if (!result) {
        err << "grademl whatif: run '" << safeText(runName) << "': " << why << '\n';
        return SomeFailed;
    }
    // A transform whose selector picks no node changes nothing: said, for a mistyped name.
    for (const sim::Transform &t : transforms) {
        if (t.select.isEmpty() ||
            !(t.is("scale") || t.is("remove") || t.is("set") || t.is("insert") || t.is("fuse")))
            continue;
        QString bad;
        const sim::NodeSelection picked(*graph, t.select, 0xFF, &bad); // any kind
        if (picked.valid() && picked.count() == 0)
            err << "grademl whatif: " << t.describe() << " selects no node of run '" << runName
                << "': it changes nothing\n";
    }
    const QJsonObject reportJson = result->report.toJson();
    if (has("save-scenario") &&
        !sim::saveScenario(*project, *run, p.options.value(QStringLiteral("save-scenario")),
                           transforms, reportJson, &why)) {
        err << "grademl whatif: saving the scenario: " << why << '\n';
        return SomeFailed;
    }
    if (has("save")) {
        if (!sim::savePredictedRun(*project, *run, *result, transforms,
                                   p.options.value(QStringLiteral("save")), &why)) {
            err << "grademl whatif: saving the predicted run: " << why << '\n';
            return SomeFailed;
        }
    }
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = reportJson;
        o.insert(QStringLiteral("run"), runName);
        if (has("save"))
            o.insert(QStringLiteral("saved_run"), p.options.value(QStringLiteral("save")));
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << "run " << runName << '\n' << result->report.toText();
        if (has("save"))
            out << "saved the predicted run as '"
                << safeText(p.options.value(QStringLiteral("save"))) << "'\n";
        if (has("save-scenario"))
            out << "saved scenario '" << safeText(p.options.value(QStringLiteral("save-scenario")))
                << "'\n";
    }
    return Ok;
}

} // namespace gml::cli
