// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparepanel.h"

#include "validationview.h"

#include "chartlayer.h"
#include "theme.h"
#include "tracediffview.h"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace gml {

ComparePanel::ComparePanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_head =
        new QLabel(tr("Select two runs or more in the Runs browser and choose Compare."), this);
    m_head->setWordWrap(true);
    m_head->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_head);
    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);

    // Metrics: the chosen metric overlaid, the headline metrics as bars below.
    auto *metrics = new QWidget(m_tabs);
    auto *ml = new QVBoxLayout(metrics);
    ml->setContentsMargins(2, 2, 2, 2);
    auto *row = new QHBoxLayout;
    m_metric = new QComboBox(metrics);
    m_metric->setMinimumContentsLength(20);
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_axis = new QComboBox(metrics);
    m_axis->addItem(tr("Time"), int(CompareAxis::Time));
    m_axis->addItem(tr("Relative time"), int(CompareAxis::Relative));
    m_axis->addItem(tr("Step"), int(CompareAxis::Step));
    m_axis->setCurrentIndex(1); // runs laid over each other, whenever they ran
    m_axis->setToolTip(
        tr("Time: as the runs ran, from the first run's start. Relative: each run from its own "
           "start, laid over each other. Step: the step an MLflow metric was logged at."));
    m_note = new QLabel(metrics);
    row->addWidget(new QLabel(tr("Metric:"), metrics));
    row->addWidget(m_metric);
    row->addSpacing(12);
    row->addWidget(new QLabel(tr("Axis:"), metrics));
    row->addWidget(m_axis);
    row->addSpacing(12);
    row->addWidget(m_note, 1);
    ml->addLayout(row);
    auto *grid = new QGridLayout;
    m_metricChart = new Chart(metrics);
    m_iteration = new Chart(metrics);
    m_breakdown = new Chart(metrics);
    m_energy = new Chart(metrics);
    // The dock shares the window's height with the timeline: the charts may get small.
    for (Chart *c : {m_metricChart, m_iteration, m_breakdown, m_energy})
        c->setMinimumSize(160, 100);
    grid->addWidget(m_metricChart, 0, 0, 1, 3);
    grid->addWidget(m_iteration, 1, 0);
    grid->addWidget(m_breakdown, 1, 1);
    grid->addWidget(m_energy, 1, 2);
    grid->setRowStretch(0, 3);
    grid->setRowStretch(1, 2);
    ml->addLayout(grid, 1);
    m_tabs->addTab(metrics, tr("Metrics"));

    // Params: a param against a headline metric.
    auto *params = new QWidget(m_tabs);
    auto *pl = new QVBoxLayout(params);
    pl->setContentsMargins(2, 2, 2, 2);
    auto *prow = new QHBoxLayout;
    m_param = new QComboBox(params);
    m_param->setMinimumContentsLength(16);
    m_scatterMetric = new QComboBox(params);
    m_scatterNote = new QLabel(params);
    colourNotes();
    prow->addWidget(new QLabel(tr("Param:"), params));
    prow->addWidget(m_param);
    prow->addSpacing(12);
    prow->addWidget(new QLabel(tr("against:"), params));
    prow->addWidget(m_scatterMetric);
    prow->addSpacing(12);
    prow->addWidget(m_scatterNote, 1);
    pl->addLayout(prow);
    m_scatter = new Chart(params);
    pl->addWidget(m_scatter, 1);
    m_tabs->addTab(params, tr("Params"));

    m_diff = new TraceDiffView(m_tabs);
    m_tabs->addTab(m_diff, tr("Trace diff"));
    m_validation = new ValidationView(m_tabs);
    m_tabs->addTab(m_validation, tr("Validation"));

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        if (m_filling || metric().isEmpty())
            return;
        if (metric() == m_seriesMetric)
            showMetric();
        else
            Q_EMIT metricRequested(metric());
    });
    connect(m_axis, &QComboBox::currentIndexChanged, this, [this] {
        if (m_filling)
            return;
        m_axis->setProperty("chosen", true); // the user's axis stays for the next metric
        showMetric();
    });
    connect(m_param, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            showScatter();
    });
    connect(m_scatterMetric, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            showScatter();
    });
}

void ComparePanel::setRuns(const QList<CatalogRun> &runs, const QString &kind,
                           const QStringList &metrics, const QStringList &params,
                           const QString &metric)
{
    m_runs = runs;
    m_series.clear();
    m_seriesMetric.clear();
    QStringList names;
    for (int k = 0; k < runs.size(); ++k) {
        const QString origin = runOrigin(runs[k]);
        names << QStringLiteral("<span style='color:%1'>\u25a0</span> <b>%2</b>%3")
                     .arg(chartColour(k).name(), runs[k].name.toHtmlEscaped(),
                          origin.isEmpty() ? QString()
                                           : QStringLiteral(" (%1)").arg(origin.toHtmlEscaped()));
    }
    if (runs.isEmpty())
        m_head->setText(
            tr("No runs to compare: select two or more in the Runs panel and press Compare."));
    else
        m_head->setText(tr("%1 runs, %2: %3")
                            .arg(runs.size())
                            .arg(kind.toHtmlEscaped(), names.join(QStringLiteral(", "))));
    m_filling = true;
    m_metric->clear();
    m_metric->addItems(metrics);
    m_metric->setEnabled(!metrics.isEmpty());
    if (metrics.contains(metric))
        m_metric->setCurrentText(metric);
    const QString param = m_param->currentText();
    m_param->clear();
    m_param->addItems(params);
    if (params.contains(param))
        m_param->setCurrentText(param);
    const QString against = m_scatterMetric->currentData().toString();
    m_scatterMetrics = scatterMetrics(runs);
    m_scatterMetric->clear();
    for (const sim::SummaryMetric &m : std::as_const(m_scatterMetrics))
        m_scatterMetric->addItem(m.label, m.key);
    if (const int i = m_scatterMetric->findData(against); i >= 0)
        m_scatterMetric->setCurrentIndex(i);
    m_filling = false;
    m_note->setText(
        metrics.isEmpty()
            ? tr("These runs have no metrics over time (no MLflow metrics, no monitoring logs).")
            : QString());
    const SummaryCharts s = summaryCharts(runs);
    m_iteration->showBars(s.iteration);
    m_breakdown->showBars(s.breakdown);
    m_energy->showBars(s.energy);
    // Runs with no trace and no power readings (MLflow runs alone): the metric takes the room.
    const bool noBars =
        s.iteration.isEmpty() && s.breakdown.isEmpty() && s.energy.isEmpty() && !runs.isEmpty();
    for (Chart *c : {m_iteration, m_breakdown, m_energy})
        c->setVisible(!noBars);
    m_metricChart->showTime({});
    showScatter();
}

void ComparePanel::setSeries(const QString &metric, const std::vector<sim::MetricSeries> &series)
{
    m_seriesMetric = metric;
    m_series = series;
    if (this->metric() != metric)
        setMetric(metric);
    // The step axis only where some series was logged at steps.
    const bool steps =
        std::any_of(series.begin(), series.end(), [](const auto &s) { return s.hasSteps(); });
    if (axis() == CompareAxis::Step && !steps)
        setAxis(CompareAxis::Relative);
    else if (steps && axis() != CompareAxis::Step && m_axis->property("chosen").isNull())
        setAxis(CompareAxis::Step);
    showMetric();
}

void ComparePanel::showMessage(const QString &text)
{
    m_note->setText(text);
}

QString ComparePanel::metric() const
{
    return m_metric->currentText();
}

void ComparePanel::setMetric(const QString &metric)
{
    m_metric->setCurrentText(metric);
}

CompareAxis ComparePanel::axis() const
{
    return CompareAxis(m_axis->currentData().toInt());
}

void ComparePanel::setAxis(CompareAxis axis)
{
    m_filling = true;
    m_axis->setCurrentIndex(m_axis->findData(int(axis)));
    m_filling = false;
    showMetric();
}

void ComparePanel::setScatter(const QString &param, const QString &metricKey)
{
    m_filling = true;
    m_param->setCurrentText(param);
    m_scatterMetric->setCurrentIndex(std::max(0, m_scatterMetric->findData(metricKey)));
    m_filling = false;
    showScatter();
}

void ComparePanel::showTab(int index)
{
    m_tabs->setCurrentIndex(index);
}

void ComparePanel::showMetric()
{
    if (m_seriesMetric.isEmpty() || m_seriesMetric != metric()) {
        m_metricChart->showTime({});
        return;
    }
    QString note;
    TimeChart chart = metricChart(m_series, m_runs, axis(), &note);
    if (chart.lines.empty() && note.isEmpty())
        note = tr("None of these runs has '%1'.").arg(m_seriesMetric);
    m_note->setText(note);
    m_metricChart->showTime(chart);
}

void ComparePanel::showScatter()
{
    const QString param = m_param->currentText();
    const int mi = m_scatterMetric->currentIndex();
    if (param.isEmpty() || mi < 0) {
        m_scatter->showScatter({});
        m_scatterNote->setText(m_runs.isEmpty() ? QString() : tr("These runs have no params."));
        return;
    }
    const sim::SummaryMetric &against = m_scatterMetrics[mi];
    const ScatterChart chart = paramScatter(m_runs, param, against);
    m_scatter->showScatter(chart);
    const int left = int(m_runs.size()) - int(chart.points.size());
    m_scatterNote->setText(left > 0 ? tr("%1 of the %2 runs have no '%3' or no %4")
                                          .arg(left)
                                          .arg(m_runs.size())
                                          .arg(param, against.label)
                           : m_runs.size() < 3 ? tr("Select more runs for a fuller picture.")
                                               : QString());
}

std::vector<Chart *> ComparePanel::charts() const
{
    return {m_metricChart, m_iteration, m_breakdown, m_energy, m_scatter};
}

void ComparePanel::colourNotes()
{
    const QString css = QStringLiteral("color: %1").arg(Theme::current().caution.name());
    m_note->setStyleSheet(css);
    m_scatterNote->setStyleSheet(css);
}

void ComparePanel::changeEvent(QEvent *e)
{
    if (e->type() == QEvent::PaletteChange && m_note && m_scatterNote)
        colourNotes();
    QWidget::changeEvent(e);
}

} // namespace gml
