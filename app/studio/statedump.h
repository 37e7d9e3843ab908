// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>

namespace gml {

class MainWindow;

// The window's state as scripts and tests read it (`grademl-studio --screenshot OUT.png --state
// OUT.json`). Keys, stable: `front_view` (the central view in front), `panels` [{`name`,
// `visible`, `x`, `y`, `width`, `height`}] (window coordinates; visible: some of it is on
// screen), `focus_runs` [names], `window` {`start_ns`, `end_ns`, `origin_ns`} (project clock of
// the first focused run; the ruler counts from the origin), `tracks` [{`name`, `kind`, `run`,
// `rank`, `y`, `height`}] (the rows on screen, window coordinates), `ruler` [{`label`, `x`,
// `width`}] (the tick labels drawn, window coordinates), `first_paint_ms`, `size` {`width`,
// `height`}, and for a multi-rank run `rank_overview` {`run`, `visible`, `lanes`, `ranks`,
// `rows` (pixel rows drawn: lanes share a row past one a pixel), `y`, `height`, `marks`}.
QJsonObject studioState(const MainWindow &window);

} // namespace gml
