// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

#include <array>

namespace gml {

// Stable slice colours: a name always gets the same colour, in every run and every session
// (hash of the text, not of the interned id). Light enough for dark label text.
// Colour by class: one fixed colour per SliceRole (sliceclass.h), after the name colours.
struct SlicePalette
{
    static constexpr int kNames = 24;
    static constexpr int kSize = kNames + 6; // the names', then the classes'
    static int indexFor(const QString &name);
    static int classIndex(int role) { return kNames + role; }
    static QColor color(int index);
    static QColor darker(int index);
};

} // namespace gml
