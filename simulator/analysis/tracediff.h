// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"

#include <QJsonObject>
#include <QString>

#include <vector>

namespace gml::sim {

// A trace diff of two runs (or two ranks of one run): their iterations aligned
// (ProfilerStep#N to ProfilerStep#N when they share step numbers, else in order), and the
// operators and GPU work of the aligned iterations matched by name and call path, per level of
// the hierarchy: the iterations themselves, operators by depth under the iteration (depth 1:
// the ops the step calls, e.g. nn.Module or aten::linear; depth 2: what those call; ...), and
// the GPU kernels, copies and collectives under the op path that launched them. Times and
// counts are per aligned iteration, inclusive (an op's time holds its children's).
struct DiffSide
{
    QString run;
    int rank = -1; // the rank compared (the run's lowest when not chosen)
};

struct IterationPair
{
    QString nameA, nameB;
    TimeNs startA = 0, endA = 0; // project clock
    TimeNs startB = 0, endB = 0;
    TimeNs lengthA() const { return endA - startA; }
    TimeNs lengthB() const { return endB - startB; }
};

struct DiffRow
{
    QString path; // "aten::linear › aten::addmm", or "... › volta_sgemm_128x64_nn" for GPU work
    QString name; // the last element
    double timeA = 0, timeB = 0;   // ns per aligned iteration
    double countA = 0, countB = 0; // per aligned iteration
    double delta() const { return timeB - timeA; }
    double countDelta() const { return countB - countA; }
};

struct DiffLevel
{
    QString name;              // "iterations", "operators, depth 1", ..., "GPU work"
    std::vector<DiffRow> rows; // largest |time difference| first
    double totalA = 0, totalB = 0;
};

struct TraceDiff
{
    DiffSide a, b;
    QString alignment; // "by step number", "by order", "whole runs (no ProfilerStep ranges)"
    std::vector<IterationPair> pairs;
    int chosenPair = -1; // the one pair diffed (-1: all pairs, averaged)
    std::vector<DiffLevel> levels;

    QString toText(int rowsPerLevel = 10) const;
    QJsonObject toJson(int rowsPerLevel = 50) const;
};

struct DiffOptions
{
    int rankA = -1; // -1: the run's lowest rank
    int rankB = -1;
    int pair = -1; // diff only this aligned pair (index into TraceDiff::pairs); -1: all
    int maxDepth = 6;
};

TraceDiff diffTraces(const DependencyGraph &a, const QString &runA, const DependencyGraph &b,
                     const QString &runB, const DiffOptions &options = {});

} // namespace gml::sim
