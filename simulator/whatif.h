// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "replay.h"

#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QString>

namespace gml::sim {

// One change to the measured run. Scale: the work of every node whose name matches `pattern`
// is multiplied by `factor` (0 removes it: no work and no slack).
struct Transform
{
    QRegularExpression pattern;
    double factor = 1;
    QString describe() const;
};

// "REGEX=FACTOR" (the last '=' separates them); nullopt with the reason in `error`.
std::optional<Transform> parseScale(const QString &text, QString *error);

ReplayInput applyTransforms(const DependencyGraph &graph, const QList<Transform> &transforms);

// Measured, identity-replayed and predicted times of a run, end to end and per iteration (the
// ProfilerStep#N of its lowest rank), and the critical-path breakdowns.
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
    QList<Iteration> iterations;
    Breakdown identityBreakdown;
    Breakdown predictedBreakdown;
    QStringList transforms;

    double identityError() const; // |identity - measured| / measured
    double worstIterationError() const; // the largest per-iteration identity error
    QJsonObject toJson() const;
    QString toText() const;
};

WhatIfReport whatIf(const DependencyGraph &graph, const QList<Transform> &transforms);

} // namespace gml::sim
