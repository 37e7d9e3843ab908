// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowsmodel.h"
#include "validation.h"

namespace gml {

// A predicted run against a measured one (`grademl validate`'s table) as a tree: a section per
// kind of row (times; GPU time by kernel family; the largest operators), and in each what was
// measured, what was predicted and the error (green within 5%, red past 10%).
class ValidationModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { What, Measured, Predicted, Error };
    explicit ValidationModel(QObject *parent = nullptr);
    void setReport(const sim::ValidationReport &report);
    void clear() { setRows({}); }
};

} // namespace gml
