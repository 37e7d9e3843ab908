// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracediffview.h"

#include "tracediffmodel.h"

#include "timeformat.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <cmath>
#include <unordered_set>

namespace gml {

namespace {

using Col = TraceDiffModel::Column;

const RunSummary *runNamed(const TimelineData &data, const QString &name)
{
    for (const RunSummary &r : data.runs)
        if (r.name == name)
            return &r;
    return nullptr;
}

} // namespace

TraceDiffView::TraceDiffView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    m_head = new QLabel(this);
    m_head->setWordWrap(true);
    m_head->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_head);
    auto *pick = new QHBoxLayout;
    m_sideA = new QComboBox(this);
    m_sideB = new QComboBox(this);
    for (auto *c : {m_sideA, m_sideB}) {
        c->setMinimumContentsLength(24);
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    }
    pick->addWidget(new QLabel(tr("A:"), this));
    pick->addWidget(m_sideA, 1);
    pick->addSpacing(12);
    pick->addWidget(new QLabel(tr("B:"), this));
    pick->addWidget(m_sideB, 1);
    layout->addLayout(pick);
    auto *row = new QHBoxLayout;
    m_pair = new QComboBox(this);
    m_pair->setMinimumContentsLength(30);
    m_level = new QComboBox(this);
    row->addWidget(new QLabel(tr("Iteration:"), this));
    row->addWidget(m_pair, 1);
    row->addSpacing(12);
    row->addWidget(new QLabel(tr("Level:"), this));
    row->addWidget(m_level);
    layout->addLayout(row);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_model = new TraceDiffModel(this);
    m_table = new QTreeView(split);
    m_table->setModel(m_model);
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setAlternatingRowColors(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->header()->setStretchLastSection(true);
    m_table->setColumnWidth(Col::Name, 280);
    for (int c = Col::TimeA; c <= Col::CountB; ++c)
        m_table->setColumnWidth(c, c >= Col::CountA ? 64 : c == Col::DeltaPct ? 70 : 116);
    split->addWidget(m_table);

    auto *sides = new QWidget(split);
    auto *sl = new QVBoxLayout(sides);
    sl->setContentsMargins(0, 0, 0, 0);
    sl->setSpacing(2);
    m_stateA = new TimelineState(this);
    m_stateB = new TimelineState(this);
    m_labelA = new QLabel(sides);
    m_labelB = new QLabel(sides);
    m_viewA = new TimelineView(m_stateA, sides);
    m_viewB = new TimelineView(m_stateB, sides);
    for (auto *v : {m_viewA, m_viewB})
        v->setMinimumSize(300, 90);
    sl->addWidget(m_labelA);
    sl->addWidget(m_viewA, 1);
    sl->addWidget(m_labelB);
    sl->addWidget(m_viewB, 1);
    split->addWidget(sides);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({260, 500});
    layout->addWidget(split, 1);

    connect(m_level, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            showLevel();
    });
    connect(m_pair, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (!m_filling)
            Q_EMIT pairRequested(m_pair->itemData(index).toInt());
    });
    for (auto *c : {m_sideA, m_sideB})
        connect(c, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_filling && m_sideA->currentIndex() >= 0 && m_sideB->currentIndex() >= 0)
                Q_EMIT sidesRequested(m_sideA->currentIndex(), m_sideB->currentIndex());
        });
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { highlight(m_model->rowData(current).toString()); });
    clear();
}

void TraceDiffView::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_viewA->setData(m_data);
    m_viewB->setData(m_data);
    if (m_diff)
        showSides();
}

void TraceDiffView::setSides(const QList<sim::DiffSide> &sides, int a, int b)
{
    m_filling = true;
    for (auto *c : {m_sideA, m_sideB}) {
        c->clear();
        for (const sim::DiffSide &side : sides)
            c->addItem(side.rank >= 0 ? tr("%1 \u00b7 rank %2").arg(side.run).arg(side.rank)
                                      : side.run);
    }
    m_sideA->setCurrentIndex(a);
    m_sideB->setCurrentIndex(b);
    m_filling = false;
}

void TraceDiffView::clear()
{
    m_diff.reset();
    m_filling = true;
    m_sideA->clear();
    m_sideB->clear();
    m_pair->clear();
    m_level->clear();
    m_filling = false;
    m_model->clear();
    m_labelA->clear();
    m_labelB->clear();
    m_head->setText(
        tr("Select two runs in the Runs browser and choose Compare: their trace diff shows here."));
}

void TraceDiffView::showMessage(const QString &text)
{
    m_head->setText(text);
}

QStringList TraceDiffView::sideLabels() const
{
    QStringList out;
    for (int i = 0; i < m_sideA->count(); ++i)
        out << m_sideA->itemText(i);
    return out;
}

int TraceDiffView::levelIndex() const
{
    return m_level->currentIndex();
}

void TraceDiffView::setLevel(int index)
{
    m_level->setCurrentIndex(index);
}

void TraceDiffView::selectRow(int row)
{
    if (const QModelIndex i = m_model->index(row, 0); i.isValid())
        m_table->setCurrentIndex(i);
}

void TraceDiffView::setDiff(const sim::TraceDiff &diff)
{
    // The level shown: the user's, else the first where the runs differ.
    int level = m_level->currentIndex();
    if (level < 0) {
        level = 0;
        for (size_t k = 0; k < diff.levels.size(); ++k)
            if (std::any_of(
                    diff.levels[k].rows.begin(), diff.levels[k].rows.end(),
                    [](const sim::DiffRow &r) { return r.delta() != 0 || r.countDelta() != 0; })) {
                level = int(k);
                break;
            }
    }
    m_diff = diff;
    m_filling = true;
    m_pair->clear();
    m_pair->addItem(tr("all %1 aligned iterations, averaged").arg(diff.pairs.size()), -1);
    for (size_t k = 0; k < diff.pairs.size(); ++k) {
        const auto &p = diff.pairs[k];
        m_pair->addItem(
            QStringLiteral("%1 (%2)  \u2194  %3 (%4)")
                .arg(p.nameA, formatDuration(p.lengthA()), p.nameB, formatDuration(p.lengthB())),
            int(k));
    }
    m_pair->setCurrentIndex(diff.chosenPair + 1);
    m_level->clear();
    for (const auto &l : diff.levels)
        m_level->addItem(l.name);
    m_level->setCurrentIndex(std::min(level, m_level->count() - 1));
    m_filling = false;
    const auto side = [](const sim::DiffSide &s) {
        return s.rank >= 0 ? QStringLiteral("'%1' rank %2").arg(s.run).arg(s.rank)
                           : QStringLiteral("'%1'").arg(s.run);
    };
    m_head->setText(tr("A = %1, B = %2 · %3 aligned iteration%4, %5")
                        .arg(side(diff.a), side(diff.b))
                        .arg(diff.pairs.size())
                        .arg(diff.pairs.size() == 1 ? QString() : QStringLiteral("s"))
                        .arg(diff.alignment));
    showLevel();
    showSides();
    if (!m_table->currentIndex().isValid())
        selectRow(0); // the largest difference, lit in both timelines
}

void TraceDiffView::showLevel()
{
    const int li = m_level->currentIndex();
    if (!m_diff || li < 0 || size_t(li) >= m_diff->levels.size()) {
        m_model->clear();
        return;
    }
    m_model->setLevel(m_diff->levels[size_t(li)]);
}

void TraceDiffView::showSides()
{
    if (!m_diff || !m_data)
        return;
    const sim::TraceDiff &d = *m_diff;
    const size_t pair = d.chosenPair >= 0 ? size_t(d.chosenPair) : 0;
    struct Side
    {
        const sim::DiffSide &side;
        TimelineState *state;
        TimelineView *view;
        QLabel *label;
        QString letter;
        bool first;
    };
    for (const Side &s : {Side{d.a, m_stateA, m_viewA, m_labelA, QStringLiteral("A"), true},
                          Side{d.b, m_stateB, m_viewB, m_labelB, QStringLiteral("B"), false}}) {
        const RunSummary *run = runNamed(*m_data, s.side.run);
        s.view->showAllTracks();
        if (!run) {
            s.label->setText(tr("%1: run '%2' is not in the timeline").arg(s.letter, s.side.run));
            continue;
        }
        // Only this run, and only the rank that was diffed.
        for (const RunSummary &other : m_data->runs)
            if (other.id != run->id)
                s.view->setTrackHidden(-other.id, true);
        for (const TrackSummary &t : run->tracks)
            if (s.side.rank >= 0 && t.rank >= 0 && t.rank != s.side.rank)
                s.view->setTrackHidden(t.id, true);
        TimeNs t0 = run->start, t1 = run->end;
        QString what = tr("the whole run");
        if (pair < d.pairs.size()) {
            const auto &p = d.pairs[pair];
            t0 = s.first ? p.startA : p.startB;
            t1 = s.first ? p.endA : p.endB;
            what =
                QStringLiteral("%1, %2").arg(s.first ? p.nameA : p.nameB, formatDuration(t1 - t0));
        }
        s.state->setTraceRange(run->start, std::max(run->end, run->start + 1));
        const TimeNs margin = std::max<TimeNs>(1, (t1 - t0) / 50);
        s.state->setWindow(t0 - margin, t1 + margin);
        s.label->setText(
            QStringLiteral("<b>%1</b> \u00b7 %2%3 \u00b7 %4")
                .arg(s.letter, s.side.run.toHtmlEscaped(),
                     s.side.rank >= 0 ? tr(" \u00b7 rank %1").arg(s.side.rank) : QString(),
                     what.toHtmlEscaped()));
    }
    if (const QModelIndex i = m_table->currentIndex(); i.isValid())
        highlight(m_model->rowData(i).toString());
}

void TraceDiffView::highlight(const QString &name)
{
    m_lit = {0, 0};
    if (!m_diff || !m_data || name.isEmpty()) {
        m_viewA->setHighlighted({});
        m_viewB->setHighlighted({});
        return;
    }
    std::unordered_set<StringId> ids;
    for (size_t k = 0; k < m_data->names.size(); ++k)
        if (m_data->names[k] == name)
            ids.insert(StringId(k));
    const sim::TraceDiff &d = *m_diff;
    const size_t pair = d.chosenPair >= 0 ? size_t(d.chosenPair) : 0;
    for (int side = 0; side < 2; ++side) {
        const sim::DiffSide &s = side == 0 ? d.a : d.b;
        TimelineView *view = side == 0 ? m_viewA : m_viewB;
        std::vector<SliceRef> lit;
        const RunSummary *run = runNamed(*m_data, s.run);
        if (run && !ids.empty()) {
            TimeNs t0 = run->start, t1 = run->end;
            if (pair < d.pairs.size()) {
                t0 = side == 0 ? d.pairs[pair].startA : d.pairs[pair].startB;
                t1 = side == 0 ? d.pairs[pair].endA : d.pairs[pair].endB;
                t1 += (t1 - t0) / 10; // GPU work runs a little behind its iteration
            }
            for (const TrackSummary &t : run->tracks) {
                if (s.rank >= 0 && t.rank >= 0 && t.rank != s.rank)
                    continue;
                // Held whole, or for a paged track this iteration's slices, read now.
                const auto track = m_data->slicesIn(t.id, t0, t1);
                if (!track)
                    continue;
                track->forEachVisible(t0, t1, [&](size_t i) {
                    if (ids.count(track->nameId(i)))
                        lit.push_back({t.id, track->id(i), track->start(i), track->end(i)});
                });
            }
        }
        (side == 0 ? m_lit.first : m_lit.second) = lit.size();
        // The earliest lit slice comes into view (its row scrolled to, the window kept).
        if (!lit.empty()) {
            const auto first =
                *std::min_element(lit.begin(), lit.end(), [](const SliceRef &x, const SliceRef &y) {
                    return x.start < y.start;
                });
            view->revealSlice(first, false);
        }
        view->setHighlighted(std::move(lit));
    }
}

} // namespace gml
