// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the calibration file (issue 70): Calibration::parse on any bytes; a file it accepts
// holds only factors within [kMinFactor, kMaxFactor] and is applied to a small run's prediction
// of a device change (tst_whatif's run, whatiffixture.h). A crash, a sanitizer report, a factor
// outside its range or a predicted time that is negative or not finite is a finding.
#include "calibration.h"
#include "fuzzcheck.h"
#include "fuzzsmallrun.h"
#include "projectsummary.h"
#include "whatif.h"

#include <cmath>

namespace {

bool inRange(double f)
{
    return f >= gml::sim::Calibration::kMinFactor && f <= gml::sim::Calibration::kMaxFactor;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const auto graph = gmlfuzz::smallRun();
    QString error;
    const auto c = gml::sim::Calibration::parse(
        QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)),
        QStringLiteral("fuzz.json"), &error);
    if (!c) {
        gmlfuzz::check(!error.isEmpty(), "a refused calibration says why");
        return 0;
    }
    for (const auto &[name, f] : c->families)
        gmlfuzz::check(inRange(f), "a family factor outside its range was accepted");
    for (const auto &[name, l] : c->kernels)
        gmlfuzz::check(inRange(l.factor) && l.floorNs >= 0 && l.sigma >= 0 && l.from <= l.to,
                       "a kernel line outside its ranges was accepted");
    gmlfuzz::check(!c->host || inRange(*c->host), "a host factor outside its range was accepted");
    gmlfuzz::check(!c->loading || inRange(*c->loading),
                   "a loading factor outside its range was accepted");
    (void)c->source();
    (void)c->factors();
    gml::sim::WhatIfContext context;
    context.measuredDevice = QStringLiteral("V100");
    context.calibration = std::make_shared<const gml::sim::Calibration>(*c);
    gml::sim::Transform device;
    device.op = QStringLiteral("device");
    device.target = QStringLiteral("MI300X");
    const auto result = gml::sim::whatIf(graph, {device}, context, &error);
    if (!result)
        return 0;
    const auto &r = result->report;
    gmlfuzz::check(r.predicted >= 0 && r.low.predicted >= 0 && r.high.predicted >= 0,
                   "a calibrated prediction is negative");
    gmlfuzz::check(std::isfinite(double(r.meanPredicted)), "a calibrated mean is not finite");
    // With no transform a calibration is refused, never "applied" to an identity replay.
    gmlfuzz::check(!gml::sim::whatIf(graph, {}, context, &error),
                   "a calibration without a transform");
    return 0;
}
