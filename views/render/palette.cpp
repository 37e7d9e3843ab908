// SPDX-License-Identifier: GPL-3.0-or-later
#include "palette.h"

#include <QHash>

namespace gml {

int SlicePalette::indexFor(const QString &name)
{
    // Seed fixed to 0: qHash is then the same in every process.
    return int(qHash(QStringView(name), 0) % kSize);
}

QColor SlicePalette::color(int index)
{
    static const std::array<QColor, kSize> colors = [] {
        std::array<QColor, kSize> c;
        for (int i = 0; i < kSize; ++i) {
            // Spread hues by a golden-ratio walk so neighbours in the table differ visibly;
            // alternate two lightness levels.
            const int hue = (i * 137) % 360;
            c[size_t(i)] = QColor::fromHsl(hue, i % 2 ? 130 : 150, i % 3 ? 170 : 150);
        }
        return c;
    }();
    return colors[size_t(index % kSize)];
}

QColor SlicePalette::darker(int index)
{
    return color(index).darker(135);
}

} // namespace gml
