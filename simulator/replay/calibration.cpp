// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration from a user's own measured pair: fitting (validate --fit) and applying (whatif
// --calibration) the factors per kernel family, launch path and data loading.
#include "calibration.h"

#include "devicecatalog.h"
#include "kerneltaxonomy.h"
#include "safetext.h"
#include "smallinput.h"
#include "transformsinternal.h"
#include "whatif.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace gml::sim {

namespace {

const QLatin1String kFormat("grademl_calibration");

bool isGpuWork(NodeKind k)
{
    return k == NodeKind::Kernel || k == NodeKind::Memcpy || k == NodeKind::Memset;
}

// The time of each class of a graph's nodes: kernel families, launch calls (their median),
// the rest of the launch path, data loading.
struct ClassTimes
{
    std::map<QString, double> families;
    double host = 0;
    double loading = 0;
    double launchMedian = 0; // 0: no launch call
};

std::optional<ClassTimes> classTimes(const DependencyGraph &g, const std::vector<TimeNs> &work,
                                     QString *error)
{
    const auto roles = detail::hostRoles(g, error);
    if (!roles)
        return std::nullopt;
    const std::vector<char> launch = kernelLaunchCalls(g);
    ClassTimes t;
    std::vector<TimeNs> launches;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        if (isGpuWork(n.kind))
            t.families[kernelFamily(g.name(n.name), n.kind)] += double(work[i]);
        else if (launch[i])
            launches.push_back(work[i]);
        else if ((*roles)[i] == detail::HostRole::LaunchPath)
            t.host += double(work[i]);
        else if ((*roles)[i] == detail::HostRole::Loading)
            t.loading += double(work[i]);
    }
    if (!launches.empty()) {
        const auto mid = launches.begin() + qsizetype(launches.size() / 2);
        std::nth_element(launches.begin(), mid, launches.end());
        t.launchMedian = double(*mid);
    }
    return t;
}

std::optional<double> ratio(double measured, double predicted)
{
    if (!(measured > 0) || !(predicted > 0))
        return std::nullopt;
    return measured / predicted;
}

// A fitted ratio within the range a file may hold; a class outside it is named in `skipped`.
std::optional<double> inRange(std::optional<double> x, const QString &name, QStringList &skipped)
{
    if (x && (*x < Calibration::kMinFactor || *x > Calibration::kMaxFactor)) {
        skipped << QStringLiteral("%1 x%2").arg(name).arg(*x, 0, 'g', 4);
        return std::nullopt;
    }
    return x;
}

// A factor read from the file: a number within [kMinFactor, kMaxFactor].
std::optional<double> factorAt(const QJsonValue &v, const QString &key, QString *error)
{
    const double x = v.toDouble(-1);
    if (!v.isDouble() || !std::isfinite(x) || x < Calibration::kMinFactor ||
        x > Calibration::kMaxFactor) {
        *error = QStringLiteral("%1: expected a factor from %2 to %3 (measured time over "
                                "predicted), got %4")
                     .arg(safeText(key, 80))
                     .arg(Calibration::kMinFactor)
                     .arg(Calibration::kMaxFactor)
                     .arg(v.isDouble() ? QString::number(x, 'g', 6)
                                       : QStringLiteral("a value that is not a number"));
        return std::nullopt;
    }
    return x;
}

} // namespace

QJsonObject Calibration::toJson() const
{
    QJsonObject fams;
    for (const auto &[name, f] : families)
        fams.insert(name, f);
    QJsonObject o{{QStringLiteral("format"), kFormat},
                  {QStringLiteral("version"), 1},
                  {QStringLiteral("predicted_run"), predictedRun},
                  {QStringLiteral("measured_run"), measuredRun},
                  {QStringLiteral("project"), project},
                  {QStringLiteral("transforms"), QJsonArray::fromStringList(transforms)},
                  {QStringLiteral("same_vendor"), sameVendor},
                  {QStringLiteral("families"), fams}};
    if (host)
        o.insert(QStringLiteral("host"), *host);
    if (launch)
        o.insert(QStringLiteral("launch"), *launch);
    if (loading)
        o.insert(QStringLiteral("loading"), *loading);
    return o;
}

std::optional<Calibration> Calibration::fromJson(const QJsonObject &o, QString *error)
{
    if (o.value(QStringLiteral("format")).toString() != kFormat) {
        *error = QStringLiteral("format: expected \"%1\" (a file written by grademl validate "
                                "--fit)")
                     .arg(kFormat);
        return std::nullopt;
    }
    if (o.value(QStringLiteral("version")).toInt() != 1) {
        *error = QStringLiteral("version: expected 1");
        return std::nullopt;
    }
    Calibration c;
    c.predictedRun = o.value(QStringLiteral("predicted_run")).toString();
    c.measuredRun = o.value(QStringLiteral("measured_run")).toString();
    c.project = o.value(QStringLiteral("project")).toString();
    for (const auto &t : o.value(QStringLiteral("transforms")).toArray())
        c.transforms << t.toString();
    c.sameVendor = o.value(QStringLiteral("same_vendor")).toBool();
    const QJsonValue fams = o.value(QStringLiteral("families"));
    if (!fams.isObject()) {
        *error = QStringLiteral("families: expected an object of family names and factors");
        return std::nullopt;
    }
    const QJsonObject f = fams.toObject();
    for (auto it = f.begin(); it != f.end(); ++it) {
        const auto x = factorAt(it.value(), QStringLiteral("families.") + it.key(), error);
        if (!x)
            return std::nullopt;
        c.families[it.key()] = *x;
    }
    for (const auto &[key, field] :
         {std::pair{"host", &Calibration::host}, std::pair{"launch", &Calibration::launch},
          std::pair{"loading", &Calibration::loading}}) {
        if (!o.contains(QLatin1String(key)))
            continue;
        const auto x = factorAt(o.value(QLatin1String(key)), QLatin1String(key), error);
        if (!x)
            return std::nullopt;
        c.*field = *x;
    }
    return c;
}

std::optional<Calibration> Calibration::load(const QString &path, QString *error)
{
    const auto bytes = readSmallInput(path, QStringLiteral("a calibration file"), error);
    if (!bytes)
        return std::nullopt;
    return parse(*bytes, path, error);
}

std::optional<Calibration> Calibration::parse(const QByteArray &bytes, const QString &path,
                                              QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = QStringLiteral("%1: at byte %2: %3")
                     .arg(path)
                     .arg(parseError.offset)
                     .arg(parseError.error != QJsonParseError::NoError
                              ? parseError.errorString()
                              : QStringLiteral("expected a JSON object"));
        return std::nullopt;
    }
    QString why;
    auto c = fromJson(doc.object(), &why);
    if (!c)
        *error = QStringLiteral("%1: %2").arg(path, why);
    return c;
}

QString Calibration::source() const
{
    return QStringLiteral("run %1%2 against %3%4")
        .arg(predictedRun,
             transforms.isEmpty()
                 ? QString()
                 : QStringLiteral(" with ") + transforms.join(QStringLiteral("; ")),
             measuredRun, project.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(project));
}

QString Calibration::factors() const
{
    QStringList parts;
    for (const auto &[name, f] : families)
        parts << QStringLiteral("%1 x%2").arg(name).arg(f, 0, 'f', 3);
    if (launch)
        parts << QStringLiteral("launch calls x%1").arg(*launch, 0, 'f', 3);
    if (host)
        parts << QStringLiteral("host launch path x%1").arg(*host, 0, 'f', 3);
    if (loading)
        parts << QStringLiteral("data loading x%1").arg(*loading, 0, 'f', 3);
    return parts.join(QStringLiteral(", "));
}

std::optional<Calibration> fitCalibration(const WhatIfResult &predicted,
                                          const DependencyGraph &measured, QString *error)
{
    std::vector<TimeNs> measuredWork;
    measuredWork.reserve(measured.nodes().size());
    for (const Node &n : measured.nodes())
        measuredWork.push_back(n.work);
    const auto p = classTimes(*predicted.prepared.graph, predicted.prepared.input.work, error);
    const auto m = p ? classTimes(measured, measuredWork, error) : std::nullopt;
    if (!p || !m)
        return std::nullopt;
    Calibration c;
    c.transforms = predicted.report.transforms;
    for (const auto &[name, time] : m->families) {
        const auto it = p->families.find(name);
        if (name == familyName(KernelKind::Family::Communication) || it == p->families.end())
            continue;
        if (const auto f = inRange(ratio(time, it->second), name, c.outOfRange))
            c.families[name] = *f;
    }
    c.launch = inRange(ratio(m->launchMedian, p->launchMedian), QStringLiteral("launch calls"),
                       c.outOfRange);
    c.host = inRange(ratio(m->host, p->host), QStringLiteral("host launch path"), c.outOfRange);
    c.loading =
        inRange(ratio(m->loading, p->loading), QStringLiteral("data loading"), c.outOfRange);
    if (c.families.empty() && !c.host && !c.launch && !c.loading && !c.outOfRange.isEmpty()) {
        *error = QStringLiteral("every ratio of the pair lies outside %1 to %2 (%3): the runs do "
                                "not do the same work, so they cannot calibrate a change")
                     .arg(Calibration::kMinFactor)
                     .arg(Calibration::kMaxFactor)
                     .arg(c.outOfRange.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    if (c.families.empty() && !c.host && !c.launch && !c.loading) {
        *error = QStringLiteral("the measured run has no kernel family, launch path or data "
                                "loading in common with the prediction: nothing to fit");
        return std::nullopt;
    }
    return c;
}

namespace detail {

bool applyCalibration(const Calibration &c, const QStringList &transforms,
                      const WhatIfContext &context, const DeviceCatalog &cat, Prepared &out,
                      QString *error)
{
    const DependencyGraph &g = *out.graph;
    const auto roles = hostRoles(g, error);
    if (!roles)
        return false;
    const std::vector<char> launch = kernelLaunchCalls(g);
    const Uncertainty &u = cat.uncertainty();
    out.bandKeys = {QStringLiteral("calibrated")};
    const double residual =
        context.vary(QStringLiteral("calibrated"), u.calibrated.low, 1.0, u.calibrated.high);
    QHash<StringId, double> factorOf; // per kernel name
    QSet<QString> unfitted;
    auto &work = out.input.work;
    auto &slackOf = out.input.slack;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        double f = 1;
        bool scaleSlack = false;
        if (isGpuWork(n.kind)) {
            auto it = factorOf.find(n.name);
            if (it == factorOf.end()) {
                const QString name = g.name(n.name);
                const QString family = kernelFamily(name, n.kind);
                const auto fit = c.families.find(family);
                double x = 1;
                if (fit != c.families.end()) {
                    x = fit->second * residual;
                } else {
                    unfitted.insert(family);
                    const Range r = u.kernel(kernelKind(name).family, c.sameVendor);
                    x = context.vary(QStringLiteral("kernel efficiency: ") + family, r.low, 1.0,
                                     r.high);
                }
                it = factorOf.insert(n.name, x);
            }
            f = *it;
        } else if (launch[i] && c.launch) {
            // The call by the runtime's factor; the gap before it (the op's own CPU time up to
            // the call) by the host's.
            if (c.host)
                slackOf[i] = TimeNs(std::llround(double(slackOf[i]) * *c.host * residual));
            f = *c.launch * residual;
        } else if ((*roles)[i] == HostRole::LaunchPath && c.host) {
            f = *c.host * residual;
            scaleSlack = true;
        } else if ((*roles)[i] == HostRole::Loading && c.loading) {
            f = *c.loading * residual;
            scaleSlack = true;
        }
        if (f == 1)
            continue;
        work[i] = TimeNs(std::llround(double(work[i]) * f));
        if (scaleSlack)
            slackOf[i] = TimeNs(std::llround(double(slackOf[i]) * f));
    }
    out.notes << QStringLiteral("calibrated from %1: %2").arg(c.source(), c.factors());
    if (c.transforms != transforms)
        out.notes << QStringLiteral("calibration fitted for \"%1\", applied to \"%2\": the "
                                    "factors hold for the same hardware change")
                         .arg(c.transforms.join(QStringLiteral("; ")),
                              transforms.join(QStringLiteral("; ")));
    out.unknowns.clear();
    out.unknowns << QStringLiteral("calibration carried to this run (other shapes): each "
                                   "calibrated class x%1 to x%2")
                        .arg(u.calibrated.low)
                        .arg(u.calibrated.high);
    if (!unfitted.isEmpty()) {
        QStringList names(unfitted.begin(), unfitted.end());
        names.sort();
        out.unknowns << QStringLiteral("kernel families the calibration pair did not have (%1): "
                                       "their efficiency on the target, as without calibration")
                            .arg(names.join(QStringLiteral(", ")));
    }
    return true;
}

} // namespace detail

} // namespace gml::sim
