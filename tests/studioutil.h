// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers for the tests that drive the studio's window (tst_studio, tst_tools).
#pragma once

#include "mainwindow.h"

#include <QSignalSpy>
#include <QSize>

namespace gmltest {

inline bool waitLoaded(gml::MainWindow &w, int timeoutMs = 120000)
{
    QSignalSpy spy(&w, &gml::MainWindow::loaded);
    if (!spy.wait(timeoutMs))
        return false;
    return spy.first().first().toBool();
}

// A shown window that never pops up a progress dialog (tests drive it without a user).
inline void showQuietly(gml::MainWindow &w, QSize size)
{
    w.setInteractive(false);
    w.resize(size);
    w.show();
}

} // namespace gmltest
