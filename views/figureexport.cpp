// SPDX-License-Identifier: GPL-3.0-or-later
#include "figureexport.h"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace gml {

bool exportFigure(TimelinePainter &painter, const FigureRequest &request, QString *error)
{
    const auto &data = painter.data();
    if (!data) {
        *error = QStringLiteral("nothing to export: the project has no timeline data");
        return false;
    }
    TimelineViewport v;
    v.t0 = request.t1 > request.t0 ? request.t0 : data->start;
    v.t1 = request.t1 > request.t0 ? request.t1 : data->end;
    const int fullHeight = painter.metrics().headerHeight() + painter.layout().contentHeight() + 1;
    v.size = QSize(request.size.width(), request.fitHeight ? std::max(request.size.height(), fullHeight)
                                                           : request.size.height());
    TimelineOverlay overlay = request.overlay;
    if (overlay.traceEnd <= overlay.traceStart) {
        overlay.traceStart = data->start;
        overlay.traceEnd = data->end;
    }
    const QString suffix = QFileInfo(request.path).suffix().toLower();
    // Every format is written to a temporary file first: a failed export never leaves half a
    // figure where the old one was.
    QSaveFile file(request.path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("%1: cannot write: %2").arg(request.path, file.errorString());
        return false;
    }
    if (suffix == QLatin1String("png")) {
        QImage image(v.size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            painter.paint(p, v, overlay);
        }
        if (!image.save(&file, "PNG")) {
            *error = QStringLiteral("%1: PNG encoding failed").arg(request.path);
            file.cancelWriting();
            return false;
        }
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(v.size);
        svg.setViewBox(QRect(QPoint(0, 0), v.size));
        svg.setTitle(QStringLiteral("GradeML Studio timeline"));
        svg.setDescription(QStringLiteral("Timeline of %1").arg(QFileInfo(data->projectPath).fileName()));
        QPainter p(&svg);
        painter.paint(p, v, overlay);
    } else if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(&file);
        pdf.setResolution(72); // one device pixel = one point
        pdf.setPageSize(QPageSize(QSizeF(v.size), QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(QStringLiteral("GradeML Studio timeline"));
        pdf.setCreator(QStringLiteral("GradeML Studio"));
        QPainter p(&pdf);
        painter.paint(p, v, overlay);
    } else {
        *error = QStringLiteral("%1: unknown figure format '%2' (expected png, svg or pdf)")
                     .arg(request.path, suffix);
        file.cancelWriting();
        return false;
    }
    if (!file.commit()) {
        *error = QStringLiteral("%1: cannot write: %2").arg(request.path, file.errorString());
        return false;
    }
    return true;
}

} // namespace gml
