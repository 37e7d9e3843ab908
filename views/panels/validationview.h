// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "validation.h"

#include <QWidget>

class QLabel;
class QTreeView;

namespace gml {

class ValidationModel;

// The Compare panel's Validation tab: a predicted run against a measured one, the table of
// `grademl validate` (end to end, mean / median / p90 iteration, kernel families, the largest
// operators; measured, predicted, error) with what the prediction assumed above it.
class ValidationView : public QWidget
{
    Q_OBJECT
public:
    explicit ValidationView(QWidget *parent = nullptr);
    void setReport(const sim::ValidationReport &report, const QString &note = {});
    void showMessage(const QString &text);
    QTreeView *table() const { return m_table; }
    ValidationModel *model() const { return m_model; }

private:
    QLabel *m_head;
    ValidationModel *m_model;
    QTreeView *m_table;
};

} // namespace gml
