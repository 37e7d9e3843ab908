// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "strategy.h"
#include "sweepcharts.h"

#include <QWidget>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace gml {

class Chart;
class SortedTable;
class SweepModel;

// The Simulate panel (issue 18): the strategy simulator's form — a model (built-in, or the layer
// graph of a measured run), batch, strategy, workers, servers, cluster (a preset or a JSON
// file), scheduling, data, and a sweep of worker counts and batch sizes — beside the sweep's
// charts (speedup, normalized execution time, device usage, energy per iteration) and its
// table of metrics. It simulates nothing itself: "Simulate" asks the controller, which runs the
// sweep off the GUI thread and gives the points back.
class SimulatePanel : public QWidget
{
    Q_OBJECT
public:
    explicit SimulatePanel(QWidget *parent = nullptr);

    // What the form asks for. `base` holds everything but the model and the cluster, which the
    // controller loads (a measured run's layer graph needs the project).
    struct Request
    {
        QString model;   // a built-in model's id, or empty with fromRun
        QString fromRun; // a measured run of the project
        QString cluster; // a preset's id or a JSON file
        sim::SimConfig base;
        QList<int> sweepWorkers, sweepBatches; // empty: base.workers, base's batch
        QString name; // a single configuration's run name (empty: named by its configuration)
        int configurations() const;
    };
    // The form's request, or nullopt with *error saying which field is wrong.
    std::optional<Request> request(QString *error) const;
    void setRequest(const Request &request); // tests and scripted use

    // The measured runs a layer graph can come from (listed after the built-in models).
    void setMeasuredRuns(const QStringList &runs);
    void setProjectOpen(bool open);
    void setBusy(bool busy);
    void showProgress(int done, int total);
    void showMessage(const QString &text);
    // The table and charts: `points` under the heading `what` ("this sweep", "all simulated runs").
    void setPoints(const QList<SweepPoint> &points, const QString &what);
    const QList<SweepPoint> &points() const { return m_points; }
    SweepModel *sweepModel() const { return m_sweep; }
    bool showsAllRuns() const;
    void setShowAllRuns(bool all);
    std::vector<Chart *> charts() const; // speedup, NET, usage, energy
    QString chartsTitle() const;
    QString message() const;

Q_SIGNALS:
    void simulateRequested();
    void cancelRequested();
    void showAllRunsChanged(bool all);
    void runActivated(const QString &run); // a row of the table double-clicked

private:
    // The constructor's parts: the form (scrolled when the dock is short), the results (a
    // heading over the charts and the table, in tabs), and the controls' connections.
    QWidget *buildForm();
    QWidget *buildResults();
    void connectControls();
    void updateEnabled();
    void exportCharts();

    QComboBox *m_model;
    QSpinBox *m_batch;
    QComboBox *m_batchKind;
    QComboBox *m_strategy;
    QSpinBox *m_workers;
    QSpinBox *m_servers;
    QCheckBox *m_async;
    QComboBox *m_allReduce;
    QComboBox *m_cluster;
    QComboBox *m_scheduling;
    QSpinBox *m_iterations;
    QCheckBox *m_synthetic;
    QLineEdit *m_sweepWorkers;
    QLineEdit *m_sweepBatches;
    QLineEdit *m_name;
    QPushButton *m_simulate;
    QPushButton *m_cancel;
    QProgressBar *m_progress;
    QLabel *m_status;
    QLabel *m_heading;
    QCheckBox *m_allRuns;
    QPushButton *m_export;
    QTabWidget *m_tabs;
    Chart *m_speedup, *m_net, *m_usage, *m_energy;
    SweepModel *m_sweep;
    SortedTable *m_table;
    QList<SweepPoint> m_points;
    QString m_what;
    bool m_projectOpen = false;
    bool m_busy = false;
};

} // namespace gml
