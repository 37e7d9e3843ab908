// SPDX-License-Identifier: GPL-3.0-or-later
#include "runsbrowser.h"

#include "timeformat.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTimeZone>
#include <QTreeView>
#include <QVBoxLayout>

#include <cmath>
#include <functional>

namespace gml {

namespace {

constexpr int kRunIdRole = Qt::UserRole + 1;
constexpr int kSortRole = Qt::UserRole + 2;
constexpr int kWorkloadRole = Qt::UserRole + 3; // a workload row's id; -1 on "Runs in no workload"
const QString kRunsMime = QStringLiteral("application/x-grademl-run-ids");

// The tree's model: run rows drag, workload rows (and "Runs in no workload") take them. A drop
// asks for the move by `dropped` and changes nothing itself: the catalog is loaded again once
// the move is stored. Copy, not move, so the view never deletes the dragged rows itself.
class RunsModel : public QStandardItemModel
{
public:
    using QStandardItemModel::QStandardItemModel;
    std::function<void(const QList<RunId> &, qint64 workload)> dropped;

    Qt::DropActions supportedDropActions() const override { return Qt::CopyAction; }
    Qt::DropActions supportedDragActions() const override { return Qt::CopyAction; }
    QStringList mimeTypes() const override { return {kRunsMime}; }
    Qt::ItemFlags flags(const QModelIndex &index) const override
    {
        Qt::ItemFlags f = QStandardItemModel::flags(index);
        if (!index.isValid())
            return f;
        const QModelIndex first = index.siblingAtColumn(0);
        if (first.data(kRunIdRole).toLongLong())
            f |= Qt::ItemIsDragEnabled;
        if (first.data(kWorkloadRole).toLongLong())
            f |= Qt::ItemIsDropEnabled;
        return f;
    }
    QMimeData *mimeData(const QModelIndexList &indexes) const override
    {
        QStringList ids;
        for (const QModelIndex &i : indexes)
            if (const qint64 id = i.siblingAtColumn(0).data(kRunIdRole).toLongLong();
                id && !ids.contains(QString::number(id)))
                ids << QString::number(id);
        if (ids.isEmpty())
            return nullptr;
        auto *data = new QMimeData;
        data->setData(kRunsMime, ids.join(QLatin1Char(',')).toLatin1());
        return data;
    }
    // The workload a drop at `parent` lands in (a run row counts as its workload's), 0: none.
    static qint64 workloadAt(QModelIndex parent)
    {
        if (parent.isValid() && parent.siblingAtColumn(0).data(kRunIdRole).toLongLong())
            parent = parent.parent();
        return parent.isValid() ? parent.siblingAtColumn(0).data(kWorkloadRole).toLongLong() : 0;
    }
    bool canDropMimeData(const QMimeData *data, Qt::DropAction, int, int,
                         const QModelIndex &parent) const override
    {
        return data && data->hasFormat(kRunsMime) && workloadAt(parent) != 0;
    }
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                      const QModelIndex &parent) override
    {
        if (!canDropMimeData(data, action, row, column, parent))
            return false;
        QList<RunId> ids;
        for (const QByteArray &part : data->data(kRunsMime).split(','))
            if (const qint64 id = part.toLongLong())
                ids.append(id);
        if (!ids.isEmpty() && dropped)
            dropped(ids, workloadAt(parent));
        return false; // nothing changes here; the catalog is loaded again
    }
};

// Runs pass by RunCatalog's runMatches; experiments and workloads show when a run of theirs
// does (recursive filtering), or always with no filter.
class RunFilter : public QSortFilterProxyModel
{
public:
    RunFilter(const RunCatalog *catalog, QObject *parent)
        : QSortFilterProxyModel(parent), m_catalog(catalog)
    {
        setRecursiveFilteringEnabled(true);
        setSortRole(kSortRole);
    }
    void setText(const QString &text)
    {
        m_text = text.trimmed();
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        if (m_text.isEmpty())
            return true;
        const QModelIndex i = sourceModel()->index(row, 0, parent);
        const RunId id = sourceModel()->data(i, kRunIdRole).toLongLong();
        if (!id)
            return i.data().toString().contains(m_text, Qt::CaseInsensitive) &&
                   m_text.indexOf(QLatin1Char('=')) < 0;
        const CatalogRun *r = m_catalog->run(id);
        return r && runMatches(*m_catalog, *r, m_text);
    }

private:
    const RunCatalog *m_catalog;
    QString m_text;
};

QStandardItem *cell(const QString &text, const QVariant &sort = {})
{
    auto *item = new QStandardItem(text);
    item->setEditable(false);
    item->setData(sort.isValid() ? sort : QVariant(text.toLower()), kSortRole);
    return item;
}

QString paramsText(const CatalogRun &r)
{
    QStringList parts;
    auto add = [&](const QJsonObject &o) {
        for (auto it = o.begin(); it != o.end() && parts.size() < 8; ++it)
            if (!it.value().isObject() && !it.value().isArray() &&
                !it.key().startsWith(QLatin1String("mlflow.")))
                parts << it.key() + QLatin1Char('=') + it.value().toVariant().toString();
    };
    if (!r.measuredRun.isEmpty())
        return QObject::tr("from %1: %2").arg(r.measuredRun, r.scenario);
    add(r.params);
    add(r.params.value(QStringLiteral("mlflow.params")).toObject());
    if (const QJsonArray gpus = r.params.value(QStringLiteral("gpu_models")).toArray();
        !gpus.isEmpty())
        parts.prepend(gpus.first().toString());
    return parts.join(QStringLiteral(", "));
}

QList<QStandardItem *> runRow(const CatalogRun &r)
{
    QList<QStandardItem *> row(RunsBrowser::Columns);
    QString name = r.name;
    row[RunsBrowser::Name] = cell(name);
    row[RunsBrowser::Name]->setData(qint64(r.id), kRunIdRole);
    if (!r.measuredRun.isEmpty())
        row[RunsBrowser::Name]->setToolTip(
            QObject::tr("Predicted from '%1': %2").arg(r.measuredRun, r.scenario));
    row[RunsBrowser::Kind] = cell(r.kind);
    row[RunsBrowser::Status] = cell(r.status);
    const QString start =
        r.start > 0 ? QDateTime::fromMSecsSinceEpoch(r.start / 1'000'000, QTimeZone::utc())
                          .toLocalTime()
                          .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                    : QString();
    row[RunsBrowser::Start] = cell(start, qint64(r.start));
    row[RunsBrowser::Duration] =
        cell(r.duration() > 0 ? formatDuration(r.duration()) : QString(), qint64(r.duration()));
    const double step = r.metric(QStringLiteral("step_mean_ns"));
    row[RunsBrowser::StepTime] = cell(step > 0 ? formatDuration(TimeNs(step)) : QString(), step);
    const double sd = r.metric(QStringLiteral("step_sd_ns"));
    row[RunsBrowser::Spread] = cell(step > 0 && r.metric(QStringLiteral("iterations"), 0) > 1
                                        ? QStringLiteral("\u00b1 ") + formatDuration(TimeNs(sd))
                                        : QString(),
                                    sd);
    double busy = r.metric(QStringLiteral("gpu_busy"));
    QString busyText = busy >= 0 ? QStringLiteral("%1%").arg(busy * 100, 0, 'f', 1) : QString();
    if (busy < 0 && r.metric(QStringLiteral("gpu_utilisation")) >= 0) {
        busy = r.metric(QStringLiteral("gpu_utilisation")) / 100;
        busyText = QObject::tr("%1% (util.)").arg(busy * 100, 0, 'f', 1);
    }
    row[RunsBrowser::GpuBusy] = cell(busyText, busy);
    const double mfu = r.metric(QStringLiteral("mfu"));
    row[RunsBrowser::Mfu] = cell(
        mfu >= 0 ? QStringLiteral("%1%").arg(mfu * 100, 0, 'f', mfu < 0.01 ? 2 : 1) : QString(),
        mfu);
    if (mfu >= 0)
        row[RunsBrowser::Mfu]->setToolTip(
            QObject::tr("Model FLOPs utilisation %1%; hardware FLOPs utilisation (every costed "
                        "op's FLOPs) %2%")
                .arg(mfu * 100, 0, 'f', 1)
                .arg(r.metric(QStringLiteral("hfu"), mfu) * 100, 0, 'f', 1));
    const double memory = r.metric(QStringLiteral("peak_memory_bytes"));
    row[RunsBrowser::Memory] = cell(memory >= 0 ? formatBytes(memory) : QString(), memory);
    if (memory >= 0)
        row[RunsBrowser::Memory]->setToolTip(
            QObject::tr("Peak GPU memory allocated (PyTorch profiler's memory events)"));
    const double energy = r.metric(QStringLiteral("energy_j"));
    row[RunsBrowser::Energy] =
        cell(energy >= 0 ? QStringLiteral("%1 J").arg(energy, 0, 'f', 0) : QString(), energy);
    row[RunsBrowser::Params] = cell(paramsText(r));
    QStringList tags;
    for (auto it = r.tags.begin(); it != r.tags.end(); ++it)
        if (!it.key().startsWith(QLatin1String("mlflow.")))
            tags << it.key() + QLatin1Char('=') + it.value().toVariant().toString();
    row[RunsBrowser::Tags] = cell(tags.join(QStringLiteral(", ")));
    if (!r.hasMetrics)
        for (int c : {RunsBrowser::StepTime, RunsBrowser::GpuBusy, RunsBrowser::Energy})
            row[c]->setToolTip(QObject::tr("Headline metrics not computed yet"));
    return row;
}

QList<QStandardItem *> groupRow(const QString &name, const QString &kind)
{
    QList<QStandardItem *> row;
    row << cell(name) << cell(kind);
    QFont bold = row[0]->font();
    bold.setBold(true);
    row[0]->setFont(bold);
    for (int c = 2; c < RunsBrowser::Columns; ++c)
        row << cell(QString());
    return row;
}

} // namespace

RunsBrowser::RunsBrowser(QWidget *parent) : QWidget(parent)
{
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter runs: text, or KEY=VALUE for a param or tag"));
    m_filter->setClearButtonEnabled(true);
    auto *model = new RunsModel(this);
    model->dropped = [this](const QList<RunId> &ids, qint64 workload) {
        dropOnWorkload(ids, workload);
    };
    m_model = model;
    m_model->setHorizontalHeaderLabels({tr("Run"), tr("Kind"), tr("Status"), tr("Start"),
                                        tr("Duration"), tr("Step time"), tr("Spread"),
                                        tr("GPU busy"), tr("MFU"), tr("Peak memory"), tr("Energy"),
                                        tr("Params"), tr("Tags")});
    m_model->setHeaderData(
        Duration, Qt::Horizontal,
        tr("From the run's first recorded event to its last: profiler spans and monitoring "
           "samples included. What-if's \"end to end\" is shorter: the span of the operations "
           "it replays."),
        Qt::ToolTipRole);
    m_proxy = new RunFilter(&m_catalog, this);
    m_proxy->setSourceModel(m_model);
    m_tree = new QTreeView(this);
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    // By name, A to Z: QHeaderView starts descending (an up arrow over Z to A), which read as
    // "ascending arrow, descending list" (issue 58).
    m_tree->sortByColumn(Name, Qt::AscendingOrder);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->header()->setStretchLastSection(true);
    // Runs are dragged onto a workload to move them there.
    m_tree->setDragEnabled(true);
    m_tree->setAcceptDrops(true);
    m_tree->setDropIndicatorShown(true);
    m_tree->setDragDropMode(QAbstractItemView::DragDrop);
    m_tree->setDefaultDropAction(Qt::CopyAction);
    m_compare = new QPushButton(tr("Compare"), this);
    m_compare->setToolTip(tr("Compare the selected runs (two or more): metrics, headline metrics, "
                             "params and a trace diff"));
    m_compare->setEnabled(false);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_compare);
    layout->addLayout(top);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_message);
    connect(m_filter, &QLineEdit::textChanged, this, &RunsBrowser::setFilter);
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QStringList runs = selectedRuns();
        m_compare->setEnabled(runs.size() >= 2);
        Q_EMIT selectionChanged(runs);
    });
    connect(m_compare, &QPushButton::clicked, this,
            [this] { Q_EMIT compareRequested(selectedRuns()); });
    connect(m_tree, &QTreeView::customContextMenuRequested, this, &RunsBrowser::contextMenu);
    connect(m_tree, &QTreeView::doubleClicked, this, [this](const QModelIndex &index) {
        const RunId id = index.siblingAtColumn(Name).data(kRunIdRole).toLongLong();
        if (const CatalogRun *r = id ? m_catalog.run(id) : nullptr)
            Q_EMIT showInTimelineRequested({r->name}, false);
    });
}

void RunsBrowser::setCatalog(const RunCatalog &catalog)
{
    const QStringList selected = selectedRuns();
    m_catalog = catalog;
    m_model->removeRows(0, m_model->rowCount());
    QHash<qint64, QStandardItem *> workloads;
    QHash<qint64, QStandardItem *> experiments;
    for (const CatalogExperiment &e : m_catalog.experiments) {
        auto row = groupRow(e.name, tr("experiment"));
        experiments.insert(e.id, row[0]);
        m_model->appendRow(row);
    }
    for (const CatalogWorkload &w : m_catalog.workloads) {
        auto row = groupRow(w.name, tr("workload"));
        row[0]->setData(w.id, kWorkloadRole);
        workloads.insert(w.id, row[0]);
        if (QStandardItem *e = experiments.value(w.experimentId))
            e->appendRow(row);
        else
            m_model->appendRow(row);
    }
    QStandardItem *loose = nullptr;
    for (const CatalogRun &r : m_catalog.runs) {
        QStandardItem *parent = workloads.value(r.workloadId);
        if (!parent) {
            if (!loose) {
                auto row = groupRow(tr("Runs in no workload"), QString());
                row[0]->setData(qint64(-1), kWorkloadRole);
                loose = row[0];
                m_model->appendRow(row);
            }
            parent = loose;
        }
        parent->appendRow(runRow(r));
    }
    // Counts on the group rows.
    std::function<int(QStandardItem *)> count = [&](QStandardItem *item) {
        if (item->data(kRunIdRole).toLongLong())
            return 1;
        int n = 0;
        for (int i = 0; i < item->rowCount(); ++i)
            n += count(item->child(i));
        if (item->parent() || item->rowCount())
            item->setText(QStringLiteral("%1 (%2)")
                              .arg(item->text().section(QStringLiteral(" ("), 0, 0))
                              .arg(n));
        return n;
    };
    for (int i = 0; i < m_model->rowCount(); ++i)
        count(m_model->item(i));
    m_tree->expandAll();
    for (int c = 0; c < Params; ++c)
        m_tree->resizeColumnToContents(c);
    m_tree->setColumnWidth(Params, std::max(m_tree->columnWidth(Params), 320));
    selectRuns(selected);
}

void RunsBrowser::setFilter(const QString &text)
{
    if (m_filter->text() != text)
        m_filter->setText(text);
    static_cast<RunFilter *>(m_proxy)->setText(text);
    m_tree->expandAll();
}

void RunsBrowser::showMessage(const QString &text)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QList<RunId> RunsBrowser::selectedIds() const
{
    QList<RunId> out;
    for (const QModelIndex &i : m_tree->selectionModel()->selectedRows(0))
        if (const RunId id = m_proxy->data(i, kRunIdRole).toLongLong())
            out.append(id);
    return out;
}

QStringList RunsBrowser::selectedRuns() const
{
    QStringList out;
    for (RunId id : selectedIds())
        if (const CatalogRun *r = m_catalog.run(id))
            out << r->name;
    return out;
}

void RunsBrowser::selectRuns(const QStringList &names)
{
    QItemSelection selection;
    std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &parent) {
        for (int i = 0; i < m_proxy->rowCount(parent); ++i) {
            const QModelIndex index = m_proxy->index(i, 0, parent);
            const CatalogRun *r =
                m_catalog.run(RunId(m_proxy->data(index, kRunIdRole).toLongLong()));
            if (r && names.contains(r->name))
                selection.select(index, index.siblingAtColumn(Columns - 1));
            visit(index);
        }
    };
    visit({});
    m_tree->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect |
                                                    QItemSelectionModel::Rows);
}

int RunsBrowser::visibleRunCount() const
{
    int n = 0;
    std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &parent) {
        for (int i = 0; i < m_proxy->rowCount(parent); ++i) {
            const QModelIndex index = m_proxy->index(i, 0, parent);
            n += m_proxy->data(index, kRunIdRole).toLongLong() != 0;
            visit(index);
        }
    };
    visit({});
    return n;
}

void RunsBrowser::dropOnWorkload(const QList<RunId> &ids, qint64 workload)
{
    if (workload < 0) {
        Q_EMIT moveRequested(ids, QString(), QString());
        return;
    }
    const CatalogWorkload *w = m_catalog.workload(workload);
    if (!w)
        return;
    const CatalogExperiment *e = m_catalog.experiment(w->experimentId);
    Q_EMIT moveRequested(ids, e ? e->name : QString(), w->name);
}

void RunsBrowser::contextMenu(const QPoint &at)
{
    const QList<RunId> ids = selectedIds();
    if (ids.isEmpty())
        return;
    QMenu menu(this);
    QAction *show = menu.addAction(ids.size() == 1 ? tr("Show in Timeline")
                                                   : tr("Show in Timeline, Aligned at Start"));
    QAction *together =
        ids.size() > 1 ? menu.addAction(tr("Show in Timeline on the Project Clock")) : nullptr;
    QAction *compare = menu.addAction(tr("Compare"));
    compare->setEnabled(ids.size() >= 2);
    menu.addSeparator();
    QAction *move = menu.addAction(tr("Move to Workload…"));
    QAction *ungroup = menu.addAction(tr("Remove from Workload"));
    QAction *tags = menu.addAction(tr("Edit Tags…"));
    tags->setEnabled(ids.size() == 1);
    QAction *chosen = menu.exec(m_tree->viewport()->mapToGlobal(at));
    if (chosen && (chosen == show || chosen == together)) {
        Q_EMIT showInTimelineRequested(selectedRuns(), chosen == together);
    } else if (chosen == compare) {
        Q_EMIT compareRequested(selectedRuns());
    } else if (chosen == move) {
        bool ok = false;
        const QString place =
            QInputDialog::getText(this, tr("Move to Workload"),
                                  tr("Experiment / workload (the experiment may be left out):"),
                                  QLineEdit::Normal, QString(), &ok);
        if (!ok || place.trimmed().isEmpty())
            return;
        const int slash = int(place.lastIndexOf(QLatin1Char('/')));
        Q_EMIT moveRequested(ids, slash > 0 ? place.left(slash).trimmed() : QString(),
                             slash > 0 ? place.mid(slash + 1).trimmed() : place.trimmed());
    } else if (chosen == ungroup) {
        Q_EMIT moveRequested(ids, QString(), QString());
    } else if (chosen == tags) {
        const CatalogRun *r = m_catalog.run(ids.front());
        // MLflow's own tags (mlflow.*) are kept as they are and not offered for editing.
        QStringList now;
        QJsonObject tagsOut;
        for (auto it = r->tags.begin(); it != r->tags.end(); ++it) {
            if (it.key().startsWith(QLatin1String("mlflow.")))
                tagsOut.insert(it.key(), it.value());
            else
                now << it.key() + QLatin1Char('=') + it.value().toVariant().toString();
        }
        bool ok = false;
        const QString text = QInputDialog::getText(
            this, tr("Edit Tags"), tr("Tags of '%1' (KEY=VALUE, comma separated):").arg(r->name),
            QLineEdit::Normal, now.join(QStringLiteral(", ")), &ok);
        if (!ok)
            return;
        for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const int eq = int(part.indexOf(QLatin1Char('=')));
            if (eq > 0)
                tagsOut.insert(part.left(eq).trimmed(), part.mid(eq + 1).trimmed());
            else if (!part.trimmed().isEmpty())
                tagsOut.insert(part.trimmed(), QString());
        }
        Q_EMIT tagsRequested(r->id, tagsOut);
    }
}

} // namespace gml
