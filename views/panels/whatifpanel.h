// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "transforms.h"
#include "whatif.h"

#include <QWidget>

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;

class QChart;

namespace gml {

// The what-if panel: presets, sliders and a transform list that together make the scenario
// replayed beside the timeline, and a chart of the critical path (compute, communication,
// memcpy, CPU, idle) and mean iteration time, measured against predicted. It only edits
// transforms and shows results; the replay runs elsewhere (WhatIfController, off the GUI thread).
class WhatIfPanel : public QWidget
{
    Q_OBJECT
public:
    enum class Slider { Compute, Memory, Network, Latency, Input, Workers };

    explicit WhatIfPanel(QWidget *parent = nullptr);

    void setRuns(const QStringList &runs, const QString &current);
    QString currentRun() const;
    // What the measured run ran on, for labels and slider origins.
    struct Measured
    {
        double networkGBps = 0; // the measured network link; 0: unknown
        double latencyUs = 0;
        int workers = 1;
    };
    void setMeasured(const Measured &m);
    void setScenarios(const QStringList &names);

    // The scenario the controls describe: presets, device, sliders, then the listed transforms.
    QList<sim::Transform> transforms() const;
    // Replaces the custom transforms (a loaded scenario) and resets the other controls.
    void setCustomTransforms(const QList<sim::Transform> &transforms);

    // Every control's state (sliders, presets, algorithm, device, listed transforms), to put
    // back after the project reloads under them (Save as Run) without replaying in between.
    struct Controls
    {
        int sliders[6] = {};
        bool amp = false, fusedAdam = false;
        int algorithm = 0, device = 0;
        QList<sim::Transform> custom;
    };
    Controls controls() const;
    void setControls(const Controls &c);

    void showResult(const sim::WhatIfReport &report, double replayMs);
    void showMessage(const QString &text);
    // The calibration in effect: its file name (empty: none) and what it holds.
    void setCalibration(const QString &name, const QString &details);

    QSlider *slider(Slider which) const;
    QCheckBox *ampBox() const { return m_amp; }
    QLabel *summaryLabel() const { return m_summary; }

Q_SIGNALS:
    void runChanged(const QString &run);
    void transformsChanged();
    void saveScenarioRequested(const QString &name, const QList<sim::Transform> &transforms);
    void loadScenarioRequested(const QString &name);
    void saveRunRequested(const QString &name, const QList<sim::Transform> &transforms);
    void calibrationChosen(const QString &path); // empty: clear it

protected:
    void resizeEvent(QResizeEvent *e) override;
    void changeEvent(QEvent *e) override;

private:
    // The constructor's parts: the controls (run, presets, device, sliders, transforms,
    // scenario, calibration) with their buttons, the results (the summary over the chart), and
    // the connections of the controls that change the scenario.
    QWidget *buildControls();
    QWidget *buildResults();
    void connectControls();
    void styleChart();
    QBoxLayout *m_outer = nullptr;
    void changed();
    void updateLabels();
    double sliderValue(Slider which) const;

    QComboBox *m_run;
    QCheckBox *m_amp;
    QCheckBox *m_fusedAdam;
    QComboBox *m_algorithm;
    QComboBox *m_device;
    QSlider *m_sliders[6];
    QLabel *m_values[6];
    QListWidget *m_list;
    QLineEdit *m_custom;
    QComboBox *m_scenario;
    QLabel *m_summary;
    QLabel *m_calibration;
    QChart *m_chart;
    QList<sim::Transform> m_customTransforms;
    Measured m_measured;
    bool m_updating = false;
};

} // namespace gml
