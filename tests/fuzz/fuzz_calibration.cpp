// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the calibration file (issue 70): Calibration::parse on any bytes; a file it accepts
// holds only factors within [kMinFactor, kMaxFactor] and is applied to a small run's prediction
// of a device change (tst_whatif's run, whatiffixture.h). A crash, a sanitizer report, a factor
// outside its range or a predicted time that is negative or not finite is a finding.
#include "../whatiffixture.h"
#include "calibration.h"
#include "chrometraceimporter.h"
#include "fuzzimport.h"
#include "projectsummary.h"
#include "whatif.h"

#include <cmath>

namespace {

std::shared_ptr<const gml::sim::DependencyGraph> smallRun()
{
    const gml::ChromeTraceImporter importer;
    gmlfuzz::importOnce(importer, reinterpret_cast<const uint8_t *>(gmltest::kWhatIfTrace),
                        sizeof gmltest::kWhatIfTrace - 1, ".json", true);
    QString error;
    auto &project = gmlfuzz::project();
    auto g =
        gml::sim::DependencyGraph::build(project, *project.findRun(QStringLiteral("fuzz")), &error);
    if (!g) {
        fprintf(stderr, "the small run has no graph: %s\n", qPrintable(error));
        abort();
    }
    return std::make_shared<const gml::sim::DependencyGraph>(std::move(*g));
}

void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "finding: %s\n", what);
        abort();
    }
}

bool inRange(double f)
{
    return f >= gml::sim::Calibration::kMinFactor && f <= gml::sim::Calibration::kMaxFactor;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const auto graph = smallRun();
    QString error;
    const auto c = gml::sim::Calibration::parse(
        QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)),
        QStringLiteral("fuzz.json"), &error);
    if (!c) {
        check(!error.isEmpty(), "a refused calibration says why");
        return 0;
    }
    for (const auto &[name, f] : c->families)
        check(inRange(f), "a family factor outside its range was accepted");
    check(!c->host || inRange(*c->host), "a host factor outside its range was accepted");
    check(!c->loading || inRange(*c->loading), "a loading factor outside its range was accepted");
    (void)c->source();
    (void)c->factors();
    gml::sim::WhatIfContext context;
    context.measuredDevice = QStringLiteral("V100");
    context.calibration = std::make_shared<const gml::sim::Calibration>(*c);
    gml::sim::Transform device;
    device.op = gml::sim::Transform::Op::Device;
    device.target = QStringLiteral("MI300X");
    const auto result = gml::sim::whatIf(graph, {device}, context, &error);
    if (!result)
        return 0;
    const auto &r = result->report;
    check(r.predicted >= 0 && r.low.predicted >= 0 && r.high.predicted >= 0,
          "a calibrated prediction is negative");
    check(std::isfinite(double(r.meanPredicted)), "a calibrated mean is not finite");
    // With no transform a calibration is refused, never "applied" to an identity replay.
    check(!gml::sim::whatIf(graph, {}, context, &error), "a calibration without a transform");
    return 0;
}
