// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QColor>
#include <QPalette>
#include <QString>

namespace gml {

// What a piece of time was spent on, with one colour in every view and legend: the timeline's
// rank overview, the Analysis, Compare and What-if charts, the execution graph, the flame graph.
enum class ResourceClass { Cpu, Compute, Communication, Copies, Idle };
inline constexpr ResourceClass kResourceClasses[] = {
    ResourceClass::Compute, ResourceClass::Communication, ResourceClass::Copies, ResourceClass::Cpu,
    ResourceClass::Idle};

// The one palette of the studio, light or dark: every painter and chart takes its colours from
// the current theme (and Qt's palette roles, which it sets), so View › Theme changes them all,
// exports included. Slice colours keep their hash (SlicePalette): light enough for `sliceText`
// in both themes.
struct Theme
{
    bool dark = false;
    QColor base;      // plots and timeline rows
    QColor alternate; // every other row, the ruler
    QColor header;    // the label column, headers
    QColor text;
    QColor muted; // secondary text, ticks
    QColor grid;
    QColor border;
    QColor accent;    // selection
    QColor note;      // notes and bookmarks
    QColor highlight; // find matches, flame-graph frames picked
    QColor sliceText; // text on slice colours (dark in both themes)
    QColor caution;   // a caveat's text (Compare's notes): amber, 4.5:1 on `base` at least

    QColor resource(ResourceClass c) const;
    static QString resourceName(ResourceClass c);
    QColor trackKind(TrackKind kind) const; // the marker beside a track's label

    static const Theme &lightTheme();
    static const Theme &darkTheme();
    static const Theme &current();
    // Sets the current theme (the studio at start and from View › Theme; the CLI's --theme).
    static void use(bool dark);
    // The theme by name: "light", "dark"; "system" follows the platform's palette (dark when its
    // window colour is dark). Nullopt-like: false when the name is none of them.
    static bool parse(const QString &name, bool systemDark, bool *dark);
    // Qt's palette for the widgets in this theme (with the Fusion style).
    QPalette palette() const;
};

} // namespace gml
