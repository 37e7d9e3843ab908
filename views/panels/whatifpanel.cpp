// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatifpanel.h"

#include "theme.h"

#include "devicecatalog.h"
#include "timeformat.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHorizontalStackedBarSeries>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSlider>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

namespace gml {

namespace {

// Slider positions: speed-ups are powers of two in eighths (position 8 = 2x), the input
// pipeline steps 1x, 2x, 4x, 8x, 16x, free; latency in 0.5 µs steps; workers as is.
constexpr int kRange[6][2] = {{-8, 24}, {-8, 24}, {-16, 32}, {0, 100}, {0, 5}, {1, 64}};

QString times(double f)
{
    return QStringLiteral("×%1").arg(f, 0, 'f', f < 10 ? 2 : 1);
}

} // namespace

void WhatIfPanel::resizeEvent(QResizeEvent *e)
{
    const auto direction = width() >= 760 ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_outer->direction() != direction)
        m_outer->setDirection(direction);
    QWidget::resizeEvent(e);
}

WhatIfPanel::WhatIfPanel(QWidget *parent) : QWidget(parent)
{
    // Side by side when wide (a bottom pane), stacked when narrow (the pane beside the timeline).
    auto *outer = new QBoxLayout(QBoxLayout::TopToBottom, this);
    m_outer = outer;
    outer->setContentsMargins(6, 4, 6, 4);
    outer->addWidget(buildControls(), 3);
    outer->addWidget(buildResults(), 4);
    connectControls();
    updateLabels();
}

QWidget *WhatIfPanel::buildControls()
{
    auto *controls = new QWidget(this);
    auto *form = new QFormLayout(controls);
    form->setContentsMargins(0, 0, 0, 0);
    form->setVerticalSpacing(2);
    m_run = new QComboBox(controls);
    form->addRow(tr("Run"), m_run);
    auto *presets = new QWidget(controls);
    auto *pl = new QHBoxLayout(presets);
    pl->setContentsMargins(0, 0, 0, 0);
    m_amp = new QCheckBox(tr("AMP"), presets);
    m_amp->setToolTip(tr("Mixed precision (Daydream): compute-bound kernels ÷3, memory-bound ÷2"));
    m_fusedAdam = new QCheckBox(tr("Fused optimizer"), presets);
    m_fusedAdam->setToolTip(
        tr("The kernels of each Optimizer.step fused into one; their launches vanish"));
    m_device = new QComboBox(controls);
    m_device->addItem(tr("GPU as measured"), QString());
    for (const auto &d : sim::DeviceCatalog::builtin().devices())
        m_device->addItem(tr("Run on %1").arg(d.id), d.id);
    pl->addWidget(m_amp);
    pl->addWidget(m_fusedAdam);
    pl->addStretch(1);
    form->addRow(tr("Presets"), presets);
    form->addRow(tr("Device"), m_device);
    const QString names[6] = {tr("Compute speed"), tr("Memory bandwidth"), tr("Link bandwidth"),
                              tr("Link latency"),  tr("Input pipeline"),   tr("Workers")};
    const QString tips[6] = {
        tr("Compute-bound kernels (GEMM, convolution, attention) this many times faster"),
        tr("Memory-bound kernels, memsets and device copies this many times faster"),
        tr("Bandwidth of the link collectives run over, relative to the measured one"),
        tr("Per-step latency of collectives"),
        tr("Data loading this many times faster, or free"),
        tr("N-way data parallel: collectives rescaled by the ring factor, or an all-reduce per "
           "25 MB gradient bucket inserted after backward")};
    for (int i = 0; i < 6; ++i) {
        auto *row = new QWidget(controls);
        auto *rl = new QHBoxLayout(row);
        rl->setContentsMargins(0, 0, 0, 0);
        m_sliders[i] = new QSlider(Qt::Horizontal, row);
        m_sliders[i]->setRange(kRange[i][0], kRange[i][1]);
        m_sliders[i]->setToolTip(tips[i]);
        m_values[i] = new QLabel(row);
        m_values[i]->setMinimumWidth(90);
        rl->addWidget(m_sliders[i], 1);
        rl->addWidget(m_values[i]);
        if (i == int(Slider::Workers)) {
            m_algorithm = new QComboBox(row);
            m_algorithm->addItem(tr("Ring"), QStringLiteral("ring"));
            m_algorithm->addItem(tr("Tree"), QStringLiteral("tree"));
            m_algorithm->setToolTip(
                tr("The collective algorithm of the workers' all-reduces (NCCL's cost model): "
                   "a ring moves less data, a tree takes fewer latency steps"));
            rl->addWidget(m_algorithm);
            connect(m_algorithm, &QComboBox::currentIndexChanged, this, &WhatIfPanel::changed);
        }
        form->addRow(names[i], row);
        connect(m_sliders[i], &QSlider::valueChanged, this, &WhatIfPanel::changed);
    }
    m_sliders[int(Slider::Workers)]->setValue(1);
    m_list = new QListWidget(controls);
    m_list->setMaximumHeight(90);
    m_list->setToolTip(tr("The transforms replayed, in order; Delete removes a custom one"));
    form->addRow(tr("Transforms"), m_list);
    auto *customRow = new QWidget(controls);
    auto *cl = new QHBoxLayout(customRow);
    cl->setContentsMargins(0, 0, 0, 0);
    m_custom = new QLineEdit(customRow);
    m_custom->setPlaceholderText(
        tr("REGEX=FACTOR (sgemm=0.5) or a transform as JSON (Enter adds)"));
    m_custom->setToolTip(tr(
        "REGEX=FACTOR scales the slices whose name matches; a JSON object is any transform, e.g. "
        "{\"op\":\"reschedule\",\"priority\":1,\"select\":{\"name\":\"nccl\"}} "
        "(docs/whatif.md lists them)"));
    auto *remove = new QPushButton(tr("Remove"), customRow);
    cl->addWidget(m_custom, 1);
    cl->addWidget(remove);
    form->addRow(tr("Scale"), customRow);
    auto *scenarioRow = new QWidget(controls);
    auto *sl = new QHBoxLayout(scenarioRow);
    sl->setContentsMargins(0, 0, 0, 0);
    m_scenario = new QComboBox(scenarioRow);
    m_scenario->setEditable(true);
    m_scenario->setToolTip(tr("Scenarios saved in the project for this run"));
    auto *load = new QPushButton(tr("Load"), scenarioRow);
    auto *save = new QPushButton(tr("Save"), scenarioRow);
    auto *saveRun = new QPushButton(tr("Save as Run…"), scenarioRow);
    saveRun->setToolTip(tr("Write the predicted run into the project"));
    sl->addWidget(m_scenario, 1);
    sl->addWidget(load);
    sl->addWidget(save);
    form->addRow(tr("Scenario"), scenarioRow);
    form->addRow(QString(), saveRun);
    saveRun->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
    // Calibration: factors fitted on the user's own measured pair (grademl validate --fit).
    auto *calibrationRow = new QWidget(controls);
    auto *cal = new QHBoxLayout(calibrationRow);
    cal->setContentsMargins(0, 0, 0, 0);
    m_calibration = new QLabel(tr("none"), calibrationRow);
    m_calibration->setToolTip(tr("Factors fitted on a measured pair of the same hardware change "
                                 "(grademl validate --fit OUT.json), applied after the "
                                 "transforms"));
    auto *calLoad = new QPushButton(tr("Load…"), calibrationRow);
    auto *calClear = new QPushButton(tr("Clear"), calibrationRow);
    cal->addWidget(m_calibration, 1);
    cal->addWidget(calLoad);
    cal->addWidget(calClear);
    form->addRow(tr("Calibration"), calibrationRow);
    connect(calLoad, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load Calibration"), QString(), tr("Calibration (*.json);;All files (*)"));
        if (!path.isEmpty())
            Q_EMIT calibrationChosen(path);
    });
    connect(calClear, &QPushButton::clicked, this, [this] { Q_EMIT calibrationChosen({}); });
    auto removeSelected = [this] {
        const int row = m_list->currentRow();
        const int firstCustom = m_list->count() - int(m_customTransforms.size());
        if (row >= firstCustom && row < m_list->count()) {
            m_customTransforms.removeAt(row - firstCustom);
            changed();
        }
    };
    connect(remove, &QPushButton::clicked, this, removeSelected);
    auto *del = new QShortcut(QKeySequence::Delete, m_list, nullptr, nullptr, Qt::WidgetShortcut);
    connect(del, &QShortcut::activated, this, removeSelected);
    connect(load, &QPushButton::clicked, this, [this] {
        if (!m_scenario->currentText().isEmpty())
            Q_EMIT loadScenarioRequested(m_scenario->currentText());
    });
    connect(save, &QPushButton::clicked, this, [this] {
        const QString name = m_scenario->currentText().trimmed();
        if (name.isEmpty())
            m_summary->setText(tr("Name the scenario first (type into the scenario box)."));
        else
            Q_EMIT saveScenarioRequested(name, transforms());
    });
    connect(saveRun, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString name =
            QInputDialog::getText(this, tr("Save Prediction as Run"), tr("Run name:"),
                                  QLineEdit::Normal, currentRun() + tr(" (what-if)"), &ok);
        if (ok && !name.trimmed().isEmpty())
            Q_EMIT saveRunRequested(name.trimmed(), transforms());
    });
    return controls;
}

QWidget *WhatIfPanel::buildResults()
{
    auto *right = new QWidget(this);
    auto *rv = new QVBoxLayout(right);
    rv->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(tr("Open a trace folder to ask what-if questions."), right);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart = new QChart();
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->setBackgroundRoundness(0);
    auto *chartView = new QChartView(m_chart, right);
    chartView->setRenderHint(QPainter::Antialiasing);
    // Its size hint does not count: the pane sits in a scroll area that takes the panel's
    // preferred height for its width (the summary wraps), and the chart's would push the
    // legend past the bottom at 1366x768. It gets what the controls leave, at least 170 px.
    chartView->setMinimumHeight(170);
    chartView->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    // The summary scrolls on its own when it is longer than its share (its notes on what the
    // model does not know run to a dozen lines), so the chart below is never squeezed.
    auto *summaryScroll = new QScrollArea(right);
    summaryScroll->setWidget(m_summary);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    summaryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    rv->addWidget(summaryScroll, 3);
    rv->addWidget(chartView, 2);
    return right;
}

void WhatIfPanel::connectControls()
{
    connect(m_run, &QComboBox::currentTextChanged, this, [this](const QString &run) {
        if (!m_updating)
            Q_EMIT runChanged(run);
    });
    connect(m_amp, &QCheckBox::toggled, this, &WhatIfPanel::changed);
    connect(m_fusedAdam, &QCheckBox::toggled, this, &WhatIfPanel::changed);
    connect(m_device, &QComboBox::currentIndexChanged, this, &WhatIfPanel::changed);
    connect(m_custom, &QLineEdit::returnPressed, this, [this] {
        QString why;
        if (auto t = sim::parseTransform(m_custom->text(), &why)) {
            m_customTransforms.append(*t);
            m_custom->clear();
            changed();
        } else {
            m_summary->setText(why);
        }
    });
}

void WhatIfPanel::setRuns(const QStringList &runs, const QString &current)
{
    m_updating = true;
    m_run->clear();
    m_run->addItems(runs);
    m_run->setCurrentText(current);
    m_updating = false;
}

QString WhatIfPanel::currentRun() const
{
    return m_run->currentText();
}

void WhatIfPanel::setMeasured(const Measured &m)
{
    m_measured = m;
    m_updating = true;
    for (int i = 0; i < 6; ++i)
        m_sliders[i]->setValue(i == int(Slider::Workers)   ? m.workers
                               : i == int(Slider::Latency) ? int(std::lround(m.latencyUs * 2))
                                                           : 0);
    m_sliders[int(Slider::Network)]->setEnabled(m.networkGBps > 0);
    m_sliders[int(Slider::Latency)]->setEnabled(m.networkGBps > 0);
    m_amp->setChecked(false);
    m_fusedAdam->setChecked(false);
    m_algorithm->setCurrentIndex(0);
    m_device->setCurrentIndex(0);
    m_customTransforms.clear();
    m_updating = false;
    updateLabels();
}

WhatIfPanel::Controls WhatIfPanel::controls() const
{
    Controls c;
    for (int i = 0; i < 6; ++i)
        c.sliders[i] = m_sliders[i]->value();
    c.amp = m_amp->isChecked();
    c.fusedAdam = m_fusedAdam->isChecked();
    c.algorithm = m_algorithm->currentIndex();
    c.device = m_device->currentIndex();
    c.custom = m_customTransforms;
    return c;
}

void WhatIfPanel::setControls(const Controls &c)
{
    m_updating = true;
    for (int i = 0; i < 6; ++i)
        m_sliders[i]->setValue(c.sliders[i]);
    m_amp->setChecked(c.amp);
    m_fusedAdam->setChecked(c.fusedAdam);
    m_algorithm->setCurrentIndex(c.algorithm);
    m_device->setCurrentIndex(c.device);
    m_customTransforms = c.custom;
    m_updating = false;
    updateLabels();
}

void WhatIfPanel::setScenarios(const QStringList &names)
{
    const QString current = m_scenario->currentText();
    m_scenario->clear();
    m_scenario->addItems(names);
    m_scenario->setCurrentText(current);
}

QSlider *WhatIfPanel::slider(Slider which) const
{
    return m_sliders[int(which)];
}

double WhatIfPanel::sliderValue(Slider which) const
{
    const int v = m_sliders[int(which)]->value();
    switch (which) {
    case Slider::Compute:
    case Slider::Memory:
    case Slider::Network:
        return std::pow(2.0, v / 8.0);
    case Slider::Latency:
        return v / 2.0;
    case Slider::Input:
        return v == 5 ? 0.0 : std::pow(2.0, v);
    case Slider::Workers:
        return v;
    }
    return 1;
}

QList<sim::Transform> WhatIfPanel::transforms() const
{
    using sim::Transform;
    QList<Transform> out;
    if (m_amp->isChecked())
        out << Transform::amp();
    if (m_fusedAdam->isChecked())
        out << Transform::fusedAdam();
    if (const QString d = m_device->currentData().toString(); !d.isEmpty())
        out << Transform::device(d);
    for (auto [slider, op] :
         {std::pair{Slider::Compute, "compute"}, std::pair{Slider::Memory, "memory"}}) {
        if (m_sliders[int(slider)]->value() != 0) {
            Transform t;
            t.op = QString::fromLatin1(op);
            t.factor = sliderValue(slider);
            out << t;
        }
    }
    if (m_sliders[int(Slider::Input)]->value() != 0)
        out << Transform::input(sliderValue(Slider::Input));
    const QString algorithm =
        m_algorithm->currentIndex() > 0 ? m_algorithm->currentData().toString() : QString();
    if (m_sliders[int(Slider::Workers)]->value() != m_measured.workers || !algorithm.isEmpty()) {
        Transform t = Transform::dataParallel(int(sliderValue(Slider::Workers)));
        t.algorithm = algorithm;
        out << t;
    }
    const bool bw = m_sliders[int(Slider::Network)]->value() != 0;
    const bool lat =
        m_sliders[int(Slider::Latency)]->value() != int(std::lround(m_measured.latencyUs * 2));
    if (m_measured.networkGBps > 0 && (bw || lat))
        out << Transform::network(bw ? m_measured.networkGBps * sliderValue(Slider::Network) : 0,
                                  lat ? sliderValue(Slider::Latency) : -1);
    out += m_customTransforms;
    return out;
}

void WhatIfPanel::setCustomTransforms(const QList<sim::Transform> &transforms)
{
    setMeasured(m_measured);
    // A preset the panel has a box for ticks it (the same transform, not a custom one), and a
    // device the catalog knows is picked in the Device list.
    QList<sim::Transform> custom;
    m_updating = true;
    const QJsonObject amp = sim::Transform::amp().toJson(),
                      fused = sim::Transform::fusedAdam().toJson();
    for (const auto &t : transforms) {
        const QJsonObject j = t.toJson();
        if (j == amp)
            m_amp->setChecked(true);
        else if (j == fused)
            m_fusedAdam->setChecked(true);
        else if (const int i = m_device->findData(t.target);
                 t.is("device") && i > 0 && j == sim::Transform::device(t.target).toJson())
            m_device->setCurrentIndex(i);
        else
            custom << t;
    }
    m_updating = false;
    m_customTransforms = custom;
    changed();
}

void WhatIfPanel::changed()
{
    if (m_updating)
        return;
    updateLabels();
    Q_EMIT transformsChanged();
}

void WhatIfPanel::updateLabels()
{
    for (auto s : {Slider::Compute, Slider::Memory, Slider::Network})
        m_values[int(s)]->setText(times(sliderValue(s)));
    if (m_measured.networkGBps > 0)
        m_values[int(Slider::Network)]->setText(QStringLiteral("%1 GB/s").arg(
            m_measured.networkGBps * sliderValue(Slider::Network), 0, 'f', 1));
    else
        m_values[int(Slider::Network)]->setText(tr("link unknown"));
    m_values[int(Slider::Latency)]->setText(
        QStringLiteral("%1 µs").arg(sliderValue(Slider::Latency), 0, 'f', 1));
    const double in = sliderValue(Slider::Input);
    m_values[int(Slider::Input)]->setText(in == 0 ? tr("free") : times(in));
    m_values[int(Slider::Workers)]->setText(QString::number(int(sliderValue(Slider::Workers))));
    m_list->clear();
    for (const auto &t : transforms())
        m_list->addItem(t.describe());
}

void WhatIfPanel::setCalibration(const QString &name, const QString &details)
{
    m_calibration->setText(name.isEmpty() ? tr("none") : name);
    m_calibration->setToolTip(details);
}

void WhatIfPanel::showMessage(const QString &text)
{
    m_summary->setText(text);
}

void WhatIfPanel::changeEvent(QEvent *e)
{
    if (e->type() == QEvent::PaletteChange)
        styleChart();
    QWidget::changeEvent(e);
}

} // namespace gml
