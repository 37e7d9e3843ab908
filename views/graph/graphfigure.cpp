// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphfigure.h"

#include "figureexport.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace gml {

bool exportGraphFigure(const GraphPicture &picture, const GraphOverlay &overlay,
                       const QString &path, const QString &title, QString *error, int maxWidth)
{
    constexpr double kTitle = 34, kMargin = 24;
    const QRectF b = picture.layout.bounds;
    const double scale = std::min(1.0, double(maxWidth) / std::max(1.0, b.width() + 2 * kMargin));
    const int width = std::max(1100, int(std::ceil((b.width() + 2 * kMargin) * scale)));
    const double kLegend = GraphPainter::legendHeight(picture, width) + 8;
    const QSize size(width, std::max(300, int(std::ceil((b.height() + 2 * kMargin) * scale +
                                                        kTitle + kLegend))));
    return writeFigure(
        path, size, QStringLiteral("GradeML Studio graph"), title,
        [&](QPainter &p) {
            p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
            QFont f = p.font();
            f.setPixelSize(15);
            f.setBold(true);
            p.setFont(f);
            p.setPen(QColor(0x20, 0x20, 0x20));
            p.drawText(QRectF(12, 0, size.width() - 24, kTitle), Qt::AlignLeft | Qt::AlignVCenter,
                       title);
            const QRectF area(0, kTitle, size.width(), size.height() - kTitle);
            GraphPainter::paint(p, picture,
                                GraphPainter::fit(picture, area.adjusted(0, 0, 0, -kLegend), scale),
                                area, overlay);
        },
        error);
}

} // namespace gml
