// SPDX-License-Identifier: GPL-3.0-or-later
#include "palette.h"

#include <QHash>

namespace gml {

int SlicePalette::indexFor(const QString &name)
{
    // Seed fixed to 0: qHash is then the same in every process.
    return int(qHash(QStringView(name), 0) % kNames);
}

QColor SlicePalette::color(int index)
{
    // The classes: compute blue and communication red as in the rank overview, copies amber,
    // CPU ops green, Python violet, annotations grey; light enough for dark label text.
    static const QColor classes[] = {QColor(0x86, 0xa8, 0xd8), QColor(0xe8, 0x8a, 0x80),
                                     QColor(0xf0, 0xc4, 0x5a), QColor(0x9c, 0xcf, 0x8c),
                                     QColor(0xc6, 0xa8, 0xe4), QColor(0xcc, 0xcc, 0xcc)};
    if (index >= kNames && index < kSize)
        return classes[index - kNames];
    static const std::array<QColor, kNames> colors = [] {
        std::array<QColor, kNames> c;
        for (int i = 0; i < kNames; ++i) {
            // Spread hues by a golden-ratio walk so neighbours in the table differ visibly;
            // alternate two lightness levels.
            const int hue = (i * 137) % 360;
            c[size_t(i)] = QColor::fromHsl(hue, i % 2 ? 130 : 150, i % 3 ? 170 : 150);
        }
        return c;
    }();
    return colors[size_t(index % kNames)];
}

QColor SlicePalette::darker(int index)
{
    return color(index).darker(135);
}

} // namespace gml
