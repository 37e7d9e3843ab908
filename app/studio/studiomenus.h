// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The studio's menus (issue 71: they were the window's): File (open, recent, follow, record,
// reload, export), View (a Show entry per view and pane with its shortcut, layout, theme,
// palette, zoom, colours, find, the docks), each page's own menu, and Help.
namespace gml {

class MainWindow;

void buildStudioMenus(MainWindow &window);

} // namespace gml
