// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryview.h"

#include "memorymodels.h"

#include "analysischarts.h"
#include "chartlayer.h"
#include "timeformat.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeView>
#include <QVBoxLayout>

namespace gml {

namespace {

QTreeView *table(QWidget *parent, MemoryTableModel *model)
{
    auto *t = new QTreeView(parent);
    t->setModel(model);
    t->setRootIsDecorated(false);
    t->setUniformRowHeights(true);
    t->setAlternatingRowColors(true);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int c = 0; c + 1 < model->columnCount(); ++c)
        t->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    t->header()->setStretchLastSection(true);
    t->setToolTip(QObject::tr("Click a row to show its allocation in the timeline"));
    return t;
}

QWidget *boxed(const QString &title, QWidget *inner, QWidget *above = nullptr)
{
    auto *box = new QGroupBox(title);
    auto *l = new QVBoxLayout(box);
    l->setContentsMargins(4, 4, 4, 4);
    if (above)
        l->addWidget(above);
    l->addWidget(inner, 1);
    return box;
}

} // namespace

MemoryView::MemoryView(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack);
    m_message = new QLabel(m_stack);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_stack->addWidget(m_message);

    auto *page = new QWidget(m_stack);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Device:"), page));
    m_device = new QComboBox(page);
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(m_device);
    m_facts = new QLabel(page);
    m_facts->setWordWrap(true);
    top->addWidget(m_facts, 1);
    layout->addLayout(top);

    auto *split = new QSplitter(Qt::Vertical, page);
    m_chart = new Chart(split);
    m_chart->setMinimumHeight(140);
    auto *tables = new QSplitter(Qt::Horizontal, split);
    m_groupBy = new QComboBox;
    m_groupBy->addItems({tr("by operator"), tr("by call path")});
    m_liveModel = new MemoryTableModel(MemoryTableModel::Table::Live, this);
    m_largestModel = new MemoryTableModel(MemoryTableModel::Table::Largest, this);
    m_neverModel = new MemoryTableModel(MemoryTableModel::Table::NeverFreed, this);
    m_live = table(tables, m_liveModel);
    m_largest = table(tables, m_largestModel);
    m_never = table(tables, m_neverModel);
    tables->addWidget(boxed(tr("Live at the peak"), m_live, m_groupBy));
    tables->addWidget(boxed(tr("Largest allocations"), m_largest));
    tables->addWidget(boxed(tr("Never freed within the trace"), m_never));
    split->addWidget(m_chart);
    split->addWidget(tables);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    m_stack->addWidget(page);

    connect(m_device, &QComboBox::currentIndexChanged, this, &MemoryView::showDevice);
    connect(m_groupBy, &QComboBox::currentIndexChanged, this, &MemoryView::fillLive);
    for (QTreeView *t : {m_live, m_largest, m_never})
        connect(t, &QTreeView::clicked, this, [this](const QModelIndex &index) {
            const QVariant v = index.data(RowsModel::RowDataRole);
            if (v.isValid())
                Q_EMIT evidenceActivated(v.value<sim::Evidence>());
        });
    showMemory(nullptr, 0);
}

void MemoryView::showMemory(const MemoryReport *report, TimeNs origin, const QString &why)
{
    m_origin = origin;
    if (!report || report->devices.empty()) {
        m_report.reset();
        m_message->setText(why.isEmpty()
                               ? tr("No memory events in this run.\nRecord with the PyTorch "
                                    "profiler's profile_memory=True to see where memory goes.")
                               : why);
        m_stack->setCurrentIndex(0);
        return;
    }
    m_report = *report;
    const QSignalBlocker block(m_device);
    m_device->clear();
    for (const DeviceMemory &d : m_report->devices)
        m_device->addItem(d.rank >= 0        ? tr("%1 · rank %2").arg(d.device).arg(d.rank)
                          : d.file.isEmpty() ? tr("%1 · pid %2").arg(d.device, d.pid)
                                             : tr("%1 · pid %2 · %3").arg(d.device, d.pid, d.file));
    // A GPU first: what users ask about.
    int first = 0;
    for (int i = 0; i < int(m_report->devices.size()); ++i)
        if (m_report->devices[size_t(i)].isGpu()) {
            first = i;
            break;
        }
    m_device->setCurrentIndex(first);
    m_stack->setCurrentIndex(1);
    showDevice(first);
}

void MemoryView::showDevice(int index)
{
    if (!m_report || index < 0 || index >= int(m_report->devices.size()))
        return;
    const DeviceMemory &d = m_report->devices[size_t(index)];
    QStringList facts{tr("peak <b>%1</b> allocated at %2")
                          .arg(formatBytes(d.peakAllocated), formatDuration(d.peakAt - m_origin))};
    if (d.peakReserved)
        facts << tr("%1 reserved").arg(formatBytes(*d.peakReserved));
    facts << tr("%1 events").arg(d.events)
          << (d.byAddress ? tr("frees matched by address")
                          : tr("frees matched by size (this build records no addresses)"));
    if (d.unmatchedFrees)
        facts << tr("%1 frees of memory allocated before the trace").arg(d.unmatchedFrees);
    // What the peak cannot hold: memory allocated before the trace began and not freed in it
    // (the weights, loaded before profiling starts) is known only where totals are recorded.
    if (!d.totalsRecorded)
        facts << tr("leaves out memory allocated before the trace began and not freed in it "
                    "(this trace records no totals)");
    else if (d.allocatedBeforeTrace > 0)
        facts << tr("includes %1 allocated before the trace began")
                     .arg(formatBytes(d.allocatedBeforeTrace));
    m_facts->setText(facts.join(QStringLiteral(" · ")));
    m_facts->setWordWrap(true);
    m_chart->showTime(memoryChart(d, m_origin));
    fillLive();
    m_largestModel->setDevice(d, m_origin);
    m_neverModel->setDevice(d, m_origin);
}

void MemoryView::fillLive()
{
    if (!m_report || m_device->currentIndex() < 0)
        return;
    const DeviceMemory &d = m_report->devices[size_t(m_device->currentIndex())];
    m_liveModel->setDevice(d, m_origin, m_groupBy->currentIndex() == 1);
}

} // namespace gml
