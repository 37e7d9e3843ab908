// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the gate spec (issue 70): the input's lines are --gate texts for parseGate; the gates
// it accepts are judged on two runs whose metrics come from the input's bytes, and written as
// JUnit and Markdown. A crash, a sanitizer report, a unitless threshold accepted, a JUnit file
// that is not well-formed XML, or a control character in either report is a finding.
#include "fuzzcheck.h"
#include "gate.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QXmlStreamReader>

#include <cstring>

namespace {

double number(const uint8_t *&p, const uint8_t *end)
{
    double v = 0;
    if (end - p >= 8) {
        std::memcpy(&v, p, 8);
        p += 8;
    }
    return v;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const qsizetype cut = bytes.indexOf('\0');
    const QString text = QString::fromUtf8(cut < 0 ? bytes : bytes.left(cut));
    QList<gml::sim::Gate> gates;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        QString why;
        const auto g = gml::sim::parseGate(line, &why);
        if (!g) {
            gmlfuzz::check(!why.isEmpty(), "a refused gate says why");
            continue;
        }
        gmlfuzz::check(!line.trimmed().isEmpty(), "an empty gate was accepted");
        const QChar last = line.trimmed().back();
        gmlfuzz::check(!last.isDigit(), "a gate without a unit was accepted");
        gates << *g;
    }
    if (gates.isEmpty())
        return 0;
    // Two runs with the metrics gates read, from the bytes after the gates.
    const uint8_t *p = data + (cut < 0 ? size : size_t(cut) + 1), *end = data + size;
    gml::CatalogRun base, current;
    base.name = QStringLiteral("base <a&b> \x1b[31m");
    current.name = QStringLiteral("new \x07|`*");
    for (gml::CatalogRun *r : {&base, &current}) {
        QJsonArray steps;
        for (int i = 0; i < 4 && end - p >= 8; ++i)
            steps.append(number(p, end));
        r->metrics.insert(QStringLiteral("step_times_ns"), steps);
        for (const char *key :
             {"step_mean_ns", "gpu_busy", "mfu", "peak_memory_bytes", "energy_j", "work_span_ns"})
            if (end - p >= 8)
                r->metrics.insert(QLatin1String(key), number(p, end));
        r->hasMetrics = true;
        r->end = 1'000'000;
    }
    const auto results = gml::sim::judgeGates(gates, base, current);
    gmlfuzz::check(results.size() == gates.size(), "every gate is judged");
    for (const auto &r : results)
        (void)r.summary();
    const QString junit = gml::sim::gatesJUnit(results, {}, base.name, current.name);
    QXmlStreamReader xml(junit);
    while (!xml.atEnd())
        xml.readNext();
    gmlfuzz::check(!xml.hasError(), "the JUnit report is not well-formed XML");
    const QString md = gml::sim::gatesMarkdown(results, {}, base.name, current.name);
    for (const QString *s : {&junit, &md})
        for (const QChar c : *s)
            gmlfuzz::check(c.unicode() >= 0x20 || c == QLatin1Char('\n'),
                           "a control character reached a report");
    return 0;
}
