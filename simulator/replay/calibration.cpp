// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration from a user's own measured pair: fitting (validate --fit) and applying (whatif
// --calibration) the factors per kernel family, launch path and data loading.
#include "calibration.h"

#include "devicecatalog.h"
#include "kerneltaxonomy.h"
#include "safetext.h"
#include "smallinput.h"
#include "timeformat.h"
#include "transformsinternal.h"
#include "whatif.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cmath>
#include <numeric>

namespace gml::sim {

namespace {

const QLatin1String kFormat("grademl_calibration");

bool isGpuWork(NodeKind k)
{
    return k == NodeKind::Kernel || k == NodeKind::Memcpy || k == NodeKind::Memset;
}

// The durations of each class of a graph's nodes: kernel families, launch calls (and their
// median), the rest of the launch path, data loading.
struct ClassTimes
{
    std::map<QString, std::vector<TimeNs>> families;
    std::vector<TimeNs> host, loading, launches;
    double launchMedian = 0; // 0: no launch call
    static double sum(const std::vector<TimeNs> &v)
    {
        return std::accumulate(v.begin(), v.end(), 0.0);
    }
};

// The graph's host roles (detail::hostRoles) and kernel launch calls, which the fit and the
// application both need.
struct HostNodes
{
    std::vector<detail::HostRole> roles;
    std::vector<char> launch;
    static std::optional<HostNodes> of(const DependencyGraph &g, QString *error)
    {
        auto roles = detail::hostRoles(g, error);
        if (!roles)
            return std::nullopt;
        return HostNodes{std::move(*roles), kernelLaunchCalls(g)};
    }
};

ClassTimes classTimes(const DependencyGraph &g, const std::vector<TimeNs> &work, const HostNodes &h)
{
    const auto *roles = &h.roles;
    const std::vector<char> &launch = h.launch;
    ClassTimes t;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        if (isGpuWork(n.kind))
            t.families[kernelFamily(g.name(n.name), n.kind)].push_back(work[i]);
        else if (launch[i])
            t.launches.push_back(work[i]);
        else if ((*roles)[i] == detail::HostRole::LaunchPath)
            t.host.push_back(work[i]);
        else if ((*roles)[i] == detail::HostRole::Loading)
            t.loading.push_back(work[i]);
    }
    if (!t.launches.empty()) {
        std::vector<TimeNs> l = t.launches;
        const auto mid = l.begin() + qsizetype(l.size() / 2);
        std::nth_element(l.begin(), mid, l.end());
        t.launchMedian = double(*mid);
    }
    return t;
}

// The launch path's share (its CPU ops and launch calls) of a graph's host and GPU time.
double hostShare(const ClassTimes &t)
{
    double gpu = 0;
    for (const auto &[name, times] : t.families)
        gpu += ClassTimes::sum(times);
    const double host = ClassTimes::sum(t.host) + ClassTimes::sum(t.launches);
    return host + gpu > 0 ? host / (host + gpu) : 0;
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

// A number of the file within [low, high].
std::optional<double> numberAt(const QJsonObject &o, const QString &key, const QString &where,
                               double low, double high, QString *error)
{
    const QJsonValue v = o.value(key);
    const double x = v.toDouble(-1);
    if (!v.isDouble() || !std::isfinite(x) || x < low || x > high) {
        *error = QStringLiteral("%1: expected a number from %2 to %3")
                     .arg(where.isEmpty() ? key : safeText(where, 80) + QLatin1Char('.') + key)
                     .arg(low)
                     .arg(high);
        return std::nullopt;
    }
    return x;
}

// Version 2's lines of one key ("kernels", "classes"), each number checked.
bool readLines(const QJsonObject &o, const QString &key, std::map<QString, FittedLine> &into,
               QString *error)
{
    const QJsonObject lines = o.value(key).toObject();
    for (auto it = lines.begin(); it != lines.end(); ++it) {
        const QString where = key + QLatin1Char('.') + it.key();
        const QJsonObject l = it.value().toObject();
        FittedLine f;
        const auto floorUs = numberAt(l, QStringLiteral("floor_us"), where, 0, 1e6, error);
        const auto factor = floorUs
                                ? numberAt(l, QStringLiteral("factor"), where,
                                           Calibration::kMinFactor, Calibration::kMaxFactor, error)
                                : std::nullopt;
        const auto sigma =
            factor ? numberAt(l, QStringLiteral("sigma"), where, 0, 5, error) : std::nullopt;
        const auto shapes =
            sigma ? numberAt(l, QStringLiteral("shapes"), where, 1, 1e9, error) : std::nullopt;
        const auto from =
            shapes ? numberAt(l, QStringLiteral("from_us"), where, 0, 1e9, error) : std::nullopt;
        const auto to =
            from ? numberAt(l, QStringLiteral("to_us"), where, *from, 1e9, error) : std::nullopt;
        if (!to)
            return false;
        f.floorNs = *floorUs * 1e3;
        f.factor = *factor;
        f.sigma = *sigma;
        f.shapes = int(*shapes);
        f.from = TimeNs(*from * 1e3);
        f.to = TimeNs(*to * 1e3);
        into[it.key()] = f;
    }
    return true;
}

} // namespace

QJsonObject Calibration::toJson() const
{
    QJsonObject fams;
    for (const auto &[name, f] : families)
        fams.insert(name, f);
    auto linesOf = [](const std::map<QString, FittedLine> &m) {
        QJsonObject lines;
        for (const auto &[name, l] : m)
            lines.insert(name, QJsonObject{{QStringLiteral("floor_us"), l.floorNs / 1e3},
                                           {QStringLiteral("factor"), l.factor},
                                           {QStringLiteral("sigma"), l.sigma},
                                           {QStringLiteral("shapes"), l.shapes},
                                           {QStringLiteral("from_us"), double(l.from) / 1e3},
                                           {QStringLiteral("to_us"), double(l.to) / 1e3}});
        return lines;
    };
    QJsonObject o{{QStringLiteral("format"), kFormat},
                  {QStringLiteral("version"), 2},
                  {QStringLiteral("predicted_run"), predictedRun},
                  {QStringLiteral("measured_run"), measuredRun},
                  {QStringLiteral("project"), project},
                  {QStringLiteral("transforms"), QJsonArray::fromStringList(transforms)},
                  {QStringLiteral("same_vendor"), sameVendor},
                  {QStringLiteral("families"), fams},
                  {QStringLiteral("kernels"), linesOf(kernels)},
                  {QStringLiteral("classes"), linesOf(classes)},
                  {QStringLiteral("host_share"), hostShare}};
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
    Calibration c;
    c.version = o.value(QStringLiteral("version")).toInt();
    if (c.version != 1 && c.version != 2) {
        *error = QStringLiteral("version: expected 1 or 2");
        return std::nullopt;
    }
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
    if (c.version >= 2) {
        if (!readLines(o, QStringLiteral("kernels"), c.kernels, error) ||
            !readLines(o, QStringLiteral("classes"), c.classes, error))
            return std::nullopt;
        const auto share = numberAt(o, QStringLiteral("host_share"), {}, 0, 1, error);
        if (!share)
            return std::nullopt;
        c.hostShare = *share;
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
    for (const auto &[name, f] : families) {
        const auto line = kernels.find(name);
        if (line == kernels.end() || line->second.floorNs <= 0)
            parts << QStringLiteral("%1 x%2").arg(name).arg(f, 0, 'f', 3);
        else
            parts << QStringLiteral("%1 %2 us + x%3")
                         .arg(name)
                         .arg(line->second.floorNs / 1e3, 0, 'f', 2)
                         .arg(line->second.factor, 0, 'f', 3);
    }
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
    const auto hp = HostNodes::of(*predicted.prepared.graph, error);
    const auto hm = hp ? HostNodes::of(measured, error) : std::nullopt;
    if (!hp || !hm)
        return std::nullopt;
    const ClassTimes predictedTimes =
        classTimes(*predicted.prepared.graph, predicted.prepared.input.work, *hp);
    const ClassTimes measuredTimes = classTimes(measured, measuredWork, *hm);
    const ClassTimes *p = &predictedTimes, *m = &measuredTimes;
    Calibration c;
    c.transforms = predicted.report.transforms;
    for (const auto &[name, times] : m->families) {
        const auto it = p->families.find(name);
        if (name == familyName(KernelKind::Family::Communication) || it == p->families.end())
            continue;
        const auto f =
            inRange(ratio(ClassTimes::sum(times), ClassTimes::sum(it->second)), name, c.outOfRange);
        const auto line = f ? detail::fitLine(it->second, times) : std::nullopt;
        if (!line || line->factor < Calibration::kMinFactor ||
            line->factor > Calibration::kMaxFactor)
            continue;
        c.families[name] = *f;
        c.kernels[name] = *line;
    }
    c.launch = inRange(ratio(m->launchMedian, p->launchMedian), QStringLiteral("launch calls"),
                       c.outOfRange);
    c.host = inRange(ratio(ClassTimes::sum(m->host), ClassTimes::sum(p->host)),
                     QStringLiteral("host launch path"), c.outOfRange);
    c.loading = inRange(ratio(ClassTimes::sum(m->loading), ClassTimes::sum(p->loading)),
                        QStringLiteral("data loading"), c.outOfRange);
    for (const auto &[key, fitted, pv, mv] :
         {std::tuple{"launch", c.launch.has_value(), &p->launches, &m->launches},
          std::tuple{"host", c.host.has_value(), &p->host, &m->host},
          std::tuple{"loading", c.loading.has_value(), &p->loading, &m->loading}})
        if (fitted)
            if (const auto r = detail::fitRatio(*pv, *mv))
                c.classes[QLatin1String(key)] = *r;
    c.hostShare = hostShare(*p);
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

namespace {

// Applies a calibration node by node; the keys it varies become the preparation's unknowns.
class CalibrationApplier
{
public:
    CalibrationApplier(const Calibration &c, const WhatIfContext &context, const Uncertainty &u,
                       Prepared &out)
        : c(c), context(context), u(u), out(out)
    {
    }

    // A kernel's new time: its family's line (version 2) or factor (version 1), the spread's
    // draw; families the pair did not have, and sizes far from those it had (under half its
    // shortest or over twice its longest), keep the uncalibrated band.
    TimeNs kernel(const QString &name, NodeKind kind, TimeNs t)
    {
        const QString family = kernelFamily(name, kind);
        const Range efficiency = u.kernel(kernelKind(name).family, c.sameVendor);
        const auto line = c.kernels.find(family);
        if (line != c.kernels.end()) {
            const FittedLine &l = line->second;
            const double se = l.standardError();
            double x =
                (l.floorNs + l.factor * double(t)) * vary(QStringLiteral("calibrated: ") + family,
                                                          std::exp(-WhatIfContext::kZ95 * se), 1.0,
                                                          std::exp(WhatIfContext::kZ95 * se));
            if (t < l.from / 2 || t > l.to * 2) {
                x *= vary(QStringLiteral("calibrated: ") + family +
                              QStringLiteral(" at sizes the pair did not have"),
                          efficiency.low, 1.0, efficiency.high);
                outside[family] += x;
            }
            return TimeNs(std::llround(x));
        }
        const auto fit = c.families.find(family);
        if (fit != c.families.end())
            return scaled(t, fit->second * residual());
        unfitted.insert(family);
        return scaled(t, vary(QStringLiteral("kernel efficiency: ") + family, efficiency.low, 1.0,
                              efficiency.high));
    }
    // A host class's factor, with its spread's draw (version 1: the catalog's range). The
    // host launch path's factor is a mean over ops the pair weighted its way: a run whose
    // launch path is a larger or smaller share of its time (distance, the log of the ratio of
    // the shares) weighs its ops otherwise, by up to the ops' spread times that distance.
    double host(const char *key, double factor)
    {
        const auto fit = c.classes.find(QLatin1String(key));
        if (fit == c.classes.end())
            return factor * residual();
        double se = fit->second.standardError();
        if (qstrcmp(key, "host") == 0)
            se = std::hypot(se, fit->second.sigma * distance);
        return factor * vary(QStringLiteral("calibrated: ") + QLatin1String(key),
                             std::exp(-WhatIfContext::kZ95 * se), 1.0,
                             std::exp(WhatIfContext::kZ95 * se));
    }
    double distance = 0; // of this run's host share from the pair's
    void notes(const QStringList &transforms, TimeNs kernelTime) const;

private:
    double vary(const QString &key, double low, double nominal, double high)
    {
        return out.vary(context, key, low, nominal, high);
    }
    double residual()
    {
        return vary(QStringLiteral("calibrated"), u.calibrated.low, 1.0, u.calibrated.high);
    }

    const Calibration &c;
    const WhatIfContext &context;
    const Uncertainty &u;
    Prepared &out;
    QSet<QString> unfitted;
    std::map<QString, double> outside; // family -> its kernels' time at unfitted sizes
};

void CalibrationApplier::notes(const QStringList &transforms, TimeNs kernelTime) const
{
    out.notes << QStringLiteral("calibrated from %1: %2").arg(c.source(), c.factors());
    if (c.transforms != transforms)
        out.notes << QStringLiteral("calibration fitted for \"%1\", applied to \"%2\": the "
                                    "factors hold for the same hardware change")
                         .arg(c.transforms.join(QStringLiteral("; ")),
                              transforms.join(QStringLiteral("; ")));
    out.unknowns.clear();
    if (c.version < 2)
        out.unknowns << QStringLiteral("calibration carried to this run (other shapes): each "
                                       "calibrated class x%1 to x%2")
                            .arg(u.calibrated.low)
                            .arg(u.calibrated.high);
    else
        out.unknowns << QStringLiteral("calibration carried to this run: each class within the "
                                       "spread its pair showed (the kernels of one family do not "
                                       "agree on one line), by how many distinct sizes it had");
    for (const auto &[family, time] : outside)
        out.unknowns << QStringLiteral("%1 of this run's kernel time (%2) is %3 kernels of sizes "
                                       "far from those the pair had: their line carried, with "
                                       "the uncalibrated efficiency band")
                            .arg(formatDuration(TimeNs(time)),
                                 QStringLiteral("%1%").arg(
                                     kernelTime > 0 ? 100.0 * time / double(kernelTime) : 0.0, 0,
                                     'f', 1),
                                 family);
    if (!unfitted.isEmpty()) {
        QStringList names(unfitted.begin(), unfitted.end());
        names.sort();
        out.unknowns << QStringLiteral("kernel families the calibration pair did not have (%1): "
                                       "their efficiency on the target, as without calibration")
                            .arg(names.join(QStringLiteral(", ")));
    }
}

} // namespace

bool applyCalibration(const Calibration &c, const QStringList &transforms,
                      const WhatIfContext &context, const DeviceCatalog &cat, Prepared &out,
                      QString *error)
{
    const DependencyGraph &g = *out.graph;
    const auto host = HostNodes::of(g, error);
    if (!host)
        return false;
    const std::vector<HostRole> *roles = &host->roles;
    const std::vector<char> &launch = host->launch;
    out.bandKeys.clear();
    CalibrationApplier apply(c, context, cat.uncertainty(), out);
    const double share = hostShare(classTimes(g, out.input.work, *host));
    if (c.hostShare > 0 && share > 0)
        apply.distance = std::abs(std::log(share / c.hostShare));
    auto &work = out.input.work;
    auto &slackOf = out.input.slack;
    TimeNs kernelTime = 0;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        if (isGpuWork(n.kind)) {
            work[i] = apply.kernel(g.name(n.name), n.kind, work[i]);
            kernelTime += work[i];
            continue;
        }
        double f = 1;
        bool scaleSlack = false;
        if (launch[i] && c.launch) {
            // The call by the runtime's factor; the gap before it (the op's own CPU time up to
            // the call) by the host's.
            if (c.host)
                slackOf[i] = scaled(slackOf[i], apply.host("host", *c.host));
            f = apply.host("launch", *c.launch);
        } else if ((*roles)[i] == HostRole::LaunchPath && c.host) {
            f = apply.host("host", *c.host);
            scaleSlack = true;
        } else if ((*roles)[i] == HostRole::Loading && c.loading) {
            f = apply.host("loading", *c.loading);
            scaleSlack = true;
        }
        if (f == 1)
            continue;
        work[i] = scaled(work[i], f);
        if (scaleSlack)
            slackOf[i] = scaled(slackOf[i], f);
    }
    apply.notes(transforms, kernelTime);
    return true;
}

} // namespace detail

} // namespace gml::sim
