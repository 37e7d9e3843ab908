// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"
#include "rowsmodel.h"

namespace gml {

// An analysis' findings as ranked: severity (coloured), what fixing it would gain (priced by a
// what-if replay; "?" when the price failed, "–" when it has none) and the finding. RowDataRole:
// the finding's index in the report.
class FindingsModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Severity, Gain, Finding };
    explicit FindingsModel(QObject *parent = nullptr);
    void setFindings(const std::vector<sim::Finding> &findings);
    static QColor severityColour(sim::Severity s);
};

// A finding's evidence, one line each ("what @ time from the trace's start"); RowDataRole: the
// sim::Evidence (a slice or a span to show in the timeline).
class EvidenceModel : public RowsModel
{
    Q_OBJECT
public:
    explicit EvidenceModel(QObject *parent = nullptr);
    // `origin`: the time the lines count from. No finding: no line.
    void setEvidence(const std::vector<sim::Evidence> &evidence, TimeNs origin);
};

} // namespace gml
