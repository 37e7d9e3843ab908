// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

#include <array>

namespace gml {

// Stable slice colours: a name always gets the same colour, in every run and every session
// (hash of the text, not of the interned id). Light enough for dark label text.
struct SlicePalette
{
    static constexpr int kSize = 24;
    static int indexFor(const QString &name);
    static QColor color(int index);
    static QColor darker(int index);
};

} // namespace gml
