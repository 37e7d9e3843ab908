// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// CI gates on two runs (issue 59): `grademl compare FILE BASE NEW --gate 'step_time<+5%'`.
// A gate names a headline metric, a direction and how far the new run may move from the base:
//
//   step_time<+5%       the new run's iteration time less than 5% above the base's
//   gpu_busy>-2pt       GPU busy at most 2 percentage points below the base's
//   peak_memory<+0.5GiB, end_to_end<+20ms, energy<+10%, mfu>-1pt, ...
//
// With several iterations on both sides the iteration time compares medians, and the verdict
// says when the difference lies within the runs' own spread (the larger of their median
// absolute deviations): a gate is still judged by its limit, but such a failure is flagged as
// likely noise.

#include "runcatalog.h"
#include "tracediff.h"

#include <QList>
#include <QString>

#include <optional>

namespace gml::sim {

struct GateMetric
{
    QString name;  // as written in a gate: step_time, gpu_busy, ...
    QString label; // "Iteration time"
    QString unit;  // display unit: ms, %, GiB, J
    QString about; // one line for --help
};
const QList<GateMetric> &gateMetrics();
const GateMetric *gateMetric(const QString &name); // null: no such metric

struct Gate
{
    QString text; // as given
    QString metric;
    bool below = true; // '<': the change must stay below the limit; '>': above it
    double limit = 0;  // in `unit`
    enum class Unit { Percent, Points, Absolute } unit = Unit::Percent;
};
// Parses one --gate; nullopt with *why (what was expected) when it is not one.
std::optional<Gate> parseGate(const QString &text, QString *why);

// One gate judged on two runs.
struct GateResult
{
    Gate gate;
    bool known = false; // both runs have the metric
    bool passed = false;
    double base = 0, current = 0;        // in the metric's display unit
    double change = 0;                   // in the gate's unit (%, points or the display unit)
    int baseSamples = 1, newSamples = 1; // iterations behind a median
    double spread = 0;                   // display unit; 0: unknown
    bool withinSpread = false;
    QString why;             // when !known: which run lacks the metric
    QString summary() const; // "step_time<+5%: FAIL  27.9 ms against 25.1 ms (+11.2%, limit +5%)"
};
QList<GateResult> judgeGates(const QList<Gate> &gates, const CatalogRun &base,
                             const CatalogRun &current);

// What grew most between the runs' aligned iterations: the operators (depth 1) and GPU work of
// the trace diff with the largest increase per iteration, at most `count`.
QList<DiffRow> topCauses(const TraceDiff &diff, int count = 3);

// The reports CI systems read: JUnit XML (one test case per gate) and Markdown (a table, the
// causes under it).
QString gatesJUnit(const QList<GateResult> &results, const QList<DiffRow> &causes,
                   const QString &baseRun, const QString &newRun);
QString gatesMarkdown(const QList<GateResult> &results, const QList<DiffRow> &causes,
                      const QString &baseRun, const QString &newRun);

} // namespace gml::sim
