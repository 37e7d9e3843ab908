// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"
#include "whatif.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace gml::sim {

// One figure of a validation: what the model predicted for the changed run, what was measured
// when the change was made for real.
struct ValidationRow
{
    QString what;
    TimeNs predicted = 0;
    TimeNs measured = 0;
    double error() const; // (predicted - measured) / measured; 0 when nothing was measured
    // The prediction band (WhatIfReport::low/high), on end to end and the iterations' mean,
    // median and p90 of a prediction; low < 0 elsewhere (a saved run, a family, an operator).
    TimeNs low = -1;
    TimeNs high = -1;
    bool hasBand() const { return low >= 0; }
    bool insideBand() const { return hasBand() && measured >= low && measured <= high; }
};

// How far to trust a prediction (`grademl validate`, the Compare view): run A replayed with
// transforms, set against run B, measured with that change made. Aligned end to end; on the
// iterations' distribution (by the one definition, iterations.h: mean, median, p90, step by
// step in order); per kernel family (GPU time summed over every rank); and for the operators
// that took the most time in B, by call path (the enclosing ranges but the iterations', then
// the op). The model's assumptions stand beside the figures.
struct ValidationReport
{
    QString predictedRun;
    QString measuredRun;
    QStringList transforms;
    QStringList assumptions;
    QStringList unknowns; // the band's sources (WhatIfReport::unknowns)
    ValidationRow endToEnd;
    QList<ValidationRow> iterations; // mean, median, p90 (empty: a run without iterations)
    int stepsPredicted = 0;
    int stepsMeasured = 0;
    QList<ValidationRow> steps;     // step k of A against step k of B, in order
    QList<ValidationRow> families;  // by B's time, largest first
    QList<ValidationRow> operators; // the largest by B's time, at most `topOperators`
    QJsonObject toJson() const;
    QString toText() const;
};

ValidationReport validate(const WhatIfResult &predicted, const DependencyGraph &measured,
                          int topOperators = 10);
// The same for a predicted run saved in the project (grademl whatif --save, the What-if pane's
// Save as Run): its stored times against the measured run (the Compare view).
ValidationReport validateRuns(const DependencyGraph &predicted, const DependencyGraph &measured,
                              int topOperators = 10);

} // namespace gml::sim
