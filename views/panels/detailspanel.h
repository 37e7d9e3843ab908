// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slicequery.h"

#include <QWidget>

class QTextBrowser;

namespace gml {

// The selected slice: name, category, track, start, duration, self time, ids and args, and
// its linked slices as links (a click jumps to them).
class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);

    // `selfTime` nullopt: being computed (shown as such; showSlice again with it).
    void showSlice(const SliceDetails &slice, const QString &trackLabel, TimeNs traceStart,
                   std::optional<TimeNs> selfTime, const QList<LinkedSlice> &links,
                   const std::function<QString(TrackId)> &trackName);
    void showMessage(const QString &text);
    QString plainText() const;

Q_SIGNALS:
    void linkedSliceActivated(qint64 track, qint64 slice);

private:
    QTextBrowser *m_text;
};

} // namespace gml
