// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTreeView;

namespace gml {

class Chart;
class MemoryTableModel;

// The Analysis view's Memory page (TensorBoard's memory view, PyTorch's memory snapshot): per
// device, the allocated and reserved memory over the run with the peak marked, what was live
// at the peak by operator or call path, the largest allocations, and what was never freed
// (leak suspects first). A row's click shows its allocation in the timeline. It shows the
// memory report of the run's analysis (memoryreport.h); it reads nothing itself.
class MemoryView : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryView(QWidget *parent = nullptr);
    // `report` null: the run recorded no memory events (`why` says so).
    void showMemory(const MemoryReport *report, TimeNs origin, const QString &why = {});
    Chart *chart() const { return m_chart; }
    bool hasMemory() const { return m_report.has_value(); }

Q_SIGNALS:
    void evidenceActivated(const gml::sim::Evidence &evidence);

private:
    void showDevice(int index);
    void fillLive();

    QStackedWidget *m_stack;
    QLabel *m_message;
    QComboBox *m_device;
    QLabel *m_facts;
    Chart *m_chart;
    QComboBox *m_groupBy;
    MemoryTableModel *m_liveModel;
    MemoryTableModel *m_largestModel;
    MemoryTableModel *m_neverModel;
    QTreeView *m_live;
    QTreeView *m_largest;
    QTreeView *m_never;
    std::optional<MemoryReport> m_report;
    TimeNs m_origin = 0;
};

} // namespace gml
