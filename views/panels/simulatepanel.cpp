// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulatepanel.h"

#include "sortedtable.h"
#include "sweepmodel.h"

#include "chartlayer.h"
#include "timeformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

namespace gml {

namespace {

constexpr int kFileItem = -1; // the cluster combo's "JSON file…" entry (the only int data)
constexpr int kBatchRole = Qt::UserRole + 1; // a built-in model's default batch (a run's: none, 0)

} // namespace

int SimulatePanel::Request::configurations() const
{
    return int(std::max<qsizetype>(1, sweepWorkers.size()) *
               std::max<qsizetype>(1, sweepBatches.size()));
}

SimulatePanel::SimulatePanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(buildForm());
    layout->addWidget(buildResults(), 1);
    connectControls();
    updateEnabled();
    setPoints({}, QString());
    showMessage(tr("Open a project: simulated runs are saved in it."));
}

QWidget *SimulatePanel::buildForm()
{
    // The form, scrolled when the dock is short.
    auto *formBox = new QWidget;
    auto *form = new QFormLayout(formBox);
    form->setContentsMargins(2, 2, 6, 2);
    form->setVerticalSpacing(4);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_model = new QComboBox(formBox);
    for (const QString &id : sim::builtinModels()) {
        const auto g = sim::builtinModel(id, nullptr);
        m_model->addItem(g ? g->name : id, QString(QStringLiteral("model:") + id));
        if (g) {
            m_model->setItemData(m_model->count() - 1, g->reference, Qt::ToolTipRole);
            m_model->setItemData(m_model->count() - 1, g->defaultBatch, kBatchRole);
        }
    }
    m_model->setCurrentIndex(
        std::max(0, int(sim::builtinModels().indexOf(QStringLiteral("resnet50")))));
    form->addRow(tr("Model:"), m_model);
    auto *batchRow = new QHBoxLayout;
    m_batch = new QSpinBox(formBox);
    m_batch->setRange(0, 1 << 20);
    m_batch->setSpecialValueText(tr("measured"));
    m_batchKind = new QComboBox(formBox);
    m_batchKind->addItem(tr("per worker"));
    m_batchKind->addItem(tr("global"));
    m_batchKind->setToolTip(
        tr("Per worker: each worker takes this many samples per iteration (weak scaling).\n"
           "Global: this many samples per iteration split over the workers (strong scaling)."));
    batchRow->addWidget(m_batch, 1);
    batchRow->addWidget(m_batchKind);
    form->addRow(tr("Batch:"), batchRow);
    m_strategy = new QComboBox(formBox);
    m_strategy->addItem(tr("Default (one GPU)"), int(sim::Strategy::Default));
    m_strategy->addItem(tr("Parameter server"), int(sim::Strategy::ParameterServer));
    m_strategy->addItem(tr("Mirrored (one node)"), int(sim::Strategy::Mirrored));
    m_strategy->addItem(tr("Multi-worker mirrored"), int(sim::Strategy::MultiWorker));
    m_strategy->setCurrentIndex(3);
    form->addRow(tr("Strategy:"), m_strategy);
    m_workers = new QSpinBox(formBox);
    m_workers->setRange(1, 65536);
    m_workers->setValue(8);
    form->addRow(tr("Workers:"), m_workers);
    auto *serverRow = new QHBoxLayout;
    m_servers = new QSpinBox(formBox);
    m_servers->setRange(1, 4096);
    m_async = new QCheckBox(tr("async updates"), formBox);
    serverRow->addWidget(m_servers, 1);
    serverRow->addWidget(m_async);
    form->addRow(tr("Servers:"), serverRow);
    m_allReduce = new QComboBox(formBox);
    m_allReduce->addItem(tr("ring"), QStringLiteral("ring"));
    m_allReduce->addItem(tr("tree (double binary)"), QStringLiteral("tree"));
    form->addRow(tr("All-reduce:"), m_allReduce);
    m_cluster = new QComboBox(formBox);
    for (const QString &id : sim::SimCluster::presets()) {
        m_cluster->addItem(id, id);
        if (const auto c = sim::SimCluster::load(id, nullptr))
            m_cluster->setItemData(
                m_cluster->count() - 1,
                tr("%1: %2 × %3 %4, %5 within a node, %6 between nodes, %7")
                    .arg(c->name)
                    .arg(c->nodes)
                    .arg(c->gpusPerNode)
                    .arg(c->gpu.name, c->intraLink.name, c->network.name, c->storage.name),
                Qt::ToolTipRole);
    }
    m_cluster->addItem(tr("JSON file…"), kFileItem);
    m_cluster->setCurrentIndex(
        std::max(0, int(sim::SimCluster::presets().indexOf(QStringLiteral("12x4-v100-edr")))));
    form->addRow(tr("Cluster:"), m_cluster);
    m_scheduling = new QComboBox(formBox);
    m_scheduling->addItem(tr("depth-first (TensorFlow)"));
    m_scheduling->addItem(tr("critical path first"));
    form->addRow(tr("Scheduling:"), m_scheduling);
    m_iterations = new QSpinBox(formBox);
    m_iterations->setRange(1, 1000);
    m_iterations->setValue(10);
    form->addRow(tr("Iterations:"), m_iterations);
    m_synthetic = new QCheckBox(tr("synthetic data (no reading, decoding or copies)"), formBox);
    form->addRow(QString(), m_synthetic);
    m_sweepWorkers = new QLineEdit(formBox);
    m_sweepWorkers->setObjectName(QStringLiteral("sweepWorkers"));
    m_sweepWorkers->setPlaceholderText(tr("e.g. 1,2,4,8,16 (empty: Workers)"));
    form->addRow(tr("Sweep workers:"), m_sweepWorkers);
    m_sweepBatches = new QLineEdit(formBox);
    m_sweepBatches->setObjectName(QStringLiteral("sweepBatches"));
    m_sweepBatches->setPlaceholderText(tr("e.g. 16,32,64 (empty: Batch)"));
    form->addRow(tr("Sweep batches:"), m_sweepBatches);
    m_name = new QLineEdit(formBox);
    m_name->setPlaceholderText(tr("named by its configuration"));
    m_name->setToolTip(tr("The run's name when one configuration is simulated; a sweep's runs are "
                          "named by their configurations."));
    form->addRow(tr("Run name:"), m_name);
    auto *buttons = new QHBoxLayout;
    m_simulate = new QPushButton(tr("Simulate"), formBox);
    m_simulate->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), formBox);
    m_cancel->setEnabled(false);
    buttons->addWidget(m_simulate, 1);
    buttons->addWidget(m_cancel);
    form->addRow(buttons);
    m_progress = new QProgressBar(formBox);
    m_progress->setVisible(false);
    form->addRow(m_progress);
    m_status = new QLabel(formBox);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(m_status);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(formBox);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(formBox->sizeHint().width() + 16);
    scroll->setMaximumWidth(formBox->sizeHint().width() + 40);
    return scroll;
}

QWidget *SimulatePanel::buildResults()
{
    // The results: a heading, the charts and the table side by side.
    auto *results = new QWidget(this);
    auto *rl = new QVBoxLayout(results);
    rl->setContentsMargins(0, 0, 0, 0);
    auto *head = new QHBoxLayout;
    m_heading = new QLabel(results);
    m_heading->setTextFormat(Qt::RichText);
    head->addWidget(m_heading, 1);
    m_allRuns = new QCheckBox(tr("All simulated runs"), results);
    m_allRuns->setToolTip(tr("Chart every simulated run of the project, not only the last sweep"));
    head->addWidget(m_allRuns);
    m_export = new QPushButton(tr("Export Charts…"), results);
    m_export->setEnabled(false);
    head->addWidget(m_export);
    rl->addLayout(head);
    // The charts and the table in tabs, each as wide as the dock allows (a table of thirteen
    // columns beside a chart fits neither).
    m_tabs = new QTabWidget(results);
    m_speedup = new Chart(m_tabs);
    m_net = new Chart(m_tabs);
    m_usage = new Chart(m_tabs);
    m_energy = new Chart(m_tabs);
    for (Chart *c : {m_speedup, m_net, m_usage, m_energy})
        c->setEmptyText(tr("No simulated runs yet: pick a model, a strategy and a cluster at "
                           "the left and press Simulate; a sweep draws a line per setting."));
    m_tabs->addTab(m_speedup, tr("Speedup"));
    m_tabs->addTab(m_net, tr("NET"));
    m_tabs->addTab(m_usage, tr("Usage"));
    m_tabs->addTab(m_energy, tr("Energy"));
    m_sweep = new SweepModel(this);
    m_table = new SortedTable(m_sweep, m_tabs);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Run names are long ("sim resnet50 ps w8 s2 b32 12x4-v100-edr"): elided in the middle.
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_table->setColumnWidth(0, 230);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_tabs->addTab(m_table, tr("Table"));
    rl->addWidget(m_tabs, 1);
    return results;
}

void SimulatePanel::connectControls()
{
    // A built-in model's own batch; a measured run's batch (0: as measured) by default.
    auto showModelBatch = [this] { m_batch->setValue(m_model->currentData(kBatchRole).toInt()); };
    connect(m_model, &QComboBox::currentIndexChanged, this, showModelBatch);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &SimulatePanel::updateEnabled);
    connect(m_cluster, &QComboBox::activated, this, [this](int index) {
        if (m_cluster->itemData(index).typeId() !=
            QMetaType::Int) // a preset or a file already picked
            return;
        const QString path = QFileDialog::getOpenFileName(this, tr("Cluster description"),
                                                          QString(), tr("JSON (*.json)"));
        if (path.isEmpty()) {
            m_cluster->setCurrentIndex(0);
            return;
        }
        m_cluster->insertItem(index, QFileInfo(path).fileName(), path);
        m_cluster->setItemData(index, path, Qt::ToolTipRole);
        m_cluster->setCurrentIndex(index);
    });
    connect(m_simulate, &QPushButton::clicked, this, [this] {
        QString error;
        if (request(&error))
            Q_EMIT simulateRequested();
        else
            showMessage(error);
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_cancel->setEnabled(false);
        m_status->setText(tr("Cancelling: the configurations already running finish first…"));
        Q_EMIT cancelRequested();
    });
    connect(m_allRuns, &QCheckBox::toggled, this, &SimulatePanel::showAllRunsChanged);
    connect(m_export, &QPushButton::clicked, this, &SimulatePanel::exportCharts);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &shown) {
        if (const QString run = m_sweep->rowData(m_table->sourceIndex(shown)).toString();
            !run.isEmpty())
            Q_EMIT runActivated(run);
    });
    showModelBatch();
}

void SimulatePanel::updateEnabled()
{
    const auto s = sim::Strategy(m_strategy->currentData().toInt());
    const bool idle = !m_busy;
    for (QWidget *w : std::initializer_list<QWidget *>{
             m_model, m_batch, m_batchKind, m_strategy, m_workers, m_cluster, m_scheduling,
             m_iterations, m_synthetic, m_sweepWorkers, m_sweepBatches, m_name})
        w->setEnabled(idle);
    m_servers->setEnabled(idle && s == sim::Strategy::ParameterServer);
    m_async->setEnabled(idle && s == sim::Strategy::ParameterServer);
    m_allReduce->setEnabled(idle && s == sim::Strategy::MultiWorker);
    m_simulate->setEnabled(idle && m_projectOpen);
    m_cancel->setEnabled(m_busy);
    m_progress->setVisible(m_busy);
}

void SimulatePanel::setProjectOpen(bool open)
{
    m_projectOpen = open;
    updateEnabled();
    if (open && !m_busy)
        showMessage(tr("Pick a configuration and a sweep, then Simulate: each configuration is "
                       "saved as a simulated run."));
}

void SimulatePanel::setMeasuredRuns(const QStringList &runs)
{
    const QString current = m_model->currentData().toString();
    const QSignalBlocker block(m_model);
    for (int i = m_model->count() - 1; i >= 0; --i)
        if (m_model->itemData(i).toString().startsWith(QLatin1String("run:")))
            m_model->removeItem(i);
    if (m_model->count() > 0 && m_model->itemText(m_model->count() - 1).isEmpty())
        m_model->removeItem(m_model->count() - 1); // the old separator
    if (!runs.isEmpty())
        m_model->insertSeparator(m_model->count());
    for (const QString &run : runs) {
        m_model->addItem(tr("from run '%1'").arg(run), QString(QStringLiteral("run:") + run));
        m_model->setItemData(
            m_model->count() - 1,
            tr("The layer graph of the measured run's median iteration: its kernels' times, "
               "scaled to the simulated batch and GPU"),
            Qt::ToolTipRole);
    }
    const int keep = m_model->findData(current);
    m_model->setCurrentIndex(keep >= 0 ? keep : 0);
}

std::optional<SimulatePanel::Request> SimulatePanel::request(QString *error) const
{
    Request r;
    const QString model = m_model->currentData().toString();
    if (model.startsWith(QLatin1String("model:")))
        r.model = model.mid(6);
    else
        r.fromRun = model.mid(4);
    r.cluster = m_cluster->currentData().toString();
    if (m_cluster->currentData().typeId() == QMetaType::Int || r.cluster.isEmpty()) {
        *error = tr("Pick a cluster preset or a cluster JSON file.");
        return std::nullopt;
    }
    sim::SimConfig &c = r.base;
    c.strategy = sim::Strategy(m_strategy->currentData().toInt());
    c.workers = m_workers->value();
    c.servers = m_servers->value();
    c.asyncUpdates = m_async->isChecked();
    const bool global = m_batchKind->currentIndex() == 1;
    if (global && m_batch->value() == 0) {
        *error = tr("A global batch needs a size (the measured batch is per worker).");
        return std::nullopt;
    }
    c.batch = global ? 0 : m_batch->value();
    c.globalBatch = global ? m_batch->value() : 0;
    c.allReduce = m_allReduce->currentData().toString();
    c.criticalPathFirst = m_scheduling->currentIndex() == 1;
    c.iterations = m_iterations->value();
    c.syntheticData = m_synthetic->isChecked();
    for (auto [edit, target, what] :
         {std::tuple(m_sweepWorkers, &r.sweepWorkers, tr("Sweep workers")),
          std::tuple(m_sweepBatches, &r.sweepBatches, tr("Sweep batches"))}) {
        if (edit->text().trimmed().isEmpty())
            continue;
        const auto values = sim::parseSweepValues(edit->text());
        if (!values) {
            *error = tr("%1: expected whole numbers of at least 1 separated by commas, as 1,2,4,8; "
                        "got '%2'.")
                         .arg(what, edit->text());
            return std::nullopt;
        }
        *target = *values;
    }
    r.name = m_name->text().trimmed();
    return r;
}

void SimulatePanel::setRequest(const Request &r)
{
    const int model =
        m_model->findData(r.fromRun.isEmpty() ? QString(QStringLiteral("model:") + r.model)
                                              : QString(QStringLiteral("run:") + r.fromRun));
    if (model >= 0)
        m_model->setCurrentIndex(model);
    const sim::SimConfig &c = r.base;
    m_batchKind->setCurrentIndex(c.globalBatch > 0 ? 1 : 0);
    m_batch->setValue(c.globalBatch > 0 ? c.globalBatch : c.batch);
    m_strategy->setCurrentIndex(m_strategy->findData(int(c.strategy)));
    m_workers->setValue(c.workers);
    m_servers->setValue(c.servers);
    m_async->setChecked(c.asyncUpdates);
    m_allReduce->setCurrentIndex(std::max(0, m_allReduce->findData(c.allReduce)));
    int cluster = m_cluster->findData(r.cluster);
    if (cluster < 0) {
        cluster = m_cluster->count() - 1; // before "JSON file…"
        m_cluster->insertItem(cluster, QFileInfo(r.cluster).fileName(), r.cluster);
    }
    m_cluster->setCurrentIndex(cluster);
    m_scheduling->setCurrentIndex(c.criticalPathFirst ? 1 : 0);
    m_iterations->setValue(c.iterations);
    m_synthetic->setChecked(c.syntheticData);
    auto list = [](const QList<int> &values) {
        QStringList parts;
        for (int v : values)
            parts << QString::number(v);
        return parts.join(QLatin1Char(','));
    };
    m_sweepWorkers->setText(list(r.sweepWorkers));
    m_sweepBatches->setText(list(r.sweepBatches));
    m_name->setText(r.name);
}

void SimulatePanel::setBusy(bool busy)
{
    m_busy = busy;
    if (busy) {
        m_progress->setRange(0, 0);
        m_progress->setValue(0);
    }
    updateEnabled();
}

void SimulatePanel::showProgress(int done, int total)
{
    // One configuration gives no steps to count: the bar just moves.
    m_progress->setRange(0, total > 1 ? total : 0);
    m_progress->setValue(done);
    m_progress->setFormat(tr("%v of %m configurations"));
    m_status->setText(
        total == 1 ? tr("Simulating one configuration…")
                   : tr("Simulating %1 configurations in parallel: %2 done…").arg(total).arg(done));
}

void SimulatePanel::showMessage(const QString &text)
{
    m_status->setText(text);
}

QString SimulatePanel::message() const
{
    return m_status->text();
}

bool SimulatePanel::showsAllRuns() const
{
    return m_allRuns->isChecked();
}

void SimulatePanel::setShowAllRuns(bool all)
{
    const QSignalBlocker block(m_allRuns);
    m_allRuns->setChecked(all);
}

std::vector<Chart *> SimulatePanel::charts() const
{
    return {m_speedup, m_net, m_usage, m_energy};
}

QString SimulatePanel::chartsTitle() const
{
    return tr("Simulated: %1").arg(m_what);
}

void SimulatePanel::setPoints(const QList<SweepPoint> &points, const QString &what)
{
    m_points = points;
    m_what = what;
    const SweepCharts charts = sweepCharts(points);
    m_speedup->showTime(charts.speedup);
    m_net->showTime(charts.net);
    m_usage->showTime(charts.usage);
    m_energy->showTime(charts.energy);
    m_export->setEnabled(!charts.isEmpty());
    if (points.isEmpty())
        m_heading->setText(tr("<i>No simulated runs yet.</i>"));
    else
        m_heading->setText(tr("<b>%1</b> · %2 %3, %4 %5 by %6")
                               .arg(what.toHtmlEscaped())
                               .arg(points.size())
                               .arg(points.size() == 1 ? tr("configuration") : tr("configurations"))
                               .arg(charts.lines)
                               .arg(charts.lines == 1 ? tr("line") : tr("lines"), charts.key));

    m_sweep->setPoints(points);
}

void SimulatePanel::exportCharts()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Charts"), QStringLiteral("simulated-sweep.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!gml::exportCharts(charts(), 2, QSize(1600, 1000), path, chartsTitle(), &error))
        QMessageBox::warning(this, tr("Export Charts"),
                             tr("The charts were not exported: %1").arg(error));
    else
        showMessage(tr("Wrote %1").arg(path));
}

} // namespace gml
