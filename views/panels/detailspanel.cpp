// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailspanel.h"

#include "theme.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextBrowser>
#include <QUrlQuery>
#include <QVBoxLayout>

namespace gml {

DetailsPanel::DetailsPanel(QWidget *parent) : QWidget(parent), m_text(new QTextBrowser(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text);
    m_text->setOpenLinks(false);
    connect(m_text, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        // gml:slice?track=T&id=S
        const QUrlQuery q(url);
        Q_EMIT linkedSliceActivated(q.queryItemValue(QStringLiteral("track")).toLongLong(),
                                    q.queryItemValue(QStringLiteral("id")).toLongLong());
    });
    showMessage(tr("Click a slice to see its details. Drag on the ruler (or Shift-drag) to "
                   "select a range."));
}

void DetailsPanel::showMessage(const QString &text)
{
    m_text->setHtml(QStringLiteral("<p style='color:%1'>%2</p>")
                        .arg(Theme::current().muted.name(), text.toHtmlEscaped()));
}

QString DetailsPanel::plainText() const
{
    return m_text->toPlainText();
}

void DetailsPanel::showSlice(const SliceDetails &s, const QString &trackLabel, TimeNs traceStart,
                             std::optional<TimeNs> selfTime, const QList<LinkedSlice> &links,
                             const std::function<QString(TrackId)> &trackName)
{
    const QString muted = Theme::current().muted.name(); // readable in both themes
    const auto row = [&muted](const QString &k, const QString &v) {
        return QStringLiteral("<tr><td style='color:%1;padding-right:10px'>%2</td><td>%3</td></tr>")
            .arg(muted, k.toHtmlEscaped(), v);
    };
    QString html =
        QStringLiteral("<h3 style='margin:2px 0'>%1</h3><table>").arg(s.name.toHtmlEscaped());
    html += row(tr("Category"), s.category.toHtmlEscaped());
    html += row(tr("Track"), trackLabel.toHtmlEscaped());
    html += row(tr("Start"), formatDuration(s.start - traceStart, 4).toHtmlEscaped());
    html += row(tr("Duration"), formatDuration(s.duration, 4).toHtmlEscaped());
    html += row(tr("Self time"), selfTime ? formatDuration(*selfTime, 4).toHtmlEscaped()
                                          : tr("computing…").toHtmlEscaped());
    if (s.correlation)
        html += row(tr("Correlation"), QString::number(*s.correlation));
    if (s.externalId)
        html += row(tr("External id"), QString::number(*s.externalId));
    html += row(tr("Slice id"), QString::number(s.id));
    html += QStringLiteral("</table>");
    if (!links.isEmpty()) {
        html += QStringLiteral("<h4 style='margin:6px 0 2px 0'>%1</h4><ul style='margin:0'>")
                    .arg(tr("Linked slices"));
        for (const auto &l : links) {
            html += QStringLiteral(
                        "<li>%1 %2 <a href='gml:slice?track=%3&amp;id=%4'>%5</a> (%6, %7)</li>")
                        .arg(flowKindName(l.kind).toHtmlEscaped(),
                             l.outgoing ? QStringLiteral("→") : QStringLiteral("←"))
                        .arg(l.track)
                        .arg(l.id)
                        .arg(l.name.toHtmlEscaped(), trackName(l.track).toHtmlEscaped(),
                             formatDuration(l.duration).toHtmlEscaped());
        }
        html += QStringLiteral("</ul>");
    }
    if (!s.args.isEmpty()) {
        html +=
            QStringLiteral("<h4 style='margin:6px 0 2px 0'>%1</h4><table>").arg(tr("Arguments"));
        for (auto it = s.args.begin(); it != s.args.end(); ++it) {
            const QJsonValue v = it.value();
            QString text;
            if (v.isString())
                text = v.toString();
            else if (v.isDouble())
                text = QString::number(v.toDouble(), 'g', 15);
            else if (v.isBool())
                text = v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
            else if (v.isArray())
                text = QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
            else if (v.isObject())
                text =
                    QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
            if (text.size() > 400)
                text = text.left(400) + QStringLiteral("…");
            html += row(it.key(), text.toHtmlEscaped());
        }
        html += QStringLiteral("</table>");
    }
    m_text->setHtml(html);
}

} // namespace gml
