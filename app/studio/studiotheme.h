// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// View › Theme (issue 71: it was the window's): "light", "dark" or "system" (the platform's,
// read at start), applied to every view, and remembered per user.
#include <QString>

class QMenu;
class QWidget;

namespace gml {

// The platform palette's darkness, before the studio sets a palette of its own.
void setSystemDark(bool dark);
// The user's choice ("system" when none).
QString savedTheme();
// Applies `name` to the application and checks its entry in `window`'s Theme menu; remembered
// unless `remember` is false (--theme, screenshots). An unknown name changes nothing.
void setTheme(QWidget *window, const QString &name, bool remember = true);
// The Theme submenu of `view`, its entries applying to `window`.
void addThemeMenu(QMenu *view, QWidget *window);

} // namespace gml
