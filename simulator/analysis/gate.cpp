// SPDX-License-Identifier: GPL-3.0-or-later
#include "gate.h"

#include "safetext.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gml::sim {

namespace {

struct Source
{
    const char *key; // run_metrics key
    double scale;    // stored value × scale = display unit
};

// The metric's stored key and scale (step_time and end_to_end are computed).
Source sourceOf(const QString &name)
{
    if (name == QLatin1String("gpu_busy") || name == QLatin1String("compute") ||
        name == QLatin1String("communication") || name == QLatin1String("copies") ||
        name == QLatin1String("idle") || name == QLatin1String("mfu") ||
        name == QLatin1String("hfu"))
        return {nullptr, 100};
    if (name == QLatin1String("peak_memory"))
        return {"peak_memory_bytes", 1.0 / double(1 << 30)};
    if (name == QLatin1String("energy"))
        return {"energy_j", 1};
    if (name == QLatin1String("energy_per_iteration"))
        return {"energy_per_iteration_j", 1};
    return {nullptr, 1};
}

double median(std::vector<double> v)
{
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median absolute deviation: the spread that one slow iteration does not widen.
double mad(const std::vector<double> &v)
{
    const double m = median(v);
    std::vector<double> d;
    d.reserve(v.size());
    for (double x : v)
        d.push_back(std::abs(x - m));
    return median(d);
}

struct Value
{
    double value = std::nan("");
    int samples = 1;
    double spread = 0;
};

Value valueOf(const CatalogRun &run, const QString &metric)
{
    Value out;
    if (metric == QLatin1String("step_time")) {
        std::vector<double> times;
        for (const auto &t : run.metrics.value(QStringLiteral("step_times_ns")).toArray())
            times.push_back(t.toDouble() * 1e-6);
        if (times.size() >= 3) {
            out.value = median(times);
            out.samples = int(times.size());
            out.spread = mad(times);
        } else {
            out.value = run.metric(QStringLiteral("step_mean_ns"), std::nan("")) * 1e-6;
            out.samples = std::max(1, int(times.size()));
        }
        return out;
    }
    if (metric == QLatin1String("end_to_end")) {
        // A prediction's replayed time; a measured run's work span (its monitoring samples,
        // which a replay does not hold, left out), else its span.
        const double predicted = run.metric(QStringLiteral("predicted_ns"), -1);
        const double work = run.metric(QStringLiteral("work_span_ns"), -1);
        out.value = (predicted > 0 ? predicted : work > 0 ? work : double(run.duration())) * 1e-6;
        if (out.value <= 0)
            out.value = std::nan("");
        return out;
    }
    const Source s = sourceOf(metric);
    const QString key = s.key ? QString::fromLatin1(s.key) : metric;
    const QJsonValue v = run.metrics.value(key);
    if (v.isDouble())
        out.value = v.toDouble() * s.scale;
    return out;
}

QString number(double v, const QString &unit)
{
    const int digits = std::abs(v) >= 100 ? 1 : std::abs(v) >= 10 ? 2 : 3;
    return QString::number(v, 'f', digits) +
           (unit == QLatin1String("%") ? QString() : QStringLiteral(" ")) + unit;
}

QString changeText(double change, Gate::Unit unit, const QString &displayUnit)
{
    const QString sign = change >= 0 ? QStringLiteral("+") : QString();
    switch (unit) {
    case Gate::Unit::Percent:
        return sign + QString::number(change, 'f', 1) + QLatin1Char('%');
    case Gate::Unit::Points:
        return sign + QString::number(change, 'f', 2) + QStringLiteral(" pt");
    case Gate::Unit::Absolute:
        return sign + number(change, displayUnit);
    }
    return {};
}

QString limitText(const Gate &g, const QString &displayUnit)
{
    return changeText(g.limit, g.unit, displayUnit);
}

// Markdown table cells: control characters shown, pipes and markup as text (safetext.h).
QString cell(const QString &s)
{
    return markdownCell(s, 400);
}

QString causeText(const DiffRow &r)
{
    return QStringLiteral("%1: %2 per iteration (%3 → %4)")
        .arg(r.path, formatSignedDuration(TimeNs(std::llround(r.delta()))),
             formatDuration(TimeNs(std::llround(r.timeA))),
             formatDuration(TimeNs(std::llround(r.timeB))));
}

} // namespace

const QList<GateMetric> &gateMetrics()
{
    static const QList<GateMetric> all = {
        {QStringLiteral("step_time"), QStringLiteral("Iteration time"), QStringLiteral("ms"),
         QStringLiteral("the median iteration (the mean with fewer than 3)")},
        {QStringLiteral("end_to_end"), QStringLiteral("End to end"), QStringLiteral("ms"),
         QStringLiteral("the run's span (a prediction's predicted time)")},
        {QStringLiteral("gpu_busy"), QStringLiteral("GPU busy"), QStringLiteral("%"),
         QStringLiteral("busy share of the GPUs' window")},
        {QStringLiteral("compute"), QStringLiteral("Compute"), QStringLiteral("%"),
         QStringLiteral("the GPUs' compute share")},
        {QStringLiteral("communication"), QStringLiteral("Communication"), QStringLiteral("%"),
         QStringLiteral("the GPUs' communication share")},
        {QStringLiteral("copies"), QStringLiteral("Copies"), QStringLiteral("%"),
         QStringLiteral("the GPUs' copy share")},
        {QStringLiteral("idle"), QStringLiteral("Idle"), QStringLiteral("%"),
         QStringLiteral("the GPUs' idle share")},
        {QStringLiteral("mfu"), QStringLiteral("MFU"), QStringLiteral("%"),
         QStringLiteral("model FLOPs utilisation")},
        {QStringLiteral("hfu"), QStringLiteral("HFU"), QStringLiteral("%"),
         QStringLiteral("hardware FLOPs utilisation")},
        {QStringLiteral("peak_memory"), QStringLiteral("Peak memory"), QStringLiteral("GiB"),
         QStringLiteral("the highest GPU's peak allocated")},
        {QStringLiteral("energy"), QStringLiteral("Energy"), QStringLiteral("J"),
         QStringLiteral("from power samples")},
        {QStringLiteral("energy_per_iteration"), QStringLiteral("Energy per iteration"),
         QStringLiteral("J"), QStringLiteral("from power samples")},
    };
    return all;
}

const GateMetric *gateMetric(const QString &name)
{
    for (const GateMetric &m : gateMetrics())
        if (m.name == name)
            return &m;
    return nullptr;
}

namespace {
QString unitOf(const QString &metric)
{
    const GateMetric *m = gateMetric(metric);
    return m ? m->unit : QString();
}
} // namespace

std::optional<Gate> parseGate(const QString &text, QString *why)
{
    static const QRegularExpression re(QStringLiteral(
        R"(^\s*([a-z_]+)\s*([<>])\s*([+-]?\d+(?:\.\d+)?)\s*(%|pt|ms|s|us|GiB|MiB|J)?\s*$)"));
    const auto m = re.match(text);
    QStringList names;
    for (const GateMetric &g : gateMetrics())
        names << g.name;
    if (!m.hasMatch()) {
        *why = QStringLiteral("--gate '%1' is not METRIC<CHANGE or METRIC>CHANGE with CHANGE such "
                              "as +5%, -2pt or +3ms (e.g. 'step_time<+5%')")
                   .arg(safeText(text));
        return std::nullopt;
    }
    Gate g;
    g.text = text.simplified(); // one space between tokens: a tab or \v never reaches a report
    g.metric = m.captured(1);
    const GateMetric *metric = gateMetric(g.metric);
    if (!metric) {
        *why = QStringLiteral("--gate '%1': no metric '%2'; gates know: %3")
                   .arg(safeText(text), g.metric, names.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    g.below = m.captured(2) == QLatin1String("<");
    g.limit = m.captured(3).toDouble();
    const QString unit = m.captured(4);
    if (unit.isEmpty()) {
        // 'step_time<5' could mean 5%, 5 ms or 5 points: a gate that guesses passes or fails
        // for the wrong reason.
        const QString n = m.captured(3);
        *why = QStringLiteral("--gate '%1': the change needs a unit: %2%3 (relative) or %4")
                   .arg(g.text, n, QStringLiteral("%"),
                        metric->unit == QLatin1String("%")
                            ? QStringLiteral("%1pt (points of the share)").arg(n)
                            : QStringLiteral("%1%2 (absolute)").arg(n, metric->unit));
        return std::nullopt;
    }
    if (unit == QLatin1String("%")) {
        g.unit = Gate::Unit::Percent;
    } else if (unit == QLatin1String("pt")) {
        if (metric->unit != QLatin1String("%")) {
            *why = QStringLiteral("--gate '%1': points (pt) are for shares such as gpu_busy; %2 "
                                  "is in %3")
                       .arg(text, g.metric, metric->unit);
            return std::nullopt;
        }
        g.unit = Gate::Unit::Points;
    } else {
        g.unit = Gate::Unit::Absolute;
        // Into the metric's display unit.
        double factor = 1;
        if (metric->unit == QLatin1String("ms")) {
            if (unit == QLatin1String("s"))
                factor = 1e3;
            else if (unit == QLatin1String("us"))
                factor = 1e-3;
            else if (!unit.isEmpty() && unit != QLatin1String("ms"))
                factor = 0;
        } else if (metric->unit == QLatin1String("GiB")) {
            if (unit == QLatin1String("MiB"))
                factor = 1.0 / 1024;
            else if (!unit.isEmpty() && unit != QLatin1String("GiB"))
                factor = 0;
        } else if (!unit.isEmpty() && unit != metric->unit) {
            factor = 0;
        }
        if (factor == 0) {
            *why = QStringLiteral("--gate '%1': %2 is in %3, not %4")
                       .arg(text, g.metric, metric->unit, unit);
            return std::nullopt;
        }
        g.limit *= factor;
    }
    return g;
}

QString GateResult::summary() const
{
    const QString unit = unitOf(gate.metric);
    if (!known)
        return QStringLiteral("%1: FAIL  %2").arg(gate.text, why);
    QString s = QStringLiteral("%1: %2  %3 against %4 (%5, limit %6)")
                    .arg(gate.text, passed ? QStringLiteral("pass") : QStringLiteral("FAIL"),
                         number(current, unit), number(base, unit),
                         changeText(change, gate.unit, unit), limitText(gate, unit));
    if (baseSamples > 1 || newSamples > 1)
        s += QStringLiteral(" [medians of %1 and %2 iterations]").arg(baseSamples).arg(newSamples);
    if (withinSpread && !passed)
        s += QStringLiteral("; the difference is within the runs' own spread (%1 median "
                            "deviation): likely noise, more iterations would tell")
                 .arg(number(spread, unit));
    return s;
}

QList<GateResult> judgeGates(const QList<Gate> &gates, const CatalogRun &base,
                             const CatalogRun &current)
{
    QList<GateResult> out;
    for (const Gate &g : gates) {
        GateResult r;
        r.gate = g;
        const Value a = valueOf(base, g.metric), b = valueOf(current, g.metric);
        if (std::isnan(a.value) || std::isnan(b.value)) {
            QStringList lacking;
            if (std::isnan(a.value))
                lacking << QStringLiteral("'%1'").arg(safeText(base.name));
            if (std::isnan(b.value))
                lacking << QStringLiteral("'%1'").arg(safeText(current.name));
            r.why = QStringLiteral("run %1 has no %2")
                        .arg(lacking.join(QStringLiteral(" and ")), g.metric);
            out << r;
            continue;
        }
        r.known = true;
        r.base = a.value;
        r.current = b.value;
        r.baseSamples = a.samples;
        r.newSamples = b.samples;
        switch (g.unit) {
        case Gate::Unit::Percent:
            r.change = a.value != 0 ? 100.0 * (b.value - a.value) / std::abs(a.value)
                                    : (b.value == 0 ? 0.0 : std::copysign(1e9, b.value));
            break;
        case Gate::Unit::Points:
        case Gate::Unit::Absolute:
            r.change = b.value - a.value;
            break;
        }
        r.passed = g.below ? r.change < g.limit : r.change > g.limit;
        r.spread = std::max(a.spread, b.spread);
        r.withinSpread = r.spread > 0 && std::abs(b.value - a.value) <= r.spread;
        out << r;
    }
    return out;
}

QList<DiffRow> topCauses(const TraceDiff &diff, int count)
{
    std::vector<DiffRow> rows;
    for (const DiffLevel &level : diff.levels)
        if (level.name == QLatin1String("GPU work") ||
            level.name.endsWith(QLatin1String("depth 1")))
            for (const DiffRow &r : level.rows)
                if (r.delta() > 0)
                    rows.push_back(r);
    std::sort(rows.begin(), rows.end(),
              [](const DiffRow &a, const DiffRow &b) { return a.delta() > b.delta(); });
    QList<DiffRow> out;
    for (size_t i = 0; i < rows.size() && int(i) < count; ++i)
        out << rows[i];
    return out;
}

QString gatesJUnit(const QList<GateResult> &results, const QList<DiffRow> &causes,
                   const QString &baseRun, const QString &newRun)
{
    int failures = 0;
    for (const GateResult &r : results)
        failures += !r.passed;
    QString causeLines;
    for (const DiffRow &c : causes)
        causeLines += QStringLiteral("grew: ") + causeText(c) + QLatin1Char('\n');
    QString xml = QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml += QStringLiteral("<testsuites name=\"grademl gates\" tests=\"%1\" failures=\"%2\">\n")
               .arg(results.size())
               .arg(failures);
    xml += QStringLiteral("  <testsuite name=\"%1\" tests=\"%2\" failures=\"%3\" errors=\"0\" "
                          "skipped=\"0\">\n")
               .arg(xmlEscaped(QStringLiteral("%1 vs %2").arg(baseRun, newRun)))
               .arg(results.size())
               .arg(failures);
    for (const GateResult &r : results) {
        xml += QStringLiteral("    <testcase classname=\"grademl.gate\" name=\"%1\"")
                   .arg(xmlEscaped(r.gate.text));
        if (r.passed) {
            xml += QStringLiteral(">\n      <system-out>%1</system-out>\n    </testcase>\n")
                       .arg(xmlEscaped(r.summary()));
            continue;
        }
        xml += QStringLiteral(">\n      <failure message=\"%1\" type=\"gate\">%2</failure>\n"
                              "    </testcase>\n")
                   .arg(xmlEscaped(r.summary()), xmlEscaped(causeLines));
    }
    xml += QStringLiteral("  </testsuite>\n</testsuites>\n");
    return xml;
}

QString gatesMarkdown(const QList<GateResult> &results, const QList<DiffRow> &causes,
                      const QString &baseRun, const QString &newRun)
{
    int failures = 0;
    for (const GateResult &r : results)
        failures += !r.passed;
    QString md =
        QStringLiteral("### GradeML gates: %1 against %2 — %3\n\n")
            .arg(cell(newRun), cell(baseRun),
                 failures ? QStringLiteral("%1 of %2 failed").arg(failures).arg(results.size())
                          : QStringLiteral("all %1 passed").arg(results.size()));
    md += QStringLiteral("| Gate | Base | New | Change | Result |\n|---|---:|---:|---:|---|\n");
    for (const GateResult &r : results) {
        const QString unit = unitOf(r.gate.metric);
        QString result = r.passed ? QStringLiteral("pass") : QStringLiteral("**FAIL**");
        if (!r.known)
            result += QStringLiteral(": ") + cell(r.why);
        else if (r.withinSpread && !r.passed)
            result += QStringLiteral(" (within the runs' spread: likely noise)");
        md += QStringLiteral("| `%1` | %2 | %3 | %4 | %5 |\n")
                  .arg(r.gate.text, // parseGate took only [a-z_], <, >, a number and a unit
                       r.known ? number(r.base, unit) : QStringLiteral("–"),
                       r.known ? number(r.current, unit) : QStringLiteral("–"),
                       r.known ? changeText(r.change, r.gate.unit, unit) : QStringLiteral("–"),
                       result);
    }
    if (!causes.isEmpty()) {
        md += QStringLiteral("\nWhat grew most per aligned iteration:\n\n");
        for (const DiffRow &c : causes)
            md += QStringLiteral("- ") + cell(causeText(c)) + QLatin1Char('\n');
    }
    return md;
}

} // namespace gml::sim
