// SPDX-License-Identifier: GPL-3.0-or-later
#include "figureexport.h"

#include "outputfile.h"
#include "safetext.h"

#include <QFileInfo>
#include <QJsonArray>

#include <QBuffer>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

namespace gml {

namespace {

// The painter set up for a figure while it lives (figure mode, label column, notes' strip,
// colours), as it was afterwards.
class FigureSetup
{
public:
    FigureSetup(TimelinePainter &painter, const FigureRequest &r)
        : m_painter(painter), m_figure(painter.figureMode()),
          m_labelWidth(painter.metrics().labelWidth), m_noteStrip(painter.metrics().noteHeight > 0),
          m_colorBy(painter.colorBy())
    {
        painter.setFigureMode(!r.chrome);
        painter.setColorBy(r.colorBy);
        painter.setNoteStrip(r.notes && !r.overlay.notes.empty());
        const int most = int(r.size.width() * (r.chrome ? 1.0 / 3 : r.maxLabelShare));
        if (!r.chrome) // the short labels' width
            painter.setLabelWidth(painter.figureLabelWidth(most));
        else if (m_labelWidth > most) // a narrow figure keeps most of its width for time
            painter.setLabelWidth(most);
    }
    ~FigureSetup()
    {
        m_painter.setFigureMode(m_figure);
        m_painter.setColorBy(m_colorBy);
        m_painter.setNoteStrip(m_noteStrip);
        m_painter.setLabelWidth(m_labelWidth);
    }
    FigureSetup(const FigureSetup &) = delete;
    FigureSetup &operator=(const FigureSetup &) = delete;

private:
    TimelinePainter &m_painter;
    bool m_figure;
    int m_labelWidth;
    bool m_noteStrip;
    TimelinePainter::ColorBy m_colorBy;
};

// The figure's viewport with the painter set up (FigureSetup).
TimelineViewport figureViewport(const TimelinePainter &painter, const TimelineData &data,
                                const FigureRequest &request)
{
    TimelineViewport v;
    v.t0 = request.t1 > request.t0 ? request.t0 : data.start;
    v.t1 = request.t1 > request.t0 ? request.t1 : data.end;
    const int fullHeight =
        painter.rowsTop() + painter.layout().contentHeight() + 1 + painter.legendHeight();
    v.size =
        QSize(request.size.width(), request.fitHeight ? std::max(request.size.height(), fullHeight)
                                                      : request.size.height());
    return v;
}

} // namespace

FigureGeometry figureGeometry(TimelinePainter &painter, const FigureRequest &request)
{
    if (!painter.data())
        return {request.size, painter.metrics().labelWidth};
    const FigureSetup setup(painter, request);
    return {figureViewport(painter, *painter.data(), request).size, painter.metrics().labelWidth};
}

QJsonObject figureState(TimelinePainter &painter, const FigureRequest &request)
{
    const FigureGeometry g = figureGeometry(painter, request);
    QJsonArray tracks, ruler;
    for (const auto &l : painter.drawnLabels())
        tracks.append(QJsonObject{{QStringLiteral("label"), l.text},
                                  {QStringLiteral("kind"), l.kind},
                                  {QStringLiteral("y"), l.y},
                                  {QStringLiteral("height"), l.height}});
    for (const auto &l : painter.rulerLabels())
        ruler.append(QJsonObject{{QStringLiteral("label"), l.text},
                                 {QStringLiteral("x"), l.x},
                                 {QStringLiteral("width"), l.width}});
    return QJsonObject{
        {QStringLiteral("size"), QJsonObject{{QStringLiteral("width"), g.size.width()},
                                             {QStringLiteral("height"), g.size.height()},
                                             {QStringLiteral("dpi"), request.dpi}}},
        {QStringLiteral("label_width"), g.labelWidth},
        {QStringLiteral("tracks"), tracks},
        {QStringLiteral("ruler"), ruler},
        {QStringLiteral("ruler_base"), painter.rulerBaseText()},
        {QStringLiteral("legend"), QJsonArray::fromStringList(painter.legendEntries())}};
}

bool exportFigure(TimelinePainter &painter, const FigureRequest &request, QString *error)
{
    const auto &data = painter.data();
    if (!data) {
        *error = QStringLiteral("nothing to export: the project has no timeline data");
        return false;
    }
    const FigureSetup setup(painter, request);
    const TimelineViewport v = figureViewport(painter, *data, request);
    TimelineOverlay overlay = request.overlay;
    if (overlay.traceEnd <= overlay.traceStart) {
        overlay.traceStart = data->start;
        overlay.traceEnd = data->end;
    }
    if (!request.notes)
        overlay.notes.clear();
    painter.waitForPages(v); // a paged track's rows as the figure's scale wants them
    return writeFigure(
        request.path, v.size, QStringLiteral("GradeML Studio timeline"),
        QStringLiteral("Timeline of %1").arg(QFileInfo(data->projectPath).fileName()),
        [&](QPainter &p) { painter.paint(p, v, overlay); }, error, request.dpi);
}

bool writeFigure(const QString &path, QSize size, const QString &title, const QString &description,
                 const std::function<void(QPainter &)> &draw, QString *error, double dpi,
                 int svgPerInch)
{
    const double scale =
        std::clamp(dpi, 24.0, 1200.0) / 96.0; // device pixels per logical pixel (PNG)
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") &&
        suffix != QLatin1String("pdf")) {
        *error = QStringLiteral("%1: unknown figure format '%2' (expected png, svg or pdf)")
                     .arg(path, suffix);
        return false;
    }
    OutputFile out(path); // never a project, a link or a device; whole or nothing
    if (!out.open()) {
        *error = out.error();
        return false;
    }
    QIODevice &file = *out.device();
    if (suffix == QLatin1String("png")) {
        const QSize pixels(int(std::lround(size.width() * scale)),
                           int(std::lround(size.height() * scale)));
        QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
        if (image.isNull()) {
            *error = QStringLiteral("%1: a %2x%3 image is too large to allocate")
                         .arg(path)
                         .arg(pixels.width())
                         .arg(pixels.height());
            return false;
        }
        image.fill(Qt::white);
        {
            QPainter p(&image);
            p.scale(scale, scale); // fonts at the screen's 96 per inch, then scaled with the rest
            draw(p);
        }
        image.setDotsPerMeterX(int(std::lround(dpi / 0.0254))); // the PNG says its print size
        image.setDotsPerMeterY(int(std::lround(dpi / 0.0254)));
        if (!image.save(&file, "PNG")) {
            *error = QStringLiteral("%1: PNG encoding failed").arg(path);
            return false;
        }
    } else if (suffix == QLatin1String("svg")) {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        {
            QSvgGenerator svg;
            svg.setOutputDevice(&buffer);
            svg.setResolution(svgPerInch);
            svg.setSize(size);
            svg.setViewBox(QRect(QPoint(0, 0), size));
            // Title and description are written below through the one escaper: Qt 6.4 wrote
            // them raw, so a run name holding markup ran as script in a browser.
            QPainter p(&svg);
            draw(p);
        }
        // Characters XML cannot hold (a run name's ESC, drawn as text) made the whole SVG
        // unreadable, a blank figure in the report: they go.
        QString text = QString::fromUtf8(xmlWithoutForbiddenChars(buffer.data()));
        // Qt's family names ("Sans Serif") mean nothing to a browser or Inkscape, which fell back
        // to a serif face: each gets the generic family after it.
        static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
        text.replace(family, QStringLiteral("font-family=\"\\1, sans-serif\""));
        // Ours replace Qt's defaults ("Qt SVG Document"), first inside <svg> as SVG readers and
        // screen readers expect.
        const QString ours = QStringLiteral("<title>%1</title>\n<desc>%2</desc>\n")
                                 .arg(xmlEscaped(title), xmlEscaped(description));
        static const QRegularExpression qtDefaults(
            QStringLiteral("<title>Qt SVG Document</title>\\s*<desc>Generated with Qt</desc>\\s*"));
        static const QRegularExpression svgOpen(QStringLiteral("<svg[^>]*>\\s*"));
        if (const auto m = qtDefaults.match(text); m.hasMatch())
            text.replace(m.capturedStart(), m.capturedLength(), ours);
        else if (const auto open = svgOpen.match(text); open.hasMatch())
            text.insert(open.capturedEnd(), ours);
        if (!out.write(text.toUtf8())) {
            *error = out.error();
            return false;
        }
    } else {
        QPdfWriter pdf(&file);
        pdf.setResolution(72); // one device pixel = one point
        pdf.setPageSize(
            QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(title);
        pdf.setCreator(QStringLiteral("GradeML Studio"));
        QPainter p(&pdf);
        draw(p);
    }
    if (!out.commit()) {
        *error = out.error();
        return false;
    }
    return true;
}

} // namespace gml
