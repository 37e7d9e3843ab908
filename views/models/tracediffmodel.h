// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowsmodel.h"
#include "tracediff.h"

namespace gml {

// One level of a trace diff (simulator/analysis/tracediff.h: kernels, operators, ...): each name
// with its time per iteration in A and B, the difference (red slower, green faster), its
// percentage, the counts (red where they differ) and the call path; the totals of A and B in
// their columns' headers. RowDataRole: the row's name (what both timelines light).
class TraceDiffModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Name, TimeA, TimeB, Delta, DeltaPct, CountA, CountB, Path };
    explicit TraceDiffModel(QObject *parent = nullptr);
    void setLevel(const sim::DiffLevel &level);
    void clear();
};

} // namespace gml
