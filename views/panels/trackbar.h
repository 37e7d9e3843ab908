// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QComboBox;
class QLineEdit;
class QToolButton;

namespace gml {

class TimelineView;

// The timeline's track tools, in one row: a name filter (rank 12, nccl, stream 7…), which side
// to show (all tracks, GPU streams only, CPU only), and a menu to collapse or expand every row,
// unpin the pinned tracks and show the hidden ones.
class TrackBar : public QWidget
{
    Q_OBJECT
public:
    explicit TrackBar(TimelineView *timeline, QWidget *parent = nullptr);

    QLineEdit *filterEdit() const { return m_filter; }
    QComboBox *sideBox() const { return m_side; }

private:
    void apply();

    TimelineView *m_timeline;
    QLineEdit *m_filter;
    QComboBox *m_side;
    QToolButton *m_more;
};

} // namespace gml
