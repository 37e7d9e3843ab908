// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "comparecharts.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTabWidget;

namespace gml {

class Chart;
class TraceDiffView;
class ValidationView;

// The Compare panel (issue 17): two runs or more, measured, predicted or simulated, side by
// side. "Metrics": a metric overlaid over time, relative time or step, and bars of the headline
// metrics per run (iteration time with its spread, the GPU time breakdown, energy). "Params":
// a param against a headline metric, a point per run. "Trace diff": the first two runs'
// TraceDiffView. "Validation": a predicted run against a measured one (ValidationView). It
// shows what the controller gives it and asks for a metric's series and a
// diff by signal.
class ComparePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ComparePanel(QWidget *parent = nullptr);

    // The runs compared, their kind of comparison, the metrics they can be charted by (the
    // first is shown unless `metric` is one of them) and the param keys for the scatter.
    void setRuns(const QList<CatalogRun> &runs, const QString &kind, const QStringList &metrics,
                 const QStringList &params, const QString &metric = {});
    void setSeries(const QString &metric, const std::vector<sim::MetricSeries> &series);
    void showMessage(const QString &text);

    const QList<CatalogRun> &runs() const { return m_runs; }
    QString metric() const;
    void setMetric(const QString &metric);
    CompareAxis axis() const;
    void setAxis(CompareAxis axis);
    void setScatter(const QString &param, const QString &metricKey);
    void showTab(int index);             // 0 metrics, 1 params, 2 trace diff, 3 validation
    std::vector<Chart *> charts() const; // metric, iteration, breakdown, energy, scatter
    TraceDiffView *diffView() const { return m_diff; }
    ValidationView *validationView() const { return m_validation; }

Q_SIGNALS:
    void metricRequested(const QString &metric);

protected:
    void changeEvent(QEvent *e) override; // a new theme: the notes' colour follows

private:
    void colourNotes();
    void showMetric();
    void showScatter();

    QList<CatalogRun> m_runs;
    std::vector<sim::MetricSeries> m_series;
    QString m_seriesMetric;
    QLabel *m_head;
    QTabWidget *m_tabs;
    QComboBox *m_metric, *m_axis;
    QLabel *m_note = nullptr;
    Chart *m_metricChart, *m_iteration, *m_breakdown, *m_energy;
    QComboBox *m_param, *m_scatterMetric;
    QList<sim::SummaryMetric> m_scatterMetrics; // what m_scatterMetric lists
    QLabel *m_scatterNote = nullptr;
    Chart *m_scatter;
    TraceDiffView *m_diff;
    ValidationView *m_validation;
    bool m_filling = false;
};

} // namespace gml
