// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memoryneed.h"
#include "replay.h"
#include "transforms.h"

#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QString>

namespace gml::sim {

// How many replays the prediction band draws (whatif.cpp): its ends are their 5th and 95th
// percentiles.
inline constexpr int kBandDraws = 40;

// Measured, identity-replayed and predicted times of a run, end to end and per iteration (the
// ProfilerStep#N of its lowest rank with the GPU work it launched: iterations.h), and the
// critical-path breakdowns.
struct WhatIfReport
{
    qint64 nodes = 0;
    std::array<qint64, kEdgeKinds> edges{};
    qint64 violations = 0;
    TimeNs measured = 0;
    TimeNs identity = 0;
    TimeNs predicted = 0;
    struct Iteration
    {
        QString name;
        TimeNs measured = 0;
        TimeNs identity = 0;
        TimeNs predicted = 0;
    };
    QList<Iteration> iterations; // Iterations::times(): they add up to the mean x N
    // The means of the steady iterations (Iterations::steadyMean): the measured run's warm-up
    // iterations (`warmup`, steadystate.h) are left out of all three, as from the step time.
    int warmup = 0;
    TimeNs meanMeasured = 0; // 0 without iterations
    TimeNs meanIdentity = 0;
    TimeNs meanPredicted = 0;
    // The distribution, not only the mean: a run with two slow steps has its median where the
    // others are and its p90 and end to end where the slow ones are (0 without iterations).
    struct Spread
    {
        TimeNs median = 0;
        TimeNs p90 = 0;
    };
    Spread spreadMeasured, spreadIdentity, spreadPredicted;
    // The prediction band: the same figures replayed with every unknown of the model
    // (`unknowns`, Prepared::unknowns) at its fast end (low) and its slow end (high). Equal to
    // the prediction when the transforms give every factor.
    struct Band
    {
        TimeNs predicted = 0;
        TimeNs mean = 0;
        Spread spread;
    };
    Band low, high;
    QStringList unknowns;
    QString calibration; // where the calibration applied was fitted (Calibration::source()); empty:
                         // none
    bool hasBand() const { return !unknowns.isEmpty(); }
    Breakdown identityBreakdown;
    Breakdown predictedBreakdown;
    QStringList transforms;
    QStringList notes; // the model's assumptions (transforms.h Prepared::notes)
    // The GPU memory the scenario needs (memoryneed.h), when the run recorded memory events.
    std::vector<MemoryNeed> memory;

    double identityError() const;       // |identity - measured| / measured
    double worstIterationError() const; // the largest per-iteration identity error
    QJsonObject toJson() const;
    QString toText() const;
};

// A report with the replays behind it (the GUI draws `predicted`, --save writes it).
struct WhatIfResult
{
    WhatIfReport report;
    Prepared prepared; // the graph replayed (the measured one, or a copy with inserted nodes)
    Replay identity;
    Replay predicted;
};

// `identity`: a replay of the measured graph done before (the GUI keeps one), else computed.
std::optional<WhatIfResult> whatIf(const std::shared_ptr<const DependencyGraph> &graph,
                                   const QList<Transform> &transforms, const WhatIfContext &context,
                                   QString *error, StructureCache *cache = nullptr,
                                   const Replay *identity = nullptr);

} // namespace gml::sim
